import Testing

@testable import HTTP

/// A generated id is kept as its counter: the head gets the same 15 hex digits that `text` gives
/// logs and handlers, and each request its own. A given id (the client's) goes out as received.
@Test func aGeneratedIdWritesTheTextItReads() {
    let first = RequestID.generate()
    let second = RequestID.generate()
    #expect(first != second && first.text != second.text)
    for id in [first, second] {
        #expect(id.text.utf8.count == 15)
        #expect(id.text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        var head: [UInt8] = Array("X-Request-Id: ".utf8)
        id.write(into: &head)
        #expect(String(decoding: head, as: UTF8.self) == "X-Request-Id: " + id.text)
    }
    // The same per-process prefix, then the counter: consecutive ids share the first six digits.
    #expect(first.text.prefix(6) == second.text.prefix(6))

    var head: [UInt8] = []
    RequestID("abc-123").write(into: &head)
    #expect(head == Array("abc-123".utf8) && RequestID("abc-123").text == "abc-123")

    var request = HTTPRequest(method: .GET, target: "/", path: "/")
    request.requestID = first
    #expect(request.requestId == first.text)
    request.requestId = "set-by-a-caller"
    #expect(request.requestID == RequestID("set-by-a-caller"))
}

/// A loop's block of ids and the process's counter never give the same id: each block is claimed
/// whole from the counter, so two loops' ids and those generated off the loops stay apart.
@Test func blocksOfIdsNeverOverlapOneAnotherOrTheCounter() {
    var first = RequestID.Block()
    var second = RequestID.Block()
    var seen = Set<String>()
    let rounds = Int(RequestID.Block.size) * 2 + 10
    for _ in 0..<rounds {
        for id in [first.generate(), second.generate(), RequestID.generate()] {
            #expect(seen.insert(id.text).inserted, "id \(id.text) given twice")
        }
    }
    #expect(seen.count == rounds * 3)
}

/// The digits are spread a word at a time; the word holds them in reading order.
@Test func hexDigitsOfAWordAreInReadingOrder() {
    func text(_ value: UInt32) -> String {
        withUnsafeBytes(of: RequestID.hex8(value).littleEndian) { String(decoding: $0, as: UTF8.self) }
    }
    #expect(text(0) == "00000000")
    #expect(text(0x0123_abcd) == "0123abcd")
    #expect(text(0xFFFF_FFFF) == "ffffffff")
    #expect(text(0x9A0F_5E71) == "9a0f5e71")
    for value in [UInt32(1), 0x10, 0xDEAD_BEEF, 0x8000_0000, 0x7FFF_FFFF] {
        #expect(
            text(value) == String(repeating: "0", count: 8 - String(value, radix: 16).count) + String(value, radix: 16))
    }
}
