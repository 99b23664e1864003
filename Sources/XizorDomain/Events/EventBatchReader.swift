import PaywallFormat

/// SDK event batches read straight from the body's bytes, without building a JSON tree: the
/// general path (`JSONParser`, then `EventService.parse` over dictionaries) spent about half the
/// CPU of an ingested event on hashing keys, allocating nodes and freeing them again.
///
/// Only the form SDKs send is read here: `{"events":[{…},…]}` of at most `EventService.maxBatch`
/// events that are all valid, whose strings are printable ASCII without escapes and whose numbers
/// are plain non-negative integers; `context` and `properties` are handed to `JSONParser` as they
/// are. Anything else — an invalid event, an escape, a duplicate key, a `null`, a fraction, bytes
/// after the batch — answers nil and the batch goes the general way, which alone reports errors.
/// So this reader decides nothing the general path would not: for every body it reads, the general
/// path reads the same events and rejects none (`EventBatchReaderTests`, with generated batches).
enum EventBatchReader {
    static func read(_ body: [UInt8]) -> [StoredEvent]? {
        let limits = JSONParser()
        guard body.count <= limits.maxBytes else { return nil }
        return body.withUnsafeBufferPointer { bytes in
            var cursor = BatchCursor(bytes: bytes, nestedDepth: limits.maxDepth - 3)
            return cursor.batch()
        }
    }
}

/// A position in the body and the grammar of the batch. Every method answers nil (or false) as
/// soon as the input leaves the simple form.
private struct BatchCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    /// The depth `JSONParser` allows a `context` or `properties` value: the event object is at
    /// depth 3 of the document (batch object, array, event), so its members start at 4.
    let nestedDepth: Int
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, nestedDepth: Int) {
        self.bytes = bytes
        self.nestedDepth = nestedDepth
    }

    mutating func batch() -> [StoredEvent]? {
        guard take(.openBrace), let key = plainString(), equals(key, "events"), take(.colon), take(.openBracket) else {
            return nil
        }
        var events: [StoredEvent] = []
        if !take(.closeBracket) {
            repeat {
                guard events.count < EventService.maxBatch, let event = event() else { return nil }
                events.append(event)
            } while take(.comma)
            guard take(.closeBracket) else { return nil }
        }
        guard take(.closeBrace) else { return nil }
        skipSpace()
        return position == bytes.count ? events : nil
    }

    /// One event object whose every field is valid, or nil.
    private mutating func event() -> StoredEvent? {
        guard take(.openBrace) else { return nil }
        var seen: UInt16 = 0
        var id: String?
        var name: String?
        var occurredAt: Int64?
        var placement: String?
        var paywallID: String?
        var version: Int?
        var subscriberID: String?
        var experimentID: String?
        var variant: String?
        var context: String?
        var properties: String?
        var environment = DataEnvironment.production
        repeat {
            guard let keyRange = plainString(), let field = EventField(key: string(keyRange)), seen & field.bit == 0,
                take(.colon)
            else { return nil }
            seen |= field.bit
            switch field {
            case .id:
                guard let v = text(max: 200) else { return nil }
                id = v
            case .name:
                guard let v = text(max: 100), EventService.knownNames.contains(v) || EventService.isCustomName(v) else {
                    return nil
                }
                name = v
            case .timestamp:
                if peek() == .quote {
                    guard let range = plainString(), let ms = EventService.parseTimestamp(string(range)), ms >= 0 else {
                        return nil
                    }
                    occurredAt = ms
                } else {
                    guard let ms = integer() else { return nil }
                    occurredAt = ms
                }
            case .placement:
                guard let v = text(max: 100) else { return nil }
                placement = v
            case .paywallId:
                guard let v = text(max: 200) else { return nil }
                paywallID = v
            case .version:
                guard let v = integer(), v >= 1 else { return nil }
                version = Int(v)
            case .subscriberId:
                guard let v = text(max: 200) else { return nil }
                subscriberID = v
            case .experimentId:
                guard let v = text(max: 200) else { return nil }
                experimentID = v
            case .variant:
                guard let v = text(max: 64) else { return nil }
                variant = v
            case .environment:
                guard let v = text(max: 20), let known = DataEnvironment(rawValue: v) else { return nil }
                environment = known
            case .context:
                guard let object = nestedObject(), object.values.allSatisfy({ ContextValue(json: $0) != nil }) else {
                    return nil
                }
                context = JSONValue.object(object).canonicalString
            case .properties:
                guard let object = nestedObject() else { return nil }
                properties = object.isEmpty ? nil : JSONValue.object(object).canonicalString
            }
        } while take(.comma)
        guard take(.closeBrace), let id, let name, let occurredAt,
            version == nil || paywallID != nil, (experimentID == nil) == (variant == nil)
        else { return nil }
        return StoredEvent(
            id: id, name: name, occurredAt: occurredAt, placement: placement, paywallID: paywallID, version: version,
            subscriberID: subscriberID, context: context, properties: properties, experimentID: experimentID,
            variant: variant, environment: environment)
    }

    /// A string of 1 to `max` characters (printable ASCII: one character per byte, no NUL).
    private mutating func text(max: Int) -> String? {
        guard let range = plainString(), !range.isEmpty, range.count <= max else { return nil }
        return string(range)
    }

    /// The bytes between the quotes of a string of printable ASCII without escapes.
    private mutating func plainString() -> Range<Int>? {
        guard take(.quote) else { return nil }
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == .quote {
                position += 1
                return start..<(position - 1)
            }
            guard byte >= 0x20, byte < 0x7F, byte != .backslash else { return nil }
            position += 1
        }
        return nil
    }

    /// A non-negative integer of at most 18 digits (so it fits in Int64), without a leading zero,
    /// a sign, a fraction or an exponent.
    private mutating func integer() -> Int64? {
        skipSpace()
        let start = position
        var value: Int64 = 0
        while position < bytes.count, bytes[position] >= .zero, bytes[position] <= .nine {
            guard position - start < 18 else { return nil }
            value = value * 10 + Int64(bytes[position] - .zero)
            position += 1
        }
        let digits = position - start
        guard digits > 0, digits == 1 || bytes[start] != .zero else { return nil }
        if position < bytes.count, bytes[position] == .dot || bytes[position] == .lowerE || bytes[position] == .upperE {
            return nil
        }
        return value
    }

    /// An object value (`context`, `properties`) parsed by `JSONParser` at the depth it has in the
    /// batch, after finding where it ends.
    private mutating func nestedObject() -> [String: JSONValue]? {
        guard peek() == .openBrace else { return nil }
        let start = position
        var depth = 0
        var inString = false
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if inString {
                if byte == .backslash { position += 1 } else if byte == .quote { inString = false }
                continue
            }
            switch byte {
            case .quote: inString = true
            case .openBrace, .openBracket: depth += 1
            case .closeBrace, .closeBracket:
                depth -= 1
                if depth == 0 {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
                    do {
                        return try JSONParser(maxDepth: nestedDepth).parse(bytes: slice).objectValue
                    } catch {
                        // Not this reader's to report: the general path parses the whole body and says where.
                        return nil
                    }
                }
            default: break
            }
        }
        return nil
    }

    private mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func peek() -> UInt8? {
        skipSpace()
        return position < bytes.count ? bytes[position] : nil
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    private func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        range.count == text.utf8CodeUnitCount
            && zip(bytes[range], UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)).allSatisfy {
                $0 == $1
            }
    }
}

/// The fields an event may have (`EventService.parse` names the same ones).
private enum EventField: UInt16 {
    case id, name, timestamp, placement, paywallId, version, subscriberId, experimentId, variant, environment, context,
        properties

    /// Its bit in the set of fields an event has named (a second one is a duplicate key).
    var bit: UInt16 { 1 << rawValue }

    init?(key: String) {
        switch key {
        case "id": self = .id
        case "name": self = .name
        case "timestamp": self = .timestamp
        case "placement": self = .placement
        case "paywallId": self = .paywallId
        case "version": self = .version
        case "subscriberId": self = .subscriberId
        case "experimentId": self = .experimentId
        case "variant": self = .variant
        case "environment": self = .environment
        case "context": self = .context
        case "properties": self = .properties
        default: return nil
        }
    }
}

extension UInt8 {
    fileprivate static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), colon = UInt8(ascii: ":"),
        comma = UInt8(ascii: ",")
    fileprivate static let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}"),
        openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
    fileprivate static let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9"), dot = UInt8(ascii: "."),
        lowerE = UInt8(ascii: "e"), upperE = UInt8(ascii: "E")
}
