import HTTP

/// Feeds the bytes to `HTTPRequestParser` whole, one byte at a time, and in uneven pieces; the
/// three transcripts of events must be identical (the parser's promise, and what keeps a request
/// split across TCP segments from being read two ways). Every call must consume what it says and
/// no more, `needMoreData` must consume everything, and what completes must be within the limits.
enum HTTPParserFuzz {
    /// Small limits, so short inputs reach every limit's edge.
    static let limits = HTTPParserLimits(
        maxRequestLineBytes: 256, maxHeaderBytes: 1024, maxHeaderFields: 16, maxBodyBytes: 512)

    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzFinding) {
        let whole = try transcript(input, pieceSizes: [max(1, input.count)])
        let bytewise = try transcript(input, pieceSizes: [1])
        guard whole == bytewise else { throw finding("whole \(whole) != byte by byte \(bytewise)") }
        let uneven = try transcript(input, pieceSizes: [3, 1, 7, 2, 16, 5])
        guard whole == uneven else { throw finding("whole \(whole) != in pieces \(uneven)") }
    }

    static func finding(_ property: String) -> FuzzFinding { FuzzFinding(.httpParser, property) }

    /// The events (other than `needMoreData`) of one feed, up to and including the first failure.
    static func transcript(_ input: UnsafeRawBufferPointer, pieceSizes: [Int]) throws(FuzzFinding) -> [String] {
        precondition(!pieceSizes.isEmpty && pieceSizes.allSatisfy { $0 > 0 }, "piece sizes must be positive")
        var parser = HTTPRequestParser(limits: limits)
        var events: [String] = []
        var offset = 0
        var piece = 0
        while offset < input.count {
            let end = min(input.count, offset + pieceSizes[piece % pieceSizes.count])
            piece += 1
            var stalls = 0
            while offset < end {
                let rest = UnsafeRawBufferPointer(rebasing: input[offset..<end])
                let (consumed, event) = parser.parse(rest)
                guard consumed >= 0 && consumed <= rest.count else {
                    throw finding("consumed \(consumed) of \(rest.count) bytes")
                }
                offset += consumed
                stalls = consumed == 0 ? stalls + 1 : 0
                guard stalls < 3 else { throw finding("no progress after \(events)") }
                switch event {
                case .needMoreData:
                    guard offset == end else { throw finding("needMoreData left \(end - offset) bytes unconsumed") }
                case .headComplete:
                    events.append(
                        "head continue=\(parser.expectsContinue) declared=\(String(describing: parser.declaredBodyLength))"
                    )
                case .request(let request):
                    guard request.body.count <= limits.maxBodyBytes else {
                        throw finding("a body of \(request.body.count) bytes passed the limit")
                    }
                    guard request.headers.count <= limits.maxHeaderFields else {
                        throw finding("\(request.headers.count) header fields passed the limit")
                    }
                    events.append(summary(request))
                case .failure(let error):
                    events.append("failure \(error)")
                    return events
                }
            }
        }
        return events
    }

    static func summary(_ request: HTTPRequest) -> String {
        let headers = request.headers.pairs.map { "\($0.name): \($0.value)" }.joined(separator: "|")
        let query = request.queryParameters.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        return
            "\(request.method) \(request.target) path=\(request.path) query=\(query) \(request.version) keepAlive=\(request.keepAlive) [\(headers)] body=\(request.body)"
    }
}
