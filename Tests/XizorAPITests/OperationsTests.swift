import Foundation
import HTTP
import Storage
import Testing

@testable import XizorAPI
@testable import XizorDomain

@Suite struct RateLimiterTests {
    let key = BucketKey(.publicKey(appID: "app_1"))

    @Test func aBurstThenTheRefillRate() {
        let limiter = RateLimiter(limit: RateLimit(perSecond: 2, burst: 3))
        for _ in 0..<3 { #expect(limiter.take(key, nowMicros: 0) == .allowed) }
        #expect(limiter.take(key, nowMicros: 0) == .limited(retryAfterSeconds: 1))
        // Half a second later one token (2/s) is back, and only one.
        #expect(limiter.take(key, nowMicros: 500_000) == .allowed)
        #expect(limiter.take(key, nowMicros: 500_000) == .limited(retryAfterSeconds: 1))
        // Long idle: the bucket holds at most `burst`.
        for _ in 0..<3 { #expect(limiter.take(key, nowMicros: 60_000_000) == .allowed) }
        #expect(limiter.take(key, nowMicros: 60_000_000) != .allowed)
    }

    @Test func retryAfterRoundsTheWaitUp() {
        let limiter = RateLimiter(limit: RateLimit(perSecond: 1, burst: 1))
        #expect(limiter.take(key, nowMicros: 0) == .allowed)
        #expect(limiter.take(key, nowMicros: 100_000) == .limited(retryAfterSeconds: 1))
        let slow = RateLimiter(limit: RateLimit(perSecond: 1, burst: 1))
        #expect(slow.take(key, nowMicros: 0) == .allowed)
        #expect(slow.take(key, nowMicros: 0) == .limited(retryAfterSeconds: 1))
        let slower = RateLimiter(limit: RateLimit(perSecond: 1, burst: 1))
        _ = slower.take(key, nowMicros: 0)
        // Refused attempts do not push the refill further away.
        for _ in 0..<10 { _ = slower.take(key, nowMicros: 10) }
        #expect(slower.take(key, nowMicros: 1_000_010) == .allowed)
    }

    /// Buckets keyed by client address must not grow with an attacker: past the cap, refilled
    /// buckets are forgotten, and when none has refilled, arbitrary ones down to half the cap.
    @Test func theTableOfBucketsStaysBounded() {
        let limiter = RateLimiter(limit: RateLimit(perSecond: 1, burst: 2), maxBuckets: 8)
        for i in 0..<100 { _ = limiter.take(BucketKey(client: "10.0.0.\(i)"), nowMicros: 0) }
        #expect(limiter.bucketCount <= 8)
        // Two seconds later every bucket has refilled: a new client makes room by forgetting them.
        _ = limiter.take(BucketKey(client: "10.0.1.1"), nowMicros: 2_000_000)
        #expect(limiter.bucketCount == 1)
        // A drained client keeps its empty bucket while others are forgotten only when needed.
        #expect(limiter.take(BucketKey(client: "10.0.1.1"), nowMicros: 2_000_000) == .allowed)
        #expect(limiter.take(BucketKey(client: "10.0.1.1"), nowMicros: 2_000_000) != .allowed)
    }

    @Test func keysHaveTheirOwnBuckets() {
        let limiter = RateLimiter(limit: RateLimit(perSecond: 1, burst: 1))
        #expect(limiter.take(key, nowMicros: 0) == .allowed)
        #expect(limiter.take(BucketKey(.secret(appID: "app_1")), nowMicros: 0) == .allowed)
        #expect(limiter.take(BucketKey(.publicKey(appID: "app_2")), nowMicros: 0) == .allowed)
        #expect(limiter.take(key, nowMicros: 0) != .allowed)
    }

    @Test func whichRequestsAreLimited() {
        func request(_ method: HTTPMethod, _ route: String?) -> HTTPRequest {
            var r = HTTPRequest(method: method, target: "/", path: "/")
            r.routeTemplate = route
            return r
        }
        #expect(RateLimitClass.of(request(.POST, "/v1/sdk/events")) == .events)
        #expect(RateLimitClass.of(request(.POST, "/v1/sdk/timers")) == .events)
        #expect(RateLimitClass.of(request(.GET, "/v1/sdk/placements/:key/paywall")) == nil)
        #expect(RateLimitClass.of(request(.PUT, "/v1/paywalls/:id/draft")) == .writes)
        #expect(RateLimitClass.of(request(.DELETE, "/v1/placements/:key")) == .writes)
        #expect(RateLimitClass.of(request(.GET, "/v1/paywalls")) == nil)
        #expect(RateLimitClass.of(request(.POST, nil)) == nil, "unrouted requests answer 404 without a bucket")
    }
}

@Suite struct PrometheusTextTests {
    @Test func familiesSamplesAndEscaping() {
        var out = PrometheusText()
        out.family("x_total", .counter, "Help with \\ and\nnewline.")
        out.sample("x_total", [("route", "/a\"b\\c\nd")], 3)
        out.sample("x_ratio", [], 0.25)
        #expect(
            out.text == """
                # HELP x_total Help with \\\\ and\\nnewline.
                # TYPE x_total counter
                x_total{route="/a\\"b\\\\c\\nd"} 3
                x_ratio 0.25

                """)
    }

    @Test func histogramsAreCumulativeWithInfAndCount() {
        var out = PrometheusText()
        out.histogram("h", [("r", "x")], bounds: [0.1, 1], counts: [2, 1, 4], sum: 9.5)
        #expect(
            out.text == """
                h_bucket{r="x",le="0.1"} 2
                h_bucket{r="x",le="1"} 3
                h_bucket{r="x",le="+Inf"} 7
                h_sum{r="x"} 9.5
                h_count{r="x"} 7

                """)
    }
}

@Suite struct HTTPMetricsTests {
    /// Each loop's responses go to its own row, written with plain stores; loops beyond the rows
    /// the metrics were made for share a row of atomic adds. A scrape sums the rows, so nothing is
    /// lost either way, even with writers running at once.
    @Test func eachLoopCountsInItsOwnRowAndExtraLoopsShareOne() async {
        let metrics = HTTPMetrics(routeCapacity: 4, loops: 2)
        metrics.setRouteTemplates(["/a"])
        await withTaskGroup(of: Void.self) { group in
            for loop in 0..<4 {
                group.addTask {
                    for _ in 0..<20_000 {
                        metrics.responseCompleted(
                            HTTPExchange(method: .GET, routeIndex: 0, status: 304, bytes: 3, micros: 5, loop: loop))
                    }
                }
            }
        }
        #expect(metrics.requestCount(route: "/a", status: 304) == 80_000)
        var out = PrometheusText()
        metrics.write(to: &out)
        #expect(out.text.contains("xizor_http_response_bytes_total{route=\"/a\"} 240000\n"))
        #expect(out.text.contains("xizor_http_request_duration_seconds_count{route=\"/a\"} 80000\n"))
    }

    @Test func responsesAreCountedByRouteMethodAndStatus() {
        let metrics = HTTPMetrics(routeCapacity: 4)
        metrics.setRouteTemplates(["/a", "/b/:id"])
        metrics.responseCompleted(
            HTTPExchange(method: .GET, routeIndex: 1, status: 200, bytes: 10, micros: 50, loop: 0))
        metrics.responseCompleted(
            HTTPExchange(method: .GET, routeIndex: 1, status: 304, bytes: 0, micros: 2_000_000, loop: 0))
        metrics.responseCompleted(
            HTTPExchange(method: .other("PURGE"), routeIndex: -1, status: 501, bytes: 5, micros: 1, loop: 0))
        metrics.responseCompleted(HTTPExchange(method: .GET, routeIndex: 99, status: 799, bytes: 0, micros: 1, loop: 0))
        metrics.connectionOpened()
        metrics.connectionOpened()
        metrics.connectionClosed()
        metrics.connectionRefused()
        #expect(metrics.requestCount(route: "/b/:id") == 2)
        #expect(metrics.requestCount(route: "/b/:id", status: 304) == 1)
        #expect(metrics.requestCount(route: "/a") == 0)
        #expect(metrics.requestCount(route: HTTPMetrics.unmatchedRoute) == 2)
        #expect(metrics.connectionsOpen == 1 && metrics.connectionsOpened == 2 && metrics.connectionsRefused == 1)
        var out = PrometheusText()
        metrics.write(to: &out)
        #expect(out.text.contains("xizor_http_requests_total{route=\"/b/:id\",method=\"GET\",status=\"304\"} 1\n"))
        #expect(
            out.text.contains("xizor_http_requests_total{route=\"(unmatched)\",method=\"other\",status=\"501\"} 1\n"))
        #expect(
            out.text.contains("xizor_http_requests_total{route=\"(unmatched)\",method=\"GET\",status=\"other\"} 1\n"))
        #expect(out.text.contains("xizor_http_request_duration_seconds_bucket{route=\"/b/:id\",le=\"0.0001\"} 1\n"))
        #expect(out.text.contains("xizor_http_request_duration_seconds_bucket{route=\"/b/:id\",le=\"1\"} 1\n"))
        #expect(out.text.contains("xizor_http_request_duration_seconds_bucket{route=\"/b/:id\",le=\"2.5\"} 2\n"))
        #expect(out.text.contains("xizor_http_request_duration_seconds_sum{route=\"/b/:id\"} 2.00005\n"))
        #expect(!out.text.contains("route=\"/a\""), "routes never answered have no samples")
    }
}

@Suite struct ReadinessTests {
    func services() throws -> XizorServices { try TestServices("readyz").services }

    func readyz(_ services: XizorServices, draining: Bool, _ operations: OperationsOptions = OperationsOptions()) -> (
        Int, String
    ) {
        let table = XizorApplication.routes(
            services: services, options: .init(operations: operations), isDraining: { draining })
        var request = HTTPRequest(method: .GET, target: "/readyz", path: "/readyz")
        let resolution = table.resolve(&request)
        let response: HTTPResponse
        do { response = try resolution.handler(request) } catch let error as HTTPError {
            response = error.response
        } catch {
            return (0, "\(error)")
        }
        guard case .bytes(let body) = response.body else { return (response.status.code, "") }
        return (response.status.code, String(decoding: body, as: UTF8.self))
    }

    @Test func readyWhenOpenMigratedAndWritable() throws {
        let services = try services()
        let (status, body) = readyz(services, draining: false)
        #expect(status == 200 && body == "{\"status\":\"ready\"}")
        // The probe really wrote: one committed write per check.
        let before = services.pool.metrics.snapshot().writesCommitted
        _ = readyz(services, draining: false)
        #expect(services.pool.metrics.snapshot().writesCommitted == before + 1)
    }

    /// Anyone may call /readyz: however many do, the durable write probe runs at most once per
    /// interval, and a failure names neither the data directory nor SQLite's error (the log does).
    @Test func theWriteProbeRunsOncePerIntervalAndAnswersCarryNoInternals() throws {
        let services = try services()
        let table = XizorApplication.routes(
            services: services, options: .init(operations: OperationsOptions()), isDraining: { false })
        func call() -> (Int, String) {
            var request = HTTPRequest(method: .GET, target: "/readyz", path: "/readyz")
            let response = (try? table.resolve(&request).handler(request)) ?? HTTPResponse(status: .internalServerError)
            guard case .bytes(let body) = response.body else { return (response.status.code, "") }
            return (response.status.code, String(decoding: body, as: UTF8.self))
        }
        let before = services.pool.metrics.snapshot().writesCommitted
        for _ in 0..<200 { #expect(call().0 == 200) }
        #expect(
            services.pool.metrics.snapshot().writesCommitted - before == 1,
            "one probe for 200 calls within the interval")

        var options = OperationsOptions(dataDirectory: FileManager.default.temporaryDirectory.path)
        options.readinessProbeIntervalMs = 0
        let unwritable = XizorApplication.routes(
            services: services, options: .init(operations: options), isDraining: { false })
        services.pool.close()
        var request = HTTPRequest(method: .GET, target: "/readyz", path: "/readyz")
        let response = try unwritable.resolve(&request).handler(request)
        guard case .bytes(let body) = response.body else {
            Issue.record("no body")
            return
        }
        let text = String(decoding: body, as: UTF8.self)
        #expect(response.status.code == 503 && text.contains("database_unwritable"))
        #expect(
            !text.contains(services.pool.path) && !text.contains("xizor.sqlite")
                && !text.lowercased().contains("sqlite"), "\(text)")
    }

    @Test func notReadyWhileDraining() throws {
        let (status, body) = readyz(try services(), draining: true)
        #expect(status == 503 && body.contains("\"code\":\"draining\""))
    }

    /// A process whose change feed failed its last poll may be missing other processes' writes.
    @Test func notReadyWhileTheChangeFeedIsBehind() throws {
        let services = try services()
        let readiness = { @Sendable (caughtUp: Bool) in
            ReadinessCheck(
                store: services.store, clock: services.clock, isDraining: { false }, feedCaughtUp: { caughtUp },
                dataDirectory: nil, minimumFreeBytes: 0, expectedMigrations: nil, probeIntervalMs: 0)
        }
        #expect(failsWith("changes_behind") { try readiness(false).check() })
        try readiness(true).check()
    }

    @Test func notReadyWithMigrationsMissingOrNoRoomOrAClosedDatabase() throws {
        let services = try services()
        var options = OperationsOptions(expectedMigrations: 99)
        #expect(readyz(services, draining: false, options).1.contains("\"code\":\"migrations_pending\""))
        options = OperationsOptions(dataDirectory: FileManager.default.temporaryDirectory.path)
        options.minimumFreeBytes = Int.max
        #expect(readyz(services, draining: false, options).1.contains("\"code\":\"disk_full\""))
        services.pool.close()
        let (status, body) = readyz(services, draining: false)
        #expect(status == 503 && body.contains("\"code\":\"database_unwritable\""))
    }
}

/// A full representation cache drops an eighth of its entries, not all of them; what it keeps it
/// still finds, and what it dropped it answers.
@Test func aFullRepresentationCacheEvictsAnEighthNotEverything() {
    var entries = HashChains<Int, Int>()
    for key in 0..<4096 { entries.insert(key, hash: key.hashValue, key * 2) }
    #expect(entries.count == 4096)
    let dropped = entries.evict(downTo: 4096 - 4096 / 8)
    #expect(entries.count == 3584 && dropped.count == 512 && Set(dropped).count == 512)
    for key in 0..<4096 {
        #expect(entries.find(key, hash: key.hashValue) == (dropped.contains(key) ? nil : key * 2))
    }
    let none = entries.evict(downTo: 5000)
    #expect(none.isEmpty && entries.count == 3584)
    let rest = entries.evict(downTo: -3)
    #expect(rest.count == 3584 && entries.count == 0)
}

/// Keys whose hashes are equal share a chain: each is found, replaced and evicted as itself.
@Test func keysOfOneHashShareAChainAndStayApart() {
    var entries = HashChains<String, Int>()
    let inserted = [entries.insert("a", hash: 7, 1), entries.insert("b", hash: 7, 2), entries.insert("c", hash: 9, 3)]
    #expect(inserted == [false, false, false])
    #expect(entries.find("a", hash: 7) == 1 && entries.find("b", hash: 7) == 2 && entries.find("c", hash: 7) == nil)
    let replaced = entries.insert("a", hash: 7, 10)
    #expect(replaced, "an equal key is replaced")
    #expect(entries.count == 3 && entries.find("a", hash: 7) == 10 && entries.find("b", hash: 7) == 2)
    let dropped = entries.evict(downTo: 1)
    #expect(entries.count <= 1 && entries.count + dropped.count == 3)
    for key in dropped { #expect(entries.find(key, hash: key == "c" ? 9 : 7) == nil) }
}
