import Digest
import Foundation
import PaywallFormat
import Testing
import XizorDomain

@testable import XizorAPI

/// The second factor (docs/teams.md, "Second factor"): RFC 6238's own test vectors, base32, the
/// QR code, and enrolment and sign-in on both databases with a clock the test moves.
struct TwoFactorTests {
    /// RFC 6238 appendix B, SHA-1, truncated to the 6 digits authenticator apps show.
    @Test func codesAreRFC6238s() {
        let secret = Array("12345678901234567890".utf8)
        let vectors: [(Int64, String)] = [
            (59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
            (2_000_000_000, "279037"), (20_000_000_000, "353130"),
        ]
        for (seconds, code) in vectors {
            #expect(TOTP.code(secret: secret, step: TOTP.step(atMs: seconds * 1000)) == code, "T = \(seconds)")
        }
        let now: Int64 = 1_111_111_111_000
        #expect(TOTP.matchingStep(secret: secret, candidate: "050471", atMs: now) == TOTP.step(atMs: now))
        // A step off on either side is accepted; two are not.
        #expect(TOTP.matchingStep(secret: secret, candidate: "050471", atMs: now + 30_000) != nil)
        #expect(TOTP.matchingStep(secret: secret, candidate: "050471", atMs: now + 60_000) == nil)
        #expect(TOTP.matchingStep(secret: secret, candidate: "05047", atMs: now) == nil)
    }

    @Test func base32RoundTripsAndRefusesOtherCharacters() {
        // RFC 4648 §10 (without padding).
        #expect(TOTP.base32(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(TOTP.bytes(base32: "MZXW6YTBOI") == Array("foobar".utf8))
        #expect(TOTP.bytes(base32: "mzxw6ytboi") == Array("foobar".utf8))
        #expect(TOTP.bytes(base32: "MZXW6YTB0I") == nil, "0 is not base32")
        let secret: [UInt8] = (0..<20).map { UInt8($0 * 13 % 256) }
        #expect(TOTP.bytes(base32: TOTP.base32(secret)) == secret)
        #expect(TOTP.base32(secret).count == 32)
    }

    @Test func theQRCodeIsAnSVG() throws {
        let svg = try QRCode.svg("otpauth://totp/Xizor:a@example.com?secret=MZXW6YTBOI&issuer=Xizor")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.contains("<path fill=\"#000\" d=\"M"))
        #expect(throws: QRCode.Failure.tooLong) { try QRCode.svg(String(repeating: "x", count: 8_000)) }
    }

    @Test(arguments: Driver.allCases)
    func aSecondFactorIsAskedForWorksOnceAndRecoveryCodesWorkOnce(driver: Driver) throws {
        let clock = TestClock(1_800_000_000_000)
        let test = try TestServices(
            "totp", driver: driver, limits: TeamsTests.limits(threshold: 50), clock: clock.clock)
        defer { test.remove() }
        let services = test.services
        _ = try services.users.create(email: "ana@example.com", password: "correct horse battery", instanceAdmin: false)
        let password: JSONValue = ["email": "ana@example.com", "password": "correct horse battery"]
        let first = try services.sessions.signIn(password, address: nil, userAgent: nil, presentedToken: nil)
        let enrolment = try services.twoFactor.begin(first.verified)
        #expect(enrolment.uri.hasPrefix("otpauth://totp/Xizor:ana@example.com?secret=\(enrolment.secret)&issuer=Xizor"))
        let secret = try #require(TOTP.bytes(base32: enrolment.secret))
        func code(_ offsetMs: Int64 = 0) -> String {
            TOTP.code(secret: secret, step: TOTP.step(atMs: clock.now + offsetMs))
        }
        // Nothing changes before it is confirmed; a wrong code does not confirm it.
        _ = try services.sessions.signIn(password, address: nil, userAgent: nil, presentedToken: nil)
        #expect(throws: ServiceError.self) {
            try services.twoFactor.confirm(
                first.verified, ["code": "000000"], token: first.token, address: nil, userAgent: nil)
        }
        let (confirmed, recovery) = try services.twoFactor.confirm(
            first.verified, ["code": .string(code())], token: first.token, address: nil, userAgent: nil)
        #expect(recovery.count == 10 && Set(recovery).count == 10)
        #expect(confirmed.verified.user.totpEnabled)
        // Every earlier session ended: they were opened without the second factor.
        #expect(throws: SessionService.invalidSession) { try services.sessions.verify(token: first.token) }
        _ = try services.sessions.verify(token: confirmed.token)

        func signIn(_ extra: [String: JSONValue]) throws -> SessionService.SignedIn {
            guard case .object(var body) = password else { preconditionFailure() }
            body.merge(extra) { _, new in new }
            return try services.sessions.signIn(.object(body), address: nil, userAgent: nil, presentedToken: nil)
        }
        func refusal(_ extra: [String: JSONValue]) -> String? {
            do { _ = try signIn(extra) } catch let error as ServiceError { return error.code } catch {
                return "\(error)"
            }
            return nil
        }
        #expect(refusal([:]) == "totp_required")
        #expect(refusal(["code": "123456"]) == "invalid_totp" || code() == "123456")
        // The confirming code's step is used: the same code is refused; the next step's is taken once.
        #expect(refusal(["code": .string(code())]) == "totp_code_used")
        clock.advance(byMs: 30_000)
        _ = try signIn(["code": .string(code())])
        #expect(refusal(["code": .string(code())]) == "totp_code_used")
        // A recovery code (any case, dashes or not) works once.
        let spaced = recovery[0].uppercased().replacingOccurrences(of: "-", with: " ")
        _ = try signIn(["recoveryCode": .string(spaced)])
        #expect(refusal(["recoveryCode": .string(recovery[0])]) == "invalid_recovery_code")
        // Turning it off needs a code; then the password alone signs in again.
        #expect(throws: ServiceError.self) { try services.twoFactor.disable(confirmed.verified, ["code": "999999"]) }
        try services.twoFactor.disable(confirmed.verified, ["recoveryCode": .string(recovery[1])])
        _ = try signIn([:])
    }
}
