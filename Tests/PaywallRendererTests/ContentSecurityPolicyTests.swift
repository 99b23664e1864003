import Digest
import PaywallFormat
import Testing

@testable import PaywallRenderer

/// The page's Content-Security-Policy: scripts by hash, media from the configured origins, no
/// fetching unless a Lottie animation is played.
@Suite struct ContentSecurityPolicyTests {
    static func policy(_ page: String) -> [String: String] {
        guard let start = page.range(of: "http-equiv=\"Content-Security-Policy\" content=\"") else { return [:] }
        let value = page[start.upperBound...].prefix { $0 != "\"" }.replacingOccurrences(of: "&#39;", with: "'")
        var directives: [String: String] = [:]
        for part in value.split(separator: ";") {
            let words = part.split(separator: " ", maxSplits: 1)
            if let name = words.first { directives[String(name)] = words.count > 1 ? String(words[1]) : "" }
        }
        return directives
    }

    @Test func theRuntimeRunsByItsHashAndNothingElse() throws {
        let page = try html(document([["type": "text", "text": ["en": "Hi"]]]))
        let csp = Self.policy(page)
        #expect(csp["default-src"] == "'none'")
        let scripts = try #require(csp["script-src"])
        #expect(!scripts.contains("unsafe-inline") && !scripts.contains("https:"))
        // The hash is of the script exactly as the page embeds it.
        let body = try #require(
            page.range(of: "<script>").map { page[$0.upperBound...] }.flatMap { rest in
                rest.range(of: "</script>").map { String(rest[..<$0.lowerBound]) }
            })
        #expect(body == PaywallRenderer.runtimeJavaScript)
        #expect(scripts == "'sha256-" + Base64.encode(SHA256.hash(Array(body.utf8))) + "'")
        #expect(page.components(separatedBy: "<script>").count == 2, "one executable script: the runtime")
        #expect(csp["connect-src"] == nil, "a page without Lottie fetches nothing")
        #expect(csp["img-src"] == "https: data: blob:" && csp["media-src"] == "https: blob:")
    }

    @Test func mediaComeFromTheConfiguredOrigins() throws {
        let options = RenderOptions(mediaOrigins: ["https://cdn.example.com", "https://img.example.org:8443"])
        let csp = Self.policy(try html(document([["type": "text", "text": ["en": "Hi"]]]), options))
        #expect(csp["img-src"] == "https://cdn.example.com https://img.example.org:8443 data: blob:")
        #expect(csp["media-src"] == "https://cdn.example.com https://img.example.org:8443 blob:")
    }

    @Test(arguments: [
        ("https:", true), ("https://cdn.example.com", true), ("https://cdn.example.com:8443", true),
        ("https://*.example.com", true), ("http:", false), ("https://cdn.example.com/path", false),
        ("https://a.com; script-src *", false), ("'unsafe-inline'", false), ("https://", false), ("*", false),
    ])
    func mediaOriginsAreHTTPSOriginsOnly(_ source: String, _ valid: Bool) {
        #expect(RenderOptions.isValidMediaOrigin(source) == valid)
    }

    @Test func base64MatchesRFC4648() {
        #expect(Base64.encode([]) == "")
        #expect(Base64.encode(Array("f".utf8)) == "Zg==")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
    }
}
