import PaywallFormat
import Testing

/// Issue 35 (3): a patch pays for what it writes, a copy for the size of what it copies, and stops
/// at the operation that passes its budget, so a small patch cannot describe a huge document.
@Suite struct JSONPatchBudgetTests {
    func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

    func failure(_ patch: String, on document: String, budget: JSONPatch.Budget) throws -> JSONPatch.Failure? {
        do {
            _ = try JSONPatch.apply(JSONPatch.parse(json(patch)), to: json(document), budget: budget)
            return nil
        } catch let failure as JSONPatch.Failure {
            return failure
        }
    }

    /// `/r` weighs 12 ("0123456789" with its quotes); each copy of `/l` into itself weighs
    /// 1 + count + its items: 14, 29, 59, 119. Written after each operation: 12, 26, 55, 114, 233.
    static let doubling =
        #"[{"op":"copy","from":"/r","path":"/l/-"},"#
        + Array(repeating: #"{"op":"copy","from":"/l","path":"/l/-"}"#, count: 4).joined(separator: ",") + "]"
    static let small = #"{"r":"0123456789","l":[]}"#

    @Test func aCopyPaysForWhatItCopiesAndTheOperationThatPassesTheBudgetIsNamed() throws {
        #expect(try failure(Self.doubling, on: Self.small, budget: .init(maxBytes: 233)) == nil)
        let refused = try #require(try failure(Self.doubling, on: Self.small, budget: .init(maxBytes: 232)))
        #expect(refused.kind == .budgetExceeded)
        #expect(refused.jsonPath == "$[4]")
        #expect(
            refused.message
                == "The patch writes more than 232 bytes (a copy counts the size of what it copies), the limit of a draft; nothing was applied."
        )
        let early = try #require(try failure(Self.doubling, on: Self.small, budget: .init(maxBytes: 54)))
        #expect(early.jsonPath == "$[2]")
    }

    /// The attack of the issue: `/root` into a list, then the list into itself 14 times (2^14
    /// copies of the tree). Under the standard budget it stops within a few operations, at once.
    @Test func theAmplificationOfTheIssueStopsUnderTheStandardBudget() throws {
        let template = try #require(try PaywallTemplates.document(named: PaywallTemplates.names[0]))
        guard case .object(var members) = template else {
            Issue.record("not an object")
            return
        }
        members["l"] = .array([])
        let patch =
            #"[{"op":"copy","from":"/root","path":"/l/-"},"#
            + Array(repeating: #"{"op":"copy","from":"/l","path":"/l/-"}"#, count: 14).joined(separator: ",") + "]"
        let clock = ContinuousClock()
        var refused: JSONPatch.Failure?
        let elapsed = clock.measure {
            do { _ = try JSONPatch.apply(JSONPatch.parse(json(patch)), to: .object(members)) } catch let failure
                as JSONPatch.Failure
            {
                refused = failure
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(refused?.kind == .budgetExceeded)
        #expect(refused.map { $0.index ?? 0 < 14 } == true, "the copies ran on: \(String(describing: refused))")
        #expect(elapsed < .seconds(2))
    }

    @Test(arguments: [
        // Containers at depths 1 (root), 2 (a), 3 (b), 4 (c): one too many.
        (#"{"a":{}}"#, #"[{"op":"add","path":"/a/b","value":{"c":{}}}]"#, "$[0]"),
        (#"{"a":{}}"#, #"[{"op":"add","path":"","value":[[[[1]]]]}]"#, "$[0]"),
        // A move pays no bytes but still may not nest deeper.
        (
            #"{"a":{"b":{}},"c":{"d":{}}}"#,
            #"[{"op":"test","path":"/a","value":{"b":{}}},{"op":"move","from":"/c","path":"/a/b/x"}]"#, "$[1]"
        ),
        (#"{"a":{"b":{}}}"#, #"[{"op":"copy","from":"/a","path":"/a/b/x"}]"#, "$[0]"),
    ])
    func nothingNestsDeeperThanTheBudget(document: String, patch: String, path: String) throws {
        let refused = try #require(try failure(patch, on: document, budget: .init(maxBytes: 1000, maxDepth: 3)))
        #expect(refused.kind == .tooDeep)
        #expect(refused.jsonPath == path)
        #expect(
            refused.message
                == "The result would nest arrays and objects more than 3 levels deep, the limit of a JSON document.")
    }

    @Test func atTheLimitsAPatchApplies() throws {
        // Depth 3 exactly; a move of a large value pays nothing.
        #expect(
            try failure(
                #"[{"op":"add","path":"/a/b","value":{"c":1}}]"#, on: #"{"a":{}}"#,
                budget: .init(maxBytes: 1000, maxDepth: 3)) == nil)
        #expect(
            try failure(
                #"[{"op":"move","from":"/a","path":"/b"}]"#, on: #"{"a":"0123456789"}"#, budget: .init(maxBytes: 1))
                == nil)
        // "x" weighs 3: a replace pays for its value too.
        #expect(
            try failure(#"[{"op":"replace","path":"/a","value":"x"}]"#, on: #"{"a":1}"#, budget: .init(maxBytes: 3))
                == nil)
        let refused = try failure(
            #"[{"op":"replace","path":"/a","value":"x"}]"#, on: #"{"a":1}"#, budget: .init(maxBytes: 2))
        #expect(refused?.kind == .budgetExceeded)
    }
}
