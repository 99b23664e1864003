import Foundation

/// Why a call failed, typed so the app can decide (show nothing, retry, report a misconfiguration).
public enum XizorError: Error, Sendable, Equatable {
    /// The server answered with an error that retrying will not fix (a 4xx other than 429): an
    /// unknown placement, nothing published, a revoked key. Carries the problem's `code` and `detail`.
    case rejected(status: Int, code: String?, detail: String?)
    /// No answer from the network, nothing cached, and no usable bundled fallback for the placement.
    case unavailable(placement: String, underlying: String)
    /// The server's answer could not be understood (not the JSON the SDK endpoint answers).
    case invalidResponse(String)
}

extension XizorError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .rejected(let status, let code, let detail): "Xizor answered \(status) \(code ?? ""): \(detail ?? "")"
        case .unavailable(let placement, let underlying): "No paywall for '\(placement)': \(underlying)"
        case .invalidResponse(let why): "Unexpected answer from Xizor: \(why)"
        }
    }
}
