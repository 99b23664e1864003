import Foundation

/// The server could not answer now (5xx or 429): worth falling back, not worth reporting as the answer.
struct ServerUnavailable: Error, Sendable {
    var status: Int
}

/// network → disk cache → bundled fallback → typed error, without making the user wait: the
/// network gets `cacheTimeout` when there is something else to show, `requestTimeout` otherwise.
actor PaywallLoader {
    private let transport: Transport
    private let cache: PaywallCache
    private let fallback: FallbackBundle?
    private let cacheTimeout: TimeInterval
    /// One request per key at a time: a preload and a presentation of the same placement share it.
    /// Entries are numbered so that a finished request removes its own entry and no later one.
    private var inFlight: [String: (number: UInt64, task: Task<PaywallAnswer, Error>)] = [:]
    private var requestsStarted: UInt64 = 0

    init(transport: Transport, cache: PaywallCache, fallback: FallbackBundle?, cacheTimeout: TimeInterval) {
        self.transport = transport
        self.cache = cache
        self.fallback = fallback
        self.cacheTimeout = cacheTimeout
    }

    func answer(_ request: PaywallRequest) async throws -> PaywallAnswer {
        let cached = await cache.entry(for: request.cacheKey)
        let bundled =
            request.format == .document ? fallback?.paywall(for: request.placement).map { localized($0, request) } : nil
        // Parsed only when it is the answer: a revalidation parses the body once, not twice.
        func alternative() -> PaywallAnswer? {
            cached.flatMap { try? $0.answer(request: request, source: .cache) } ?? bundled.map(PaywallAnswer.paywall)
        }
        let network = fetchTask(request, cached: cached)

        let outcome: RaceOutcome<PaywallAnswer>
        if cached != nil || bundled != nil {
            outcome = await race(network, timeout: cacheTimeout)
            if case .timedOut = outcome, let alternative = alternative() { return alternative }
            if case .timedOut = outcome { return try await waitOut(network, request) }
        } else {
            outcome = .finished(await network.result)
        }
        guard case .finished(let result) = outcome else { preconditionFailure("only a race times out") }
        switch result {
        case .success(let answer):
            return answer
        case .failure(let error as XizorError) where error.isRejection:
            throw error
        case .failure(let error):
            if let alternative = alternative() { return alternative }
            throw XizorError.unavailable(placement: request.placement, underlying: Self.describe(error))
        }
    }

    /// The cached copy turned out unreadable after the race was lost: wait for the network after all.
    private func waitOut(_ network: Task<PaywallAnswer, Error>, _ request: PaywallRequest) async throws -> PaywallAnswer
    {
        do { return try await network.value } catch let error as XizorError where error.isRejection {
            throw error
        } catch {
            throw XizorError.unavailable(placement: request.placement, underlying: Self.describe(error))
        }
    }

    /// The task runs on this actor, so its entry is removed before its result can be seen: a caller
    /// that has the answer and asks again starts a new request (a revalidation) instead of joining
    /// the finished one (as it did when a separate task removed the entry later).
    private func fetchTask(_ request: PaywallRequest, cached: StoredResponse?) -> Task<PaywallAnswer, Error> {
        let key = request.cacheKey
        if let running = inFlight[key] { return running.task }
        requestsStarted += 1
        let number = requestsStarted
        let task = Task { [transport, cache] in
            do {
                let answer = try await Self.fetch(request, cached: cached, transport: transport, cache: cache)
                self.finished(key, number)
                return answer
            } catch {
                self.finished(key, number)
                throw error
            }
        }
        inFlight[key] = (number, task)
        return task
    }

    private func finished(_ key: String, _ number: UInt64) {
        if inFlight[key]?.number == number { inFlight[key] = nil }
    }

    /// One request, revalidating the cached copy with `If-None-Match`; every answer worth keeping
    /// (200, 204, a 304's confirmation) is written to the cache before it is returned.
    private static func fetch(
        _ request: PaywallRequest, cached: StoredResponse?, transport: Transport,
        cache: PaywallCache
    ) async throws -> PaywallAnswer {
        guard let url = request.url(base: transport.baseURL) else {
            throw XizorError.rejected(
                status: 0, code: "invalid_placement", detail: "'\(request.placement)' does not make a URL")
        }
        var headers = ["Accept": request.accept]
        if let etag = cached?.etag { headers["If-None-Match"] = etag }
        let response = try await transport.send("GET", url, headers: headers)
        let now = Date().timeIntervalSince1970
        switch response.status {
        case 304:
            guard var entry = cached else { throw XizorError.invalidResponse("304 without a cached copy") }
            entry.confirmedAt = now
            let answer = try entry.answer(request: request, source: .revalidated)
            await cache.confirm(entry)
            return answer
        case 200, 204:
            let entry = StoredResponse(
                key: request.cacheKey, status: response.status, etag: response.header("ETag"),
                headers: StoredResponse.keptHeaders(response.headers), body: response.body, confirmedAt: now)
            let answer = try entry.answer(request: request, source: .network)
            await cache.store(entry)
            return answer
        case 429, 500...:
            throw ServerUnavailable(status: response.status)
        case 400..<500:
            // The server says this placement has nothing (or this key may not ask): a cached
            // copy must not outlive that answer.
            await cache.remove(request.cacheKey)
            let problem = response.problem
            throw XizorError.rejected(status: response.status, code: problem.code, detail: problem.detail)
        default:
            throw XizorError.invalidResponse("status \(response.status)")
        }
    }

    /// A bundled document holds every locale; the answer names the one asked for when it has it.
    private func localized(_ paywall: Paywall, _ request: PaywallRequest) -> Paywall {
        guard let wanted = request.locale, case .array(let locales)? = paywall.document?["locales"],
            locales.contains(.string(wanted))
        else { return paywall }
        var localized = paywall
        localized.locale = wanted
        return localized
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case let failure as NetworkFailure: "network: \(failure.description)"
        case let unavailable as ServerUnavailable: "the server answered \(unavailable.status)"
        case let error as XizorError: error.localizedDescription
        default: String(describing: error)
        }
    }
}

extension XizorError {
    /// A definitive answer from the server (4xx), as opposed to not getting one.
    var isRejection: Bool { if case .rejected = self { return true } else { return false } }
}
