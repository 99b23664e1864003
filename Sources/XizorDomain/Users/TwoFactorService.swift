import Digest
import PaywallFormat

/// The second factor (docs/teams.md, "Second factor"): time-based one-time codes (RFC 6238) from an
/// authenticator app, and ten one-time recovery codes for when the phone is gone. Enrolment is two
/// steps — a pending secret shown as a QR code, then a code from it — so a typo never locks anyone out.
public final class TwoFactorService: Sendable {
    public struct Enrolment: Sendable {
        /// Base32, for typing into an app by hand.
        public let secret: String
        /// `otpauth://totp/…`, what the QR code holds.
        public let uri: String
        public let qrSVG: String
    }

    /// Recovery codes made at confirmation: ten, each 12 base32 characters (60 bits), shown once.
    static let recoveryCodeCount = 10

    let store: any DataStore
    let clock: Clock
    let sessions: SessionService

    init(store: any DataStore, clock: Clock, sessions: SessionService) {
        self.store = store
        self.clock = clock
        self.sessions = sessions
    }

    /// A new pending secret for the signed-in user (replacing an unconfirmed one).
    public func begin(_ session: SessionService.Verified) throws -> Enrolment {
        var generator = SystemRandomNumberGenerator()
        let secret = TOTP.base32((0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try store.write { tx in
            guard let stored = try tx.users.user(id: session.user.id) else { throw SessionService.invalidSession }
            guard stored.totpSecret == nil else {
                throw ServiceError(
                    .conflict, "totp_enabled", "A second factor is set up already: turn it off first to enrol another.")
            }
            try tx.users.setTOTPPending(userID: session.user.id, secret)
        }
        let uri =
            "otpauth://totp/Xizor:\(PercentEncoding.encode(session.user.email, keeping: [UInt8(ascii: "@")]))?secret=\(secret)&issuer=Xizor&algorithm=SHA1&digits=\(TOTP.digits)&period=\(TOTP.periodSeconds)"
        let svg: String
        do { svg = try QRCode.svg(uri) } catch {
            throw ServiceError(.internalError, "qr_code_failed", "The enrolment's QR code could not be drawn.")
        }
        return Enrolment(secret: secret, uri: uri, qrSVG: svg)
    }

    /// `{code}` from the pending secret → the second factor is on; answers the recovery codes (this
    /// once) and a new session. Every other session of the user ends: they were opened without it.
    public func confirm(
        _ session: SessionService.Verified, _ body: JSONValue, token: String, address: String?, userAgent: String?
    ) throws -> (signedIn: SessionService.SignedIn, recoveryCodes: [String]) {
        guard let code = body["code"]?.stringValue else {
            throw ServiceError.badField("$.code", "required", "'code' is the 6 digits the authenticator app shows.")
        }
        let now = clock.now()
        let codes = (0..<Self.recoveryCodeCount).map { _ in Self.newRecoveryCode() }
        return try store.write { tx in
            guard let stored = try tx.users.user(id: session.user.id) else { throw SessionService.invalidSession }
            guard let pending = stored.totpPending, let secret = TOTP.bytes(base32: pending) else {
                throw ServiceError(
                    .conflict, "totp_not_pending", "Start with POST /v1/me/totp: there is nothing to confirm.")
            }
            guard let step = TOTP.matchingStep(secret: secret, candidate: code, atMs: now) else {
                throw ServiceError.badField(
                    "$.code", "invalid_totp", "That code does not match: check the app's clock.")
            }
            try tx.users.enableTOTP(userID: stored.user.id, secret: pending, step: step)
            try tx.users.replaceRecoveryCodes(userID: stored.user.id, hashes: codes.map(Self.hash))
            _ = try tx.users.revokeSessions(userID: stored.user.id, at: now)
            try tx.record(
                WriteRecord(appID: nil, action: .userTOTPEnabled, targetKind: "user", targetID: stored.user.id),
                now: now)
            var user = stored.user
            user.totpEnabled = true
            let opened = try sessions.open(
                for: user, address: address, userAgent: userAgent, presentedToken: token, now: now, in: tx)
            return (opened, codes)
        }
    }

    /// `{code}` or `{recoveryCode}` → the second factor is off (its recovery codes gone).
    public func disable(_ session: SessionService.Verified, _ body: JSONValue) throws {
        let now = clock.now()
        guard let stored = try store.read({ tx in try tx.users.user(id: session.user.id) }) else {
            throw SessionService.invalidSession
        }
        guard stored.totpSecret != nil else {
            throw ServiceError(.conflict, "totp_not_enabled", "There is no second factor to turn off.")
        }
        try sessions.checkSecondFactor(body, of: stored)
        try store.write { tx in
            try tx.users.disableTOTP(userID: stored.user.id)
            try tx.record(
                WriteRecord(appID: nil, action: .userTOTPDisabled, targetKind: "user", targetID: stored.user.id),
                now: now)
        }
    }

    /// `xxxx-xxxx-xxxx` in lowercase base32: 60 bits, easy to read off paper.
    static func newRecoveryCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let text = TOTP.base32((0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }).lowercased()
        let chars = Array(text.prefix(12))
        return String(chars[0..<4]) + "-" + String(chars[4..<8]) + "-" + String(chars[8..<12])
    }

    /// A recovery code as stored: dashes, spaces and case do not matter.
    static func hash(_ code: String) -> String {
        SHA256.hexDigest(of: String(code.lowercased().filter { $0 != "-" && $0 != " " }))
    }
}
