extension JSONValue {
    /// This value with an RFC 7396 JSON Merge Patch applied (MCP `update_paywall_draft`): an object patch
    /// merges member by member, `null` removes a member, anything else (arrays included) replaces.
    public func applyingMergePatch(_ patch: JSONValue) -> JSONValue {
        guard case .object(let patchObject) = patch else { return patch }
        var result = objectValue ?? [:]
        for (key, value) in patchObject {
            if value.isNull {
                result[key] = nil
            } else {
                result[key] = (result[key] ?? .null).applyingMergePatch(value)
            }
        }
        return .object(result)
    }
}
