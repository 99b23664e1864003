/// Where a connection is in its life, and what that phase needs: one value with explicit, checked
/// transitions instead of a phase beside a dozen fields (an admitted head, its body's charge and
/// deadline, a write waiting for the socket, its completion, a deadline and its action, the bytes a
/// lingering close discarded), so that impossible combinations cannot be written: a write waiting
/// while reading, a body charged while lingering, a deadline left over from a step that is over.
/// Each case carries its own data (as postgres-nio's state machines do): what belongs to one phase
/// is gone when the phase ends, unless a transition hands it on (a body's charge to its response).
/// The connection's deadline and the events it waits for are read from the phase, never assigned
/// beside it.
///
///     reading(idle) ──first byte──▶ reading(head) ──head admitted──▶ reading(body)
///     reading ──request──▶ responding ──done, keep-alive──▶ reading(idle)
///                          responding ──done, close──▶ lingering or closed
///     reading ──admission offloaded──▶ admitting ──admitted, body to come──▶ reading(body)
///                                      admitting ──admitted or refused──▶ responding
///     any ──▶ closed
///
/// A value type, changed in place through `Connection.phase` (`@exclusivity(unchecked)`), on the hot
/// path of every request: the steps of a plain request (reading → responding → reading) move no
/// reference-counted payload, and the transitions move rather than copy what they keep.
enum ConnectionPhase {
    /// Waiting for a request or reading one; what is being read sets the deadline.
    case reading(Reading)
    /// A request's admission asked to run off the loop (`HTTPOffload`) and runs on the handler
    /// pool; input waits (not a byte is read, no further request parsed) until it returns, and no
    /// deadline runs (as for a handler on the pool). `bodyPending`: the head announced a body, so
    /// an admission goes on to read it and a refusal closes after its answer.
    case admitting(bodyPending: Bool)
    /// A request is being handled or its response written; input waits.
    case responding(Responding)
    /// Half-closed after an error answer, discarding what the client still sends until `until`,
    /// so the answer is not destroyed by a reset; `discarded` counts what was thrown away
    /// (`Connection.lingerByteCap`).
    case lingering(discarded: Int, until: Int64)
    case closed

    /// What a reading connection is reading; each stage has its deadline.
    enum Reading {
        /// Between requests, no byte of the next one yet: closed if none comes by `until`.
        case idle(until: Int64)
        /// A request's first bytes arrived: its head must be complete by `until` (408 otherwise).
        case head(until: Int64)
        /// The body of a head routed and admitted before a byte of it was read.
        case body(Body)

        /// The bytes charged for the body being read (0 when none is).
        var charged: Int {
            if case .body(let body) = self { return body.charged }
            return 0
        }
    }

    /// A body being read, with the head it belongs to (admitted already, kept for `dispatch`).
    struct Body {
        let request: HTTPRequest
        let resolution: HTTPResolution
        /// Bytes charged to the server's `BodyBudget` for this body; handed on to the response,
        /// which refunds them once it is being sent (the handler holds the body until then).
        var charged = 0
        /// When the whole body must have arrived (`http.bodyDeadlineMs` after its head).
        let completeBy: Int64
        /// When the next read must have brought bytes (`http.bodyReadTimeoutMs` after the last).
        var nextReadBy: Int64
    }

    /// A request being answered.
    struct Responding {
        /// The connection ends after this response (the client asked, an error, a drain, the peer
        /// half-closed); once set, never unset.
        var thenClose: Bool
        /// The request's body charge (`Body.charged`), refunded when its response is sent.
        var charged = 0
        /// Response bytes the socket has not taken yet; nil while the handler runs or the socket
        /// took everything.
        var write: WaitingWrite?
    }

    /// Part of a response waiting for the socket to become writable.
    struct WaitingWrite {
        var bytes: PendingWrite
        /// What to do once they are on the wire.
        let then: Connection.AfterWrite
        /// The socket must take more of them by then (`http.writeTimeoutMs` after the last progress).
        var until: Int64
    }

    /// Which deadline is running, and so what its expiry does: `request` answers 408, the others
    /// close.
    enum DeadlineAction { case idle, request, write, linger }

    /// The deadline the phase runs, if any: derived, so no step can leave one behind.
    var deadline: (at: Int64, action: DeadlineAction)? {
        switch self {
        case .reading(.idle(let until)): return (until, .idle)
        case .reading(.head(let until)): return (until, .request)
        case .reading(.body(let body)): return (min(body.nextReadBy, body.completeBy), .request)
        case .responding(let responding): return responding.write.map { ($0.until, .write) }
        case .lingering(_, let until): return (until, .linger)
        case .admitting, .closed: return nil
        }
    }

    /// What the connection waits for from its socket: input while it reads, and while it lingers
    /// (to discard it); room for a response's remaining bytes while they wait; else nothing. Never
    /// both: a response waiting to be written holds back input.
    enum Interest { case nothing, input, output }

    var interest: Interest {
        switch self {
        case .reading, .lingering: return .input
        case .responding(let responding): return responding.write == nil ? .nothing : .output
        case .admitting, .closed: return .nothing
        }
    }

    var wantsRead: Bool { interest == .input }
    var wantsWrite: Bool { interest == .output }

    var isReading: Bool { if case .reading = self { return true } else { return false } }
    var isReadingBody: Bool { if case .reading(.body) = self { return true } else { return false } }
    var isAdmitting: Bool { if case .admitting = self { return true } else { return false } }
    var isResponding: Bool { if case .responding = self { return true } else { return false } }
    var isLingering: Bool { if case .lingering = self { return true } else { return false } }
    var isClosed: Bool { if case .closed = self { return true } else { return false } }

    /// Whether the connection ends after the response in flight.
    var closesAfterResponse: Bool {
        if case .responding(let responding) = self { return responding.thenClose }
        return false
    }

    /// The bytes charged for the body being read (0 when none is).
    var bodyCharged: Int {
        if case .reading(let reading) = self { return reading.charged }
        return 0
    }

    /// The response's remaining bytes waiting for the socket, if any.
    var waitingWrite: WaitingWrite? {
        if case .responding(let responding) = self { return responding.write }
        return nil
    }

    // MARK: Transitions (each checks the phase it starts from)
    //
    // Each takes the phase apart with `switch consume self` (and a reading phase's stage with a
    // `switch consume` of its own) and builds the next one. The payload is moved, not copied: a
    // copy would retain an admitted head or a waiting write's buffers and share them, so the next
    // change to one would copy it. And the old phase is destroyed case by case, a trivial no-op
    // for the plain request's steps: destroying it whole (`self = next`, or one `switch` over
    // nested patterns) is an outlined call through the enum's value witness, ~40 instructions per
    // step on the hot path.

    /// Waits for a request until `until`: the first, when the connection starts, or the next,
    /// after a keep-alive response is on the wire.
    mutating func awaitRequest(until: Int64) {
        switch consume self {
        case .reading(let reading):
            switch consume reading {
            case .idle: break
            case let other: preconditionFailure("a connection cannot wait for a request while reading \(other)")
            }
        case .responding(let responding):
            precondition(!responding.thenClose, "a closing connection reads no further request")
            precondition(responding.write == nil, "the next request waits for the response to be written")
        case let other:
            preconditionFailure("a connection cannot go from \(other) to waiting for a request")
        }
        self = .reading(.idle(until: until))
    }

    /// The first bytes of a request arrived: its head is due by `until`.
    mutating func beginHead(until: Int64) {
        switch consume self {
        case .reading(let reading):
            switch consume reading {
            case .idle: self = .reading(.head(until: until))
            case let other: preconditionFailure("a head begins between requests, not while reading \(other)")
            }
        case let other:
            preconditionFailure("a head begins between requests, not in \(other)")
        }
    }

    /// A head was admitted (on the loop, or off it while `admitting`): its body is read next.
    mutating func readBody(_ body: Body) {
        switch consume self {
        case .reading(let reading):
            switch consume reading {
            case .idle, .head: self = .reading(.body(body))
            case let other: preconditionFailure("a body is not read while reading \(other)")
            }
        case .admitting(bodyPending: true):
            self = .reading(.body(body))
        case let other:
            preconditionFailure("a connection cannot go from \(other) to reading a body")
        }
    }

    /// Adds `bytes` to the charge of the body being read.
    mutating func charge(_ bytes: Int) {
        updateBody { $0.charged += bytes }
    }

    /// The body being read brought bytes: its next read is due by `by`.
    mutating func expectBodyRead(by: Int64) {
        updateBody { $0.nextReadBy = by }
    }

    private mutating func updateBody(_ update: (inout Body) -> Void) {
        switch consume self {
        case .reading(let reading):
            switch consume reading {
            case .body(var body):
                update(&body)
                self = .reading(.body(body))
            case let other:
                preconditionFailure("no body is read while reading \(other)")
            }
        case let other:
            preconditionFailure("no body is read in \(other)")
        }
    }

    /// A head's admission leaves the loop (before any body byte is read).
    mutating func admit(bodyPending: Bool) {
        switch consume self {
        case .reading(let reading):
            switch consume reading {
            case .idle, .head: self = .admitting(bodyPending: bodyPending)
            case let other: preconditionFailure("a body is read only after its head's admission: \(other)")
            }
        case let other:
            preconditionFailure("a connection cannot go from \(other) to admitting")
        }
    }

    /// Starts answering what was read, or what came back from the admission. A body's charge goes
    /// along (refunded when the answer is sent); its admitted head is dropped (the answer is not
    /// the handler's: an error, a timeout, the body budget).
    mutating func respond(thenClose: Bool) {
        switch consume self {
        case .reading(let reading):
            switch consume reading {
            case .idle, .head: self = .responding(Responding(thenClose: thenClose))
            case .body(let body): self = .responding(Responding(thenClose: thenClose, charged: body.charged))
            }
        case .admitting:
            self = .responding(Responding(thenClose: thenClose))
        case let other:
            preconditionFailure("a connection cannot go from \(other) to responding")
        }
    }

    /// The body was read whole: its admitted head is handed to the handler and the response
    /// begins, holding the body's charge.
    mutating func respondToBody() -> (request: HTTPRequest, resolution: HTTPResolution) {
        switch consume self {
        case .reading(let reading):
            switch consume reading {
            case .body(let body):
                self = .responding(Responding(thenClose: false, charged: body.charged))
                return (body.request, body.resolution)
            case let other:
                preconditionFailure("no body was read while reading \(other)")
            }
        case let other:
            preconditionFailure("no body was read in \(other)")
        }
    }

    /// The connection ends after the response in flight (only ever from keep-alive to close: a
    /// response cannot reopen a closing connection).
    mutating func closeAfterResponse() {
        updateResponse { $0.thenClose = true }
    }

    /// The body charge of the response in flight (0 when there is none).
    var responseCharge: Int {
        if case .responding(let responding) = self { return responding.charged }
        return 0
    }

    /// Takes the body charge of the response in flight, to refund it.
    mutating func takeCharge() -> Int {
        let charged = responseCharge
        updateResponse { $0.charged = 0 }
        return charged
    }

    /// The socket did not take the whole response (or took some more of it): the rest waits.
    mutating func awaitWritable(_ write: WaitingWrite) {
        updateResponse { $0.write = write }
    }

    /// The waiting bytes are on the wire.
    mutating func written() {
        updateResponse { responding in
            precondition(responding.write != nil, "nothing was waiting to be written")
            responding.write = nil
        }
    }

    private mutating func updateResponse(_ update: (inout Responding) -> Void) {
        switch consume self {
        case .responding(var responding):
            update(&responding)
            self = .responding(responding)
        case let other:
            preconditionFailure("no response in \(other)")
        }
    }

    /// After a closing error answer is on the wire: discard input until `until`.
    mutating func linger(until: Int64) {
        switch consume self {
        case .responding(let responding) where responding.thenClose && responding.write == nil:
            self = .lingering(discarded: 0, until: until)
        case let other:
            preconditionFailure("a connection cannot go from \(other) to lingering")
        }
    }

    /// Counts `bytes` more discarded while lingering; returns the total.
    mutating func discard(_ bytes: Int) -> Int {
        switch consume self {
        case .lingering(let discarded, let until):
            self = .lingering(discarded: discarded + bytes, until: until)
            return discarded + bytes
        case let other:
            preconditionFailure("not lingering: \(other)")
        }
    }

    /// Ends the connection's life (from any phase but `closed`). Returns what the phase held that
    /// must be given back: a body's charge, and the signal of a streamed chunk still waiting to be
    /// written (its producer waits for it).
    mutating func close() -> (charged: Int, chunk: StreamSignal?) {
        var left: (charged: Int, chunk: StreamSignal?) = (0, nil)
        switch consume self {
        case .closed:
            preconditionFailure("a connection closes once")
        case .reading(let reading):
            left.charged = reading.charged
        case .responding(let responding):
            left.charged = responding.charged
            if case .streamChunk(let signal) = responding.write?.then { left.chunk = signal }
        case .admitting, .lingering:
            break
        }
        self = .closed
        return left
    }
}
