import PaywallFormat

/// People and their roles (docs/teams.md): accounts made by an instance admin or the CLI, roles
/// given per app by its owners. Every change that lowers what a person may do ends their sessions
/// at once: a removed or re-roled member, a disabled user, a lost instance-admin flag.
public final class UserService: Sendable {
    let store: any DataStore
    let clock: Clock
    let hasher: PasswordGate

    init(store: any DataStore, clock: Clock, hasher: PasswordGate) {
        self.store = store
        self.clock = clock
        self.hasher = hasher
    }

    /// Passwords shorter than this are refused (NIST SP 800-63B allows 8; the issue asks 12).
    public static let minimumPasswordLength = 12
    /// Longer ones are refused too: hashing cost must not be the caller's to choose.
    public static let maximumPasswordLength = 256

    /// `{email, password, instanceAdmin?}`: a new account.
    public func create(_ body: JSONValue) throws -> User {
        let email = try Self.email(body["email"], path: "$.email")
        let password = try Self.password(body["password"], path: "$.password")
        var admin = false
        if let value = body["instanceAdmin"], !value.isNull {
            guard let flag = value.boolValue else {
                throw ServiceError.badField("$.instanceAdmin", "type_mismatch", "'instanceAdmin' is true or false.")
            }
            admin = flag
        }
        return try create(email: email, password: password, instanceAdmin: admin)
    }

    /// An account from already checked values (the CLI, the demo).
    public func create(email: String, password: String, instanceAdmin: Bool) throws -> User {
        let email = try Self.email(.string(email), path: "$.email")
        try Self.checkPassword(password, path: "$.password")
        let hash = try hasher.hash(password)
        let user = User(
            id: "usr_" + Identifiers.random(16), email: email, instanceAdmin: instanceAdmin, createdAt: clock.now(),
            disabledAt: nil)
        return try store.write { tx in
            guard try tx.users.user(email: email) == nil else {
                throw ServiceError(.conflict, "email_taken", "There is already an account for '\(email)'.")
            }
            try tx.users.insert(user, passwordHash: hash)
            try tx.record(
                WriteRecord(appID: nil, action: .userCreated, targetKind: "user", targetID: user.id),
                now: user.createdAt)
            return user
        }
    }

    /// An account without a password: a person single sign-on vouches for (`SingleSignOn`).
    func createWithoutPassword(email: String) throws -> User {
        let email = try Self.email(.string(email), path: "$.email")
        let user = User(
            id: "usr_" + Identifiers.random(16), email: email, instanceAdmin: false, createdAt: clock.now(),
            disabledAt: nil)
        return try store.write { tx in
            if let existing = try tx.users.user(email: email) { return existing.user }
            try tx.users.insert(user, passwordHash: nil)
            try tx.record(
                WriteRecord(appID: nil, action: .userCreated, targetKind: "user", targetID: user.id),
                now: user.createdAt)
            return user
        }
    }

    public func find(email: String) throws -> User? {
        try store.read { tx in try tx.users.user(email: email.lowercased())?.user }
    }

    public func list(after: String?, limit: Int) throws -> [User] {
        try store.read { tx in try tx.users.users(after: after, limit: limit) }
    }

    /// `{disabled?, instanceAdmin?}`. Disabling, or taking the admin flag away, ends every session.
    public func update(id: String, _ body: JSONValue) throws -> User {
        let now = clock.now()
        return try store.write { tx in
            guard var user = try tx.users.user(id: id)?.user else {
                throw ServiceError(.notFound, "user_not_found", "No user '\(id)' on this instance.")
            }
            var lowered = false
            if let value = body["disabled"], !value.isNull {
                guard let disabled = value.boolValue else {
                    throw ServiceError.badField("$.disabled", "type_mismatch", "'disabled' is true or false.")
                }
                if disabled, user.disabledAt == nil {
                    user.disabledAt = now
                    lowered = true
                } else if !disabled {
                    user.disabledAt = nil
                }
            }
            if let value = body["instanceAdmin"], !value.isNull {
                guard let admin = value.boolValue else {
                    throw ServiceError.badField("$.instanceAdmin", "type_mismatch", "'instanceAdmin' is true or false.")
                }
                if user.instanceAdmin, !admin { lowered = true }
                user.instanceAdmin = admin
            }
            try tx.users.update(user)
            if lowered { _ = try tx.users.revokeSessions(userID: id, at: now) }
            try tx.record(WriteRecord(appID: nil, action: .userUpdated, targetKind: "user", targetID: id), now: now)
            return user
        }
    }

    public func members(appID: String) throws -> [Membership] {
        try store.read { tx in try tx.users.members(appID: appID) }
    }

    /// Gives `userID` `role` in the app: adding them (`adding`: an instance admin, or an accepted
    /// invitation) or changing a member's role (an app's owners: they add people by inviting them,
    /// never by naming an account they know the id of). A changed role ends the person's sessions:
    /// they sign in again with what they now may do.
    public func setRole(appID: String, userID: String, _ body: JSONValue, adding: Bool = true) throws -> Membership {
        let role = try Role.parse(body["role"], path: "$.role")
        let now = clock.now()
        return try store.write { tx in
            guard try tx.users.liveAppName(id: appID) != nil else { throw ServiceError.notFound("app", appID) }
            // A member first: an app's owner learns nothing of accounts outside the app (one answer
            // for a stranger and for no one).
            let previous = try tx.users.role(appID: appID, userID: userID)
            guard adding || previous != nil else {
                throw ServiceError(.notFound, "member_not_found", "User '\(userID)' is not a member of this app.")
            }
            guard try tx.users.user(id: userID) != nil else {
                throw ServiceError(.notFound, "user_not_found", "No user '\(userID)' on this instance.")
            }
            if previous == .owner, role != .owner { try Self.keepAnOwner(appID: appID, tx: tx) }
            try tx.users.setRole(appID: appID, userID: userID, role, now: now)
            if let previous, previous != role { _ = try tx.users.revokeSessions(userID: userID, at: now) }
            try tx.record(
                WriteRecord(
                    appID: appID, action: .memberUpdated, targetKind: "member", targetID: userID,
                    data: ["userId": .string(userID), "role": .string(role.rawValue)]), now: now)
            guard let member = try tx.users.members(appID: appID).first(where: { $0.userID == userID }) else {
                throw StoreInconsistency(detail: "the membership just written is not there")
            }
            return member
        }
    }

    /// Takes the user out of the app; their sessions end at once.
    public func removeMember(appID: String, userID: String) throws {
        let now = clock.now()
        try store.write { tx in
            guard let role = try tx.users.role(appID: appID, userID: userID) else {
                throw ServiceError(.notFound, "member_not_found", "User '\(userID)' is not a member of this app.")
            }
            if role == .owner { try Self.keepAnOwner(appID: appID, tx: tx) }
            _ = try tx.users.removeMember(appID: appID, userID: userID)
            _ = try tx.users.revokeSessions(userID: userID, at: now)
            try tx.record(
                WriteRecord(appID: appID, action: .memberRemoved, targetKind: "member", targetID: userID), now: now)
        }
    }

    /// An app keeps at least one owner: someone must be able to manage its members and keys.
    private static func keepAnOwner(appID: String, tx: any StoreTransaction) throws {
        guard try tx.users.countOwners(appID: appID) > 1 else {
            throw ServiceError(
                .conflict, "last_owner", "This is the app's last owner: make someone else owner first.")
        }
    }

    /// A lowercased address with one `@`, a dot-free local part allowed, a domain with a dot.
    static func email(_ value: JSONValue?, path: String) throws -> String {
        guard let text = value?.stringValue else {
            throw ServiceError.badField(path, "required", "'email' is required: an email address.")
        }
        let email = text.lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            email.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
        else {
            throw ServiceError.badField(path, "invalid_email", "'\(text.prefix(100))' is not an email address.")
        }
        return email
    }

    static func password(_ value: JSONValue?, path: String) throws -> String {
        guard let password = value?.stringValue else {
            throw ServiceError.badField(path, "required", "'password' is required.")
        }
        try checkPassword(password, path: path)
        return password
    }

    /// The length rules of a new password (characters, as a person counts them).
    public static func checkPassword(_ password: String, path: String) throws {
        guard password.count >= minimumPasswordLength else {
            throw ServiceError.badField(
                path, "password_too_short", "A password has at least \(minimumPasswordLength) characters.")
        }
        guard password.utf8.count <= maximumPasswordLength else {
            throw ServiceError.badField(
                path, "password_too_long", "A password has at most \(maximumPasswordLength) bytes.")
        }
    }
}
