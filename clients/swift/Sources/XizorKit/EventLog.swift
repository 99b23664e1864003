import Foundation

/// The queue's file: one JSON event per line, and beside it the byte offset of the first line
/// not yet delivered (`events.head`). Tracking appends a line (on disk when `track` returns, so
/// it survives the app being killed); delivery only moves the offset, since the queue is always
/// consumed from its front, and the file is compacted once most of it is delivered: O(1) file
/// work per batch, not a rewrite of everything queued. A crash between a delivery and the
/// offset's write resends that batch, which the server counts once (event ids). A line that
/// does not decode (torn by a crash mid-append) is skipped.
struct EventLog {
    let file: URL
    private let headFile: URL
    private var handle: FileHandle?
    /// Bytes of the file before the first pending line, and the file's size.
    private var head = 0
    private var size = 0

    init(directory: URL) {
        file = directory.appendingPathComponent("events.ndjson")
        headFile = directory.appendingPathComponent("events.head")
    }

    /// What a launch finds in the queue file.
    struct Loaded {
        /// The pending events, with the size of each one's line.
        var events: [(event: XizorEvent, bytes: Int)] = []
        /// Lines that did not decode (a crash mid-write): those events are lost, and reported.
        var unreadableLines = 0
        /// The file exists but could not be read: where it was moved, and why it could not be read.
        var setAside: (path: String, reason: String)?
    }

    /// The pending events. A file with a line that does not decode is rewritten without it first,
    /// so the next append starts on a line of its own. No file is an empty queue. A file that
    /// exists but cannot be read is moved aside (never overwritten by the appends and compaction
    /// that follow) and reported; the queue then starts empty.
    mutating func load() -> Loaded {
        guard FileManager.default.fileExists(atPath: file.path) else { return Loaded() }
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            var loaded = Loaded()
            let aside = file.appendingPathExtension("unreadable-\(Int(Date().timeIntervalSince1970))")
            do {
                try FileManager.default.moveItem(at: file, to: aside)
                loaded.setAside = (aside.path, "\(error)")
                // Its offset belongs to the file moved away: one left behind would skip the start of
                // the next file, so a failure to remove it is reported with the rest.
                if FileManager.default.fileExists(atPath: headFile.path) {
                    do { try FileManager.default.removeItem(at: headFile) } catch let headError {
                        loaded.setAside = (aside.path, "\(error); its read offset could not be removed: \(headError)")
                    }
                }
            } catch let moveError {
                loaded.setAside = (file.path, "\(error); it could not be moved aside either: \(moveError)")
            }
            return loaded
        }
        size = data.count
        head =
            (try? String(contentsOf: headFile, encoding: .utf8)).flatMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            } ?? 0
        if head < 0 || head > size { head = 0 }
        let decoder = JSONDecoder()
        var loaded = Loaded()
        var start = data.startIndex + head
        while start < data.endIndex {
            guard let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                loaded.unreadableLines += 1
                break
            }
            // A line that does not decode is counted (and reported by the queue), not an error that
            // would leave every other queued event undelivered.
            if let event = try? decoder.decode(XizorEvent.self, from: data[start..<end]) {
                loaded.events.append((event, end - start + 1))
            } else {
                loaded.unreadableLines += 1
            }
            start = end + 1
        }
        guard loaded.unreadableLines > 0 else { return loaded }
        let events = loaded.events.map(\.event)
        // The repair failing (a full disk) keeps the sizes as read: the offsets stay right, and
        // the repair is tried again on the next launch.
        guard let sizes = try? replace(with: events) else { return loaded }
        loaded.events = Array(zip(events, sizes)).map { (event: $0.0, bytes: $0.1) }
        return loaded
    }

    /// Appends events; returns each one's line size.
    mutating func append(_ events: [XizorEvent]) throws -> [Int] {
        let encoder = Self.encoder
        var data = Data()
        var sizes: [Int] = []
        for event in events {
            let line = try encoder.encode(event)
            data.append(line)
            data.append(UInt8(ascii: "\n"))
            sizes.append(line.count + 1)
        }
        if handle == nil {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: file.path) {
                guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
                }
            }
            let opened = try FileHandle(forWritingTo: file)
            size = Int(try opened.seekToEnd())
            handle = opened
        }
        try handle?.write(contentsOf: data)
        size += data.count
        return sizes
    }

    /// The first `bytes` of the pending lines were delivered (or dropped).
    /// `remaining` is read only when the file is rewritten (compaction, or an offset past the end
    /// after a failed append left the sizes unknown).
    mutating func consume(bytes: Int, remaining: () -> [XizorEvent]) throws -> [Int]? {
        precondition(bytes >= 0, "a negative number of bytes consumed")
        head += bytes
        let left = remaining
        if head >= size || (head > 1 << 20 && head > size / 2) {
            return try replace(with: left())
        } else {
            // In place, not atomic (no fsync per batch beside the server's own): a torn or lost
            // offset only resends delivered events, which the server counts once by id.
            try Data(String(head).utf8).write(to: headFile)
            return nil
        }
    }

    /// Writes exactly `events` (compaction, repair, or recovery after a failed append); returns
    /// each one's line size.
    @discardableResult
    mutating func replace(with events: [XizorEvent]) throws -> [Int] {
        close()
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        var data = Data()
        var sizes: [Int] = []
        for event in events {
            let line = try Self.encoder.encode(event)
            data.append(line)
            data.append(UInt8(ascii: "\n"))
            sizes.append(line.count + 1)
        }
        try data.write(to: file, options: .atomic)
        try? FileManager.default.removeItem(at: headFile)
        head = 0
        size = data.count
        return sizes
    }

    mutating func close() {
        try? handle?.close()
        handle = nil
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
