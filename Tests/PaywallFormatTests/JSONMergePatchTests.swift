import PaywallFormat
import Testing

/// RFC 7386 Appendix A: every example (target, patch, result), plus the draft edits agents send.
@Suite struct JSONMergePatchTests {
    struct Example: Sendable, CustomStringConvertible {
        let target: String
        let patch: String
        let result: String
        var description: String { "\(target) + \(patch)" }
    }

    static let appendixA: [Example] = [
        Example(target: #"{"a":"b"}"#, patch: #"{"a":"c"}"#, result: #"{"a":"c"}"#),
        Example(target: #"{"a":"b"}"#, patch: #"{"b":"c"}"#, result: #"{"a":"b","b":"c"}"#),
        Example(target: #"{"a":"b"}"#, patch: #"{"a":null}"#, result: #"{}"#),
        Example(target: #"{"a":"b","b":"c"}"#, patch: #"{"a":null}"#, result: #"{"b":"c"}"#),
        Example(target: #"{"a":["b"]}"#, patch: #"{"a":"c"}"#, result: #"{"a":"c"}"#),
        Example(target: #"{"a":"c"}"#, patch: #"{"a":["b"]}"#, result: #"{"a":["b"]}"#),
        Example(target: #"{"a":{"b":"c"}}"#, patch: #"{"a":{"b":"d","c":null}}"#, result: #"{"a":{"b":"d"}}"#),
        Example(target: #"{"a":[{"b":"c"}]}"#, patch: #"{"a":[1]}"#, result: #"{"a":[1]}"#),
        Example(target: #"["a","b"]"#, patch: #"["c","d"]"#, result: #"["c","d"]"#),
        Example(target: #"{"a":"b"}"#, patch: #"["c"]"#, result: #"["c"]"#),
        Example(target: #"{"a":"foo"}"#, patch: "null", result: "null"),
        Example(target: #"{"a":"foo"}"#, patch: #""bar""#, result: #""bar""#),
        Example(target: #"{"e":null}"#, patch: #"{"a":1}"#, result: #"{"a":1,"e":null}"#),
        Example(target: "[1,2]", patch: #"{"a":"b","c":null}"#, result: #"{"a":"b"}"#),
        Example(target: "{}", patch: #"{"a":{"bb":{"ccc":null}}}"#, result: #"{"a":{"bb":{}}}"#),
    ]

    @Test(arguments: appendixA)
    func appendixAExamples(_ example: Example) throws {
        let result = JSONMergePatch.apply(try JSONValue(parsing: example.patch), to: try JSONValue(parsing: example.target))
        #expect(result == (try JSONValue(parsing: example.result)))
    }

    @Test func editsADraftWithoutTouchingTheRest() throws {
        let draft = try JSONValue(parsing: Support.baseSource)
        let patch: JSONValue = ["name": "Spring sale", "theme": ["colors": ["accent": "#FF5500"], "radii": nil]]
        let patched = JSONMergePatch.apply(patch, to: draft)
        #expect(patched["name"] == "Spring sale")
        #expect(patched["theme"]?["colors"]?["accent"] == "#FF5500")
        #expect(patched["theme"]?["colors"]?["bg"] == draft["theme"]?["colors"]?["bg"])
        #expect(patched["theme"]?["radii"] == nil)
        #expect(patched["root"] == draft["root"])
        #expect(JSONMergePatch.apply([:], to: draft) == draft)
    }
}
