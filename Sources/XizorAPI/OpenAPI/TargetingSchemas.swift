import PaywallFormat
import XizorDomain

/// The schemas of placements, rules, conditions, audiences, subscriber attributes and the dry run
/// (docs/targeting.md).
extension APISchemas {
    static var targeting: [String: JSONValue] {
        [
            "Placement": object(
                [
                    "key": string, "paywallId": string, "rules": array(ref("Rule")),
                    "experimentId": nullable(
                        "string", "The experiment the placement runs, if any; `paywallId` is then its control."),
                    "createdAt": millis, "updatedAt": millis,
                ],
                optional: [
                    "warnings": [
                        "type": "array", "items": ref("ValidationIssue"),
                        "description":
                            "On a write: targets with no published version (`target_unpublished`), comparisons that can never match (`never_matches`).",
                    ]
                ]),
            "PlacementList": object(["items": array(ref("Placement"))]),
            "AssignPlacementRequest": [
                "type": "object",
                "description": "A paywall, or an experiment (its control serves where no variant applies).",
                "properties": ["paywallId": string, "experimentId": string],
            ],
            "PlacementReference": object(
                [
                    "placement": string,
                    "rule": nullable("integer", "The rule's index; null for the placement's own target."),
                ],
                optional: [
                    "experimentId": [
                        "type": "string",
                        "description":
                            "In a paywall's `targetedBy`: the placement or rule serves the paywall through this experiment (one of its variants).",
                    ],
                    "experimentName": string,
                ]),
            "Rule": object(
                ["when": ref("Condition"), "paywallId": string],
                optional: [
                    "experimentId": [
                        "type": "string",
                        "description": "Run this experiment for matching requests instead of one paywall.",
                    ],
                    "activeFrom": [
                        "type": "integer", "minimum": 0,
                        "description": "Milliseconds since 1970; the rule applies from then on.",
                    ],
                    "activeUntil": [
                        "type": "integer", "minimum": 0,
                        "description": "Milliseconds since 1970; the rule stops applying then.",
                    ],
                    "frequencyCap": ref("FrequencyCap"),
                ],
                description:
                    "Rules are tried in order; the first that is active, whose condition matches, whose cap is not reached and whose target has a published version wins."
            ),
            "FrequencyCap": [
                "type": "object", "additionalProperties": false, "required": ["count"],
                "description":
                    "At most `count` presentations (the subscriber's `paywall_open` events on the placement showing the rule's target) in any `seconds`, or per hour, day or week. A capped rule does not match; the next is tried. Requests without a subscriberId are not capped.",
                "properties": [
                    "count": ["type": "integer", "minimum": 1, "maximum": 1_000_000],
                    "seconds": ["type": "integer", "minimum": 1, "maximum": 31_622_400],
                    "per": ["enum": ["hour", "day", "week"]],
                ],
                "oneOf": [["required": ["seconds"]], ["required": ["per"]]],
            ],
            "RulesRequest": request([
                "rules": ["type": "array", "items": ref("Rule"), "maxItems": .number(PlacementService.maxRules)]
            ]),
            "Condition": [
                "description":
                    "`all`/`any` of conditions, `not` one, a named `audience`, a percentage `rollout`, or a comparison of a key: `context.KEY` (or a bare KEY), `device.NAME` (request attributes), `subscriber.KEY` (stored attributes). A key missing from the request never matches a comparison (not even `ne`); only `exists` and `not` see absence.",
                "oneOf": [
                    object(["all": nonEmptyArray(ref("Condition"))]),
                    object(["any": nonEmptyArray(ref("Condition"))]),
                    object(["not": ref("Condition")]),
                    object([
                        "audience": [
                            "type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$",
                            "description": "A named audience of the app.",
                        ]
                    ]),
                    // No multipleOf 0.01: in binary floating point 33.33 is not a multiple of 0.01.
                    object(
                        [
                            "rollout": object(
                                [
                                    "percent": [
                                        "type": "number", "minimum": 0, "maximum": 100,
                                        "description": "0 to 100, at most two decimals (a share of 10,000 buckets).",
                                    ]
                                ],
                                optional: [
                                    "seed": [
                                        "type": "string", "minLength": 1, "maxLength": 64,
                                        "description": "Given by the server when absent; keep it to keep the share.",
                                    ]
                                ])
                        ],
                        description:
                            "A stable share of subscribers (hash of the seed and the subscriber id); no subscriberId, no match."
                    ),
                    ref("Comparison"),
                ],
            ],
            "Comparison": object(
                [
                    "key": ["type": "string", "minLength": 1, "maxLength": .number(Condition.maxKeyLength)],
                    "op": ["enum": .array(Condition.Operator.allCases.map { .string($0.rawValue) })],
                ],
                optional: [
                    "value": [
                        "anyOf": [ref("ContextValue"), nonEmptyArray(ref("ContextValue"))],
                        "description":
                            "`in`/`not_in`: an array; `between`: [low, high]; `exists`: absent; `gt`/`gte`/`lt`/`lte`: a number or string; `starts_with`: a string; `semver_*`: a version string (1.10.0, 2.0.0-rc.1).",
                    ]
                ]),
            "ContextValue": ["type": ["string", "number", "boolean"]],
            "Resolution": object(
                [
                    "placement": string,
                    "paywallId": nullable("string", "Null only for an experiment's holdout, which is shown nothing."),
                    "version": nullable("integer"),
                    "matchedRule": nullable(
                        "integer", "Index of the rule that won; null when the placement's own paywall serves."),
                    "paywallArchived": boolean,
                    "experiment": ["anyOf": [ref("ExperimentAssignment"), ["type": "null"]]],
                ],
                optional: [
                    "trace": array(ref("RuleTrace")),
                    "fallback": [
                        "type": "boolean", "description": "The placement's own target answered (no rule won).",
                    ],
                ]),
            "RuleTrace": object(
                [
                    "rule": integer,
                    "outcome": [
                        "enum": [
                            "matched", "not_matched", "inactive", "capped", "target_unpublished", "not_reached",
                            "budget_exhausted",
                        ]
                    ],
                ],
                optional: [
                    "failed": ref("ConditionFailure"), "frequencyCap": ref("FrequencyCap"),
                    "presentations": [
                        "type": "integer",
                        "description": "What the cap counted (up to its count; only to a key with `analytics`).",
                    ],
                    "hidden": [
                        "type": "string", "const": "analytics",
                        "description": "The cap's count was withheld: the key lacks this scope.",
                    ],
                    "targetArchived": ["type": "boolean", "const": true],
                ]),
            "ConditionFailure": object(
                [
                    "path": [
                        "type": "string",
                        "description": "Where in the rule (or, under `audience`, in the audience's condition).",
                    ],
                    "reason": [
                        "enum": [
                            "compared", "missing", "not_a_version", "none_matched", "negated_condition_matched",
                            "unknown_audience", "audience_not_matched", "no_subscriber", "outside_rollout", "hidden",
                        ]
                    ],
                ],
                optional: [
                    "key": string, "op": string, "value": [:],
                    "hidden": [
                        "type": "string", "const": "analytics",
                        "description":
                            "A stored subscriber attribute's comparison: its value (and whether there was one) is withheld from a key without this scope.",
                    ],
                    "saw": [
                        "description":
                            "The request's value (null: it had none; a rollout: the subscriber's bucket of 10,000)."
                    ],
                    "audience": string, "failures": array(ref("ConditionFailure")),
                    "message": [
                        "type": "string",
                        "description":
                            "The failure in words: the key, the operator, the expected value and the value the request had.",
                    ],
                ]),
            "Audience": object(
                [
                    "id": string, "name": string, "condition": ref("Condition"),
                    "usedBy": array(ref("PlacementReference")), "createdAt": millis, "updatedAt": millis,
                ],
                optional: [
                    "warnings": [
                        "type": "array", "items": ref("ValidationIssue"),
                        "description":
                            "On a write: comparisons that can never match (`never_matches`: a device attribute compared with a number, or with a value the server never sends).",
                    ]
                ]),
            "AudienceList": object(["items": array(ref("Audience"))]),
            "TargetingKeys": object([
                "device": array(string), "audiences": array(object(["id": string, "name": string])),
                "subscriber": array(string), "context": array(string),
            ]),
            "PutAudienceRequest": request(
                ["condition": ref("Condition")],
                optional: ["name": ["type": "string", "minLength": 1, "maxLength": 200]]),
            "SubscriberAttributes": object([
                "subscriberId": string,
                "attributes": ["type": "object", "additionalProperties": ref("ContextValue")],
                "updatedAt": nullable("integer", "Null when none are stored."),
            ]),
            "SetSubscriberAttributesRequest": request([
                "attributes": [
                    "type": "object", "maxProperties": .number(SubscriberService.maxAttributes),
                    "additionalProperties": ["type": ["string", "number", "boolean"]],
                    "description": "Replaces the subscriber's attributes; rules read them as subscriber.KEY.",
                ]
            ]),
            "SubscriberDeletion": object(
                ["subscriberId": string, "attributes": integer, "timers": integer, "events": integer],
                description: "How many rows of each kind were deleted."),
        ]
    }
}
