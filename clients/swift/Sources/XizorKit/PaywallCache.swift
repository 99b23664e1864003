import Foundation

/// Answers kept between launches, one file per request key under `cacheDirectory/paywalls`,
/// mirrored in memory. Files are replaced atomically, so a crash leaves the old answer or the new
/// one, never half of either; a file that cannot be read is treated as absent.
actor PaywallCache {
    private let directory: URL
    private var memory: [String: StoredResponse] = [:]

    init(directory: URL) {
        self.directory = directory.appendingPathComponent("paywalls", isDirectory: true)
    }

    func entry(for key: String) -> StoredResponse? {
        if let entry = memory[key] { return entry }
        guard let data = try? Data(contentsOf: file(for: key)),
            let entry = try? JSONDecoder().decode(StoredResponse.self, from: data),
            entry.key == key
        else { return nil }
        memory[key] = entry
        return entry
    }

    func store(_ entry: StoredResponse) {
        memory[entry.key] = entry
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try JSONEncoder().encode(entry).write(to: file(for: entry.key), options: .atomic)
        } catch {
            // The memory copy still serves this launch; the next answer tries the disk again.
        }
    }

    /// A 304: the copy on disk is still the answer, so only memory learns when it was confirmed.
    func confirm(_ entry: StoredResponse) {
        memory[entry.key] = entry
    }

    func remove(_ key: String) {
        memory[key] = nil
        try? FileManager.default.removeItem(at: file(for: key))
    }

    /// FNV-1a of the key: file names stay short and safe whatever the context holds; the key is
    /// stored in the file and compared, so a collision reads as a miss, never as another answer.
    private func file(for key: String) -> URL {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return directory.appendingPathComponent(String(hash, radix: 16) + ".json")
    }
}
