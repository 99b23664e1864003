/// Why a store's signed object was refused. The raw values are the `reason` a refused notification's
/// answer, log line and metric carry (docs/revenue.md, "Refusals"), one per check of Apple's own
/// `SignedDataVerifier`, so an operator setting up App Store Connect can tell a wrong bundle id from a
/// forged request.
public enum SignatureFailure: String, Error, Sendable, CaseIterable {
    /// Not three base64url parts, or a part that is not JSON / base64.
    case malformed
    /// `alg` is not ES256 (Apple signs with ES256 only; anything else is not Apple's).
    case unsupportedAlgorithm = "unsupported_algorithm"
    /// `x5c` is not leaf, intermediate and root.
    case invalidChainLength = "invalid_chain_length"
    /// The chain does not lead to a trusted root, or was not valid when the payload says it was signed.
    case untrustedChain = "untrusted_chain"
    /// The leaf or the intermediate lacks the object identifier Apple marks its signing certificates with.
    case missingAppleOID = "missing_apple_oid"
    /// The ES256 signature does not verify with the leaf's key.
    case invalidSignature = "invalid_signature"
}
