import PaywallFormat
import Synchronization

/// Who a request's bearer token says it is.
public enum Principal: Sendable, Equatable {
    case admin
    case secret(appID: String)
    case publicKey(appID: String)
    /// A signed-in person on a route of their own (their session, their sessions list): no app.
    case person(userID: String)

    public var appID: String? {
        switch self {
        case .admin, .person: nil
        case .secret(let id), .publicKey(let id): id
        }
    }
}

/// A key that passed verification: who it speaks for and which key it is. A class, so the
/// in-memory memo hands the same instance to every request presenting the credential (a request
/// carries it by reference, without an allocation per request).
public final class VerifiedKey: Sendable {
    public let id: String
    public let principal: Principal
    /// What a secret key may do (`all` for the other kinds, whose kind decides).
    public let scopes: ScopeSet
    /// A public key's environment, which its events take.
    public let environment: DataEnvironment
    /// Whose share of the handler threads the key's requests take (`HTTPRequest.partition`): its
    /// app's ("" for the admin token); the request reads it through the key (`HTTPPartitioned`).
    public let partition: String
    /// The person's session, when a session (not a key) was verified: `id` is then the session's
    /// id, and `scopes` the person's role's in the app (docs/teams.md).
    public let session: SessionService.Verified?
    public var user: ActingUser? { session?.actingUser }
    /// The caller an app's route hands its handler for this key, made once: the handler borrows it
    /// from the key its request lends (built per request, its app id and parts were retained and
    /// released each time). Its app id is empty for a key of no app (the admin token), whose
    /// routes take no caller.
    package let caller: AppCaller

    /// `body` with the caller borrowed (passed on from a key held elsewhere, it was copied: a
    /// retain and a release of each of its parts).
    package func withCaller<Result>(_ body: (AppCaller) throws -> Result) rethrows -> Result { try body(caller) }

    /// The key's app with its id's hash, for the serving state's lookup of the app's snapshot
    /// (`withApp(for:)`): hashed once per key rather than per request. Not optional (an empty id
    /// when the key has no app), so it is lent in place: unwrapping an optional copied it, a
    /// retain and a release of its text on every SDK request.
    private let app: IDKey

    /// `body` given `appID` with its hash: the key's own when it is this key's app (always, for the
    /// routes that pass a caller's app), else hashed now.
    package func withApp<Result>(for appID: String, _ body: (IDKey) throws -> Result) rethrows -> Result {
        if !app.text.isEmpty && app.text == appID { return try body(app) }
        return try body(IDKey(appID))
    }

    init(
        id: String, principal: Principal, scopes: ScopeSet = .all, environment: DataEnvironment = .production,
        session: SessionService.Verified? = nil
    ) {
        self.id = id
        self.principal = principal
        partition = principal.appID ?? ""
        app = IDKey(principal.appID ?? "")
        self.scopes = scopes
        self.environment = environment
        self.session = session
        caller = AppCaller(
            appID: principal.appID ?? "", keyID: id, scopes: scopes, environment: environment, user: session?.actingUser
        )
    }

    /// What a verified session admits a request as: `principal` with `scopes` (a request's own
    /// object, as sessions are not memoized: each request reads its session back).
    package static func person(_ session: SessionService.Verified, as principal: Principal, scopes: ScopeSet)
        -> VerifiedKey
    {
        VerifiedKey(id: session.session.id, principal: principal, scopes: scopes, session: session)
    }
}

/// Apps and their keys. Keys are stored as SHA-256 hashes; authentication is answered from an
/// in-memory table (loaded at start, updated by every key write before it answers), so the SDK
/// hot path never reads SQLite to authenticate.
public final class KeyService: Sendable {
    private struct KnownKey: Sendable {
        let hash: [UInt8]
        let key: VerifiedKey
    }

    let store: any DataStore
    let clock: Clock
    /// Key writes append to it and catch up before answering (a revoked key stops working here at
    /// once, and in every other process within the feed's poll interval).
    let changes: ChangeFeed
    private struct Table {
        /// Display prefix → live keys with that prefix (normally one).
        var byPrefix: [String: [KnownKey]] = [:]
        /// Credentials already verified against their hash, so the hot path hashes each key once.
        /// Emptied on every reload (revocation, archive), bounded in size.
        var verified = CredentialMemo()
    }
    private static let verifiedLimit = 10_000
    /// The shortest admin token `serve` accepts (generated ones are 35 characters).
    public static let minimumAdminTokenLength = 32
    private let keys = ReadWriteLock(Table())
    /// The generation of `keys` (`ThreadMemo`): a new one after every reload, the only change that
    /// can make a remembered credential's answer wrong (revocation, archive, scopes).
    private let keysGeneration = Atomic<UInt64>(MemoGeneration.next())
    private static let threadCredentials = ThreadMemo(slots: 256)
    private let threadCredentials = KeyService.threadCredentials
    /// Serialises reload's read-then-install, so an older read never overwrites a newer one (a
    /// revoked key must not come back because two key writes raced).
    private let reloadLock = Mutex<Void>(())

    /// The most live keys one app may have (`keys.maxPerApp`): every key is a credential to
    /// guard, and the table every request authenticates against must not grow at one app's will.
    public let maxKeysPerApp: Int
    public static let defaultMaxKeysPerApp = 50

    public init(
        store: any DataStore, clock: Clock, changes: ChangeFeed, maxKeysPerApp: Int = KeyService.defaultMaxKeysPerApp
    ) throws {
        self.store = store
        self.clock = clock
        self.changes = changes
        self.maxKeysPerApp = maxKeysPerApp
        try reload()
    }

    /// Reads every live key of every live app into memory.
    public func reload() throws { try reload(.all) }

    /// Reads the live keys of `scope` again and replaces that part of the table (and of the memo),
    /// so a key write costs a read of its own app's keys, not of every app's.
    func reload(_ scope: KeyScope) throws {
        try reloadLock.withLock { _ in try reloadLocked(scope) }
    }

    private func reloadLocked(_ scope: KeyScope) throws {
        let stored = try store.read { tx in try tx.apps.liveKeys(scope) }
        var table: [String: [KnownKey]] = [:]
        for key in stored {
            let principal: Principal
            switch (key.kind, key.appID) {
            case (.admin, _): principal = .admin
            case (.secret, let id?): principal = .secret(appID: id)
            case (.public, let id?): principal = .publicKey(appID: id)
            default: continue
            }
            let verified = VerifiedKey(
                id: key.id, principal: principal, scopes: key.scopes, environment: key.environment)
            table[key.prefix, default: []].append(KnownKey(hash: key.hash, key: verified))
        }
        keys.write { current in
            guard scope != .all else {
                current = Table(byPrefix: table)
                return
            }
            for (prefix, known) in current.byPrefix where known.contains(where: { scope.contains($0.key.principal) }) {
                let kept = known.filter { !scope.contains($0.key.principal) }
                current.byPrefix[prefix] = kept.isEmpty ? nil : kept
            }
            current.byPrefix.merge(table) { $0 + $1 }
            current.verified.removeAll { scope.contains($0.principal) }
        }
        keysGeneration.store(MemoGeneration.next(), ordering: .releasing)
    }

    /// The key a bearer token is, or nil when the token is unknown or revoked: the display prefix
    /// only finds the candidates, the whole token's hash must match one (in constant time). A
    /// verified answer is remembered by the token until the next reload, whichever way it came
    /// (an `Authorization` header or a path): the memo holds keys, not how requests carried them.
    public func verify(_ token: Substring) -> VerifiedKey? {
        if let memo = keys.read({ $0.verified.find(token) }) { return memo }
        let tokenString = String(token)
        let prefix = Identifiers.displayPrefix(of: tokenString)
        guard let candidates = keys.read({ $0.byPrefix[prefix] }), !candidates.isEmpty else { return nil }
        let hash = Identifiers.hash(tokenString)
        var found: VerifiedKey?
        for candidate in candidates where Identifiers.constantTimeEqual(candidate.hash, hash) {
            found = candidate.key
        }
        if let found {
            keys.write { table in
                // Only remember while the key is still live (a reload may have revoked it meanwhile).
                guard table.byPrefix[prefix]?.contains(where: { $0.hash == hash }) == true else { return }
                if table.verified.count >= KeyService.verifiedLimit { table.verified.removeAll() }
                table.verified.insert(tokenString, found)
            }
        }
        return found
    }

    /// `verify` again after applying every change other processes committed: a key created (or an
    /// app made) on another replica a moment ago works on its first request here instead of being
    /// refused until the feed's next poll. Asked only on the (rate-limited) failure path.
    public func verifyAfterCatchingUp(_ token: Substring) throws -> VerifiedKey? {
        do { try changes.catchUp() } catch let error as ServiceError { throw error } catch {
            throw ServiceError.storage(error)
        }
        return verify(token)
    }

    /// Whether a token that did not verify is a live key of an archived app: the 401 then says why
    /// instead of "unknown or revoked". Asked only on the (rate-limited) failure path; a store that
    /// cannot answer throws (503 `storage_unavailable`): the server cannot tell what the key is.
    public func isKeyOfArchivedApp(_ token: Substring) throws -> Bool {
        let hash = Identifiers.hash(String(token))
        return try store.read { tx in try tx.apps.isKeyOfArchivedApp(hash: hash) }
    }

    /// Who a bearer token speaks for, or nil when it is unknown or revoked.
    public func authenticate(_ token: String) -> Principal? { verify(token[...])?.principal }

    /// A token the table's memo holds (verified before and still live), or nil: what tests read to
    /// see a reload empty it, apart from this thread's memo.
    func verified(token: String) -> VerifiedKey? { keys.read { $0.verified.find(token[...]) } }

    /// The same, by the token's bytes (as the request carries it, in its `Authorization` value or
    /// its path). The SDK path's lookup: from this thread's memo while no reload happened since
    /// the thread read the token's answer, else from the table (and remembered).
    public func verified(token credential: UnsafeBufferPointer<UInt8>) -> VerifiedKey? {
        let stamp = keysGeneration.load(ordering: .acquiring)
        // Mixed: the word's low byte alone (one character of the key) would use a quarter of the slots.
        let hash = SeededWord.mixed(CredentialMemo.word(credential), seed: 0)
        // Keyed by the memo's stored entry (its bytes compared), valued by its verified key.
        let found = threadCredentials.find(stamp: stamp, hash: hash) {
            CredentialMemo.same(unsafeDowncast($0, to: CredentialMemo.Entry.self).credential, credential)
        }
        if let found { return unsafeDowncast(found, to: VerifiedKey.self) }
        guard let entry = keys.read({ $0.verified.entry(credential) }) else { return nil }
        threadCredentials.remember(stamp: stamp, hash: hash, key: entry, value: entry.key)
        return entry.key
    }

    /// Whether any admin key exists (when none does, `serve` generates one).
    public func hasAdminKey() -> Bool {
        keys.read { table in table.byPrefix.values.contains { $0.contains { $0.key.principal == .admin } } }
    }
}

extension KeyScope {
    /// Whether a key speaking for `principal` is in this scope (what a scoped reload replaces).
    func contains(_ principal: Principal) -> Bool {
        switch self {
        case .all: true
        case .app(let id): principal.appID == id
        case .admin: principal == .admin
        }
    }
}
