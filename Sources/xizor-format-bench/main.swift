import PaywallFormat

// Benchmark fixture for bench/format.bench.sh: throughput of the paywall format library.
//   xizor-format-bench template NAME   print a template (canonical JSON)
//   xizor-format-bench schema N        print the JSON Schema of version N
//   xizor-format-bench run [SECONDS]   measure and print one JSON object of figures
#if canImport(Glibc)
    import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    exit(try FormatBench.main(arguments))
} catch {
    // A built-in template that does not parse: the build is broken, said as it is.
    let line = Array("xizor-format-bench: \(error)\n".utf8)
    _ = write(2, line, line.count)
    exit(1)
}
