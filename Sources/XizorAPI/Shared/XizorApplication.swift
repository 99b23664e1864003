import HTTP
import PaywallFormat
import PaywallRenderer
import XizorConsole
import XizorDomain

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
        /// Where pages may load media from (`renderer.mediaOrigins`).
        public var mediaOrigins = RenderOptions.defaultMediaOrigins
        /// Metrics, rate limits and readiness settings.
        public var operations = OperationsOptions()
        /// The most messages one MCP batch may hold (`mcp.maxBatchMessages`).
        public var mcpMaxBatchMessages = Options.defaultMCPMaxBatchMessages
        /// Context variants of one version's pages the cache keeps (`pageCache.maxContextVariants`).
        public var pageCacheMaxContextVariants = RepresentationCache.defaultMaxContextVariants
        /// Pages rendered past that cap at once per app (`pageCache.uncachedRendersPerApp`).
        public var uncachedRendersPerApp = RenderGate.defaultLimit
        /// The header a trusted proxy sets to the client's country (`targeting.countryHeader`).
        public var countryHeader: String?
        /// Where the console is served (`console.path`); nil when it is off (`console.enabled`).
        public var consolePath: String? = "/console"
        /// What shared caches may do with the SDK's answers (`cache.*`).
        public var edge = EdgeCaching()
        public static let defaultMCPMaxBatchMessages = 32
        public init(
            corsAllowedOrigins: [String] = [], version: String = "dev", lottiePlayerURL: String? = nil,
            operations: OperationsOptions = OperationsOptions(),
            mcpMaxBatchMessages: Int = Options.defaultMCPMaxBatchMessages
        ) {
            self.corsAllowedOrigins = corsAllowedOrigins
            self.version = version
            self.lottiePlayerURL = lottiePlayerURL
            self.operations = operations
            self.mcpMaxBatchMessages = mcpMaxBatchMessages
        }
    }

    /// `isDraining` lets `/readyz` answer 503 while the server drains.
    public static func routes(
        services: XizorServices, options: Options = Options(),
        isDraining: @escaping @Sendable () -> Bool
    ) -> RoutingTable {
        build(services: services, options: options, isDraining: isDraining).table
    }

    /// The routing table and the OpenAPI document built from the same declarations.
    public static func build(
        services: XizorServices, options: Options = Options(),
        isDraining: @escaping @Sendable () -> Bool
    ) -> (table: RoutingTable, document: JSONValue) {
        let rateLimits = RateLimitCounters()
        let ops = options.operations
        let limits = RateLimits(
            events: ops.eventsLimit.isEnabled ? RateLimiter(limit: ops.eventsLimit) : nil,
            writes: ops.writesLimit.isEnabled ? RateLimiter(limit: ops.writesLimit) : nil,
            authFailures: ops.authFailuresLimit.isEnabled ? RateLimiter(limit: ops.authFailuresLimit) : nil,
            counters: rateLimits)
        var routes = APIRoutes(guardian: RouteGuard(keys: services.keys, limits: limits, sessions: services.sessions))
        if !options.corsAllowedOrigins.isEmpty {
            routes.use(CORSMiddleware(allowedOrigins: options.corsAllowedOrigins))
        }
        routes.use(ServiceErrorMiddleware())
        let pages = PageRendering(
            lottiePlayerURL: options.lottiePlayerURL, mediaOrigins: options.mediaOrigins, activity: services.activity,
            assetLocation: services.assets.location)
        let previews = PreviewService(services: services, pages: pages)
        let delivery = PaywallDelivery(
            serving: services.serving, signing: services.signing,
            cache: RepresentationCache(maxContextVariants: options.pageCacheMaxContextVariants),
            renderGate: RenderGate(limit: options.uncachedRendersPerApp), edge: options.edge,
            assetLocation: services.assets.location,
            countryHeader: options.countryHeader, renderPage: pages.production)
        OperationsRoutes(
            readiness: ReadinessCheck(
                store: services.store, clock: services.clock, isDraining: isDraining,
                feedCaughtUp: { [changes = services.changes] in changes.isCaughtUp },
                dataDirectory: ops.dataDirectory, minimumFreeBytes: ops.minimumFreeBytes,
                expectedMigrations: ops.expectedMigrations, probeIntervalMs: ops.readinessProbeIntervalMs,
                logger: ops.logger),
            exposition: MetricsExposition(
                services: services, cache: delivery.cache, renderGate: delivery.renderGate,
                httpMetrics: ops.httpMetrics,
                rateLimits: rateLimits, isDraining: isDraining),
            metricsToken: ops.metricsToken, store: services.store, version: options.version
        ).register(in: &routes)
        if let consolePath = options.consolePath {
            do { ConsoleRoutes(site: try ConsoleSite(basePath: consolePath)).register(in: &routes) } catch {
                preconditionFailure("the embedded console cannot be read: \(error)")
            }  // a build defect, checked by ConsoleTests
        }
        AppRoutes(services: services).register(in: &routes)
        SessionRoutes(services: services, limits: limits).register(in: &routes)
        UserRoutes(services: services).register(in: &routes)
        InvitationRoutes(services: services, limits: limits).register(in: &routes)
        TwoFactorRoutes(services: services).register(in: &routes)
        SingleSignOnRoutes(services: services, limits: limits, consolePath: options.consolePath).register(in: &routes)
        TemplateRoutes().register(in: &routes)
        AssetRoutes(assets: services.assets).register(in: &routes)
        PaywallRoutes(services: services).register(in: &routes)
        VersionRoutes(services: services).register(in: &routes)
        PlacementRoutes(services: services).register(in: &routes)
        AudienceRoutes(services: services).register(in: &routes)
        SubscriberRoutes(services: services).register(in: &routes)
        ExperimentRoutes(services: services).register(in: &routes)
        AuditRoutes(services: services).register(in: &routes)
        WebhookRoutes(services: services).register(in: &routes)
        RevenueRoutes(services: services, logger: ops.logger, publicOrigin: services.assets.location.publicOrigin)
            .register(in: &routes)
        SDKRoutes(services: services, delivery: delivery).register(in: &routes)
        EventRoutes(services: services).register(in: &routes)
        TimerRoutes(services: services).register(in: &routes)
        PreviewRoutes(previews: previews).register(in: &routes)
        MCPRoutes(
            services: services, previews: previews, limits: limits, maxBatchMessages: options.mcpMaxBatchMessages,
            allowedOrigins: options.corsAllowedOrigins
        ).register(in: &routes)
        let built = routes.build(info: OpenAPIDocument.Info(version: options.version))
        ops.httpMetrics?.setRouteTemplates(built.table.routeTemplates)
        return built
    }
}
