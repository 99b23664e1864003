/// Size limits the parser enforces while reading (config keys `maxRequestLineBytes`,
/// `maxHeaderBytes`, `maxHeaderFields`, `maxBodyBytes`).
public struct HTTPParserLimits: Sendable, Hashable {
    public var maxRequestLineBytes: Int
    public var maxHeaderBytes: Int
    public var maxHeaderFields: Int
    public var maxBodyBytes: Int

    public init(
        maxRequestLineBytes: Int = 8192, maxHeaderBytes: Int = 32768,
        maxHeaderFields: Int = 100, maxBodyBytes: Int = 1_048_576
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderFields = maxHeaderFields
        self.maxBodyBytes = maxBodyBytes
    }
}

/// An incremental HTTP/1.1 request parser: a byte-level state machine that gives the same
/// result whether a message arrives whole or one byte at a time, and rejects anything whose
/// framing could be read two ways (RFC 9112 §6.3, §11.2).
public struct HTTPRequestParser: Sendable {
    /// What one call to `parse` found.
    public enum Event: Sendable {
        /// Everything given was consumed; the message is not complete yet.
        case needMoreData
        /// The head is complete and a body follows (`expectsContinue` says whether to send 100).
        case headComplete
        /// A whole request; bytes after it (pipelined requests) were not consumed.
        case request(HTTPRequest)
        /// The request is malformed; the connection must answer `error.status` and close.
        case failure(HTTPParseError)
    }

    private enum State: UInt8 {
        case start, leadingLF, method, target, version, requestLineLF
        case fieldStart, fieldName, fieldValueOWS, fieldValue, fieldLF, headEndLF
        case lengthBody
        case chunkSize, chunkSizeOWS, chunkExtension, chunkSizeLF, chunkData, chunkDataCR, chunkDataLF
        case trailerStart, trailerLine, trailerLineLF, trailerEndLF
        case failed
    }

    public let limits: HTTPParserLimits
    private var state: State = .start
    private var failure: HTTPParseError = .invalidMethod

    /// The request line and header section exactly as received (from the method's first byte);
    /// every offset below points into it. Bytes are copied in at most a few pieces per call (when
    /// the request line ends, when the head ends, when the input runs out), not run by run.
    private var head: [UInt8] = []
    private var fields: [HTTPRequestHeaders.Field] = []
    private var methodEnd = 0, targetStart = 0, targetEnd = 0, versionStart = 0, versionEnd = 0
    private var requestLineBytes = 0
    private var emptyLines = 0
    private var headerBytes = 0
    private var fieldStart = 0, nameEnd = 0, valueStart = 0, valueEnd = 0
    private var version = HTTPVersion.http1_1

    private var pending: HTTPRequest?
    private var body: [UInt8] = []
    private var remaining = 0
    private var chunkDigits = 0
    private var extensionBytes = 0
    private var trailerBytes = 0

    /// Whether the request whose head was just reported asked for `100 Continue`.
    public private(set) var expectsContinue = false

    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
        head.reserveCapacity(256)
    }

    /// The request whose head was just reported by `.headComplete`, without its body (which is
    /// still to be read): what the server checks before it reads or buffers a body byte.
    public var headOfPendingRequest: HTTPRequest? { pending }

    /// Empty lines tolerated before a request line.
    public static let maxEmptyLines = 4

    /// True between messages: no byte of the next request has arrived yet (an empty line before
    /// a request line is a byte of it: the header deadline runs from there). Stored, not derived
    /// from the state: the connection reads it before every parse, and a computed property read
    /// through the connection's stored parser copied the whole parser (retaining its buffers).
    public private(set) var isIdle = true
    /// True while a request's body is being read.
    public var isReadingBody: Bool { state.rawValue >= State.lengthBody.rawValue && state != .failed }
    /// Body bytes buffered so far for the request being read (what the server's body budget charges).
    public var bufferedBodyBytes: Int { body.count }
    /// The `Content-Length` of the request whose head was just reported; nil for a chunked body.
    public private(set) var declaredBodyLength: Int?

    /// Length of the run of bytes from `start` that satisfy `accepts`, at most `limit` of them (the
    /// hot states consume a run at once instead of one loop turn per byte).
    /// `words`, when given, passes eight bytes at a time over what surely satisfies `accepts`
    /// (`WordScan`); the byte loop decides the rest.
    @inline(__always)
    private func scanRun(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int, words: ((UInt64) -> Bool)? = nil,
        _ accepts: (UInt8) -> Bool
    ) -> Int {
        let end = min(bytes.count, start + max(0, limit))
        var j = start
        if let words { j = WordScan.skip(bytes, from: j, to: end, words) }
        while j < end && accepts(bytes[j]) { j += 1 }
        return j - start
    }

    /// Whether the parser is inside a request line or header section (its bytes belong to `head`).
    private var isInHead: Bool { state.rawValue >= State.method.rawValue && state.rawValue <= State.headEndLF.rawValue }

    /// Parses from an array (convenience for tests and small inputs).
    public mutating func parse(_ bytes: [UInt8]) -> (consumed: Int, event: Event) {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Consumes bytes until a request completes, the head completes with a body to follow,
    /// the input runs out, or the input is rejected.
    public mutating func parse(_ input: UnsafeRawBufferPointer) -> (consumed: Int, event: Event) {
        let bytes = input.bindMemory(to: UInt8.self)
        var i = 0
        let n = bytes.count
        if n > 0 { isIdle = false }
        // Head bytes of this call start at `from` (nil: none yet); input byte k sits at head offset
        // `base + k` once copied.
        var from: Int? = isInHead ? 0 : nil
        var base = head.count
        /// Copies this call's head bytes before `k` into `head` (before anything reads `head`).
        func flush(upTo k: Int) {
            if let start = from, k > start { head.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<k])) }
            from = k
            base = head.count - k
        }
        while i < n {
            let b = bytes[i]
            switch state {
            case .failed:
                return (i, .failure(failure))

            case .start:
                if b == ByteClass.cr {
                    state = .leadingLF
                    i += 1
                    continue
                }
                if b == ByteClass.lf { return fail(.bareLineFeed, i) }
                guard ByteClass.isToken(b) else { return fail(.invalidMethod, i) }
                from = i
                base = head.count - i
                requestLineBytes = 1
                state = .method

            case .leadingLF:
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                // RFC 9112 §2.2 asks servers to ignore at least one empty line before a request;
                // a few are tolerated, an endless preamble is a client holding the connection.
                emptyLines += 1
                if emptyLines > HTTPRequestParser.maxEmptyLines { return fail(.tooManyEmptyLines, i) }
                state = .start

            case .method:
                requestLineBytes += 1
                if requestLineBytes > limits.maxRequestLineBytes { return fail(.requestLineTooLong, i) }
                if b == ByteClass.space {
                    methodEnd = base + i
                    targetStart = methodEnd + 1
                    state = .target
                } else if !ByteClass.isToken(b) {
                    return fail(.invalidMethod, i)
                }

            case .target:
                // A run of target bytes at once (within the request-line limit); past it, `b` ends the
                // target or is refused.
                let targetRun = scanRun(
                    bytes, from: i, limit: limits.maxRequestLineBytes - requestLineBytes, words: WordScan.allTarget,
                    ByteClass.isTarget)
                if targetRun > 0 {
                    requestLineBytes += targetRun
                    i += targetRun
                    continue
                }
                requestLineBytes += 1
                if requestLineBytes > limits.maxRequestLineBytes { return fail(.requestLineTooLong, i) }
                if b == ByteClass.space {
                    guard base + i > targetStart else { return fail(.invalidRequestTarget, i) }
                    targetEnd = base + i
                    versionStart = targetEnd + 1
                    state = .version
                } else if b == ByteClass.cr || b == ByteClass.lf {
                    return fail(.invalidVersion, i)
                } else {
                    return fail(.invalidRequestTarget, i)
                }

            case .version:
                requestLineBytes += 1
                if requestLineBytes > limits.maxRequestLineBytes { return fail(.requestLineTooLong, i) }
                if b == ByteClass.cr {
                    versionEnd = base + i
                    state = .requestLineLF
                } else if b == ByteClass.lf {
                    return fail(.bareLineFeed, i)
                } else if b > 0x20 && b < 0x7F {
                    if base + i + 1 - versionStart > 8 { return fail(.invalidVersion, i) }
                } else {
                    return fail(.invalidVersion, i)
                }

            case .requestLineLF:
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                flush(upTo: i + 1)
                if let error = parseVersion() { return fail(error, i) }
                headerBytes = 0
                state = .fieldStart

            case .fieldStart:
                headerBytes += 1
                if headerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                if b == ByteClass.cr {
                    state = .headEndLF
                } else if ByteClass.isToken(b) {
                    if fields.count >= limits.maxHeaderFields { return fail(.tooManyHeaderFields, i) }
                    fieldStart = base + i
                    state = .fieldName
                } else if ByteClass.isWhitespace(b) {
                    return fail(.obsoleteLineFolding, i)
                } else if b == ByteClass.lf {
                    return fail(.bareLineFeed, i)
                } else {
                    return fail(.invalidHeaderName, i)
                }

            case .fieldName:
                let nameRun = scanRun(bytes, from: i, limit: limits.maxHeaderBytes - headerBytes, ByteClass.isToken)
                if nameRun > 0 {
                    headerBytes += nameRun
                    i += nameRun
                    continue
                }
                headerBytes += 1
                if headerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                if b == ByteClass.colon {
                    nameEnd = base + i
                    valueStart = nameEnd
                    valueEnd = nameEnd
                    state = .fieldValueOWS
                } else if ByteClass.isWhitespace(b) {
                    return fail(.whitespaceBeforeColon, i)
                } else {
                    return fail(.invalidHeaderName, i)
                }

            case .fieldValueOWS, .fieldValue:
                if state == .fieldValue {
                    let valueRun = scanRun(
                        bytes, from: i, limit: limits.maxHeaderBytes - headerBytes, words: WordScan.allFieldValue
                    ) {
                        ByteClass.isWhitespace($0) || ByteClass.isFieldValue($0)
                    }
                    if valueRun > 0 {
                        var last = i + valueRun - 1
                        while last >= i && ByteClass.isWhitespace(bytes[last]) { last -= 1 }
                        if last >= i { valueEnd = base + last + 1 }
                        headerBytes += valueRun
                        i += valueRun
                        continue
                    }
                }
                headerBytes += 1
                if headerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                if b == ByteClass.cr {
                    state = .fieldLF
                } else if b == ByteClass.lf {
                    return fail(.bareLineFeed, i)
                } else if ByteClass.isWhitespace(b) {
                } else if ByteClass.isFieldValue(b) {
                    if state == .fieldValueOWS {
                        valueStart = base + i
                        state = .fieldValue
                    }
                    valueEnd = base + i + 1
                } else {
                    return fail(.invalidHeaderValue, i)
                }

            case .fieldLF:
                headerBytes += 1
                if headerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                fields.append(
                    .init(
                        nameStart: Int32(fieldStart), nameEnd: Int32(nameEnd),
                        valueStart: Int32(valueStart), valueEnd: Int32(valueEnd)))
                state = .fieldStart

            case .headEndLF:
                headerBytes += 1
                if headerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                i += 1
                flush(upTo: i)
                from = nil
                switch finishHead() {
                case .failure(let error): return fail(error, i - 1)
                case .noBody:
                    return (i, .request(takeRequest()))
                case .length(let length):
                    remaining = length
                    declaredBodyLength = length
                    body = []
                    // Grown as bytes arrive, not reserved from the declared length: a header alone
                    // must not make the server allocate a megabyte.
                    body.reserveCapacity(min(length, 16_384))
                    state = .lengthBody
                    return (i, .headComplete)
                case .chunked:
                    declaredBodyLength = nil
                    body = []
                    remaining = 0
                    chunkDigits = 0
                    state = .chunkSize
                    return (i, .headComplete)
                }

            case .lengthBody:
                let take = min(remaining, n - i)
                if body.count + take > body.capacity {
                    // The body is arriving (not just announced): reserve exactly what is declared
                    // (the server charged all of it to its body budget) rather than let doubling
                    // allocate up to twice that.
                    body.reserveCapacity(body.count + remaining)
                }
                body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<(i + take)]))
                remaining -= take
                i += take
                if remaining == 0 { return (i, .request(takeRequest())) }
                continue

            case .chunkSize:
                if let digit = ByteClass.hexValue(b) {
                    chunkDigits += 1
                    guard chunkDigits <= 15 else { return fail(.invalidChunkSize, i) }
                    remaining = remaining * 16 + digit
                    if body.count + remaining > limits.maxBodyBytes { return fail(.bodyTooLarge, i) }
                } else if chunkDigits == 0 {
                    return fail(.invalidChunkSize, i)
                } else if ByteClass.isWhitespace(b) {
                    state = .chunkSizeOWS
                } else if b == UInt8(ascii: ";") {
                    extensionBytes = 0
                    state = .chunkExtension
                } else if b == ByteClass.cr {
                    state = .chunkSizeLF
                } else {
                    return fail(.invalidChunkSize, i)
                }

            case .chunkSizeOWS:
                if ByteClass.isWhitespace(b) {
                } else if b == UInt8(ascii: ";") {
                    extensionBytes = 0
                    state = .chunkExtension
                } else if b == ByteClass.cr {
                    state = .chunkSizeLF
                } else {
                    return fail(.invalidChunkSize, i)
                }

            case .chunkExtension:
                extensionBytes += 1
                if b == ByteClass.cr {
                    state = .chunkSizeLF
                } else if b == ByteClass.lf {
                    return fail(.bareLineFeed, i)
                } else if !ByteClass.isFieldValue(b) || extensionBytes > 4096 {
                    return fail(.invalidChunkSize, i)
                }

            case .chunkSizeLF:
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                if remaining == 0 {
                    trailerBytes = 0
                    state = .trailerStart
                } else {
                    state = .chunkData
                }

            case .chunkData:
                let take = min(remaining, n - i)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<(i + take)]))
                remaining -= take
                i += take
                if remaining == 0 { state = .chunkDataCR }
                continue

            case .chunkDataCR:
                guard b == ByteClass.cr else { return fail(.invalidChunkData, i) }
                state = .chunkDataLF

            case .chunkDataLF:
                guard b == ByteClass.lf else { return fail(.invalidChunkData, i) }
                remaining = 0
                chunkDigits = 0
                state = .chunkSize

            case .trailerStart, .trailerLine:
                trailerBytes += 1
                if trailerBytes > limits.maxHeaderBytes { return fail(.headerSectionTooLarge, i) }
                if b == ByteClass.cr {
                    state = state == .trailerStart ? .trailerEndLF : .trailerLineLF
                } else if b == ByteClass.lf {
                    return fail(.bareLineFeed, i)
                } else if !ByteClass.isFieldValue(b) {
                    return fail(.invalidHeaderValue, i)
                } else {
                    state = .trailerLine
                }

            case .trailerLineLF:
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                state = .trailerStart

            case .trailerEndLF:
                guard b == ByteClass.lf else { return fail(.bareCarriageReturn, i) }
                return (i + 1, .request(takeRequest()))
            }
            i += 1
        }
        if from != nil && isInHead { flush(upTo: n) }
        return (n, .needMoreData)
    }

    private mutating func fail(_ error: HTTPParseError, _ at: Int) -> (consumed: Int, event: Event) {
        state = .failed
        failure = error
        return (at, .failure(error))
    }

    /// `HTTP/1.1`: exactly `HTTP/` DIGIT `.` DIGIT, case-sensitive; a major other than 1 is 505.
    private mutating func parseVersion() -> HTTPParseError? {
        let count = versionEnd - versionStart
        guard count == 8 else { return .invalidVersion }
        let v = versionStart
        guard head[v] == 0x48, head[v + 1] == 0x54, head[v + 2] == 0x54, head[v + 3] == 0x50,
            head[v + 4] == 0x2F, head[v + 6] == 0x2E,
            head[v + 5] >= 0x30, head[v + 5] <= 0x39, head[v + 7] >= 0x30, head[v + 7] <= 0x39
        else {
            return .invalidVersion
        }
        let major = Int(head[v + 5] - 0x30)
        let minor = Int(head[v + 7] - 0x30)
        guard major == 1 else { return .unsupportedVersion }
        version = HTTPVersion(major: 1, minor: minor)
        return nil
    }

    private enum Framing {
        case noBody, length(Int), chunked, failure(HTTPParseError)
    }

    /// Applies the message-level rules once the head is complete and builds the pending request.
    private mutating func finishHead() -> Framing {
        let isHTTP11 = version.minor >= 1
        var hostCount = 0
        var contentLength: Int?
        var sawTransferEncoding = false
        var codings = 0
        var lastIsChunked = false
        var chunkedBeforeLast = false
        var close = false
        var keepAliveToken = false
        var expectContinue = false
        var error: HTTPParseError?

        head.withUnsafeBufferPointer { buf in
            for f in fields where error == nil {
                let name = UnsafeBufferPointer(rebasing: buf[Int(f.nameStart)..<Int(f.nameEnd)])
                let value = UnsafeBufferPointer(rebasing: buf[Int(f.valueStart)..<Int(f.valueEnd)])
                switch name.count {
                case 4 where ByteClass.equalsLowercased(name, "host"):
                    hostCount += 1
                    if hostCount > 1 {
                        error = .duplicateHost
                        break
                    }
                    for b in value where !ByteClass.isHost(b) {
                        error = .invalidHost
                        break
                    }
                case 14 where ByteClass.equalsLowercased(name, "content-length"):
                    var result: Int?
                    var bad: HTTPParseError?
                    HeaderValueList.forEachElement(value) { element in
                        guard bad == nil else { return }
                        guard !element.isEmpty else {
                            bad = .invalidContentLength
                            return
                        }
                        var v = 0
                        for b in element {
                            guard b >= 0x30, b <= 0x39 else {
                                bad = .invalidContentLength
                                return
                            }
                            let (m, o1) = v.multipliedReportingOverflow(by: 10)
                            let (s, o2) = m.addingReportingOverflow(Int(b - 0x30))
                            if o1 || o2 {
                                bad = .contentLengthOverflow
                                return
                            }
                            v = s
                        }
                        if let r = result, r != v {
                            bad = .conflictingContentLength
                            return
                        }
                        result = v
                    }
                    if let bad {
                        error = bad
                        break
                    }
                    guard let result else {
                        error = .invalidContentLength
                        break
                    }
                    if let existing = contentLength, existing != result {
                        error = .conflictingContentLength
                        break
                    }
                    contentLength = result
                case 17 where ByteClass.equalsLowercased(name, "transfer-encoding"):
                    sawTransferEncoding = true
                    HeaderValueList.forEachElement(value) { element in
                        guard !element.isEmpty else { return }
                        var end = element.count
                        for k in 0..<element.count where element[k] == UInt8(ascii: ";") {
                            end = k
                            break
                        }
                        var coding = UnsafeBufferPointer(rebasing: element[0..<end])
                        while let last = coding.last, ByteClass.isWhitespace(last) {
                            coding = UnsafeBufferPointer(rebasing: coding[0..<(coding.count - 1)])
                        }
                        if lastIsChunked { chunkedBeforeLast = true }
                        codings += 1
                        lastIsChunked = ByteClass.equalsLowercased(coding, "chunked")
                    }
                case 10 where ByteClass.equalsLowercased(name, "connection"):
                    HeaderValueList.forEachElement(value) { element in
                        if ByteClass.equalsLowercased(element, "close") {
                            close = true
                        } else if ByteClass.equalsLowercased(element, "keep-alive") {
                            keepAliveToken = true
                        }
                    }
                case 6 where ByteClass.equalsLowercased(name, "expect"):
                    if ByteClass.equalsLowercased(value, "100-continue") {
                        expectContinue = true
                    } else {
                        error = .unsupportedExpectation
                    }
                default:
                    break
                }
            }
        }
        if let error { return .failure(error) }
        if sawTransferEncoding {
            if contentLength != nil { return .failure(.contentLengthWithTransferEncoding) }
            if !isHTTP11 { return .failure(.transferEncodingOnHTTP10) }
            if codings == 0 || !lastIsChunked || chunkedBeforeLast { return .failure(.transferEncodingNotChunked) }
            if codings > 1 { return .failure(.unsupportedTransferCoding) }
        }
        if isHTTP11 && hostCount == 0 { return .failure(.missingHost) }
        if let contentLength, contentLength > limits.maxBodyBytes { return .failure(.bodyTooLarge) }

        let method: HTTPMethod
        let target: String
        let decoded: (path: String, query: [(name: String, value: String)])
        do {
            (method, target, decoded) = try head.withUnsafeBufferPointer { buf throws(HTTPParseError) in
                let m = HTTPMethod(bytes: UnsafeBufferPointer(rebasing: buf[0..<methodEnd]))
                let t = UnsafeBufferPointer(rebasing: buf[targetStart..<targetEnd])
                let whole = String(decoding: t, as: UTF8.self)
                return (m, whole, try RequestTarget.decode(t, method: m, whole: whole))
            }
        } catch {
            return .failure(error)
        }

        let keepAlive = isHTTP11 ? !close : (keepAliveToken && !close)
        expectsContinue = expectContinue && isHTTP11
        pending = HTTPRequest(
            method: method, target: target, path: decoded.path, queryParameters: decoded.query,
            version: version, headers: HTTPRequestHeaders(storage: head, fields: fields),
            body: [], keepAlive: keepAlive)
        if sawTransferEncoding { return .chunked }
        if let contentLength, contentLength > 0 { return .length(contentLength) }
        return .noBody
    }

    private mutating func takeRequest() -> HTTPRequest {
        // Moved out, not copied (a copy retained and released every field of the request).
        guard var request = pending.take() else { preconditionFailure("a request completes only after its head") }
        if !body.isEmpty {
            request.body = body
            body = []
        }
        head.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        expectsContinue = false
        emptyLines = 0
        state = .start
        isIdle = true
        return request
    }
}

extension HTTPRequestParser.Event {
    /// The request of a `.request` event, moved out (the event is left as `.needMoreData`), so the
    /// caller holds the only reference to it.
    mutating func takeRequest() -> HTTPRequest? {
        guard case .request(let request) = self else { return nil }
        self = .needMoreData
        return request
    }
}

/// Iterates the comma-separated elements of a field value, trimmed of optional whitespace.
enum HeaderValueList {
    static func forEachElement(_ value: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        var i = 0
        while i <= value.count {
            if i == value.count || value[i] == UInt8(ascii: ",") {
                var s = start
                var e = i
                while s < e, ByteClass.isWhitespace(value[s]) { s += 1 }
                while e > s, ByteClass.isWhitespace(value[e - 1]) { e -= 1 }
                body(UnsafeBufferPointer(rebasing: value[s..<e]))
                start = i + 1
            }
            i += 1
        }
    }
}
