import CSystem
@preconcurrency import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-shot completion for a streamed chunk, waited on by the producer thread.
final class StreamSignal: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private var ok = false
    func finish(ok: Bool) {
        self.ok = ok
        semaphore.signal()
    }
    func wait(timeoutMs: Int) -> Bool {
        semaphore.wait(timeout: .now() + .milliseconds(timeoutMs)) == .success && ok
    }
}

/// The `HTTPBodyWriter` given to a streaming handler.
final class ConnectionBodyWriter: HTTPBodyWriter, @unchecked Sendable {
    private let connection: Connection
    private let chunked: Bool
    private let timeoutMs: Int

    init(connection: Connection, chunked: Bool, timeoutMs: Int) {
        self.connection = connection
        self.chunked = chunked
        self.timeoutMs = timeoutMs
    }

    func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        var framed: [UInt8]
        if chunked {
            framed = []
            framed.reserveCapacity(bytes.count + 20)
            framed.append(hex: bytes.count)
            framed.append(literal: "\r\n")
            framed.append(contentsOf: bytes)
            framed.append(literal: "\r\n")
        } else {
            framed = bytes
        }
        let signal = StreamSignal()
        let connection = self.connection
        let chunk = framed
        connection.loop.execute { connection.writeStreamChunk(chunk, signal: signal) }
        guard signal.wait(timeoutMs: timeoutMs + 1000) else { throw HTTPBodyWriterError.connectionClosed }
    }
}
