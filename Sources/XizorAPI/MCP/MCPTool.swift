import PaywallFormat
import XizorDomain

/// One MCP tool: what `tools/list` advertises and the thin adapter `tools/call` runs. The adapter
/// reads already-validated arguments, calls one service, and returns the service's JSON.
struct MCPTool: Sendable {
    let name: String
    /// What a secret key needs to see and call it, as its REST route (docs/integrations.md).
    let scope: APIScope
    let title: String
    let description: String
    let inputSchema: JSONValue
    let outputSchema: JSONValue?
    let readOnly: Bool
    let destructive: Bool
    let idempotent: Bool
    let run: @Sendable (ToolCall) throws -> JSONValue

    init(
        name: String, scope: APIScope, title: String, description: String, inputSchema: JSONValue,
        outputSchema: JSONValue? = nil,
        readOnly: Bool, destructive: Bool = false, idempotent: Bool,
        run: @escaping @Sendable (ToolCall) throws -> JSONValue
    ) {
        self.name = name
        self.scope = scope
        self.title = title
        self.description = description
        self.inputSchema = inputSchema
        self.outputSchema = outputSchema
        self.readOnly = readOnly
        self.destructive = destructive
        self.idempotent = idempotent
        self.run = run
    }

    /// The tool as `tools/list` lists it.
    var definition: JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(name), "title": .string(title), "description": .string(description),
            "inputSchema": inputSchema,
            "annotations": [
                "title": .string(title), "readOnlyHint": .bool(readOnly), "destructiveHint": .bool(destructive),
                "idempotentHint": .bool(idempotent), "openWorldHint": false,
            ],
        ]
        if let outputSchema { object["outputSchema"] = outputSchema }
        // The scope a key needs, for an agent (or a test) to see why a tool is missing elsewhere.
        object["_meta"] = ["dev.xizor/scope": .string(scope.rawValue)]
        return .object(object)
    }
}

/// The context of one tool call: the caller's app, the services, and the arguments (already
/// checked against the tool's input schema, so the accessors only guard against drift).
struct ToolCall: Sendable {
    /// The app and the key that called (a publish records which key published).
    let caller: AppCaller
    let services: XizorServices
    let previews: PreviewService
    let arguments: JSONValue

    var appID: String { caller.appID }

    func string(_ name: String) throws -> String {
        guard let value = arguments[name]?.stringValue else { throw ToolCall.missing(name, "a string") }
        return value
    }

    func optionalString(_ name: String) -> String? { arguments[name]?.stringValue }

    func int(_ name: String) throws -> Int {
        guard let value = arguments[name]?.intValue else { throw ToolCall.missing(name, "an integer") }
        return value
    }

    func optionalInt(_ name: String) -> Int? { arguments[name]?.intValue }

    func optionalInt64(_ name: String) -> Int64? { arguments[name]?.numberValue?.int64Value }

    func value(_ name: String) throws -> JSONValue {
        guard let value = arguments[name] else { throw ToolCall.missing(name, "given") }
        return value
    }

    /// A `context` argument (key → string, number or boolean) as the placement rules see it.
    func presentationContext(_ name: String = "context") -> PresentationContext {
        var context: PresentationContext = [:]
        for (key, value) in arguments[name]?.objectValue ?? [:] {
            if let typed = ContextValue(json: value) { context[key] = typed }
        }
        return context
    }

    private static func missing(_ name: String, _ what: String) -> ServiceError {
        ServiceError.badField("$.\(name)", "missing_required_field", "'\(name)' must be \(what).")
    }
}

/// Small builders for the tool schemas, so each schema reads like its documentation.
enum ToolSchema {
    static func object(_ properties: [String: JSONValue], required: [String] = [], extra: [String: JSONValue] = [:])
        -> JSONValue
    {
        var object: [String: JSONValue] = [
            "type": "object", "properties": .object(properties),
            "required": .array(required.map { .string($0) }), "additionalProperties": false,
        ]
        object.merge(extra) { _, new in new }
        return .object(object)
    }

    static func string(_ description: String, minLength: Int? = 1, maxLength: Int? = nil, oneOf values: [String]? = nil)
        -> JSONValue
    {
        var object: [String: JSONValue] = ["type": "string", "description": .string(description)]
        if let minLength { object["minLength"] = .number(minLength) }
        if let maxLength { object["maxLength"] = .number(maxLength) }
        if let values { object["enum"] = .array(values.map { .string($0) }) }
        return .object(object)
    }

    static func integer(_ description: String, minimum: Int? = nil, maximum: Int? = nil) -> JSONValue {
        var object: [String: JSONValue] = ["type": "integer", "description": .string(description)]
        if let minimum { object["minimum"] = .number(minimum) }
        if let maximum { object["maximum"] = .number(maximum) }
        return .object(object)
    }

    static func anyObject(_ description: String) -> JSONValue {
        ["type": "object", "description": .string(description)]
    }

    static let paywallID = string(
        "The paywall's id (pw_…), as create_paywall or list_paywalls answer it.", maxLength: 100)
    static let experimentID = string(
        "An A/B experiment's id, as the dashboard API's experiments answer it.", maxLength: 100)
    static let placementKey = string(
        "The placement key app code asks for, e.g. onboarding, upsell: \(PlacementService.keyRule).", maxLength: 100)
    static let revision = integer(
        "The draft revision you last read (get_paywall's draft.revision, or the revision a previous edit answered). "
            + "The edit applies only if the draft is still at this revision; otherwise it fails with draft_revision_mismatch and you reload.",
        minimum: 0)
    /// A presentation context: the typed key/values the app passes to present(...).
    static let context: JSONValue = [
        "type": "object",
        "description":
            "Presentation context keys and values as the app passes them (string, number or boolean), e.g. {\"wasReferred\": true, \"country\": \"DE\"}.",
        "additionalProperties": ["type": ["string", "number", "boolean"]],
    ]
    static let validationIssue: JSONValue = object(
        ["path": ["type": "string"], "message": ["type": "string"], "code": ["type": "string"]],
        required: ["path", "message", "code"])
    /// The shape of `{ok, errors, warnings}` as the validator answers it.
    static let validation: JSONValue = [
        "type": "object",
        "properties": [
            "ok": ["type": "boolean"], "errors": ["type": "array", "items": validationIssue],
            "warnings": ["type": "array", "items": validationIssue],
        ],
        "required": ["ok", "warnings"],
    ]
}
