import PaywallFormat
import Testing

/// One rule: an edit to the valid base document and the exact error it must produce.
struct Rule: Sendable, CustomStringConvertible {
    let name: String
    let edits: [(String, JSONValue?)]
    let path: String
    let code: String
    /// When false, other errors may accompany the expected one (e.g. every text lacks a new default locale).
    let only: Bool

    init(_ name: String, _ edits: [(String, JSONValue?)], _ path: String, _ code: String, only: Bool = true) {
        self.name = name
        self.edits = edits
        self.path = path
        self.code = code
        self.only = only
    }

    var description: String { name }
}

@Suite struct ValidationRuleTests {
    static let featureListEmpty: JSONValue = ["type": "feature_list", "items": []]
    static let selector: JSONValue = ["type": "product_selector"]

    static let rules: [Rule] = [
        Rule("wrong type", [("$.name", 5)], "$.name", "type_mismatch"),
        Rule("missing required field", [("$.name", nil)], "$.name", "missing_required_field"),
        Rule("empty name", [("$.name", "")], "$.name", "empty_string"),
        Rule("bad document id", [("$.id", "pw test")], "$.id", "invalid_id"),
        Rule(
            "unknown node type", [("$.root.children[4].type", "hologram")], "$.root.children[4].type",
            "unknown_node_type"),
        Rule(
            "missing node type", [("$.root.children[4].type", nil)], "$.root.children[4].type", "missing_required_field"
        ),
        Rule(
            "unknown property on a node", [("$.root.children[0].colour", "red")], "$.root.children[0].colour",
            "unknown_property"),
        Rule("unknown root property", [("$.extra", true)], "$.extra", "unknown_property"),
        Rule("bad enum value", [("$.root.direction", "diagonal")], "$.root.direction", "invalid_enum_value"),
        Rule("bad safe area", [("$.settings.safeArea", "left")], "$.settings.safeArea", "invalid_enum_value"),
        Rule(
            "unknown entrance kind", [("$.root.children[0].animation", ["entrance": ["kind": "explode"]])],
            "$.root.children[0].animation.entrance.kind", "invalid_enum_value"),
        Rule("named theme colour", [("$.theme.colors.bg", "red")], "$.theme.colors.bg", "invalid_hex_color"),
        Rule("token as theme colour", [("$.theme.colors.bg", "$text")], "$.theme.colors.bg", "invalid_hex_color"),
        Rule("five-digit hex", [("$.theme.colors.bg", "#12345")], "$.theme.colors.bg", "invalid_hex_color"),
        Rule(
            "appearance pair in version 1", [("$.theme.colors.bg", ["light": "#FFFFFF", "dark": "#000000"])],
            "$.theme.colors.bg", "type_mismatch"),
        Rule(
            "bad token name", [("$.theme.colors[\"1bad\"]", "#FFFFFF")], "$.theme.colors[\"1bad\"]",
            "invalid_token_name"),
        Rule(
            "bad colour", [("$.root.children[0].style.color", "blue")], "$.root.children[0].style.color",
            "invalid_color"),
        Rule(
            "unresolved colour token", [("$.root.children[0].style.color", "$panel")], "$.root.children[0].style.color",
            "unresolved_token"),
        Rule(
            "unresolved background token", [("$.settings.background.color", "$canvas")], "$.settings.background.color",
            "unresolved_token"),
        Rule(
            "unresolved radius token", [("$.root.children[0].style.borderRadius", "$pill")],
            "$.root.children[0].style.borderRadius", "unresolved_token"),
        Rule(
            "radius token without $", [("$.root.children[0].style.borderRadius", "card")],
            "$.root.children[0].style.borderRadius", "invalid_token_reference"),
        Rule(
            "unresolved font token", [("$.root.children[0].style.font.family", "$body")],
            "$.root.children[0].style.font.family", "unresolved_token"),
        Rule(
            "bare $ font family", [("$.root.children[0].style.font.family", "$")],
            "$.root.children[0].style.font.family", "invalid_font_family"),
        Rule(
            "broken slot reference", [("$.root.children[1].productSlot", "weekly")], "$.root.children[1].productSlot",
            "broken_slot_reference"),
        Rule(
            "broken slot in action", [("$.root.children[2].action", ["type": "purchase", "productSlot": "weekly"])],
            "$.root.children[2].action.productSlot", "broken_slot_reference"),
        Rule(
            "broken slot in selector",
            [("$.root.children[4]", ["type": "product_selector", "slots": ["monthly", "weekly"]])],
            "$.root.children[4].slots[1]", "broken_slot_reference"),
        Rule(
            "broken slot in variable", [("$.root.children[0].text.en", "{{products.weekly.price}}")],
            "$.root.children[0].text.en", "broken_slot_reference"),
        Rule("duplicate slot", [("$.products[1].slot", "monthly")], "$.products[1].slot", "duplicate_slot"),
        Rule(
            "duplicate slot in selector",
            [("$.root.children[4]", ["type": "product_selector", "slots": ["monthly", "monthly"]])],
            "$.root.children[4].slots[1]", "duplicate_slot"),
        Rule(
            "two preselected", [("$.products[0].preselected", true), ("$.products[1].preselected", true)],
            "$.products[1].preselected", "multiple_preselected"),
        Rule("duplicate node id", [("$.root.children[2].id", "t1")], "$.root.children[3].id", "duplicate_node_id"),
        Rule("bad node id", [("$.root.children[2].id", "a b")], "$.root.children[2].id", "invalid_id"),
        Rule(
            "text without default locale", [("$.root.children[0].text", ["de": "Hallo"])], "$.root.children[0].text",
            "missing_default_locale"),
        Rule(
            "text in undeclared locale", [("$.root.children[0].text.fr", "Salut")], "$.root.children[0].text.fr",
            "locale_not_declared"),
        Rule("empty text map", [("$.root.children[0].text", [:])], "$.root.children[0].text", "empty_localized_text"),
        Rule("non-string text", [("$.root.children[0].text.de", 5)], "$.root.children[0].text.de", "type_mismatch"),
        Rule(
            "malformed text locale key", [("$.root.children[0].text.de_DE", "x")], "$.root.children[0].text.de_DE",
            "invalid_locale_tag"),
        Rule("malformed locale tag", [("$.locales", ["en", "de", "EN_us"])], "$.locales[2]", "invalid_locale_tag"),
        Rule("duplicate locale", [("$.locales", ["en", "de", "en"])], "$.locales[2]", "duplicate_locale"),
        Rule("no locales", [("$.locales", [])], "$.locales", "array_too_short", only: false),
        Rule(
            "default locale not in locales", [("$.defaultLocale", "fr")], "$.defaultLocale",
            "default_locale_not_in_locales", only: false),
        Rule(
            "unclosed placeholder", [("$.root.children[0].text.en", "Go {{product.price")],
            "$.root.children[0].text.en", "malformed_template"),
        Rule(
            "empty placeholder", [("$.root.children[0].text.en", "Go {{ }}")], "$.root.children[0].text.en",
            "malformed_template"),
        Rule(
            "bad placeholder path", [("$.root.children[0].text.en", "Go {{product price}}")],
            "$.root.children[0].text.en", "malformed_template"),
        Rule(
            "unknown variable root", [("$.root.children[0].text.en", "Hi {{user.name}}")], "$.root.children[0].text.en",
            "unknown_variable"),
        Rule(
            "unknown product field", [("$.root.children[0].text.en", "{{product.cost}}")], "$.root.children[0].text.en",
            "unknown_variable"),
        Rule(
            "context without key", [("$.root.children[0].text.en", "{{context}}")], "$.root.children[0].text.en",
            "unknown_variable"),
        Rule(
            "timer variable outside a timer", [("$.root.children[0].text.en", "{{timer.remaining}}")],
            "$.root.children[0].text.en", "unknown_variable"),
        Rule(
            "product variable without products",
            [
                ("$.products", []), ("$.root.children[1]", ["type": "spacer"]),
                ("$.root.children[0].text.en", "{{product.price}}"),
            ], "$.root.children[0].text.en", "broken_slot_reference"),
        Rule(
            "$selected without selector", [("$.root.children[1].productSlot", "$selected")],
            "$.root.children[1].productSlot", "selected_without_product_selector"),
        Rule(
            "duration timer without id", [("$.root.children[3].id", nil)], "$.root.children[3].id", "timer_missing_id"),
        Rule(
            "duration timer without seconds", [("$.root.children[3].durationSeconds", nil)],
            "$.root.children[3].durationSeconds", "missing_required_field"),
        Rule(
            "deadline timer without endsAt", [("$.root.children[3].kind", "deadline")], "$.root.children[3].endsAt",
            "missing_required_field"),
        Rule(
            "bad endsAt", [("$.root.children[3].kind", "deadline"), ("$.root.children[3].endsAt", "tomorrow")],
            "$.root.children[3].endsAt", "invalid_date_time"),
        Rule(
            "non-integer seconds", [("$.root.children[3].durationSeconds", 1.5)], "$.root.children[3].durationSeconds",
            "not_an_integer"),
        Rule(
            "zero seconds", [("$.root.children[3].durationSeconds", 0)], "$.root.children[3].durationSeconds",
            "number_out_of_range"),
        Rule(
            "http media", [("$.root.children[4].src", "http://cdn.example.com/a.png")], "$.root.children[4].src",
            "non_https_url"),
        Rule(
            "http background", [("$.settings.background", ["kind": "image", "src": "http://cdn.example.com/bg.jpg"])],
            "$.settings.background.src", "non_https_url"),
        Rule(
            "relative url", [("$.root.children[5].termsUrl", "/terms")], "$.root.children[5].termsUrl", "non_https_url"),
        Rule(
            "opacity above 1", [("$.root.children[0].style.opacity", 1.5)], "$.root.children[0].style.opacity",
            "number_out_of_range"),
        Rule(
            "zero font size", [("$.root.children[0].style.font.size", 0)], "$.root.children[0].style.font.size",
            "number_out_of_range"),
        Rule("negative gap", [("$.root.gap", -4)], "$.root.gap", "number_out_of_range"),
        Rule(
            "odd font weight", [("$.root.children[0].style.font.weight", 450)], "$.root.children[0].style.font.weight",
            "number_not_multiple"),
        Rule(
            "font weight too heavy", [("$.root.children[0].style.font.weight", 1000)],
            "$.root.children[0].style.font.weight", "number_out_of_range"),
        Rule(
            "width neither number nor fill", [("$.root.children[0].style.width", "half")],
            "$.root.children[0].style.width", "invalid_enum_value"),
        Rule(
            "width of wrong type", [("$.root.children[0].style.width", true)], "$.root.children[0].style.width",
            "type_mismatch"),
        Rule(
            "easing tuple too short",
            [("$.root.children[0].animation", ["entrance": ["kind": "fade", "easing": [0.1, 0.2, 0.3]]])],
            "$.root.children[0].animation.entrance.easing", "array_too_short"),
        Rule(
            "easing tuple too long",
            [("$.root.children[0].animation", ["entrance": ["kind": "fade", "easing": [0.1, 0.2, 0.3, 0.4, 0.5]]])],
            "$.root.children[0].animation.entrance.easing", "array_too_long"),
        Rule(
            "empty feature list", [("$.root.children[4]", featureListEmpty)], "$.root.children[4].items",
            "array_too_short"),
        Rule(
            "spacer with size and flex", [("$.root.children[4]", ["type": "spacer", "size": 8, "flex": 1])],
            "$.root.children[4].flex", "mutually_exclusive_fields"),
        Rule(
            "carousel advancing too fast",
            [("$.root.children[4]", ["type": "carousel", "autoAdvanceMs": 100, "pages": [["type": "spacer"]]])],
            "$.root.children[4].autoAdvanceMs", "number_out_of_range"),
        Rule(
            "unknown action type", [("$.root.children[2].action.type", "teleport")], "$.root.children[2].action.type",
            "unknown_action_type"),
        Rule(
            "unknown background kind", [("$.settings.background.kind", "pattern")], "$.settings.background.kind",
            "unknown_background_kind"),
        Rule(
            "unknown gradient kind",
            [("$.settings.background", ["kind": "gradient", "gradient": ["kind": "conic", "stops": []]])],
            "$.settings.background.gradient.kind", "unknown_gradient_kind"),
        Rule(
            "gradient with one stop",
            [
                (
                    "$.settings.background",
                    ["kind": "gradient", "gradient": ["kind": "radial", "stops": [["color": "#000", "position": 0]]]]
                )
            ],
            "$.settings.background.gradient.stops", "array_too_short"),
        Rule(
            "stop position above 1",
            [
                (
                    "$.settings.background",
                    [
                        "kind": "gradient",
                        "gradient": [
                            "kind": "linear",
                            "stops": [["color": "#000", "position": 0], ["color": "#FFF", "position": 2]],
                        ],
                    ]
                )
            ],
            "$.settings.background.gradient.stops[1].position", "number_out_of_range"),
        Rule(
            "angle on radial gradient",
            [
                (
                    "$.settings.background",
                    [
                        "kind": "gradient",
                        "gradient": [
                            "kind": "radial", "angle": 90,
                            "stops": [["color": "#000", "position": 0], ["color": "#FFF", "position": 1]],
                        ],
                    ]
                )
            ],
            "$.settings.background.gradient.angle", "unknown_property"),
        Rule("unsupported schema version", [("$.schemaVersion", 4)], "$.schemaVersion", "unsupported_schema_version"),
        Rule("schema version as string", [("$.schemaVersion", "1")], "$.schemaVersion", "unsupported_schema_version"),
        Rule("missing schema version", [("$.schemaVersion", nil)], "$.schemaVersion", "missing_required_field"),
    ]

    @Test(arguments: rules) func rejects(_ rule: Rule) throws {
        var doc = try Support.base
        for (path, value) in rule.edits { try Support.edit(&doc, path, value) }
        let result = PaywallValidator.validate(doc)
        let expected = "\(rule.path) \(rule.code)"
        if rule.only {
            #expect(Support.pairs(result.errors) == [expected], "\(result.errors)")
        } else {
            #expect(Support.pairs(result.errors).contains(expected), "\(result.errors)")
        }
        #expect(result.document == nil)
        #expect(!result.isValid)
    }

    /// Issue 20, item 7: placeholder media on reserved hosts is published without a word on 6ba894a.
    @Test func mediaOnReservedHostsWarnsButThisServersMediaDoesNot() throws {
        for host in [
            "cdn.example.com", "example.org", "assets.test", "img.invalid", "CDN.EXAMPLE.NET", "media.localhost:8443",
        ] {
            let doc = try Support.base(setting: "$.root.children[4].src", to: .string("https://\(host)/a.png"))
            let result = PaywallValidator.validate(doc)
            #expect(
                result.errors.isEmpty
                    && Support.pairs(result.warnings) == ["$.root.children[4].src unreachable_media_host"], "\(host)")
        }
        for url in [
            "https://xizor.localhost/v1/assets/templates/clean-header.png", "https://cdn.example.com.evil.dev/a.png",
            "https://notexample.com/a.png", "https://xizor.localhost.dev/a.png",
        ] {
            let doc = try Support.base(setting: "$.root.children[4].src", to: .string(url))
            #expect(PaywallValidator.validate(doc).warnings.isEmpty, "\(url)")
        }
        let media = try Support.base(setting: "$.root.children[4].src", to: "https://xizor.localhost/elsewhere.png")
        #expect(
            Support.pairs(PaywallValidator.validate(media).warnings) == [
                "$.root.children[4].src unreachable_media_host"
            ],
            "only this server's asset paths are exempt")
    }

    @Test func baseDocumentIsValidWithoutWarnings() throws {
        let result = PaywallValidator.validate(try Support.base)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(result.document?.products.count == 2)
    }

    @Test func everyErrorCodeIsCoveredByARuleOrDocumented() {
        let tested = Set(Self.rules.map(\.code))
        // not_an_object: see notAnObject(); the limits' codes: DocumentLimitsTests.
        let untestable = Set(["invalid_constant", "not_an_object"])
            .union(["text_too_long", "too_many_nodes", "nesting_too_deep", "expansion_too_large"])
        for code in ValidationCode.allCases where !code.isWarning {
            #expect(
                tested.contains(code.rawValue) || untestable.contains(code.rawValue),
                "no rule test for \(code.rawValue)")
        }
    }

    @Test func notAnObject() {
        let result = PaywallValidator.validate([1, 2])
        #expect(Support.pairs(result.errors) == ["$ not_an_object"])
    }

    @Test func reportsEveryErrorInOnePass() throws {
        var doc = try Support.base
        let edits: [(String, JSONValue?)] = [
            ("$.name", 5), ("$.theme.colors.bg", "red"), ("$.root.children[4].type", "hologram"),
            ("$.root.children[0].style.color", "$panel"), ("$.root.children[1].productSlot", "weekly"),
            ("$.root.children[2].id", "t1"), ("$.root.children[0].text.fr", "Salut"), ("$.root.children[3].id", nil),
            ("$.root.children[5].privacyUrl", "http://example.com/p"), ("$.root.children[0].style.opacity", 7),
            ("$.root.children[2].label.en", "{{nope.x}}"), ("$.root.gap", "wide"),
        ]
        for (path, value) in edits { try Support.edit(&doc, path, value) }
        let result = PaywallValidator.validate(doc)
        let expected: Set<String> = [
            "$.name type_mismatch", "$.theme.colors.bg invalid_hex_color", "$.root.children[4].type unknown_node_type",
            "$.root.children[0].style.color unresolved_token", "$.root.children[1].productSlot broken_slot_reference",
            "$.root.children[0].text.fr locale_not_declared", "$.root.children[3].id timer_missing_id",
            "$.root.children[5].privacyUrl non_https_url", "$.root.children[0].style.opacity number_out_of_range",
            "$.root.children[2].label.en unknown_variable", "$.root.gap type_mismatch",
        ]
        #expect(Set(Support.pairs(result.errors)) == expected, "\(result.errors)")
    }

    @Test func versionTwoAcceptsAppearancePairs() throws {
        var doc = try Support.base
        try Support.edit(&doc, "$.schemaVersion", 2)
        try Support.edit(&doc, "$.theme.colors.bg", ["light": "#FFFFFF", "dark": "#000000"])
        #expect(PaywallValidator.validate(doc).errors.isEmpty)
        try Support.edit(&doc, "$.theme.colors.bg", ["light": "#FFFFFF", "dark": "$text"])
        #expect(Support.pairs(PaywallValidator.validate(doc).errors) == ["$.theme.colors.bg.dark invalid_hex_color"])
        try Support.edit(&doc, "$.theme.colors.bg", ["light": "#FFFFFF"])
        #expect(
            Support.pairs(PaywallValidator.validate(doc).errors) == ["$.theme.colors.bg.dark missing_required_field"])
    }

    @Test func selectedWithASelectorIsValid() throws {
        var doc = try Support.base
        try Support.edit(&doc, "$.root.children[1].productSlot", "$selected")
        try Support.edit(&doc, "$.root.children[4]", Self.selector)
        #expect(PaywallValidator.validate(doc).errors.isEmpty)
    }

    @Test func issuesSerializeForTheAPI() throws {
        let result = PaywallValidator.validate(try Support.base(setting: "$.name", to: 5))
        #expect(result.json["ok"] == false)
        #expect(
            result.json["errors"]?[0] == [
                "path": "$.name", "code": "type_mismatch", "message": "expected non-empty string, found integer",
            ])
    }
}

@Suite struct AppStoreWarningTests {
    @Test func sellingWithoutFooterWarnsAboutRestorePrivacyAndTerms() throws {
        let result = PaywallValidator.validate(try Support.base(setting: "$.root.children[5]", to: ["type": "spacer"]))
        #expect(result.isValid)
        #expect(
            Support.pairs(result.warnings) == [
                "$.root missing_restore_entry_point", "$.root missing_privacy_link", "$.root missing_terms_link",
            ])
        #expect(result.document != nil)
    }

    @Test func dismissableWithoutCloseWarns() throws {
        let result = PaywallValidator.validate(try Support.base(setting: "$.root.children[2]", to: ["type": "spacer"]))
        #expect(Support.pairs(result.warnings) == ["$.settings.dismissable missing_close_control"])
        var doc = try Support.base(setting: "$.root.children[2]", to: ["type": "spacer"])
        try Support.edit(&doc, "$.settings.dismissable", false)
        #expect(PaywallValidator.validate(doc).warnings.isEmpty)
    }

    @Test func restoreButtonOrActionCountsAsRestore() throws {
        var doc = try Support.base(setting: "$.root.children[5].showRestore", to: false)
        #expect(Support.pairs(PaywallValidator.validate(doc).warnings) == ["$.root missing_restore_entry_point"])
        try Support.edit(&doc, "$.root.children[4]", ["type": "restore_button"])
        #expect(PaywallValidator.validate(doc).warnings.isEmpty)
        try Support.edit(
            &doc, "$.root.children[4]",
            ["type": "button", "label": ["en": "Restore", "de": "Wiederherstellen"], "action": ["type": "restore"]])
        #expect(PaywallValidator.validate(doc).warnings.isEmpty)
    }

    @Test func openURLButtonsCountAsLegalLinks() throws {
        var doc = try Support.base(setting: "$.root.children[5]", to: ["type": "restore_button"])
        try Support.edit(
            &doc, "$.root.children[4]",
            [
                "type": "stack", "direction": "horizontal",
                "children": [
                    [
                        "type": "button", "label": ["en": "Privacy", "de": "Datenschutz"],
                        "action": ["type": "open_url", "url": "https://example.com/privacy"],
                    ],
                    [
                        "type": "button", "label": ["en": "Terms", "de": "AGB"],
                        "action": ["type": "open_url", "url": "https://example.com/terms"],
                    ],
                ],
            ])
        let result = PaywallValidator.validate(doc)
        #expect(result.errors.isEmpty && result.warnings.isEmpty, "\(result.errors) \(result.warnings)")
    }

    @Test func closeInsideAFallbackDoesNotCount() throws {
        var doc = try Support.base(
            setting: "$.root.children[2]",
            to: [
                "type": "spacer",
                "fallback": ["type": "button", "label": ["en": "x", "de": "x"], "action": ["type": "close"]],
            ])
        #expect(
            Support.pairs(PaywallValidator.validate(doc).warnings) == ["$.settings.dismissable missing_close_control"])
        try Support.edit(
            &doc, "$.root.children[2]",
            [
                "type": "carousel",
                "pages": [["type": "button", "label": ["en": "x", "de": "x"], "action": ["type": "close"]]],
            ])
        #expect(PaywallValidator.validate(doc).warnings.isEmpty)
    }
}
