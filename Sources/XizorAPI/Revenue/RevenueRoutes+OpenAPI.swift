import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `RevenueRoutes` registers.
extension RevenueRoutes {
    static let appIDParameter = APIParameter.path("appId", "The app's id (`app_…`), as the settings' URLs name it.")

    static let refusals: [APIResponseSpec] = [
        .problem(
            401,
            "`notification_refused`, with `reason`: `not_configured`, `malformed`, `unsupported_algorithm`, `invalid_chain_length`, `untrusted_chain`, `missing_apple_oid`, `invalid_signature`, `invalid_app_identifier`, `invalid_environment` or `invalid_authorization` (docs/revenue.md, \"Refusals\"). Nothing was stored."
        ),
        .problem(400, "`missing_body` or `invalid_json`."),
        .problem(404, "`app_not_found`: the app is archived."),
        .problem(413, "`notification_too_large`: over 64 KiB."),
        .problem(
            429,
            "`rate_limited`: too many refused notifications from this address, or the app's notifications past their own bucket of the writes limit (`Retry-After`)."
        ),
    ]

    static let receiveAppleNotification = OperationDoc(
        "receiveAppleNotification", summary: "Receive an App Store Server Notification (V2)",
        description:
            "The URL to paste into App Store Connect. `signedPayload` and its nested `signedTransactionInfo` and `signedRenewalInfo` are verified as Apple's app-store-server-library verifies them (x5c chain to Apple Root CA - G3 or `stores.apple.rootCertificates` at the signing date, Apple's OIDs, ES256), then the bundle id, the Apple app id in production, and the environment. Stored once by `notificationUUID`; 200 only after it is committed, so Apple's retries count once.",
        tag: "revenue", parameters: [appIDParameter],
        requestBody: APISchemas.request(["signedPayload": APISchemas.string]),
        responses: [
            .json(200, "Stored, or a retry of one stored before.", APISchemas.ref("NotificationReceipt")),
            .problem(
                422,
                "`signedPayload` missing (`$.signedPayload`), or a verified payload without its notificationUUID or type, or a transaction outside the bounds (`invalid_transaction`, `invalid_currency`, `number_out_of_range`)."
            ),
        ] + refusals)

    static let receiveRevenueCatWebhook = OperationDoc(
        "receiveRevenueCatWebhook", summary: "Receive a RevenueCat webhook event",
        description:
            "The URL to paste into RevenueCat's webhook integration, with the Authorization value configured here. Stored once by the event's `id`.",
        tag: "revenue", parameters: [appIDParameter],
        requestBody: APISchemas.request(["event": APISchemas.anyObject], optional: ["api_version": APISchemas.string]),
        responses: [
            .json(200, "Stored, or a retry of one stored before.", APISchemas.ref("NotificationReceipt")),
            .problem(
                422,
                "A field of the event is missing or of the wrong type, or a transaction outside the bounds, with its path."
            ),
        ] + refusals)

    static let getRevenueSettings = OperationDoc(
        "getRevenueSettings", summary: "Read the app's store settings and the URLs to paste into the stores",
        tag: "revenue", responses: [.json(200, "The settings.", APISchemas.ref("RevenueSettings"))])

    static let updateRevenueSettings = OperationDoc(
        "updateRevenueSettings",
        summary: "Set the app's bundle id, Apple app id, RevenueCat authorization, attribution window",
        description: "A JSON merge patch; audited. The RevenueCat authorization is write-only (kept as its SHA-256).",
        tag: "revenue", requestBody: APISchemas.ref("UpdateRevenueSettingsRequest"),
        responses: [
            .json(200, "The settings.", APISchemas.ref("RevenueSettings")),
            .problem(422, "A field's error, with its path."),
        ])

    static let getRevenue = OperationDoc(
        "getRevenue", summary: "Verified revenue of the app: total, attributed to paywalls, unattributed",
        description:
            "The stores' figures (docs/revenue.md). `from`/`to` choose cohorts: subscriptions credited on the UTC days from `from`'s to before `to`.",
        tag: "revenue",
        parameters: [
            .query("from", "Cohorts from this time's UTC day (ms or RFC 3339).", schema: ["type": "string"]),
            .query("to", "Cohorts before this time (ms or RFC 3339).", schema: ["type": "string"]),
            EnvironmentFilter.parameter,
        ],
        responses: [.json(200, "The report.", APISchemas.ref("RevenueReport"))] + AnalyticsGate.refusals)
}
