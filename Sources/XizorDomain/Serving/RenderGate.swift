import Synchronization

/// At most `limit` uncached page renders per app at once. Renders past the page cache's context
/// variant cap are paid per request, so one app's clients sending unique context values could keep
/// every core rendering; the gate turns the excess into 503s for that app alone, never a queue.
public final class RenderGate: Sendable {
    public let limit: Int
    private let running = Mutex<[String: Int]>([:])
    private let refusals = Atomic<Int>(0)

    public init(limit: Int = RenderGate.defaultLimit) {
        precondition(limit >= 1, "a render gate admits at least one render")
        self.limit = limit
    }

    public static let defaultLimit = 2

    /// Runs `render` if the app has a free slot; 503 `render_busy` with `Retry-After` otherwise.
    public func run<T>(appID: String, _ render: () throws -> T) throws -> T {
        let admitted = running.withLock { counts -> Bool in
            let current = counts[appID, default: 0]
            guard current < limit else { return false }
            counts[appID] = current + 1
            return true
        }
        guard admitted else {
            refusals.add(1, ordering: .relaxed)
            throw ServiceError(
                .unavailable, "render_busy",
                "Too many pages with distinct context values are rendering for this app; retry shortly.",
                retryAfterSeconds: 1)
        }
        defer {
            running.withLock { counts in
                let current = counts[appID, default: 0]
                precondition(current > 0, "a render gate slot was released twice")
                counts[appID] = current == 1 ? nil : current - 1
            }
        }
        return try render()
    }

    /// Renders refused since start.
    public var refusalCount: Int { refusals.load(ordering: .relaxed) }
}
