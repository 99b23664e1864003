import Digest
import Foundation
import PaywallFormat
import Testing
import XizorDomain

@testable import XizorAPI

/// People (docs/teams.md): password hashing, the session's lifetime, lock-out and roles, on both
/// databases, with a clock the test moves. The live paths (cookies, CSRF, every role against every
/// route) are Tests/e2e/test_teams.py's.
struct TeamsTests {
    /// Cheap parameters: the tests prove the mechanism, not Argon2's cost.
    static let fast = PasswordHasher.Parameters(memoryKiB: 1_024, iterations: 1, parallelism: 1)

    static func limits(idle: Int = 60, max: Int = 600, threshold: Int = 3, lockout: Int = 30) -> XizorServices.Limits {
        var limits = XizorServices.Limits()
        limits.sessions.passwordHashing = fast
        limits.sessions.idleSeconds = idle
        limits.sessions.maxSeconds = max
        limits.sessions.lockoutThreshold = threshold
        limits.sessions.lockoutSeconds = lockout
        return limits
    }

    @Test func argon2idHashesCarryTheirParametersAndVerifyOnlyTheirPassword() throws {
        let hasher = PasswordHasher(parameters: Self.fast)
        let hash = try hasher.hash("correct horse battery")
        #expect(hash.hasPrefix("$argon2id$v=19$m=1024,t=1,p=1$"))
        #expect(PasswordHasher.verify("correct horse battery", against: hash))
        #expect(!PasswordHasher.verify("correct horse batterY", against: hash))
        #expect(!PasswordHasher.verify("correct horse battery", against: "$argon2i$" + hash.dropFirst(10)))
        #expect(!PasswordHasher.verify("x", against: "not a hash"))
        // Two hashes of one password differ (a fresh salt each).
        #expect(try hasher.hash("correct horse battery") != hash)
        #expect(PasswordHasher.parameters(of: hash) == Self.fast)
        #expect(PasswordHasher(parameters: .standard).needsRehash(hash))
        #expect(!hasher.needsRehash(hash))
    }

    @Test func rolesAreTheDocumentedScopeSets() {
        #expect(Role.viewer.scopes.sorted == [.read, .analytics])
        #expect(Role.editor.scopes.sorted == [.read, .drafts, .analytics])
        #expect(
            Role.admin.scopes.sorted == [.read, .drafts, .publish, .placements, .experiments, .analytics, .webhooks])
        #expect(Role.owner.scopes.sorted == APIScope.allCases.sorted())
        #expect(!Role.owner.scopes.isFullAccess, "an owner holds today's scopes, as a role, not a key's 'every scope'")
    }

    @Test func theSessionCookieIsFoundAmongOthers() {
        #expect(
            SessionAdmission.cookie("xs_t", maxAgeSeconds: 60)
                == "__Host-xizor_session=xs_t; Path=/; Max-Age=60; HttpOnly; Secure; SameSite=Lax")
        #expect(SessionService.isCSRFToken(SessionService.csrfToken(for: "xs_a"), of: "xs_a"))
        #expect(!SessionService.isCSRFToken(SessionService.csrfToken(for: "xs_a"), of: "xs_b"))
        #expect(!SessionService.isCSRFToken("", of: "xs_a"))
    }

    @Test(arguments: Driver.allCases)
    func sessionsEndWhenIdleAtTheirAbsoluteEndOrRevoked(driver: Driver) throws {
        let clock = TestClock(1_800_000_000_000)
        let test = try TestServices(
            "sessions", driver: driver, limits: Self.limits(idle: 60, max: 600), clock: clock.clock)
        defer { test.remove() }
        let services = test.services
        let user = try services.users.create(
            email: "Ada@Example.com", password: "correct horse battery", instanceAdmin: false)
        #expect(user.email == "ada@example.com")
        let body: JSONValue = ["email": "ada@example.COM", "password": "correct horse battery"]
        let first = try services.sessions.signIn(body, address: "127.0.0.1", userAgent: "t", presentedToken: nil)
        #expect(try services.sessions.verify(token: first.token).user.id == user.id)
        // Used every 50 s it lives past the idle limit, until its absolute end.
        for _ in 0..<11 {
            clock.advance(byMs: 50_000)
            #expect(try services.sessions.verify(token: first.token).session.id == first.verified.session.id)
        }
        clock.advance(byMs: 50_000)  // 600 s after sign-in
        #expect(throws: SessionService.invalidSession) { try services.sessions.verify(token: first.token) }
        // Unused past the idle limit.
        let second = try services.sessions.signIn(body, address: nil, userAgent: nil, presentedToken: nil)
        clock.advance(byMs: 59_000)
        _ = try services.sessions.verify(token: second.token)
        clock.advance(byMs: 60_001)
        #expect(throws: SessionService.invalidSession) { try services.sessions.verify(token: second.token) }
        // Revoked; and a sign-in presenting a live token ends it (fixation).
        let third = try services.sessions.signIn(body, address: nil, userAgent: nil, presentedToken: nil)
        let fourth = try services.sessions.signIn(body, address: nil, userAgent: nil, presentedToken: third.token)
        #expect(throws: SessionService.invalidSession) { try services.sessions.verify(token: third.token) }
        #expect(try services.sessions.sessions(userID: user.id).map(\.id) == [fourth.verified.session.id])
        // A person holds at most `maxLiveSessions`: one more sign-in ends the oldest.
        var opened = [fourth]
        for _ in 1..<SessionService.maxLiveSessions {
            clock.advance(byMs: 1)  // an order of sign-ins the oldest is found by
            opened.append(try services.sessions.signIn(body, address: nil, userAgent: nil, presentedToken: nil))
        }
        #expect(try services.sessions.sessions(userID: user.id).count == SessionService.maxLiveSessions)
        clock.advance(byMs: 1)
        let last = try services.sessions.signIn(body, address: nil, userAgent: nil, presentedToken: nil)
        #expect(try services.sessions.sessions(userID: user.id).count == SessionService.maxLiveSessions)
        #expect(throws: SessionService.invalidSession) { try services.sessions.verify(token: fourth.token) }
        _ = try services.sessions.verify(token: opened[1].token)
        try services.sessions.revokeAll(of: last.verified.actingUser)
        #expect(throws: SessionService.invalidSession) { try services.sessions.verify(token: last.token) }
    }

    @Test(arguments: Driver.allCases)
    func failedSignInsLockTheAccountUntilTheLockExpires(driver: Driver) throws {
        let clock = TestClock(1_800_000_000_000)
        let test = try TestServices(
            "lockout", driver: driver, limits: Self.limits(threshold: 3, lockout: 30), clock: clock.clock)
        defer { test.remove() }
        let services = test.services
        _ = try services.users.create(email: "bo@example.com", password: "correct horse battery", instanceAdmin: false)
        let wrong: JSONValue = ["email": "bo@example.com", "password": "wrong horse battery"]
        let right: JSONValue = ["email": "bo@example.com", "password": "correct horse battery"]
        for _ in 0..<3 {
            #expect(throws: ServiceError.self) {
                try services.sessions.signIn(wrong, address: nil, userAgent: nil, presentedToken: nil)
            }
        }
        do {
            _ = try services.sessions.signIn(right, address: nil, userAgent: nil, presentedToken: nil)
            Issue.record("a locked account signed in")
        } catch let error as ServiceError {
            #expect(error.code == "account_locked" && error.retryAfterSeconds == 30)
        }
        clock.advance(byMs: 30_001)
        _ = try services.sessions.signIn(right, address: nil, userAgent: nil, presentedToken: nil)
        // The count starts again after a success: two failures do not lock.
        for _ in 0..<2 {
            #expect(throws: ServiceError.self) {
                try services.sessions.signIn(wrong, address: nil, userAgent: nil, presentedToken: nil)
            }
        }
        _ = try services.sessions.signIn(right, address: nil, userAgent: nil, presentedToken: nil)
        // An unknown address answers exactly as a wrong password does.
        #expect(throws: SessionService.invalidCredentials) {
            try services.sessions.signIn(
                ["email": "nobody@example.com", "password": "x"], address: nil, userAgent: nil, presentedToken: nil)
        }
    }

    @Test(arguments: Driver.allCases)
    func membersKeepAnOwnerAndLoseTheirSessionsWhenTheirRoleChanges(driver: Driver) throws {
        let test = try TestServices("members", driver: driver, limits: Self.limits())
        defer { test.remove() }
        let services = test.services
        let app = try services.keys.createApp(name: "Team")
        let owner = try services.users.create(
            email: "own@example.com", password: "correct horse battery", instanceAdmin: false)
        let editor = try services.users.create(
            email: "ed@example.com", password: "correct horse battery", instanceAdmin: false)
        _ = try services.users.setRole(appID: app.appID, userID: owner.id, ["role": "owner"])
        _ = try services.users.setRole(appID: app.appID, userID: editor.id, ["role": "editor"])
        #expect(try services.sessions.scopes(of: editor, in: app.appID) == Role.editor.scopes)
        #expect(throws: ServiceError.self) { try services.sessions.scopes(of: editor, in: "app_nope") }
        let signedIn = try services.sessions.signIn(
            ["email": "ed@example.com", "password": "correct horse battery"], address: nil, userAgent: nil,
            presentedToken: nil)
        _ = try services.users.setRole(appID: app.appID, userID: editor.id, ["role": "viewer"], adding: false)
        #expect(throws: SessionService.invalidSession) { try services.sessions.verify(token: signedIn.token) }
        do {
            try services.users.removeMember(appID: app.appID, userID: owner.id)
            Issue.record("the last owner was removed")
        } catch let error as ServiceError { #expect(error.code == "last_owner") }
        #expect(throws: ServiceError.self) {
            try services.users.setRole(appID: app.appID, userID: "usr_stranger", ["role": "viewer"], adding: false)
        }
        try services.users.removeMember(appID: app.appID, userID: editor.id)
        #expect(try services.users.members(appID: app.appID).map(\.email) == ["own@example.com"])
    }
}
