/// The representation cache's storage: entries chained under their key's hash, computed once by
/// the caller (a `Hasher` value, seeded per process, so a client cannot aim keys at one chain), and
/// compared with the few entries of their chain where those are stored. A dictionary keyed by the
/// key itself copied each stored key it compared out of its bucket and destroyed the copy: about
/// 300 instructions of every revalidation, whose key holds four references and three strings.
struct HashChains<Key: Equatable, Value> {
    final class Entry {
        let key: Key
        let value: Value
        let next: Entry?

        init(key: Key, value: Value, next: Entry?) {
            self.key = key
            self.value = value
            self.next = next
        }
    }

    private var chains: [HashWord: Entry] = [:]
    /// Entries, over all chains.
    private(set) var count = 0

    /// The value stored for `key`, whose hash is `hash`.
    func find(_ key: Key, hash: Int) -> Value? {
        var entry = chains[HashWord(hash)]
        while let current = entry {
            if current.key == key { return current.value }
            entry = current.next
        }
        return nil
    }

    /// Stores `value` for `key`; answers whether an equal key's entry was replaced.
    @discardableResult
    mutating func insert(_ key: Key, hash: Int, _ value: Value) -> Bool {
        let word = HashWord(hash)
        var rest: Entry?
        var replaced = false
        var entry = chains[word]
        while let current = entry {
            if current.key == key {
                replaced = true
            } else {
                rest = Entry(key: current.key, value: current.value, next: rest)
            }
            entry = current.next
        }
        chains[word] = Entry(key: key, value: value, next: rest)
        if !replaced { count += 1 }
        return replaced
    }

    /// Drops whole chains, in the dictionary's order (which follows its per-process seed: arbitrary),
    /// until at most `target` entries are left; answers the keys dropped.
    @discardableResult
    mutating func evict(downTo target: Int) -> [Key] {
        var dropped: [Key] = []
        let excess = count - max(0, target)
        guard excess > 0 else { return dropped }
        var words: [HashWord] = []
        for (word, head) in chains {
            guard dropped.count < excess else { break }
            words.append(word)
            var entry: Entry? = head
            while let current = entry {
                dropped.append(current.key)
                entry = current.next
            }
        }
        for word in words { chains.removeValue(forKey: word) }
        count -= dropped.count
        precondition(count >= 0 && count <= max(0, target), "eviction leaves at most the target")
        return dropped
    }
}

/// A hash the caller computed with the process's seeded `Hasher`: a dictionary takes it as its own
/// hash (`_rawHashValue(seed:)`, the standard library's hook for precomputed hashes), mixed with
/// its table's seed, instead of hashing it again.
struct HashWord: Hashable {
    let value: Int

    init(_ value: Int) { self.value = value }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }

    func _rawHashValue(seed: Int) -> Int { value ^ seed }
}
