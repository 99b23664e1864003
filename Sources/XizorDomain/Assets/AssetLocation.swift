import PaywallFormat

/// Where asset URLs point. Documents hold absolute `https://` URLs (the format accepts no other
/// media URL), made from `server.publicURL` when the operator set one. Without it they use the
/// reserved placeholder origin `https://xizor.localhost` (RFC 6761), which this server's pages load
/// from their own origin: a fresh install on a laptop shows its media over plain HTTP, and setting
/// `server.publicURL` later needs no document edited (pages and the SDK's JSON are rewritten).
public struct AssetLocation: Sendable, Equatable {
    /// The configured `https://host[:port]` (no path), or nil.
    public let publicOrigin: String?

    public init(publicOrigin: String?) {
        self.publicOrigin = publicOrigin
    }

    public static let placeholderOrigin = ServerMedia.origin
    /// The path every asset URL has, on either origin.
    public static let pathPrefix = ServerMedia.pathPrefix
    /// The folder of the media bundled with the templates.
    public static let templatesFolder = "templates"

    /// Whether `text` can be `server.publicURL`: `https://` and a host, no path, query or fragment.
    public static func isValidPublicOrigin(_ text: String) -> Bool {
        guard text.hasPrefix("https://") else { return false }
        let rest = text.dropFirst("https://".count)
        return !rest.isEmpty && rest.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || "-.:[]".contains($0) }
    }

    var origin: String { publicOrigin ?? Self.placeholderOrigin }

    func url(path: String) -> String { origin + path }

    static func path(appID: String, sha256: String, fileExtension: String) -> String {
        pathPrefix + appID + "/" + sha256 + "." + fileExtension
    }

    /// The document as the SDK's JSON carries it: this server's media at the public origin (as
    /// stored when none is configured, since nothing else would be reachable over https).
    package func forSDK(_ document: JSONValue, appID: String) -> JSONValue {
        publicOrigin == nil ? document : rewrite(document, appID: appID, relative: false)
    }

    /// The document as pages render it, and the path prefix the renderer may load from the page's
    /// own origin (nil when the public origin is absolute).
    func forPages(_ document: JSONValue, appID: String) -> (document: JSONValue, servedMediaPath: String?) {
        (rewrite(document, appID: appID, relative: true), publicOrigin == nil ? Self.pathPrefix : nil)
    }

    /// Rewrites the URLs of this server's assets (of `appID`'s folder or the templates', under the
    /// placeholder or the public origin) everywhere in `document`: to `/v1/assets/…` paths for
    /// pages when no public origin is set (`relative`), else to the public origin. Other strings
    /// are left as they are.
    func rewrite(_ document: JSONValue, appID: String, relative: Bool) -> JSONValue {
        let origins = [Self.placeholderOrigin] + (publicOrigin.map { [$0] } ?? [])
        let folders = [Self.pathPrefix + appID + "/", Self.pathPrefix + Self.templatesFolder + "/"]
        let target = relative && publicOrigin == nil ? "" : origin
        func walk(_ value: JSONValue) -> JSONValue {
            switch value {
            case .string(let s):
                guard s.hasPrefix("https://") else { return value }
                for o in origins where s.hasPrefix(o) {
                    let path = s.dropFirst(o.count)
                    if folders.contains(where: { path.hasPrefix($0) }) { return .string(target + path) }
                }
                return value
            case .array(let items): return .array(items.map(walk))
            case .object(let members): return .object(members.mapValues(walk))
            default: return value
            }
        }
        return walk(document)
    }
}
