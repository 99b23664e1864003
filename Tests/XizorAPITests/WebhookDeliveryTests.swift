import Digest
import Foundation
import PaywallFormat
import Testing
@testable import XizorAPI

/// The pure parts of webhook delivery: signatures, the retry schedule, where deliveries may go.
@Suite struct WebhookDeliveryTests {
    @Test func hmacIsRFC4231() {
        // RFC 4231, test case 2.
        #expect(HMACSHA256.hexMAC(key: "Jefe", message: Array("what do ya want for nothing?".utf8))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a key longer than the block size is hashed first.
        #expect(SHA256.hex(HMACSHA256.mac(key: [UInt8](repeating: 0xaa, count: 131),
                                          message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func theSignatureIsOverTimestampDotBody() {
        let body = Array("{\"id\":\"evt_1\"}".utf8)
        let header = WebhookSignature.header(secret: "whsec_test", timestamp: 1_764_612_000, body: body)
        #expect(header == "t=1764612000,v1=" + HMACSHA256.hexMAC(key: "whsec_test", message: Array("1764612000.".utf8) + body))
        #expect(header != WebhookSignature.header(secret: "whsec_other", timestamp: 1_764_612_000, body: body))
        #expect(header != WebhookSignature.header(secret: "whsec_test", timestamp: 1_764_612_001, body: body))
    }

    @Test func retriesDoubleUpToAnHourAndGiveUpAfterTheWindow() {
        let schedule = RetrySchedule(baseMs: 10_000, retryForMs: 86_400_000)
        #expect((1...6).map { schedule.delay(afterAttempt: $0) } == [10_000, 20_000, 40_000, 80_000, 160_000, 320_000])
        #expect(schedule.delay(afterAttempt: 10) == 3_600_000 && schedule.delay(afterAttempt: 500) == 3_600_000)
        let created: Int64 = 1_000_000
        let ok = schedule.outcome(.status(204), attempts: 3, createdAt: created, now: created + 5)
        #expect(ok == DeliveryOutcome(state: .delivered, nextAttemptAt: created + 5, status: 204, error: nil))
        let retried = schedule.outcome(.status(500), attempts: 2, createdAt: created, now: created + 30_000)
        #expect(retried.state == .pending && retried.nextAttemptAt == created + 50_000 && retried.status == 500)
        let lost = schedule.outcome(.failed(code: "timeout", detail: "no answer"), attempts: 1, createdAt: created, now: created)
        #expect(lost.state == .pending && lost.status == nil && lost.error == "timeout: no answer")
        // A 3xx is not success (redirects are not followed), nor is a 1xx.
        #expect(schedule.outcome(.status(301), attempts: 1, createdAt: created, now: created).state == .pending)
        // The next attempt would fall after a day: failed.
        let late = schedule.outcome(.status(503), attempts: 30, createdAt: created, now: created + 86_400_000 - 1_000)
        #expect(late.state == .failed && late.status == 503)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("10.1.2.3", true), ("172.16.0.1", true), ("172.31.255.255", true), ("172.32.0.1", false),
        ("192.168.1.1", true), ("169.254.169.254", true), ("100.64.0.1", true), ("100.128.0.1", false), ("0.0.0.0", true),
        ("224.0.0.1", true), ("255.255.255.255", true), ("8.8.8.8", false), ("93.184.216.34", false),
        ("::1", true), ("::", true), ("fc00::1", true), ("fd12:3456::1", true), ("fe80::1", true), ("ff02::1", true),
        ("::ffff:127.0.0.1", true), ("::ffff:8.8.8.8", false), ("64:ff9b::a00:1", true), ("2606:4700::1111", false),
    ])
    func internalAddressesAreKnown(address: String, isInternal: Bool) throws {
        let bytes = try #require(WebhookTarget.literalAddress(address))
        #expect(WebhookTarget.isPrivate(bytes) == isInternal, "\(address)")
    }

    @Test func urlsAreCheckedWithTheirPath() {
        func code(_ url: String, allowPrivate: Bool = false) -> String? {
            do { _ = try WebhookTarget.validate(url, allowPrivate: allowPrivate); return nil } catch let error as ServiceError {
                #expect(error.errors.first?.path == "$.url")
                return error.errors.first?.code
            } catch { return "\(error)" }
        }
        #expect(code("https://hooks.example.com/xizor") == nil)
        #expect(code("http://hooks.example.com:8080/x?y=1") == nil)
        #expect(code("ftp://example.com/") == "invalid_url")
        #expect(code("/relative") == "invalid_url")
        #expect(code("https://user:pw@example.com/") == "invalid_url")
        #expect(code("https://" + String(repeating: "a", count: 2050) + ".com/") == "invalid_url")
        #expect(code("http://127.0.0.1:9/") == "private_webhook_target")
        #expect(code("http://[::1]:9/") == "private_webhook_target")
        #expect(code("http://169.254.169.254/latest/meta-data") == "private_webhook_target")
        #expect(code("http://127.0.0.1:9/", allowPrivate: true) == nil)
        // A name is checked when connecting, against what it resolves to.
        #expect(code("http://localhost:9/") == nil)
    }
}

/// Scopes as keys hold them.
@Suite struct ScopeSetTests {
    @Test func fullAccessIsStoredAsNullAndCoversEverything() {
        #expect(ScopeSet.all.storedText == nil && ScopeSet(storedText: nil).isFullAccess)
        let some = ScopeSet([.publish, .read])
        #expect(some.storedText == "read publish" && ScopeSet(storedText: "read publish") == some)
        #expect(ScopeSet.all.covers(some) && some.covers(ScopeSet([.read])) && !some.covers(.all) && !some.covers(ScopeSet([.keys])))
        // A name this binary does not know grants nothing.
        #expect(ScopeSet(storedText: "read telepathy").sorted == [.read])
    }

    @Test func parsingNamesTheBadEntry() throws {
        #expect(try ScopeSet.parse(nil, path: "$.scopes").isFullAccess)
        #expect(try ScopeSet.parse(["keys", "read"], path: "$.scopes").sorted == [.read, .keys])
        for (value, path, code) in [(JSONValue.array(["read", "root"]), "$.scopes[1]", "invalid_enum_value"),
                                    (.array([]), "$.scopes", "empty_scopes"), (.string("read"), "$.scopes", "type_mismatch")] {
            do { _ = try ScopeSet.parse(value, path: "$.scopes"); Issue.record("\(value) parsed") } catch let error as ServiceError {
                #expect(error.errors.first?.path == path && error.errors.first?.code == code)
            }
        }
        let missing = ScopeSet([.read]).missing(.publish)
        #expect(missing.status == 403 && missing.code == "missing_scope" && missing.members["scope"] == "publish")
    }
}
