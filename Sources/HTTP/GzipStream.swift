import CZlib

/// Gzip for a streamed body (RFC 1952 member written piece by piece): each `compress` returns what
/// zlib emits after a sync flush, so every chunk a client receives decompresses up to its last
/// byte; `finish` ends the member. The z_stream lives at a fixed address (zlib's state points back
/// at it), so it is allocated, not a Swift value that could move. `@unchecked Sendable`: it is
/// handed to the one producer thread of a stream and used there only.
public final class GzipStream: @unchecked Sendable {
    private let stream: UnsafeMutablePointer<z_stream>
    private var finished = false

    /// Nil if zlib cannot start a stream.
    public init?(level: Int32 = 6) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard xizor_deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input` and flushes: the bytes returned decompress to all input so far.
    public func compress(_ input: [UInt8]) -> [UInt8] { run(input, flush: Z_SYNC_FLUSH) }

    /// Ends the member (trailer with CRC and length); nothing may be compressed after.
    public func finish() -> [UInt8] {
        precondition(!finished, "the gzip member was already finished")
        finished = true
        return run([], flush: Z_FINISH)
    }

    private func run(_ input: [UInt8], flush: Int32) -> [UInt8] {
        precondition(!finished || flush == Z_FINISH, "compress after finish")
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(16 * 1024, input.count / 2 + 64))
        input.withUnsafeBufferPointer { inBuf in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
            stream.pointee.avail_in = uInt(inBuf.count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { c -> Int in
                    stream.pointee.next_out = c.baseAddress
                    stream.pointee.avail_out = uInt(c.count)
                    _ = deflate(stream, flush)
                    return c.count - Int(stream.pointee.avail_out)
                }
                output.append(contentsOf: chunk[0..<produced])
            } while stream.pointee.avail_out == 0
        }
        return output
    }
}

/// A streamed body's writer that gzips each chunk before the connection sends it.
struct GzipBodyWriter: HTTPBodyWriter {
    let inner: any HTTPBodyWriter
    let gzip: GzipStream

    func write(_ bytes: [UInt8]) throws {
        let compressed = gzip.compress(bytes)
        if !compressed.isEmpty { try inner.write(compressed) }
    }
}
