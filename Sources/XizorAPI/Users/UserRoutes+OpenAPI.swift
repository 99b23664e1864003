import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `UserRoutes` and `SessionRoutes` register.
extension UserRoutes {
    static let user: JSONValue = [
        "type": "object", "required": ["id", "email", "instanceAdmin", "createdAt", "disabledAt", "totpEnabled"],
        "properties": [
            "id": ["type": "string"], "email": ["type": "string"], "instanceAdmin": ["type": "boolean"],
            "createdAt": ["type": "integer"], "disabledAt": ["type": ["integer", "null"]],
            "totpEnabled": ["type": "boolean"],
        ],
    ]
    static let member: JSONValue = [
        "type": "object", "required": ["userId", "email", "role", "createdAt"],
        "properties": [
            "userId": ["type": "string"], "email": ["type": "string"], "role": role, "createdAt": ["type": "integer"],
        ],
    ]
    static let role: JSONValue = [
        "type": "string", "enum": .array(Role.allCases.map { .string($0.rawValue) }),
        "description":
            "viewer: read, analytics; editor: + drafts; admin: + publish, placements, experiments, webhooks; owner: + keys, members.",
    ]
    static let userIDParameter = APIParameter.path("userId", "A user id (`usr_…`).")

    static let createUser = OperationDoc(
        "createUser", summary: "Create a person's account",
        description: "Instance admins only. The password has at least 12 characters; it is stored as an Argon2id hash.",
        tag: "teams",
        requestBody: [
            "type": "object", "required": ["email", "password"],
            "properties": [
                "email": ["type": "string"], "password": ["type": "string", "minLength": 12],
                "instanceAdmin": ["type": "boolean"],
            ],
        ],
        responses: [
            .json(201, "The account.", user),
            .problem(409, "`email_taken`."),
            .problem(
                422, "`password_too_short` at `$.password`, `invalid_email` at `$.email`, or another field's error."),
        ])

    static let listUsers = OperationDoc(
        "listUsers", summary: "List the instance's accounts", tag: "teams", parameters: PageSize.parameters,
        responses: [
            .json(
                200, "A page of accounts by id.",
                [
                    "type": "object",
                    "properties": [
                        "users": ["type": "array", "items": user], "nextCursor": ["type": ["string", "null"]],
                    ],
                ])
        ])

    static let updateUser = OperationDoc(
        "updateUser", summary: "Disable or enable an account, or change its instance-admin flag",
        description: "Disabling an account, or taking its admin flag, ends every session of it at once.",
        tag: "teams", parameters: [userIDParameter],
        requestBody: [
            "type": "object", "properties": ["disabled": ["type": "boolean"], "instanceAdmin": ["type": "boolean"]],
        ],
        responses: [.json(200, "The account.", user), .problem(404, "`user_not_found`.")])

    static let setAppMember = OperationDoc(
        "setAppMember", summary: "Give a person a role in any app",
        description: "Instance admins only (an app's first owner). A changed role ends the person's sessions.",
        tag: "teams", parameters: [APIParameter.path("appId", "An app id."), userIDParameter],
        requestBody: ["type": "object", "required": ["role"], "properties": ["role": role]],
        responses: [
            .json(200, "The membership.", member), .problem(404, "`app_not_found`, `user_not_found`."),
            .problem(409, "`last_owner`: the app's last owner cannot be demoted."),
        ])

    static let listMembers = OperationDoc(
        "listMembers", summary: "List the app's members and their roles", tag: "teams",
        responses: [
            .json(
                200, "Every member, by email.",
                ["type": "object", "properties": ["members": ["type": "array", "items": member]]])
        ])

    static let setMember = OperationDoc(
        "setMember", summary: "Change a member's role",
        description:
            "A changed role ends the person's sessions: they sign in again with what they may now do. People join an app by an instance admin (PUT /v1/apps/{appId}/members/{userId}).",
        tag: "teams", parameters: [userIDParameter],
        requestBody: ["type": "object", "required": ["role"], "properties": ["role": role]],
        responses: [
            .json(200, "The membership.", member), .problem(404, "`member_not_found`, `user_not_found`."),
            .problem(409, "`last_owner`: the app's last owner cannot be demoted."),
        ])

    static let removeMember = OperationDoc(
        "removeMember", summary: "Remove a person from the app",
        description: "Their sessions end at once.", tag: "teams", parameters: [userIDParameter],
        responses: [
            .empty(204, "Removed."), .problem(404, "`member_not_found`."),
            .problem(409, "`last_owner`: the app's last owner cannot be removed."),
        ])
}

extension SessionRoutes {
    static let sessionBody: JSONValue = [
        "type": "object", "required": ["user", "session", "csrfToken", "memberships"],
        "properties": [
            "user": UserRoutes.user,
            "session": [
                "type": "object",
                "properties": [
                    "id": ["type": "string"], "createdAt": ["type": "integer"], "expiresAt": ["type": "integer"],
                    "idleExpiresAt": ["type": "integer"],
                ],
            ],
            "csrfToken": ["type": "string", "description": "Send it as `X-Xizor-CSRF` with every unsafe request."],
            "memberships": [
                "type": "array",
                "items": [
                    "type": "object",
                    "properties": [
                        "appId": ["type": "string"], "appName": ["type": "string"], "role": UserRoutes.role,
                    ],
                ],
            ],
        ],
    ]
    static let sessionItem: JSONValue = [
        "type": "object",
        "properties": [
            "id": ["type": "string"], "createdAt": ["type": "integer"], "lastSeenAt": ["type": "integer"],
            "expiresAt": ["type": "integer"], "address": ["type": ["string", "null"]],
            "userAgent": ["type": ["string", "null"]], "current": ["type": "boolean"],
        ],
    ]

    static let signIn = OperationDoc(
        "signIn", summary: "Sign in with email and password",
        description:
            "Sets the `__Host-xizor_session` cookie (HttpOnly, Secure, SameSite=Lax). A session cookie sent with the request ends: the new session always has a new id. Failed sign-ins in a row lock the account (`auth.lockoutThreshold`, `auth.lockoutSeconds`); failures also draw from the address's bucket (`rateLimits.authFailures*`).",
        tag: "teams",
        requestBody: [
            "type": "object", "required": ["email", "password"],
            "properties": [
                "email": ["type": "string"], "password": ["type": "string"],
                "code": [
                    "type": "string",
                    "description": "The authenticator app's 6 digits, for an account with a second factor.",
                ],
                "recoveryCode": [
                    "type": "string",
                    "description": "Instead of `code`: one of the account's recovery codes (each works once).",
                ],
            ],
        ],
        responses: [
            .json(201, "Signed in; the cookie is set.", sessionBody, headers: [("Set-Cookie", "The session cookie.")]),
            .problem(
                401,
                "`invalid_credentials`: the email or the password is wrong (the same answer for both); with a second factor, `totp_required`, `invalid_totp`, `totp_code_used` or `invalid_recovery_code`."
            ),
            .problem(403, "`user_disabled`."),
            .problem(429, "`account_locked` (with `Retry-After`), or the address's failures are spent."),
            .problem(503, "`signin_busy`: too many passwords are being checked at once (with `Retry-After`)."),
        ])

    static let getSignInMethods = OperationDoc(
        "getSignInMethods", summary: "How people may sign in here",
        description:
            "`password`: whether POST /v1/session takes passwords (`auth.passwordSignIn`); `singleSignOn`: the path that starts single sign-on, or null.",
        tag: "teams",
        responses: [
            .json(
                200, "The sign-in methods.",
                [
                    "type": "object", "required": ["password", "singleSignOn"],
                    "properties": ["password": ["type": "boolean"], "singleSignOn": ["type": ["string", "null"]]],
                ])
        ])

    static let getSession = OperationDoc(
        "getSession", summary: "The signed-in person, their apps and the session's CSRF token", tag: "teams",
        responses: [.json(200, "The session.", sessionBody), .problem(401, "`session_required`, `invalid_session`.")])

    static let signOut = OperationDoc(
        "signOut", summary: "Sign out (this session ends)", tag: "teams",
        responses: [.empty(204, "Signed out; the cookie is cleared.")])

    static let listSessions = OperationDoc(
        "listSessions", summary: "Your live sessions", tag: "teams",
        responses: [
            .json(
                200, "Newest first; `current` marks this one.",
                ["type": "object", "properties": ["sessions": ["type": "array", "items": sessionItem]]])
        ])

    static let revokeSession = OperationDoc(
        "revokeSession", summary: "End one of your sessions", tag: "teams",
        parameters: [APIParameter.path("sessionId", "A session id (`ses_…`).")],
        responses: [.empty(204, "Ended."), .problem(404, "`session_not_found`.")])

    static let revokeAllSessions = OperationDoc(
        "revokeAllSessions", summary: "Sign out everywhere", description: "Every session of yours ends, this one too.",
        tag: "teams", responses: [.empty(204, "Every session ended; the cookie is cleared.")])
}
