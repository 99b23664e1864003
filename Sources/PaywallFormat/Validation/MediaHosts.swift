/// Media that cannot load anywhere: URLs on hosts reserved so that they never resolve (RFC 2606's
/// `example.com`, `.net`, `.org` and the `.example`, `.invalid`, `.test` and `.localhost` domains,
/// RFC 6761). A template's placeholder media published as it is shows blurred blobs and black
/// boxes; the warning says so before publishing. This server's own media (`ServerMedia.origin`)
/// is reachable by design and never warned about.
enum MediaHosts {
    /// The members that hold media URLs, wherever they are in the document.
    static let mediaKeys: Set<String> = ["src", "poster"]

    static func warnings(for document: JSONValue) -> [ValidationIssue] {
        var warnings: [ValidationIssue] = []
        func walk(_ value: JSONValue, _ path: JSONPath) {
            switch value {
            case .object(let members):
                for key in members.keys.sorted() {
                    guard let member = members[key] else { continue }
                    if mediaKeys.contains(key), case .string(let url) = member, let host = host(of: url),
                        isReserved(host),
                        !ServerMedia.isServerMedia(url)
                    {
                        warnings.append(
                            ValidationIssue(
                                path.appending(key), ValidationCode.unreachableMediaHost.rawValue,
                                "\(host) is reserved and never resolves: this media will not load (upload it with POST /v1/assets)"
                            ))
                    } else {
                        walk(member, path.appending(key))
                    }
                }
            case .array(let items):
                for (index, item) in items.enumerated() { walk(item, path.appending(index)) }
            default:
                break
            }
        }
        walk(document, .root)
        return warnings
    }

    /// The lowercased host of an `https://` URL (nil for anything else).
    static func host(of url: String) -> String? {
        guard url.hasPrefix("https://") else { return nil }
        let rest = url.dropFirst("https://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@").last.map(String.init) ?? ""
        let host = hostAndPort.hasPrefix("[") ? hostAndPort : String(hostAndPort.prefix { $0 != ":" })
        return host.isEmpty ? nil : host.lowercased()
    }

    static func isReserved(_ host: String) -> Bool {
        let trimmed = host.hasSuffix(".") ? String(host.dropLast()) : host
        for name in ["example.com", "example.net", "example.org"] where trimmed == name || trimmed.hasSuffix("." + name)
        { return true }
        let last = trimmed.split(separator: ".").last.map(String.init) ?? trimmed
        return ["example", "invalid", "test", "localhost"].contains(last)
    }
}
