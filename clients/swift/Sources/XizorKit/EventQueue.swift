import Foundation

/// The persistent event queue: batches of up to `batchSize`, sent when that many wait, every
/// `flushInterval`, and on `flush()` (the app going to the background); retried with backoff on
/// network errors, 5xx and 429; dropped and reported when the server refuses them (other 4xx).
public actor EventQueue {
    /// What the queue is doing; every change goes through `sending()`, `idle()` or `backingOff`.
    private enum State {
        case idle
        case sending(Task<Void, Never>)
        case backingOff(until: Date, wake: Task<Void, Never>)
    }

    private enum Outcome {
        case delivered(accepted: Int, duplicates: Int, rejected: [(id: String, reason: String)])
        case refused(String)
        case tooLarge
        case retry(RetryReason, retryAfter: TimeInterval?)
    }

    private let transport: Transport
    private let settings: EventSettings
    private let backoff: Backoff
    private var log: EventLog
    /// Oldest first, each with the size of its line in the queue file.
    private var pending: [(event: XizorEvent, bytes: Int)]
    private var state: State = .idle
    private var failures = 0
    /// Halved on 413 (a batch over the server's body limit), back to `batchSize` after a delivery.
    private var batchLimit: Int
    private var ticker: Task<Void, Never>?

    init(transport: Transport, directory: URL, settings: EventSettings) {
        self.transport = transport
        self.settings = settings
        backoff = Backoff(initial: settings.initialBackoff, maximum: settings.maxBackoff)
        var log = EventLog(directory: directory)
        let loaded = log.load()
        pending = loaded.events
        self.log = log
        if loaded.unreadableLines > 0 { settings.onReport?(.unreadable(lines: loaded.unreadableLines)) }
        if let aside = loaded.setAside {
            settings.onReport?(.unreadableFile(movedTo: aside.path, reason: aside.reason))
        }
        batchLimit = settings.batchSize
    }

    /// Events waiting to be delivered.
    public var count: Int { pending.count }

    /// Starts the interval flush; the first tick also sends what a previous launch left.
    func start() {
        guard ticker == nil else { return }
        let interval = settings.flushInterval
        ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
                guard let self, !Task.isCancelled else { return }
                await self.flushIfIdle()
            }
        }
    }

    func stop() {
        ticker?.cancel()
        ticker = nil
        if case .backingOff(_, let wake) = state {
            wake.cancel()
            state = .idle
        }
        log.close()
    }

    /// Queues events; they are on disk when this returns.
    public func enqueue(_ events: [XizorEvent]) {
        var events = events
        let overflow = pending.count + events.count - settings.maxQueued
        if overflow > 0 {
            let fromQueue = min(overflow, pending.count)
            var dropped = pending.prefix(fromQueue).map(\.event)
            dropFront(fromQueue)
            dropped += events.prefix(overflow - fromQueue)
            events.removeFirst(overflow - fromQueue)
            report(.dropped(dropped, reason: "the queue holds at most \(settings.maxQueued) events"))
        }
        do {
            let sizes = try log.append(events)
            pending += zip(events, sizes).map { (event: $0.0, bytes: $0.1) }
        } catch {
            pending += events.map { (event: $0, bytes: 0) }
            rewrite(after: error)
        }
        if pending.count >= settings.batchSize { flushIfIdle() }
    }

    /// Sends everything queued now, unless a retry is scheduled (the server asked to wait, or the
    /// network is down); returns once the queue is empty or a retry is scheduled.
    public func flush() async {
        switch state {
        case .sending(let task): await task.value
        case .backingOff: return
        case .idle: break
        }
        if case .idle = state, !pending.isEmpty { await sending().value }
    }

    private func flushIfIdle() {
        if case .idle = state, !pending.isEmpty { _ = sending() }
    }

    private func sending() -> Task<Void, Never> {
        let task = Task { await self.sendAll() }
        state = .sending(task)
        return task
    }

    private func sendAll() async {
        while !pending.isEmpty {
            let batch = pending.prefix(batchLimit).map(\.event)
            switch await send(batch) {
            case .delivered(let accepted, let duplicates, let rejected):
                failures = 0
                batchLimit = settings.batchSize
                remove(batch)
                report(.delivered(accepted: accepted, duplicates: duplicates))
                if !rejected.isEmpty {
                    let byID = Dictionary(batch.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                    report(
                        .dropped(
                            rejected.compactMap { byID[$0.id] }, reason: rejected.map(\.reason).joined(separator: "; "))
                    )
                }
            case .refused(let reason):
                failures = 0
                remove(batch)
                report(.dropped(batch, reason: reason))
            case .tooLarge:
                if batch.count > 1 {
                    batchLimit = max(1, batch.count / 2)
                } else {
                    remove(batch)
                    report(.dropped(batch, reason: "the event is larger than the server takes"))
                }
            case .retry(let reason, let retryAfter):
                failures += 1
                let delay = backoff.delay(afterFailures: failures, retryAfter: retryAfter)
                let wake = Task { [weak self] in
                    try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                    guard !Task.isCancelled else { return }
                    await self?.retryNow()
                }
                state = .backingOff(until: Date().addingTimeInterval(delay), wake: wake)
                report(.retryScheduled(after: delay, reason: reason))
                return
            }
        }
        state = .idle
    }

    private func retryNow() {
        guard case .backingOff = state else { return }
        state = .idle
        flushIfIdle()
    }

    private func send(_ batch: [XizorEvent]) async -> Outcome {
        let body: Data
        do {
            let encoder = JSONEncoder()
            body = try encoder.encode(["events": batch])
        } catch {
            return .refused("the events cannot be encoded: \(error)")
        }
        let response: HTTPResponse
        do {
            response = try await transport.send("POST", transport.url("v1/sdk/events"), body: body)
        } catch {
            return .retry(
                .network(String(describing: (error as? NetworkFailure)?.description ?? "\(error)")), retryAfter: nil)
        }
        switch response.status {
        case 200, 202:
            guard let answer = try? JSONValue.decode(response.body) else {
                return .retry(.serverError(status: response.status), retryAfter: nil)
            }
            let rejected: [(id: String, reason: String)] =
                (answer["rejected"].flatMap { value -> [JSONValue]? in
                    if case .array(let items) = value { return items } else { return nil }
                } ?? []).compactMap { item in
                    guard let id = item["id"]?.stringValue else { return nil }
                    var reason = "rejected"
                    if case .array(let errors)? = item["errors"], let first = errors.first {
                        reason = [first["path"]?.stringValue, first["message"]?.stringValue].compactMap { $0 }.joined(
                            separator: ": ")
                    }
                    return (id, reason)
                }
            return .delivered(
                accepted: answer["accepted"]?.intValue ?? 0, duplicates: answer["duplicates"]?.intValue ?? 0,
                rejected: rejected)
        case 413:
            return .tooLarge
        case 429:
            return .retry(.rateLimited(retryAfter: response.retryAfter()), retryAfter: response.retryAfter())
        case 500...:
            return .retry(.serverError(status: response.status), retryAfter: response.retryAfter())
        default:
            let problem = response.problem
            return .refused("\(response.status) \(problem.code ?? ""): \(problem.detail ?? "")")
        }
    }

    /// A batch is always the queue's front (events are only ever removed from there); what of it
    /// is still queued goes (an overflow during the send may have dropped some already).
    private func remove(_ batch: [XizorEvent]) {
        let ids = Set(batch.map(\.id))
        dropFront(pending.prefix { ids.contains($0.event.id) }.count)
    }

    private func dropFront(_ count: Int) {
        precondition(count >= 0 && count <= pending.count, "dropping more events than are queued")
        guard count > 0 else { return }
        let bytes = pending.prefix(count).reduce(0) { $0 + $1.bytes }
        pending.removeFirst(count)
        do {
            let left = pending
            if let sizes = try log.consume(bytes: bytes, remaining: { left.map(\.event) }) {
                for index in pending.indices { pending[index].bytes = sizes[index] }
            }
        } catch {
            rewrite(after: error)
        }
    }

    /// Writes what is left after a write failed; if the disk refuses again, the memory queue still
    /// delivers this launch, and the app is told its events are not on disk (`.notPersisted`).
    private func rewrite(after failure: any Error) {
        do {
            let sizes = try log.replace(with: pending.map(\.event))
            for index in pending.indices { pending[index].bytes = sizes[index] }
        } catch {
            report(.notPersisted(queued: pending.count, reason: "\(failure); writing the queue again: \(error)"))
        }
    }

    private func report(_ report: EventReport) {
        settings.onReport?(report)
    }
}
