import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#elseif canImport(CXizorKitCrypto)
    import CXizorKitCrypto
#endif

/// SHA-256 and Ed25519 verification from the platform's vetted implementations, never written here:
/// CryptoKit on Apple platforms, libcrypto (`CXizorKitCrypto`) on Linux, where CryptoKit does not exist.
/// A build with neither (another platform, or the library compiled without the Linux system library)
/// answers nil: experiment buckets and signatures then cannot be checked, and the callers say so
/// rather than guess.
enum Crypto {
    /// The SHA-256 digest of `bytes`, or nil without an implementation.
    static func sha256(_ bytes: [UInt8]) -> [UInt8]? {
        #if canImport(CryptoKit)
            if #available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *) {
                return Array(SHA256.hash(data: bytes))
            }
            return nil
        #elseif canImport(CXizorKitCrypto)
            var digest = [UInt8](repeating: 0, count: 64)  // EVP_MAX_MD_SIZE
            var length: UInt32 = 0
            let status = bytes.withUnsafeBufferPointer { input in
                digest.withUnsafeMutableBufferPointer { output in
                    EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
                }
            }
            guard status == 1, length == 32 else { return nil }
            return Array(digest.prefix(32))
        #else
            return nil
        #endif
    }

    /// Whether `signature` is `publicKey`'s Ed25519 signature (RFC 8032, pure: the message is signed
    /// whole) of `message`; nil without an implementation. A key or signature of the wrong length is
    /// not a signature: false.
    static func isValidEd25519(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool? {
        guard publicKey.count == 32, signature.count == 64 else { return false }
        #if canImport(CryptoKit)
            if #available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *) {
                guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
                return key.isValidSignature(signature, for: message)
            }
            return nil
        #elseif canImport(CXizorKitCrypto)
            let key = publicKey.withUnsafeBufferPointer { raw in
                EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, raw.baseAddress, raw.count)
            }
            guard let key else { return false }
            defer { EVP_PKEY_free(key) }
            guard let context = EVP_MD_CTX_new() else { return nil }
            defer { EVP_MD_CTX_free(context) }
            // Ed25519 takes no digest of its own: the message is verified whole, in one call.
            guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return nil }
            let status = signature.withUnsafeBufferPointer { signature in
                message.withUnsafeBufferPointer { message in
                    EVP_DigestVerify(
                        context, signature.baseAddress, signature.count, message.baseAddress, message.count)
                }
            }
            return status == 1
        #else
            return nil
        #endif
    }

    /// Lowercase hexadecimal, as the server writes digests and key ids.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
