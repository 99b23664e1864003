/// Shared caches in front of the SDK's path form (docs/scaling.md, "Edge delivery").
struct EdgeCacheSettings: Sendable {
    let sharedMaxAgeSeconds = Setting.int(
        "cache.sharedMaxAgeSeconds", default: 60, 0...86_400,
        help:
            "s-maxage of an SDK answer nothing of the subscriber decided: how stale a shared cache may serve it when a purge is lost"
    )
    let staleWhileRevalidateSeconds = Setting.int(
        "cache.staleWhileRevalidateSeconds", default: 30, 0...86_400,
        help: "stale-while-revalidate of those answers: served past s-maxage while the cache asks again")
    let staleIfErrorSeconds = Setting.int(
        "cache.staleIfErrorSeconds", default: 86_400, 0...31_536_000,
        help: "stale-if-error of those answers: served past s-maxage while this server fails or is unreachable")
    let purgeURLs = Setting.list(
        "cache.purgeURLs", default: [],
        help:
            "caches to purge on every change that affects serving: each gets BAN with X-Xizor-App (and X-Xizor-Placement), retried until it answers 2xx (comma-separated in XIZOR_CACHE_PURGE_URLS)"
    )
    let purgeTimeoutMs = Setting.int(
        "cache.purgeTimeoutMs", default: 2_000, 100...60_000, help: "time one purge request may take")
}

/// The keys SDK answers are signed with (docs/scaling.md, "Signed answers").
struct SigningSettings: Sendable {
    let keyFile = Setting.optional(
        "signing.keyFile",
        help:
            "a PEM Ed25519 private key (openssl genpkey -algorithm ed25519) to sign SDK answers with; unset: keys generated and kept in the database (xizor signing-keys rotate)"
    )
}
