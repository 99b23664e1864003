import Digest
import PaywallFormat
import Synchronization

/// The instance's Ed25519 keys that sign SDK answers (docs/scaling.md, "Signed answers"), so an app
/// pinning the public keys can tell an answer from a copy a CDN, a proxy or an attacker changed — a
/// product id or a price text — as RevenueCat's trusted entitlements do.
///
/// Three keys at most, each in a state: `current` signs; `next` is published before it signs, so
/// apps can ship it pinned ahead of a rotation; `previous` stays published after one. Kept in the
/// database's `settings` (every replica signs with the same key) unless `signing.keyFile` names a
/// PEM key, which then is the only one. Rotation (`xizor signing-keys rotate`) appends a change, so
/// every process re-reads the keys on its next catch-up.
public final class AnswerSigning: Sendable {
    public enum State: String, Sendable, CaseIterable {
        case current, next, previous
    }

    public struct Key: Sendable {
        public let state: State
        public let key: Ed25519PrivateKey
        /// Lowercase hex of the first 8 bytes of SHA-256 of the raw public key: names it in a signature.
        public let kid: String

        init(state: State, key: Ed25519PrivateKey) {
            self.state = state
            self.key = key
            kid = String(SHA256.hexDigest(key.publicKey).prefix(16))
        }
    }

    /// The domain-separation tag, the message's first line.
    public static let messageTag = "xizor-sdk-signature-v1"
    static func settingKey(_ state: State) -> String { "signing_key_\(state.rawValue)" }

    private let store: any DataStore
    private let clock: Clock
    /// A configured key (`signing.keyFile`): then the database's keys are neither read nor made.
    private let fileKey: Ed25519PrivateKey?
    private let keys: Mutex<[Key]>
    private let generationCounter = Atomic<Int>(0)

    /// Grows whenever the keys change: an answer signed before (kept by the SDK's representation
    /// caches, which key on it) is signed again with the new current key on its next request.
    public var generation: Int { generationCounter.load(ordering: .acquiring) }

    public init(store: any DataStore, clock: Clock, fileKey: Ed25519PrivateKey? = nil) throws {
        self.store = store
        self.clock = clock
        self.fileKey = fileKey
        keys = Mutex([])
        try reload()
    }

    /// Reads the keys again (after a rotation); creates the first one on a fresh database.
    public func reload() throws {
        if let fileKey {
            keys.withLock { $0 = [Key(state: .current, key: fileKey)] }
            return
        }
        func stored(_ tx: any StoreTransaction) throws -> [Key] {
            try State.allCases.compactMap { state in
                guard let text = try tx.operations.setting(Self.settingKey(state)) else { return nil }
                return Key(state: state, key: try Self.key(text, state: state))
            }
        }
        // Read; written only on a fresh database (the first process's key wins), so re-reading the
        // keys after a change never takes the writer.
        var loaded = try store.read(stored)
        if !loaded.contains(where: { $0.state == .current }) {
            loaded = try store.write { tx in
                let candidate = Base64URL.encode(Ed25519PrivateKey.generate().seed)
                _ = try tx.operations.sharedSecret(Self.settingKey(.current), candidate: candidate, now: clock.now())
                return try stored(tx)
            }
        }
        let changed = keys.withLock { keys in
            defer { keys = loaded }
            return keys.map(\.kid) != loaded.map(\.kid) || keys.map(\.state) != loaded.map(\.state)
        }
        if changed { generationCounter.add(1, ordering: .releasing) }
    }

    /// Makes `next` current (a fresh key when there is none), the current one `previous`, and a new
    /// `next`: what an operator runs once apps pinning `next` have shipped. Appends a change so every
    /// process signs with the new key after its next catch-up. Answers the keys as they now are.
    /// The entity of the change a rotation appends (the purger bans the published keys on it).
    public static let changeEntity = "signing"

    public static func rotate(store: any DataStore, clock: Clock) throws -> [Key] {
        try store.write { tx in
            let now = clock.now()
            let current = try tx.operations.setting(settingKey(.current))
            let next =
                try tx.operations.setting(settingKey(.next)) ?? Base64URL.encode(Ed25519PrivateKey.generate().seed)
            try tx.operations.setSetting(settingKey(.previous), current, now: now)
            try tx.operations.setSetting(settingKey(.current), next, now: now)
            try tx.operations.setSetting(
                settingKey(.next), Base64URL.encode(Ed25519PrivateKey.generate().seed), now: now)
            _ = try tx.changes.append(appID: nil, kind: .key, entityID: changeEntity, now: now)
            return try State.allCases.compactMap { state in
                guard let text = try tx.operations.setting(settingKey(state)) else { return nil }
                return Key(state: state, key: try key(text, state: state))
            }
        }
    }

    private static func key(_ text: String, state: State) throws -> Ed25519PrivateKey {
        guard let seed = Base64URL.decode(text), let key = try? Ed25519PrivateKey(seed: seed) else {
            throw StoreInconsistency(detail: "the stored \(state.rawValue) signing key is not a 32-byte Ed25519 seed")
        }
        return key
    }

    /// The published keys: `GET /v1/sdk/signing-keys`.
    public var published: JSONValue {
        .object([
            "keys": .array(
                keys.withLock { $0 }.map { key in
                    [
                        "kid": .string(key.kid), "publicKey": .string(Base64.encode(key.key.publicKey)),
                        "status": .string(key.state.rawValue), "algorithm": "Ed25519",
                    ]
                })
        ])
    }

    /// The `X-Xizor-Signature` value of an answer: Ed25519 by the current key over `message(…)`.
    public func signature(
        credential: String, placement: String, status: Int, body: [UInt8], nonce: String?
    ) throws -> String {
        guard let current = keys.withLock({ $0.first { $0.state == .current } }) else {
            throw StoreInconsistency(detail: "no current signing key")
        }
        let time = clock.now() / 1000
        let message = Self.message(
            credential: credential, placement: placement, status: status, bodySHA256: SHA256.hexDigest(body),
            time: time, nonce: nonce)
        let signature = try current.key.sign(message)
        return "kid=\(current.kid);t=\(time);sig=\(Base64URL.encode(signature))"
    }

    /// What is signed, line by line: the tag, the public key the request used, the placement, the
    /// status, the SHA-256 of the identity body, the time (Unix seconds) and the request's nonce.
    public static func message(
        credential: String, placement: String, status: Int, bodySHA256: String, time: Int64, nonce: String?
    ) -> [UInt8] {
        Array(
            [messageTag, credential, placement, String(status), bodySHA256, String(time), nonce ?? ""]
                .joined(separator: "\n").utf8)
    }
}
