/// Where a connection is in its life: one value with explicit transitions instead of independent
/// flags (`awaitingResponse`, `closeAfterResponse`, `lingering`, `closed`), so that impossible
/// combinations — lingering while a response is pending, reading after close — cannot be written.
///
///     reading ──request──▶ responding ──done, keep-alive──▶ reading
///                          responding ──done, close──▶ lingering or closed
///     reading ──admission offloaded──▶ admitting ──admitted, body to come──▶ reading
///                                      admitting ──admitted or refused──▶ responding
///     any ──▶ closed
enum ConnectionPhase: Equatable, Sendable {
    /// Waiting for a request or reading one.
    case reading
    /// A request is being handled or its response written; input waits. `thenClose`: the connection
    /// ends after this response (the client asked, an error, a drain, the peer half-closed).
    case responding(thenClose: Bool)
    /// A request's admission asked to run off the loop (`HTTPOffload`) and runs on the handler
    /// pool; input waits (not a byte is read, no further request parsed) until it returns.
    case admitting
    /// Half-closed after an error answer, discarding what the client still sends until a short
    /// deadline, so the answer is not destroyed by a reset.
    case lingering
    case closed

    var isResponding: Bool { if case .responding = self { return true } else { return false } }

    /// Whether the connection ends after the response in flight.
    var closesAfterResponse: Bool { self == .responding(thenClose: true) }

    /// Moves to `next`, checking that the step is one of the diagram's.
    mutating func transition(to next: ConnectionPhase) {
        switch (self, next) {
        case (.reading, .responding), (.responding, .reading), (.responding, .lingering),
            (.reading, .admitting), (.admitting, .reading), (.admitting, .responding):
            break
        case (.responding(let closing), .responding(let willClose)):
            // Only ever from keep-alive to close (a response cannot reopen a closing connection).
            precondition(willClose || !closing, "a closing connection cannot return to keep-alive")
        case (_, .closed) where self != .closed:
            break
        default:
            preconditionFailure("a connection cannot go from \(self) to \(next)")
        }
        self = next
    }
}
