import Storage
import XizorDomain

struct SQLUserStore: UserStore {
    let db: any SQLConnection

    private static let userColumns =
        "id, email, instance_admin, created_at, disabled_at, password_hash, failed_signins, locked_until, totp_secret, totp_pending, totp_last_step"
    private static let sessionColumns =
        "id, user_id, created_at, last_seen_at, expires_at, revoked_at, address, user_agent"

    func insert(_ user: User, passwordHash: String?) throws {
        try db.run(
            """
            INSERT INTO users (id, email, password_hash, instance_admin, created_at, disabled_at, failed_signins)
            VALUES (\(user.id), \(user.email), \(passwordHash), \(Int64(user.instanceAdmin ? 1 : 0)), \(user.createdAt), \(user.disabledAt), 0)
            """)
    }

    func user(id: String) throws -> StoredUser? {
        try db.row("SELECT \(raw: Self.userColumns) FROM users WHERE id = \(id)").map(Self.storedUser)
    }

    func user(email: String) throws -> StoredUser? {
        try db.row("SELECT \(raw: Self.userColumns) FROM users WHERE email = \(email)").map(Self.storedUser)
    }

    func users(after: String?, limit: Int) throws -> [User] {
        try db.rows(
            "SELECT \(raw: Self.userColumns) FROM users WHERE id > \(after ?? "") ORDER BY id LIMIT \(Int64(limit))"
        ).map { try Self.storedUser($0).user }
    }

    func countUsers() throws -> Int {
        let count: Int64 = try db.row("SELECT count(*) FROM users")?.get(0) ?? 0
        return Int(count)
    }

    func update(_ user: User) throws {
        try db.run(
            "UPDATE users SET instance_admin = \(Int64(user.instanceAdmin ? 1 : 0)), disabled_at = \(user.disabledAt) WHERE id = \(user.id)"
        )
    }

    func setPasswordHash(userID: String, _ hash: String) throws {
        try db.run("UPDATE users SET password_hash = \(hash) WHERE id = \(userID)")
    }

    func recordFailedSignin(userID: String, lockedUntil: Int64?) throws {
        try db.run(
            "UPDATE users SET failed_signins = failed_signins + 1, locked_until = coalesce(\(lockedUntil), locked_until) WHERE id = \(userID)"
        )
    }

    func resetFailedSignins(userID: String) throws {
        try db.run("UPDATE users SET failed_signins = 0, locked_until = NULL WHERE id = \(userID)")
    }

    func setTOTPPending(userID: String, _ secret: String?) throws {
        try db.run("UPDATE users SET totp_pending = \(secret) WHERE id = \(userID)")
    }

    func enableTOTP(userID: String, secret: String, step: Int64) throws {
        try db.run(
            "UPDATE users SET totp_secret = \(secret), totp_pending = NULL, totp_last_step = \(step) WHERE id = \(userID)"
        )
    }

    func disableTOTP(userID: String) throws {
        try db.run(
            "UPDATE users SET totp_secret = NULL, totp_pending = NULL, totp_last_step = NULL WHERE id = \(userID)")
        try db.run("DELETE FROM recovery_codes WHERE user_id = \(userID)")
    }

    func useTOTPStep(userID: String, _ step: Int64) throws -> Bool {
        try db.run(
            """
            UPDATE users SET totp_last_step = \(step)
            WHERE id = \(userID) AND (totp_last_step IS NULL OR totp_last_step < \(step))
            """)
        return db.changes == 1
    }

    func replaceRecoveryCodes(userID: String, hashes: [String]) throws {
        try db.run("DELETE FROM recovery_codes WHERE user_id = \(userID)")
        for hash in hashes {
            try db.run("INSERT INTO recovery_codes (user_id, code_hash) VALUES (\(userID), \(hash))")
        }
    }

    func useRecoveryCode(userID: String, hash: String, at: Int64) throws -> Bool {
        try db.run(
            """
            UPDATE recovery_codes SET used_at = \(at)
            WHERE user_id = \(userID) AND code_hash = \(hash) AND used_at IS NULL
            """)
        return db.changes == 1
    }

    func memberships(userID: String) throws -> [Membership] {
        try db.rows(
            """
            SELECT m.app_id, a.name, m.user_id, u.email, m.role, m.created_at FROM memberships m
            JOIN apps a ON a.id = m.app_id JOIN users u ON u.id = m.user_id
            WHERE m.user_id = \(userID) AND a.archived_at IS NULL ORDER BY a.name, m.app_id
            """
        ).map(Self.membership)
    }

    func members(appID: String) throws -> [Membership] {
        try db.rows(
            """
            SELECT m.app_id, a.name, m.user_id, u.email, m.role, m.created_at FROM memberships m
            JOIN apps a ON a.id = m.app_id JOIN users u ON u.id = m.user_id
            WHERE m.app_id = \(appID) ORDER BY u.email
            """
        ).map(Self.membership)
    }

    func role(appID: String, userID: String) throws -> Role? {
        guard
            let name: String = try db.row(
                "SELECT role FROM memberships WHERE app_id = \(appID) AND user_id = \(userID)")?.get(0)
        else { return nil }
        guard let role = Role(rawValue: name) else {
            throw StoreInconsistency(detail: "a membership has role '\(name)'")
        }
        return role
    }

    func setRole(appID: String, userID: String, _ role: Role, now: Int64) throws {
        try db.run(
            """
            INSERT INTO memberships (app_id, user_id, role, created_at) VALUES (\(appID), \(userID), \(role.rawValue), \(now))
            ON CONFLICT (app_id, user_id) DO UPDATE SET role = excluded.role
            """)
    }

    func removeMember(appID: String, userID: String) throws -> Bool {
        try db.run("DELETE FROM memberships WHERE app_id = \(appID) AND user_id = \(userID)")
        return db.changes == 1
    }

    func countOwners(appID: String) throws -> Int {
        let count: Int64 =
            try db.row("SELECT count(*) FROM memberships WHERE app_id = \(appID) AND role = 'owner'")?.get(0) ?? 0
        return Int(count)
    }

    func liveAppName(id: String) throws -> String? {
        try db.row("SELECT name FROM apps WHERE id = \(id) AND archived_at IS NULL")?.get(0)
    }

    func insert(_ session: SessionRecord, tokenHash: String) throws {
        try db.run(
            """
            INSERT INTO sessions (id, token_hash, user_id, created_at, last_seen_at, expires_at, revoked_at, address, user_agent)
            VALUES (\(session.id), \(tokenHash), \(session.userID), \(session.createdAt), \(session.lastSeenAt), \(session.expiresAt),
                    \(session.revokedAt), \(session.address), \(session.userAgent))
            """)
    }

    func session(tokenHash: String) throws -> SessionRecord? {
        try db.row("SELECT \(raw: Self.sessionColumns) FROM sessions WHERE token_hash = \(tokenHash)").map(Self.session)
    }

    func sessions(userID: String, now: Int64) throws -> [SessionRecord] {
        try db.rows(
            """
            SELECT \(raw: Self.sessionColumns) FROM sessions
            WHERE user_id = \(userID) AND revoked_at IS NULL AND expires_at > \(now) ORDER BY created_at DESC, id
            """
        ).map(Self.session)
    }

    func touchSession(id: String, at: Int64) throws {
        try db.run("UPDATE sessions SET last_seen_at = greatest(last_seen_at, \(at)) WHERE id = \(id)")
    }

    func revokeSession(id: String, userID: String, at: Int64) throws -> Bool {
        try db.run(
            "UPDATE sessions SET revoked_at = \(at) WHERE id = \(id) AND user_id = \(userID) AND revoked_at IS NULL")
        return db.changes == 1
    }

    func pruneSessions(userID: String, now: Int64, keepingLive count: Int) throws {
        try db.run(
            "DELETE FROM sessions WHERE user_id = \(userID) AND (revoked_at IS NOT NULL OR expires_at <= \(now))")
        try db.run(
            """
            UPDATE sessions SET revoked_at = \(now)
            WHERE user_id = \(userID) AND revoked_at IS NULL AND id NOT IN (
                SELECT id FROM sessions WHERE user_id = \(userID) AND revoked_at IS NULL
                ORDER BY created_at DESC, id LIMIT \(Int64(count)))
            """)
    }

    func revokeSessions(userID: String, at: Int64) throws -> Int {
        try db.run("UPDATE sessions SET revoked_at = \(at) WHERE user_id = \(userID) AND revoked_at IS NULL")
        return db.changes
    }

    private static func storedUser(_ row: Row) throws -> StoredUser {
        let admin: Int64 = try row.get(2)
        let failed: Int64 = try row.get(6)
        let secret: String? = try row.get(8)
        return StoredUser(
            user: User(
                id: try row.get(0), email: try row.get(1), instanceAdmin: admin == 1, createdAt: try row.get(3),
                disabledAt: try row.get(4), totpEnabled: secret != nil),
            passwordHash: try row.get(5), failedSignins: Int(failed), lockedUntil: try row.get(7), totpSecret: secret,
            totpPending: try row.get(9), totpLastStep: try row.get(10))
    }

    private static func membership(_ row: Row) throws -> Membership {
        let name: String = try row.get(4)
        guard let role = Role(rawValue: name) else {
            throw StoreInconsistency(detail: "a membership has role '\(name)'")
        }
        return Membership(
            appID: try row.get(0), appName: try row.get(1), userID: try row.get(2), email: try row.get(3), role: role,
            createdAt: try row.get(5))
    }

    private static func session(_ row: Row) throws -> SessionRecord {
        SessionRecord(
            id: try row.get(0), userID: try row.get(1), createdAt: try row.get(2), lastSeenAt: try row.get(3),
            expiresAt: try row.get(4), revokedAt: try row.get(5), address: try row.get(6), userAgent: try row.get(7))
    }

    // MARK: invitations

    private static let invitationColumns =
        "id, app_id, email, role, created_at, expires_at, accepted_at, accepted_by, revoked_at"

    func insert(_ invitation: Invitation, tokenHash: String) throws {
        try db.run(
            """
            INSERT INTO invitations (id, token_hash, app_id, email, role, created_at, expires_at)
            VALUES (\(invitation.id), \(tokenHash), \(invitation.appID), \(invitation.email), \(invitation.role.rawValue),
                    \(invitation.createdAt), \(invitation.expiresAt))
            """)
    }

    func pruneInvitations(appID: String, now: Int64, keeping count: Int) throws {
        try db.run(
            """
            DELETE FROM invitations
            WHERE app_id = \(appID) AND (accepted_at IS NOT NULL OR revoked_at IS NOT NULL OR expires_at <= \(now))
              AND id NOT IN (
                SELECT id FROM invitations WHERE app_id = \(appID) ORDER BY created_at DESC, id LIMIT \(Int64(count)))
            """)
    }

    func invitation(tokenHash: String) throws -> Invitation? {
        try db.row("SELECT \(raw: Self.invitationColumns) FROM invitations WHERE token_hash = \(tokenHash)")
            .map(Self.invitation)
    }

    func invitations(appID: String, limit: Int) throws -> [Invitation] {
        try db.rows(
            """
            SELECT \(raw: Self.invitationColumns) FROM invitations WHERE app_id = \(appID)
            ORDER BY created_at DESC, id LIMIT \(Int64(limit))
            """
        ).map(Self.invitation)
    }

    func pendingInvitationCount(appID: String, now: Int64) throws -> Int {
        let count: Int64 =
            try db.row(
                """
                SELECT count(*) FROM invitations
                WHERE app_id = \(appID) AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > \(now)
                """
            )?.get(0) ?? 0
        return Int(count)
    }

    func accept(invitationID: String, by userID: String, at: Int64) throws -> Bool {
        try db.run(
            """
            UPDATE invitations SET accepted_at = \(at), accepted_by = \(userID)
            WHERE id = \(invitationID) AND accepted_at IS NULL AND revoked_at IS NULL
            """)
        return db.changes == 1
    }

    func revoke(invitationID: String, appID: String, at: Int64) throws -> Bool {
        try db.run(
            """
            UPDATE invitations SET revoked_at = \(at)
            WHERE id = \(invitationID) AND app_id = \(appID) AND accepted_at IS NULL AND revoked_at IS NULL
              AND expires_at > \(at)
            """)
        return db.changes == 1
    }

    private static func invitation(_ row: Row) throws -> Invitation {
        let name: String = try row.get(3)
        guard let role = Role(rawValue: name) else {
            throw StoreInconsistency(detail: "an invitation has role '\(name)'")
        }
        return Invitation(
            id: try row.get(0), appID: try row.get(1), email: try row.get(2), role: role, createdAt: try row.get(4),
            expiresAt: try row.get(5), acceptedAt: try row.get(6), acceptedBy: try row.get(7), revokedAt: try row.get(8)
        )
    }

    // MARK: single sign-on

    func insertSSOLogin(stateHash: String, _ login: PendingSSOLogin, prunedBefore: Int64) throws {
        try db.run("DELETE FROM sso_logins WHERE created_at < \(prunedBefore)")
        try db.run(
            """
            INSERT INTO sso_logins (state_hash, browser_hash, nonce, code_verifier, created_at)
            VALUES (\(stateHash), \(login.browserHash), \(login.nonce), \(login.codeVerifier), \(login.createdAt))
            """)
    }

    func takeSSOLogin(stateHash: String, at: Int64) throws -> PendingSSOLogin? {
        try db.run("UPDATE sso_logins SET used_at = \(at) WHERE state_hash = \(stateHash) AND used_at IS NULL")
        guard db.changes == 1 else { return nil }
        return try db.row(
            "SELECT browser_hash, nonce, code_verifier, created_at FROM sso_logins WHERE state_hash = \(stateHash)"
        ).map { row in
            PendingSSOLogin(
                browserHash: try row.get(0), nonce: try row.get(1), codeVerifier: try row.get(2),
                createdAt: try row.get(3))
        }
    }
}
