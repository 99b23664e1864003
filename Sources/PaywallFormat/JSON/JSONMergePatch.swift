/// JSON Merge Patch (RFC 7386): the small "send only what changes" edit an agent can write
/// without knowing the whole document. `null` removes a member; an object merges member by
/// member; anything else (arrays included) replaces the target.
public enum JSONMergePatch {
    /// The result of applying `patch` to `target`, exactly as RFC 7386 section 2 defines it.
    public static func apply(_ patch: JSONValue, to target: JSONValue) -> JSONValue {
        guard case .object(let members) = patch else { return patch }
        var result = target.objectValue ?? [:]
        for (name, value) in members {
            if value.isNull {
                result.removeValue(forKey: name)
            } else {
                result[name] = apply(value, to: result[name] ?? .null)
            }
        }
        return .object(result)
    }
}
