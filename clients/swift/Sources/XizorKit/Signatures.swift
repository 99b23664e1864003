import Foundation

/// Whether XizorKit checks the server's Ed25519 signature (`X-Xizor-Signature`) on paywall answers,
/// and what a missing or wrong one does. A paywall can travel through CDNs, corporate proxies and
/// debugging tools; the signature tells an answer the server made from one somebody changed (a
/// product id, a price text). Keys are the standard base64 of the raw 32-byte Ed25519 public keys
/// `GET /v1/sdk/signing-keys` publishes: pin `current` and `next`, so the server's next rotation
/// needs no app update.
public enum SignatureVerification: Sendable, Equatable {
    /// Nothing is checked; every paywall's `verification` is `.notRequested`.
    case disabled
    /// Checked and reported (`Paywall.verification`), never refused: to watch for tampering, or to
    /// try the keys out, before enforcing.
    case informational(publicKeys: [String])
    /// An answer without a valid signature by one of these keys is unusable, as an answer that is not
    /// the SDK's JSON is: the presentation falls back to the disk cache, then the bundled fallback,
    /// and it is never stored.
    case enforced(publicKeys: [String])
}

extension Paywall {
    /// What the signature check said about this answer.
    public enum Verification: Sendable, Equatable {
        /// Signed by a pinned key, for this app's key and placement, over exactly this body.
        case verified
        /// Not signed, or not by a pinned key, or not over this answer (under `.informational`;
        /// `.enforced` never delivers such an answer).
        case failed(reason: String)
        /// Verification is `.disabled`, or the paywall is the bundled fallback, which ships inside
        /// the app and so needs no signature.
        case notRequested
    }
}

/// Checks `X-Xizor-Signature` (docs/client-swift.md, "Signed answers"): the message is rebuilt from
/// what this client asked and received — the app's public key, the requested placement, the status,
/// the SHA-256 of the body — so a signature the server made for another app, placement or body
/// cannot verify, without parsing any of those from the answer.
struct AnswerVerifier: Sendable {
    enum Mode: Sendable {
        case disabled
        case informational
        case enforced
    }

    static let messageTag = "xizor-sdk-signature-v1"
    static let header = "X-Xizor-Signature"

    let mode: Mode
    /// The app's public key (`pk_…`), the message's second line.
    let publicKey: String
    /// The pinned keys by their id: lowercase hex of the first 8 bytes of SHA-256 of the raw key.
    let keys: [String: [UInt8]]

    init(configuration: XizorConfiguration) {
        publicKey = configuration.publicKey
        let pinned: [String]
        switch configuration.verification {
        case .disabled:
            mode = .disabled
            pinned = []
        case .informational(let publicKeys):
            mode = .informational
            pinned = publicKeys
        case .enforced(let publicKeys):
            mode = .enforced
            pinned = publicKeys
            precondition(!publicKeys.isEmpty, "enforced verification needs at least one pinned key")
        }
        var keys: [String: [UInt8]] = [:]
        for text in pinned {
            guard let raw = Data(base64Encoded: text.trimmingCharacters(in: .whitespaces)), raw.count == 32 else {
                preconditionFailure("a pinned key is the standard base64 of a raw 32-byte Ed25519 key: '\(text)'")
            }
            // Without SHA-256 there are no ids: every answer then fails with the reason below.
            guard let digest = Crypto.sha256(Array(raw)) else { continue }
            keys[Crypto.hex(digest.prefix(8))] = Array(raw)
        }
        self.keys = keys
    }

    /// The verdict on one answer: `signature` is the header's value, `status` 200 or 204 (a 304
    /// confirms a 200: its status and the cached body), `body` the identity body (URLSession has
    /// already undone any `Content-Encoding`).
    func check(signature: String?, placement: String, status: Int, body: Data) -> Paywall.Verification {
        guard mode != .disabled else { return .notRequested }
        guard let signature, !signature.isEmpty else { return .failed(reason: "the answer is not signed") }
        var fields: [String: Substring] = [:]
        for part in signature.split(separator: ";") {
            guard let equals = part.firstIndex(of: "=") else { continue }
            let name = part[..<equals].trimmingCharacters(in: .whitespaces)
            fields[name] = part[part.index(after: equals)...]
        }
        guard let kid = fields["kid"].map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }),
            let time = fields["t"].map({ $0.trimmingCharacters(in: .whitespaces) }),
            !time.isEmpty, time.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let encoded = fields["sig"].map({ $0.trimmingCharacters(in: .whitespaces) })
        else { return .failed(reason: "the signature header lacks kid, t or sig: '\(signature)'") }
        guard let key = keys[kid] else {
            if keys.isEmpty && Crypto.sha256([]) == nil {
                return .failed(reason: "this build has no SHA-256 or Ed25519 implementation")
            }
            return .failed(reason: "signed by key \(kid), which is not pinned")
        }
        guard let sig = Self.base64URLDecode(encoded), sig.count == 64 else {
            return .failed(reason: "the signature is not 64 bytes of base64url")
        }
        guard let bodyDigest = Crypto.sha256(Array(status == 204 ? Data() : body)) else {
            return .failed(reason: "this build has no SHA-256 implementation")
        }
        let message = [
            Self.messageTag, publicKey, placement, String(status), Crypto.hex(bodyDigest), time, "",
        ]
        .joined(separator: "\n")
        switch Crypto.isValidEd25519(signature: sig, message: Array(message.utf8), publicKey: key) {
        case true?: return .verified
        case false?: return .failed(reason: "the signature does not match this answer (kid \(kid))")
        case nil: return .failed(reason: "this build has no Ed25519 implementation")
        }
    }

    /// Under `.enforced`, an answer that did not verify is not an answer: thrown as an invalid one,
    /// so the caller falls back exactly as for a body that does not parse.
    func enforce(_ verification: Paywall.Verification) throws {
        guard mode == .enforced, case .failed(let reason) = verification else { return }
        throw XizorError.invalidResponse("signature: \(reason)")
    }

    /// Base64url without padding (RFC 4648 §5), strictly: the standard alphabet's `+`, `/` and `=`
    /// are refused rather than accepted as equivalents.
    static func base64URLDecode(_ text: String) -> [UInt8]? {
        guard !text.contains(where: { $0 == "+" || $0 == "/" || $0 == "=" }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map(Array.init)
    }
}

extension Paywall.Verification {
    var isFailure: Bool { if case .failed = self { return true } else { return false } }

    /// One verdict for a presentation decided by two answers (an allocation, then its variant's
    /// paywall): verified only when both are, and a failure names the answer that failed.
    func combined(withAllocation allocation: Paywall.Verification) -> Paywall.Verification {
        switch (allocation, self) {
        case (.failed(let reason), _): .failed(reason: "the allocation: \(reason)")
        case (_, .failed): self
        case (.verified, .verified): .verified
        default: .notRequested
        }
    }
}
