/// Warnings for what App Store review rejects in a paywall: selling without a restore entry point,
/// without privacy or terms links, or without a way to close a dismissable paywall. Only the rendered
/// tree counts (children, carousel pages, selector options — not fallbacks).
enum AppStoreReview {
    struct Findings {
        var sells = false
        var restore = false
        var privacy = false
        var terms = false
        var close = false
    }

    static func warnings(for document: JSONValue) -> [ValidationIssue] {
        var findings = Findings()
        if let root = document["root"] { scan(root, &findings) }
        var warnings: [ValidationIssue] = []
        let root = JSONPath.root.appending("root")
        if findings.sells {
            if !findings.restore {
                warnings.append(
                    ValidationIssue(
                        root, ValidationCode.missingRestoreEntryPoint.rawValue,
                        "the paywall sells but has no restore entry point (restore_button, a restore action, or footer_links with showRestore)"
                    ))
            }
            if !findings.privacy {
                warnings.append(
                    ValidationIssue(
                        root, ValidationCode.missingPrivacyLink.rawValue,
                        "the paywall sells but links no privacy policy (footer_links.privacyUrl or an open_url button)")
                )
            }
            if !findings.terms {
                warnings.append(
                    ValidationIssue(
                        root, ValidationCode.missingTermsLink.rawValue,
                        "the paywall sells but links no terms of service (footer_links.termsUrl or an open_url button)")
                )
            }
        }
        if document["settings"]?["dismissable"] == .bool(true), !findings.close {
            warnings.append(
                ValidationIssue(
                    JSONPath.root.appending("settings").appending("dismissable"),
                    ValidationCode.missingCloseControl.rawValue, "dismissable is true but no button has a close action")
            )
        }
        return warnings
    }

    static func scan(_ node: JSONValue, _ f: inout Findings) {
        guard let type = node["type"]?.stringValue else { return }
        switch type {
        case "purchase_button", "product_selector": f.sells = true
        case "restore_button": f.restore = true
        case "button": action(node["action"], &f)
        case "footer_links":
            if node["showRestore"] != .bool(false) { f.restore = true }
            if node["privacyUrl"]?.stringValue != nil { f.privacy = true }
            if node["termsUrl"]?.stringValue != nil { f.terms = true }
        default: break
        }
        for child in node["children"]?.arrayValue ?? [] { scan(child, &f) }
        for page in node["pages"]?.arrayValue ?? [] { scan(page, &f) }
        if let option = node["option"] { scan(option, &f) }
    }

    static func action(_ action: JSONValue?, _ f: inout Findings) {
        switch action?["type"]?.stringValue {
        case "close": f.close = true
        case "restore": f.restore = true
        case "purchase": f.sells = true
        case "open_url":
            let url = action?["url"]?.stringValue?.lowercased() ?? ""
            if url.contains("privacy") { f.privacy = true }
            if url.contains("terms") || url.contains("eula") { f.terms = true }
        default: break
        }
    }
}
