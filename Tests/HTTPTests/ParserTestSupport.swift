@testable import HTTP

/// The outcome of feeding a parser a byte string until one message completes or fails.
enum ParseOutcome {
    case request(HTTPRequest, consumed: Int)
    case failure(HTTPParseError)
    case incomplete
}

/// Feeds `input` whole, or one byte per call; both must agree, which each test checks.
func parseOne(_ input: String, limits: HTTPParserLimits = HTTPParserLimits(), byteByByte: Bool) -> ParseOutcome {
    parseOne(Array(input.utf8), limits: limits, byteByByte: byteByByte)
}

func parseOne(_ bytes: [UInt8], limits: HTTPParserLimits = HTTPParserLimits(), byteByByte: Bool) -> ParseOutcome {
    var parser = HTTPRequestParser(limits: limits)
    var offset = 0
    while offset < bytes.count {
        let end = byteByByte ? offset + 1 : bytes.count
        var sliceOffset = offset
        while sliceOffset < end {
            let (consumed, event) = parser.parse(Array(bytes[sliceOffset..<end]))
            sliceOffset += consumed
            switch event {
            case .needMoreData:
                break
            case .headComplete:
                continue
            case .request(let r):
                return .request(r, consumed: sliceOffset)
            case .failure(let e):
                return .failure(e)
            }
            if consumed == 0 { break }
        }
        offset = end
    }
    return .incomplete
}

/// Feeds a stream of pipelined requests and returns all of them (or the first failure).
func parseAll(_ bytes: [UInt8], chunk: Int) -> ([HTTPRequest], HTTPParseError?) {
    var parser = HTTPRequestParser()
    var out: [HTTPRequest] = []
    var offset = 0
    var pending: [UInt8] = []
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunk)
        pending += bytes[offset..<end]
        offset = end
        while !pending.isEmpty {
            let (consumed, event) = parser.parse(pending)
            pending.removeFirst(consumed)
            switch event {
            case .needMoreData: break
            case .headComplete: continue
            case .request(let r):
                out.append(r)
                continue
            case .failure(let e): return (out, e)
            }
            break
        }
    }
    return (out, nil)
}
