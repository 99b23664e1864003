import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The direct reader of SDK batches (`EventBatchReader`) against the general path (`JSONParser`,
/// then `EventService.parse`): the reader must read the form SDKs send, and whatever it reads the
/// general path must read identically and without an error; everything else it must leave alone.
@Suite struct EventBatchReaderTests {
    /// What the general path makes of a body: its events, or nil when the body is not JSON, not a
    /// batch, too large, or any event has an issue.
    static func general(_ body: [UInt8]) -> [StoredEvent]? {
        guard let json = try? JSONParser().parse(body), let events = json["events"]?.arrayValue,
            events.count <= EventService.maxBatch
        else { return nil }
        var read: [StoredEvent] = []
        for (index, event) in events.enumerated() {
            var issues: [ValidationIssue] = []
            guard let parsed = EventService.parse(event, path: "$.events[\(index)]", issues: &issues), issues.isEmpty
            else { return nil }
            read.append(parsed)
        }
        return read
    }

    static let sdkBatch = """
        {"events": [
          {"id": "0b0c6e9e-3f1e-4c55-9a43-55d1f1c1c0aa", "name": "paywall_open", "timestamp": 1796000000000,
           "placement": "onboarding", "paywallId": "pw_1", "version": 3, "subscriberId": "user-42",
           "context": {"country": "DE", "sessions": 3, "trial": true, "ratio": 0.5}},
          {"id":"e2","name":"purchase_completed","timestamp":"2026-11-30T11:00:00.250+01:00","paywallId":"pw_1","version":3,
           "experimentId":"exp_1","variant":"b","environment":"sandbox","properties":{"price":9.99,"currency":"EUR","tags":["a",{"b":null}],"note":"caf\\u00e9"}},
          {"id":"e3","name":"my.custom:step-1","timestamp":0,"properties":{}}
        ]}
        """

    @Test func readsTheFormSDKsSendAsTheGeneralPathDoes() throws {
        let body = Array(EventBatchReaderTests.sdkBatch.utf8)
        let direct = try #require(EventBatchReader.read(body))
        let general = try #require(EventBatchReaderTests.general(body))
        #expect(direct == general)
        #expect(direct.count == 3)
        #expect(direct[0].context == #"{"country":"DE","ratio":0.5,"sessions":3,"trial":true}"#)
        #expect(
            direct[1].environment == .sandbox
                && direct[1].occurredAt == EventService.parseTimestamp("2026-11-30T10:00:00.250Z"))
        #expect(direct[2].properties == nil && direct[2].occurredAt == 0)
        #expect(EventBatchReader.read(Array(#"{"events":[]}"#.utf8)) == [])
    }

    /// Each of these leaves the simple form; the reader must answer nil and let the general path
    /// decide (which accepts some of them and rejects the rest).
    @Test(arguments: [
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1,"id":"b"}]}"#,  // duplicate key
        #"{"events":[{"id":"a\u0041","name":"paywall_open","timestamp":1}]}"#,  // escape
        #"{"events":[{"id":"café","name":"paywall_open","timestamp":1}]}"#,  // not ASCII
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1,"placement":null}]}"#,  // null
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1.0}]}"#,  // fraction
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1e3}]}"#,  // exponent
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":01}]}"#,  // leading zero
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":-1}]}"#,  // sign
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1234567890123456789}]}"#,  // 19 digits
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1,"bogus":1}]}"#,  // unknown field
        #"{"events":[{"id":"a","name":"not a name","timestamp":1}]}"#,  // invalid name
        #"{"events":[{"id":"","name":"paywall_open","timestamp":1}]}"#,  // empty id
        #"{"events":[{"name":"paywall_open","timestamp":1}]}"#,  // no id
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":"yesterday"}]}"#,  // not a date
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1,"version":1}]}"#,  // version without paywall
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1,"version":0,"paywallId":"p"}]}"#,
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1,"variant":"b"}]}"#,  // variant alone
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1,"environment":"staging"}]}"#,
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1,"context":{"a":{"b":1}}}]}"#,  // nested context
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1,"context":[]}]}"#,
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1,"properties":{"a":1,"a":2}}]}"#,
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1}],}"#,  // trailing comma
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1}]} x"#,  // trailing content
        #"{"events":[{"id":"a","name":"paywall_open","timestamp":1}],"more":1}"#,  // another member
        #"{"batch":[]}"#, #"[]"#, "", #"{"events":{}}"#, #"{"events":[1]}"#,
    ])
    func leavesEverythingElseToTheGeneralPath(_ text: String) {
        #expect(EventBatchReader.read(Array(text.utf8)) == nil, "read \(text)")
    }

    @Test func aBatchOverTheLimitIsLeftToTheGeneralPath() {
        let event = #"{"id":"a","name":"paywall_open","timestamp":1}"#
        let full = "{\"events\":[" + Array(repeating: event, count: EventService.maxBatch).joined(separator: ",") + "]}"
        let over =
            "{\"events\":[" + Array(repeating: event, count: EventService.maxBatch + 1).joined(separator: ",") + "]}"
        #expect(EventBatchReader.read(Array(full.utf8))?.count == EventService.maxBatch)
        #expect(EventBatchReader.read(Array(over.utf8)) == nil)
    }

    /// Thousands of mutations of SDK-like batches (bytes replaced, inserted, deleted, fields
    /// swapped for odd values): whenever the reader reads one, the general path reads the same.
    /// Both outcomes must occur many times, or the test would prove nothing.
    @Test func generatedBatchesNeverReadDifferently() throws {
        var random = Mix(seed: 0x5eed_e7e7)
        let fields = [
            #""placement":"p1""#, #""paywallId":"pw""#, #""version":2"#, #""subscriberId":"s""#,
            #""experimentId":"x","variant":"v""#, #""environment":"production""#, #""context":{"k":"v","n":1.5}"#,
            #""properties":{"a":[1,{"b":"c"}]}"#, #""timestamp":"2026-01-02T03:04:05Z""#, #""context":{}"#,
        ]
        let odd = [
            "null", "1.5", "-1", "\"\"", "[]", "{}", "\"\\u0041\"", "01", "true", "\"é\"", "{\"a\":{}}", "1e2",
            "\"x\\\"",
        ]
        let alphabet = Array(#"{}[]",:0123456789 \eE.-tnulfrsa"#.utf8)
        var read = 0
        var left = 0
        for _ in 0..<4_000 {
            var events: [String] = []
            for n in 0..<Int.random(in: 0...4, using: &random) {
                var members = [#""id":"e\#(n)""#, #""name":"paywall_open""#, #""timestamp":1796000000000"#]
                for field in fields where Bool.random(using: &random) && Int.random(in: 0..<3, using: &random) == 0 {
                    members.append(field)
                }
                if Int.random(in: 0..<4, using: &random) == 0, let i = members.indices.randomElement(using: &random),
                    let value = odd.randomElement(using: &random), let colon = members[i].firstIndex(of: ":")
                {
                    members[i] = String(members[i][...colon]) + value
                }
                members.shuffle(using: &random)
                events.append("{" + members.joined(separator: Bool.random(using: &random) ? "," : " ,\n ") + "}")
            }
            var bytes = Array(("{\"events\":[" + events.joined(separator: ",") + "]}").utf8)
            for _ in 0..<Int.random(in: 0...2, using: &random) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = alphabet.randomElement(using: &random) ?? 0x20
                case 1: bytes.insert(alphabet.randomElement(using: &random) ?? 0x20, at: at)
                default: bytes.remove(at: at)
                }
            }
            if let direct = EventBatchReader.read(bytes) {
                read += 1
                let general = EventBatchReaderTests.general(bytes)
                #expect(general == direct, "\(String(decoding: bytes, as: UTF8.self))")
            } else {
                left += 1
            }
        }
        #expect(read > 500 && left > 500, "read \(read), left \(left)")
    }
}

/// SplitMix64: the same sequence on every run, so a failure names a reproducible body.
private struct Mix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
