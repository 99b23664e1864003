import Foundation
import Synchronization
import Testing

@testable import HTTP

/// The access log's writer: whole lines only, every line written once the log closes, lines dropped
/// and counted (never a stalled loop) when the sink is slower than the loops, or waited for when
/// configured so.
@Suite(.serialized) struct AccessLogTests {
    final class Collected: Sendable {
        let text = Mutex("")
        let writes = Mutex(0)
        let delay: UInt32
        init(delay: UInt32 = 0) { self.delay = delay }

        var sink: @Sendable (UnsafeRawBufferPointer) -> Void {
            { bytes in
                if self.delay > 0 { usleep(self.delay) }
                let chunk = String(decoding: bytes, as: UTF8.self)
                self.text.withLock { $0 += chunk }
                self.writes.withLock { $0 += 1 }
            }
        }

        var lines: [String] {
            text.withLock { $0 }.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
    }

    func log(_ log: AccessLog, loop: Int, _ i: Int, path: String = "/v1/sdk/placements/onboarding/paywall") {
        log.append(
            loop: loop, method: .GET, path: path, status: 200, bytes: i, micros: Int64(i), requestId: "req-\(i)",
            remote: "127.0.0.1:\(40000 + loop)")
    }

    @Test func linesAreTheLoggersJSONAndEscaped() throws {
        let out = Collected()
        let access = AccessLog(loopCount: 1, sink: out.sink)
        access.append(
            loop: 0, method: .POST, path: "/a\"b\\c\u{1}é", status: 201, bytes: 0, micros: 12_345, requestId: "r",
            remote: "[::1]:5")
        access.close()
        access.close()  // a second close returns (the writer is gone)
        let lines = out.lines
        #expect(lines.count == 2 && lines[1].isEmpty, "one line, newline-terminated: \(lines)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(
            object["path"] as? String == "/a\"b\\c\u{1}é" && object["status"] as? Int == 201
                && object["micros"] as? Int == 12_345)
        #expect(
            object["level"] as? String == "info" && object["message"] as? String == "request"
                && object["method"] as? String == "POST")
        let time = try #require(object["time"] as? String)
        #expect(time.count == 24 && time.hasSuffix("Z") && time.contains("T"), "RFC 3339 with milliseconds: \(time)")
    }

    @Test func manyLoopsManyLinesNoneTornNoneLost() throws {
        let out = Collected()
        let access = AccessLog(
            loopCount: 4, options: AccessLog.Options(maxPendingBytes: 64 << 20, flushIntervalMs: 5), sink: out.sink)
        DispatchQueue.concurrentPerform(iterations: 4) { loop in
            for i in 0..<5_000 { log(access, loop: loop, i) }
        }
        access.close()
        let lines = out.lines.dropLast()
        #expect(lines.count == 20_000 && access.droppedLines.load(ordering: .relaxed) == 0)
        for line in lines {
            guard (try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any] else {
                Issue.record("a torn or interleaved line: \(line)")
                return
            }
        }
        #expect(out.writes.withLock { $0 } < 2_000, "written in large writes, not one per line")
    }

    @Test func aSlowSinkDropsAndCountsInsteadOfStallingTheLoop() {
        let out = Collected(delay: 200_000)  // 0.2 s per write: a disk that cannot keep up
        let dropped = Atomic<Int>(0)
        let access = AccessLog(
            loopCount: 1, options: AccessLog.Options(maxPendingBytes: 64 * 1024, flushIntervalMs: 1_000),
            sink: out.sink, onDrop: { dropped.add($0, ordering: .relaxed) })
        let started = ContinuousClock.now
        for i in 0..<20_000 { log(access, loop: 0, i) }
        let elapsed = ContinuousClock.now - started
        access.close()
        let kept = out.lines.count - 1
        let lost = access.droppedLines.load(ordering: .relaxed)
        #expect(lost > 0 && lost == dropped.load(ordering: .relaxed), "dropped lines are counted and reported")
        #expect(kept + lost == 20_000, "every line is either written or counted as dropped")
        #expect(elapsed < .seconds(5), "the loop never waited for the slow sink (waiting would take ~12 s): \(elapsed)")
    }

    @Test func configuredToWaitItLosesNothing() {
        let out = Collected(delay: 20_000)
        let access = AccessLog(
            loopCount: 1,
            options: AccessLog.Options(maxPendingBytes: 64 * 1024, dropWhenBehind: false, flushIntervalMs: 10),
            sink: out.sink)
        for i in 0..<5_000 { log(access, loop: 0, i) }
        access.close()
        #expect(out.lines.count - 1 == 5_000 && access.droppedLines.load(ordering: .relaxed) == 0)
    }
}
