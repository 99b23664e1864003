import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `PaywallRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension PaywallRoutes {
    static let createPaywall = OperationDoc(
        "createPaywall", summary: "Create a paywall: blank, from a template or from a document",
        tag: "paywalls",
        requestBody: APISchemas.ref("CreatePaywallRequest"), requestBodyRequired: false,
        responses: [
            .json(
                201, "The new paywall; its draft holds the document.", APISchemas.ref("PaywallSummary"),
                headers: [("Location", "The paywall's URL.")])
        ])

    static let listPaywalls = OperationDoc(
        "listPaywalls", summary: "List live (unarchived) paywalls in creation order, a page at a time",
        description: "With `archived=true`, the archived ones instead (to find one to unarchive).",
        tag: "paywalls",
        parameters: PageSize.parameters + [
            .query(
                "archived", "`true`: list archived paywalls instead of live ones.",
                schema: ["type": "boolean", "default": false])
        ],
        responses: [
            .json(200, "A page of paywalls.", APISchemas.ref("PaywallPage")),
            .problem(400, "`limit`, `cursor` or `archived` is malformed."),
        ])

    static let getPaywall = OperationDoc(
        "getPaywall", summary: "Read a paywall", tag: "paywalls", parameters: [.path("id", "A paywall id.")],
        responses: [.json(200, "The paywall.", APISchemas.ref("PaywallSummary"))])

    static let archivePaywall = OperationDoc(
        "archivePaywall", summary: "Archive a paywall",
        description:
            "Archived paywalls leave lists and cannot be published; placements pointing at one keep serving its last version until reassigned (the answer's `warning` says so).",
        tag: "paywalls", parameters: [.path("id", "A paywall id.")],
        responses: [.json(200, "The archived paywall.", APISchemas.ref("ArchivedPaywall"))])

    static let unarchivePaywall = OperationDoc(
        "unarchivePaywall", summary: "Unarchive a paywall",
        description:
            "An archived paywall is live again: listed, publishable and assignable, its draft and versions as they were (`paywall.unarchived` in the audit log and to webhooks). A live paywall is answered unchanged, and nothing is recorded.",
        tag: "paywalls", parameters: [.path("id", "A paywall id.")],
        responses: [.json(200, "The paywall, live.", APISchemas.ref("PaywallSummary"))])

    static let renamePaywall = OperationDoc(
        "renamePaywall", summary: "Rename a paywall",
        description:
            "`{name}` (1 to 200 characters) becomes the paywall's name and its draft document's `name` (a new draft revision; saving a draft whose document has another `name` renames it too). `If-Match` with the draft's ETag is optional: with it, a stale draft answers 412. Published versions keep their names.",
        tag: "paywalls",
        parameters: [
            .path("id", "A paywall id."),
            .header("If-Match", "Optional: the draft's ETag; the rename then applies only to that revision."),
        ],
        requestBody: APISchemas.ref("RenamePaywallRequest"),
        responses: [
            .json(200, "The renamed paywall.", APISchemas.ref("PaywallSummary")),
            .problem(412, "If-Match does not match the draft's ETag."),
        ])

    static let getDraft = OperationDoc(
        "getDraft", summary: "Read the draft with its validation", tag: "drafts",
        parameters: [.path("id", "A paywall id.")],
        responses: [
            .json(
                200, "The draft.", APISchemas.ref("Draft"),
                headers: [("ETag", "Send it back as If-Match to save.")]),
            .problem(
                409,
                "`stored_draft_too_large`: the stored draft is over the JSON parser's limits (8 MiB, 128 levels); replace it with PUT (If-Match: *)."
            ),
        ])

    static let saveDraft = OperationDoc(
        "saveDraft", summary: "Save the draft (any JSON object) under If-Match",
        description:
            "428 without If-Match, 412 when it is stale: two editors never silently overwrite each other.",
        tag: "drafts",
        parameters: [
            .path("id", "A paywall id."),
            .header("If-Match", "The draft's ETag from GET …/draft (or `*`).", required: true),
        ],
        requestBody: [
            "type": "object",
            "description":
                "The paywall document (it may be invalid while editing), or the draft as GET …/draft answers it: its `document` is saved.",
        ],
        responses: [
            .json(
                200, "The saved draft with its validation.", APISchemas.ref("Draft"),
                headers: [("ETag", "The new revision's tag.")]),
            .problem(412, "If-Match does not match the draft's ETag."),
            .problem(428, "If-Match is missing."),
        ])

    static let getDraftTexts = OperationDoc(
        "getDraftTexts", summary: "Every text of the draft in every locale", tag: "drafts",
        parameters: [.path("id", "A paywall id.")],
        responses: [
            .json(
                200, "The texts, with missing locales per path.", APISchemas.ref("DraftTexts"),
                headers: [("ETag", "The draft's ETag.")])
        ])

    static let setDraftTexts = OperationDoc(
        "setDraftTexts", summary: "Set many translations of one locale by path",
        description:
            "Adds the locale to `locales` when new. Same If-Match rule as saving the draft; unknown paths reject the whole request (422).",
        tag: "drafts",
        parameters: [
            .path("id", "A paywall id."), .path("locale", "A locale tag like en, de-AT or pt-BR."),
            .header("If-Match", "The draft's ETag from GET …/draft (or `*`).", required: true),
        ],
        requestBody: APISchemas.ref("SetTextsRequest"),
        responses: [
            .json(
                200, "The saved draft.", APISchemas.ref("Draft"), headers: [("ETag", "The new revision's tag.")]
            ),
            .problem(412, "If-Match does not match the draft's ETag."),
            .problem(428, "If-Match is missing."),
        ])
}
