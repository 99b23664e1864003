import Foundation
import Testing

@testable import XizorDomain

/// A thread memo answers only its own thread, only for the stamp an entry was read at, and only
/// for the key it was given; a slot holds one entry, and releases the one it replaces; a thread
/// that exits releases what it held.
@Suite struct ThreadMemoTests {
    final class Value: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }

    /// Whether the key object a lookup is lent is the key named `name`.
    func named(_ name: String) -> (AnyObject) -> Bool { { ($0 as? Value)?.name == name } }

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
        let memo = ThreadMemo(slots: 8)
        let stamp = MemoGeneration.next()
        #expect(memo.find(stamp: stamp, hash: 3, named("a")) == nil, "nothing remembered yet")
        let a = Value("a value")
        weak var aKey: Value?
        do {
            let key = Value("a")
            aKey = key
            memo.remember(stamp: stamp, hash: 3, key: key, value: a)
        }
        #expect(aKey != nil, "the entry holds its key")
        #expect(memo.find(stamp: stamp, hash: 3, named("a")) === a)
        #expect(memo.find(stamp: MemoGeneration.next(), hash: 3, named("a")) == nil, "a newer generation")
        #expect(memo.find(stamp: stamp, hash: 3, named("b")) == nil, "another key in the slot's hash")
        #expect(memo.find(stamp: stamp, hash: 4, named("a")) == nil, "another hash")
        // The slot of hash 3 + 8 is the same one: the newer entry replaces the older, and lets its key go.
        let b = Value("b value")
        memo.remember(stamp: stamp, hash: 11, key: Value("b"), value: b)
        #expect(memo.find(stamp: stamp, hash: 11, named("b")) === b)
        #expect(memo.find(stamp: stamp, hash: 3, named("a")) == nil)
        #expect(aKey == nil, "the replaced entry's key was released")
        onAnotherThread {
            #expect(memo.find(stamp: stamp, hash: 11, self.named("b")) == nil, "another thread has its own entries")
        }
        #expect(memo.find(stamp: stamp, hash: 11, named("b")) === b, "and did not change this one's")
    }

    @Test func generationsAreNeverReused() {
        let first = MemoGeneration.next()
        let second = MemoGeneration.next()
        #expect(first != 0 && second > first)
    }

    @Test func aThreadThatExitsReleasesItsEntries() {
        let memo = ThreadMemo(slots: 4)
        nonisolated(unsafe) weak var held: Value?
        nonisolated(unsafe) weak var heldKey: Value?
        onAnotherThread {
            let value = Value("kept by the thread")
            let key = Value("k")
            held = value
            heldKey = key
            memo.remember(stamp: MemoGeneration.next(), hash: 0, key: key, value: value)
        }
        // The key's destructor runs as the thread exits, just after its body signalled: wait for it.
        let deadline = Date().addingTimeInterval(5)
        while (held != nil || heldKey != nil) && Date() < deadline { usleep(1000) }
        #expect(held == nil && heldKey == nil, "the exited thread's entries were released, keys too")
    }
}
