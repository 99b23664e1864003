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
        request.setRemoteAddress(remoteAddress)
        request.requestID = RequestID.fromClient(request.headers) ?? loop.requestIDs.generate()
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
        // The loop's memo lent, not retained and released around the call (atomic instructions).
        let resolution = core.resolve(&request, memo: Unmanaged.passUnretained(loop.routeMemo))
        if bodyPending && !resolution.needsBody { return .answer(core.run(resolution.handler, request)) }
        switch core.admitInline(resolution, &request) {
        case .admitted: return .run(resolution)
        case .refused(let response): return .answer(response)
        case .offloaded: return .admitElsewhere(resolution)
        }
    }

    /// For a head whose body is still to come: routes and admits it, returning both for
    /// `startBody` (which keeps them in the phase for `dispatch`). A refusal (or a 404/405/501) is
    /// answered with the body unread and the connection closed after the answer, since the body's
    /// bytes would otherwise be read as the next request. Returns nil when the body is not to be
    /// read (refused, or not yet: while the admission runs elsewhere).
    func admitHead() -> (request: HTTPRequest, resolution: HTTPResolution)? {
        guard var request = parser.headOfPendingRequest else {
            preconditionFailure("the parser reported a complete head without its request")
        }
        prepare(&request)
        switch route(&request, bodyPending: true) {
        case .run(let resolution):
            return (request, resolution)
        case .answer(let response):
            refuseHead(response, for: request)
            return nil
        case .admitElsewhere(let resolution):
            admitElsewhere(request, resolution, bodyPending: true)
            return nil
        }
    }

    private func refuseHead(_ response: HTTPResponse, for request: HTTPRequest) {
        phase.respond(thenClose: true)
        updateRegistration()
        send(response, for: request)
    }

    /// Runs a parsed request: a body's head was admitted before the body was read (the phase holds
    /// it); any other request is routed and admitted now.
    func dispatch(_ parsed: consuming HTTPRequest) {
        if phase.isReadingBody {
            let admitted = phase.respondToBody()
            var request = admitted.request
            request.body = parsed.body
            handle(request, admitted.resolution)
            return
        }
        // Consumed: kept alive to the end of the scope, `parsed` would share the request's box,
        // and `prepare`'s first write would copy it.
        var request = consume parsed
        prepare(&request)
        switch route(&request, bodyPending: false) {
        case .run(let resolution):
            phase.respond(thenClose: false)
            handle(request, resolution)
        case .answer(let response):
            phase.respond(thenClose: false)
            send(response, for: request)
        case .admitElsewhere(let resolution):
            admitElsewhere(request, resolution, bodyPending: false)
        }
        // Answered on the loop, the request is held by nothing else: its head's buffer reads the
        // next head, and its box holds the next request.
        if let buffer = request.reclaimHeadBuffer() { parser.recycle(buffer, reusing: consume request) }
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
            self.loop.execute { self.send(response, for: request) }
        }
    }

    /// The admission threw `HTTPOffload` on the loop (it needs the database: an unknown key's
    /// catch-up): it runs again on the handler pool, in no tenant's partition (none is known yet),
    /// while the connection reads nothing, so neither the body nor a pipelined request moves on
    /// before the answer. No deadline runs meanwhile (`admitting` has none), as for a handler on
    /// the pool; a drain's deadline may close the connection, and the admission's outcome is then
    /// dropped. The phase keeps whether a body is to follow, for when the admission returns.
    private func admitElsewhere(_ request: HTTPRequest, _ resolution: HTTPResolution, bodyPending: Bool) {
        phase.admit(bodyPending: bodyPending)
        updateRegistration()
        let core = self.core
        core.handlerPool.submit(partition: "") { [self] in
            var admitting = request
            let refusal = core.admitOffloaded(resolution, &admitting)
            let admitted = admitting
            self.loop.execute { self.admissionReturned(admitted, resolution, refusal: refusal) }
        }
    }

    /// Back on the connection's loop: goes on exactly as if the admission had just returned (or
    /// thrown) on the loop.
    private func admissionReturned(_ request: HTTPRequest, _ resolution: HTTPResolution, refusal: HTTPResponse?) {
        guard case .admitting(let bodyPending) = phase else {
            precondition(isClosed, "only closing ends a connection's wait for its admission")
            return
        }
        switch (refusal, bodyPending) {
        case (nil, true):
            // Body bytes that came with the head wait in the inbox.
            guard startBody(of: request, resolution, bodyBytesArrived: !inbox.isEmpty) else { return }
            processInbox()
            if phase.isReading { updateRegistration() }
        case (nil, false):
            phase.respond(thenClose: false)
            handle(request, resolution)
        case (let response?, true):
            refuseHead(response, for: request)
        case (let response?, false):
            phase.respond(thenClose: false)
            send(response, for: request)
        }
    }

    func respondToParseError(_ error: HTTPParseError) {
        respondAndClose(HTTPError(error.status, code: error.code, detail: "The request was rejected: \(error.code)."))
    }

    func respondToTimeout() {
        guard phase.isReading else { return }
        respondAndClose(
            HTTPError(.requestTimeout, code: "request_timeout", detail: "The request was not received in time."))
    }

    /// Answers a request the server stops reading (parse error, timeout, body budget), then closes.
    func respondAndClose(_ problem: HTTPError, headers: [(String, String)] = []) {
        phase.respond(thenClose: true)
        updateRegistration()
        var response = problem.response
        for (name, value) in headers { response.headers[name] = value }
        var request = HTTPRequest(method: .other("-"), target: "", path: "", keepAlive: false)
        request.requestID = loop.requestIDs.generate()
        if core.timesResponses { exchange.startMicros = MonotonicClock.micros() }
        send(response, for: request)
    }
}
