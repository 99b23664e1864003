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
    /// Splits a template into literals, variables and malformed placeholders. Works on UTF-8 bytes:
    /// the braces are ASCII, so every cut falls on a character boundary.
    public static func parse(_ template: String) -> [TemplatePart] {
        let s = Array(template.utf8)
        var parts: [TemplatePart] = []
        var literalStart = 0
        var i = 0
        func text(_ range: Range<Int>) -> String { String(decoding: s[range], as: UTF8.self) }
        while i + 1 < s.count {
            guard s[i] == 0x7B, s[i + 1] == 0x7B else {
                i += 1
                continue
            }
            if literalStart < i { parts.append(.literal(text(literalStart..<i))) }
            var j = i + 2
            var close = -1
            while j + 1 < s.count {
                if s[j] == 0x7D && s[j + 1] == 0x7D {
                    close = j
                    break
                }
                j += 1
            }
            if close < 0 {
                parts.append(.malformed(raw: text(i..<s.count), reason: "'{{' is never closed by '}}'"))
                return parts
            }
            var lo = i + 2
            var hi = close
            while lo < hi, s[lo] == 0x20 || s[lo] == 0x09 { lo += 1 }
            while hi > lo, s[hi - 1] == 0x20 || s[hi - 1] == 0x09 { hi -= 1 }
            let raw = text(i..<(close + 2))
            let path = text(lo..<hi)
            if isPath(s[lo..<hi]) {
                parts.append(.variable(path: path, raw: raw))
            } else {
                parts.append(
                    .malformed(
                        raw: raw, reason: path.isEmpty ? "empty placeholder" : "'\(path)' is not a variable path"))
            }
            i = close + 2
            literalStart = i
        }
        if literalStart < s.count { parts.append(.literal(text(literalStart..<s.count))) }
        return parts
    }

    /// True when the template has a `{{` at all (the common case of plain text skips parsing).
    public static func mayContainPlaceholders(_ template: String) -> Bool {
        var previousBrace = false
        for b in template.utf8 {
            if b == 0x7B {
                if previousBrace { return true }
                previousBrace = true
            } else {
                previousBrace = false
            }
        }
        return false
    }

    static func isPath(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        var segmentLength = 0
        for b in bytes {
            if b == 0x2E {
                if segmentLength == 0 { return false }
                segmentLength = 0
            } else if StringFormat.isAlpha(b) || StringFormat.isDigit(b) || b == 0x5F || b == 0x2D {
                segmentLength += 1
            } else {
                return false
            }
        }
        return segmentLength > 0
    }

    /// `segment(.segment)*`, segments of `[A-Za-z0-9_-]+`.
    public static func isPath(_ path: String) -> Bool { isPath(Array(path.utf8)[...]) }
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
    guard TextTemplate.mayContainPlaceholders(template) else { return template }
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
    guard TextTemplate.mayContainPlaceholders(template) else { return [] }
    var seen = Set<String>()
    var result: [String] = []
    for case .variable(let path, _) in TextTemplate.parse(template) where seen.insert(path).inserted {
        result.append(path)
    }
    return result
}
