import Testing

@testable import HTTP

/// A small deterministic generator so the mutation test is reproducible.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private func summary(_ outcome: ParseOutcome) -> String {
    switch outcome {
    // The target and every field as read, so a line taken whole (`WholeLine`) must record exactly
    // what the states record byte by byte.
    case .request(let r, let consumed):
        "request \(r.method) \(r.target) \(r.version) \(r.headers.pairs) \(r.body.count) \(consumed) \(r.keepAlive)"
    case .failure(let e): "failure \(e)"
    case .incomplete: "incomplete"
    }
}

/// Mutated requests (bytes flipped, inserted, deleted) must never crash the parser and must get
/// the same answer fed whole as fed byte by byte.
@Test func mutatedRequestsParseTheSameWholeAndByteByByte() {
    let seeds = [
        "POST /a/b?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nX-A: v\r\n\r\nhello",
        "PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;e=1\r\nabc\r\n0\r\nT: x\r\n\r\n",
        "GET http://h:1/p%20q HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        // Lines a whole-line step takes or must leave: whitespace around and inside values, an
        // empty value, a tab, obs-text, a value of only whitespace.
        "GET /v1/sdk/p?q=1 HTTP/1.1\r\nHost: h\r\nA:  x y \t\r\nB:\r\nC: \t \r\nD: \u{E9}t\u{E9}\r\n\r\n",
    ].map { Array($0.utf8) }
    let interesting: [UInt8] = [0x0D, 0x0A, 0x20, 0x09, 0x3A, 0x00, 0x2C, 0x3B, 0x30, 0x41, 0x7F, 0xFF]
    var rng = SplitMix(state: 42)
    for _ in 0..<3000 {
        var bytes = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            let b = interesting[Int.random(in: 0..<interesting.count, using: &rng)]
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: bytes[at] = b
            case 1: bytes.insert(b, at: at)
            default: if bytes.count > 1 { bytes.remove(at: at) }
            }
        }
        // Roomy limits, then tight ones drawn around the seeds' sizes, so a limit falls inside a
        // line as often as after it.
        let tight = HTTPParserLimits(
            maxRequestLineBytes: Int.random(in: 8...40, using: &rng),
            maxHeaderBytes: Int.random(in: 4...90, using: &rng),
            maxHeaderFields: Int.random(in: 0...5, using: &rng), maxBodyBytes: 64)
        for limits in [
            HTTPParserLimits(maxRequestLineBytes: 64, maxHeaderBytes: 256, maxHeaderFields: 8, maxBodyBytes: 64), tight,
        ] {
            let whole = summary(parseOne(bytes, limits: limits, byteByByte: false))
            let split = summary(parseOne(bytes, limits: limits, byteByByte: true))
            #expect(whole == split, "input: \(bytes), limits: \(limits)")
        }
    }
}
