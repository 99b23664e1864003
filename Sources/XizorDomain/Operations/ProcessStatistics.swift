#if canImport(Glibc)
    import Glibc
#endif

/// What the kernel says about this process, read at scrape time from `/proc/self` and
/// `getrusage` (Linux).
package struct ProcessStatistics {
    package var residentBytes: Int?
    package var virtualBytes: Int?
    package var openFileDescriptors: Int?
    package var cpuSeconds: Double
    package var maxFileDescriptors: Int?

    package static func current() -> ProcessStatistics {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var stats = ProcessStatistics(cpuSeconds: 0)
        // statm: size resident shared text lib data dt, in pages.
        if let statm = readSmallFile("/proc/self/statm") {
            let fields = statm.split(separator: " ")
            if fields.count >= 2, let size = Int(fields[0]), let resident = Int(fields[1]) {
                stats.virtualBytes = size * page
                stats.residentBytes = resident * page
            }
        }
        if let dir = opendir("/proc/self/fd") {
            var count = 0
            while let entry = readdir(dir) {
                if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
            }
            closedir(dir)
            stats.openFileDescriptors = max(0, count - 1)  // minus the directory stream itself
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            stats.maxFileDescriptors = Int(limit.rlim_cur)
        }
        var usage = rusage()
        if getrusage(RUSAGE_SELF.rawValue, &usage) == 0 {
            stats.cpuSeconds =
                Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        }
        return stats
    }

    private static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n], as: UTF8.self).trimmingNewline()
    }
}

extension String {
    fileprivate func trimmingNewline() -> String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == " " { s = s.dropLast() }
        return String(s)
    }
}
