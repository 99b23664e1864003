#if canImport(Glibc)
    import Glibc
#endif

/// Tokens (keys as clients send them, in a bearer header or the SDK's path form) already verified
/// against their stored hash, found by their bytes: the SDK path looks one up per request, and
/// building a String of the token to hash cost an allocation and a second pass over it. Keyed by
/// the token alone, never by the header around it: a credential is accepted or refused by what
/// it is, not by which form verified it first (keyed by the whole `Authorization` value, a path
/// form's bare key once made `Authorization: pk_…` without its scheme pass).
///
/// Bucketed by the credential's last eight bytes (and its length) rather than a hash of all of it:
/// those bytes are the random tail of a key the server generated, and only credentials that
/// verified are ever stored, so no client can fill one bucket (an unknown credential only probes
/// one and is compared in full). The dictionary mixes that word with its per-process seed
/// (`SeededWord`).
struct CredentialMemo: Sendable {
    /// A verified credential: a class, so a thread memo keeps the stored one as its entry's key
    /// (`KeyService.verified(token:)`) without copying its bytes.
    final class Entry: Sendable {
        let credential: [UInt8]
        let key: VerifiedKey

        init(credential: [UInt8], key: VerifiedKey) {
            self.credential = credential
            self.key = key
        }
    }

    private var buckets: [SeededWord: [Entry]] = [:]
    private(set) var count = 0

    private static func bucket(_ bytes: UnsafeBufferPointer<UInt8>) -> SeededWord { SeededWord(word(bytes)) }

    /// The credential's length and last eight bytes in a word (the bucket's, and a thread memo's
    /// slot, `KeyService.verified(token:)`).
    static func word(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var word = UInt64(bytes.count) << 56
        if bytes.count >= 8, let base = bytes.baseAddress {
            word ^= UnsafeRawPointer(base + bytes.count - 8).loadUnaligned(as: UInt64.self)
        } else {
            for (i, b) in bytes.enumerated() { word ^= UInt64(b) << (8 * UInt64(i)) }
        }
        return word
    }

    /// Whether `stored` holds exactly `credential`'s bytes.
    static func same(_ stored: [UInt8], _ credential: UnsafeBufferPointer<UInt8>) -> Bool {
        stored.count == credential.count
            && stored.withUnsafeBufferPointer { stored in
                guard let s = stored.baseAddress, let c = credential.baseAddress else { return stored.isEmpty }
                return memcmp(s, c, stored.count) == 0
            }
    }

    func find(_ credential: UnsafeBufferPointer<UInt8>) -> VerifiedKey? { entry(credential)?.key }

    /// The stored entry of `credential`.
    func entry(_ credential: UnsafeBufferPointer<UInt8>) -> Entry? {
        guard let entries = buckets[Self.bucket(credential)] else { return nil }
        for entry in entries where Self.same(entry.credential, credential) { return entry }
        return nil
    }

    func find(_ credential: Substring) -> VerifiedKey? {
        var credential = credential
        return credential.withUTF8 { find($0) }
    }

    mutating func insert(_ credential: String, _ key: VerifiedKey) {
        let bytes = Array(credential.utf8)
        let bucket = bytes.withUnsafeBufferPointer { Self.bucket($0) }
        var entries = buckets[bucket] ?? []
        if let i = entries.firstIndex(where: { $0.credential == bytes }) {
            entries[i] = Entry(credential: bytes, key: key)
        } else {
            entries.append(Entry(credential: bytes, key: key))
            count += 1
        }
        buckets[bucket] = entries
    }

    mutating func removeAll() {
        buckets.removeAll(keepingCapacity: true)
        count = 0
    }

    /// Forgets every credential of a key `shouldRemove` names (a reload of its app's keys).
    mutating func removeAll(where shouldRemove: (VerifiedKey) -> Bool) {
        for (bucket, entries) in buckets {
            let kept = entries.filter { !shouldRemove($0.key) }
            count -= entries.count - kept.count
            buckets[bucket] = kept.isEmpty ? nil : kept
        }
    }
}
