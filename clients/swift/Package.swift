// swift-tools-version:6.0
// XizorKit: the client library apps use to show Xizor paywalls (docs/client-swift.md). A package of
// its own, so an app depends on it without the server's targets. Foundation only.
import PackageDescription

let package = Package(
    name: "XizorKit",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "XizorKit", targets: ["XizorKit"]),
        .executable(name: "xizor-kit-example", targets: ["XizorKitExample"]),
        .executable(name: "xizor-kit-bench", targets: ["XizorKitBench"]),
    ],
    targets: [
        .target(name: "XizorKit"),
        // Fetches a placement and prints it: the smallest integration, runnable on Linux.
        .executableTarget(name: "XizorKitExample", dependencies: ["XizorKit"]),
        // Cold fetch, warm revalidation and event flush throughput against a server (bench/client.bench.sh).
        .executableTarget(name: "XizorKitBench", dependencies: ["XizorKit"]),
        // Fixtures are read from the source tree (the browser test reads the same file).
        .testTarget(name: "XizorKitTests", dependencies: ["XizorKit"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
