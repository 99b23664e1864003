import CArgon2

/// People's passwords, hashed with Argon2id (RFC 9106) by the reference implementation (Debian's
/// `libargon2`): a password hash is not our product. The hash is stored in the PHC string format
/// (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`), which carries its own parameters, so they can be raised
/// later: a sign-in that verifies an older hash learns from `needsRehash` to store a new one.
public struct PasswordHasher: Sendable {
    /// Memory in KiB, passes and lanes. The default is OWASP's first Argon2id recommendation
    /// (19 MiB, 2 passes, 1 lane): about 30–60 ms of one core here, and 19 MiB per hash in flight,
    /// which is why the callers bound how many run at once.
    public struct Parameters: Sendable, Equatable {
        public var memoryKiB: UInt32
        public var iterations: UInt32
        public var parallelism: UInt32

        public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }

        public static let standard = Parameters(memoryKiB: 19_456, iterations: 2, parallelism: 1)
    }

    public enum Failure: Error, Equatable {
        /// libargon2 refused (out of memory, a parameter out of its range): its error text.
        case library(String)
    }

    public let parameters: Parameters

    public init(parameters: Parameters = .standard) { self.parameters = parameters }

    private static let saltBytes = 16
    private static let hashBytes = 32

    /// The PHC string of `password` with a fresh random salt.
    public func hash(_ password: String) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<Self.saltBytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let length = argon2_encodedlen(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism, UInt32(Self.saltBytes),
            UInt32(Self.hashBytes), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let bytes = Array(password.utf8)
        let status = bytes.withUnsafeBytes { pwd in
            salt.withUnsafeBytes { saltBuffer in
                argon2id_hash_encoded(
                    parameters.iterations, parameters.memoryKiB, parameters.parallelism, pwd.baseAddress, pwd.count,
                    saltBuffer.baseAddress, saltBuffer.count, Self.hashBytes, &encoded, length)
            }
        }
        guard status == ARGON2_OK.rawValue else { throw Failure.library(String(cString: argon2_error_message(status))) }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `encoded` was made from (libargon2 compares in constant time).
    /// A string that is not an Argon2id PHC hash verifies nothing.
    public static func verify(_ password: String, against encoded: String) -> Bool {
        guard encoded.hasPrefix("$argon2id$") else { return false }
        let bytes = Array(password.utf8)
        return bytes.withUnsafeBytes { pwd in
            argon2id_verify(encoded, pwd.baseAddress, pwd.count) == ARGON2_OK.rawValue
        }
    }

    /// Whether `encoded` was made with weaker parameters than these (then a sign-in stores a new hash).
    public func needsRehash(_ encoded: String) -> Bool {
        guard let stored = Self.parameters(of: encoded) else { return true }
        return stored.memoryKiB < parameters.memoryKiB || stored.iterations < parameters.iterations
            || stored.parallelism < parameters.parallelism
    }

    /// The `m`, `t` and `p` of a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`).
    public static func parameters(of encoded: String) -> Parameters? {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: true)
        guard fields.count == 5, fields[0] == "argon2id" else { return nil }
        var values: [Substring: UInt32] = [:]
        for pair in fields[2].split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = UInt32(parts[1]) else { return nil }
            values[parts[0]] = value
        }
        guard let m = values["m"], let t = values["t"], let p = values["p"] else { return nil }
        return Parameters(memoryKiB: m, iterations: t, parallelism: p)
    }
}
