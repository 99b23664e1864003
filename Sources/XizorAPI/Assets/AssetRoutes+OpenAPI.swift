import HTTP
import PaywallFormat
import XizorDomain

/// The OpenAPI description of each operation `AssetRoutes` registers, one table beside the routes so
/// their `register` reads as what each route does; `APIRoutes` puts both together when a route is
/// declared, so neither can be registered without the other.
extension AssetRoutes {
    static let uploadAsset = OperationDoc(
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

    static let listAssets = OperationDoc(
        "listAssets", summary: "List the app's assets in upload order, a page at a time", tag: "assets",
        parameters: PageSize.parameters,
        responses: [
            .json(200, "A page of assets.", APISchemas.ref("AssetPage")),
            .problem(400, "`limit` or `cursor` is malformed."),
        ])

    static let getAsset = OperationDoc(
        "getAsset", summary: "One asset's description", tag: "assets",
        parameters: [.path("id", "The asset's id (the SHA-256 of its bytes).")],
        responses: [.json(200, "The asset.", APISchemas.ref("Asset"))])

    static let getAssetFile = OperationDoc(
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
}
