import Digest
import Synchronization

/// Argon2id behind a bound. Each hash takes ~19 MiB and tens of milliseconds of a core, and
/// signing in is open to anyone: at most `concurrent` run at once, and past that a sign-in is
/// answered 503 with `Retry-After` rather than queued, so a flood of sign-ins costs a bounded share
/// of the machine (the per-address failure bucket bounds it further, before any hash).
final class PasswordGate: Sendable {
    private let hasher: PasswordHasher
    private let concurrent: Int
    private let inFlight = Atomic<Int>(0)
    /// A hash of a random password, to verify against when the account does not exist, so an
    /// unknown address takes as long as a wrong password (no account enumeration by timing).
    private let decoy = Mutex<String?>(nil)

    init(parameters: PasswordHasher.Parameters, concurrent: Int) {
        precondition(concurrent > 0, "at least one hash must be allowed at a time")
        hasher = PasswordHasher(parameters: parameters)
        self.concurrent = concurrent
    }

    func hash(_ password: String) throws -> String {
        try admitted { try hasher.hash(password) }
    }

    /// Whether `password` matches `encoded`; with no hash (no such account, or none with a
    /// password) the decoy is verified and the answer is false.
    func verify(_ password: String, against encoded: String?) throws -> Bool {
        let decoyHash = try encoded == nil ? self.decoyHash() : nil
        return try admitted {
            guard let encoded else {
                _ = decoyHash.map { PasswordHasher.verify(password, against: $0) }
                return false
            }
            return PasswordHasher.verify(password, against: encoded)
        }
    }

    func needsRehash(_ encoded: String) -> Bool { hasher.needsRehash(encoded) }

    private func decoyHash() throws -> String {
        if let made = decoy.withLock({ $0 }) { return made }
        let made = try admitted { try hasher.hash(Identifiers.random(24)) }
        decoy.withLock { $0 = made }
        return made
    }

    private func admitted<T>(_ body: () throws -> T) throws -> T {
        guard inFlight.add(1, ordering: .acquiringAndReleasing).newValue <= concurrent else {
            inFlight.subtract(1, ordering: .relaxed)
            throw ServiceError(
                .unavailable, "signin_busy", "Too many sign-ins are being checked at once; try again in a second.",
                retryAfterSeconds: 1)
        }
        defer { inFlight.subtract(1, ordering: .relaxed) }
        do { return try body() } catch let error as PasswordHasher.Failure {
            throw ServiceError(.unavailable, "password_hash_failed", "The password could not be hashed: \(error).")
        }
    }
}
