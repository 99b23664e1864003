/// Routing, admission and dispatch of a parsed request, and the answers the server gives itself
/// (parse errors, timeouts, the body budget).
extension Connection {
    /// What routing a request decided: the resolution to run, the answer to give at once, or that
    /// its admission must run again off the loop.
    enum Routing {
        case run(HTTPResolution)
        case answer(HTTPResponse)
        case admitElsewhere(HTTPResolution)
    }

    /// Fills in what the server knows of a request (peer, request id) and starts its clock.
    func prepare(_ request: inout HTTPRequest) {
        request.remoteAddress = remoteAddress
        request.requestId = RequestID.fromClient(request.headers) ?? RequestID.generate()
        if core.timesResponses { exchange.startMicros = loop.inRound ? loop.roundStartMicros : MonotonicClock.micros() }
    }

    /// Finds the route and applies its admission (marked inline: memory only). With `bodyPending`,
    /// answers that never need the body (404, 405, OPTIONS) are given now rather than after reading it.
    func route(_ request: inout HTTPRequest, bodyPending: Bool) -> Routing {
        if case .other = request.method {
            return .answer(
                HTTPError(
                    .notImplemented, code: "method_not_implemented",
                    detail: "The method \(request.method) is not implemented."
                ).response)
        }
        let resolution = core.responder.resolve(&request)
        if bodyPending && !resolution.needsBody { return .answer(core.run(resolution.handler, request)) }
        switch core.admitInline(resolution, &request) {
        case .admitted: return .run(resolution)
        case .refused(let response): return .answer(response)
        case .offloaded: return .admitElsewhere(resolution)
        }
    }

    /// For a head whose body is still to come: routes and admits it, keeping both for `dispatch`.
    /// A refusal (or a 404/405/501) is answered with the body unread and the connection closed
    /// after the answer, since the body's bytes would otherwise be read as the next request.
    /// Returns whether to go on reading the body (false too while the admission runs elsewhere).
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
            refuseHead(response, for: request)
            return false
        case .admitElsewhere(let resolution):
            admitElsewhere(request, resolution, bodyPending: true)
            return false
        }
    }

    private func refuseHead(_ response: HTTPResponse, for request: HTTPRequest) {
        phase.transition(to: .responding(thenClose: true))
        pauseReading()
        send(response, for: request)
    }

    func dispatch(_ parsed: consuming HTTPRequest) {
        deadlineAction = .none
        if let admitted {
            self.admitted = nil
            var request = admitted.request
            request.body = parsed.body
            phase.transition(to: .responding(thenClose: false))
            handle(request, admitted.resolution)
            return
        }
        // Consumed: kept alive to the end of the scope, `parsed` would share the request's box,
        // and `prepare`'s first write would copy it.
        var request = consume parsed
        prepare(&request)
        switch route(&request, bodyPending: false) {
        case .run(let resolution):
            phase.transition(to: .responding(thenClose: false))
            handle(request, resolution)
        case .answer(let response):
            phase.transition(to: .responding(thenClose: false))
            send(response, for: request)
        case .admitElsewhere(let resolution):
            admitElsewhere(request, resolution, bodyPending: false)
        }
    }

    /// Runs an admitted request's handler: inline on the loop, or on the handler pool.
    private func handle(_ request: HTTPRequest, _ resolution: HTTPResolution) {
        if resolution.execution == .inline, let response = core.runInline(resolution.handler, request) {
            send(response, for: request)
            return
        }
        // Offloaded, or inline and asked to be (`HTTPOffload`): on the pool, in the request's
        // partition, so one tenant's slow requests wait behind each other, not before others'.
        let core = self.core
        core.handlerPool.submit(partition: request.partition) { [self] in
            let response = core.run(resolution.handler, request)
            self.queue.async { self.send(response, for: request) }
        }
    }

    /// The admission threw `HTTPOffload` on the loop (it needs the database: an unknown key's
    /// catch-up): it runs again on the handler pool, in no tenant's partition (none is known yet),
    /// while the connection reads nothing, so neither the body nor a pipelined request moves on
    /// before the answer. No deadline runs meanwhile, as for a handler on the pool; a drain's
    /// deadline may close the connection, and the admission's outcome is then dropped.
    private func admitElsewhere(_ request: HTTPRequest, _ resolution: HTTPResolution, bodyPending: Bool) {
        phase.transition(to: .admitting)
        deadlineAction = .none
        pauseReading()
        let core = self.core
        core.handlerPool.submit(partition: "") { [self] in
            var admitting = request
            let refusal = core.admitOffloaded(resolution, &admitting)
            let admitted = admitting
            self.queue.async {
                self.admissionReturned(admitted, resolution, refusal: refusal, bodyPending: bodyPending)
            }
        }
    }

    /// Back on the connection's queue: goes on exactly as if the admission had just returned (or
    /// thrown) on the loop.
    private func admissionReturned(
        _ request: HTTPRequest, _ resolution: HTTPResolution, refusal: HTTPResponse?, bodyPending: Bool
    ) {
        guard phase == .admitting else {
            precondition(isClosed, "only closing ends a connection's wait for its admission")
            return
        }
        switch (refusal, bodyPending) {
        case (nil, true):
            phase.transition(to: .reading)
            admitted = (request, resolution)
            // Body bytes that came with the head wait in the inbox.
            guard startBody(bodyBytesArrived: !inbox.isEmpty) else { return }
            processInbox()
            if phase == .reading { resumeReading() }
        case (nil, false):
            phase.transition(to: .responding(thenClose: false))
            handle(request, resolution)
        case (let response?, true):
            refuseHead(response, for: request)
        case (let response?, false):
            phase.transition(to: .responding(thenClose: false))
            send(response, for: request)
        }
    }

    func respondToParseError(_ error: HTTPParseError) {
        respondAndClose(HTTPError(error.status, code: error.code, detail: "The request was rejected: \(error.code)."))
    }

    func respondToTimeout() {
        guard phase == .reading else { return }
        respondAndClose(
            HTTPError(.requestTimeout, code: "request_timeout", detail: "The request was not received in time."))
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
