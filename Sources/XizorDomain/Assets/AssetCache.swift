import Synchronization

/// The bytes of recently served assets, least recently used evicted past `capacity` bytes. Assets
/// never change at a URL, so nothing is ever invalidated; the cache is what keeps anonymous
/// requests for the same video from reading its blob out of the database (and holding a copy per
/// request) every time: concurrent answers share one buffer.
final class AssetCache: Sendable {
    struct Key: Hashable, Sendable {
        let appID: String
        let sha256: String
    }

    private struct Entry {
        var file: AssetService.ServedFile
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        precondition(capacity >= 0, "a cache cannot hold negative bytes")
        self.capacity = capacity
    }

    func file(_ key: Key) -> AssetService.ServedFile? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.file
        }
    }

    /// Keeps `file` unless it alone is larger than the cache; evicts the least recently used first.
    func store(_ file: AssetService.ServedFile, for key: Key) {
        let size = file.bytes.count
        guard size <= capacity else { return }
        state.withLock { state in
            guard state.entries[key] == nil else { return }
            while state.bytes + size > capacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.file.bytes.count
            }
            state.clock += 1
            state.entries[key] = Entry(file: file, lastUse: state.clock)
            state.bytes += size
            precondition(state.bytes <= capacity, "the asset cache holds no more than its capacity")
        }
    }
}
