/// All SQL of duration timers' starts.
public protocol TimerStore {
    /// The timer's start, recording `now` when it has none; `created` says whether this call did.
    func start(appID: String, subscriberID: String, paywallID: String, nodeID: String, now: Int64) throws -> (
        startedAt: Int64, created: Bool
    )
}
