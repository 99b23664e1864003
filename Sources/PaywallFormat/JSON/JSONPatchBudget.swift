extension JSONPatch {
    /// What one patch may write. A patch is small but its `copy` is not: a 766-byte patch that copies
    /// a list into itself 14 times describes a 56 MB document. So every value an operation puts into
    /// the document is paid for as it is placed (a copy pays the size of what it copies), and the
    /// patch stops at the operation that passes the budget, before that value is even counted in
    /// full: the amplification never materialises. The depth limit keeps the result readable by the
    /// parser that will read it back (and bounds every recursion over it).
    public struct Budget: Sendable, Equatable {
        /// Bytes (about the canonical JSON size) that `add`, `replace` and `copy` may write in total.
        public var maxBytes: Int
        /// Nesting of arrays and objects in the result: the JSON parser's limit.
        public var maxDepth: Int

        public init(maxBytes: Int, maxDepth: Int = JSONParser().maxDepth) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
        }

        /// 1 MiB, the default request body limit: a patch writes no more than a whole `PUT` could send.
        public static let standard = Budget(maxBytes: 1 << 20)
    }

    /// Charges each placed value against a `Budget` as the patch runs.
    struct Meter {
        let budget: Budget
        private(set) var written = 0

        init(_ budget: Budget) { self.budget = budget }

        /// Checks that `value` may be placed at `pointer`: not deeper than the budget's nesting and,
        /// when `paying` (everything but `move`, which only relocates), within the bytes left.
        mutating func place(_ value: JSONValue, at pointer: JSONPointer, paying: Bool) throws(Failure) {
            // The value's containers sit below the pointer's `tokens.count` levels.
            let room = budget.maxDepth - pointer.tokens.count
            guard room >= 0, value.containerDepth(exceeding: room) <= room else {
                throw Failure(
                    kind: .tooDeep, index: nil, field: nil,
                    message:
                        "The result would nest arrays and objects more than \(budget.maxDepth) levels deep, the limit of a JSON document."
                )
            }
            guard paying else { return }
            value.addWeight(to: &written, limit: budget.maxBytes)
            guard written <= budget.maxBytes else {
                throw Failure(
                    kind: .budgetExceeded, index: nil, field: nil,
                    message:
                        "The patch writes more than \(budget.maxBytes) bytes (a copy counts the size of what it copies), the limit of a draft; nothing was applied."
                )
            }
        }
    }
}

extension JSONValue {
    /// How deeply arrays and objects nest in this value (a scalar is 0), exact up to `limit`;
    /// beyond it, some number over `limit`, found without walking further (so the recursion is
    /// bounded by `limit` whatever the value).
    func containerDepth(exceeding limit: Int) -> Int {
        switch self {
        case .array(let items): Self.deepest(items, limit: limit)
        case .object(let members): Self.deepest(members.values, limit: limit)
        default: 0
        }
    }

    private static func deepest<C: Collection<JSONValue>>(_ children: C, limit: Int) -> Int {
        guard limit > 0 else { return 1 }
        var deepest = 0
        for child in children {
            deepest = max(deepest, child.containerDepth(exceeding: limit - 1))
            if deepest > limit - 1 { break }
        }
        return 1 + deepest
    }

    /// Adds about this value's canonical JSON size to `total` (strings without their escapes,
    /// fractional numbers as 8), and stops adding as soon as `total` passes `limit`: weighing a
    /// huge value costs no more than the budget it is weighed against.
    func addWeight(to total: inout Int, limit: Int) {
        guard total <= limit else { return }
        switch self {
        case .null: total += 4
        case .bool(let flag): total += flag ? 4 : 5
        case .number(.integer(let n)): total += Self.digits(n)
        case .number(.double): total += 8
        case .string(let text): total += text.utf8.count + 2
        case .array(let items):
            total += 1 + max(items.count, 1)
            for item in items {
                item.addWeight(to: &total, limit: limit)
                if total > limit { return }
            }
        case .object(let members):
            total += 1 + max(members.count, 1)
            for (key, value) in members {
                total += key.utf8.count + 3
                value.addWeight(to: &total, limit: limit)
                if total > limit { return }
            }
        }
    }

    private static func digits(_ n: Int64) -> Int {
        var count = n < 0 ? 2 : 1
        var rest = n.magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }
}
