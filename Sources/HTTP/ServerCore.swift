@preconcurrency import Dispatch
import Logging
import Synchronization

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
    /// Offloaded handlers run here, never on an I/O queue.
    let handlerPool: HandlerPool
    /// Streamed-body producers (which block while the client reads) run here.
    let streamPool: HandlerPool
    let openConnections = Atomic<Int>(0)
    /// Request bodies held in memory, all connections together.
    let bodyBudget: BodyBudget
    private let nextLoop = Atomic<Int>(0)

    init(configuration: HTTPServer.Configuration, responder: any HTTPResponder, logger: Logger, drainState: DrainState,
         observer: (any HTTPRequestObserver)? = nil) {
        self.configuration = configuration
        self.observer = observer
        timesResponses = configuration.accessLog || observer != nil
        self.responder = responder
        self.logger = logger
        self.drainState = drainState
        bodyBudget = BodyBudget(capacity: configuration.maxBufferedBodyBytes)
        loops = (0..<max(1, configuration.resolvedIOQueues)).map { IOLoop(index: $0) }
        handlerPool = HandlerPool(name: "xizor-handler", maxThreads: configuration.handlerThreads)
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

    /// Runs a handler, turning thrown errors into problem responses.
    func run(_ handler: HTTPHandler, _ request: HTTPRequest) -> HTTPResponse {
        do {
            return try handler(request)
        } catch let error as HTTPError {
            return error.response
        } catch {
            logger.error("handler failed", [("path", .string(request.path)), ("requestId", .string(request.requestId)),
                                            ("error", .string(String(describing: error)))])
            return HTTPError(.internalServerError, code: "internal_error",
                             detail: "The server failed to handle this request.").response
        }
    }

    func logAccess(method: HTTPMethod, path: String, status: Int, bytes: Int, micros: Int64,
                   requestId: String, remote: String) {
        logger.info("request", [
            ("method", .string(method.description)), ("path", .string(path)), ("status", .int(Int64(status))),
            ("bytes", .int(Int64(bytes))), ("micros", .int(micros)), ("requestId", .string(requestId)),
            ("remote", .string(remote)),
        ])
    }
}
