extension HTTPRequestParser {
    /// How a request's body is framed, as its header fields say.
    enum Framing {
        case noBody, length(Int), chunked
    }

    /// What the header fields of a complete head say about the message as a whole: how its body
    /// is framed, whether the connection stays open, whether the client waits for `100 Continue`.
    /// Here are the rules that keep a message from being read two ways (RFC 9112 §6.3: no
    /// `Content-Length` beside `Transfer-Encoding`, no conflicting lengths, chunked last and only
    /// once) and the one Host a request must carry (RFC 9112 §3.2).
    ///
    /// Pure, over the head's bytes and the field offsets the parser recorded: it needs none of the
    /// parser's state, so the parser's private state machine stays private to its own file.
    struct HeadFields {
        let framing: Framing
        let keepAlive: Bool
        let expectsContinue: Bool

        /// Reads the fields of `head` (offsets in `fields`) of a request of `version`; throws the
        /// first rule broken, in the order the fields came, then the framing rules, then Host,
        /// then the body's size. Inlined into `finishHead`, whose code it was before it had a file
        /// of its own: called, it cost every request some 40 to 120 instructions more (callgrind,
        /// the plain 304), where the split was to leave the parser as fast as it was.
        @inline(__always)
        static func read(
            _ head: UnsafeBufferPointer<UInt8>, fields: [HTTPRequestHeaders.Field], version: HTTPVersion,
            maxBodyBytes: Int
        ) throws(HTTPParseError) -> HeadFields {
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

            for f in fields where error == nil {
                let name = UnsafeBufferPointer(rebasing: head[Int(f.nameStart)..<Int(f.nameEnd)])
                let value = UnsafeBufferPointer(rebasing: head[Int(f.valueStart)..<Int(f.valueEnd)])
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
            if let error { throw error }
            if sawTransferEncoding {
                if contentLength != nil { throw .contentLengthWithTransferEncoding }
                if !isHTTP11 { throw .transferEncodingOnHTTP10 }
                if codings == 0 || !lastIsChunked || chunkedBeforeLast { throw .transferEncodingNotChunked }
                if codings > 1 { throw .unsupportedTransferCoding }
            }
            if isHTTP11 && hostCount == 0 { throw .missingHost }
            if let contentLength, contentLength > maxBodyBytes { throw .bodyTooLarge }

            let framing: Framing
            if sawTransferEncoding {
                framing = .chunked
            } else if let contentLength, contentLength > 0 {
                framing = .length(contentLength)
            } else {
                framing = .noBody
            }
            return HeadFields(
                framing: framing, keepAlive: isHTTP11 ? !close : (keepAliveToken && !close),
                expectsContinue: expectContinue && isHTTP11)
        }
    }
}
