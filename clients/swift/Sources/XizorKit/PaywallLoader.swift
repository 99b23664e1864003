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
    private let verifier: AnswerVerifier
    /// One request per key at a time: a preload and a presentation of the same placement share it.
    /// Entries are numbered so that a finished request removes its own entry and no later one.
    private var inFlight: [String: (number: UInt64, task: Task<PaywallAnswer, Error>)] = [:]
    private var requestsStarted: UInt64 = 0

    init(
        transport: Transport, cache: PaywallCache, fallback: FallbackBundle?, cacheTimeout: TimeInterval,
        verifier: AnswerVerifier
    ) {
        self.transport = transport
        self.cache = cache
        self.fallback = fallback
        self.cacheTimeout = cacheTimeout
        self.verifier = verifier
    }

    func answer(_ request: PaywallRequest) async throws -> PaywallAnswer {
        let cached = await cache.entry(for: request.cacheKey)
        let bundled =
            request.format == .document ? fallback?.paywall(for: request.placement).map { localized($0, request) } : nil
        // Parsed only when it is the answer: a revalidation parses the body once, not twice.
        func alternative() async -> PaywallAnswer? {
            if let cached, let answer = await cachedAnswer(request, cached) { return answer }
            return bundled.map(PaywallAnswer.paywall)
        }
        let network = fetchTask(request, cached: cached)

        let outcome: RaceOutcome<PaywallAnswer>
        if cached != nil || bundled != nil {
            outcome = await race(network, timeout: cacheTimeout)
            if case .timedOut = outcome {
                if let alternative = await alternative() { return alternative }
                return try await waitOut(network, request)
            }
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
            if let alternative = await alternative() { return alternative }
            throw XizorError.unavailable(placement: request.placement, underlying: Self.describe(error))
        }
    }

    /// The disk cache's answer to `request`, as the network's would be understood: its stored
    /// signature checked (under `.enforced` a copy that no longer verifies, a key unpinned since, is
    /// not used), and an allocation resolved to the cached paywall of this subscriber's variant.
    private func cachedAnswer(_ request: PaywallRequest, _ cached: StoredResponse) async -> PaywallAnswer? {
        guard
            let first = try? Self.understand(
                cached, signature: cached.signature, request: request, source: .cache, verifier: verifier)
        else {
            return nil
        }
        switch first.meaning {
        case .answer(let answer):
            return answer
        case .allocation(let allocation):
            switch allocation.choice(for: request.subscriberId) {
            case nil: return nil
            case .holdout?: return .holdout(experimentId: allocation.experimentId)
            case .variant(let variant)?:
                let key = request.variantCacheKey(experimentId: allocation.experimentId, variant: variant)
                guard let entry = await cache.entry(for: key),
                    let second = try? Self.understand(
                        entry, signature: entry.signature, request: request, source: .cache, verifier: verifier)
                else { return nil }
                switch second.meaning {
                case .answer(.paywall(var paywall)):
                    paywall.verification = second.verification.combined(withAllocation: first.verification)
                    return .paywall(paywall)
                case .answer(let answer): return answer
                case .allocation: return nil
                }
            }
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
        let task = Task { [transport, cache, verifier] in
            do {
                let answer = try await Self.fetch(
                    request, cached: cached, transport: transport, cache: cache, verifier: verifier)
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

    /// The placement's answer from the network. When it is an allocation, the subscriber's bucket
    /// picks the variant (or the holdout) and a second request fetches that variant's paywall; both
    /// revalidate their cached copies. A variant the server no longer knows (the experiment changed
    /// since the allocation was cached, here or in a CDN) is retried once with a fresh allocation.
    private static func fetch(
        _ request: PaywallRequest, cached: StoredResponse?, transport: Transport, cache: PaywallCache,
        verifier: AnswerVerifier
    ) async throws -> PaywallAnswer {
        guard let url = request.url(base: transport.baseURL, publicKey: transport.publicKey) else {
            throw XizorError.rejected(
                status: 0, code: "invalid_placement", detail: "'\(request.placement)' does not make a URL")
        }
        var revalidate = true
        while true {
            let first = try await exchange(
                url, key: request.cacheKey, cached: revalidate ? cached : nil, request: request, transport: transport,
                cache: cache, verifier: verifier)
            let allocation: ExperimentAllocation
            switch first.meaning {
            case .answer(let answer): return answer
            case .allocation(let value): allocation = value
            }
            let variant: String
            switch allocation.choice(for: request.subscriberId) {
            case nil: throw XizorError.invalidResponse("an allocation, but this build has no SHA-256 for its bucket")
            case .holdout?: return .holdout(experimentId: allocation.experimentId)
            case .variant(let name)?: variant = name
            }
            guard
                let variantURL = PaywallRequest.variantURL(url, experimentId: allocation.experimentId, variant: variant)
            else { throw XizorError.invalidResponse("the allocation's experiment id does not make a URL") }
            let key = request.variantCacheKey(experimentId: allocation.experimentId, variant: variant)
            let second: Understood
            do {
                second = try await exchange(
                    variantURL, key: key, cached: revalidate ? await cache.entry(for: key) : nil, request: request,
                    transport: transport, cache: cache, verifier: verifier)
            } catch let error as XizorError where revalidate && error.code == "variant_not_found" {
                revalidate = false
                continue
            }
            switch second.meaning {
            case .answer(.paywall(var paywall)):
                paywall.verification = second.verification.combined(withAllocation: first.verification)
                return .paywall(paywall)
            case .answer(let answer):
                // The server answers what the placement serves now (the allocation was stale): as is.
                return answer
            case .allocation where revalidate:
                // The placement reaches another experiment since this allocation: start over, afresh.
                revalidate = false
            case .allocation:
                throw XizorError.invalidResponse("an allocation answered a variant's request twice")
            }
        }
    }

    /// A response understood: what it means and what its signature check said.
    private struct Understood {
        var meaning: StoredResponse.Meaning
        var verification: Paywall.Verification
    }

    /// Checks `signature` for `entry` and understands it; throws when it cannot be understood, or did
    /// not verify under `.enforced`.
    private static func understand(
        _ entry: StoredResponse, signature: String?, request: PaywallRequest, source: Paywall.Source,
        verifier: AnswerVerifier
    ) throws -> Understood {
        let verification = verifier.check(
            signature: signature, placement: request.placement, status: entry.status, body: entry.body)
        try verifier.enforce(verification)
        return Understood(
            meaning: try entry.meaning(request: request, source: source, verification: verification),
            verification: verification)
    }

    /// One request, revalidating the cached copy with `If-None-Match`; every answer worth keeping
    /// (200, 204, a 304's confirmation) is checked, understood and then written to the cache before it
    /// is returned, so what did not verify or parse is never stored.
    private static func exchange(
        _ url: URL, key: String, cached: StoredResponse?, request: PaywallRequest, transport: Transport,
        cache: PaywallCache, verifier: AnswerVerifier
    ) async throws -> Understood {
        var headers = request.headers
        if let etag = cached?.etag { headers["If-None-Match"] = etag }
        let response = try await transport.send("GET", url, headers: headers, authorized: false)
        let now = Date().timeIntervalSince1970
        switch response.status {
        case 304:
            guard var entry = cached else { throw XizorError.invalidResponse("304 without a cached copy") }
            // The 304 carries the signature of the 200 it confirms, checked against the cached body: the
            // one stored with the copy does not stand in for it, so a 304 stripped of it confirms nothing.
            let signature = response.header(AnswerVerifier.header)
            let understood = try understand(
                entry, signature: signature, request: request, source: .revalidated, verifier: verifier)
            entry.confirmedAt = now
            if let signature, signature != entry.signature, !understood.verification.isFailure {
                // Signed anew (by a rotated key, say): kept on disk, so the copy still verifies offline.
                // A signature that did not verify never replaces one that may have.
                entry.headers["x-xizor-signature"] = signature
                await cache.store(entry)
            } else {
                await cache.confirm(entry)
            }
            return understood
        case 200, 204:
            let entry = StoredResponse(
                key: key, status: response.status, etag: response.header("ETag"),
                headers: StoredResponse.keptHeaders(response.headers), body: response.body, confirmedAt: now)
            let understood = try understand(
                entry, signature: entry.signature, request: request, source: .network, verifier: verifier)
            await cache.store(entry)
            return understood
        case 429, 500...:
            throw ServerUnavailable(status: response.status)
        case 400..<500:
            // The server says this placement has nothing (or this key may not ask): a cached
            // copy must not outlive that answer.
            await cache.remove(key)
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

    /// The problem's `code` of a rejection.
    var code: String? { if case .rejected(_, let code, _) = self { return code } else { return nil } }
}
