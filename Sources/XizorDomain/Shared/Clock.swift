#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Milliseconds since 1970; injectable so tests can schedule rules without sleeping.
public struct Clock: Sendable {
    public let now: @Sendable () -> Int64
    public init(now: @escaping @Sendable () -> Int64) { self.now = now }
    /// The real-time clock read directly: the SDK path reads it twice a request, and Foundation's
    /// `Date()` cost five times the system call's user-space share.
    public static let system = Clock {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + (Int64(time.tv_nsec) + 500_000) / 1_000_000
    }
}
