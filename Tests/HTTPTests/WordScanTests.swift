import Testing

@testable import HTTP

/// The word tests may stop on a word that is fine, never pass one that is not: every byte value
/// at every position of a word, among bytes that pass, is checked against the byte predicate.
@Test(arguments: ["target", "field value"])
func wordTestsNeverPassABadByte(_ name: String) {
    let isTarget = name == "target"
    func word(_ w: UInt64) -> Bool { isTarget ? WordScan.allTarget(w) : WordScan.allFieldValue(w) }
    func byte(_ b: UInt8) -> Bool {
        isTarget ? ByteClass.isTarget(b) : ByteClass.isWhitespace(b) || ByteClass.isFieldValue(b)
    }
    let filler = isTarget ? UInt8(ascii: "a") : UInt8(ascii: " ")
    var passedBad = 0
    var stoppedOnGood = 0
    for position in 0..<8 {
        for value in 0...255 {
            var bytes = [UInt8](repeating: filler, count: 8)
            bytes[position] = UInt8(value)
            let w = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            if word(w) && !byte(UInt8(value)) { passedBad += 1 }
            if !word(w) && byte(UInt8(value)) { stoppedOnGood += 1 }
        }
    }
    #expect(passedBad == 0, "\(name): a word with a refused byte passed")
    // Only the tab (field values) may stop the word loop without being refused.
    #expect(stoppedOnGood == (name == "field value" ? 8 : 0), "\(name): \(stoppedOnGood) good words stopped the loop")
    // Mixed words: random bytes, two of them possibly refused, against the byte predicate.
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
        var bytes = (0..<8).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
        for _ in 0..<2 { bytes[Int.random(in: 0..<8, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
        let w = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        if word(w) {
            let refused = bytes.filter { !byte($0) }
            #expect(refused.isEmpty, "\(name): \(bytes) passed")
        }
    }
}

/// The parser reads a long field value and target the same whether or not they are eight-byte
/// aligned, and refuses a control byte placed at any offset of them.
@Test func longRunsAreReadAndRefusedAtEveryOffset() throws {
    for offset in 0..<17 {
        let value = String(repeating: "v", count: 40 + offset)
        let path = "/" + String(repeating: "p", count: 30 + offset)
        var parser = HTTPRequestParser()
        let ok = parser.parse(Array("GET \(path) HTTP/1.1\r\nHost: h\r\nX-Long: \(value)  \r\n\r\n".utf8))
        guard case .request(let request) = ok.event else {
            Issue.record("offset \(offset): \(ok.event)")
            continue
        }
        #expect(request.path == path && request.header("x-long") == value)
        for bad: UInt8 in [0x00, 0x01, 0x0B, 0x1F, 0x7F] {
            var bytes = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Long: \(value)\r\n\r\n".utf8)
            let at = bytes.count - 4 - value.count + offset
            bytes[at] = bad
            var refusing = HTTPRequestParser()
            guard case .failure(let error) = refusing.parse(bytes).event else {
                Issue.record("offset \(offset), byte \(bad): accepted")
                continue
            }
            #expect(error == .invalidHeaderValue)
            var target = Array("GET \(path) HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
            target[4 + 1 + offset] = bad == 0x7F ? 0x7F : 0x80 | bad
            var refusingTarget = HTTPRequestParser()
            guard case .failure(let targetError) = refusingTarget.parse(target).event else {
                Issue.record("target offset \(offset): accepted")
                continue
            }
            #expect(targetError == .invalidRequestTarget)
        }
    }
}

/// The target's first scan finds `?`, `%` and `#` at every offset of a long path, words or tail:
/// the query starts there, the escape is decoded, the fragment is refused.
@Test func targetDelimitersAreFoundAtEveryOffset() throws {
    for offset in 0..<20 {
        let before = "/" + String(repeating: "p", count: offset)
        let after = String(repeating: "q", count: 19 - offset)
        func decode(_ target: String) throws(HTTPParseError) -> (path: String, query: [(name: String, value: String)]) {
            var bytes = Array(target.utf8)
            return try bytes.withUnsafeMutableBufferPointer { buffer throws(HTTPParseError) in
                let decoded = try RequestTarget.decode(UnsafeBufferPointer(buffer), method: .GET)
                return (decoded.path ?? target, decoded.query)  // nil: the target is its own path
            }
        }
        let queried = try decode(before + "?k=" + after)
        #expect(queried.path == before && queried.query.map(\.name) == ["k"] && queried.query.first?.value == after)
        #expect(try decode(before + "%41" + after).path == before + "A" + after)
        #expect(try decode(before + after).path == before + after)
        #expect(throws: HTTPParseError.invalidRequestTarget) { try decode(before + "#" + after) }
    }
}

/// Names compared a word at a time agree with the byte-by-byte comparison for every token byte at
/// every position of the literals the server looks up (both sides of the eight-byte boundary).
@Test func namesComparedByWordsAgreeWithBytes() {
    let literals: [StaticString] = [
        "authorization", "if-none-match", "accept-encoding", "x-request-id", "host", "accept", "accept-language",
        "content-encoding", "x-xizor-schema-version", "sec-ch-prefers-color-scheme",
    ]
    for literal in literals {
        let text = String(
            decoding: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount), as: UTF8.self)
        var mismatches = 0
        for position in 0..<literal.utf8CodeUnitCount {
            for value in UInt8(0x21)...UInt8(0x7E) where ByteClass.isToken(value) {
                var name = Array(text.utf8)
                name[position] = value
                let bytes = name.withUnsafeBufferPointer { ByteClass.equalsLowercasedName($0, literal) }
                let expected = name.withUnsafeBufferPointer { ByteClass.equalsLowercased($0, literal) }
                if bytes != expected { mismatches += 1 }
            }
        }
        #expect(mismatches == 0, "\(text)")
        let upper = Array(text.uppercased().utf8)
        #expect(upper.withUnsafeBufferPointer { ByteClass.equalsLowercasedName($0, literal) })
        let longer = Array((text + "s").utf8)
        #expect(!longer.withUnsafeBufferPointer { ByteClass.equalsLowercasedName($0, literal) })
    }
}

/// The stop masks a whole line's scan jumps by (`WordScan.skip(_:from:to:stops:)`) find exactly the
/// first byte the byte predicate stops at, whatever follows it: every byte value at every position
/// among passing bytes, and random words with several stopping bytes (a borrow or carry from one
/// must never hide or invent an earlier one).
@Test(arguments: ["letters", "field value", "target"])
func stopMasksFindTheFirstStoppingByte(_ name: String) {
    func stops(_ w: UInt64) -> UInt64 {
        switch name {
        case "letters": WordScan.notLetterOrDash(w)
        case "field value": WordScan.fieldValueStops(w)
        default: WordScan.targetStops(w)
        }
    }
    func passes(_ b: UInt8) -> Bool {
        switch name {
        case "letters": (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == UInt8(ascii: "-")
        case "field value": b >= 0x20 && b != 0x7F
        default: ByteClass.isTarget(b)
        }
    }
    func first(_ bytes: [UInt8]) -> Int {
        let w = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        let flagged = stops(w)
        return flagged == 0 ? 8 : flagged.trailingZeroBitCount / 8
    }
    func expected(_ bytes: [UInt8]) -> Int { bytes.firstIndex { !passes($0) } ?? 8 }
    var wrong = 0
    for position in 0..<8 {
        for value in 0...255 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
            bytes[position] = UInt8(value)
            if first(bytes) != expected(bytes) { wrong += 1 }
        }
    }
    var rng = SystemRandomNumberGenerator()
    let pool = (0...255).map(UInt8.init).filter(passes)
    for _ in 0..<50_000 {
        var bytes = (0..<8).map { _ in pool.randomElement(using: &rng) ?? 0 }
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            bytes[Int.random(in: 0..<8, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
        }
        if first(bytes) != expected(bytes) { wrong += 1 }
    }
    #expect(wrong == 0, "\(name): \(wrong) words stopped elsewhere than the byte loop would")
}

/// Field names and values read a word at a time give the offsets the byte-by-byte states give, for
/// names of every length around the word boundary with a digit, an underscore or a dash at each place.
@Test func namesAndValuesByWordsMatchTheStates() throws {
    for length in 1...20 {
        for special in ["", "0", "_", "-", "~"] {
            for at in 0..<length {
                var name = Array(String(repeating: "n", count: length).utf8)
                if let b = special.utf8.first, at > 0 { name[at] = b }
                let text = String(decoding: name, as: UTF8.self)
                let value = String(repeating: "v", count: length) + "\tw"
                let head = "GET / HTTP/1.1\r\nHost: h\r\n\(text): \(value)\r\n\r\n"
                guard case .request(let whole, _) = parseOne(head, byteByByte: false),
                    case .request(let pieces, _) = parseOne(head, byteByByte: true)
                else {
                    Issue.record("\(text) was refused")
                    continue
                }
                #expect(whole.headers.pairs.map(\.name) == ["Host", text])
                #expect(whole.headers[text] == value && pieces.headers[text] == value)
            }
        }
    }
}

/// A request line taken whole notes whether its target has a `#`, `?` or `%` (then its path is
/// decoded, else it is the target's bytes): at every offset of a long target, whole and byte by
/// byte, the path, the query and the refusal of a fragment are the same.
@Test func plainTargetsAreTheirOwnPathWholeOrInPieces() throws {
    for offset in 0..<20 {
        let before = "/" + String(repeating: "p", count: offset)
        let after = String(repeating: "q", count: 19 - offset)
        for target in [before + after, before + "?k=" + after, before + "%41" + after, before + "#" + after] {
            let head = "GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n"
            let whole = parseOne(head, byteByByte: false)
            let pieces = parseOne(head, byteByByte: true)
            switch (whole, pieces) {
            case (.request(let a, _), .request(let b, _)):
                #expect(a.path == b.path && a.target == b.target && a.target == target, "\(target)")
                #expect(a.queryParameters.map(\.value) == b.queryParameters.map(\.value), "\(target)")
                #expect(a.withPathBytes { Array($0) } == Array(a.path.utf8), "\(target)")
                let expected = target.contains("?") ? before : target.contains("%") ? before + "A" + after : target
                #expect(a.path == expected, "\(target)")
            case (.failure(let a), .failure(let b)):
                #expect(a == .invalidRequestTarget && b == a && target.contains("#"), "\(target)")
            default:
                Issue.record("\(target): \(whole) against \(pieces)")
            }
        }
    }
}
