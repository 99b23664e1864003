import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The MCP layer without a server: message classification, version rules, and the argument
/// validator against the real tool schemas (the live protocol is in Tests/e2e/test_mcp.py).
@Suite struct JSONRPCMessageTests {
    struct Case: Sendable, CustomStringConvertible {
        let text: String
        let kind: String
        let id: JSONValue
        var description: String { text }
    }

    static let cases: [Case] = [
        Case(text: #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, kind: "request", id: 1),
        Case(text: #"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}"#, kind: "request", id: "a"),
        Case(text: #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, kind: "notification", id: nil),
        Case(text: #"{"jsonrpc":"2.0","id":4,"result":{}}"#, kind: "response", id: nil),
        Case(text: #"{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"x"}}"#, kind: "response", id: nil),
        Case(text: #""ping""#, kind: "invalid", id: nil),
        Case(text: #"{"jsonrpc":"1.0","id":3,"method":"ping"}"#, kind: "invalid", id: 3),
        Case(text: #"{"id":3,"method":"ping"}"#, kind: "invalid", id: 3),
        Case(text: #"{"jsonrpc":"2.0","id":5}"#, kind: "invalid", id: 5),
        Case(text: #"{"jsonrpc":"2.0","id":5,"method":7}"#, kind: "invalid", id: 5),
        Case(text: #"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, kind: "invalid", id: nil),
        Case(text: #"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, kind: "invalid", id: nil),
        Case(text: #"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, kind: "invalid", id: nil),
        Case(text: #"{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}"#, kind: "invalid", id: 6),
    ]

    @Test(arguments: cases)
    func classifies(_ example: Case) throws {
        let message = JSONRPCMessage(try JSONValue(parsing: example.text))
        switch message {
        case .request(let id, _, _):
            #expect(example.kind == "request")
            #expect(id == example.id)
        case .notification: #expect(example.kind == "notification")
        case .response: #expect(example.kind == "response")
        case .invalid(let id, let error):
            #expect(example.kind == "invalid")
            #expect(id == example.id)
            #expect(error.code == .invalidRequest)
        }
    }
}

@Suite struct MCPProtocolVersionTests {
    @Test func negotiatesTheClientsVersionOrTheLatest() {
        #expect(MCPProtocolVersion.negotiate(requested: "2025-06-18") == "2025-06-18")
        #expect(MCPProtocolVersion.negotiate(requested: "2025-03-26") == "2025-03-26")
        #expect(MCPProtocolVersion.negotiate(requested: "2024-11-05") == MCPProtocolVersion.latest)
        #expect(MCPProtocolVersion.negotiate(requested: "banana") == MCPProtocolVersion.latest)
        #expect(MCPProtocolVersion.latest == "2025-11-25")
    }

    @Test func whatDiffersBetweenVersions() {
        #expect(MCPProtocolVersion.allowsBatches("2025-03-26"))
        #expect(!MCPProtocolVersion.allowsBatches("2025-06-18") && !MCPProtocolVersion.allowsBatches("2025-11-25"))
        #expect(MCPProtocolVersion.reportsArgumentErrorsAsToolResults("2025-11-25"))
        #expect(!MCPProtocolVersion.reportsArgumentErrorsAsToolResults("2025-06-18"))
        #expect(MCPProtocolVersion.assumedWithoutHeader == "2025-03-26")
    }

    @Test func acceptHeaders() {
        #expect(MCPEndpoint.acceptsJSON("application/json, text/event-stream"))
        #expect(MCPEndpoint.acceptsJSON("text/event-stream;q=1, application/json;q=0.5"))
        #expect(MCPEndpoint.acceptsJSON("*/*"))
        #expect(!MCPEndpoint.acceptsJSON("text/event-stream"))
    }
}

@Suite struct ToolSchemaTests {
    static let tools = MCPToolbox.all

    static func issues(_ tool: MCPTool, _ arguments: JSONValue) -> [String] {
        ArgumentSchemaValidator(root: tool.inputSchema).validate(arguments).map { "\($0.path) \($0.code)" }.sorted()
    }

    static func tool(_ name: String) throws -> MCPTool { try #require(tools.first { $0.name == name }) }

    @Test func everySchemaIsClosedAndConsistent() throws {
        #expect(Set(Self.tools.map(\.name)).count == Self.tools.count && Self.tools.count == 38)
        for tool in Self.tools {
            let schema = tool.inputSchema
            #expect(schema["type"] == "object", "\(tool.name)")
            #expect(schema["additionalProperties"] == false, "\(tool.name)")
            let properties = try #require(schema["properties"]?.objectValue, "\(tool.name)")
            for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                #expect(properties[name] != nil, "\(tool.name) requires unknown \(name)")
            }
            for (name, property) in properties where property["$ref"] == nil {
                #expect(
                    property["description"]?.stringValue?.isEmpty == false || name == "rules", "\(tool.name).\(name)")
            }
            #expect(tool.description.count > 60, "\(tool.name)")
            // An empty call is checked without the validator tripping over its own schema.
            #expect(!Self.issues(tool, [:]).contains { $0.hasSuffix("schema_error") }, "\(tool.name)")
        }
    }

    @Test func createPaywall() throws {
        let tool = try Self.tool("create_paywall")
        #expect(Self.issues(tool, [:]) == [])
        #expect(Self.issues(tool, ["template": "clean", "name": "A"]) == [])
        #expect(Self.issues(tool, ["template": "clean", "document": [:]]) == ["$ mutually_exclusive_fields"])
        #expect(
            Self.issues(tool, ["template": "fancy", "extra": 1]) == [
                "$.extra unknown_property", "$.template not_in_enum",
            ])
        #expect(Self.issues(tool, ["name": ""]) == ["$.name string_too_short"])
    }

    @Test func updateDraftNeedsExactlyOneForm() throws {
        let tool = try Self.tool("update_paywall_draft")
        #expect(Self.issues(tool, ["paywallId": "pw_1", "revision": 3, "mergePatch": ["name": "x"]]) == [])
        #expect(Self.issues(tool, ["paywallId": "pw_1", "revision": 3, "document": [:]]) == [])
        #expect(Self.issues(tool, ["paywallId": "pw_1", "revision": 3]) == ["$ missing_required_field"])
        #expect(
            Self.issues(tool, ["paywallId": "pw_1", "revision": 3, "document": [:], "mergePatch": [:]]) == [
                "$ mutually_exclusive_fields"
            ])
        #expect(
            Self.issues(tool, ["paywallId": "pw_1", "revision": -1, "mergePatch": [:]]) == [
                "$.revision number_out_of_range"
            ])
        #expect(
            Self.issues(tool, ["paywallId": "pw_1", "revision": 1.5, "mergePatch": [:]]) == ["$.revision type_mismatch"]
        )
    }

    @Test func localizeTranslationsAreStrings() throws {
        let tool = try Self.tool("localize_paywall")
        #expect(Self.issues(tool, ["paywallId": "pw_1", "locale": "de"]) == [])
        #expect(Self.issues(tool, ["paywallId": "pw_1", "locale": "de", "translations": ["$.a": "x"]]) == [])
        #expect(
            Self.issues(tool, ["paywallId": "pw_1", "locale": "de", "translations": [:]]) == [
                "$.translations too_few_properties"
            ])
        #expect(
            Self.issues(tool, ["paywallId": "pw_1", "locale": "de", "translations": ["$.root.text": 3]])
                == [#"$.translations["$.root.text"] type_mismatch"#])
    }

    @Test func conditionsRecurseThroughDefs() throws {
        let tool = try Self.tool("set_placement_rules")
        let good: JSONValue = [
            "placement": "onboarding",
            "rules": [
                [
                    "when": [
                        "all": [
                            ["key": "wasReferred", "op": "eq", "value": true],
                            [
                                "not": [
                                    "any": [
                                        ["key": "country", "op": "in", "value": ["DE", "AT"]],
                                        ["key": "plan", "op": "exists"],
                                    ]
                                ]
                            ],
                        ]
                    ],
                    "paywallId": "pw_1", "activeFrom": 0, "activeUntil": 10,
                ]
            ],
        ]
        #expect(Self.issues(tool, good) == [])
        #expect(Self.issues(tool, ["placement": "x", "rules": []]) == [])
        let deep: JSONValue = [
            "placement": "x",
            "rules": [["when": ["all": [["not": ["key": "a", "op": "like", "value": 1]]]], "paywallId": "p"]],
        ]
        #expect(Self.issues(tool, deep) == ["$.rules[0].when.all[0].not.op not_in_enum"])
        #expect(
            Self.issues(tool, ["placement": "x", "rules": [["paywallId": "p"]]]) == [
                "$.rules[0].when missing_required_field"
            ])
    }

    @Test func placementsTargetAPaywallOrAnExperiment() throws {
        let tool = try Self.tool("assign_placement")
        #expect(Self.issues(tool, ["placement": "onboarding", "paywallId": "pw_1"]) == [])
        #expect(Self.issues(tool, ["placement": "onboarding", "experimentId": "ex_1"]) == [])
        #expect(Self.issues(tool, ["placement": "onboarding", "paywallId": "pw_1", "experimentId": "ex_1"]) == [])
        #expect(Self.issues(tool, ["placement": "onboarding"]) == ["$ missing_required_field"])
        let rules = try Self.tool("set_placement_rules")
        #expect(
            Self.issues(
                rules, ["placement": "x", "rules": [["when": ["key": "a", "op": "exists"], "experimentId": "ex_1"]]])
                == [])
        #expect(
            Self.issues(rules, ["placement": "x", "rules": [["when": ["key": "a", "op": "exists"]]]]) == [
                "$.rules[0] missing_required_field"
            ])
    }

    @Test func contextValuesAreScalars() throws {
        let tool = try Self.tool("resolve_placement")
        #expect(Self.issues(tool, ["placement": "x", "context": ["a": 1, "b": "s", "c": true]]) == [])
        #expect(Self.issues(tool, ["placement": "x", "context": ["a": [1]]]) == ["$.context.a type_mismatch"])
    }
}
