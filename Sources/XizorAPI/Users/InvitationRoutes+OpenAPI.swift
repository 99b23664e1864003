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
                200, "The 200 newest, with their state (ended ones beyond them are deleted as new ones are made).",
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
                "`invitation_expired`, `invitation_revoked`, or `invitation_email_mismatch` (signed in as another address)."
            ),
            .problem(404, "`invitation_not_found`."), .problem(409, "`invitation_used`: a link works once."),
            .problem(422, "`password_too_short` at `$.password` (a new account)."),
        ])
}

extension TwoFactorRoutes {
    static let beginTOTP = OperationDoc(
        "beginTOTP", summary: "Start setting up a second factor",
        description:
            "A new pending secret (replacing an unconfirmed one): `secret` (base32, to type in), `uri` (`otpauth://totp/…`) and `qrSvg` (its QR code, for an authenticator app's camera). Nothing changes at sign-in until it is confirmed.",
        tag: "teams",
        responses: [
            .json(
                201, "The pending secret.",
                [
                    "type": "object",
                    "properties": [
                        "secret": ["type": "string"], "uri": ["type": "string"], "qrSvg": ["type": "string"],
                    ],
                ]),
            .problem(409, "`totp_enabled`: turn the second factor off first."),
        ])

    static let confirmTOTP = OperationDoc(
        "confirmTOTP", summary: "Turn the second factor on with a code from the pending secret",
        description:
            "Answers ten one-time `recoveryCodes` (shown this once) and a new session (a new cookie and CSRF token): every session of the account ends, this one too, as they were opened without the second factor.",
        tag: "teams",
        requestBody: ["type": "object", "required": ["code"], "properties": ["code": ["type": "string"]]],
        responses: [
            .json(
                201, "The new session with `recoveryCodes`.",
                [
                    "allOf": [
                        SessionRoutes.sessionBody,
                        [
                            "type": "object",
                            "properties": ["recoveryCodes": ["type": "array", "items": ["type": "string"]]],
                        ],
                    ]
                ]),
            .problem(409, "`totp_not_pending`: start with POST /v1/me/totp."),
            .problem(422, "`invalid_totp` at `$.code`."),
        ])

    static let disableTOTP = OperationDoc(
        "disableTOTP", summary: "Turn the second factor off",
        description: "Needs a current `code` or an unused `recoveryCode`. The recovery codes are deleted.",
        tag: "teams",
        requestBody: [
            "type": "object", "properties": ["code": ["type": "string"], "recoveryCode": ["type": "string"]],
        ],
        responses: [
            .empty(204, "Off."),
            .problem(401, "`invalid_totp`, `totp_code_used`, `invalid_recovery_code`, `totp_required`."),
            .problem(409, "`totp_not_enabled`."),
        ])
}
