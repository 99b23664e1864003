/// A location inside a JSON document, written as validator errors and localization paths write it:
/// `$.root.children[3].productSlot`; keys that are not identifiers use `["de-AT"]`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible, Comparable {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) { self.components = components }

    public static let root = JSONPath()

    public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
    public func appending(_ index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }

    public var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .index(let i): text += "[\(i)]"
            case .key(let k):
                if JSONPath.isIdentifier(k) {
                    text += "." + k
                } else {
                    text += "[" + JSONValue.string(k).canonicalString + "]"
                }
            }
        }
        return text
    }

    public static func < (lhs: JSONPath, rhs: JSONPath) -> Bool { lhs.description < rhs.description }

    static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
        return key.utf8.allSatisfy { b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x24
        }
    }

    /// Parses the textual form; nil when malformed.
    public init?(parsing text: String) {
        var chars = Array(text.unicodeScalars)[...]
        guard chars.first == "$" else { return nil }
        chars = chars.dropFirst()
        var components: [Component] = []
        while let c = chars.first {
            if c == "." {
                chars = chars.dropFirst()
                let name = chars.prefix { $0 != "." && $0 != "[" }
                guard !name.isEmpty else { return nil }
                components.append(.key(String(String.UnicodeScalarView(name))))
                chars = chars.dropFirst(name.count)
            } else if c == "[" {
                chars = chars.dropFirst()
                if chars.first == "\"" {
                    // A JSON string literal up to the closing quote followed by ']'.
                    var end = chars.startIndex + 1
                    var escaped = false
                    while end < chars.endIndex {
                        if escaped {
                            escaped = false
                        } else if chars[end] == "\\" {
                            escaped = true
                        } else if chars[end] == "\"" {
                            break
                        }
                        end += 1
                    }
                    guard end < chars.endIndex else { return nil }
                    let literal = String(String.UnicodeScalarView(chars[chars.startIndex...end]))
                    guard let key = (try? JSONValue(parsing: literal))?.stringValue else { return nil }
                    components.append(.key(key))
                    chars = chars[(end + 1)...]
                } else {
                    let digits = chars.prefix { $0 != "]" }
                    guard let index = Int(String(String.UnicodeScalarView(digits))), index >= 0 else { return nil }
                    components.append(.index(index))
                    chars = chars.dropFirst(digits.count)
                }
                guard chars.first == "]" else { return nil }
                chars = chars.dropFirst()
            } else {
                return nil
            }
        }
        self.components = components
    }
}

extension JSONValue {
    /// The value at `path`, or nil when any step is missing.
    public subscript(path path: JSONPath) -> JSONValue? {
        var current: JSONValue? = self
        for component in path.components {
            switch component {
            case .key(let k): current = current?[k]
            case .index(let i): current = current?[i]
            }
        }
        return current
    }

    /// Replaces the value at `path`. Returns false (and changes nothing) when a container on the way is
    /// missing or has the wrong type; the last key of an object may be new.
    @discardableResult
    public mutating func set(_ newValue: JSONValue, at path: JSONPath) -> Bool {
        set(newValue, at: path.components[...])
    }

    private mutating func set(_ newValue: JSONValue, at components: ArraySlice<JSONPath.Component>) -> Bool {
        guard let first = components.first else {
            self = newValue
            return true
        }
        let rest = components.dropFirst()
        switch (first, self) {
        case (.key(let k), .object(var object)):
            if rest.isEmpty {
                object[k] = newValue
            } else {
                guard var child = object[k] else { return false }
                object[k] = nil
                guard child.set(newValue, at: rest) else { return false }
                object[k] = child
            }
            self = .object(object)
            return true
        case (.index(let i), .array(var array)):
            guard array.indices.contains(i) else { return false }
            var child = array[i]
            array[i] = .null
            guard child.set(newValue, at: rest) else { return false }
            array[i] = child
            self = .array(array)
            return true
        default:
            return false
        }
    }
}
