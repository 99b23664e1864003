import Foundation

/// Milliseconds since 1970; injectable so tests can schedule rules without sleeping.
public struct Clock: Sendable {
    public let now: @Sendable () -> Int64
    public init(now: @escaping @Sendable () -> Int64) { self.now = now }
    public static let system = Clock { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
