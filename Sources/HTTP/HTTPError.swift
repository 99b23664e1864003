import XizorLog

/// An error a handler throws to answer with a client-facing problem instead of a 500; becomes
/// an `application/problem+json` body `{type,title,status,detail,code}` (RFC 9457).
public struct HTTPError: Error, Sendable {
    public var status: HTTPStatus
    public var code: String
    public var detail: String
    public var title: String
    public var type: String
    public var headers: HTTPHeaders
    /// Extra members appended to the problem object, as already-encoded JSON values
    /// (for example `("errors", "[...]")`).
    public var extraMembers: [(String, String)]

    public init(
        _ status: HTTPStatus, code: String, detail: String, title: String? = nil,
        type: String = "about:blank", headers: HTTPHeaders = HTTPHeaders(),
        extraMembers: [(String, String)] = []
    ) {
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title ?? status.reasonPhrase
        self.type = type
        self.headers = headers
        self.extraMembers = extraMembers
    }

    /// The problem+json response for this error.
    public var response: HTTPResponse {
        var json = "{\"type\":"
        JSONText.appendString(type, to: &json)
        json += ",\"title\":"
        JSONText.appendString(title, to: &json)
        json += ",\"status\":\(status.code),\"detail\":"
        JSONText.appendString(detail, to: &json)
        json += ",\"code\":"
        JSONText.appendString(code, to: &json)
        for (name, value) in extraMembers {
            json += ","
            JSONText.appendString(name, to: &json)
            json += ":" + value
        }
        json += "}"
        var h = headers
        h["Content-Type"] = "application/problem+json"
        return HTTPResponse(status: status, headers: h, body: Array(json.utf8), compressible: false)
    }
}
