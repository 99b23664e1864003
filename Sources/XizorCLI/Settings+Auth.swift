import XizorDomain

/// People's sign-in and sessions (docs/teams.md).
struct AuthSettings: Sendable {
    let sessionIdleSeconds = Setting.int(
        "auth.sessionIdleSeconds", default: 86_400, 1...2_592_000,
        help: "a person's session unused this long ends (seconds)")
    let sessionMaxSeconds = Setting.int(
        "auth.sessionMaxSeconds", default: 1_209_600, 1...31_536_000,
        help: "a session ends this long after sign-in however it is used (seconds); also the cookie's Max-Age")
    let lockoutThreshold = Setting.int(
        "auth.lockoutThreshold", default: 5, 1...1_000,
        help: "failed sign-ins in a row that lock an account")
    let lockoutSeconds = Setting.int(
        "auth.lockoutSeconds", default: 900, 1...86_400, help: "how long a locked account refuses every sign-in")
    let passwordSignIn = Setting.bool(
        "auth.passwordSignIn", default: true,
        help: "whether people may sign in with a password; false: only through single sign-on (oidc.*)")
    let concurrentHashes = Setting.int(
        "auth.concurrentHashes", default: 2, 1...64,
        help:
            "passwords checked at once (Argon2id: ~19 MiB and tens of ms of a core each); past it a sign-in gets 503 with Retry-After"
    )
}

/// The SMTP server invitations are mailed through (docs/teams.md, "Invitations").
struct SMTPSettings: Sendable {
    let url = Setting.optional(
        "smtp.url",
        help:
            "smtp://host:port (STARTTLS when offered) or smtps://host:port to mail invitation links through; unset: links are only shown to the inviter"
    )
    let from = Setting.string("smtp.from", default: "xizor@localhost", help: "the sender address of invitation mail")
    let username = Setting.optional("smtp.username", help: "the SMTP account's name, when the server asks for one")
    let password = Setting.optional("smtp.password", help: "the SMTP account's password")
    let requireTLS = Setting.bool(
        "smtp.requireTLS", default: false, help: "refuse to mail unless the connection to the SMTP server is encrypted")
    let timeoutMs = Setting.int("smtp.timeoutMs", default: 10_000, 100...120_000, help: "time one mail may take")
}

/// Single sign-on with an OpenID Connect provider (docs/teams.md, "Single sign-on").
struct OIDCSettings: Sendable {
    let issuer = Setting.optional(
        "oidc.issuer",
        help:
            "the OpenID Connect provider's issuer URL (https; http only on localhost): set, people may sign in through it at GET /v1/session/oidc"
    )
    let clientId = Setting.optional("oidc.clientId", help: "this server's client id at the provider")
    let clientSecret = Setting.optional(
        "oidc.clientSecret",
        help: "the client secret, sent as HTTP Basic to the token endpoint (unset: a public client, PKCE alone)")
    let redirectURL = Setting.optional(
        "oidc.redirectURL",
        help: "where the provider sends people back (register it there); unset: publicURL + /v1/session/oidc/callback")
    let allowedDomains = Setting.list(
        "oidc.allowedDomains", default: [],
        help:
            "email domains whose people get an account on their first sign-in (comma-separated in XIZOR_OIDC_ALLOWED_DOMAINS)"
    )
    let defaultAppId = Setting.optional("oidc.defaultAppId", help: "the app a new single sign-on account joins")
    let defaultRole = Setting.choice(
        "oidc.defaultRole", default: Role.viewer,
        ["viewer": Role.viewer, "editor": Role.editor, "admin": Role.admin, "owner": Role.owner],
        help: "the role a new account gets in oidc.defaultAppId")
}
