import Testing

@testable import HTTP

/// A streamed gzip body: chunks compressed one after another make one member that decompresses
/// to everything written, and a chunk boundary never cuts the data a client has received.
@Suite struct GzipStreamTests {
    @Test func chunksMakeOneMemberOfEverythingWritten() throws {
        let stream = try #require(GzipStream())
        var written: [UInt8] = []
        var compressed: [UInt8] = []
        for index in 0..<200 {
            let line = Array(
                "{\"id\":\"e\(index)\",\"name\":\"paywall_open\",\"timestamp\":\(1_796_000_000_000 + index)}\n".utf8)
            written += line
            compressed += stream.compress(line)
        }
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 200_000)
        written += big
        compressed += stream.compress(big)
        compressed += stream.finish()
        #expect(Gzip.decompress(compressed) == written)
        #expect(compressed.count < written.count / 10, "it compresses")
    }

    @Test func anEmptyStreamIsAValidEmptyMember() throws {
        let stream = try #require(GzipStream())
        #expect(Gzip.decompress(stream.finish()) == [])
    }
}
