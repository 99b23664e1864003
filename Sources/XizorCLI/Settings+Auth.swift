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
    let concurrentHashes = Setting.int(
        "auth.concurrentHashes", default: 2, 1...64,
        help:
            "passwords checked at once (Argon2id: ~19 MiB and tens of ms of a core each); past it a sign-in gets 503 with Retry-After"
    )
}
