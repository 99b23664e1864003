import PaywallFormat

/// Any JSON through the tolerant reader and the strict validator. Beyond not crashing: every issue
/// has a JSON path and a documented code (docs/schema.md lists each `ValidationCode`), and two
/// independently parsed copies of the same text get the same answer in the same order (the API's
/// answers, and the content hashes beside them, must not depend on dictionary layout).
enum DocumentFuzz {
    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzFinding) {
        guard let first = FuzzJSON.parse(input), let second = FuzzJSON.parse(input) else { return }
        _ = PaywallReader.read(first)
        let result = PaywallValidator.validate(first)
        for issue in result.errors + result.warnings {
            guard issue.path.hasPrefix("$") else { throw FuzzFinding(.document, "issue without a JSON path: \(issue)") }
            guard ValidationCode(rawValue: issue.code) != nil else {
                throw FuzzFinding(.document, "undocumented code: \(issue)")
            }
        }
        let again = PaywallValidator.validate(second)
        guard again.errors == result.errors, again.warnings == result.warnings else {
            throw FuzzFinding(
                .document, "two copies of one document validate differently: \(result.errors) vs \(again.errors)")
        }
        guard result.isValid == (result.document != nil) else {
            throw FuzzFinding(.document, "valid=\(result.isValid) but document present=\(result.document != nil)")
        }
    }
}
