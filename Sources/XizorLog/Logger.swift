import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Severity of a log line; ordered so a configured minimum filters everything below it.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug = 0, info, warning, error

    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warn", "warning": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// A value in a log line's fields; kept tiny so logging never needs Foundation's JSON encoder.
public enum LogValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// Writes one JSON object per line (`level`, `time`, `message`, then fields) so logs are
/// machine-readable by whatever collects the container's output.
public final class Logger: Sendable {
    public let minimumLevel: LogLevel
    private let sink: @Sendable (String) -> Void

    /// A logger writing to standard error (standard output is reserved for the `listening` event
    /// and command results).
    public init(minimumLevel: LogLevel = .info, sink: (@Sendable (String) -> Void)? = nil) {
        self.minimumLevel = minimumLevel
        self.sink = sink ?? Logger.standardError
        fileDescriptor = sink == nil ? 2 : nil
    }

    /// Standard error when the logger writes there (the default sink), nil for a custom sink.
    private let fileDescriptor: Int32?

    public func isEnabled(_ level: LogLevel) -> Bool { level >= minimumLevel }

    public func log(_ level: LogLevel, _ message: String, _ fields: [(String, LogValue)] = []) {
        guard isEnabled(level) else { return }
        var line = "{\"level\":\"\(level.name)\",\"time\":\"\(Logger.timestamp())\",\"message\":"
        JSONText.appendString(message, to: &line)
        JSONText.appendMembers(fields, to: &line, leadingComma: true)
        line += "}\n"
        sink(line)
    }

    public func debug(_ message: String, _ fields: [(String, LogValue)] = []) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: [(String, LogValue)] = []) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: [(String, LogValue)] = []) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: [(String, LogValue)] = []) { log(.error, message, fields) }

    private static let writeLock = Mutex(())

    /// Where whole lines already in bytes go (the access log's buffers of many lines): the same
    /// destination as `log`, so a custom sink sees them too.
    public var rawSink: @Sendable (UnsafeRawBufferPointer) -> Void {
        if let fd = fileDescriptor { return { bytes in Logger.writeAll(fd, bytes) } }
        let sink = self.sink
        return { bytes in sink(String(decoding: bytes, as: UTF8.self)) }
    }

    /// Writes all of `bytes` to `fd` under the process's log lock: buffers of whole lines from
    /// different writers never interleave (a pipe splits writes larger than PIPE_BUF otherwise).
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        writeLock.withLock { _ in
            guard var base = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let n = write(fd, base, left)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                base += n
                left -= n
            }
        }
    }

    private static func writer(_ fd: Int32) -> @Sendable (String) -> Void {
        { line in
            var copy = line
            copy.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
        }
    }

    public static let standardError: @Sendable (String) -> Void = writer(2)
    public static let standardOutput: @Sendable (String) -> Void = writer(1)

    /// RFC 3339 UTC time with milliseconds.
    public static func timestamp(_ date: Date = Date()) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        let millis = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }
}

/// JSON string escaping (RFC 8259) for the hand-built JSON of log lines and problem bodies.
public enum JSONText {
    public static func appendString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    public static func string(_ s: String) -> String {
        var out = ""
        appendString(s, to: &out)
        return out
    }

    /// Appends `"key":value` members, comma-separated (and after a comma when `leadingComma`).
    public static func appendMembers(_ fields: [(String, LogValue)], to out: inout String, leadingComma: Bool) {
        for (index, (key, value)) in fields.enumerated() {
            if leadingComma || index > 0 { out += "," }
            appendString(key, to: &out)
            out += ":"
            switch value {
            case .string(let s): appendString(s, to: &out)
            case .int(let i): out += String(i)
            case .double(let d): out += d.isFinite ? String(d) : "null"
            case .bool(let b): out += b ? "true" : "false"
            }
        }
    }
}
