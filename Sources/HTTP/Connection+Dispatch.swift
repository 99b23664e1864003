/// Routing, admission and dispatch of a parsed request, and the answers the server gives itself
/// (parse errors, timeouts, the body budget).
extension Connection {
    /// What routing a request decided: the resolution to run, or the answer to give at once.
    enum Routing {
        case run(HTTPResolution)
        case answer(HTTPResponse)
    }

    /// Fills in what the server knows of a request (peer, request id) and starts its clock.
    func prepare(_ request: inout HTTPRequest) {
        request.remoteAddress = remoteAddress
        request.requestId = RequestID.fromClient(request.headers) ?? RequestID.generate()
        if core.timesResponses { exchange.startMicros = loop.inRound ? loop.roundStartMicros : MonotonicClock.micros() }
    }

    /// Finds the route and applies its admission. With `bodyPending`, answers that never need the
    /// body (404, 405, OPTIONS) are given now rather than after reading it.
    func route(_ request: inout HTTPRequest, bodyPending: Bool) -> Routing {
        if case .other = request.method {
            return .answer(HTTPError(.notImplemented, code: "method_not_implemented",
                                     detail: "The method \(request.method) is not implemented.").response)
        }
        let resolution = core.responder.resolve(&request)
        if bodyPending && !resolution.needsBody { return .answer(core.run(resolution.handler, request)) }
        if let admission = resolution.admission {
            do {
                try admission(&request)
            } catch {
                let refusal = resolution.refusal
                return .answer(core.run({ request in
                    guard let refusal else { throw error }
                    return try refusal(request, error)
                }, request))
            }
        }
        return .run(resolution)
    }

    /// For a head whose body is still to come: routes and admits it, keeping both for `dispatch`.
    /// A refusal (or a 404/405/501) is answered with the body unread and the connection closed
    /// after the answer, since the body's bytes would otherwise be read as the next request.
    /// Returns whether to go on reading the body.
    func admitHead() -> Bool {
        guard var request = parser.headOfPendingRequest else {
            preconditionFailure("the parser reported a complete head without its request")
        }
        prepare(&request)
        switch route(&request, bodyPending: true) {
        case .run(let resolution):
            admitted = (request, resolution)
            return true
        case .answer(let response):
            phase.transition(to: .responding(thenClose: true))
            pauseReading()
            send(response, for: request)
            return false
        }
    }

    func dispatch(_ parsed: consuming HTTPRequest) {
        phase.transition(to: .responding(thenClose: false))
        deadlineAction = .none
        var request: HTTPRequest
        let resolution: HTTPResolution
        if let admitted {
            self.admitted = nil
            request = admitted.request
            request.body = parsed.body
            resolution = admitted.resolution
        } else {
            // Consumed: kept alive to the end of the scope, `parsed` would share the request's box,
            // and `prepare`'s first write would copy it.
            request = consume parsed
            prepare(&request)
            switch route(&request, bodyPending: false) {
            case .run(let found):
                resolution = found
            case .answer(let response):
                send(response, for: request)
                return
            }
        }
        if resolution.execution == .inline, let response = core.runInline(resolution.handler, request) {
            send(response, for: request)
            return
        }
        // Offloaded, or inline and asked to be (`HTTPOffload`): on the pool, in the request's
        // partition, so one tenant's slow requests wait behind each other, not before others'.
        let core = self.core
        let offloaded = request
        core.handlerPool.submit(partition: offloaded.partition) { [self] in
            let response = core.run(resolution.handler, offloaded)
            self.queue.async { self.send(response, for: offloaded) }
        }
    }

    func respondToParseError(_ error: HTTPParseError) {
        respondAndClose(HTTPError(error.status, code: error.code, detail: "The request was rejected: \(error.code)."))
    }

    func respondToTimeout() {
        guard phase == .reading else { return }
        respondAndClose(HTTPError(.requestTimeout, code: "request_timeout", detail: "The request was not received in time."))
    }

    /// Answers a request the server stops reading (parse error, timeout, body budget), then closes.
    func respondAndClose(_ problem: HTTPError, headers: [(String, String)] = []) {
        phase.transition(to: .responding(thenClose: true))
        pauseReading()
        var response = problem.response
        for (name, value) in headers { response.headers[name] = value }
        var request = HTTPRequest(method: .other("-"), target: "", path: "", keepAlive: false)
        request.requestId = RequestID.generate()
        if core.timesResponses { exchange.startMicros = MonotonicClock.micros() }
        send(response, for: request)
    }
}
