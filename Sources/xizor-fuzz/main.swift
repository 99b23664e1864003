import XizorFuzzing

// xizor-fuzz: the fuzz targets of XizorFuzzing under libFuzzer (`make fuzz`, docs/fuzzing.md).
//
//   xizor-fuzz TARGET [libFuzzer flags] [CORPUS_DIR...]   fuzz (a build with -DFUZZING only)
//   xizor-fuzz replay TARGET FILE_OR_DIR...               run saved inputs once (any build)
#if canImport(Glibc)
    import Glibc
#endif

func fail(_ message: String, code: Int32 = 64) -> Never {
    FileHandleStderr.write("xizor-fuzz: \(message)\n")
    exit(code)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")

if arguments.first == "replay" {
    guard arguments.count >= 3, let target = FuzzTarget(rawValue: arguments[1]) else {
        fail("usage: xizor-fuzz replay TARGET FILE_OR_DIR... (targets: \(names))")
    }
    let findings = Replay.run(target, paths: Array(arguments.dropFirst(2)))
    exit(findings == 0 ? 0 : 1)
}

#if FUZZING
    guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
        fail("usage: xizor-fuzz TARGET [libFuzzer flags] [CORPUS_DIR...] (targets: \(names))")
    }
    FuzzDriver.run(target, libFuzzerArguments: Array(arguments.dropFirst()))
#else
    fail("this build replays only (xizor-fuzz replay TARGET PATH...); `make fuzz` builds the fuzzing one")
#endif
