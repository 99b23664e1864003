// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Xizor",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "xizor", targets: ["xizor"]),
        .library(name: "HTTP", targets: ["HTTP"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "PaywallFormat", targets: ["PaywallFormat"]),
        .library(name: "PaywallRenderer", targets: ["PaywallRenderer"]),
    ],
    targets: [
        // C libraries from Debian's -dev packages.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .systemLibrary(name: "CPostgreSQL", path: "Sources/CPostgreSQL"),
        // OpenSSL's libcrypto (SHA-256, HMAC) and libcurl (webhook deliveries): docs/integrations.md.
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto"),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl"),
        // What Glibc's Swift module does not export (accept4, ...).
        .target(name: "CSystem", path: "Sources/CSystem"),
        // libFuzzer's driver entry point, for xizor-fuzz's fuzzing build (declaration only).
        .target(name: "CFuzz", path: "Sources/CFuzz"),

        // Layers.
        .target(name: "Logging", path: "Sources/Logging"),
        .target(name: "HTTP", dependencies: ["CZlib", "CSystem", "Logging"], path: "Sources/HTTP"),
        // SHA-256 and HMAC over libcrypto, shared by storage (migration checksums), the renderer (the
        // page's script hash) and the API.
        .target(name: "Digest", dependencies: ["CCrypto"], path: "Sources/Digest"),
        .target(name: "Storage", dependencies: ["CSQLite", "Digest"], path: "Sources/Storage"),
        // The PostgreSQL layer over libpq: connections, a pool, migrations; rows as the SQLite layer's.
        .target(
            name: "PostgresStorage", dependencies: ["CPostgreSQL", "Storage", "Digest"], path: "Sources/PostgresStorage"
        ),
        .target(name: "PaywallFormat", path: "Sources/PaywallFormat"),
        .target(name: "PaywallRenderer", dependencies: ["PaywallFormat", "Digest"], path: "Sources/PaywallRenderer"),
        // The console in the browser: HTML, ES modules and CSS from Site/, embedded by `make embed`.
        .target(
            name: "XizorConsole", dependencies: ["Digest"], path: "Sources/XizorConsole",
            exclude: ["Site", "embed-console.py"]),
        .target(
            name: "XizorAPI",
            dependencies: [
                "HTTP", "Storage", "PostgresStorage", "Digest", "CCurl", "XizorConsole", "PaywallFormat",
                "PaywallRenderer", "Logging",
            ], path: "Sources/XizorAPI",
            exclude: ["Assets/Bundled", "Assets/embed-media.py"]),
        // The fuzz targets (docs/fuzzing.md): properties over arbitrary bytes, shared by xizor-fuzz and FuzzTests.
        .target(
            name: "XizorFuzzing", dependencies: ["HTTP", "PaywallFormat", "PaywallRenderer", "XizorAPI"],
            path: "Sources/XizorFuzzing"),
        .target(
            name: "XizorCLI",
            dependencies: [
                "XizorAPI", "HTTP", "Storage", "PostgresStorage", "PaywallFormat", "PaywallRenderer", "Logging",
            ], path: "Sources/XizorCLI"),

        // Executables: the thin product binary, and fixtures used only by tests and `make bench`.
        .executableTarget(name: "xizor", dependencies: ["XizorCLI"], path: "Sources/xizor"),
        .executableTarget(
            name: "xizor-http-fixture", dependencies: ["HTTP", "Logging"], path: "Sources/xizor-http-fixture"),
        .executableTarget(
            name: "xizor-storage-fixture", dependencies: ["Storage"], path: "Sources/xizor-storage-fixture"),
        .executableTarget(
            name: "xizor-format-bench", dependencies: ["PaywallFormat"], path: "Sources/xizor-format-bench"),
        .executableTarget(name: "xizor-fuzz", dependencies: ["XizorFuzzing", "CFuzz"], path: "Sources/xizor-fuzz"),
        .executableTarget(
            name: "xizor-render-bench", dependencies: ["PaywallRenderer", "PaywallFormat"],
            path: "Sources/xizor-render-bench"),

        // Tests (Swift Testing).
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "CZlib"], path: "Tests/HTTPTests"),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Digest"], path: "Tests/StorageTests"),
        .testTarget(
            name: "PostgresStorageTests", dependencies: ["PostgresStorage", "Storage"],
            path: "Tests/PostgresStorageTests"),
        .testTarget(
            name: "PaywallFormatTests", dependencies: ["PaywallFormat"], path: "Tests/PaywallFormatTests",
            resources: [.copy("../Fixtures")]),
        .testTarget(
            name: "PaywallRendererTests", dependencies: ["PaywallRenderer", "PaywallFormat", "Digest"],
            path: "Tests/PaywallRendererTests"),
        .testTarget(name: "CLITests", dependencies: ["XizorCLI"], path: "Tests/CLITests"),
        .testTarget(name: "FuzzTests", dependencies: ["XizorFuzzing"], path: "Tests/FuzzTests"),
        .testTarget(
            name: "XizorAPITests",
            dependencies: [
                "XizorAPI", "HTTP", "Storage", "PostgresStorage", "PaywallFormat", "Digest", "XizorConsole",
            ], path: "Tests/XizorAPITests"),
    ],
    swiftLanguageModes: [.v6]
)
