import PaywallFormat
import Testing

/// RFC 6902 (its Appendix A examples) and the diff that versions are compared with.
@Suite struct JSONPatchTests {
    func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

    func apply(_ patch: String, to document: String) throws -> JSONValue {
        try JSONPatch.apply(JSONPatch.parse(json(patch)), to: json(document))
    }

    @Test(arguments: [
        // A.1–A.10 of RFC 6902.
        (#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux"}]"#, #"{"baz":"qux","foo":"bar"}"#),
        (#"{"foo":["bar","baz"]}"#, #"[{"op":"add","path":"/foo/1","value":"qux"}]"#, #"{"foo":["bar","qux","baz"]}"#),
        (#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"remove","path":"/baz"}]"#, #"{"foo":"bar"}"#),
        (#"{"foo":["bar","qux","baz"]}"#, #"[{"op":"remove","path":"/foo/1"}]"#, #"{"foo":["bar","baz"]}"#),
        (
            #"{"baz":"qux","foo":"bar"}"#, #"[{"op":"replace","path":"/baz","value":"boo"}]"#,
            #"{"baz":"boo","foo":"bar"}"#
        ),
        (
            #"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#,
            #"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#,
            #"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#
        ),
        (
            #"{"foo":["all","grass","cows","eat"]}"#, #"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#,
            #"{"foo":["all","cows","eat","grass"]}"#
        ),
        (
            #"{"baz":"qux","foo":["a",2,"c"]}"#,
            #"[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]"#,
            #"{"baz":"qux","foo":["a",2,"c"]}"#
        ),
        (
            #"{"foo":"bar"}"#, #"[{"op":"add","path":"/child","value":{"grandchild":{}}}]"#,
            #"{"foo":"bar","child":{"grandchild":{}}}"#
        ),
        (
            #"{"foo":["bar"]}"#, #"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#,
            #"{"foo":["bar",["abc","def"]]}"#
        ),
        // A.14 and A.15: ~ escapes; a.16: comparing numbers by value.
        (#"{"/":9,"~1":10}"#, #"[{"op":"test","path":"/~01","value":10}]"#, #"{"/":9,"~1":10}"#),
        (#"{"/":9,"~1":10}"#, #"[{"op":"test","path":"/~1","value":9}]"#, #"{"/":9,"~1":10}"#),
        (#"{"a":1}"#, #"[{"op":"copy","from":"/a","path":"/b"}]"#, #"{"a":1,"b":1}"#),
        (#"{"a":1}"#, #"[{"op":"replace","path":"","value":[1]}]"#, #"[1]"#),
    ])
    func appliesTheRFCsExamples(document: String, patch: String, expected: String) throws {
        #expect(try apply(patch, to: document) == json(expected))
    }

    @Test(arguments: [
        // A.8's failing twin, A.9, A.12, A.13 (not an operation), out-of-range and leading-zero indices.
        (
            #"{"baz":"qux"}"#, #"[{"op":"test","path":"/baz","value":"bar"}]"#, JSONPatch.Failure.Kind.testFailed,
            "$[0].value"
        ),
        (#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz/bat","value":"qux"}]"#, .unresolvable, "$[0].path"),
        (
            #"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux","op2":"x"},{"op":"remove","path":"/nope"}]"#,
            .unresolvable, "$[1].path"
        ),
        (#"{"foo":"bar"}"#, #"[{"op":"move","path":"/x"}]"#, .malformed, "$[0].from"),
        (#"{"foo":"bar"}"#, #"[{"op":"add","path":"/x"}]"#, .malformed, "$[0].value"),
        (#"{"foo":"bar"}"#, #"[{"op":"merge","path":"/x"}]"#, .malformed, "$[0].op"),
        (#"{"foo":"bar"}"#, #"[{"op":"remove","path":"foo"}]"#, .malformed, "$[0].path"),
        (#"{"foo":"bar"}"#, #"{"op":"remove","path":"/foo"}"#, .malformed, "$"),
        (#"{"a":[1,2]}"#, #"[{"op":"add","path":"/a/3","value":0}]"#, .unresolvable, "$[0].path"),
        (#"{"a":[1,2]}"#, #"[{"op":"remove","path":"/a/01"}]"#, .unresolvable, "$[0].path"),
        (#"{"a":[1,2]}"#, #"[{"op":"remove","path":"/a/-"}]"#, .unresolvable, "$[0].path"),
        (#"{"a":{"b":1}}"#, #"[{"op":"move","from":"/a","path":"/a/b/c"}]"#, .unresolvable, "$[0].from"),
        (#"{"a":1}"#, #"[{"op":"remove","path":""}]"#, .unresolvable, "$[0].path"),
    ])
    func refusesWithWhereAndWhy(document: String, patch: String, kind: JSONPatch.Failure.Kind, path: String) throws {
        do {
            let result = try apply(patch, to: document)
            Issue.record("applied: \(result)")
        } catch let failure as JSONPatch.Failure {
            #expect(failure.kind == kind)
            #expect(failure.jsonPath == path, "\(failure.message)")
        }
    }

    @Test func pointersEscapeAndUnescape() {
        #expect(JSONPointer("/a~1b/~0c/0")?.tokens == ["a/b", "~c", "0"])
        #expect(JSONPointer("/a~1b/~0c/0")?.description == "/a~1b/~0c/0")
        #expect(JSONPointer("")?.tokens == [])
        #expect(JSONPointer("/")?.tokens == [""])
        #expect(JSONPointer("a") == nil && JSONPointer("/~2") == nil && JSONPointer("/~") == nil)
    }

    /// The diff of any two documents is a patch that turns the first into the second — checked on
    /// every pair of templates and on each template against hundreds of seeded random edits of it.
    @Test func theDiffIsAPatchFromOneToTheOther() throws {
        let templates = try PaywallTemplates.all().map(\.document)
        for a in templates {
            for b in templates {
                #expect(try JSONPatch.apply(JSONPatch.diff(from: a, to: b), to: a) == b)
            }
            #expect(JSONPatch.diff(from: a, to: a).isEmpty)
        }
        var random = SplitMix64(state: 42)
        for template in templates {
            for _ in 0..<150 {
                var edited = template
                for _ in 0..<(1 + Int(random.next() % 4)) { edited = mutate(edited, &random) }
                let patch = JSONPatch.diff(from: template, to: edited)
                #expect(try JSONPatch.apply(patch, to: template) == edited)
                // The patch round-trips through its JSON form.
                #expect(try JSONPatch.parse(.array(patch.map(\.json))) == patch)
            }
        }
    }

    @Test func aDiffIsExactAndInDocumentOrder() throws {
        let before = try json(#"{"texts":{"en":{"title":"Go Pro"},"de":{"title":"Pro werden"}},"list":[1,2,3,4]}"#)
        let after = try json(#"{"texts":{"en":{"title":"Go Premium"},"de":{"title":"Pro werden"}},"list":[1,3,4,5]}"#)
        let ops = JSONPatch.diff(from: before, to: after).map(\.json)
        // [1,2,3,4] → [1,3,4,5]: no common suffix, so the middle is replaced element by element.
        #expect(
            ops == [
                ["op": "replace", "path": "/list/1", "value": 3], ["op": "replace", "path": "/list/2", "value": 4],
                ["op": "replace", "path": "/list/3", "value": 5],
                ["op": "replace", "path": "/texts/en/title", "value": "Go Premium"],
            ])
        #expect(try JSONPatch.apply(JSONPatch.diff(from: before, to: after), to: before) == after)
    }

    /// One random structural edit somewhere in the document.
    func mutate(_ value: JSONValue, _ random: inout SplitMix64) -> JSONValue {
        switch value {
        case .object(var members) where !members.isEmpty && random.next() % 3 != 0:
            let keys = members.keys.sorted()
            let key = keys[Int(random.next() % UInt64(keys.count))]
            switch random.next() % 4 {
            case 0: members[key] = nil
            case 1: members["added\(random.next() % 100)"] = .number(.integer(Int64(random.next() % 1000)))
            default: members[key] = mutate(members[key] ?? .null, &random)
            }
            return .object(members)
        case .array(var items) where !items.isEmpty && random.next() % 3 != 0:
            let index = Int(random.next() % UInt64(items.count))
            switch random.next() % 4 {
            case 0: items.remove(at: index)
            case 1: items.insert(.string("inserted"), at: index)
            default: items[index] = mutate(items[index], &random)
            }
            return .array(items)
        default:
            return random.next() % 2 == 0 ? .string("changed \(random.next() % 10)") : .array([.bool(true)])
        }
    }
}
