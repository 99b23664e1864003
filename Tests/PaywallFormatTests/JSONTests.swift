import PaywallFormat
import Testing

@Suite struct JSONParserTests {
    @Test func parsesAllValueKinds() throws {
        let v = try JSONValue(
            parsing: #" { "a": [1, -2.5, 1e3, true, false, null, "x\u00e9\n\"\ud83d\ude00"], "b": {} } "#)
        #expect(v["a"]?[0] == 1)
        #expect(v["a"]?[1]?.doubleValue == -2.5)
        #expect(v["a"]?[2]?.doubleValue == 1000)
        #expect(v["a"]?[3] == true)
        #expect(v["a"]?[5]?.isNull == true)
        #expect(v["a"]?[6]?.stringValue == "xé\n\"😀")
        #expect(v["b"] == [:])
    }

    @Test func keepsIntegersExact() throws {
        let v = try JSONValue(parsing: "[9007199254740993, -9223372036854775808, 1.0, 1e2]")
        #expect(v[0]?.numberValue == .integer(9_007_199_254_740_993))
        #expect(v[0]?.canonicalString == "9007199254740993")
        #expect(v[1]?.intValue == Int.min)
        #expect(v.canonicalString == "[9007199254740993,-9223372036854775808,1,100]")
    }

    struct BadInput: Sendable, CustomStringConvertible {
        let text: String
        let code: JSONParseError.Code
        let line: Int
        let column: Int
        var description: String { text }
    }

    static let badInputs: [BadInput] = [
        .init(text: "", code: .unexpectedEnd, line: 1, column: 1),
        .init(text: "{\"a\": 1,}", code: .unexpectedCharacter, line: 1, column: 9),
        .init(text: "[1, 2", code: .unexpectedEnd, line: 1, column: 6),
        .init(text: "{\n  \"a\": tru\n}", code: .unexpectedCharacter, line: 2, column: 11),
        .init(text: "{\n  \"a\": 01\n}", code: .invalidNumber, line: 2, column: 9),
        .init(text: "[1.]", code: .invalidNumber, line: 1, column: 4),
        .init(text: "[-]", code: .invalidNumber, line: 1, column: 3),
        .init(text: "[1e400]", code: .numberOutOfRange, line: 1, column: 2),
        .init(text: "[NaN]", code: .unexpectedCharacter, line: 1, column: 2),
        .init(text: "[\"a\\x\"]", code: .invalidEscape, line: 1, column: 4),
        .init(text: "[\"\\ud800\"]", code: .invalidUnicodeEscape, line: 1, column: 3),
        .init(text: "[\"\\u12G4\"]", code: .invalidUnicodeEscape, line: 1, column: 7),
        .init(text: "[\"a\tb\"]", code: .controlCharacterInString, line: 1, column: 4),
        .init(text: "{\"a\": 1,\n \"a\": 2}", code: .duplicateKey, line: 2, column: 2),
        .init(text: "{} {}", code: .trailingContent, line: 1, column: 4),
        .init(text: "// c\n{}", code: .unexpectedCharacter, line: 1, column: 1),
        .init(text: "{a: 1}", code: .unexpectedCharacter, line: 1, column: 2),
        .init(text: "['a']", code: .unexpectedCharacter, line: 1, column: 2),
    ]

    @Test(arguments: badInputs) func rejectsWithLineAndColumn(_ input: BadInput) {
        do {
            _ = try JSONValue(parsing: input.text)
            Issue.record("accepted \(input.text)")
        } catch {
            #expect(error.code == input.code)
            #expect(error.line == input.line && error.column == input.column, "\(error)")
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONParser().parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func enforcesDepthAndSizeLimits() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect { try JSONParser(maxDepth: 128).parse(deep) } throws: {
            ($0 as? JSONParseError)?.code == .depthLimitExceeded
        }
        #expect { try JSONParser(maxDepth: 128).parse(String(repeating: "[", count: 100000)) } throws: {
            ($0 as? JSONParseError)?.code == .depthLimitExceeded
        }
        #expect { try JSONParser(maxBytes: 10).parse("[1,2,3,4,5,6]") } throws: {
            ($0 as? JSONParseError)?.code == .sizeLimitExceeded
        }
        #expect((try? JSONParser(maxDepth: 3).parse("[[[1]]]")) != nil)
    }
}

@Suite struct JSONSerializerTests {
    @Test func canonicalFormIsSortedCompactAndEscaped() throws {
        let v = try JSONValue(
            parsing:
                "{ \"b\": 1.50, \"a\": [true, null], \"é\": \"\\u0001\\t\\\"/\", \"B\": 2.0, \"c\": 1e-7, \"d\": -0.0 }"
        )
        #expect(v.canonicalString == #"{"B":2,"a":[true,null],"b":1.5,"c":1e-07,"d":0,"é":"\u0001\t\"/"}"#)
    }

    @Test func sortsKeysByCodePoint() {
        let v: JSONValue = ["z": 1, "é": 2, "Z": 3, "aa": 4, "a": 5, "😀": 6, "ｚ": 7]
        #expect(v.canonicalString == #"{"Z":3,"a":5,"aa":4,"z":1,"é":2,"ｚ":7,"😀":6}"#)
    }

    @Test func canonicalBytesAreStable() throws {
        for (_, template) in try PaywallTemplates.all() {
            let bytes = template.canonicalBytes
            let reparsed = try JSONParser().parse(bytes)
            #expect(reparsed == template)
            #expect(reparsed.canonicalBytes == bytes)
            #expect(try JSONValue(parsing: template.prettyString).canonicalBytes == bytes)
        }
    }

    @Test func numbersRoundTripShortest() throws {
        for d in [0.1, 1.0 / 3.0, 123456.789, 1e21, Double.leastNonzeroMagnitude, -2.5e-8, 1.7976931348623157e308] {
            let text = JSONValue.number(.double(d)).canonicalString
            #expect(try JSONValue(parsing: text).doubleValue == d, "\(text)")
        }
    }

    @Test func prettyIsIndented() {
        let v: JSONValue = ["b": [1, 2], "a": [:]]
        #expect(v.prettyString == "{\n  \"a\": {},\n  \"b\": [\n    1,\n    2\n  ]\n}\n")
    }

    @Test func literalsAndAccessors() {
        var v: JSONValue = ["name": "x", "n": 3, "f": 1.5, "ok": true, "list": [1, "two", nil]]
        #expect(v["name"]?.stringValue == "x")
        #expect(v["n"]?.intValue == 3)
        #expect(v["f"]?.intValue == nil)
        #expect(v["ok"]?.boolValue == true)
        #expect(v["list"]?[2]?.isNull == true)
        #expect(v["list"]?[9] == nil)
        v["name"] = "y"
        v["ok"] = nil
        #expect(v["name"] == "y" && v["ok"] == nil)
        #expect(JSONValue.number(.integer(1)) == JSONValue.number(.double(1.0)))
    }
}

@Suite struct JSONPathTests {
    @Test func printsAndParses() throws {
        let path = JSONPath.root.appending("root").appending("children").appending(3).appending("text").appending(
            "de-AT")
        #expect(path.description == #"$.root.children[3].text["de-AT"]"#)
        #expect(JSONPath(parsing: path.description) == path)
        #expect(JSONPath(parsing: "$.a[x]") == nil)
        #expect(JSONPath(parsing: "a.b") == nil)
        #expect(JSONPath(parsing: "$") == .root)
    }

    @Test func getsAndSets() throws {
        var v: JSONValue = ["a": [["b": 1]]]
        let path = try #require(JSONPath(parsing: "$.a[0].b"))
        #expect(v[path: path] == 1)
        let set1 = v.set(2, at: path)
        #expect(set1 && v[path: path] == 2)
        let set2 = v.set(3, at: try #require(JSONPath(parsing: "$.a[0].c")))
        let set3 = v.set(3, at: try #require(JSONPath(parsing: "$.a[5].c")))
        let set4 = v.set(3, at: try #require(JSONPath(parsing: "$.x.y")))
        #expect(set2 && !set3 && !set4)
    }
}

@Suite struct JSONMergePatchTests {
    /// The examples of RFC 7396, appendix A.
    @Test func rfc7396Examples() throws {
        let cases: [(String, String, String)] = [
            (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
            (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
            (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
            (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
            (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
            (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
            (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
            (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
            (#"{"a":"foo"}"#, "null", "null"),
            (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
            (#"{"e":null}"#, #"{"a":1}"#, #"{"a":1,"e":null}"#),
            (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
            (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
        ]
        for (target, patch, expected) in cases {
            let result = try JSONValue(parsing: target).applyingMergePatch(try JSONValue(parsing: patch))
            #expect(result == (try JSONValue(parsing: expected)), "\(target) + \(patch)")
        }
    }
}
