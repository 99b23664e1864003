/// Media served by the Xizor server itself. The format accepts only `https://` media URLs, so a
/// document names this server's media under a reserved origin (RFC 6761's `.localhost`), which
/// the server rewrites to where it is really reached (its `server.publicURL`, or the page's own
/// origin). The templates' bundled media live under `templatesPath`; an app's uploads under
/// `/v1/assets/{appId}/`.
public enum ServerMedia {
    public static let origin = "https://xizor.localhost"
    public static let pathPrefix = "/v1/assets/"
    public static let templatesPath = "/v1/assets/templates/"

    /// Whether `url` names this server's media (and so is reachable wherever the server is).
    public static func isServerMedia(_ url: String) -> Bool { url.hasPrefix(origin + pathPrefix) }
}
