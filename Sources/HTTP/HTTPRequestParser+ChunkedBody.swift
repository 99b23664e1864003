extension HTTPRequestParser {
    /// The chunked-body decoder (RFC 9112 §7.1): chunk sizes in hex, extensions skipped, the data
    /// appended to the body, trailer fields read and discarded. Like the parser it belongs to, it
    /// gives the same result whether the body arrives whole or one byte at a time: where it is
    /// inside a chunk line, a chunk or the trailer section is its own state, kept between calls.
    ///
    /// A state machine of its own beside the parser's (whose state enum has one case for all of
    /// it), in a nested type whose state is private to this file: only `decode` and its `Outcome`
    /// are internal, for the parser, which holds the decoder privately (`chunked`) and hands it
    /// the bytes of a chunked body; the rest of the module sees neither's state.
    struct ChunkedBody {
        private enum Step {
            case size, sizeOWS, chunkExtension, sizeLF, data, dataCR, dataLF
            case trailerStart, trailerLine, trailerLineLF, trailerEndLF
        }

        private var step = Step.size
        /// Bytes of the current chunk still to come (while its size is read: the size so far).
        private var remaining = 0
        private var sizeDigits = 0
        private var extensionBytes = 0
        private var trailerBytes = 0

        /// What a call to `decode` found.
        enum Outcome {
            /// Every byte given was consumed; the body goes on.
            case needMoreData
            /// The body ended with the byte before `end` (bytes from `end` on are the next request's).
            case complete(end: Int)
            /// The byte at `at` breaks the chunked framing.
            case failure(HTTPParseError, at: Int)
        }

        /// Decodes `bytes` from `start`, appending chunk data to `body`; a body that would pass
        /// `limits.maxBodyBytes` fails as soon as a chunk's size says so, and a trailer section
        /// is held to `limits.maxHeaderBytes`.
        mutating func decode(
            _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into body: inout [UInt8], limits: HTTPParserLimits
        ) -> Outcome {
            var i = start
            let n = bytes.count
            while i < n {
                let b = bytes[i]
                switch step {
                case .size:
                    if let digit = ByteClass.hexValue(b) {
                        sizeDigits += 1
                        guard sizeDigits <= 15 else { return .failure(.invalidChunkSize, at: i) }
                        remaining = remaining * 16 + digit
                        if body.count + remaining > limits.maxBodyBytes { return .failure(.bodyTooLarge, at: i) }
                    } else if sizeDigits == 0 {
                        return .failure(.invalidChunkSize, at: i)
                    } else if ByteClass.isWhitespace(b) {
                        step = .sizeOWS
                    } else if b == UInt8(ascii: ";") {
                        extensionBytes = 0
                        step = .chunkExtension
                    } else if b == ByteClass.cr {
                        step = .sizeLF
                    } else {
                        return .failure(.invalidChunkSize, at: i)
                    }

                case .sizeOWS:
                    if ByteClass.isWhitespace(b) {
                    } else if b == UInt8(ascii: ";") {
                        extensionBytes = 0
                        step = .chunkExtension
                    } else if b == ByteClass.cr {
                        step = .sizeLF
                    } else {
                        return .failure(.invalidChunkSize, at: i)
                    }

                case .chunkExtension:
                    extensionBytes += 1
                    if b == ByteClass.cr {
                        step = .sizeLF
                    } else if b == ByteClass.lf {
                        return .failure(.bareLineFeed, at: i)
                    } else if !ByteClass.isFieldValue(b) || extensionBytes > 4096 {
                        return .failure(.invalidChunkSize, at: i)
                    }

                case .sizeLF:
                    guard b == ByteClass.lf else { return .failure(.bareCarriageReturn, at: i) }
                    if remaining == 0 {
                        trailerBytes = 0
                        step = .trailerStart
                    } else {
                        step = .data
                    }

                case .data:
                    let take = min(remaining, n - i)
                    body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<(i + take)]))
                    remaining -= take
                    i += take
                    if remaining == 0 { step = .dataCR }
                    continue

                case .dataCR:
                    guard b == ByteClass.cr else { return .failure(.invalidChunkData, at: i) }
                    step = .dataLF

                case .dataLF:
                    guard b == ByteClass.lf else { return .failure(.invalidChunkData, at: i) }
                    remaining = 0
                    sizeDigits = 0
                    step = .size

                case .trailerStart, .trailerLine:
                    trailerBytes += 1
                    if trailerBytes > limits.maxHeaderBytes { return .failure(.headerSectionTooLarge, at: i) }
                    if b == ByteClass.cr {
                        step = step == .trailerStart ? .trailerEndLF : .trailerLineLF
                    } else if b == ByteClass.lf {
                        return .failure(.bareLineFeed, at: i)
                    } else if !ByteClass.isFieldValue(b) {
                        return .failure(.invalidHeaderValue, at: i)
                    } else {
                        step = .trailerLine
                    }

                case .trailerLineLF:
                    guard b == ByteClass.lf else { return .failure(.bareCarriageReturn, at: i) }
                    step = .trailerStart

                case .trailerEndLF:
                    guard b == ByteClass.lf else { return .failure(.bareCarriageReturn, at: i) }
                    return .complete(end: i + 1)
                }
                i += 1
            }
            return .needMoreData
        }
    }
}
