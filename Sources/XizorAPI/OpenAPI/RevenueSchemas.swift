import PaywallFormat
import XizorDomain

/// The schemas of verified revenue (docs/revenue.md).
extension APISchemas {
    static var revenue: [String: JSONValue] {
        let number: JSONValue = ["type": "number"]
        return [
            "VerifiedRevenue": object(
                [
                    "trialStarts": integer, "trialConversions": integer, "paidConversions": integer,
                    "renewals": integer, "refunds": integer,
                    "revenue": array(
                        object(
                            [
                                "currency": string, "gross": number, "refunded": number, "net": number,
                                "net7d": number, "net30d": number, "net90d": number,
                            ],
                            description:
                                "Per currency (never summed across currencies), in its units: payments, refunds, their difference, and the net within 7, 30 and 90 days of each subscription's credit."
                        )),
                ],
                optional: [
                    "revenuePerSubscriber": array(
                        object([
                            "currency": string,
                            "amount": [
                                "type": ["number", "null"],
                                "description": "net ÷ the subscribers who saw the version or variant.",
                            ],
                        ])),
                    "subscribers": object(
                        ["trialStarted": integer, "paid": integer, "trialConverted": integer, "refunded": integer],
                        description: "Distinct subscribers of the variant with each verified outcome (exact)."),
                ],
                description:
                    "The stores' own figures (App Store Server Notifications, RevenueCat), counted per subscription: a trial start, a trial's conversion to paid, a first payment (paidConversions, including conversions), later payments (renewals), refunds."
            ),
            "RevenueSettings": object([
                "apple": [
                    "anyOf": [
                        object([
                            "bundleId": string, "appAppleId": nullable("integer"),
                            "notificationURL": [
                                "type": "string",
                                "description":
                                    "Paste into App Store Connect → App Information → App Store Server Notifications (Version 2).",
                            ],
                        ]), ["type": "null"],
                    ]
                ],
                "revenueCat": [
                    "anyOf": [
                        object([
                            "authorizationSet": boolean,
                            "webhookURL": [
                                "type": "string",
                                "description":
                                    "Paste into RevenueCat → Integrations → Webhooks, with the same Authorization value.",
                            ],
                        ]), ["type": "null"],
                    ]
                ],
                "attributionWindowHours": integer, "updatedAt": nullable("integer"),
            ]),
            "UpdateRevenueSettingsRequest": request(
                [:],
                optional: [
                    "apple": [
                        "type": ["object", "null"],
                        "properties": ["bundleId": string, "appAppleId": nullable("integer")],
                        "description": "null removes Apple's settings.",
                    ],
                    "revenueCat": [
                        "type": ["object", "null"],
                        "properties": [
                            "authorization": [
                                "type": "string", "minLength": 8, "maxLength": 500,
                                "description": "The Authorization header value set in RevenueCat; write-only.",
                            ]
                        ],
                        "description": "null removes RevenueCat's settings.",
                    ],
                    "attributionWindowHours": ["type": "integer", "minimum": 1, "maximum": 720],
                ], description: "A JSON merge patch: a member left out is unchanged."),
            "RevenueReport": object([
                "environment": ["enum": ["production", "sandbox", "all"]], "source": ["enum": ["verified"]],
                "total": ref("VerifiedRevenue"), "attributed": ref("VerifiedRevenue"),
                "unattributed": ref("VerifiedRevenue"),
            ]),
            "NotificationReceipt": object([
                "status": [
                    "enum": ["stored", "duplicate"],
                    "description": "duplicate: a retry of a notification already stored; nothing was counted again.",
                ],
                "id": string,
            ]),
        ]
    }
}
