import Foundation
import Testing

@testable import XizorKit

/// The bridge's messages, against the shared fixture the browser test also uses.
@Suite struct BridgeTests {
    static let fixture: JSONValue = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/bridge-messages.json")
        return (try? JSONValue.decode(Data(contentsOf: url))) ?? .null
    }()

    static func messages(_ direction: String) -> [JSONValue] {
        if case .array(let items)? = fixture[direction] { return items }
        return []
    }

    @Test func everyPageMessageDecodes() throws {
        let decoded = try Self.messages("page").map { try PageMessage(json: $0) }
        #expect(decoded.count == 10)
        #expect(
            decoded[0]
                == .ready(
                    paywallId: "pw_1", schemaVersion: 2, locale: "en",
                    attribution: Attribution([
                        "placement": "onboarding", "paywallId": "pw_1", "version": 3, "experimentId": "ex_1",
                        "variant": "cinematic",
                    ])))
        #expect(decoded[1] == .purchase(slot: "yearly", storeProductId: "com.example.yearly"))
        #expect(decoded[2] == .restore && decoded[3] == .close)
        #expect(decoded[4] == .openURL("https://example.com/terms"))
        #expect(decoded[5] == .custom(name: "show_faq", payload: ["section": 2]))
        #expect(decoded[6] == .timerStart(paywallId: "pw_1", nodeId: "countdown", durationSeconds: 900))
        guard case .event(let name, _, let attribution) = decoded[7] else {
            Issue.record("not an event")
            return
        }
        #expect(name == "paywall_open" && attribution.variant == "cinematic" && attribution.version == 3)
        #expect(!decoded.contains { if case .unknown = $0 { return true } else { return false } })
    }

    @Test func messagesArriveAsObjectsStringsOrBytes() throws {
        let object: [String: Any] = ["type": "purchase", "slot": "monthly", "storeProductId": "m"]
        #expect(try PageMessage(body: object) == .purchase(slot: "monthly", storeProductId: "m"))
        #expect(try PageMessage(body: #"{"type":"close"}"#) == .close)
        #expect(try PageMessage(body: Data(#"{"type":"restore"}"#.utf8)) == .restore)
        #expect(try PageMessage(json: ["type": "hologram"]) == .unknown(type: "hologram"))
        #expect(throws: BridgeError.missing("slot", type: "purchase")) { try PageMessage(json: ["type": "purchase"]) }
        #expect(throws: BridgeError.notAnObject) { try PageMessage(json: ["type"]) }
    }

    @Test func everyHostMessageEncodesToTheFixture() throws {
        let encoded: [HostMessage] = [
            .products(
                [
                    "yearly": ProductInfo(
                        title: "Yearly", price: "49,99 €", period: "year", pricePerWeek: "0,96 €",
                        pricePerMonth: "4,17 €", introPrice: "0,00 €", introPeriod: "1 week", trialDays: 7,
                        currency: "EUR", introEligible: true)
                ],
                timerStarts: ["countdown": 1_796_000_000_000], selected: "yearly"),
            .purchaseState(.pending, slot: "yearly"),
            .purchaseState(.completed),
            .timerStart(nodeId: "countdown", startedAt: 1_796_000_000_000),
            .dismiss,
        ]
        #expect(encoded.map(\.json) == Self.messages("host"))
        let script = try HostMessage.purchaseState(.failed, slot: "a\u{2028}b").javaScript()
        #expect(
            script
                == #"window.xizor && window.xizor.receive({"slot":"a\u2028b","state":"failed","type":"purchase_state"});"#
        )
    }

    @Test func pageEventsBecomeQueuedEventsWithTheirAttribution() throws {
        let shown = Paywall(
            placement: "onboarding", paywallId: "pw_1", version: 3, schemaVersion: 2, locale: "en",
            content: .page("<html>"), experiment: Experiment(id: "ex_1", variant: "cinematic", holdout: false),
            source: .network, etag: nil)
        let messages = try Self.messages("page").map { try PageMessage(json: $0) }
        let open = try #require(XizorEvent(pageMessage: messages[7], subscriberId: "s1"))
        #expect(
            open.name == "paywall_open" && open.paywallId == "pw_1" && open.version == 3
                && open.placement == "onboarding")
        #expect(
            open.experimentId == "ex_1" && open.variant == "cinematic" && open.subscriberId == "s1"
                && open.properties == nil)
        // A page message without attribution takes the presentation's.
        let started = try #require(XizorEvent(pageMessage: messages[8], paywall: shown))
        #expect(
            started.paywallId == "pw_1" && started.variant == "cinematic" && started.properties?["slot"] == "yearly")
        #expect(XizorEvent(pageMessage: .close) == nil)
    }
}
