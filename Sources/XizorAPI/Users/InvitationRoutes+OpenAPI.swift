import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `InvitationRoutes` registers.
extension InvitationRoutes {
    static let invitation: JSONValue = [
        "type": "object", "required": ["id", "email", "role", "state", "createdAt", "expiresAt", "acceptedAt"],
        "properties": [
            "id": ["type": "string"], "email": ["type": "string"], "role": UserRoutes.role,
            "state": ["type": "string", "enum": ["pending", "accepted", "expired", "revoked"]],
            "createdAt": ["type": "integer"], "expiresAt": ["type": "integer"],
            "acceptedAt": ["type": ["integer", "null"]],
        ],
    ]

    static let createInvitation = OperationDoc(
        "createInvitation", summary: "Invite an email to the app with a role",
        description:
            "The link works once, for 7 days. It is answered this once (`token`, and `link` when `server.publicURL` is set) and, when `smtp.url` is configured, mailed to the address (`mail`: sent, failed or off). At most 100 pending invitations per app.",
        tag: "teams",
        requestBody: [
            "type": "object", "required": ["email", "role"],
            "properties": ["email": ["type": "string"], "role": UserRoutes.role],
        ],
        responses: [
            .json(
                201, "The invitation with its `token`, `link` and `mail`.",
                [
                    "allOf": [
                        invitation,
                        [
                            "type": "object",
                            "properties": [
                                "token": ["type": "string"], "link": ["type": ["string", "null"]],
                                "mail": ["type": "string", "enum": ["sent", "failed", "off"]],
                            ],
                        ],
                    ]
                ]),
            .problem(409, "`invitation_limit_reached`."),
            .problem(422, "`invalid_email` at `$.email`, `invalid_enum_value` at `$.role`."),
        ])

    static let listInvitations = OperationDoc(
        "listInvitations", summary: "The app's invitations, newest first", tag: "teams",
        responses: [
            .json(
                200, "The 200 newest, with their state.",
                ["type": "object", "properties": ["invitations": ["type": "array", "items": invitation]]])
        ])

    static let revokeInvitation = OperationDoc(
        "revokeInvitation", summary: "Revoke a pending invitation", tag: "teams",
        parameters: [APIParameter.path("invitationId", "An invitation id (`inv_…`).")],
        responses: [.empty(204, "Revoked: its link no longer works."), .problem(404, "`invitation_not_found`.")])

    static let acceptInvitation = OperationDoc(
        "acceptInvitation", summary: "Accept an invitation (and sign in)",
        description:
            "Signed in as the invited address (the session cookie, with `X-Xizor-CSRF` and this server's `Origin`), the role is added to that account. Otherwise the invited address's account signs in with `password`, or is created with it (at least 12 characters) when there is none. A member keeps a higher role than the one offered. Answers a new session, as POST /v1/session does.",
        tag: "teams",
        requestBody: [
            "type": "object", "required": ["token"],
            "properties": ["token": ["type": "string"], "password": ["type": "string"]],
        ],
        responses: [
            .json(201, "Accepted and signed in; the cookie is set.", SessionRoutes.sessionBody),
            .problem(401, "`invalid_credentials`: the account exists and the password is wrong."),
            .problem(
                403,
                "`invitation_expired`, `invitation_revoked`, or `invitation_email_mismatch` (signed in as another address)."),
            .problem(404, "`invitation_not_found`."), .problem(409, "`invitation_used`: a link works once."),
            .problem(422, "`password_too_short` at `$.password` (a new account)."),
        ])
}
