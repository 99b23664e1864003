import Foundation
import Testing

@testable import XizorDomain

/// A thread memo answers only its own thread, only for the stamp an entry was read at, and only
/// for the key it was given; a slot holds one entry; a thread that exits releases what it held.
@Suite struct ThreadMemoTests {
    final class Value: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }

    /// Runs `body` on a thread of its own and waits for it to end.
    func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        done.wait()
    }

    @Test func anEntryIsFoundForItsStampAndKeyOnItsThreadOnly() {
        let memo = ThreadMemo<String, Value>(slots: 8)
        let stamp = MemoGeneration.next()
        #expect(memo.find(stamp: stamp, hash: 3, { $0 == "a" }) == nil, "nothing remembered yet")
        let a = Value("a")
        memo.remember(stamp: stamp, hash: 3, key: "a", value: a)
        #expect(memo.find(stamp: stamp, hash: 3, { $0 == "a" }) === a)
        #expect(memo.find(stamp: MemoGeneration.next(), hash: 3, { $0 == "a" }) == nil, "a newer generation")
        #expect(memo.find(stamp: stamp, hash: 3, { $0 == "b" }) == nil, "another key in the slot's hash")
        #expect(memo.find(stamp: stamp, hash: 4, { $0 == "a" }) == nil, "another hash")
        // The slot of hash 3 + 8 is the same one: the newer entry replaces the older.
        let b = Value("b")
        memo.remember(stamp: stamp, hash: 11, key: "b", value: b)
        #expect(memo.find(stamp: stamp, hash: 11, { $0 == "b" }) === b)
        #expect(memo.find(stamp: stamp, hash: 3, { $0 == "a" }) == nil)
        onAnotherThread {
            #expect(memo.find(stamp: stamp, hash: 11, { $0 == "b" }) == nil, "another thread has its own entries")
        }
        #expect(memo.find(stamp: stamp, hash: 11, { $0 == "b" }) === b, "and did not change this one's")
    }

    @Test func generationsAreNeverReused() {
        let first = MemoGeneration.next()
        let second = MemoGeneration.next()
        #expect(first != 0 && second > first)
    }

    @Test func aThreadThatExitsReleasesItsEntries() {
        let memo = ThreadMemo<String, Value>(slots: 4)
        nonisolated(unsafe) weak var held: Value?
        onAnotherThread {
            let value = Value("kept by the thread")
            held = value
            memo.remember(stamp: MemoGeneration.next(), hash: 0, key: "k", value: value)
        }
        // The key's destructor runs as the thread exits, just after its body signalled: wait for it.
        let deadline = Date().addingTimeInterval(5)
        while held != nil && Date() < deadline { usleep(1000) }
        #expect(held == nil, "the exited thread's entries were released")
    }
}
