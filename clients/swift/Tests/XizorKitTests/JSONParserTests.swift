import Foundation
import Testing

@testable import XizorKit

@Suite struct JSONParserTests {
    static func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Data(text.utf8)) }

    @Test(arguments: [
        (#"{"a":[1,-2.5e3,0,true,false,null,"x"]}"#, JSONValue.object(["a": [1, -2500, 0, true, false, nil, "x"]])),
        (#" [ ] "#, .array([])),
        (#"{}"#, .object([:])),
        (#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{08}\u{0C}\n\r\t")),
        (#""\u00e9\u20AC\ud83d\ude00""#, .string("é€😀")),
        (#""é€😀""#, .string("é€😀")),
        (#"0.5"#, .number(0.5)),
        (#"-0"#, .number(-0.0)),
        (#"{"a":1,"a":2}"#, .object(["a": 2])),
    ])
    func parses(text: String, expected: JSONValue) throws {
        #expect(try Self.parse(text) == expected)
    }

    @Test(arguments: [
        "", " ", "[", "[1,]", "{\"a\"}", "{\"a\":}", "{a:1}", "01", "1.", ".5", "1e", "+1", "-", "tru", "nul",
        "\"unterminated", "\"a\u{01}b\"", "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"", "[1] 2", "1e999", "NaN",
        "[\"\\ud83dx\"]",
    ])
    func refuses(text: String) {
        #expect(throws: JSONParser.Failure.self) { try Self.parse(text) }
    }

    @Test func refusesInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Data([0x22, 0xC3, 0x28, 0x22])) }
        let deep =
            String(repeating: "[", count: JSONParser.maxDepth + 1)
            + String(repeating: "]", count: JSONParser.maxDepth + 1)
        #expect(throws: JSONParser.Failure.self) { try Self.parse(deep) }
        let fine =
            String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        #expect((try? Self.parse(fine)) != nil)
    }

    @Test func agreesWithJSONDecoderOnALargeDocument() throws {
        var members: [String: JSONValue] = [:]
        for index in 0..<300 {
            members["key\(index)"] = [
                "text": .string("line \(index) \u{2028} \"quoted\" ü"), "n": .number(Double(index) * 1.25),
                "flags": [true, false, nil],
            ]
        }
        let data = try JSONValue.object(members).jsonData()
        #expect(try JSONParser.parse(data) == JSONDecoder().decode(JSONValue.self, from: data))
    }
}
