/// Length rules as the database's CHECK constraints count them: SQLite's `length()` counts Unicode
/// scalars and stops at a NUL, while Swift's `count` counts grapheme clusters. Validating with
/// the database's measure keeps input the API accepted from failing a constraint later (a 5xx,
/// or a lost event batch).
enum TextLimits {
    static func fits(_ s: String, max: Int) -> Bool {
        !s.isEmpty && s.unicodeScalars.count <= max && !s.unicodeScalars.contains("\u{0}")
    }
}
