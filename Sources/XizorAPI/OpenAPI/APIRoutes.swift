import HTTP
import PaywallFormat
import XizorDomain

/// The one place routes are declared: each call registers the handler in the `Router` and its
/// `OperationDoc` in the OpenAPI document, so an endpoint cannot exist without documentation (or
/// be documented without existing). The registering function names the route's authentication
/// (`open`, `store`, `admin`, `secret`, `publicKey`): it becomes the OpenAPI `security`, the admission the
/// server runs before reading the body, and the type of caller the handler receives, so the three
/// cannot disagree. `build` adds `GET /openapi.json` and freezes both.
public struct APIRoutes {
    private var router = Router()
    public private(set) var operations: [APIOperation] = []
    /// Turns each route's declared authentication into its admission.
    private let guardian: RouteGuard

    init(guardian: RouteGuard) { self.guardian = guardian }

    public mutating func use(_ middleware: any HTTPMiddleware) { router.use(middleware) }

    /// An open route (health, readiness, metrics): no key is asked for. `redacting` names path
    /// parameters that are credentials themselves (a preview link's token): logs leave them out.
    mutating func open(
        _ method: HTTPMethod, _ pattern: String, _ doc: OperationDoc,
        execution: HTTPExecution = .offloaded, redacting: Set<String> = [], _ handler: @escaping HTTPHandler
    ) {
        add(method, pattern, doc, auth: .none, execution: execution, redacting: redacting, handler)
    }

    /// A route an app store calls (docs/revenue.md): no key — the body proves itself (a signature, a
    /// configured Authorization value) — but the request is the app's of the `appId` path parameter for
    /// the handler threads' fair share and for a bucket of the writes limit of its own
    /// (`rateLimits.writes*`, apart from the app's keys'), and an address whose refusals emptied its
    /// failure bucket is answered 429 before any work. The handler reports a refusal through
    /// `failedAuthentication`.
    mutating func store(
        _ method: HTTPMethod, _ pattern: String, _ doc: OperationDoc,
        _ handler: @escaping @Sendable (HTTPRequest, _ failedAuthentication: () throws -> Void) throws -> HTTPResponse
    ) {
        var doc = doc
        doc.auth = APIAuth.none
        operations.append(APIOperation(method: method, pattern: pattern, doc: doc))
        let limits = guardian.limits
        let admission: HTTPAdmission = { request in
            try limits.admitUnverified(request)
            let app = request.parameter("appId")
            try limits.take(.writes, key: BucketKey(storeNotificationsOf: app), tokens: 1)
            request.partition = app
            request.context = StoreAdmission.shared
        }
        router.add(method, pattern, execution: .offloaded, admission: admission) { request in
            guard request.context is StoreAdmission else { throw RouteGuard.unadmitted(request) }
            return try handler(request) { try limits.failedAuthentication(request) }
        }
    }

    /// A route for the admin token; the handler runs only for a request that presented it.
    mutating func admin(
        _ method: HTTPMethod, _ pattern: String, _ doc: OperationDoc, execution: HTTPExecution = .offloaded,
        _ handler: @escaping @Sendable (HTTPRequest, AdminCaller) throws -> HTTPResponse
    ) {
        add(method, pattern, doc, auth: .admin, execution: execution) { request in
            guard let key = request.verifiedKey, case .admin = key.principal else {
                throw RouteGuard.unadmitted(request)
            }
            let actor =
                key.user.map { WriteActor(kind: .user, keyID: nil, via: .rest, requestID: request.requestId, user: $0) }
                ?? WriteActor(kind: .admin, keyID: key.id, via: .rest, requestID: request.requestId)
            return try WriteActor.$current.withValue(actor) {
                try handler(request, AdminCaller(keyID: key.id, user: key.user))
            }
        }
    }

    /// A dashboard route: the handler runs only for an app's secret key holding `scope`, and gets
    /// that app. Every secret route names its scope (nil only for MCP, whose tools each name theirs).
    mutating func secret(
        _ method: HTTPMethod, _ pattern: String, scope: APIScope?, _ doc: OperationDoc,
        execution: HTTPExecution = .offloaded,
        _ handler: @escaping @Sendable (HTTPRequest, AppCaller) throws -> HTTPResponse
    ) {
        var doc = doc
        doc.scope = scope
        add(method, pattern, doc, auth: .secret, execution: execution) { request in
            guard let key = request.verifiedKey, case .secret = key.principal else {
                throw RouteGuard.unadmitted(request)
            }
            let caller = key.caller
            return try WriteActor.$current.withValue(
                .key(caller, kind: .secret, via: .rest, requestID: request.requestId)
            ) {
                try handler(request, caller)
            }
        }
    }

    /// An SDK route: the handler runs only for an app's public key, and gets that app.
    mutating func publicKey(
        _ method: HTTPMethod, _ pattern: String, _ doc: OperationDoc, execution: HTTPExecution = .offloaded,
        inPath: Bool = false, _ handler: @escaping @Sendable (HTTPRequest, AppCaller) throws -> HTTPResponse
    ) {
        add(method, pattern, doc, auth: inPath ? .publicKeyInPath : .publicKey, execution: execution) { request in
            // The key lent by the request, and the caller it made once borrowed from it (a caller built
            // per request copied the app id and the key, retains and releases each).
            try request.withVerifiedKey { key in
                guard let key, case .publicKey = key.principal else { throw RouteGuard.unadmitted(request) }
                return try key.withCaller { try handler(request, $0) }
            }
        }
    }

    /// A person's own route (their session, their sessions): the handler runs only for a live
    /// session, and gets it.
    mutating func session(
        _ method: HTTPMethod, _ pattern: String, _ doc: OperationDoc,
        _ handler: @escaping @Sendable (HTTPRequest, SessionService.Verified) throws -> HTTPResponse
    ) {
        add(method, pattern, doc, auth: .session, execution: .offloaded) { request in
            guard let key = request.verifiedKey, case .person = key.principal, let session = key.session else {
                throw RouteGuard.unadmitted(request)
            }
            let actor = WriteActor(
                kind: .user, keyID: nil, via: .rest, requestID: request.requestId, user: session.actingUser)
            return try WriteActor.$current.withValue(actor) { try handler(request, session) }
        }
    }

    /// The one place a route is registered: its documentation (with the authentication the
    /// registering function names) and its admission are derived from the same declaration.
    private mutating func add(
        _ method: HTTPMethod, _ pattern: String, _ doc: OperationDoc, auth: APIAuth,
        execution: HTTPExecution, redacting: Set<String> = [], _ handler: @escaping HTTPHandler
    ) {
        var doc = doc
        doc.auth = auth
        operations.append(APIOperation(method: method, pattern: pattern, doc: doc))
        router.add(
            method, pattern, execution: execution, admission: guardian.admission(for: auth, scope: doc.scope),
            redacting: redacting, handler)
    }

    /// Adds `GET /openapi.json` (no auth; built once here, served with a strong ETag) and freezes the
    /// routes. The document covers every operation added before, including itself.
    public mutating func build(info: OpenAPIDocument.Info) -> (table: RoutingTable, document: JSONValue) {
        let doc = OperationDoc(
            "getOpenAPIDocument", summary: "This OpenAPI 3.1 document", tag: "meta",
            responses: [
                .json(
                    200, "The OpenAPI document of every endpoint.", ["type": "object"],
                    headers: [("ETag", "Strong tag of the document.")])
            ])
        operations.append(APIOperation(method: .GET, pattern: "/openapi.json", doc: doc))
        let document = OpenAPIDocument.build(operations: operations, info: info)
        // Encoded, tagged and compressed once, so serving it inline never compresses per request.
        let response = Representation(
            body: document.canonicalBytes,
            headers: ["Content-Type": "application/json", "Cache-Control": "no-cache"]
        ).response
        router.add(.GET, "/openapi.json", execution: .inline) { _ in response }
        return (router.build(), document)
    }
}

/// What a store route's admission leaves on the request: the handler refuses to run without it.
final class StoreAdmission: Sendable {
    static let shared = StoreAdmission()
}
