import CSystem
import Dispatch
import Synchronization
import Testing
import XizorLog

@testable import HTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Handler jobs are shared out per partition (one per tenant): round-robin, at most `share` of one
/// partition running at once; an inline handler that throws `HTTPOffload` runs again on the pool.
@Suite struct FairQueueTests {
    @Test func partitionsTakeTurnsAndNoneRunsPastItsShare() {
        var queue = FairQueue<String>(share: 2)
        for i in 0..<5 { queue.enqueue("noisy\(i)", partition: "noisy") }
        queue.enqueue("quiet0", partition: "quiet")
        queue.enqueue("quiet1", partition: "quiet")
        // What a pool could start at once: two of noisy's five (its share) and both of quiet's.
        #expect(queue.startable == 4)
        // noisy went first, but quiet gets the second turn, not the sixth.
        var order: [String] = []
        while let (job, _) = queue.next() { order.append(job) }
        #expect(order == ["noisy0", "quiet0", "noisy1", "quiet1"])
        // Two of each running: noisy's other three wait for its own to finish.
        #expect(queue.running("noisy") == 2 && queue.waiting == 3 && queue.startable == 0)
        queue.finished("noisy")
        #expect(queue.startable == 1)
        #expect(queue.next()?.job == "noisy2")
        #expect(queue.next() == nil)
        // A new partition's job is never behind another's backlog.
        queue.enqueue("other0", partition: "other")
        #expect(queue.next()?.job == "other0")
        queue.finished("quiet")
        queue.finished("quiet")
        queue.finished("other")
        #expect(queue.running("quiet") == 0 && queue.running("other") == 0)
    }

    @Test func aLoneTenantUsesItsWholeShareAndTheUnnamedPartitionHasNone() {
        var queue = FairQueue<Int>(share: 3)
        for i in 0..<4 { queue.enqueue(i, partition: "app") }
        #expect([queue.next()?.job, queue.next()?.job, queue.next()?.job] == [0, 1, 2])
        #expect(queue.next() == nil && queue.waiting == 1)
        queue.finished("app")
        #expect(queue.next()?.job == 3)
        // Open routes and the operator are nobody's tenant: only the pool's threads bound them.
        for i in 10..<15 { queue.enqueue(i, partition: "") }
        #expect(queue.startable == 5)
        #expect((0..<5).compactMap { _ in queue.next()?.job } == [10, 11, 12, 13, 14])
    }

    /// A burst of blocking jobs gets a thread each at once, even while the pool's one idle thread
    /// has been signalled for the first and has not yet woken: counted by ready partitions (one
    /// here), the burst saw an idle thread for it and waited, the whole burst behind one job.
    @Test func aBurstOfBlockingJobsRunsAtOnceBeforeAnIdleThreadWakes() {
        let pool = HandlerPool(name: "burst", maxThreads: 16)
        let warmed = DispatchSemaphore(value: 0)
        pool.submit { warmed.signal() }
        warmed.wait()
        usleep(20_000)  // its one thread is back waiting
        let release = DispatchSemaphore(value: 0)
        let running = Atomic<Int>(0)
        for _ in 0..<8 {
            pool.submit {
                running.add(1, ordering: .relaxed)
                _ = release.wait(timeout: .now() + 30)
            }
        }
        let deadline = DispatchTime.now() + 10
        while running.load(ordering: .relaxed) < 8 && DispatchTime.now() < deadline { usleep(1000) }
        #expect(running.load(ordering: .relaxed) == 8)
        for _ in 0..<8 { release.signal() }
    }

    /// Through a real server: one partition's slow requests hold at most its share of the threads,
    /// so another partition's request is answered while they still run.
    @Test func oneTenantsSlowRequestsLeaveTheOthersThreads() throws {
        let release = DispatchSemaphore(value: 0)
        let running = Atomic<Int>(0)
        var router = Router()
        let admission: HTTPAdmission = { request in request.partition = request.query("tenant") ?? "" }
        router.add(.GET, "/slow", admission: admission) { _ in
            running.add(1, ordering: .relaxed)
            _ = release.wait(timeout: .now() + 30)
            return .text("slow")
        }
        router.get("/nice") { _ in .text(String(xizor_thread_nice())) }
        // Inline, until it sees the query ask for more: then it runs again, off the loop.
        router.get("/maybe", execution: .inline) { request in
            if request.query("heavy") != nil && InlineExecution.isActive { throw HTTPOffload() }
            return .text(InlineExecution.isActive ? "inline" : "offloaded")
        }
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.accessLog = false
        configuration.handlerThreads = 4
        configuration.handlerThreadsPerPartition = 2
        let server = HTTPServer(
            configuration: configuration, responder: router.build(),
            logger: Logger(minimumLevel: .error, sink: { _ in }))
        let port = try server.start()
        defer {
            for _ in 0..<8 { release.signal() }
            let done = DispatchSemaphore(value: 0)
            server.shutdown { done.signal() }
            _ = done.wait(timeout: .now() + 30)
        }
        // Five slow requests of one tenant: two run, three wait behind them.
        let noisy = try (0..<5).map { _ in try RawClient(port: port) }
        for client in noisy { client.send("GET /slow?tenant=noisy HTTP/1.1\r\nHost: t\r\n\r\n") }
        let deadline = DispatchTime.now() + 10
        while running.load(ordering: .relaxed) < 2 && DispatchTime.now() < deadline { usleep(1000) }
        usleep(50_000)
        #expect(running.load(ordering: .relaxed) == 2)
        // Another tenant still gets a thread at once.
        let quiet = try RawClient(port: port)
        quiet.send("GET /slow?tenant=quiet HTTP/1.1\r\nHost: t\r\n\r\n")
        while running.load(ordering: .relaxed) < 3 && DispatchTime.now() < deadline { usleep(1000) }
        #expect(running.load(ordering: .relaxed) == 3)
        // The inline route answers on the loop, and off it when it asks to be.
        let client = try RawClient(port: port)
        client.send("GET /maybe HTTP/1.1\r\nHost: t\r\n\r\nGET /maybe?heavy=1 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponses(2).map(\.body) == ["inline", "offloaded"])
        // Handler threads yield the CPU to the I/O loops.
        client.send("GET /nice HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponses(1).first?.body == String(HandlerPool.niceness))
        for _ in 0..<6 { release.signal() }
        #expect(try quiet.readResponses(1).first?.body == "slow")
        for c in noisy { #expect(try c.readResponses(1).first?.body == "slow") }
        for c in noisy + [quiet, client] { c.close() }
    }
}
