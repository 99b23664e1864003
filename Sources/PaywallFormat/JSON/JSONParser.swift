/// Why a byte sequence is not acceptable JSON. `code` is stable (documented in docs/schema.md);
/// `line` and `column` are 1-based, the column counted in bytes.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case unexpectedEnd = "unexpected_end"
        case unexpectedCharacter = "unexpected_character"
        case invalidNumber = "invalid_number"
        case numberOutOfRange = "number_out_of_range"
        case invalidEscape = "invalid_escape"
        case invalidUnicodeEscape = "invalid_unicode_escape"
        case controlCharacterInString = "control_character_in_string"
        case invalidUTF8 = "invalid_utf8"
        case duplicateKey = "duplicate_key"
        case depthLimitExceeded = "depth_limit_exceeded"
        case sizeLimitExceeded = "size_limit_exceeded"
        case trailingContent = "trailing_content"
    }

    public let code: Code
    public let message: String
    public let line: Int
    public let column: Int
    public let offset: Int

    public var description: String { "\(message) at line \(line), column \(column) (\(code.rawValue))" }
}

/// A strict RFC 8259 parser: no comments, no trailing commas, no NaN, no duplicate keys, UTF-8 only,
/// with limits on nesting depth and input size so hostile input costs bounded work.
public struct JSONParser: Sendable {
    public var maxDepth: Int
    public var maxBytes: Int

    public init(maxDepth: Int = 128, maxBytes: Int = 8 * 1024 * 1024) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
    }

    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(bytes: buffer) }
        }
        return try result.get()
    }

    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(bytes: buffer) }
        }
        return try result.get()
    }

    public func parse(bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var reader = Reader(bytes: bytes, maxDepth: maxDepth)
        if bytes.count > maxBytes {
            throw JSONParseError(
                code: .sizeLimitExceeded,
                message: "document is \(bytes.count) bytes, more than the limit of \(maxBytes)", line: 1, column: 1,
                offset: 0)
        }
        reader.skipWhitespace()
        let value = try reader.parseValue(depth: 1)
        reader.skipWhitespace()
        if reader.position < bytes.count {
            throw reader.error(.trailingContent, "unexpected content after the JSON value")
        }
        return value
    }
}

extension JSONValue {
    /// Parses `text` with the default limits.
    public init(parsing text: String) throws(JSONParseError) { self = try JSONParser().parse(text) }
    /// Parses UTF-8 `bytes` with the default limits.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) { self = try JSONParser().parse(bytes) }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func error(_ code: JSONParseError.Code, _ message: String, at offset: Int? = nil) -> JSONParseError {
        let offset = min(offset ?? position, bytes.count)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < offset {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return JSONParseError(code: code, message: message, line: line, column: offset - lineStart + 1, offset: offset)
    }

    func describeCurrent() -> String {
        guard position < bytes.count else { return "end of input" }
        let b = bytes[position]
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error(.unexpectedEnd, "expected a value but the input ended") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error(.unexpectedCharacter, "expected a value, found \(describeCurrent())")
        }
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let start = position
        let count = word.utf8CodeUnitCount
        let p = word.utf8Start
        for i in 0..<count {
            guard position < bytes.count else { throw error(.unexpectedEnd, "input ended inside '\(word)'") }
            guard bytes[position] == p[i] else {
                throw error(
                    .unexpectedCharacter, "expected '\(word)', found \(describeCurrent())",
                    at: i == 0 ? start : position)
            }
            position += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw error(.depthLimitExceeded, "nesting deeper than \(maxDepth) levels") }
        position += 1
        var object: [String: JSONValue] = [:]
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw error(.unexpectedEnd, "input ended inside an object") }
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw error(.unexpectedCharacter, "expected a string key, found \(describeCurrent())")
            }
            let keyStart = position
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count else { throw error(.unexpectedEnd, "input ended inside an object") }
            guard bytes[position] == UInt8(ascii: ":") else {
                throw error(.unexpectedCharacter, "expected ':' after a key, found \(describeCurrent())")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            if object.updateValue(value, forKey: key) != nil {
                throw error(.duplicateKey, "duplicate key \"\(key)\"", at: keyStart)
            }
            skipWhitespace()
            guard position < bytes.count else { throw error(.unexpectedEnd, "input ended inside an object") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(object)
            default: throw error(.unexpectedCharacter, "expected ',' or '}', found \(describeCurrent())")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw error(.depthLimitExceeded, "nesting deeper than \(maxDepth) levels") }
        position += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard position < bytes.count else { throw error(.unexpectedEnd, "input ended inside an array") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(array)
            default: throw error(.unexpectedCharacter, "expected ',' or ']', found \(describeCurrent())")
            }
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = position
        var integral = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw error(.unexpectedEnd, "input ended inside a number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw error(.invalidNumber, "leading zeros are not allowed in numbers")
            }
        } else if isDigit(bytes[position]) {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        } else {
            throw error(.invalidNumber, "expected a digit, found \(describeCurrent())")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            integral = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error(.invalidNumber, "expected a digit after the decimal point")
            }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            integral = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error(.invalidNumber, "expected a digit in the exponent")
            }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if integral, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text), value.isFinite else {
            throw error(.numberOutOfRange, "number \(text) is out of range", at: start)
        }
        return .double(value)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    mutating func parseString() throws(JSONParseError) -> String {
        let start = position
        position += 1
        // Fast path: no escapes.
        var scan = position
        while scan < bytes.count {
            let b = bytes[scan]
            if b == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[position..<scan])
                guard let s = decodeUTF8(slice) else {
                    throw error(.invalidUTF8, "string is not valid UTF-8", at: start)
                }
                position = scan + 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 {
                throw error(.controlCharacterInString, "control character in a string must be escaped", at: scan)
            }
            scan += 1
        }
        var buffer: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[position..<min(scan, bytes.count)]))
        position = scan
        while true {
            guard position < bytes.count else { throw error(.unexpectedEnd, "input ended inside a string") }
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                position += 1
                break
            }
            if b < 0x20 { throw error(.controlCharacterInString, "control character in a string must be escaped") }
            if b != UInt8(ascii: "\\") {
                buffer.append(b)
                position += 1
                continue
            }
            position += 1
            guard position < bytes.count else { throw error(.unexpectedEnd, "input ended inside a string") }
            let e = bytes[position]
            position += 1
            switch e {
            case UInt8(ascii: "\""): buffer.append(0x22)
            case UInt8(ascii: "\\"): buffer.append(0x5C)
            case UInt8(ascii: "/"): buffer.append(0x2F)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                let escapeStart = position - 2
                var scalar = try readHex4()
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else {
                        throw error(.invalidUnicodeEscape, "unpaired high surrogate", at: escapeStart)
                    }
                    position += 2
                    let low = try readHex4()
                    guard low >= 0xDC00 && low <= 0xDFFF else {
                        throw error(
                            .invalidUnicodeEscape, "high surrogate not followed by a low surrogate", at: escapeStart)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                    throw error(.invalidUnicodeEscape, "unpaired low surrogate", at: escapeStart)
                }
                guard let u = Unicode.Scalar(scalar) else {
                    throw error(.invalidUnicodeEscape, "invalid code point", at: escapeStart)
                }
                buffer.append(contentsOf: String(u).utf8)
            default:
                throw error(.invalidEscape, "invalid escape sequence", at: position - 2)
            }
        }
        let decoded = buffer.withUnsafeBufferPointer { decodeUTF8($0) }
        guard let s = decoded else {
            throw error(.invalidUTF8, "string is not valid UTF-8", at: start)
        }
        return s
    }

    /// ASCII (the common case) decodes without validation; anything else is validated strictly.
    func decodeUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var ascii = true
        for b in bytes where b >= 0x80 {
            ascii = false
            break
        }
        if ascii { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    mutating func readHex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < bytes.count else { throw error(.unexpectedEnd, "input ended inside a \\u escape") }
            let b = bytes[position]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error(.invalidUnicodeEscape, "expected 4 hex digits after \\u")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}
