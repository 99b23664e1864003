import XizorFuzzing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs saved inputs (files, or every file of a directory) through a target once: how a crash
/// libFuzzer wrote is reproduced, and how a fix is checked before it becomes a regression input.
enum Replay {
    /// Returns how many inputs broke a property (each is reported on stderr).
    static func run(_ target: FuzzTarget, paths: [String]) -> Int {
        var findings = 0
        var count = 0
        for file in paths.flatMap(FuzzInputs.files(at:)) {
            guard let bytes = FuzzInputs.read(file) else { fail("cannot read \(file)", code: 66) }
            count += 1
            do { try target.run(bytes) } catch {
                findings += 1
                FileHandleStderr.write("FINDING \(file): \(error)\n")
            }
        }
        FileHandleStderr.write("xizor-fuzz: \(target.rawValue): \(count) inputs, \(findings) findings\n")
        return findings
    }
}

/// Writes to standard error without Foundation (the fuzzing build links as little as it can).
enum FileHandleStderr {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress, bytes.count) }
    }
}
