import Digest

/// `Xizor-Signature: t=SECONDS,v1=HEX` — HMAC-SHA256 over `"{t}.{body}"` keyed with the
/// endpoint's secret, in the style of Stripe's (docs/integrations.md, "Verifying a signature").
/// The timestamp is the attempt's, so a receiver can refuse replays outside its window.
enum WebhookSignature {
    static func header(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        "t=\(timestamp),v1=\(HMACSHA256.hexMAC(key: secret, message: Array("\(timestamp).".utf8) + body))"
    }
}

/// When a delivery is tried again, as a pure function of its history: the n-th retry waits
/// `base × 2^(n−1)`, at most `maxDelayMs`, and none is scheduled later than `retryForMs` after the
/// event (then the delivery has failed).
struct RetrySchedule: Sendable {
    var baseMs: Int64
    var maxDelayMs: Int64 = 3_600_000
    var retryForMs: Int64

    init(baseMs: Int64, maxDelayMs: Int64 = 3_600_000, retryForMs: Int64) {
        precondition(
            baseMs > 0 && maxDelayMs >= baseMs && retryForMs >= 0, "a retry schedule needs a positive base delay")
        self.baseMs = baseMs
        self.maxDelayMs = maxDelayMs
        self.retryForMs = retryForMs
    }

    /// The outcome of attempt number `attempts` (1 for the first) of an event created at `createdAt`.
    func outcome(_ answer: WebhookSender.Answer, attempts: Int, createdAt: Int64, now: Int64) -> DeliveryOutcome {
        precondition(attempts >= 1, "an outcome follows an attempt")
        let status: Int?
        let error: String?
        switch answer {
        case .status(let code) where (200..<300).contains(code):
            return DeliveryOutcome(state: .delivered, nextAttemptAt: now, status: code, error: nil)
        case .status(let code):
            status = code
            error = "The endpoint answered \(code)."
        case .failed(let code, let detail):
            status = nil
            error = "\(code): \(detail)"
        }
        let next = now + delay(afterAttempt: attempts)
        let state: WebhookDeliveryState = next > createdAt + retryForMs ? .failed : .pending
        return DeliveryOutcome(state: state, nextAttemptAt: next, status: status, error: error)
    }

    /// The wait after attempt `n` failed: base, 2·base, 4·base, … capped.
    func delay(afterAttempt n: Int) -> Int64 {
        let exponent = Int64(min(max(n - 1, 0), 40))
        let (scaled, overflow) = baseMs.multipliedReportingOverflow(by: Int64(1) << exponent)
        return overflow ? maxDelayMs : min(scaled, maxDelayMs)
    }
}
