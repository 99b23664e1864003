import Foundation
import Testing

@testable import XizorKit

/// The command-line example, run as an app would be: separate processes sharing a cache directory.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ExampleTests {
    static var example: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent(".build/debug/xizor-kit-example")
    }

    /// Runs the example; returns its exit status and the JSON it printed.
    func run(_ arguments: [String]) throws -> (status: Int32, output: JSONValue?) {
        let process = Process()
        process.executableURL = Self.example
        process.arguments = arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, try? JSONValue.decode(data))
    }

    @Test func fetchesAndPrintsAPlacement() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let cache = freshCache(server)
        let (status, output) = try run([
            "--base-url", server.base.absoluteString, "--key", app.publicKey, "--placement", "onboarding",
            "--cache", cache.path,
        ])
        #expect(status == 0)
        #expect(output?["paywallId"]?.stringValue == app.paywallId && output?["version"]?.intValue == 1)
        #expect(output?["source"]?.stringValue == "network" && output?["document"]?["schemaVersion"]?.intValue == 2)
        let (missing, _) = try run([
            "--base-url", server.base.absoluteString, "--key", app.publicKey, "--placement", "nowhere",
        ])
        #expect(missing == 1)
    }

    @Test func anEventTrackedOfflineIsDeliveredByTheNextProcess() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let cache = freshCache(server)
        let arguments = [
            "--base-url", server.base.absoluteString, "--key", app.publicKey, "--cache", cache.path, "--subscriber",
            "s1",
        ]
        #expect(try run(arguments).status == 0)
        server.stop()

        // Offline: answered from the cache; the event is queued on disk and the process exits.
        let (status, output) = try run(arguments + ["--track"])
        #expect(
            status == 0 && output?["source"]?.stringValue == "cache" && output?["queuedEvents"]?.intValue == 1,
            "\(status) \(String(describing: output))")

        try server.restart()
        let next = try Xizor(configuration: app.configuration(cache: cache))
        #expect(await next.events.count == 1)
        await next.flush()
        #expect(await next.events.count == 0)
        #expect(try await app.impressions(of: app.paywallId) == 1)
    }
}
