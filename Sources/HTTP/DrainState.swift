import Synchronization

/// Whether the server is shutting down. Created before the server so handlers (a future
/// `/readyz`) can capture it; the server sets it when a drain starts.
public final class DrainState: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public var isDraining: Bool { flag.load(ordering: .relaxed) }
    func begin() { flag.store(true, ordering: .relaxed) }
}
