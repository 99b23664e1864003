import HTTP
import PaywallFormat
import XizorDomain

/// `/v1/assets`: uploads and their descriptions with the secret key; the files themselves at
/// `/v1/assets/{folder}/{file}` for anyone (pages load them with `<img>` and `<video>`, which send
/// no key; the URL is the content's hash), cached for a year as immutable, with byte ranges for
/// video players.
struct AssetRoutes {
    let assets: AssetService

    static let mediaTypes = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "video/mp4", "video/webm", "application/json",
    ]

    func register(in routes: inout APIRoutes) {
        var upload = Self.uploadAsset
        upload.requestMediaTypes = Self.mediaTypes + ["application/octet-stream"]
        routes.secret(.POST, "/v1/assets", scope: .drafts, upload) { request, caller in
            let stored = try assets.upload(
                caller: caller, bytes: request.body, declaredType: request.header("Content-Type"),
                name: request.query("name"))
            let id = stored.asset["id"]?.stringValue ?? ""
            return APIResponse.json(
                stored.asset, status: stored.created ? .created : .ok, headers: ["Location": "/v1/assets/\(id)"])
        }
        routes.secret(.GET, "/v1/assets", scope: .read, Self.listAssets) { request, caller in
            let page = try assets.list(
                appID: caller.appID, limit: try PageSize.from(request),
                cursor: try PageCursor.parse(request.query("cursor")))
            return APIResponse.json([
                "items": .array(page.items), "nextCursor": page.next.map { .string($0.text) } ?? .null,
            ])
        }
        routes.secret(.GET, "/v1/assets/:id", scope: .read, Self.getAsset) { request, caller in
            APIResponse.json(try assets.describe(appID: caller.appID, id: request.parameter("id")))
        }
        routes.open(.GET, "/v1/assets/:folder/:file", Self.getAssetFile) { request in
            let file = try assets.file(folder: request.parameter("folder"), name: request.parameter("file"))
            return Self.serve(file, range: request.header("Range"))
        }
    }

    /// The file, or the one byte range asked for (several ranges, or a malformed header, get the
    /// whole file as RFC 9110 allows; a range past the end gets 416).
    static func serve(_ file: AssetService.ServedFile, range: String?) -> HTTPResponse {
        var headers: HTTPHeaders = [
            "Content-Type": file.contentType, "Cache-Control": "public, max-age=31536000, immutable",
            "Accept-Ranges": "bytes", "Access-Control-Allow-Origin": "*",
            "Cross-Origin-Resource-Policy": "cross-origin", "X-Content-Type-Options": "nosniff",
        ]
        let compressible = file.contentType == "application/json"
        guard let range, let bounds = ByteRange.parse(range, size: file.bytes.count) else {
            return HTTPResponse(
                status: .ok, headers: headers, body: file.bytes, etag: file.etag, compressible: compressible)
        }
        switch bounds {
        case .unsatisfiable:
            headers["Content-Range"] = "bytes */\(file.bytes.count)"
            return HTTPResponse(status: HTTPStatus(416), headers: headers, body: [], compressible: false)
        case .range(let first, let last):
            headers["Content-Range"] = "bytes \(first)-\(last)/\(file.bytes.count)"
            return HTTPResponse(
                status: HTTPStatus(206), headers: headers, body: Array(file.bytes[first...last]), etag: file.etag,
                compressible: false)
        }
    }
}

/// One `Range: bytes=…` over a representation of `size` bytes (RFC 9110 §14.1.2).
enum ByteRange: Equatable {
    case range(first: Int, last: Int)
    case unsatisfiable

    /// Nil when the header is malformed or asks for several ranges (the whole file is served).
    static func parse(_ header: String, size: Int) -> ByteRange? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count).filter { $0 != " " }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let (start, end) = (parts[0], parts[1])
        if start.isEmpty {
            guard let suffix = Int(end) else { return nil }
            guard suffix > 0 else { return .unsatisfiable }
            return size == 0 ? .unsatisfiable : .range(first: max(0, size - suffix), last: size - 1)
        }
        guard let first = Int(start), first >= 0 else { return nil }
        guard first < size else { return .unsatisfiable }
        if end.isEmpty { return .range(first: first, last: size - 1) }
        guard let last = Int(end), last >= first else { return nil }
        return .range(first: first, last: min(last, size - 1))
    }
}
