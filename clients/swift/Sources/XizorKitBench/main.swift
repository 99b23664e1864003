// xizor-kit-bench: what XizorKit costs an app against a local server (bench/client.bench.sh):
//   cold fetch        — a first launch: a new client and an empty cache, one 200 each;
//   warm revalidation — a presentation with the answer cached: If-None-Match → 304;
//   event flush       — events tracked (on disk) and then delivered in batches of 500.
//
//   xizor-kit-bench --base-url http://127.0.0.1:PORT --key pk_… [--placement onboarding] [--events 50000]
import Foundation
import XizorKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

var baseURL = URL(string: "http://127.0.0.1:8080")!
var key = ""
var placement = "onboarding"
var eventCount = 50_000
var fetches = 300
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { fatalError("\(flag) needs a value") }
    switch flag {
    case "--base-url": baseURL = URL(string: value)!
    case "--key": key = value
    case "--placement": placement = value
    case "--events": eventCount = Int(value)!
    case "--fetches": fetches = Int(value)!
    default: fatalError("unknown flag \(flag)")
    }
}

let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("xizor-kit-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: scratch) }

@MainActor func configuration(_ name: String) -> XizorConfiguration {
    XizorConfiguration(
        publicKey: key, baseURL: baseURL, cacheDirectory: scratch.appendingPathComponent(name),
        events: EventSettings(batchSize: 500, flushInterval: 3600, maxQueued: max(10_000, eventCount)))
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func report(_ name: String, _ samples: [Double], expect source: Paywall.Source? = nil) {
    let sorted = samples.sorted()
    let total = samples.reduce(0, +)
    print(
        String(
            format: "%-18@ %6d  %8.0f /s  p50 %6.2f ms  p99 %6.2f ms", name as NSString, samples.count,
            Double(samples.count) / total, percentile(sorted, 0.5) * 1000, percentile(sorted, 0.99) * 1000))
}

func time(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

print("what               count    rate          latency")
var cold: [Double] = []
for index in 0..<fetches {
    let client = try Xizor(configuration: configuration("cold-\(index)"))
    cold.append(
        await time {
            guard case .paywall(let paywall)? = try? await client.paywall(for: placement), paywall.source == .network
            else {
                fatalError("a cold fetch was not answered by the network")
            }
        })
}
report("cold fetch", cold)

let warmClient = try Xizor(configuration: configuration("warm"))
_ = try await warmClient.paywall(for: placement)
var warm: [Double] = []
for _ in 0..<(fetches * 10) {
    warm.append(
        try await time {
            guard case .paywall(let paywall) = try await warmClient.paywall(for: placement),
                paywall.source == .revalidated
            else {
                fatalError("a warm fetch was not a 304")
            }
        })
}
report("warm revalidation", warm)

// The floor under both: the same 304 through a bare URLSession (Foundation's HTTP client; on
// Linux, libcurl underneath), so the table shows what XizorKit itself adds.
let session = URLSession(configuration: .ephemeral)
var request = URLRequest(url: baseURL.appendingPathComponent("v1/sdk/placements/\(placement)/paywall"))
request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
request.setValue("2", forHTTPHeaderField: "X-Xizor-Schema-Version")
request.setValue("application/json", forHTTPHeaderField: "Accept")
request.setValue(try await warmClient.paywall(for: placement).paywall?.etag, forHTTPHeaderField: "If-None-Match")
var bare: [Double] = []
for _ in 0..<(fetches * 10) {
    bare.append(
        await time {
            let status: Int = await withCheckedContinuation { continuation in
                session.dataTask(with: request) { _, response, _ in
                    continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? 0)
                }.resume()
            }
            guard status == 304 else { fatalError("the bare revalidation answered \(status)") }
        })
}
report("URLSession 304", bare)

// Events tracked while offline (nothing listens on port 9), then a new launch delivers them.
/// Counts retries: a flush that had to retry measured something else than delivery.
final class RetryCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var retries: [String] = []
    func record(_ report: EventReport) {
        if case .retryScheduled(let after, let reason) = report {
            lock.lock()
            retries.append("\(reason) after \(after) s")
            lock.unlock()
        }
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return retries
    }
}
let retries = RetryCounter()
var offline = XizorConfiguration(
    publicKey: key, baseURL: URL(string: "http://127.0.0.1:9")!,
    cacheDirectory: scratch.appendingPathComponent("events"),
    events: EventSettings(
        batchSize: 500, flushInterval: 3600, maxQueued: max(10_000, eventCount),
        initialBackoff: 3600, maxBackoff: 3600))
let shown: Paywall
do {
    guard case .paywall(let paywall) = try await warmClient.paywall(for: placement) else { fatalError("holdout") }
    shown = paywall
}
var offlineClient: Xizor? = try Xizor(configuration: offline)
let enqueue = await time {
    for index in 0..<eventCount {
        await offlineClient?.track(
            XizorEvent(name: XizorEvent.paywallOpen, paywall: shown, subscriberId: "bench-\(index % 1000)"))
    }
}
offlineClient = nil
offline.baseURL = baseURL
offline.events = EventSettings(
    batchSize: 500, flushInterval: 3600, maxQueued: max(10_000, eventCount),
    initialBackoff: 0.5, maxBackoff: 5, onReport: { retries.record($0) })
let online = try Xizor(configuration: offline)
guard await online.events.count == eventCount else { fatalError("the queue lost events across the relaunch") }
// flush() returns when a retry is scheduled; the queue then retries by itself.
let flush = await time {
    await online.flush()
    while await online.events.count > 0 { try? await Task.sleep(nanoseconds: 10_000_000) }
}
print(
    String(
        format: "event track        %6d  %8.0f /s  (appended to the queue file)", eventCount,
        Double(eventCount) / enqueue))
print(
    String(
        format: "event flush        %6d  %8.0f /s  (a relaunch delivers them: batches of 500, durable on the server)",
        eventCount, Double(eventCount) / flush))
print(
    "retries during the flush: \(retries.all.count)\(retries.all.isEmpty ? "" : " — " + retries.all.joined(separator: "; "))"
)
