import HTTP
import PaywallFormat

/// The server's routes, built once into a fixed routing table.
public enum XizorApplication {
    /// What the routes take from the configuration.
    public struct Options: Sendable {
        /// Browser origins (the dashboard) allowed by CORS.
        public var corsAllowedOrigins: [String] = []
        /// The server's version, shown in the OpenAPI document's `info`.
        public var version: String = "dev"
        /// The Lottie player script pages load (`renderer.lottiePlayerURL`); nil shows fallbacks.
        public var lottiePlayerURL: String?
        public init(corsAllowedOrigins: [String] = [], version: String = "dev", lottiePlayerURL: String? = nil) {
            self.corsAllowedOrigins = corsAllowedOrigins
            self.version = version
            self.lottiePlayerURL = lottiePlayerURL
        }
    }

    /// `isDraining` lets `/readyz` answer 503 while the server drains.
    public static func routes(services: XizorServices, options: Options = Options(),
                              isDraining: @escaping @Sendable () -> Bool) -> RoutingTable {
        build(services: services, options: options, isDraining: isDraining).table
    }

    /// The routing table and the OpenAPI document built from the same declarations.
    public static func build(services: XizorServices, options: Options = Options(),
                             isDraining: @escaping @Sendable () -> Bool) -> (table: RoutingTable, document: JSONValue) {
        var routes = APIRoutes()
        if !options.corsAllowedOrigins.isEmpty { routes.use(CORSMiddleware(allowedOrigins: options.corsAllowedOrigins)) }
        routes.use(ServiceErrorMiddleware())
        let auth = Authenticator(keys: services.keys)
        routes.get("/healthz", OperationDoc(
            "getHealth", summary: "Liveness: the process answers", tag: "meta", auth: .none,
            responses: [.json(200, "Alive.", APISchemas.ref("Health"))]), execution: .inline) { _ in
            APIResponse.json(["status": "ok"], headers: ["Cache-Control": "no-store"])
        }
        routes.get("/readyz", OperationDoc(
            "getReadiness", summary: "Readiness: not draining and the database is writable", tag: "meta", auth: .none,
            responses: [.json(200, "Ready.", APISchemas.ref("Health")),
                        .problem(503, "Draining, or the database is not writable.")])) { _ in
            if isDraining() {
                throw ServiceError(.unavailable, "draining", "The server is shutting down.")
            }
            do { try services.pool.write { db in try db.execute("CREATE TEMP TABLE IF NOT EXISTS readyz_probe (x INTEGER)") } }
            catch { throw ServiceError(.unavailable, "database_unwritable", "The database is not writable: \(error)") }
            return APIResponse.json(["status": "ready"], headers: ["Cache-Control": "no-store"])
        }
        AppRoutes(services: services, auth: auth).register(in: &routes)
        TemplateRoutes(auth: auth).register(in: &routes)
        PaywallRoutes(services: services, auth: auth).register(in: &routes)
        PlacementRoutes(services: services, auth: auth).register(in: &routes)
        ExperimentRoutes(services: services, auth: auth).register(in: &routes)
        let pages = PageRendering(lottiePlayerURL: options.lottiePlayerURL)
        SDKRoutes(services: services, delivery: PaywallDelivery(serving: services.serving, renderPage: pages.production), auth: auth)
            .register(in: &routes)
        PreviewRoutes(services: services, pages: pages, auth: auth).register(in: &routes)
        MCPRoutes(services: services, auth: auth, allowedOrigins: options.corsAllowedOrigins).register(in: &routes)
        return routes.build(info: OpenAPIDocument.Info(version: options.version))
    }
}
