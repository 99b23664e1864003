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
        /// Metrics, rate limits and readiness settings.
        public var operations = OperationsOptions()
        public init(corsAllowedOrigins: [String] = [], lottiePlayerURL: String? = nil,
                    operations: OperationsOptions = OperationsOptions()) {
            self.corsAllowedOrigins = corsAllowedOrigins
            self.lottiePlayerURL = lottiePlayerURL
            self.operations = operations
        }
    }

    /// `isDraining` lets `/readyz` answer 503 while the server drains.
    public static func routes(services: XizorServices, options: Options = Options(),
                              isDraining: @escaping @Sendable () -> Bool) -> RoutingTable {
        var router = Router()
        if !options.corsAllowedOrigins.isEmpty { router.use(CORSMiddleware(allowedOrigins: options.corsAllowedOrigins)) }
        router.use(ServiceErrorMiddleware())
        let auth = Authenticator(keys: services.keys)
        let pages = PageRendering(lottiePlayerURL: options.lottiePlayerURL)
        let delivery = PaywallDelivery(serving: services.serving, renderPage: pages.production)
        let ops = options.operations
        let rateLimits = RateLimitCounters()
        router.use(RateLimitMiddleware(auth: auth, events: ops.eventsLimit.isEnabled ? RateLimiter(limit: ops.eventsLimit) : nil,
                                       writes: ops.writesLimit.isEnabled ? RateLimiter(limit: ops.writesLimit) : nil,
                                       counters: rateLimits))
        OperationsRoutes(
            readiness: ReadinessCheck(pool: services.pool, clock: services.clock, isDraining: isDraining,
                                      dataDirectory: ops.dataDirectory, minimumFreeBytes: ops.minimumFreeBytes,
                                      expectedMigrations: ops.expectedMigrations),
            exposition: MetricsExposition(services: services, cache: delivery.cache, httpMetrics: ops.httpMetrics,
                                          rateLimits: rateLimits, isDraining: isDraining),
            metricsToken: ops.metricsToken
        ).register(in: &router)
        AppRoutes(services: services, auth: auth).register(in: &router)
        TemplateRoutes(auth: auth).register(in: &router)
        PaywallRoutes(services: services, auth: auth).register(in: &router)
        PlacementRoutes(services: services, auth: auth).register(in: &router)
        ExperimentRoutes(services: services, auth: auth).register(in: &router)
        SDKRoutes(services: services, delivery: delivery, auth: auth).register(in: &router)
        PreviewRoutes(services: services, pages: pages, auth: auth).register(in: &router)
        MCPRoutes(services: services, auth: auth, allowedOrigins: options.corsAllowedOrigins).register(in: &router)
        let table = router.build()
        ops.httpMetrics?.setRouteTemplates(table.routeTemplates)
        return table
    }
}
