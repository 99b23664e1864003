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
        var upload = OperationDoc(
            "uploadAsset", summary: "Upload an image, a video or a Lottie animation (content-addressed)",
            description:
                "The body is the file. Its bytes decide the type (PNG, JPEG, GIF, WebP, MP4, WebM, Lottie JSON; not SVG); a declared Content-Type that disagrees is a 415. Limits: images 5 MiB, video 20 MiB, Lottie 2 MiB, 256 MiB per app, and `http.maxBodyBytes` for any body. The same bytes again answer the same asset (200). See docs/api.md, \"Media assets\".",
            tag: "assets",
            parameters: [.query("name", "A label shown in lists (the file name), 1–200 characters.")],
            requestBody: ["type": "string", "contentEncoding": "binary"],
            responses: [
                .json(
                    201, "Stored; `url` goes into documents.", APISchemas.ref("Asset"),
                    headers: [("Location", "The asset's description.")]),
                .json(200, "These bytes were stored already: the same asset.", APISchemas.ref("Asset")),
                .problem(413, "`asset_too_large` (the kind's limit) or `asset_quota_exceeded` (the app's)."),
                .problem(415, "`unsupported_media_type` or `content_type_mismatch`."),
            ])
        upload.requestMediaTypes = Self.mediaTypes + ["application/octet-stream"]
        routes.secret(.POST, "/v1/assets", scope: .drafts, upload) { request, caller in
            let stored = try assets.upload(
                caller: caller, bytes: request.body, declaredType: request.header("Content-Type"),
                name: request.query("name"))
            let id = stored.asset["id"]?.stringValue ?? ""
            return APIResponse.json(
                stored.asset, status: stored.created ? .created : .ok, headers: ["Location": "/v1/assets/\(id)"])
        }
        routes.secret(
            .GET, "/v1/assets", scope: .read,
            OperationDoc(
                "listAssets", summary: "List the app's assets in upload order, a page at a time", tag: "assets",
                parameters: PageSize.parameters,
                responses: [
                    .json(200, "A page of assets.", APISchemas.ref("AssetPage")),
                    .problem(400, "`limit` or `cursor` is malformed."),
                ])
        ) { request, caller in
            let page = try assets.list(
                appID: caller.appID, limit: try PageSize.from(request),
                cursor: try PageCursor.parse(request.query("cursor")))
            return APIResponse.json([
                "items": .array(page.items), "nextCursor": page.next.map { .string($0.text) } ?? .null,
            ])
        }
        routes.secret(
            .GET, "/v1/assets/:id", scope: .read,
            OperationDoc(
                "getAsset", summary: "One asset's description", tag: "assets",
                parameters: [.path("id", "The asset's id (the SHA-256 of its bytes).")],
                responses: [.json(200, "The asset.", APISchemas.ref("Asset"))])
        ) { request, caller in
            APIResponse.json(try assets.describe(appID: caller.appID, id: request.parameter("id")))
        }
        routes.open(
            .GET, "/v1/assets/:folder/:file",
            OperationDoc(
                "getAssetFile", summary: "An asset's bytes (no key: the URL is the content's hash)",
                description:
                    "`folder` is the app's id, or `templates` for the media bundled with the templates. `Cache-Control: public, max-age=31536000, immutable`, a strong ETag (the hash), `If-None-Match` → 304, one byte range (`Range: bytes=…`) → 206.",
                tag: "assets",
                parameters: [
                    .path("folder", "An app id, or `templates`."),
                    .path("file", "`{id}.{ext}`, as the asset's `url` ends."),
                ],
                responses: [
                    APIResponseSpec(
                        status: 200, description: "The file.", schema: ["type": "string", "contentEncoding": "binary"],
                        contentType: "application/octet-stream",
                        headers: [("ETag", "The content's hash."), ("Cache-Control", "Immutable for a year.")]),
                    APIResponseSpec(
                        status: 206, description: "The requested byte range.",
                        schema: ["type": "string", "contentEncoding": "binary"],
                        contentType: "application/octet-stream", headers: [("Content-Range", "bytes first-last/size")]),
                    .problem(416, "The range is outside the file."),
                ])
        ) { request in
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
