import Digest
import Foundation
import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The pure parts of webhook delivery: signatures, the retry schedule, where deliveries may go.
@Suite struct WebhookDeliveryTests {
    @Test func hmacIsRFC4231() {
        // RFC 4231, test case 2.
        #expect(
            HMACSHA256.hexMAC(key: "Jefe", message: Array("what do ya want for nothing?".utf8))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a key longer than the block size is hashed first.
        #expect(
            SHA256.hex(
                HMACSHA256.mac(
                    key: [UInt8](repeating: 0xaa, count: 131),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func theSignatureIsOverTimestampDotBody() {
        let body = Array("{\"id\":\"evt_1\"}".utf8)
        let header = WebhookSignature.header(secret: "whsec_test", timestamp: 1_764_612_000, body: body)
        #expect(
            header == "t=1764612000,v1="
                + HMACSHA256.hexMAC(key: "whsec_test", message: Array("1764612000.".utf8) + body))
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
        let lost = schedule.outcome(
            .failed(code: "timeout", detail: "no answer"), attempts: 1, createdAt: created, now: created)
        #expect(lost.state == .pending && lost.status == nil && lost.error == "timeout: no answer")
        // A 3xx is not success (redirects are not followed), nor is a 1xx.
        #expect(schedule.outcome(.status(301), attempts: 1, createdAt: created, now: created).state == .pending)
        // The next attempt would fall after a day: failed.
        let late = schedule.outcome(.status(503), attempts: 30, createdAt: created, now: created + 86_400_000 - 1_000)
        #expect(late.state == .failed && late.status == 503)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("10.1.2.3", true), ("172.16.0.1", true), ("172.31.255.255", true), ("172.32.0.1", false),
        ("192.168.1.1", true), ("169.254.169.254", true), ("100.64.0.1", true), ("100.128.0.1", false),
        ("0.0.0.0", true),
        ("224.0.0.1", true), ("255.255.255.255", true), ("8.8.8.8", false), ("93.184.216.34", false),
        ("::1", true), ("::", true), ("fc00::1", true), ("fd12:3456::1", true), ("fe80::1", true), ("ff02::1", true),
        ("::ffff:127.0.0.1", true), ("::ffff:8.8.8.8", false), ("64:ff9b::a00:1", true), ("2606:4700::1111", false),
        ("2002:7f00:1::", true), ("2002:5db8:d822::", false), ("2001:0:4136:e378::1", true),
    ])
    func internalAddressesAreKnown(address: String, isInternal: Bool) throws {
        let bytes = try #require(WebhookTarget.literalAddress(address))
        #expect(WebhookTarget.isPrivate(bytes) == isInternal, "\(address)")
    }

    @Test func urlsAreCheckedWithTheirPath() {
        func code(_ url: String, allowPrivate: Bool = false) -> String? {
            do {
                _ = try WebhookTarget.validate(url, allowPrivate: allowPrivate)
                return nil
            } catch let error as ServiceError {
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
        // A name is checked when connecting, against what it resolves to; `localhost` and names
        // under it are loopback whatever a resolver says (RFC 6761), so they are refused at once.
        #expect(code("http://hooks.internal.example:9/") == nil)
        #expect(code("http://localhost:9/") == "private_webhook_target")
        #expect(code("http://foo.LOCALHOST./x") == "private_webhook_target")
        #expect(code("http://localhost:9/", allowPrivate: true) == nil)
        // An address that does not parse is not left to a resolver as a name.
        for bad in [
            "http://256.1.1.1/", "http://1.2.3.4.5/", "http://0x100000000/", "http://08.1.2.3/", "http://[::1%25lo]/",
            "http://[127.0.0.1]/", "http://a..b/", "http://exa%6dple.com/",
        ] {
            #expect(code(bad) == "invalid_url", "\(bad)")
        }
    }

    /// Every IPv4 spelling `inet_aton` accepts (so every resolver libcurl may hand it to), IPv6
    /// forms with IPv4 inside, and names always loopback are internal when written, and the URL is
    /// stored with its host spelled one way.
    @Test(arguments: [
        ("http://127.1:8080/a?b=1#c", "http://127.0.0.1:8080/a?b=1#c"), ("http://2130706433/", "http://127.0.0.1/"),
        ("http://0x7f000001/", "http://127.0.0.1/"), ("http://0177.0.0.1/", "http://127.0.0.1/"),
        ("http://0x7F.1/", "http://127.0.0.1/"),
        ("http://127.0.0.1./", "http://127.0.0.1/"), ("http://0/", "http://0.0.0.0/"),
        ("http://10.0x10203/", "http://10.1.2.3/"),
        ("http://0xa9.254.0251.0376/latest", "http://169.254.169.254/latest"),
        ("http://3232235777/", "http://192.168.1.1/"),
        ("http://[::FFFF:127.0.0.1]:9/", "http://[::ffff:127.0.0.1]:9/"),
        ("http://[0:0:0:0:0:ffff:7f00:1]/", "http://[::ffff:127.0.0.1]/"),
        ("http://[::1]/", "http://[::1]/"), ("http://[0000::0001]/", "http://[::1]/"),
        ("http://[2002:7f00:1::]/", "http://[2002:7f00:1::]/"),
        ("http://[fe80::1]/", "http://[fe80::1]/"), ("http://[::ffff:a9fe:a9fe]/", "http://[::ffff:169.254.169.254]/"),
        ("http://LocalHost/", "http://localhost/"), ("http://localhost./", "http://localhost/"),
        ("HTTP://api.Foo.localhost:1/x", "http://api.foo.localhost:1/x"),
    ])
    func internalSpellingsAreRefusedAndStoredCanonical(url: String, canonical: String) throws {
        do {
            _ = try WebhookTarget.validate(url, allowPrivate: false)
            Issue.record("\(url) accepted")
        } catch let error as ServiceError {
            #expect(
                error.errors.first?.path == "$.url" && error.errors.first?.code == "private_webhook_target", "\(url)")
        }
        #expect(try WebhookTarget.validate(url, allowPrivate: true) == canonical)
    }

    @Test func publicAddressesAreStoredCanonicalToo() throws {
        #expect(
            try WebhookTarget.validate("https://0x5db8d822/hook", allowPrivate: false) == "https://93.184.216.34/hook")
        #expect(
            try WebhookTarget.validate("https://1572395042:8443/", allowPrivate: false) == "https://93.184.216.34:8443/"
        )
        #expect(
            try WebhookTarget.validate("https://[2606:4700:0:0:0:0:0:1111]/h", allowPrivate: false)
                == "https://[2606:4700::1111]/h")
        #expect(
            try WebhookTarget.validate(" https://Hooks.Example.COM./x/Y?Q=1 ", allowPrivate: false)
                == "https://hooks.example.com/x/Y?Q=1")
    }

    /// The endpoint health machine (docs/integrations.md, "Failing endpoints").
    @Test func anEndpointFailingForTheWindowIsDisabledAndOnlyAPersonEnablesIt() throws {
        let window: Int64 = 1_000
        let healthy = WebhookEndpointHealth.healthy
        #expect(healthy.afterAttempt(delivered: true, enabled: true, now: 5, disableAfterMs: window) == .healthy)
        let failing = healthy.afterAttempt(delivered: false, enabled: true, now: 100, disableAfterMs: window)
        #expect(failing == .failing(since: 100))
        #expect(
            failing.afterAttempt(delivered: false, enabled: true, now: 1_099, disableAfterMs: window)
                == .failing(since: 100))
        #expect(failing.afterAttempt(delivered: true, enabled: true, now: 1_099, disableAfterMs: window) == .healthy)
        let disabled = failing.afterAttempt(delivered: false, enabled: true, now: 1_100, disableAfterMs: window)
        #expect(disabled == .disabledAfterFailing(since: 100))
        // One a person disabled meanwhile stays theirs; one the server disabled stays so until enabled by hand.
        #expect(
            failing.afterAttempt(delivered: false, enabled: false, now: 9_000, disableAfterMs: window)
                == .failing(since: 100))
        #expect(disabled.afterAttempt(delivered: true, enabled: false, now: 9_000, disableAfterMs: window) == disabled)
        #expect(disabled.enabledByHand == .healthy)
        #expect(disabled.failingSince == 100 && disabled.disabledReason == "failing" && failing.disabledReason == nil)
        #expect(try WebhookEndpointHealth.stored(failingSince: 100, disabledReason: "failing") == disabled)
        #expect(throws: StoreInconsistency.self) {
            try WebhookEndpointHealth.stored(failingSince: nil, disabledReason: "failing")
        }
    }
}

/// Scopes as keys hold them.
@Suite struct ScopeSetTests {
    @Test func fullAccessIsStoredAsNullAndCoversEverything() {
        #expect(ScopeSet.all.storedText == nil && ScopeSet(storedText: nil).isFullAccess)
        let some = ScopeSet([.publish, .read])
        #expect(some.storedText == "read publish" && ScopeSet(storedText: "read publish") == some)
        #expect(
            ScopeSet.all.covers(some) && some.covers(ScopeSet([.read])) && !some.covers(.all)
                && !some.covers(ScopeSet([.keys])))
        // A name this binary does not know grants nothing.
        #expect(ScopeSet(storedText: "read telepathy").sorted == [.read])
    }

    @Test func parsingNamesTheBadEntry() throws {
        #expect(try ScopeSet.parse(nil, path: "$.scopes").isFullAccess)
        #expect(try ScopeSet.parse(["keys", "read"], path: "$.scopes").sorted == [.read, .keys])
        for (value, path, code) in [
            (JSONValue.array(["read", "root"]), "$.scopes[1]", "invalid_enum_value"),
            (.array([]), "$.scopes", "empty_scopes"), (.string("read"), "$.scopes", "type_mismatch"),
        ] {
            do {
                _ = try ScopeSet.parse(value, path: "$.scopes")
                Issue.record("\(value) parsed")
            } catch let error as ServiceError {
                #expect(error.errors.first?.path == path && error.errors.first?.code == code)
            }
        }
        let missing = ScopeSet([.read]).missing(.publish)
        #expect(missing.status == 403 && missing.code == "missing_scope" && missing.members["scope"] == "publish")
    }
}
