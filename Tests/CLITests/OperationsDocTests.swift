import Foundation
import Testing
@testable import XizorCLI

private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// docs/operations.md carries the configuration reference generated from `ConfigurationKey.all`;
/// this fails when a key is added, removed or changes its default without the doc following.
@Suite struct OperationsDocTests {
    @Test func theConfigurationReferenceInTheDocIsTheGeneratedOne() throws {
        let defaults = try ConfigurationLoader.load(file: repositoryRoot.appendingPathComponent("Config/xizor.json").path,
                                                    environment: [:], overrides: [:])
        let generated = ConfigurationReference.markdown(defaults: defaults)
        let doc = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let begin = try #require(doc.range(of: "<!-- config-reference:begin -->\n"))
        let end = try #require(doc.range(of: "<!-- config-reference:end -->"))
        let inDoc = String(doc[begin.upperBound..<end.lowerBound])
        #expect(inDoc == generated, "regenerate with `xizor config --reference` and paste it into docs/operations.md")
        for key in ConfigurationKey.all {
            #expect(inDoc.contains("| `\(key.path)` | `\(key.environmentName)` |"))
        }
    }

    @Test func environmentNamesKeepAcronymsWhole() {
        #expect(ConfigurationKey.named("renderer.lottiePlayerURL")?.environmentName == "XIZOR_RENDERER_LOTTIE_PLAYER_URL")
        #expect(ConfigurationKey.named("rateLimits.eventsPerSecond")?.environmentName == "XIZOR_RATE_LIMITS_EVENTS_PER_SECOND")
        #expect(ConfigurationKey.named("http.ioQueues")?.environmentName == "XIZOR_HTTP_IO_QUEUES")
        let names = ConfigurationKey.all.map(\.environmentName)
        #expect(Set(names).count == names.count, "environment names are unique")
    }

    @Test func everyKeyWithADefaultIsInTheDefaultsFile() throws {
        let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("Config/xizor.json"))
        let text = String(decoding: data, as: UTF8.self)
        for key in ConfigurationKey.all {
            let leaf = key.path.split(separator: ".").last.map(String.init) ?? key.path
            if case .optionalString = key.kind { continue }  // optional keys may be left out
            #expect(text.contains("\"\(leaf)\""), "\(key.path) is missing from Config/xizor.json")
        }
    }
}
