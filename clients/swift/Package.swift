// swift-tools-version:6.0
// XizorKit: the client library apps use to show Xizor paywalls (docs/client-swift.md). A package of
// its own, so an app depends on it without the server's targets. Foundation only, plus CryptoKit on Apple
// platforms and libcrypto (CXizorKitCrypto) on Linux, where CryptoKit does not exist, for SHA-256 and Ed25519.
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
        // libcrypto, only on Linux: Apple platforms verify signed answers and hash experiment buckets with
        // CryptoKit, so an app's build never needs OpenSSL.
        .systemLibrary(
            name: "CXizorKitCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .yum(["openssl-devel"])]),
        .target(
            name: "XizorKit",
            dependencies: [.target(name: "CXizorKitCrypto", condition: .when(platforms: [.linux]))]),
        // Fetches a placement and prints it: the smallest integration, runnable on Linux.
        .executableTarget(name: "XizorKitExample", dependencies: ["XizorKit"]),
        // Cold fetch, warm revalidation and event flush throughput against a server (bench/client.bench.sh).
        .executableTarget(name: "XizorKitBench", dependencies: ["XizorKit"]),
        // Fixtures are read from the source tree (the browser test reads the same file).
        .testTarget(name: "XizorKitTests", dependencies: ["XizorKit"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
