// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Xizor",
    // XizorKit's platforms (a package has one list, not one per target): an app adds XizorKit by this
    // repository's URL. The server is built on Linux, where this list does not apply.
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .executable(name: "xizor", targets: ["xizor"]),
        // The client library (docs/client-swift.md): an app that depends on it builds its one target, none
        // of the server's.
        .library(name: "XizorKit", targets: ["XizorKit"]),
        .library(name: "HTTP", targets: ["HTTP"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "PaywallFormat", targets: ["PaywallFormat"]),
        .library(name: "PaywallRenderer", targets: ["PaywallRenderer"]),
    ],
    targets: [
        // C libraries from Debian's -dev packages.
        /// README: C interop: zlib (Debian's `-dev` package), for gzip answers
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        /// README: C interop: sqlite3, with `greatest`/`least` registered as PostgreSQL has them
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        /// README: C interop: libpq
        .systemLibrary(name: "CPostgreSQL", path: "Sources/CPostgreSQL"),
        /// README: C interop: OpenSSL's libcrypto (SHA-256, HMAC, X.509 chains and ECDSA for the stores' signed data)
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto"),
        /// README: C interop: libargon2, people's password hashes (Argon2id, docs/teams.md)
        .systemLibrary(name: "CArgon2", path: "Sources/CArgon2"),
        /// README: C interop: libqrencode, the QR code of a TOTP enrolment (docs/teams.md)
        .systemLibrary(name: "CQRencode", path: "Sources/CQRencode"),
        /// README: C interop: libcurl, for webhook deliveries (docs/integrations.md)
        .systemLibrary(name: "CCurl", path: "Sources/CCurl"),
        /// README: C interop: what Glibc's Swift module does not export (`accept4`, thread priorities)
        .target(name: "CSystem", path: "Sources/CSystem"),
        /// README: libFuzzer's driver entry point, for `xizor-fuzz` (declaration only)
        .target(name: "CFuzz", path: "Sources/CFuzz"),

        // Layers.
        /// README: JSON-lines logging (`XizorLog`, so as not to clash with swift-log's `Logging`)
        .target(name: "XizorLog", path: "Sources/XizorLog"),
        /// README: the hand-rolled HTTP/1.1 server on POSIX sockets and Dispatch; knows nothing about paywalls
        .target(name: "HTTP", dependencies: ["CZlib", "CSystem", "Execution", "XizorLog"], path: "Sources/HTTP"),
        /// README: SHA-256, HMAC and TOTP over libcrypto, Argon2id over libargon2, QR codes over libqrencode, shared by storage (migration checksums), the renderer (the page's script hash) and the API
        .target(name: "Digest", dependencies: ["CCrypto", "CArgon2", "CQRencode"], path: "Sources/Digest"),
        /// README: the SQLite layer over the C API: database, statements, transactions, migrations, backups; and `SQL`, a statement written once for both databases, with `SQLConnection`
        .target(name: "Storage", dependencies: ["CSQLite", "Digest"], path: "Sources/Storage"),
        /// README: signed data from outside: the app stores' JWS with an `x5c` chain, verified as Apple's `app-store-server-library` verifies it (chain to a trusted root at the signing date, Apple's OIDs, ES256), and OpenID Connect ID tokens against a provider's keys (RS256, ES256; issuer, audience, expiry, nonce), over libcrypto; pure, no I/O
        .target(name: "StoreSignatures", dependencies: ["CCrypto", "PaywallFormat"], path: "Sources/StoreSignatures"),
        /// README: the PostgreSQL layer over libpq: connections, prepared statements, a pool, SQLSTATE → the same error kinds, migrations under an advisory lock; rows as the SQLite layer's
        .target(
            name: "PostgresStorage", dependencies: ["CPostgreSQL", "Storage", "Digest"], path: "Sources/PostgresStorage"
        ),
        /// README: the paywall document format: model, strict validator, tolerant reader, text resolution, schema versions, templates; pure, no I/O
        .target(name: "PaywallFormat", path: "Sources/PaywallFormat"),
        /// README: the document as a self-contained HTML page for a WebView, with its bridge runtime (`Runtime/runtime.js`, embedded by `make embed`); pure
        .target(
            name: "PaywallRenderer", dependencies: ["PaywallFormat", "Digest"], path: "Sources/PaywallRenderer",
            exclude: ["Runtime", "embed-runtime.py"]),
        /// README: the console in the browser: HTML, ES modules and CSS from `Site/`, embedded by `make embed`
        .target(
            name: "XizorConsole", dependencies: ["Digest"], path: "Sources/XizorConsole",
            exclude: ["Site", "embed-console.py"]),
        /// README: which threads may wait: `InlineExecution` (a handler or admission on an I/O loop) and `HTTPOffload`, shared by the HTTP server and the domain's store and resolver, which must ask the same thread the same question
        .target(name: "Execution", dependencies: ["CSystem"], path: "Sources/Execution"),
        /// README: the domain: a folder per aggregate (apps and keys, paywalls, placements, audiences, subscribers, experiments, events, timers, webhooks, audit, assets) holding its models, its store protocol and its service; `Targeting/` (rule conditions, request attributes), `Store/` (the `DataStore` protocol the services read and write through, group commit), `Changes/` (the change feed), `Serving/` (in-memory serving state, resolution, page rendering), `Operations/` (jobs, counters, readiness), `Schema/` (the embedded migrations), `Shared/`. It cannot import HTTP: services take and answer values, and fail with `ServiceError`
        .target(
            name: "XizorDomain",
            dependencies: [
                "Execution", "Storage", "Digest", "CCurl", "PaywallFormat", "PaywallRenderer", "StoreSignatures",
                "XizorLog",
            ],
            path: "Sources/XizorDomain",
            exclude: ["Assets/Bundled", "Assets/embed-media.py"]),
        /// README: the API's surfaces over the domain: per aggregate its REST routes (`*Routes.swift`) and MCP tools (`*Tools.swift`), in folders named as the domain's; `MCP/`, `OpenAPI/`, `Console/` (the console's routes), `Operations/` (`/metrics`, health, rate limits), `Serving/` (SDK delivery: answers, representations), `Shared/` (authentication, answers, `XizorApplication`: the server's composition). It cannot import XizorStores: a route reaches data only through a service
        .target(
            name: "XizorAPI",
            dependencies: [
                "XizorDomain", "HTTP", "Storage", "Digest", "XizorConsole", "PaywallFormat", "PaywallRenderer",
                "XizorLog",
            ], path: "Sources/XizorAPI"),
        /// README: the stores, one per aggregate, written once for both databases (`SQL*Store` over `any SQLConnection`; only event rows are written per database, `EventIngest`), the two `DataStore`s and their transaction: the only code that runs SQL. It depends on the domain's store protocols; neither XizorDomain nor XizorAPI can import it, so no service, route or tool can reach a store but through a `DataStore`
        .target(
            name: "XizorStores",
            dependencies: ["XizorDomain", "Storage", "PostgresStorage", "PaywallFormat", "Digest"],
            path: "Sources/XizorStores"),
        /// README: the fuzz targets (docs/fuzzing.md): properties over arbitrary bytes, shared by `xizor-fuzz` and `FuzzTests`
        .target(
            name: "XizorFuzzing", dependencies: ["HTTP", "PaywallFormat", "PaywallRenderer", "XizorDomain"],
            path: "Sources/XizorFuzzing"),
        /// README: the `xizor` command line: argument parsing, configuration, subcommands, the composition of the server
        .target(
            name: "XizorCLI",
            dependencies: [
                "XizorAPI", "XizorDomain", "XizorStores", "HTTP", "Storage", "PostgresStorage", "PaywallFormat",
                "PaywallRenderer", "XizorLog", "Digest",
            ], path: "Sources/XizorCLI"),

        // Executables: the thin product binary, and fixtures used only by tests and `make bench`.
        /// README: the thin executable
        .executableTarget(name: "xizor", dependencies: ["XizorCLI"], path: "Sources/xizor"),
        /// README: a test and benchmark fixture: the HTTP layer alone, with routes of its own
        .executableTarget(
            name: "xizor-http-fixture", dependencies: ["HTTP", "XizorLog"], path: "Sources/xizor-http-fixture"),
        /// README: a test and benchmark fixture: the SQLite layer alone
        .executableTarget(
            name: "xizor-storage-fixture", dependencies: ["Storage"], path: "Sources/xizor-storage-fixture"),
        /// README: the format's benchmark (`make bench`)
        .executableTarget(
            name: "xizor-format-bench", dependencies: ["PaywallFormat"], path: "Sources/xizor-format-bench"),
        /// README: the libFuzzer driver over `XizorFuzzing` (`make fuzz`)
        .executableTarget(name: "xizor-fuzz", dependencies: ["XizorFuzzing", "CFuzz"], path: "Sources/xizor-fuzz"),
        /// README: the renderer's benchmark (`make bench`)
        .executableTarget(
            name: "xizor-render-bench", dependencies: ["PaywallRenderer", "PaywallFormat"],
            path: "Sources/xizor-render-bench"),

        // The client library, whose package is clients/swift (its example, benchmark and tests are there): its
        // sources are vended here too, so SwiftPM and Xcode can add it by this repository's URL and a version tag.
        /// README: XizorKit, the Swift client library apps use (docs/client-swift.md): `clients/swift`'s library, vended by this package too so an app adds it by the repository's URL; it depends on no server target
        .target(
            name: "XizorKit",
            dependencies: [.byName(name: "CXizorKitCrypto", condition: .when(platforms: [.linux]))],
            path: "clients/swift/Sources/XizorKit"),
        /// README: C interop for XizorKit on Linux only: libcrypto's SHA-256 and Ed25519 (Apple platforms use CryptoKit)
        .systemLibrary(name: "CXizorKitCrypto", path: "clients/swift/Sources/CXizorKitCrypto", pkgConfig: "libcrypto"),

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
                "XizorAPI", "XizorDomain", "XizorStores", "HTTP", "Storage", "PostgresStorage", "PaywallFormat",
                "Digest", "XizorConsole", "StoreSignatures",
            ], path: "Tests/XizorAPITests"),
    ],
    swiftLanguageModes: [.v6]
)

// Release builds of the server optimise across its modules (`-cross-module-optimization`): without
// it, a generic of one module (`ReadWriteLock.read`, `HTTPRequestHeaders.withFirstValue`) is called
// unspecialised from another, through value-witness thunks, and an authenticated 304 cost 280
// instructions more (docs/benchmarks.md). Not for XizorKit, which apps build as a dependency (a
// dependency may not carry unsafe flags), nor for debug builds.
for target in package.targets
where [.regular, .executable].contains(target.type) && !target.name.hasPrefix("XizorKit") {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
}
