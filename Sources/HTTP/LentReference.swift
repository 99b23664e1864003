/// A strong reference that a class's stored property holds by hand, so that it can be lent for a
/// call without a retain and a release. Read through a class's `var`, a reference is retained for
/// every use (the call could assign the `var` and free the object); a request's route match and
/// admission context are read that way by every SDK request's handler, two atomic instructions
/// each time (docs/benchmarks.md).
///
/// Sound only where the holder is not changed while it lends: `HTTPRequest`'s box is changed only
/// when the request holds it alone (copy on write, and the parser's `reuse`), and a lend goes
/// through a borrowed request, which cannot be changed meanwhile. Noncopyable: the reference has
/// one owner, which releases it.
struct LentReference<Object: AnyObject>: ~Copyable {
    private var reference: Unmanaged<Object>?

    init() {}

    deinit { reference?.release() }

    var isEmpty: Bool { reference == nil }

    /// The object, retained for the caller.
    var object: Object? { reference?.takeUnretainedValue() }

    /// Holds `object` instead. Consumed: it moves in (the retain that keeps it and the release of
    /// the parameter cancel out).
    mutating func replace(with object: consuming Object?) {
        // Released first: were the new object the same, the parameter still holds it.
        reference?.release()
        reference = object.map { Unmanaged.passRetained($0) }
    }

    /// `body` with the object lent, nil when there is none.
    func withObject<Result>(_ body: (Object?) throws -> Result) rethrows -> Result {
        try withObject({ try body($0) }, absent: { try body(nil) })
    }

    /// `body` with the object lent, or `absent` when there is none. The object is not wrapped in an
    /// optional: passed on from an optional, a lent object was retained around the call.
    func withObject<Result>(_ body: (Object) throws -> Result, absent: () throws -> Result) rethrows -> Result {
        guard let reference else { return try absent() }
        return try reference._withUnsafeGuaranteedRef { try body($0) }
    }

    /// `body` with the object lent when it is exactly a `T` (not a subclass: the check compares
    /// types, where a cast retained the object), nil otherwise.
    func withObject<T: AnyObject, Result>(as type: T.Type, _ body: (T?) throws -> Result) rethrows -> Result {
        // `as AnyObject`: in a generic context `type(of:)` of an existential (`Object` is `AnyObject`
        // for the context) would be its static type.
        guard let reference, reference._withUnsafeGuaranteedRef({ Swift.type(of: $0 as AnyObject) == T.self }) else {
            return try body(nil)
        }
        return try Unmanaged<T>.fromOpaque(reference.toOpaque())._withUnsafeGuaranteedRef { try body($0) }
    }
}
