/// The protocol version of a request; only major version 1 is served (others get 505).
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    public var description: String { "HTTP/\(major).\(minor)" }
}

extension HTTPVersion {
    /// Reads the version at the end of a request line: exactly `HTTP/` DIGIT `.` DIGIT,
    /// case-sensitive (`HTTP/1.1`); a major other than 1 is refused 505 (`unsupportedVersion`).
    init(requestLine v: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) {
        guard v.count == 8 else { throw .invalidVersion }
        guard v[0] == 0x48, v[1] == 0x54, v[2] == 0x54, v[3] == 0x50, v[4] == 0x2F, v[6] == 0x2E,
            v[5] >= 0x30, v[5] <= 0x39, v[7] >= 0x30, v[7] <= 0x39
        else {
            throw .invalidVersion
        }
        guard v[5] - 0x30 == 1 else { throw .unsupportedVersion }
        self.init(major: 1, minor: Int(v[7] - 0x30))
    }
}
