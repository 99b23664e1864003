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
        /// Metrics, rate limits and readiness settings.
        public var operations = OperationsOptions()
        public init(corsAllowedOrigins: [String] = [], version: String = "dev", lottiePlayerURL: String? = nil,
                    operations: OperationsOptions = OperationsOptions()) {
            self.corsAllowedOrigins = corsAllowedOrigins
            self.version = version
            self.lottiePlayerURL = lottiePlayerURL
            self.operations = operations
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
        let pages = PageRendering(lottiePlayerURL: options.lottiePlayerURL)
        let delivery = PaywallDelivery(serving: services.serving, renderPage: pages.production)
        let ops = options.operations
        let rateLimits = RateLimitCounters()
        routes.use(RateLimitMiddleware(auth: auth, events: ops.eventsLimit.isEnabled ? RateLimiter(limit: ops.eventsLimit) : nil,
                                       writes: ops.writesLimit.isEnabled ? RateLimiter(limit: ops.writesLimit) : nil,
                                       counters: rateLimits))
        OperationsRoutes(
            readiness: ReadinessCheck(pool: services.pool, clock: services.clock, isDraining: isDraining,
                                      dataDirectory: ops.dataDirectory, minimumFreeBytes: ops.minimumFreeBytes,
                                      expectedMigrations: ops.expectedMigrations),
            exposition: MetricsExposition(services: services, cache: delivery.cache, httpMetrics: ops.httpMetrics,
                                          rateLimits: rateLimits, isDraining: isDraining),
            metricsToken: ops.metricsToken, auth: auth, pool: services.pool, version: options.version
        ).register(in: &routes)
        AppRoutes(services: services, auth: auth).register(in: &routes)
        TemplateRoutes(auth: auth).register(in: &routes)
        PaywallRoutes(services: services, auth: auth).register(in: &routes)
        PlacementRoutes(services: services, auth: auth).register(in: &routes)
        ExperimentRoutes(services: services, auth: auth).register(in: &routes)
        SDKRoutes(services: services, delivery: delivery, auth: auth).register(in: &routes)
        PreviewRoutes(services: services, pages: pages, auth: auth).register(in: &routes)
        MCPRoutes(services: services, auth: auth, allowedOrigins: options.corsAllowedOrigins).register(in: &routes)
        let built = routes.build(info: OpenAPIDocument.Info(version: options.version))
        ops.httpMetrics?.setRouteTemplates(built.table.routeTemplates)
        return built
    }
}
