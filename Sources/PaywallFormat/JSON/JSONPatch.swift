/// RFC 6902 JSON Patch: applying a patch (with `test` operations) to a document, and the diff that
/// turns one document into another. Drafts are edited precisely with it (`PATCH …/draft` with
/// `application/json-patch+json`) and versions are compared with it (`GET …/diff`), so the diff an
/// agent reads is a patch it can send back.
public enum JSONPatch {
    public enum Operation: Sendable, Equatable {
        case add(path: JSONPointer, value: JSONValue)
        case remove(path: JSONPointer)
        case replace(path: JSONPointer, value: JSONValue)
        case move(from: JSONPointer, path: JSONPointer)
        case copy(from: JSONPointer, path: JSONPointer)
        case test(path: JSONPointer, value: JSONValue)

        public var json: JSONValue {
            switch self {
            case .add(let path, let value): ["op": "add", "path": .string(path.description), "value": value]
            case .remove(let path): ["op": "remove", "path": .string(path.description)]
            case .replace(let path, let value): ["op": "replace", "path": .string(path.description), "value": value]
            case .move(let from, let path):
                ["op": "move", "from": .string(from.description), "path": .string(path.description)]
            case .copy(let from, let path):
                ["op": "copy", "from": .string(from.description), "path": .string(path.description)]
            case .test(let path, let value): ["op": "test", "path": .string(path.description), "value": value]
            }
        }
    }

    /// Why a patch was refused; `index` is the operation's position, `field` the member at fault.
    public struct Failure: Error, Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// Not a patch: not an array of operations, an unknown `op`, a missing or mistyped member.
            case malformed
            /// A path that does not exist where it must, or an index out of range.
            case unresolvable
            /// A `test` whose value differs: the document is not what the patch expected.
            case testFailed
            /// The operation would write past the patch's `Budget` of bytes (the document limit).
            case budgetExceeded
            /// The operation would nest the document deeper than the budget's `maxDepth`.
            case tooDeep
        }
        public let kind: Kind
        public let index: Int?
        public let field: String?
        public let message: String

        /// `$[i].field`: where in the request body the problem is.
        public var jsonPath: String {
            guard let index else { return "$" }
            return "$[\(index)]" + (field.map { ".\($0)" } ?? "")
        }
    }

    /// Parses a patch document: an array of operation objects.
    public static func parse(_ json: JSONValue) throws(Failure) -> [Operation] {
        guard case .array(let items) = json else {
            throw Failure(kind: .malformed, index: nil, field: nil, message: "A JSON Patch is an array of operations.")
        }
        var operations: [Operation] = []
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item else {
                throw Failure(kind: .malformed, index: index, field: nil, message: "An operation is an object.")
            }
            func pointer(_ field: String) throws(Failure) -> JSONPointer {
                guard let raw = object[field]?.stringValue else {
                    throw Failure(
                        kind: .malformed, index: index, field: field, message: "'\(field)' is a JSON Pointer string.")
                }
                guard let parsed = JSONPointer(raw) else {
                    throw Failure(
                        kind: .malformed, index: index, field: field,
                        message: "'\(raw)' is not a JSON Pointer (it starts with '/', and '~' is escaped as ~0 or ~1).")
                }
                return parsed
            }
            func value() throws(Failure) -> JSONValue {
                guard let value = object["value"] else {
                    throw Failure(
                        kind: .malformed, index: index, field: "value", message: "This operation needs a 'value'.")
                }
                return value
            }
            switch object["op"]?.stringValue {
            case "add": operations.append(.add(path: try pointer("path"), value: try value()))
            case "remove": operations.append(.remove(path: try pointer("path")))
            case "replace": operations.append(.replace(path: try pointer("path"), value: try value()))
            case "move": operations.append(.move(from: try pointer("from"), path: try pointer("path")))
            case "copy": operations.append(.copy(from: try pointer("from"), path: try pointer("path")))
            case "test": operations.append(.test(path: try pointer("path"), value: try value()))
            case let other:
                throw Failure(
                    kind: .malformed, index: index, field: "op",
                    message:
                        "'op' is one of add, remove, replace, move, copy, test\(other.map { ", not '\($0)'" } ?? "").")
            }
        }
        return operations
    }

    /// The document with every operation applied in order, or the first failure (nothing applied).
    /// Every value placed is charged to `budget` before it is placed (see `Budget`).
    public static func apply(_ operations: [Operation], to document: JSONValue, budget: Budget = .standard)
        throws(Failure) -> JSONValue
    {
        var result = document
        var meter = Meter(budget)
        for (index, operation) in operations.enumerated() {
            do throws(Failure) {
                switch operation {
                case .add(let path, let value):
                    try meter.place(value, at: path, paying: true)
                    try result.insert(value, at: path.tokens[...])
                case .remove(let path):
                    _ = try result.remove(at: path.tokens[...])
                case .replace(let path, let value) where path.tokens.isEmpty:
                    try meter.place(value, at: path, paying: true)
                    result = value
                case .replace(let path, let value):
                    try meter.place(value, at: path, paying: true)
                    _ = try result.remove(at: path.tokens[...])
                    try result.insert(value, at: path.tokens[...])
                case .move(let from, let path):
                    guard from == path || !path.isInside(from) else {
                        throw Failure(
                            kind: .unresolvable, index: nil, field: "from", message: "A value cannot move into itself.")
                    }
                    let value = try result.remove(at: from.tokens[...])
                    try meter.place(value, at: path, paying: false)
                    try result.insert(value, at: path.tokens[...])
                case .copy(let from, let path):
                    let value = try result.value(at: from.tokens[...])
                    try meter.place(value, at: path, paying: true)
                    try result.insert(value, at: path.tokens[...])
                case .test(let path, let expected):
                    let actual = try result.value(at: path.tokens[...])
                    guard actual == expected else {
                        throw Failure(
                            kind: .testFailed, index: index, field: "value",
                            message: "The value at '\(path)' is not the one the patch tests for: the document changed.")
                    }
                }
            } catch {
                // A limit is the whole operation's fault (`$[i]`); anything else names its member.
                let limit = error.kind == .budgetExceeded || error.kind == .tooDeep
                throw Failure(
                    kind: error.kind, index: index, field: limit ? nil : error.field ?? "path", message: error.message)
            }
        }
        return result
    }

    /// Operations that turn `from` into `to`: objects member by member (sorted, so the diff is
    /// deterministic), arrays by their common prefix and suffix with the middle replaced element by
    /// element, then removed or added; a change of type replaces the whole value.
    public static func diff(from: JSONValue, to: JSONValue) -> [Operation] {
        var operations: [Operation] = []
        diff(from, to, at: JSONPointer.root, into: &operations)
        return operations
    }

    private static func diff(_ a: JSONValue, _ b: JSONValue, at path: JSONPointer, into operations: inout [Operation]) {
        if a == b { return }
        switch (a, b) {
        case (.object(let left), .object(let right)):
            for key in left.keys.sorted() where right[key] == nil {
                operations.append(.remove(path: path.appending(key)))
            }
            for key in right.keys.sorted() {
                guard let newValue = right[key] else { continue }
                if let oldValue = left[key] {
                    diff(oldValue, newValue, at: path.appending(key), into: &operations)
                } else {
                    operations.append(.add(path: path.appending(key), value: newValue))
                }
            }
        case (.array(let left), .array(let right)):
            var prefix = 0
            while prefix < left.count, prefix < right.count, left[prefix] == right[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < left.count - prefix, suffix < right.count - prefix,
                left[left.count - 1 - suffix] == right[right.count - 1 - suffix]
            { suffix += 1 }
            let oldMiddle = left.count - prefix - suffix
            let newMiddle = right.count - prefix - suffix
            let shared = min(oldMiddle, newMiddle)
            for offset in 0..<shared {
                diff(
                    left[prefix + offset], right[prefix + offset], at: path.appending(prefix + offset),
                    into: &operations)
            }
            // Removed from the end of the middle backwards, so earlier indices stay valid.
            for index in stride(from: prefix + oldMiddle - 1, through: prefix + shared, by: -1) {
                operations.append(.remove(path: path.appending(index)))
            }
            for index in (prefix + shared)..<(prefix + newMiddle) {
                operations.append(.add(path: path.appending(index), value: right[index]))
            }
        default:
            operations.append(.replace(path: path, value: b))
        }
    }
}

/// An RFC 6901 JSON Pointer: `""` is the whole document, `/a/0/b~1c` walks members and indices.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    public let tokens: [String]

    public static let root = JSONPointer(tokens: [])

    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses the string form; nil when it does not start with `/` (and is not empty) or has a
    /// `~` not followed by 0 or 1.
    public init?(_ text: String) {
        if text.isEmpty {
            tokens = []
            return
        }
        guard text.first == "/" else { return nil }
        var parsed: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var escaping = false
            for character in raw {
                if escaping {
                    switch character {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: return nil
                    }
                    escaping = false
                } else if character == "~" {
                    escaping = true
                } else {
                    token.append(character)
                }
            }
            if escaping { return nil }
            parsed.append(token)
        }
        tokens = parsed
    }

    public func appending(_ key: String) -> JSONPointer { JSONPointer(tokens: tokens + [key]) }
    public func appending(_ index: Int) -> JSONPointer { JSONPointer(tokens: tokens + [String(index)]) }

    /// Whether this pointer names a value inside `other` (a strict descendant).
    func isInside(_ other: JSONPointer) -> Bool {
        tokens.count > other.tokens.count && Array(tokens.prefix(other.tokens.count)) == other.tokens
    }

    public var description: String {
        var text = ""
        for token in tokens {
            text.append("/")
            for character in token {
                switch character {
                case "~": text.append("~0")
                case "/": text.append("~1")
                default: text.append(character)
                }
            }
        }
        return text
    }

    /// An array index token: digits without a leading zero (RFC 6901 §4), in range for `count`.
    static func index(_ token: String, count: Int, allowingEnd: Bool) throws(JSONPatch.Failure) -> Int {
        if allowingEnd && token == "-" { return count }
        guard !token.isEmpty, token.allSatisfy(\.isASCIIDigit), token == "0" || token.first != "0",
            let index = Int(token), index <= (allowingEnd ? count : count - 1)
        else {
            throw JSONPatch.Failure(
                kind: .unresolvable, index: nil, field: nil,
                message: "'\(token)' is not an index of this array of \(count).")
        }
        return index
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension JSONValue {
    fileprivate func value(at tokens: ArraySlice<String>) throws(JSONPatch.Failure) -> JSONValue {
        guard let token = tokens.first else { return self }
        switch self {
        case .object(let members):
            guard let member = members[token] else {
                throw JSONPatch.Failure(
                    kind: .unresolvable, index: nil, field: nil, message: "There is no member '\(token)'.")
            }
            return try member.value(at: tokens.dropFirst())
        case .array(let items):
            return try items[JSONPointer.index(token, count: items.count, allowingEnd: false)].value(
                at: tokens.dropFirst())
        default:
            throw JSONPatch.Failure(
                kind: .unresolvable, index: nil, field: nil, message: "A \(typeName) has no member '\(token)'.")
        }
    }

    /// RFC 6902 `add`: sets a member, inserts into an array (`-` appends), or replaces the root.
    fileprivate mutating func insert(_ value: JSONValue, at tokens: ArraySlice<String>) throws(JSONPatch.Failure) {
        guard let token = tokens.first else {
            self = value
            return
        }
        let last = tokens.count == 1
        switch self {
        case .object(var members):
            if last {
                members[token] = value
            } else {
                guard var child = members[token] else {
                    throw JSONPatch.Failure(
                        kind: .unresolvable, index: nil, field: nil, message: "There is no member '\(token)'.")
                }
                try child.insert(value, at: tokens.dropFirst())
                members[token] = child
            }
            self = .object(members)
        case .array(var items):
            let index = try JSONPointer.index(token, count: items.count, allowingEnd: last)
            if last {
                items.insert(value, at: index)
            } else {
                try items[index].insert(value, at: tokens.dropFirst())
            }
            self = .array(items)
        default:
            throw JSONPatch.Failure(
                kind: .unresolvable, index: nil, field: nil, message: "A \(typeName) has no member '\(token)'.")
        }
    }

    /// Removes and returns the value at the pointer (which must exist; the root cannot be removed).
    fileprivate mutating func remove(at tokens: ArraySlice<String>) throws(JSONPatch.Failure) -> JSONValue {
        guard let token = tokens.first else {
            throw JSONPatch.Failure(
                kind: .unresolvable, index: nil, field: nil, message: "The whole document cannot be removed.")
        }
        let last = tokens.count == 1
        switch self {
        case .object(var members):
            guard var child = members[token] else {
                throw JSONPatch.Failure(
                    kind: .unresolvable, index: nil, field: nil, message: "There is no member '\(token)'.")
            }
            let removed: JSONValue
            if last {
                removed = child
                members[token] = nil
            } else {
                removed = try child.remove(at: tokens.dropFirst())
                members[token] = child
            }
            self = .object(members)
            return removed
        case .array(var items):
            let index = try JSONPointer.index(token, count: items.count, allowingEnd: false)
            let removed: JSONValue
            if last {
                removed = items.remove(at: index)
            } else {
                removed = try items[index].remove(at: tokens.dropFirst())
            }
            self = .array(items)
            return removed
        default:
            throw JSONPatch.Failure(
                kind: .unresolvable, index: nil, field: nil, message: "A \(typeName) has no member '\(token)'.")
        }
    }
}
