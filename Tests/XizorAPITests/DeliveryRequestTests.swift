import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// `X-Xizor-Schema-Version`: which document form an SDK gets. A wrong parse serves an SDK a schema it
/// cannot read (or refuses a valid client), so every shape of the value is pinned here.
@Suite struct SchemaVersionHeaderTests {
    @Test func absentMeansTheFirstVersion() throws {
        #expect(try DeliveryRequest.schemaVersion(header: nil) == 1)
    }

    @Test(arguments: [("1", 1), ("2", 2), ("01", 1), ("0002", 2)])
    func digitsAreTheVersion(raw: String, expected: Int) throws {
        #expect(try DeliveryRequest.schemaVersion(header: raw) == min(expected, SchemaVersions.latest))
    }

    @Test(arguments: ["3", "99", "18446744073709551616", String(repeating: "9", count: 400)])
    func newerThanTheServerGetsTheNewest(raw: String) throws {
        #expect(try DeliveryRequest.schemaVersion(header: raw) == SchemaVersions.latest)
    }

    @Test(arguments: ["", "0", "00", "-1", "+2", "1.0", "2 ", " 2", "1,2", "v2", "２", "0x2", "1e1"])
    func anythingElseIsABadRequest(raw: String) {
        #expect {
            _ = try DeliveryRequest.schemaVersion(header: raw)
        } throws: { error in
            guard let error = error as? ServiceError else { return false }
            return error.code == "invalid_schema_version" && error.kind == .badRequest
        }
    }
}
