import HTTP
import PaywallFormat
import XizorDomain

/// `preview_paywall`: what the dashboard's preview frame shows, for an agent to check its edits.
enum PreviewTools {
    static var tools: [MCPTool] { [preview] }

    static let preview = MCPTool(
        name: "preview_paywall", scope: .read, title: "Render the page of the draft or a version",
        description: """
            Renders the HTML page an app would show for the draft (default) or a published version, in one locale and colour \
            scheme, as the dashboard's preview does: products get plausible sample values (labelled 'Sample prices' on the \
            page; 'samples': false keeps {{product.*}} placeholders), overridable per slot with 'products' (e.g. {"yearly": \
            {"price": "€49.99", "trialDays": 14}}), and 'context' fills {{context.KEY}}. Answers the page's 'html', its \
            'etag', the product values it started with, and 'texts': the visible text of the page in document order, \
            so you can check wording and placeholders without reading the markup.
            """,
        inputSchema: ToolSchema.object(
            APISchemas.previewOptions.merging(["paywallId": ToolSchema.paywallID]) { a, _ in a },
            required: ["paywallId"]),
        outputSchema: [
            "type": "object",
            "properties": [
                "html": ["type": "string"], "etag": ["type": "string"], "products": ["type": "object"],
                "texts": ["type": "array", "items": ["type": "string"]],
            ],
            "required": ["html", "etag", "products", "texts"],
        ],
        readOnly: true, idempotent: true
    ) { call in
        var arguments = call.arguments.objectValue ?? [:]
        arguments["paywallId"] = nil
        let page = try call.previews.render(
            appID: call.appID, id: try call.string("paywallId"), PreviewRequest(json: .object(arguments)))
        let html = String(decoding: page.html, as: UTF8.self)
        return [
            "html": .string(html), "etag": .string(page.etag), "products": .object(page.products),
            "texts": .array(VisibleText.of(html).map(JSONValue.string)),
        ]
    }
}

/// The text a reader sees in a rendered page's `<main>`, one entry per run of text between tags
/// (markup, scripts and styles dropped; the five entities the renderer writes decoded). Only for
/// pages this server rendered: not an HTML parser.
enum VisibleText {
    static func of(_ html: String) -> [String] {
        guard let start = html.range(of: "<main"),
            let end = html.range(of: "</main>", range: start.upperBound..<html.endIndex)
        else {
            return []
        }
        var texts: [String] = []
        var current = ""
        var inTag = false
        for character in html[start.lowerBound..<end.lowerBound] {
            switch character {
            case "<":
                inTag = true
                flush(&current, into: &texts)
            case ">": inTag = false
            default: if !inTag { current.append(character) }
            }
        }
        flush(&current, into: &texts)
        return texts
    }

    private static func flush(_ current: inout String, into texts: inout [String]) {
        let decoded = current.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
        let trimmed = decoded.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { texts.append(trimmed) }
        current = ""
    }
}
