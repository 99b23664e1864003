import Digest
import PaywallFormat
import Testing

@testable import HTTP
@testable import XizorAPI
@testable import XizorDomain

/// Edge delivery (docs/scaling.md): what a resolution reads decides whether a shared cache may keep
/// its answer and what the answer varies on; experiments publish their allocation to clients that
/// bucket themselves; answers are signed with Ed25519 keys that rotate; changes purge what they changed.
@Suite struct EdgeDeliveryTests {
    // MARK: Ed25519

    /// RFC 8032 §7.1, test 1: the empty message.
    @Test func ed25519SignsAsRFC8032() throws {
        let seed = hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
        let key = try Ed25519PrivateKey(seed: seed)
        #expect(key.publicKey == hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        let signature = try key.sign([])
        #expect(
            signature
                == hex(
                    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
                ))
        #expect(Ed25519.isValid(signature: signature, of: [], publicKey: key.publicKey))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!Ed25519.isValid(signature: flipped, of: [], publicKey: key.publicKey))
        #expect(!Ed25519.isValid(signature: signature, of: [0], publicKey: key.publicKey))
        #expect(throws: Ed25519PrivateKey.Failure.invalidKey) { try Ed25519PrivateKey(seed: [1, 2, 3]) }
    }

    /// `signing.keyFile`: a key as `openssl genpkey -algorithm ed25519` writes it (its public key
    /// read back with `openssl pkey -pubout`); any other PEM is refused.
    @Test func aPEMKeyFileReads() throws {
        let pem = """
            -----BEGIN PRIVATE KEY-----
            MC4CAQAwBQYDK2VwBCIEIPcBz9PqrJ8NNxAWqYLCCEbkloVyHWs+C1c5PXCFKbnU
            -----END PRIVATE KEY-----

            """
        let key = try Ed25519PrivateKey(pem: Array(pem.utf8))
        #expect(Base64.encode(key.publicKey) == "bAmZgxiTCJtG8a5A8hIaoZT6iHQRRTQNL9zSv2PH0vA=")
        #expect(throws: Ed25519PrivateKey.Failure.invalidKey) {
            try Ed25519PrivateKey(pem: Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8))
        }
    }

    // MARK: Signing keys

    @Test(arguments: Driver.allCases)
    func answersAreSignedAndKeysRotate(driver: Driver) throws {
        let test = try TestServices("signing", driver: driver)
        defer { test.remove() }
        let signing = test.services.signing
        let first = try publishedKeys(signing)
        #expect(first.map(\.status) == ["current"], "a fresh database makes one key")
        let header = try signing.signature(
            credential: "pk_abc", placement: "home", status: 200, body: Array("{}".utf8), nonce: "n1")
        try verify(header, keys: first, credential: "pk_abc", placement: "home", body: Array("{}".utf8), nonce: "n1")
        // The same signature does not hold for another key, placement, body or nonce.
        #expect(throws: (any Error).self) {
            try verify(
                header, keys: first, credential: "pk_other", placement: "home", body: Array("{}".utf8), nonce: "n1")
        }
        #expect(throws: (any Error).self) {
            try verify(
                header, keys: first, credential: "pk_abc", placement: "home", body: Array("{ }".utf8), nonce: "n1")
        }
        #expect(throws: (any Error).self) {
            try verify(header, keys: first, credential: "pk_abc", placement: "home", body: Array("{}".utf8), nonce: nil)
        }

        // Rotation: a next key appears (created, as none was published), becomes current; the old
        // one stays published as previous; the process signs with the new one once the feed is applied.
        _ = try AnswerSigning.rotate(store: test.services.store, clock: test.services.clock)
        try test.services.changes.catchUp()
        let second = try publishedKeys(signing)
        #expect(second.map(\.status).sorted() == ["current", "next", "previous"])
        #expect(second.first { $0.status == "previous" }?.kid == first[0].kid)
        let next = try #require(second.first { $0.status == "next" })
        let rotated = try signing.signature(
            credential: "pk_abc", placement: "home", status: 204, body: [], nonce: nil)
        #expect(!rotated.hasPrefix("kid=\(first[0].kid);"))
        try verify(rotated, keys: second, credential: "pk_abc", placement: "home", status: 204, body: [], nonce: nil)
        // The next rotation promotes the key that was published as next.
        _ = try AnswerSigning.rotate(store: test.services.store, clock: test.services.clock)
        try test.services.changes.catchUp()
        let third = try publishedKeys(signing)
        #expect(third.first { $0.status == "current" }?.kid == next.kid)
        #expect(!third.contains { $0.kid == first[0].kid }, "two rotations retire a key")
    }

    struct PublishedKey {
        let kid: String
        let publicKey: [UInt8]
        let status: String
    }

    func publishedKeys(_ signing: AnswerSigning) throws -> [PublishedKey] {
        try (signing.published["keys"]?.arrayValue ?? []).map { key in
            PublishedKey(
                kid: try #require(key["kid"]?.stringValue),
                publicKey: try #require(key["publicKey"]?.stringValue.flatMap(Self.decodeBase64)),
                status: try #require(key["status"]?.stringValue))
        }
    }

    struct BadSignature: Error {}

    /// Checks `header` as a client would: the kid names a published key, and the signature holds
    /// over the documented message.
    func verify(
        _ header: String, keys: [PublishedKey], credential: String, placement: String, status: Int = 200,
        body: [UInt8], nonce: String?
    ) throws {
        var fields: [String: String] = [:]
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let kid = fields["kid"], let time = fields["t"].flatMap({ Int64($0) }),
            let signature = fields["sig"].flatMap(Base64URL.decode),
            let key = keys.first(where: { $0.kid == kid })
        else { throw BadSignature() }
        let message = AnswerSigning.message(
            credential: credential, placement: placement, status: status, bodySHA256: SHA256.hexDigest(body),
            time: time, nonce: nonce)
        let text = String(decoding: message, as: UTF8.self)
        #expect(text.hasPrefix("xizor-sdk-signature-v1\n\(credential)\n\(placement)\n\(status)\n"))
        guard Ed25519.isValid(signature: signature, of: message, publicKey: key.publicKey) else { throw BadSignature() }
    }

    /// A 304 repeats the signature of the representation it confirms (the client checks it against
    /// the body it kept); other fields of the 200 stay out of it.
    @Test func aNotModifiedRepeatsTheSignature() {
        let representation = Representation(
            body: Array("{}".utf8),
            headers: ["Content-Type": "application/json", "X-Xizor-Signature": "kid=a;t=1;sig=b", "X-Xizor-App": "app"])
        var head: [UInt8] = []
        let assembled = ResponseAssembly(
            representation.response,
            for: HTTPRequest(
                method: .GET, target: "/", path: "/",
                headers: HTTPRequestHeaders([("Accept-Encoding", "identity"), ("If-None-Match", representation.etag)])),
            closeAfter: false, settings: .init(gzipMinBytes: 860, gzipLevel: 6),
            dateLine: UnsafeRawBufferPointer(start: nil, count: 0), into: &head)
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n").map(String.init)
        #expect(assembled.status.code == 304)
        #expect(lines.contains("X-Xizor-Signature: kid=a;t=1;sig=b"))
        #expect(!lines.contains { $0.hasPrefix("X-Xizor-App") || $0.hasPrefix("Content-Type") })
    }

    /// A nonce costs one signature, never a render: the page is built once and kept, and each
    /// request's answer is that page signed again over its own nonce (its 304 too).
    @Test func aNonceIsSignedOverTheKeptAnswer() throws {
        let test = try TestServices("nonce")
        defer { test.remove() }
        let s = test.services
        let created = try s.keys.createApp(name: "A")
        let pw = try s.paywalls.create(appID: created.appID, from: .template("clean", name: nil)).id
        _ = try s.paywalls.publish(appID: created.appID, id: pw, idempotencyKey: nil)
        _ = try s.placements.assign(appID: created.appID, key: "home", paywallID: pw)
        let signer = try #require(s.keys.verify(Substring(created.publicKey)))
        let renders = Counter()
        let delivery = PaywallDelivery(serving: s.serving, signing: s.signing) { _ in
            _ = renders.next()
            return Array("<html>page</html>".utf8)
        }
        let keys = try publishedKeys(s.signing)
        for nonce in ["n-1", "n-2", "n-3"] {
            let request = HTTPRequest(
                method: .GET, target: "/", path: "/",
                headers: HTTPRequestHeaders([("Accept", "text/html"), ("X-Xizor-Nonce", nonce)]))
            let asked = try DeliveryRequest(request, placement: "home")
            guard
                case .paywall(let page) = try delivery.deliver(
                    appID: created.appID, asked, from: request, surface: .edge, signer: signer,
                    credential: { _ in created.publicKey })
            else {
                Issue.record("expected a page")
                return
            }
            #expect(page.headers["Cache-Control"] == "private, no-cache")
            let header = try #require(page.headers["X-Xizor-Signature"])
            try verify(
                header, keys: keys, credential: created.publicKey, placement: "home", body: page.body, nonce: nonce)
            var head: [UInt8] = []
            let assembled = ResponseAssembly(
                page.response,
                for: HTTPRequest(
                    method: .GET, target: "/", path: "/",
                    headers: HTTPRequestHeaders([("Accept-Encoding", "identity"), ("If-None-Match", page.etag)])),
                closeAfter: false, settings: .init(gzipMinBytes: 860, gzipLevel: 6),
                dateLine: UnsafeRawBufferPointer(start: nil, count: 0), into: &head)
            #expect(assembled.status.code == 304)
            #expect(String(decoding: head, as: UTF8.self).contains("X-Xizor-Signature: \(header)\r\n"))
        }
        #expect(renders.next() == 1, "rendered once, then kept")
    }

    // MARK: What a resolution reads

    struct World {
        let services: XizorServices
        let app: String
        let general: String
        let offer: String
    }

    func world(_ test: TestServices) throws -> World {
        let s = test.services
        let app = try s.keys.createApp(name: "A").appID
        func paywall() throws -> String {
            let id = try s.paywalls.create(appID: app, from: .template("clean", name: nil)).id
            _ = try s.paywalls.publish(appID: app, id: id, idempotencyKey: nil)
            return id
        }
        let general = try paywall()
        let offer = try paywall()
        _ = try s.placements.assign(appID: app, key: "home", paywallID: general)
        return World(services: s, app: app, general: general, offer: offer)
    }

    func consulted(
        _ w: World, rules: [JSONValue], subscriber: String? = "s1", device: [RequestAttributes.Name: String] = [:]
    ) throws -> (Resolution, RequestFacts.Consulted) {
        _ = try w.services.placements.setRules(appID: w.app, key: "home", rules: .array(rules))
        var facts = RequestFacts(context: [:], subscriberID: subscriber)
        let resolution = try w.services.serving.resolve(
            appID: w.app, placement: "home", facts: &facts, experiments: .clientBuckets(chosen: nil),
            device: { RequestAttributes(values: device) })
        return (resolution, facts.consulted)
    }

    @Test func whatARuleReadsIsWhatTheAnswerDependsOn() throws {
        let test = try TestServices("consulted")
        defer { test.remove() }
        let w = try world(test)
        let offer = JSONValue.string(w.offer)
        // No rules: nothing read.
        var (resolution, read) = try consulted(w, rules: [])
        #expect(read == RequestFacts.Consulted() && resolution.version?.paywallID == w.general)
        // A platform rule reads the platform only, matched or not.
        (_, read) = try consulted(
            w, rules: [["when": ["key": "device.platform", "op": "eq", "value": "ios"], "paywallId": offer]],
            device: [.platform: "android"])
        #expect(!read.subscriber && read.read(.platform) && !read.read(.appVersion))
        // Rules after the one that matched are not read.
        (resolution, read) = try consulted(
            w,
            rules: [
                ["when": ["key": "device.platform", "op": "eq", "value": "ios"], "paywallId": offer],
                ["when": ["key": "subscriber.plan", "op": "eq", "value": "pro"], "paywallId": offer],
            ], device: [.platform: "ios"])
        #expect(!read.subscriber && resolution.matchedRule == 0)
        // …but reached, a subscriber attribute decides for the subscriber, present or not.
        for subscriber in ["s1", nil] {
            (_, read) = try consulted(
                w,
                rules: [
                    ["when": ["key": "device.platform", "op": "eq", "value": "ios"], "paywallId": offer],
                    ["when": ["key": "subscriber.plan", "op": "eq", "value": "pro"], "paywallId": offer],
                ], subscriber: subscriber, device: [.platform: "android"])
            #expect(read.subscriber && read.read(.platform))
        }
        // A rollout, and a frequency cap on a rule that matched, decide for the subscriber.
        (_, read) = try consulted(w, rules: [["when": ["rollout": ["percent": 50, "seed": "x"]], "paywallId": offer]])
        #expect(read.subscriber)
        (_, read) = try consulted(
            w,
            rules: [
                [
                    "when": ["key": "promo", "op": "exists"], "paywallId": offer,
                    "frequencyCap": ["count": 2, "per": "day"],
                ]
            ])
        #expect(!read.subscriber, "a cap on a rule that did not match reads nothing")
        (_, read) = try consulted(
            w,
            rules: [
                [
                    "when": ["not": ["key": "promo", "op": "exists"]], "paywallId": offer,
                    "frequencyCap": ["count": 2, "per": "day"],
                ]
            ], subscriber: nil)
        #expect(read.subscriber, "a cap let a request without a subscriber through: that is the subscriber's")
    }

    @Test func aScheduleBoundaryWithinTheSharedLifetimeMakesTheAnswerPrivate() throws {
        let clock = TestClock(1_800_000_000_000)
        let test = try TestServices("schedule", clock: clock.clock)
        defer { test.remove() }
        let w = try world(test)
        let starts = 1_800_000_000_000 + 30_000
        let (resolution, read) = try consulted(
            w,
            rules: [
                [
                    "when": ["key": "promo", "op": "exists"], "paywallId": .string(w.offer),
                    "activeFrom": .number(starts),
                ]
            ])
        #expect(resolution.nextScheduleChange == Int64(starts))
        var policy = EdgeCaching()
        policy.sharedMaxAgeSeconds = 60
        let near = EdgeCaching.Answer(
            surface: .edge, consulted: read, nonce: nil, nextScheduleChange: resolution.nextScheduleChange,
            now: clock.clock.now(), policy: policy)
        #expect(!near.shared && near.cacheControl == "private, no-cache")
        policy.sharedMaxAgeSeconds = 10
        let far = EdgeCaching.Answer(
            surface: .edge, consulted: read, nonce: nil, nextScheduleChange: resolution.nextScheduleChange,
            now: clock.clock.now(), policy: policy)
        #expect(far.shared && far.cacheControl.hasPrefix("public, max-age=0, s-maxage=10,"))
        let nonce = EdgeCaching.Answer(
            surface: .edge, consulted: read, nonce: "n", nextScheduleChange: nil, now: 0, policy: policy)
        #expect(!nonce.shared)
        let authenticated = EdgeCaching.Answer(
            surface: .authenticated, consulted: read, nonce: nil, nextScheduleChange: nil, now: 0, policy: policy)
        #expect(!authenticated.shared && authenticated.cacheControl == "no-cache")
        #expect(authenticated.bits != near.bits, "another Cache-Control, another representation")
    }

    @Test func varyNamesOnlyWhatDecided() {
        var read = RequestFacts.Consulted()
        var answer = EdgeCaching.Answer(
            surface: .edge, consulted: read, nonce: nil, nextScheduleChange: nil, now: 0, policy: EdgeCaching())
        #expect(answer.vary(countryHeader: "CF-IPCountry") == "Accept, X-Xizor-Schema-Version")
        answer.negotiated(locale: true, colorScheme: false, platform: true)
        #expect(answer.vary(countryHeader: nil) == "Accept, X-Xizor-Schema-Version, Accept-Language, X-Xizor-Platform")
        read.note(.appVersion)
        read.note(.country)
        let countryRule = EdgeCaching.Answer(
            surface: .edge, consulted: read, nonce: nil, nextScheduleChange: nil, now: 0, policy: EdgeCaching())
        #expect(
            countryRule.vary(countryHeader: "CF-IPCountry")
                == "Accept, X-Xizor-Schema-Version, X-Xizor-App-Version, CF-IPCountry")
        #expect(countryRule.bits != answer.bits, "different headers, different representations")
        // The authenticated form's Vary is derived the same way (a client's own cache honours it).
        let authenticated = EdgeCaching.Answer(
            surface: .authenticated, consulted: read, nonce: nil, nextScheduleChange: nil, now: 0, policy: EdgeCaching()
        )
        let plainAuthenticated = EdgeCaching.Answer(
            surface: .authenticated, consulted: RequestFacts.Consulted(), nonce: nil, nextScheduleChange: nil, now: 0,
            policy: EdgeCaching())
        #expect(authenticated.vary(countryHeader: "CF-IPCountry") == countryRule.vary(countryHeader: "CF-IPCountry"))
        #expect(plainAuthenticated.vary(countryHeader: nil) == "Accept, X-Xizor-Schema-Version")
        #expect(authenticated.bits != plainAuthenticated.bits)
        read.subscriber = true
        let personal = EdgeCaching.Answer(
            surface: .edge, consulted: read, nonce: nil, nextScheduleChange: nil, now: 0, policy: EdgeCaching())
        #expect(!personal.shared && !personal.vary(countryHeader: nil).contains("Subscriber"))
    }

    // MARK: Experiments at the edge

    @Test(arguments: Driver.allCases)
    func clientsThatBucketThemselvesLandWhereTheServerWouldPutThem(driver: Driver) throws {
        let test = try TestServices("edge-experiment", driver: driver)
        defer { test.remove() }
        let w = try world(test)
        let s = w.services
        let experiment = try s.experiments.create(
            appID: w.app,
            body: [
                "name": "E", "holdoutWeight": 10,
                "variants": [
                    ["paywallId": .string(w.general), "weight": 45],
                    ["paywallId": .string(w.offer), "weight": 45, "name": "b"],
                ],
            ]
        ).id
        _ = try s.placements.assign(appID: w.app, key: "home", paywallID: nil, experimentID: experiment)
        _ = try s.experiments.start(appID: w.app, id: experiment)

        var facts = RequestFacts(context: [:], subscriberID: "s1")
        let published = try s.serving.resolve(
            appID: w.app, placement: "home", facts: &facts, experiments: .clientBuckets(chosen: nil))
        let allocation = try #require(published.allocation)
        #expect(published.served == nil && !facts.consulted.subscriber, "the allocation is every client's")
        let ranges = allocation.ranges
        #expect(ranges.first?.from == 0 && ranges.last?.to == Allocation.bucketCount)
        for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.to == b.from && a.variant != b.variant) }

        for i in 0..<500 {
            let subscriber = "subscriber-\(i)"
            let bucket = Allocation.bucket(experimentID: experiment, subscriberID: subscriber)
            let mine = try #require(ranges.first { $0.from <= bucket && bucket < $0.to })
            var server = RequestFacts(context: [:], subscriberID: subscriber)
            let assigned = try s.serving.resolve(appID: w.app, placement: "home", facts: &server)
            #expect(server.consulted.subscriber)
            #expect(assigned.experiment?.variant == mine.variant, "subscriber \(subscriber), bucket \(bucket)")
            guard let variant = mine.variant else { continue }
            var client = RequestFacts(context: [:], subscriberID: subscriber)
            let chosen = try s.serving.resolve(
                appID: w.app, placement: "home", facts: &client,
                experiments: .clientBuckets(chosen: (experiment, variant)))
            #expect(chosen.version?.paywallID == assigned.version?.paywallID)
            #expect(chosen.experiment?.reason == .client && !client.consulted.subscriber)
        }
        var facts2 = RequestFacts(context: [:], subscriberID: nil)
        #expect(throws: ServiceError.self) {
            try s.serving.resolve(
                appID: w.app, placement: "home", facts: &facts2, experiments: .clientBuckets(chosen: (experiment, "zz"))
            )
        }
        // A choice from another experiment's allocation gets the current one.
        var stale = RequestFacts(context: [:], subscriberID: nil)
        let again = try s.serving.resolve(
            appID: w.app, placement: "home", facts: &stale, experiments: .clientBuckets(chosen: ("exp_gone", "b")))
        #expect(again.allocation?.id == experiment)
    }

    // MARK: Purges

    @Test func changesPurgeWhatTheyChanged() {
        func change(_ app: String?, _ kind: Change.Kind, _ entity: String?) -> Change {
            Change(sequence: 1, appID: app, kind: kind, entityID: entity)
        }
        let bans = CachePurger.bans(for: [
            change("a", .placement, "home"), change("a", .placement, "home"), change("a", .placement, "settings"),
            change("b", .placement, "home"), change("b", .paywall, "pw"), change("c", .subscriber, "s1"),
            change(nil, .key, "signing"), change("d", .experiment, "e"),
        ])
        #expect(
            bans == [
                CachePurger.Ban(appID: "b", placement: nil), CachePurger.Ban(appID: "d", placement: nil),
                CachePurger.Ban(appID: "a", placement: "home"), CachePurger.Ban(appID: "a", placement: "settings"),
                // A rotation of the signing keys purges their published answer.
                CachePurger.Ban(appID: CachePurger.signingKeysTag, placement: nil),
            ])
        #expect(
            CachePurger.Ban(appID: "a", placement: "home").headers == ["X-Xizor-App: a", "X-Xizor-Placement: home"])
    }

    // MARK: Helpers

    func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    static func decodeBase64(_ text: String) -> [UInt8]? {
        Base64URL.decode(
            text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: ""))
    }
}
