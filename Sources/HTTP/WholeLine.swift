/// A head's lines taken whole, in the picohttpparser way: when a plain line is all in the input,
/// one pass over its bytes finds where its parts end, instead of one trip through the parser's
/// state switch per part (the request line's method, target and version; a field's name, colon,
/// whitespace, value and line end).
///
/// Only ever a shortcut: each function answers what the parser's states would record for the same
/// bytes (the same offsets, within the same limits) or nil — for a line cut by the input's end, a
/// byte the states would look at twice (a bare CR or LF, a control byte, a space before a colon)
/// or a limit reached — and then the states take the line byte by byte and alone decide every
/// refusal and its error. `ParserConsistencyTests` holds the two to the same answers.
enum WholeLine {
    /// The request line's parts, as offsets into the input.
    struct RequestLine {
        /// The space after the method, the space after the target, and the CR ending the version.
        let methodEnd: Int
        let targetEnd: Int
        let cr: Int
        /// The target has no `#`, `?` or `%`: an origin-form one is its own path (`RequestTarget`).
        let plainTarget: Bool
    }

    /// The request line starting at `start` (the method's first byte, already a token byte) up to
    /// its CR, which must come within `limit` bytes of `start`. Its version (at most eight visible
    /// bytes) is read by the state of the LF that follows, as for a line taken byte by byte.
    @inline(__always)
    static func request(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, limit: Int) -> RequestLine? {
        let end = min(bytes.count, start + limit)
        var j = start + 1
        while j < end && ByteClass.isToken(bytes[j]) { j += 1 }
        guard j < end, bytes[j] == ByteClass.space else { return nil }
        let methodEnd = j
        j += 1
        let target = j
        // Words while they hold neither a byte that ends the target nor a delimiter; past a
        // delimiter (a query, an escape), the rest as any target's bytes.
        j = WordScan.skip(bytes, from: j, to: end, stops: WordScan.targetStopsOrDelimiters)
        var plainTarget = true
        while j < end && ByteClass.isTarget(bytes[j]) {
            let b = bytes[j]
            j += 1
            if b == UInt8(ascii: "?") || b == UInt8(ascii: "%") || b == UInt8(ascii: "#") {
                plainTarget = false
                j = WordScan.skip(bytes, from: j, to: end, stops: WordScan.targetStops)
            }
        }
        guard j > target, j < end, bytes[j] == ByteClass.space else { return nil }
        let targetEnd = j
        j += 1
        let version = j
        // "HTTP/1.1" is one word of visible bytes: passed whole, then its CR by the byte loop.
        j = WordScan.skip(bytes, from: j, to: end, stops: WordScan.targetStops)
        while j < end && bytes[j] > 0x20 && bytes[j] < 0x7F { j += 1 }
        guard j < end, bytes[j] == ByteClass.cr, j - version <= 8 else { return nil }
        return RequestLine(methodEnd: methodEnd, targetEnd: targetEnd, cr: j, plainTarget: plainTarget)
    }

    /// A field line's parts, as offsets into the input.
    struct FieldLine {
        let colon: Int
        /// The value without its surrounding whitespace; an empty value sits at the colon.
        let valueStart: Int
        let valueEnd: Int
        /// The byte after the line's LF.
        let next: Int
    }

    /// The field line starting at `start` (a name's first byte, or not a field line at all), CRLF
    /// included, when all of it lies within `limit` bytes of `start` (what is left of the header
    /// section's limit).
    @inline(__always)
    static func field(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, limit: Int) -> FieldLine? {
        let end = min(bytes.count, start + limit)
        var j = WordScan.skip(bytes, from: start, to: end, stops: WordScan.notLetterOrDash)
        while j < end && ByteClass.isToken(bytes[j]) { j += 1 }
        guard j > start, j < end, bytes[j] == ByteClass.colon else { return nil }
        let colon = j
        j += 1
        while j < end && ByteClass.isWhitespace(bytes[j]) { j += 1 }
        let first = j
        j = WordScan.skip(bytes, from: j, to: end, stops: WordScan.fieldValueStops)
        while j < end && ByteClass.isFieldValue(bytes[j]) { j += 1 }
        guard j + 1 < end, bytes[j] == ByteClass.cr, bytes[j + 1] == ByteClass.lf else { return nil }
        var last = j
        while last > first && ByteClass.isWhitespace(bytes[last - 1]) { last -= 1 }
        return last > first
            ? FieldLine(colon: colon, valueStart: first, valueEnd: last, next: j + 2)
            : FieldLine(colon: colon, valueStart: colon, valueEnd: colon, next: j + 2)
    }
}
