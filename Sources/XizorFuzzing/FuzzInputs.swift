#if canImport(Glibc)
    import Glibc
#endif

/// Saved fuzz inputs on disk: the committed seed corpora and regressions (`Tests/fuzz`), read by
/// `xizor-fuzz replay` and by `FuzzTests` without Foundation.
public enum FuzzInputs {
    /// `path` itself if it is a file, else the regular files directly inside it, sorted.
    public static func files(at path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted().map { "\(path)/\($0)" }
    }

    /// The bytes of `path`, or nil if it cannot be read.
    public static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n > 0 { bytes.append(contentsOf: buffer[..<n]) }
            if n < buffer.count { return ferror(file) == 0 ? bytes : nil }
        }
    }
}
