import CSystem

/// Whether this thread is running an `.inline` handler or an admission on an I/O loop, where
/// nothing may wait: not on a database, a lock another request holds, or unbounded work. Code that
/// would wait asks (`isActive`) and either throws `HTTPOffload` (the server runs the handler or
/// admission again on the handler pool) or refuses; the API layer's stores refuse outright, so an
/// inline handler that touches the store fails every test that reaches it instead of stalling a
/// loop in production.
public enum InlineExecution {
    /// A thread-local flag (C's `_Thread_local`, `CSystem`): a handler runs on whichever thread
    /// runs the loop, so only the thread itself can say what it is doing now.
    public static var isActive: Bool { xizor_is_inline_active() != 0 }

    /// Runs `body` marked as inline (the server, around an `.inline` handler or an admission).
    package static func run<T>(_ body: () -> T) -> T {
        xizor_set_inline_active(1)
        defer { xizor_set_inline_active(0) }
        return body()
    }
}

/// Thrown by an `.inline` handler that finds this request needs more than memory (a database
/// read, say): the server runs the handler again on the handler pool, in the request's partition,
/// where `InlineExecution.isActive` is false. Nothing the handler did before throwing is kept.
/// An admission may throw it too (an unknown key to look for in the database): it is run again on
/// the pool in partition `""`, since no tenant is known before it has run.
public struct HTTPOffload: Error {
    public init() {}
}
