import Foundation
import PaywallFormat
import Testing

@Suite struct DepthTests {
    /// The deepest document the parser accepts (stacks nested to depth 128) validates and reads on a thread
    /// with a 2 MiB stack even in a debug build (Linux threads get 8 MiB by default), so the parser's depth
    /// limit keeps every reader within the stack. (It nests deeper than `DocumentLimits.depth`: that is
    /// the one error it has.)
    @Test func deepestParsableDocumentFitsASmallStack() throws {
        var node = #"{"type":"text","text":{"en":"deep"}}"#
        var depth = 2  // the text node and its text map; the document object adds one more
        while depth + 3 <= 128 {
            node = #"{"type":"stack","direction":"vertical","children":["# + node + "]}"
            depth += 2
        }
        let source =
            #"{"schemaVersion":1,"id":"pw_deep","name":"Deep","locales":["en"],"defaultLocale":"en","theme":{"colors":{}},"products":[],"#
            + ##""settings":{"dismissable":false,"safeArea":"all","background":{"kind":"color","color":"#000"}},"root":"##
            + node + "}"
        let document = try JSONValue(parsing: source)
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var valid = false
        nonisolated(unsafe) var unknown = -1
        let thread = Thread {
            valid = PaywallValidator.validate(document).errors.map(\.code) == ["nesting_too_deep"]
            unknown = PaywallReader.read(document).unknownNodes.count
            _ = PaywallLocalization.texts(in: document)
            _ = document.canonicalBytes
            finished.signal()
        }
        thread.stackSize = 2048 * 1024
        thread.start()
        finished.wait()
        #expect(valid && unknown == 0)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: #"{"a":[["# + source + "]]}") }
        // Directly on the test's own (cooperative pool) thread as well.
        #expect(PaywallValidator.validate(document).errors.map(\.code) == ["nesting_too_deep"])
    }
}
