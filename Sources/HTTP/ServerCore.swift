@preconcurrency import Dispatch
import Synchronization
import XizorLog

/// The state shared by every connection of one server: configuration, responder, loops and
/// counters. Immutable after start except for the atomics.
final class ServerCore: @unchecked Sendable {
    let configuration: HTTPServer.Configuration
    let responder: any HTTPResponder
    let logger: Logger
    let drainState: DrainState
    let observer: (any HTTPRequestObserver)?
    /// Whether responses are timed (for the access log or the observer).
    let timesResponses: Bool
    let loops: [IOLoop]
    /// Offloaded handlers run here, never on an I/O loop.
    let handlerPool: HandlerPool
    /// Streamed-body producers (which block while the client reads) run here.
    let streamPool: HandlerPool
    let openConnections = Atomic<Int>(0)
    /// Request bodies held in memory, all connections together.
    let bodyBudget: BodyBudget
    /// Nil when the access log is off (or the log level is above info).
    let accessLog: AccessLog?
    private let nextLoop = Atomic<Int>(0)

    init(
        configuration: HTTPServer.Configuration, responder: any HTTPResponder, logger: Logger, drainState: DrainState,
        observer: (any HTTPRequestObserver)? = nil
    ) {
        self.configuration = configuration
        self.observer = observer
        let logsAccess = configuration.accessLog && logger.isEnabled(.info)
        timesResponses = logsAccess || observer != nil
        self.responder = responder
        self.logger = logger
        self.drainState = drainState
        bodyBudget = BodyBudget(capacity: configuration.maxBufferedBodyBytes)
        loops = (0..<max(1, configuration.resolvedIOQueues)).map { IOLoop(index: $0) }
        accessLog =
            logsAccess
            ? AccessLog(
                loopCount: loops.count, options: configuration.accessLogOptions, sink: logger.rawSink,
                onDrop: { [observer] lines in observer?.accessLogLinesDropped(lines) }) : nil
        handlerPool = HandlerPool(
            name: "xizor-handler", maxThreads: configuration.handlerThreads,
            share: configuration.handlerThreadsPerPartition)
        streamPool = HandlerPool(name: "xizor-stream", maxThreads: configuration.handlerThreads)
    }

    func pickLoop() -> IOLoop {
        let i = nextLoop.add(1, ordering: .relaxed).oldValue
        return loops[i % loops.count]
    }

    func connectionClosed() {
        openConnections.subtract(1, ordering: .relaxed)
        observer?.connectionClosed()
    }

    // The next three are called on the core (or the resolution) whose constant they reach, and
    // not inlined: there the responder, the observer or the admission is lent to the call, where
    // reached through a connection's reference to the core it was retained and released around
    // it (two atomic instructions each per request; docs/benchmarks.md).

    /// The responder's resolution for `request`; `memo` is the calling loop's, lent.
    @inline(never)
    func resolve(_ request: inout HTTPRequest, memo: Unmanaged<RouteMemo>) -> HTTPResolution {
        memo._withUnsafeGuaranteedRef { responder.resolve(&request, memo: $0) }
    }

    /// Tells the observer, if any, of a finished exchange.
    @inline(never)
    func responseCompleted(_ exchange: HTTPExchange) { observer?.responseCompleted(exchange) }

    /// Runs a handler, turning thrown errors into problem responses.
    func run(_ handler: HTTPHandler, _ request: HTTPRequest) -> HTTPResponse {
        do {
            return try handler(request)
        } catch {
            return response(for: error, request)
        }
    }

    /// Runs an `.inline` handler on the I/O loop (`InlineExecution`); nil when it asked to be
    /// offloaded (`HTTPOffload`).
    func runInline(_ handler: HTTPHandler, _ request: HTTPRequest) -> HTTPResponse? {
        InlineExecution.run {
            do {
                return try handler(request)
            } catch is HTTPOffload {
                return nil
            } catch {
                return response(for: error, request)
            }
        }
    }

    /// What a route's admission decided on the I/O loop.
    enum Admission {
        case admitted
        case refused(HTTPResponse)
        /// It threw `HTTPOffload`: it needs more than memory and must run again off the loop.
        case offloaded
    }

    /// Runs a route's admission on the I/O loop, marked inline like an `.inline` handler (so the
    /// API layer's store guard holds for admissions too). The refusal's answer is made unmarked,
    /// as off the loop, since it runs the route's middleware rather than the admission.
    func admitInline(_ resolution: HTTPResolution, _ request: inout HTTPRequest) -> Admission {
        guard resolution.admission != nil else { return .admitted }
        let failure: (any Error)? = InlineExecution.run {
            do {
                try resolution.admit(&request)
                return nil
            } catch {
                return error
            }
        }
        guard let failure else { return .admitted }
        if failure is HTTPOffload { return .offloaded }
        return .refused(refusal(of: resolution, request, failure))
    }

    /// Runs a route's admission again on the handler pool, after it asked to leave the loop: nil
    /// when admitted, else the refusal's answer. An `HTTPOffload` thrown here is a refusal like
    /// any other error (a 500 through the route's middleware): there is nowhere further to go.
    func admitOffloaded(_ resolution: HTTPResolution, _ request: inout HTTPRequest) -> HTTPResponse? {
        guard let admission = resolution.admission else { return nil }
        do {
            try admission(&request)
            return nil
        } catch {
            return refusal(of: resolution, request, error)
        }
    }

    /// A refused admission's answer: the route's refusal (its middleware) or, without one, the
    /// error's own response.
    private func refusal(of resolution: HTTPResolution, _ request: HTTPRequest, _ error: any Error) -> HTTPResponse {
        let refusal = resolution.refusal
        return run(
            { request in
                guard let refusal else { throw error }
                return try refusal(request, error)
            }, request)
    }

    private func response(for error: any Error, _ request: HTTPRequest) -> HTTPResponse {
        if let error = error as? HTTPError { return error.response }
        logger.error(
            "handler failed",
            [
                ("path", .string(request.loggedPath)), ("requestId", .string(request.requestId)),
                ("error", .string(String(describing: error))),
            ])
        return HTTPError(
            .internalServerError, code: "internal_error",
            detail: "The server failed to handle this request."
        ).response
    }

}
