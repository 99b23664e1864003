import HTTP
import PaywallFormat

/// The one place routes are declared: each call registers the handler in the `Router` and its
/// `OperationDoc` in the OpenAPI document, so an endpoint cannot exist without documentation (or
/// be documented without existing). `build` adds `GET /openapi.json` and freezes both.
public struct APIRoutes {
    private var router = Router()
    public private(set) var operations: [APIOperation] = []

    public init() {}

    public mutating func use(_ middleware: any HTTPMiddleware) { router.use(middleware) }

    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ doc: OperationDoc,
                             execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler) {
        operations.append(APIOperation(method: method, pattern: pattern, doc: doc))
        router.add(method, pattern, execution: execution, handler)
    }

    public mutating func get(_ pattern: String, _ doc: OperationDoc, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler) {
        add(.GET, pattern, doc, execution: execution, handler)
    }
    public mutating func post(_ pattern: String, _ doc: OperationDoc, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler) {
        add(.POST, pattern, doc, execution: execution, handler)
    }
    public mutating func put(_ pattern: String, _ doc: OperationDoc, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler) {
        add(.PUT, pattern, doc, execution: execution, handler)
    }
    public mutating func delete(_ pattern: String, _ doc: OperationDoc, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler) {
        add(.DELETE, pattern, doc, execution: execution, handler)
    }

    /// Adds `GET /openapi.json` (no auth; built once here, served with a strong ETag) and freezes the
    /// routes. The document covers every operation added before, including itself.
    public mutating func build(info: OpenAPIDocument.Info) -> (table: RoutingTable, document: JSONValue) {
        let doc = OperationDoc("getOpenAPIDocument", summary: "This OpenAPI 3.1 document", tag: "meta", auth: .none,
                               responses: [.json(200, "The OpenAPI document of every endpoint.", ["type": "object"],
                                                 headers: [("ETag", "Strong tag of the document.")])])
        operations.append(APIOperation(method: .GET, pattern: "/openapi.json", doc: doc))
        let document = OpenAPIDocument.build(operations: operations, info: info)
        // Encoded, tagged and compressed once, so serving it inline never compresses per request.
        let response = Representation(body: document.canonicalBytes,
                                      headers: ["Content-Type": "application/json", "Cache-Control": "no-cache"]).response
        router.add(.GET, "/openapi.json", execution: .inline) { _ in response }
        return (router.build(), document)
    }
}
