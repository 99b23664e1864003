import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `AppRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension AppRoutes {
    static let createApp = OperationDoc(
        "createApp", summary: "Create an app and its two keys", tag: "apps",
        requestBody: APISchemas.ref("CreateAppRequest"),
        responses: [
            .json(201, "The app with its secret and public key, shown this once.", APISchemas.ref("CreatedApp"))
        ])

    static let listApps = OperationDoc(
        "listApps", summary: "List every app, archived ones included, a page at a time in creation order",
        tag: "apps",
        parameters: PageSize.parameters,
        responses: [
            .json(200, "A page of apps (never their keys).", APISchemas.ref("AppList")),
            .problem(400, "`limit` or `cursor` is malformed."),
        ])

    static let archiveApp = OperationDoc(
        "archiveApp", summary: "Archive an app",
        description: "Its keys stop working before this answers; its data is kept.",
        tag: "apps", parameters: [.path("appId", "An app id.")],
        responses: [.empty(204, "Archived.")])

    static let updateApp = OperationDoc(
        "updateApp", summary: "Set how long an app's raw events are kept",
        description:
            "The operator's setting (an admin route: a tenant cannot make its events cost more storage). The retention job deletes older events hourly, in chunks of `events.retentionChunk`; analytics keep their rollups. Recorded as `app.updated`.",
        tag: "apps", parameters: [.path("appId", "An app id.")],
        requestBody: APISchemas.ref("UpdateAppRequest"),
        responses: [
            .json(200, "The app as it is now.", APISchemas.ref("App")),
            .problem(404, "`app_not_found`: no such app."),
            .problem(422, "`eventRetentionDays` is missing, not a whole number or null, or outside 1–36,500."),
        ])

    static let mintRecoveryKey = OperationDoc(
        "mintRecoveryKey", summary: "Mint a full-access secret key for an app (recovery)",
        description:
            "For an owner left without a full-access key. Works whatever keys the app has (none, or `keys.maxPerApp` already: the operator's recovery is not capped). Recorded as `key.created` with the admin as actor. `xizor keys create APP_ID` does the same.",
        tag: "apps", parameters: [.path("appId", "An app id.")],
        requestBody: APISchemas.ref("RecoveryKeyRequest"),
        responses: [
            .json(201, "The new key, shown this once.", APISchemas.ref("CreatedAPIKey")),
            .problem(404, "`app_not_found`: no such app."),
            .problem(409, "`app_archived`: the app is archived (its keys cannot authenticate)."),
            .problem(422, "`label` is invalid."),
        ])

    static let listKeys = OperationDoc(
        "listKeys", summary: "List the app's keys (prefixes only), a page at a time in creation order",
        tag: "apps",
        parameters: PageSize.parameters,
        responses: [
            .json(
                200, "A page of the app's keys, revoked ones with `revokedAt`.", APISchemas.ref("APIKeyList")),
            .problem(400, "`limit` or `cursor` is malformed."),
        ])

    static let createKey = OperationDoc(
        "createKey", summary: "Create a secret or public key", tag: "apps",
        requestBody: APISchemas.ref("CreateKeyRequest"),
        responses: [
            .json(201, "The new key, shown this once.", APISchemas.ref("CreatedAPIKey")),
            .problem(409, "The app already has `keys.maxPerApp` live keys."),
        ])

    static let revokeKey = OperationDoc(
        "revokeKey", summary: "Revoke a key",
        description:
            "Effective on the next request. A key without full access cannot revoke the app's last full-access secret key (the owner would be locked out).",
        tag: "apps",
        responses: [
            .empty(204, "Revoked."),
            .problem(
                409,
                "`last_full_access_key`: the key to revoke is the app's last full-access secret key and the caller's key is scoped."
            ),
        ])
}
