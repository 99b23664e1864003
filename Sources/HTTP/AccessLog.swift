import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The access log at the price of nginx's: each line is assembled from bytes the connection already
/// holds into its I/O loop's buffer (no formatter, no per-line allocation once the buffer has grown),
/// and one writer thread writes whole buffers in large `write(2)`s. The loop never waits for the
/// disk: a filled buffer is queued for the writer, and when `maxPendingBytes` are queued already the
/// buffer's lines are dropped and counted (or, with `dropWhenBehind` off, the loop waits for room).
/// Buffers hold whole lines and are written whole under the process's log lock
/// (`Logger.writeAll`), so no line is torn or interleaved with another log line.
final class AccessLog: Sendable {
    struct Options: Sendable {
        /// Bytes queued for the writer beyond which a loop drops (or waits).
        var maxPendingBytes = 8 << 20
        var dropWhenBehind = true
        /// The writer takes whatever the loops hold at least this often.
        var flushIntervalMs = 100
        /// A loop hands its buffer over once it holds this many bytes.
        var bufferBytes = 64 * 1024
    }

    /// One loop's lines not yet handed over, and the date prefix of the second it last wrote.
    private struct LoopBuffer {
        var bytes: [UInt8] = []
        var lines = 0
        var second: Int = -1
        var datePrefix: [UInt8] = []
    }

    private struct Pending {
        var buffers: [(bytes: [UInt8], lines: Int)] = []
        var bytes = 0
        var stopping = false
    }

    private let options: Options
    /// A loop's buffer behind its own lock: taken by its loop for every line (uncontended) and by
    /// the writer once per flush interval.
    private final class LoopSlot: Sendable {
        let buffer = Mutex(LoopBuffer())
    }

    private let loops: [LoopSlot]
    private let pending = Mutex(Pending())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let sink: @Sendable (UnsafeRawBufferPointer) -> Void
    private let onDrop: @Sendable (Int) -> Void
    let droppedLines = Atomic<Int>(0)

    init(
        loopCount: Int, options: Options = Options(), sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        onDrop: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        precondition(
            loopCount > 0 && options.bufferBytes > 0 && options.maxPendingBytes >= 0, "access log bounds are positive")
        self.options = options
        self.sink = sink
        self.onDrop = onDrop
        loops = (0..<loopCount).map { _ in LoopSlot() }
        let thread = Thread { [self] in run() }
        thread.name = "xizor-access-log"
        thread.start()
    }

    /// Appends one request's line to loop `loop`'s buffer (called on that loop).
    func append(
        loop: Int, method: HTTPMethod, path: String, status: Int, bytes: Int, micros: Int64,
        requestId: String, remote: String
    ) {
        precondition(loops.indices.contains(loop), "an access log line from a loop the log does not know")
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let full: (bytes: [UInt8], lines: Int)? = loops[loop].buffer.withLock { buffer in
            if buffer.bytes.capacity == 0 { buffer.bytes.reserveCapacity(options.bufferBytes + 1024) }
            LogLine.append(
                into: &buffer, seconds: Int(now.tv_sec), millis: Int(now.tv_nsec / 1_000_000), method: method,
                path: path, status: status, bytes: bytes, micros: micros, requestId: requestId, remote: remote)
            guard buffer.bytes.count >= options.bufferBytes else { return nil }
            return take(&buffer)
        }
        if let full { handOver(full) }
    }

    /// Writes everything appended so far and stops the writer; nothing may be appended afterwards.
    /// A second call returns at once (the writer is gone; waiting for it again would never end).
    func close() {
        let first = pending.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        wake.signal()
        finished.wait()
    }

    private func take(_ buffer: inout LoopBuffer) -> (bytes: [UInt8], lines: Int) {
        var taken: [UInt8] = []
        taken.reserveCapacity(options.bufferBytes + 1024)
        swap(&taken, &buffer.bytes)
        defer { buffer.lines = 0 }
        return (taken, buffer.lines)
    }

    /// Queues a full buffer for the writer, or drops it when the writer is `maxPendingBytes` behind.
    private func handOver(_ full: (bytes: [UInt8], lines: Int)) {
        while true {
            let queued = pending.withLock { state -> Bool in
                guard state.bytes + full.bytes.count <= options.maxPendingBytes || state.buffers.isEmpty else {
                    return false
                }
                state.buffers.append(full)
                state.bytes += full.bytes.count
                return true
            }
            if queued {
                wake.signal()
                return
            }
            if options.dropWhenBehind {
                droppedLines.add(full.lines, ordering: .relaxed)
                onDrop(full.lines)
                return
            }
            usleep(1000)  // configured to wait rather than drop: the loop waits for the disk
        }
    }

    /// The writer: queued buffers as they come, every loop's partial buffer each flush interval.
    private func run() {
        while true {
            _ = wake.wait(timeout: .now() + .milliseconds(options.flushIntervalMs))
            var batch = pending.withLock { state -> (buffers: [(bytes: [UInt8], lines: Int)], stopping: Bool) in
                let taken = state.buffers
                state.buffers = []
                state.bytes = 0
                return (taken, state.stopping)
            }
            for loop in loops {
                let partial = loop.buffer.withLock { buffer -> (bytes: [UInt8], lines: Int)? in
                    buffer.bytes.isEmpty ? nil : take(&buffer)
                }
                if let partial { batch.buffers.append(partial) }
            }
            for buffer in batch.buffers { buffer.bytes.withUnsafeBytes(sink) }
            if batch.stopping {
                // Lines appended while this batch was written (none once the server has stopped).
                let late = pending.withLock { state -> [(bytes: [UInt8], lines: Int)] in
                    defer {
                        state.buffers = []
                        state.bytes = 0
                    }
                    return state.buffers
                }
                for buffer in late { buffer.bytes.withUnsafeBytes(sink) }
                finished.signal()
                return
            }
        }
    }

    /// One line's bytes, as `Logger` would print it (`{"level":"info","time":…,"message":"request",…}`).
    private enum LogLine {
        static let head = Array(#"{"level":"info","time":""#.utf8)
        static let message = Array(#"Z","message":"request","method":"#.utf8)
        static let path = Array(#","path":"#.utf8)
        static let status = Array(#","status":"#.utf8)
        static let bytesKey = Array(#","bytes":"#.utf8)
        static let micros = Array(#","micros":"#.utf8)
        static let requestId = Array(#","requestId":"#.utf8)
        static let remote = Array(#","remote":"#.utf8)
        static let end = Array("}\n".utf8)

        static func append(
            into buffer: inout LoopBuffer, seconds: Int, millis: Int, method: HTTPMethod, path: String,
            status: Int, bytes: Int, micros: Int64, requestId: String, remote: String
        ) {
            if seconds != buffer.second {
                buffer.second = seconds
                buffer.datePrefix = datePrefix(seconds)
            }
            buffer.bytes.append(contentsOf: head)
            buffer.bytes.append(contentsOf: buffer.datePrefix)
            digits(millis, width: 3, into: &buffer.bytes)
            buffer.bytes.append(contentsOf: message)
            string(method.description, into: &buffer.bytes)
            buffer.bytes.append(contentsOf: self.path)
            string(path, into: &buffer.bytes)
            buffer.bytes.append(contentsOf: self.status)
            digits(status, width: 1, into: &buffer.bytes)
            buffer.bytes.append(contentsOf: bytesKey)
            digits(bytes, width: 1, into: &buffer.bytes)
            buffer.bytes.append(contentsOf: self.micros)
            digits(Int(micros), width: 1, into: &buffer.bytes)
            buffer.bytes.append(contentsOf: self.requestId)
            string(requestId, into: &buffer.bytes)
            buffer.bytes.append(contentsOf: self.remote)
            string(remote, into: &buffer.bytes)
            buffer.bytes.append(contentsOf: end)
            buffer.lines += 1
        }

        /// `YYYY-MM-DDTHH:MM:SS.` of a second (UTC); made once per second per loop.
        static func datePrefix(_ seconds: Int) -> [UInt8] {
            var t = time_t(seconds)
            var parts = tm()
            gmtime_r(&t, &parts)
            var out: [UInt8] = []
            out.reserveCapacity(20)
            digits(Int(parts.tm_year) + 1900, width: 4, into: &out)
            out.append(UInt8(ascii: "-"))
            digits(Int(parts.tm_mon) + 1, width: 2, into: &out)
            out.append(UInt8(ascii: "-"))
            digits(Int(parts.tm_mday), width: 2, into: &out)
            out.append(UInt8(ascii: "T"))
            digits(Int(parts.tm_hour), width: 2, into: &out)
            out.append(UInt8(ascii: ":"))
            digits(Int(parts.tm_min), width: 2, into: &out)
            out.append(UInt8(ascii: ":"))
            digits(Int(parts.tm_sec), width: 2, into: &out)
            out.append(UInt8(ascii: "."))
            return out
        }

        /// A non-negative integer in decimal, zero-padded to `width` (a negative one is written as 0:
        /// sizes and durations are never negative).
        static func digits(_ value: Int, width: Int, into out: inout [UInt8]) {
            var v = max(0, value)
            var scratch:
                (
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
                ) =
                    (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var count = 0
            withUnsafeMutableBytes(of: &scratch) { raw in
                repeat {
                    raw[19 - count] = UInt8(ascii: "0") + UInt8(v % 10)
                    v /= 10
                    count += 1
                } while v > 0 && count < 20
                while count < width && count < 20 {
                    raw[19 - count] = UInt8(ascii: "0")
                    count += 1
                }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[(20 - count)...]))
            }
        }

        /// A JSON string: `"`, `\` and control characters escaped, everything else copied as UTF-8.
        static func string(_ s: String, into out: inout [UInt8]) {
            out.append(UInt8(ascii: "\""))
            var s = s
            s.withUTF8 { utf8 in
                var start = 0
                for (i, byte) in utf8.enumerated()
                where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                    switch byte {
                    case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                    case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                    case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                    case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                    case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                    default:
                        let hex = Array("0123456789abcdef".utf8)
                        out.append(contentsOf: [
                            UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                            hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                        ])
                    }
                    start = i + 1
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
            }
            out.append(UInt8(ascii: "\""))
        }
    }
}
