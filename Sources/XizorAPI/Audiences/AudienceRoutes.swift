import HTTP
import PaywallFormat
import XizorDomain

/// Named audiences (secret key): conditions written once, referred to by rules as `{"audience": ID}`.
struct AudienceRoutes {
    let services: XizorServices

    func register(in routes: inout APIRoutes) {
        let audiences = services.audiences
        let id = APIParameter.path("id", "The audience id: \(AudienceService.idRule).")
        routes.secret(
            .GET, "/v1/audiences", scope: .read,
            OperationDoc(
                "listAudiences", summary: "List audiences with the rules that use them", tag: "audiences",
                responses: [.json(200, "Every audience of the app, by id.", APISchemas.ref("AudienceList"))])
        ) { request, caller in
            APIResponse.json(["items": .array(try audiences.list(appID: caller.appID).map(\.json))])
        }
        routes.secret(
            .GET, "/v1/audiences/:id", scope: .read,
            OperationDoc(
                "getAudience", summary: "Read an audience", tag: "audiences", parameters: [id],
                responses: [.json(200, "The audience.", APISchemas.ref("Audience"))])
        ) { request, caller in
            APIResponse.json(try audiences.audience(appID: caller.appID, id: request.parameter("id")).json)
        }
        routes.secret(
            .PUT, "/v1/audiences/:id", scope: .placements,
            OperationDoc(
                "putAudience", summary: "Create or replace an audience",
                description:
                    "Live on the next SDK request for every rule that refers to it. Its condition cannot refer to another audience; 422 lists every error with its path.",
                tag: "audiences", parameters: [id], requestBody: APISchemas.ref("PutAudienceRequest"),
                responses: [
                    .json(201, "Created.", APISchemas.ref("Audience")),
                    .json(200, "Replaced.", APISchemas.ref("Audience")),
                    .problem(409, "`too_many_audiences`: the app has \(AudienceService.maxPerApp)."),
                ])
        ) { request, caller in
            let (audience, created) = try audiences.put(
                appID: caller.appID, id: request.parameter("id"), body: try request.jsonBody())
            return APIResponse.json(audience.json, status: created ? .created : .ok)
        }
        routes.secret(
            .DELETE, "/v1/audiences/:id", scope: .placements,
            OperationDoc(
                "deleteAudience", summary: "Delete an audience no rule uses", tag: "audiences", parameters: [id],
                responses: [
                    .empty(204, "Deleted."),
                    .problem(409, "`audience_in_use`: rules refer to it (named in the detail)."),
                ])
        ) { request, caller in
            try audiences.delete(appID: caller.appID, id: request.parameter("id"))
            return HTTPResponse(status: .noContent)
        }
    }
}
