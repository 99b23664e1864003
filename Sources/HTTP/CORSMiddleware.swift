/// CORS for browser clients on configured origins (the dashboard): preflights answered here,
/// `Access-Control-Allow-Origin` echoed for listed origins only, credentials never allowed (keys
/// travel in `Authorization`, not cookies), and the validators the dashboard reads exposed.
public struct CORSMiddleware: HTTPMiddleware {
    public let allowedOrigins: Set<String>
    public let allowedHeaders: String
    public let exposedHeaders: String
    public let maxAgeSeconds: Int

    public init(
        allowedOrigins: [String],
        allowedHeaders: [String] = [
            "Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key", "X-Request-Id",
        ],
        exposedHeaders: [String] = ["ETag", "Location", "X-Request-Id", "Idempotent-Replayed", "Retry-After"],
        maxAgeSeconds: Int = 600
    ) {
        self.allowedOrigins = Set(allowedOrigins)
        self.allowedHeaders = allowedHeaders.joined(separator: ", ")
        self.exposedHeaders = exposedHeaders.joined(separator: ", ")
        self.maxAgeSeconds = maxAgeSeconds
    }

    public func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        guard let origin = request.header("Origin") else { return try next(request) }
        let allowed = allowedOrigins.contains(origin) || allowedOrigins.contains("*")
        if request.method == .OPTIONS, request.header("Access-Control-Request-Method") != nil {
            // A preflight: the route's own OPTIONS answer supplies Allow (or 404 for no route).
            var response = try next(request)
            response.headers.add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
            guard allowed, response.status == .noContent, let allow = response.headers["Allow"] else { return response }
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Allow-Methods"] = allow
            response.headers["Access-Control-Allow-Headers"] = allowedHeaders
            response.headers["Access-Control-Max-Age"] = String(maxAgeSeconds)
            return response
        }
        var response = try next(request)
        response.headers.add("Vary", "Origin")
        if allowed {
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = exposedHeaders
        }
        return response
    }
}
