import Foundation
import Testing

@testable import XizorCLI

private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let defaultFile = repositoryRoot.appendingPathComponent("Config/xizor.json").path

@Suite struct ConfigurationTests {
    @Test func environmentNamesAreDerivedFromPaths() {
        #expect(ConfigurationKey.named("http.maxConnections")?.environmentName == "XIZOR_HTTP_MAX_CONNECTIONS")
        #expect(ConfigurationKey.named("dataDir")?.environmentName == "XIZOR_DATA_DIR")
        #expect(ConfigurationKey.named("logLevel")?.environmentName == "XIZOR_LOG_LEVEL")
        #expect(ConfigurationKey.named("adminToken")?.environmentName == "XIZOR_ADMIN_TOKEN")
        #expect(ConfigurationKey.named("publicURL")?.environmentName == "XIZOR_PUBLIC_URL")
        #expect(ConfigurationKey.named("cache.purgeURLs")?.environmentName == "XIZOR_CACHE_PURGE_URLS")
    }

    @Test func theCompiledInDefaultsNeedNoFile() throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [:])
        #expect(configuration == Configuration.defaults)
        #expect(configuration.port == 8080)
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration[\.http.maxBodyBytes] == 1_048_576)
        #expect(configuration[\.adminToken] == nil)
        #expect(configuration[\.storage.synchronous] == .full)
        #expect(configuration[\.logLevel] == .info)
    }

    /// Config/xizor.json is the documented copy of the compiled-in defaults: loading it changes nothing,
    /// and it names every setting that has a default (optional ones may be left out or null).
    @Test func theConfigFileIsACopyOfTheCompiledInDefaults() throws {
        let fromFile = try ConfigurationLoader.load(file: defaultFile, environment: [:], overrides: [:])
        #expect(fromFile == Configuration.defaults)
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: defaultFile)))
                as? [String: Any])
        for key in Settings.keys where key.defaultValue != nil {
            var node: Any? = root
            for part in key.path.split(separator: ".") { node = (node as? [String: Any])?[String(part)] }
            #expect(node != nil, "\(key.path) is missing from Config/xizor.json")
        }
    }

    @Test func everySettingIsListedOnceInDeclarationOrder() {
        let paths = Settings.keys.map(\.path)
        #expect(Set(paths).count == paths.count)
        #expect(
            paths.first == "host" && paths.contains("rateLimits.authFailuresBurst") && paths.contains("http.gzipLevel"))
        #expect(paths.count == 116, "a setting was added or removed: update this count and docs/operations.md")
    }

    @Test func environmentOverridesTheFileAndFlagsOverrideBoth() throws {
        let fromEnvironment = try ConfigurationLoader.load(
            file: defaultFile,
            environment: ["XIZOR_PORT": "9090", "XIZOR_HTTP_GZIP_LEVEL": "3", "XIZOR_STORAGE_SYNCHRONOUS": "NORMAL"],
            overrides: [:])
        #expect(fromEnvironment.port == 9090)
        #expect(fromEnvironment[\.http.gzipLevel] == 3)
        #expect(fromEnvironment[\.storage.synchronous] == .normal)
        let fromFlag = try ConfigurationLoader.load(
            file: defaultFile, environment: ["XIZOR_PORT": "9090"], overrides: ["port": "0"])
        #expect(fromFlag.port == 0)
    }

    @Test func settingsThatContradictEachOtherAreRefused() {
        #expect(throws: ConfigurationError("adminToken (XIZOR_ADMIN_TOKEN) is 5 characters; it needs at least 32")) {
            try ConfigurationLoader.load(file: nil, environment: ["XIZOR_ADMIN_TOKEN": "short"], overrides: [:])
        }
        #expect(
            throws: ConfigurationError("http.maxBufferedBodyBytes (1000) is smaller than http.maxBodyBytes (1048576)")
        ) {
            try ConfigurationLoader.load(
                file: nil, environment: ["XIZOR_HTTP_MAX_BUFFERED_BODY_BYTES": "1000"], overrides: [:])
        }
        #expect(
            throws: ConfigurationError(
                #"renderer.mediaOrigins: "http://x" is not `https:` or an https://host[:port] origin"#)
        ) {
            try ConfigurationLoader.load(
                file: nil, environment: ["XIZOR_RENDERER_MEDIA_ORIGINS": "http://x"], overrides: [:])
        }
    }

    @Test func badValuesNameTheKeyAndTheSource() {
        #expect(
            throws: ConfigurationError(
                "environment variable XIZOR_PORT: port must be an integer from 0 to 65535, not 'http'")
        ) {
            try ConfigurationLoader.load(file: defaultFile, environment: ["XIZOR_PORT": "http"], overrides: [:])
        }
        #expect(
            throws: ConfigurationError(
                "environment variable XIZOR_LOG_LEVEL: logLevel must be one of debug, info, warning, error, not 'loud'")
        ) {
            try ConfigurationLoader.load(file: defaultFile, environment: ["XIZOR_LOG_LEVEL": "loud"], overrides: [:])
        }
    }

    @Test func unknownKeysInTheFileAreRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "xizor-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.json")
        try Data(#"{"http": {"maxConnectons": 5}}"#.utf8).write(to: file)
        #expect(throws: ConfigurationError("unknown setting http.maxConnectons in \(file.path)")) {
            try ConfigurationLoader.load(file: file.path, environment: [:], overrides: [:])
        }
    }

    @Test func aMissingExplicitFileIsAnError() {
        #expect(throws: ConfigurationError("configuration file /nonexistent/x.json does not exist")) {
            try ConfigurationLoader.load(file: "/nonexistent/x.json", environment: [:], overrides: [:])
        }
    }
}

@Suite struct ArgumentParserTests {
    let spec = CommandSpec(
        name: "demo", summary: "s", positionals: "FILE…", minPositionals: 1, maxPositionals: nil,
        options: [.init("port", value: "P", help: ""), .init("check", help: "")])

    @Test func parsesValuesFlagsAndPositionals() throws {
        let parsed = try ArgumentParser.parse(["a.json", "--port", "8", "--check", "--port=9", "b.json"], spec: spec)
        #expect(parsed.positionals == ["a.json", "b.json"])
        #expect(parsed.value("port") == "9")
        #expect(parsed.flag("check"))
    }

    @Test func rejectsUnknownOptionsAndMissingValues() {
        #expect(throws: UsageError("unknown option '--nope'")) {
            try ArgumentParser.parse(["x", "--nope"], spec: spec)
        }
        #expect(throws: UsageError("option '--port' needs a value")) {
            try ArgumentParser.parse(["x", "--port"], spec: spec)
        }
        #expect(throws: UsageError("missing argument FILE…")) { try ArgumentParser.parse([], spec: spec) }
        #expect(throws: UsageError("option '--check' takes no value")) {
            try ArgumentParser.parse(["x", "--check=1"], spec: spec)
        }
    }

    @Test func helpSkipsPositionalChecks() throws {
        #expect(try ArgumentParser.parse(["--help"], spec: spec).helpRequested)
    }
}
