import Digest
import HTTP
import PaywallFormat
import Synchronization
import XizorDomain

/// One encoded answer of the SDK endpoint with its validators: identity bytes and their strong
/// ETag (a digest of the bytes, so it changes exactly when they do), and the gzip form with its own
/// tag. Built once per representation; a revalidation is a dictionary lookup. A class holding its
/// answer ready: handing it out of the cache is one retain, and the answer is not rebuilt (each
/// field retained again) per request.
public final class Representation: Sendable {
    public let body: [UInt8]
    public let etag: String
    public let gzip: HTTPResponse.Representation?
    /// The answer's header fields besides the validators, serialised once with the bytes.
    public let prepared: PreparedHeaders
    public var headers: HTTPHeaders { prepared.headers }
    /// The representation as an answer.
    public let response: HTTPResponse

    public init(body: [UInt8], headers: HTTPHeaders, gzipLevel: Int32 = 6) {
        self.body = body
        let tag = Representation.strongETag(body)
        etag = tag
        let gzip = Gzip.compress(body, level: gzipLevel).map {
            HTTPResponse.Representation(body: $0, etag: HTTPResponse.gzipETag(for: tag))
        }
        self.gzip = gzip
        // A 304 repeats the signature: the client checks it against the body it kept.
        let prepared = PreparedHeaders(
            headers, alsoOnNotModified: ["X-Xizor-Signature"], entityTags: [tag] + (gzip?.etag.map { [$0] } ?? []))
        self.prepared = prepared
        response = HTTPResponse(status: .ok, body: body, etag: tag, gzip: gzip, prepared: prepared)
    }

    /// `other`'s bytes and validators with other header fields (a signature over a request's nonce):
    /// nothing is hashed or compressed again.
    public init(_ other: Representation, headers: HTTPHeaders) {
        body = other.body
        etag = other.etag
        gzip = other.gzip
        prepared = PreparedHeaders(
            headers, alsoOnNotModified: ["X-Xizor-Signature"],
            entityTags: [other.etag] + (other.gzip?.etag.map { [$0] } ?? []))
        response = HTTPResponse(status: .ok, body: body, etag: etag, gzip: gzip, prepared: prepared)
    }

    /// The server's one strong validator: the first 128 bits of SHA-256 of the exact bytes, so it
    /// changes exactly when they do.
    public static func strongETag(_ bytes: [UInt8]) -> String { StrongETag.of(bytes) }
}

/// What distinguishes two representations of the SDK endpoint. The served version and the key
/// whose text the signature names are identified by their objects: no hashing of app, paywall and
/// version strings per request. A lookup's key only names them (no retain and release of each per
/// revalidation); the key the cache stores also holds them (`holding`), so neither identity can be
/// reused by another object while its entry lives.
public struct RepresentationKey: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case json, html }
    public let served: ObjectIdentifier
    /// Hashed once (`HashedName`): the key's hash combines it as a word.
    public let placement: HashedName
    public let locale: String
    public let form: ServedForms.Key
    public let kind: Kind
    /// Pages apply the appearance themselves; JSON carries it in `form` when it matters.
    public let pageColorScheme: ColorScheme?
    /// For pages: the context values the page's text resolves (canonical JSON); "" for JSON.
    public let context: String
    /// The answer names the experiment and variant, so they are part of the representation.
    public let experiment: ExperimentAssignment?
    /// The public key whose text the answer's signature names.
    public let signer: ObjectIdentifier
    /// How the answer meets shared caches, and which request headers decided it (`EdgeCaching.Answer.bits`).
    public let headerBits: UInt32
    /// The signing keys' generation (`AnswerSigning.generation`): after a rotation, answers are signed anew.
    public let signingGeneration: Int
    /// The objects `served` and `signer` name, in a stored key only (not compared).
    private(set) var held: Held?

    struct Held: Sendable {
        let served: ServedVersion
        let signer: VerifiedKey
    }

    init(
        served: ServedVersion, placement: HashedName, locale: String, form: ServedForms.Key, kind: Kind,
        pageColorScheme: ColorScheme?, context: String, experiment: ExperimentAssignment?, signer: VerifiedKey,
        headerBits: UInt32, signingGeneration: Int
    ) {
        self.served = ObjectIdentifier(served)
        self.placement = placement
        self.locale = locale
        self.form = form
        self.kind = kind
        self.pageColorScheme = pageColorScheme
        self.context = context
        self.experiment = experiment
        self.signer = ObjectIdentifier(signer)
        self.headerBits = headerBits
        self.signingGeneration = signingGeneration
    }

    /// This key holding the objects it names, as the cache stores it.
    func holding(_ served: ServedVersion, _ signer: VerifiedKey) -> RepresentationKey {
        precondition(
            ObjectIdentifier(served) == self.served && ObjectIdentifier(signer) == self.signer,
            "a key holds the objects it names")
        var stored = self
        stored.held = Held(served: served, signer: signer)
        return stored
    }

    public static func == (a: RepresentationKey, b: RepresentationKey) -> Bool {
        a.served == b.served && a.placement == b.placement && a.locale == b.locale && a.form == b.form
            && a.kind == b.kind && a.pageColorScheme == b.pageColorScheme && a.context == b.context
            && a.experiment == b.experiment && a.signer == b.signer && a.headerBits == b.headerBits
            && a.signingGeneration == b.signingGeneration
    }

    /// The fields with many values (the version, placement, locale and page context) in one word,
    /// mixed once (`SeededWord`); the few forms, kinds, schemes and variants of one of those are
    /// told apart by `==` within the bucket. The placement and a page context come with `String`'s
    /// keyed hash; the locale's bytes are folded plainly, as a `Hasher` round over its text was a
    /// third of a revalidation's cache lookup. Words are equal only for one version and one
    /// placement's hash, so a tenant could make no more than its own version's few locales share
    /// a bucket.
    public func _rawHashValue(seed: Int) -> Int {
        let odd: UInt64 = 0x9E37_79B9_7F4A_7C15
        var word = UInt64(UInt(bitPattern: served))
        word = (word &* odd) ^ UInt64(UInt(bitPattern: placement.hash))
        word = (word &* odd) ^ Self.fold(locale)
        // Most answers are JSON, with no page context: "" adds nothing, so it is not hashed.
        if !context.isEmpty { word = (word &* odd) ^ UInt64(UInt(bitPattern: context.hashValue)) }
        return SeededWord.mixed(word, seed: seed)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(_rawHashValue(seed: 0)) }

    /// A short text's bytes and length in a word (FNV-1a's step).
    private static func fold(_ text: String) -> UInt64 {
        func fold(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var word = UInt64(truncatingIfNeeded: bytes.count)
            for byte in bytes { word = (word ^ UInt64(byte)) &* 0x100_0000_01B3 }
            return word
        }
        // Native and small strings alike have their bytes in one run (a small one's, copied out).
        return text.utf8.withContiguousStorageIfAvailable(fold)
            ?? Array(text.utf8).withUnsafeBufferPointer(fold)
    }
}

/// A bounded cache of representations. Keys include the immutable version, so a publish never
/// needs to invalidate anything: new versions get new keys and old ones are evicted when the
/// cache fills (an eighth at a time).
///
/// Pages that use `{{context.KEY}}` are cached per value, which a client chooses: without a bound,
/// unique values turn every request into a render and every render into an entry that evicts a
/// useful one. So each served version caches at most `maxContextVariants` context variants; past
/// that, a page is rendered for the request and not stored, under the caller's `uncached` gate
/// (the per-app render limit), and counted as a miss with that cause.
public final class RepresentationCache: Sendable {
    /// Why an answer was not served from the cache.
    public enum MissCause: String, Sendable, CaseIterable {
        /// Not in the cache (never built, or evicted): built and stored.
        case absent
        /// A page for one more context value of a version that has `maxContextVariants` cached:
        /// rendered for this request only.
        case contextVariantCap = "context_variant_cap"
    }

    private let limit: Int
    public let maxContextVariants: Int
    private let entries = ReadWriteLock(HashChains<RepresentationKey, Representation>())
    /// What each thread found here last (`ThreadMemo`), so a revalidation of a hot answer takes no
    /// lock. Never invalidated: a key names an immutable version and the signing keys' generation,
    /// so its representation never changes; the stamp only keeps this cache's entries apart from
    /// another's. Sixteen per thread: a page's representation is ~95 KB with its gzip form, and an
    /// entry keeps it (and the version it names) alive until its slot is reused or the thread ends.
    private static let threadEntries = ThreadMemo(slots: 16)
    private let threadEntries = RepresentationCache.threadEntries
    private let stamp = MemoGeneration.next()
    private let hits = Atomic<Int>(0)
    private let misses = AtomicCounters(count: MissCause.allCases.count)

    public init(limit: Int = 4096, maxContextVariants: Int = RepresentationCache.defaultMaxContextVariants) {
        precondition(limit > 0 && maxContextVariants >= 0, "cache bounds must be positive")
        self.limit = limit
        self.maxContextVariants = maxContextVariants
    }

    public static let defaultMaxContextVariants = 64

    /// The cached representation for `key`, or `build`'s, stored. A context variant past the
    /// version's cap is built through `uncached` (which may refuse) and not stored. `served` and
    /// `signer` are the objects `key` names; a stored key holds them.
    func representation(
        for key: RepresentationKey, served: ServedVersion, signer: VerifiedKey, build: () throws -> Representation,
        uncached: (() throws -> Representation) throws -> Representation
    ) throws -> Representation {
        let hash = key.hashValue
        if let found = threadEntries.find(
            stamp: stamp, hash: hash, { unsafeDowncast($0, to: StoredKey.self).matches(key) })
        {
            hits.add(1, ordering: .relaxed)
            return unsafeDowncast(found, to: Representation.self)
        }
        if let found = entries.read({ $0.find(key, hash: hash) }) {
            hits.add(1, ordering: .relaxed)
            // Remembered by a key that holds what it names, so neither identity can be reused.
            threadEntries.remember(stamp: stamp, hash: hash, key: StoredKey(key.holding(served, signer)), value: found)
            return found
        }
        let isVariant = !key.context.isEmpty
        guard !isVariant || served.reserveContextVariant(max: maxContextVariants) else {
            misses.add(Self.slot(.contextVariantCap))
            return try withoutActuallyEscaping(build) { try uncached($0) }
        }
        misses.add(Self.slot(.absent))
        let built: Representation
        do { built = try build() } catch {
            if isVariant { served.releaseContextVariant() }
            throw error
        }
        let key = key.holding(served, signer)
        let evicted: [RepresentationKey] = entries.write { cache in
            var evicted: [RepresentationKey] = []
            if cache.find(key, hash: hash) == nil && cache.count >= limit {
                // An eighth goes when the cache is full, not everything, so a full cache never
                // turns every client's next fetch into a rebuild at once.
                evicted = cache.evict(downTo: limit - max(1, limit / 8))
            }
            if cache.insert(key, hash: hash, built) {
                evicted.append(key)  // built twice at once: the reservation of this one goes back
            }
            return evicted
        }
        for old in evicted where !old.context.isEmpty {
            guard let held = old.held else { preconditionFailure("the cache stores keys that hold what they name") }
            held.served.releaseContextVariant()
        }
        return built
    }

    /// A key as a thread memo's entry holds it.
    private final class StoredKey {
        let key: RepresentationKey
        init(_ key: RepresentationKey) { self.key = key }
        /// Compared in place (reading `key` out of the object to compare copied it).
        func matches(_ other: RepresentationKey) -> Bool { key == other }
    }

    private static func slot(_ cause: MissCause) -> Int {
        guard let index = MissCause.allCases.firstIndex(of: cause) else {
            preconditionFailure("every cause has a slot")
        }
        return index
    }

    public var hitCount: Int { hits.load(ordering: .relaxed) }
    public var missCount: Int { MissCause.allCases.reduce(0) { $0 + missCount($1) } }
    public func missCount(_ cause: MissCause) -> Int { misses.load(Self.slot(cause)) }
}

extension ServingState {
    /// The fallback bundle as an answer: encoded once per snapshot and client form (kept with the
    /// snapshot), so fetching it again, and its 304, is a lookup, like the paywall endpoint's.
    func fallbackBundleRepresentation(
        appID: String, clientVersion: Int, colorScheme: ColorScheme, store: ProductStore = .appStore
    ) -> Representation {
        keptWithSnapshot(
            appID: appID,
            AppServingSnapshot.FallbackBundleKey(clientVersion: clientVersion, colorScheme: colorScheme, store: store)
        ) { snapshot in
            Representation(
                body: fallbackBundle(
                    snapshot, appID: appID, clientVersion: clientVersion, colorScheme: colorScheme, store: store
                ).canonicalBytes,
                headers: [
                    "Content-Type": "application/json", "Cache-Control": "no-cache",
                    "Vary": "X-Xizor-Schema-Version, Sec-CH-Prefers-Color-Scheme, X-Xizor-Platform",
                ])
        }
    }
}
