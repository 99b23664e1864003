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

extension JSONValue {
    /// Where a merge patch throws away more than it names: every array it replaces with a different
    /// one (a merge patch cannot edit one element, so `{"root": {"children": [{…}]}}` drops every
    /// other child) and every non-empty container it empties or removes. Editors show these as
    /// warnings: the edit is applied as RFC 7396 says, but it is rarely what was meant.
    public func mergePatchLosses(_ patch: JSONValue, at path: JSONPath = .root) -> [(path: JSONPath, message: String)] {
        guard case .object(let patchMembers) = patch, case .object(let members) = self else { return [] }
        var losses: [(path: JSONPath, message: String)] = []
        for key in patchMembers.keys.sorted() {
            guard let new = patchMembers[key], let old = members[key] else { continue }
            let here = path.appending(key)
            switch (old, new) {
            case (.object, .object):
                losses += old.mergePatchLosses(new, at: here)
            case (.array(let before), .array(let after)) where before != after:
                losses.append(
                    (
                        here,
                        "A merge patch replaces arrays whole: \(here) had \(before.count) item(s) and now has \(after.count). "
                            + "To change one element, use a JSON Patch (patch_paywall_draft) or set texts by path."
                    ))
            case (.array(let before), .null) where !before.isEmpty, (.array(let before), .object) where !before.isEmpty:
                losses.append((here, "The merge patch removed \(here) and its \(before.count) item(s)."))
            case (.object(let before), .null) where !before.isEmpty:
                losses.append((here, "The merge patch removed \(here) and its \(before.count) member(s)."))
            default:
                break
            }
        }
        return losses
    }
}
