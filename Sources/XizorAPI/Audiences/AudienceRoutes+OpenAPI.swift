import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `AudienceRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension AudienceRoutes {
    /// The `{id}` path parameter the operations share.
    static let idParameter = APIParameter.path("id", "The audience id: \(AudienceService.idRule).")

    static let listAudiences = OperationDoc(
        "listAudiences", summary: "List audiences with the rules that use them", tag: "audiences",
        responses: [.json(200, "Every audience of the app, by id.", APISchemas.ref("AudienceList"))])

    static let listTargetingKeys = OperationDoc(
        "listTargetingKeys", summary: "List the keys a condition may name",
        description:
            "For a key picker: every request attribute (`device.*`), the app's audiences, and the subscriber attribute and context keys found in a bounded sample (at most \(TargetingKeys.sampleRows) stored subscribers' attributes and as many stored events' context; at most \(TargetingKeys.maxKeys) keys of each, sorted). Keys the sample misses may still be written.",
        tag: "audiences",
        responses: [.json(200, "The keys, by kind.", APISchemas.ref("TargetingKeys"))])

    static let getAudience = OperationDoc(
        "getAudience", summary: "Read an audience", tag: "audiences", parameters: [idParameter],
        responses: [.json(200, "The audience.", APISchemas.ref("Audience"))])

    static let putAudience = OperationDoc(
        "putAudience", summary: "Create or replace an audience",
        description:
            "Live on the next SDK request for every rule that refers to it. Its condition cannot refer to another audience; 422 lists every error with its path.",
        tag: "audiences", parameters: [idParameter], requestBody: APISchemas.ref("PutAudienceRequest"),
        responses: [
            .json(201, "Created.", APISchemas.ref("Audience")),
            .json(200, "Replaced.", APISchemas.ref("Audience")),
            .problem(409, "`too_many_audiences`: the app has \(AudienceService.maxPerApp)."),
        ])

    static let deleteAudience = OperationDoc(
        "deleteAudience", summary: "Delete an audience no rule uses", tag: "audiences", parameters: [idParameter],
        responses: [
            .empty(204, "Deleted."),
            .problem(409, "`audience_in_use`: rules refer to it (named in the detail)."),
        ])
}
