import Foundation

/// Persisted starts of duration timers (`POST /v1/sdk/timers`): the first write wins on the
/// server, so a start never changes and is cached for good (`cacheDirectory/timers.json`).
actor Timers {
    private let transport: Transport
    private let file: URL
    private var starts: [String: Int64]

    init(transport: Transport, directory: URL) {
        self.transport = transport
        file = directory.appendingPathComponent("timers.json")
        starts = (try? JSONDecoder().decode([String: Int64].self, from: Data(contentsOf: file))) ?? [:]
    }

    /// When the timer started for this subscriber, in milliseconds since 1970.
    func start(subscriberId: String, paywallId: String, nodeId: String) async throws -> Int64 {
        let key = [subscriberId, paywallId, nodeId].map { $0.replacingOccurrences(of: "|", with: "%7C") }.joined(
            separator: "|")
        if let known = starts[key] { return known }
        let body = try JSONEncoder().encode(["subscriberId": subscriberId, "paywallId": paywallId, "nodeId": nodeId])
        let response: HTTPResponse
        do {
            response = try await transport.send("POST", transport.url("v1/sdk/timers"), body: body)
        } catch {
            throw XizorError.unavailable(placement: "", underlying: "timer start: \(error)")
        }
        guard response.status == 200 || response.status == 201 else {
            let problem = response.problem
            if (400..<500).contains(response.status) && response.status != 429 {
                throw XizorError.rejected(status: response.status, code: problem.code, detail: problem.detail)
            }
            throw XizorError.unavailable(
                placement: "", underlying: "timer start: the server answered \(response.status)")
        }
        guard let startedAt = (try? JSONValue.decode(response.body))?["startedAt"]?.numberValue else {
            throw XizorError.invalidResponse("the timer answer has no startedAt")
        }
        let value = Int64(startedAt)
        starts[key] = value
        try? FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? JSONEncoder().encode(starts).write(to: file, options: .atomic)
        return value
    }
}
