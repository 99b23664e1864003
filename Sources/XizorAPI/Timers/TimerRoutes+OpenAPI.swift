import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `TimerRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension TimerRoutes {
    static let startTimer = OperationDoc(
        "startTimer", summary: "The persisted start of a duration timer (first write wins)", tag: "sdk",
        requestBody: APISchemas.ref("TimerRequest"),
        responses: [
            .json(201, "Started now.", APISchemas.ref("TimerStart")),
            .json(200, "Already started earlier: its start.", APISchemas.ref("TimerStart")),
        ])
}
