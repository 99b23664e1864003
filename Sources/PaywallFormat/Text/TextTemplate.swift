/// The `{{path}}` template language of LocalizedText, exactly as renderers and the validator read it.
///
/// A placeholder starts at `{{` and ends at the next `}}`; whitespace (space, tab) around the path is
/// allowed. A path is one or more segments of `[A-Za-z0-9_-]` joined by `.`. A `{{` without a later
/// `}}`, or a placeholder whose inside is not a path (`{{}}`, `{{a b}}`, `{{a..b}}`), is malformed:
/// the validator rejects it and `resolveText` leaves it as literal text.
public enum TemplatePart: Sendable, Hashable {
    case literal(String)
    /// `raw` is the placeholder as written (`{{ product.price }}`), `path` the trimmed path.
    case variable(path: String, raw: String)
    /// A malformed placeholder (kept as literal text by `resolveText`).
    case malformed(raw: String, reason: String)
}

public enum TextTemplate {
    /// Splits a template into literals, variables and malformed placeholders.
    public static func parse(_ template: String) -> [TemplatePart] {
        var parts: [TemplatePart] = []
        let s = Array(template.unicodeScalars)
        var literal = String.UnicodeScalarView()
        var i = 0
        func flush() {
            if !literal.isEmpty { parts.append(.literal(String(literal))); literal = String.UnicodeScalarView() }
        }
        while i < s.count {
            if s[i] == "{", i + 1 < s.count, s[i + 1] == "{" {
                var j = i + 2
                var close = -1
                while j + 1 < s.count {
                    if s[j] == "}" && s[j + 1] == "}" { close = j; break }
                    j += 1
                }
                flush()
                if close < 0 {
                    parts.append(.malformed(raw: String(String.UnicodeScalarView(s[i...])), reason: "'{{' is never closed by '}}'"))
                    return parts
                }
                let raw = String(String.UnicodeScalarView(s[i..<(close + 2)]))
                var inner = s[(i + 2)..<close]
                while let f = inner.first, f == " " || f == "\t" { inner = inner.dropFirst() }
                while let l = inner.last, l == " " || l == "\t" { inner = inner.dropLast() }
                let path = String(String.UnicodeScalarView(inner))
                if isPath(path) {
                    parts.append(.variable(path: path, raw: raw))
                } else {
                    parts.append(.malformed(raw: raw, reason: path.isEmpty ? "empty placeholder" : "'\(path)' is not a variable path"))
                }
                i = close + 2
            } else {
                literal.append(s[i])
                i += 1
            }
        }
        flush()
        return parts
    }

    /// `segment(.segment)*`, segments of `[A-Za-z0-9_-]+`.
    public static func isPath(_ path: String) -> Bool {
        guard !path.isEmpty else { return false }
        return path.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { segment in
            !segment.isEmpty && segment.utf8.allSatisfy {
                StringFormat.isAlpha($0) || StringFormat.isDigit($0) || $0 == 0x5F || $0 == 0x2D
            }
        }
    }
}

/// What `resolveText` does with a variable that has no value: `keep` shows the placeholder as written
/// (editor, preview), `empty` removes it (production — end users never see `{{…}}`).
public enum MissingVariablePolicy: String, Sendable {
    case keep
    case empty
}

/// Replaces each `{{path}}` with its value in `context`, a JSON object walked segment by segment
/// (`product.price` → `context["product"]["price"]`). Strings are inserted as they are, numbers in their
/// canonical form, booleans as `true`/`false`; null, objects, arrays and absent paths are missing.
/// Malformed placeholders stay literal text. No escaping or markdown processing happens here.
public func resolveText(_ template: String, context: JSONValue, onMissing: MissingVariablePolicy = .keep) -> String {
    guard template.contains("{{") else { return template }
    var out = ""
    for part in TextTemplate.parse(template) {
        switch part {
        case .literal(let text): out += text
        case .malformed(let raw, _): out += raw
        case .variable(let path, let raw):
            if let value = lookupVariable(path, in: context) {
                out += value
            } else if onMissing == .keep {
                out += raw
            }
        }
    }
    return out
}

func lookupVariable(_ path: String, in context: JSONValue) -> String? {
    var current = context
    for segment in path.split(separator: ".") {
        guard let next = current[String(segment)] else { return nil }
        current = next
    }
    switch current {
    case .string(let s): return s
    case .number(let n): return n.description
    case .bool(let b): return b ? "true" : "false"
    case .null, .array, .object: return nil
    }
}

/// The variable paths of a template, each once, in order of first appearance (malformed placeholders
/// are not variables).
public func extractVariables(_ template: String) -> [String] {
    guard template.contains("{{") else { return [] }
    var seen = Set<String>()
    var result: [String] = []
    for case .variable(let path, _) in TextTemplate.parse(template) where seen.insert(path).inserted {
        result.append(path)
    }
    return result
}
