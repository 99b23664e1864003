import Foundation
import PaywallFormat
import XizorDomain

/// Media for agents: upload a file (base64) and list what the app has, so a document an agent
/// writes can point at media this server serves.
enum AssetTools {
    static var tools: [MCPTool] { [upload, list] }

    static let upload = MCPTool(
        name: "upload_asset", scope: .drafts, title: "Upload an image, a video or a Lottie animation",
        description: """
            Stores a media file for this app's paywalls and answers its 'url': put that in a document's src, poster or \
            Lottie src. 'data' is the file in base64. The bytes decide the type (PNG, JPEG, GIF, WebP, MP4, WebM, Lottie \
            JSON; SVG is refused). Content-addressed: the same bytes again answer the same asset ('created': false). \
            Limits: images 5 MiB, video 20 MiB, Lottie 2 MiB, 256 MiB per app, and the server's request body limit \
            (1 MiB by default) on the whole call.
            """,
        inputSchema: ToolSchema.object(
            [
                "data": ToolSchema.string("The file's bytes in base64.", maxLength: 64 << 20),
                "name": ToolSchema.string(
                    "A label shown in lists, e.g. the file name (1 to 200 characters).", maxLength: 200),
            ], required: ["data"]),
        outputSchema: [
            "type": "object",
            "properties": ["id": ["type": "string"], "url": ["type": "string"], "created": ["type": "boolean"]],
            "required": ["id", "url", "created"],
        ],
        readOnly: false, destructive: false, idempotent: true
    ) { call in
        guard let bytes = Data(base64Encoded: try call.string("data"), options: .ignoreUnknownCharacters) else {
            throw ServiceError.badField("$.data", "invalid_base64", "'data' is not base64.")
        }
        let stored = try call.services.assets.upload(
            caller: call.caller, bytes: Array(bytes), declaredType: nil, name: call.optionalString("name"))
        guard case .object(var asset) = stored.asset else { return stored.asset }
        asset["created"] = .bool(stored.created)
        return .object(asset)
    }

    static let list = MCPTool(
        name: "list_assets", scope: .read, title: "List uploaded media",
        description: """
            Lists the app's uploaded media in upload order with each one's id, url, kind (image, video, lottie), type, size \
            and name. Pages: pass the answer's nextCursor as 'cursor'; it is null on the last page.
            """,
        inputSchema: ToolSchema.object([
            "cursor": ToolSchema.string("nextCursor from the previous page.", maxLength: 300),
            "limit": ToolSchema.integer(
                "Page size, 1 to \(PageSize.max) (default \(PageSize.fallback)).", minimum: 1, maximum: PageSize.max),
        ]),
        outputSchema: [
            "type": "object", "properties": ["items": ["type": "array"], "nextCursor": ["type": ["string", "null"]]],
            "required": ["items", "nextCursor"],
        ],
        readOnly: true, idempotent: true
    ) { call in
        let page = try call.services.assets.list(
            appID: call.appID, limit: call.optionalInt("limit") ?? PageSize.fallback,
            cursor: try PageCursor.parse(call.optionalString("cursor")))
        return ["items": .array(page.items), "nextCursor": page.next.map { .string($0.text) } ?? .null]
    }
}
