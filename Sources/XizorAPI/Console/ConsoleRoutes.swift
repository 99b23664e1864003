import HTTP
import XizorConsole
import XizorDomain

/// The console in the browser (docs/console.md): `GET /` redirects to it; its page and its
/// versioned assets are open routes (the console signs in with a key the user types, and calls
/// only the public API with it). Off with `console.enabled` false: then `/` is 404 as before.
struct ConsoleRoutes {
    let site: ConsoleSite

    func register(in routes: inout APIRoutes) {
        let site = site
        let base = site.basePath
        let page = site.index
        routes.open(
            .GET, "/",
            Self.redirectToConsole, execution: .inline
        ) { _ in
            HTTPResponse(status: .found, headers: ["Location": base, "Cache-Control": "no-cache"])
        }
        routes.open(
            .GET, base,
            Self.getConsole,
            execution: .inline
        ) { _ in
            HTTPResponse(
                status: .ok, headers: ConsoleRoutes.headers(contentType: page.contentType, cache: "no-cache"),
                body: page.bytes,
                etag: page.etag, compressible: true)
        }
        routes.open(
            .GET, base + "/v/:version/:file",
            Self.getConsoleAsset,
            execution: .inline
        ) { request in
            guard let file = site.asset(version: request.parameter("version"), name: request.parameter("file")) else {
                throw ServiceError(
                    .notFound, "console_file_not_found",
                    "No file '\(request.parameter("file"))' in this version of the console.")
            }
            return HTTPResponse(
                status: .ok,
                headers: ConsoleRoutes.headers(
                    contentType: file.contentType, cache: "public, max-age=31536000, immutable"),
                body: file.bytes, etag: file.etag, compressible: true)
        }
    }

    static func headers(contentType: String, cache: String) -> HTTPHeaders {
        [
            "Content-Type": contentType, "Cache-Control": cache,
            "Content-Security-Policy": ConsoleSite.contentSecurityPolicy,
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
        ]
    }
}

/// What `console.path` may be: it becomes literal route segments beside the API's, so it must not
/// shadow them or need escaping.
public enum ConsolePath {
    public static func isValid(_ path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard path.hasPrefix("/"), segments.count >= 2, path.utf8.count <= 100 else { return false }
        let names = segments.dropFirst()
        guard !["v1", "mcp", "openapi.json", "healthz", "readyz", "metrics"].contains(String(names[names.startIndex]))
        else { return false }
        return names.allSatisfy { name in
            !name.isEmpty
                && name.utf8.allSatisfy { b in
                    (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F
                }
        }
    }
}
