import CCrypto

/// Ed25519 signing keys through libcrypto's EVP interface (RFC 8032, "pure" Ed25519: the message is
/// signed whole, no pre-hash). Used to sign the SDK's answers so a client can tell them from a copy a
/// cache, a proxy or an attacker changed. Not written here: signatures are not our product, and
/// libcrypto's are constant-time and vetted.
public struct Ed25519PrivateKey: Sendable {
    /// The 32-byte seed (RFC 8032's private key); what is stored.
    public let seed: [UInt8]
    /// The 32-byte public key derived from it.
    public let publicKey: [UInt8]

    public enum Failure: Error, Sendable, Equatable {
        /// A seed or public key is not 32 bytes, or libcrypto refused it.
        case invalidKey
        case signingFailed
    }

    /// A new key from the system's random source.
    public static func generate() -> Ed25519PrivateKey {
        var seed = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in seed.indices { seed[index] = UInt8.random(in: .min ... .max, using: &generator) }
        // A 32-byte seed is always a valid Ed25519 private key.
        guard let key = try? Ed25519PrivateKey(seed: seed) else {
            preconditionFailure("libcrypto refused a fresh seed")
        }
        return key
    }

    public init(seed: [UInt8]) throws {
        guard seed.count == 32 else { throw Failure.invalidKey }
        let key = try Self.privateKey(seed)
        defer { EVP_PKEY_free(key) }
        var publicKey = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1, length == 32 else {
            throw Failure.invalidKey
        }
        self.seed = seed
        self.publicKey = publicKey
    }

    /// A PEM `PRIVATE KEY` (PKCS #8) of type Ed25519, as `openssl genpkey -algorithm ed25519` writes it.
    public init(pem: [UInt8]) throws {
        guard let bio = pem.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else {
            throw Failure.invalidKey
        }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { throw Failure.invalidKey }
        defer { EVP_PKEY_free(key) }
        var seed = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_get_id(key) == EVP_PKEY_ED25519, EVP_PKEY_get_raw_private_key(key, &seed, &length) == 1,
            length == 32
        else { throw Failure.invalidKey }
        try self.init(seed: seed)
    }

    /// The 64-byte signature of `message`.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        let key = try Self.privateKey(seed)
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { throw Failure.signingFailed }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1,
            EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64
        else { throw Failure.signingFailed }
        return signature
    }

    private static func privateKey(_ seed: [UInt8]) throws -> OpaquePointer {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count) else {
            throw Failure.invalidKey
        }
        return key
    }
}

/// Verifies Ed25519 signatures (the tests, and anyone checking what the server signed).
public enum Ed25519 {
    /// Whether `signature` is `publicKey`'s signature of `message`; false for malformed input.
    public static func isValid(signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard publicKey.count == 32, signature.count == 64,
            let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, publicKey.count)
        else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        return EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
