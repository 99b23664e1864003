import PaywallFormat

/// Whatever `JSONParser` accepts must serialize (canonically and pretty) to text that parses back
/// to the same value, and canonical serialization must be a fixed point: what the server stores
/// and hashes (ETags, content hashes) may not drift from one round trip to the next.
enum JSONFuzz {
    static let parser = FuzzJSON.parser

    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzFinding) {
        guard let value = FuzzJSON.parse(input) else { return }
        let canonical = JSONSerializer.canonicalBytes(value)
        let again: JSONValue
        do { again = try parser.parse(canonical) } catch {
            throw FuzzFinding(.json, "canonical text does not parse: \(error)")
        }
        guard again == value else { throw FuzzFinding(.json, "canonical round trip changed the value") }
        guard JSONSerializer.canonicalBytes(again) == canonical else {
            throw FuzzFinding(.json, "canonical serialization is not a fixed point")
        }
        let pretty: JSONValue
        do { pretty = try parser.parse(JSONSerializer.prettyBytes(value)) } catch {
            throw FuzzFinding(.json, "pretty text does not parse: \(error)")
        }
        guard pretty == value else { throw FuzzFinding(.json, "pretty round trip changed the value") }
    }
}
