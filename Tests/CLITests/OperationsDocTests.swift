import Foundation
import Testing

@testable import XizorCLI

private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// docs/operations.md carries the configuration reference generated from `Settings`;
/// this fails when a key is added, removed or changes its default without the doc following.
@Suite struct OperationsDocTests {
    @Test func theConfigurationReferenceInTheDocIsTheGeneratedOne() throws {
        let generated = ConfigurationReference.markdown(defaults: .defaults)
        let doc = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let begin = try #require(doc.range(of: "<!-- config-reference:begin -->\n"))
        let end = try #require(doc.range(of: "<!-- config-reference:end -->"))
        let inDoc = String(doc[begin.upperBound..<end.lowerBound])
        #expect(inDoc == generated, "regenerate with `xizor config --reference` and paste it into docs/operations.md")
        for key in Settings.keys {
            #expect(inDoc.contains("| `\(key.path)` | `\(key.environmentName)` |"))
        }
    }

    @Test func environmentNamesKeepAcronymsWhole() {
        #expect(
            ConfigurationKey.named("renderer.lottiePlayerURL")?.environmentName == "XIZOR_RENDERER_LOTTIE_PLAYER_URL")
        #expect(
            ConfigurationKey.named("rateLimits.eventsPerSecond")?.environmentName
                == "XIZOR_RATE_LIMITS_EVENTS_PER_SECOND")
        #expect(ConfigurationKey.named("http.ioQueues")?.environmentName == "XIZOR_HTTP_IO_QUEUES")
        let names = Settings.keys.map(\.environmentName)
        #expect(Set(names).count == names.count, "environment names are unique")
    }

}

/// Every exit status the binary can return is in docs/operations.md's table, and nothing else is.
@Test func everyExitStatusIsDocumented() throws {
    let doc = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/operations.md"), encoding: .utf8)
    let start = try #require(doc.range(of: "### Exit statuses")).upperBound
    let rest = doc[start...]
    let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
    var documented: Set<Int32> = []
    for line in rest[..<end].split(separator: "\n") where line.hasPrefix("| ") {
        let first = line.dropFirst(2).prefix { $0 != " " && $0 != "|" }
        if let status = Int32(first) { documented.insert(status) }
    }
    #expect(documented == Set(ExitStatus.allCases.map(\.rawValue)))
}
