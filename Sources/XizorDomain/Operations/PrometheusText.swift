/// Builds a Prometheus text exposition (format 0.0.4): `# HELP` and `# TYPE` once per family,
/// then its samples. Kept free of Foundation formatting so a scrape is cheap.
package struct PrometheusText {
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    package private(set) var text = ""

    package init() { text.reserveCapacity(16 * 1024) }

    package enum FamilyType: String { case counter, gauge, histogram }

    package mutating func family(_ name: String, _ type: FamilyType, _ help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type.rawValue)\n"
    }

    package mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        appendName(name, labels)
        text += " " + String(value) + "\n"
    }

    package mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        appendName(name, labels)
        text += " " + Self.format(value) + "\n"
    }

    /// A histogram from per-bucket (non-cumulative) counts: `counts` has one entry per bound and a
    /// last one for values above every bound.
    package mutating func histogram(
        _ name: String, _ labels: [(String, String)], bounds: [Double], counts: [Int], sum: Double
    ) {
        var cumulative = 0
        for (i, bound) in bounds.enumerated() {
            cumulative += counts[i]
            sample(name + "_bucket", labels + [("le", Self.format(bound))], cumulative)
        }
        cumulative += counts[bounds.count]
        sample(name + "_bucket", labels + [("le", "+Inf")], cumulative)
        sample(name + "_sum", labels, sum)
        sample(name + "_count", labels, cumulative)
    }

    private mutating func appendName(_ name: String, _ labels: [(String, String)]) {
        text += name
        guard !labels.isEmpty else { return }
        text += "{"
        for (i, (key, value)) in labels.enumerated() {
            if i > 0 { text += "," }
            text += key + "=\""
            Self.appendLabelValue(value, to: &text)
            text += "\""
        }
        text += "}"
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Label values escape `\`, `"` and newlines.
    static func appendLabelValue(_ value: String, to text: inout String) {
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": text += "\\\\"
            case "\"": text += "\\\""
            case "\n": text += "\\n"
            default: text.unicodeScalars.append(scalar)
            }
        }
    }

    /// HELP text escapes `\` and newlines.
    static func escapeHelp(_ help: String) -> String {
        help.replacingBackslashesAndNewlines()
    }
}

extension String {
    fileprivate func replacingBackslashesAndNewlines() -> String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
