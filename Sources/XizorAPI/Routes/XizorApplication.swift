import HTTP
import PaywallFormat

/// The server's routes, built once into a fixed routing table.
public enum XizorApplication {
    /// What the routes take from the configuration.
    public struct Options: Sendable {
        /// Browser origins (the dashboard) allowed by CORS.
        public var corsAllowedOrigins: [String] = []
        /// The Lottie player script pages load (`renderer.lottiePlayerURL`); nil shows fallbacks.
        public var lottiePlayerURL: String?
        public init(corsAllowedOrigins: [String] = [], lottiePlayerURL: String? = nil) {
            self.corsAllowedOrigins = corsAllowedOrigins
            self.lottiePlayerURL = lottiePlayerURL
        }
    }

    /// `isDraining` lets `/readyz` answer 503 while the server drains.
    public static func routes(services: XizorServices, options: Options = Options(),
                              isDraining: @escaping @Sendable () -> Bool) -> RoutingTable {
        var router = Router()
        if !options.corsAllowedOrigins.isEmpty { router.use(CORSMiddleware(allowedOrigins: options.corsAllowedOrigins)) }
        router.use(ServiceErrorMiddleware())
        let auth = Authenticator(keys: services.keys)
        router.get("/healthz", execution: .inline) { _ in
            APIResponse.json(["status": "ok"], headers: ["Cache-Control": "no-store"])
        }
        router.get("/readyz") { _ in
            if isDraining() {
                throw ServiceError(.unavailable, "draining", "The server is shutting down.")
            }
            do { try services.pool.write { db in try db.execute("CREATE TEMP TABLE IF NOT EXISTS readyz_probe (x INTEGER)") } }
            catch { throw ServiceError(.unavailable, "database_unwritable", "The database is not writable: \(error)") }
            return APIResponse.json(["status": "ready"], headers: ["Cache-Control": "no-store"])
        }
        AppRoutes(services: services, auth: auth).register(in: &router)
        TemplateRoutes(auth: auth).register(in: &router)
        PaywallRoutes(services: services, auth: auth).register(in: &router)
        PlacementRoutes(services: services, auth: auth).register(in: &router)
        ExperimentRoutes(services: services, auth: auth).register(in: &router)
        let pages = PageRendering(lottiePlayerURL: options.lottiePlayerURL)
        SDKRoutes(services: services, delivery: PaywallDelivery(serving: services.serving, renderPage: pages.production), auth: auth)
            .register(in: &router)
        PreviewRoutes(services: services, pages: pages, auth: auth).register(in: &router)
        MCPRoutes(services: services, auth: auth, allowedOrigins: options.corsAllowedOrigins).register(in: &router)
        return router.build()
    }
}
