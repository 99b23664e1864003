import PaywallFormat
import XizorDomain

/// The schemas of scopes, the audit log and webhooks (docs/integrations.md).
extension APISchemas {
    /// Listed only for the kind they belong to: scopes for secret keys, environment for public ones.
    static let integrationKeyFields: [String: JSONValue] = [
        "scopes": [
            "type": "array", "items": ref("Scope"),
            "description": "A secret key's scopes (every scope for full access).",
        ],
        "fullAccess": [
            "type": "boolean", "description": "A secret key made without scopes: it holds every scope, later ones too.",
        ],
        "environment": [
            "enum": ["production", "sandbox"], "description": "A public key's environment, which its events take.",
        ],
    ]

    static var integrations: [String: JSONValue] {
        let nullableString = nullable("string")
        return [
            "Scope": ["enum": .array(APIScope.allCases.map { .string($0.rawValue) })],
            "AuditEntry": object([
                "id": string, "at": millis,
                "action": ["enum": .array(AuditAction.allCases.map { .string($0.rawValue) })],
                "actor": object(
                    [
                        "kind": ["enum": ["admin", "secret", "public", "cli", "system", "user"]],
                        "keyId": nullableString,
                        "via": ["enum": ["rest", "mcp", "cli", "system"]],
                    ],
                    optional: [
                        "userId": string, "email": string,
                        "sessionId": nullable(
                            "string", "The session the person acted through (null: a failed sign-in)."),
                    ],
                    description:
                        "Who wrote: a key (`keyId`), or a signed-in person (kind `user`: `userId`, `email`, `sessionId`)."
                ),
                "target": object(["kind": string, "id": nullableString]),
                "requestId": nullableString,
                "beforeHash": nullable("string", "SHA-256 (hex) of the target's content before the write."),
                "afterHash": nullable("string", "SHA-256 (hex) of the target's content after the write."),
            ]),
            "AuditLog": object([
                "entries": array(ref("AuditEntry")),
                "nextCursor": nullable("string", "Pass as `cursor` for the next page; null on the last."),
            ]),
            "WebhookEventTypes": [
                "type": "array", "minItems": 1,
                "items": [
                    "enum": .array(
                        (["*"] + WebhookEventType.allCases.filter { $0 != .webhookTest }.map(\.rawValue)).map(
                            JSONValue.string))
                ],
                "description": "The event types to send, or `[\"*\"]` for all.",
            ],
            "WebhookEndpoint": object(
                [
                    "id": string, "url": string, "description": nullableString, "eventTypes": ref("WebhookEventTypes"),
                    "enabled": boolean, "createdAt": millis, "updatedAt": millis,
                    "failingSince": nullable(
                        "integer",
                        "When its current run of failed attempts began (ms); null while its last attempt succeeded."),
                    "disabledReason": [
                        "type": ["string", "null"], "enum": ["failing", .null],
                        "description":
                            "`failing`: the server disabled it after it failed for `webhooks.disableAfterMs`; null otherwise.",
                    ],
                ],
                optional: [
                    "secret": ["type": "string", "description": "`whsec_…`: shown only when created or rotated."]
                ]),
            "WebhookEndpointList": object(["items": array(ref("WebhookEndpoint"))]),
            "CreateWebhookRequest": request(
                ["url": ["type": "string", "minLength": 1, "maxLength": 2048]],
                optional: [
                    "eventTypes": ref("WebhookEventTypes"),
                    "description": ["type": "string", "minLength": 1, "maxLength": 200],
                    "enabled": boolean,
                ]),
            "UpdateWebhookRequest": request(
                [:],
                optional: [
                    "url": ["type": "string", "minLength": 1, "maxLength": 2048],
                    "eventTypes": ref("WebhookEventTypes"),
                    "description": ["type": ["string", "null"], "maxLength": 200],
                    "enabled": boolean,
                ]),
            "WebhookDelivery": object([
                "id": string, "eventId": string, "eventType": string,
                "state": ["enum": ["pending", "delivered", "failed"]],
                "attempts": integer, "createdAt": millis,
                "nextAttemptAt": nullable("integer", "When a pending delivery is tried next."),
                "lastAttemptAt": nullable("integer"),
                "lastStatus": nullable("integer", "The status the endpoint last answered."),
                "lastError": nullableString, "finishedAt": nullable("integer"),
                "payload": ["type": "string", "description": "The body exactly as sent and signed."],
            ]),
            "PreviewLink": object([
                "url": ["type": "string", "description": "A path on this server; opens without a key."],
                "expiresAt": millis,
            ]),
            "WebhookDeliveryList": object([
                "items": array(ref("WebhookDelivery")),
                "nextCursor": nullable("string", "Pass as `cursor` for the next page; null on the last."),
            ]),
        ]
    }
}
