import HTTP
import XizorLog

#if canImport(Glibc)
    import Glibc
#endif

/// `xizor-http-fixture [--host H] [--port P] [--no-access-log] [--<configKey> N]…`: starts a
/// server with `FixtureRoutes`, prints the `listening` line, drains on SIGTERM/SIGINT, exits 0.
enum FixtureMain {
    static func run(arguments: [String]) {
        HTTPServer.blockTerminationSignals()
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        var i = 0
        while i < arguments.count {
            let flag = arguments[i]
            let value = i + 1 < arguments.count ? arguments[i + 1] : ""
            switch flag {
            case "--host":
                configuration.host = value
                i += 2
            case "--port":
                configuration.port = Int(value) ?? 0
                i += 2
            case "--no-access-log":
                configuration.accessLog = false
                i += 1
            default:
                guard flag.hasPrefix("--"), let number = Int(value),
                    set(&configuration, String(flag.dropFirst(2)), number)
                else {
                    fail("unknown or invalid option \(flag) \(value)")
                }
                i += 2
            }
        }
        raiseFileLimit()
        let drain = DrainState()
        let server = HTTPServer(
            configuration: configuration, responder: FixtureRoutes.router(drain: drain).build(),
            logger: Logger(), drainState: drain)
        let port: Int
        do {
            port = try server.start()
        } catch {
            fail("cannot start: \(error)")
        }
        server.handleTerminationSignals()
        Logger.standardOutput(
            "{\"event\":\"listening\",\"host\":\(JSONText.string(configuration.host)),\"port\":\(port)}\n")
        server.runUntilTerminated()
        Logger.standardOutput("{\"event\":\"stopped\"}\n")
        exit(0)
    }

    static func set(_ c: inout HTTPServer.Configuration, _ key: String, _ v: Int) -> Bool {
        switch key {
        case "ioQueues": c.ioQueues = v
        case "maxConnections": c.maxConnections = v
        case "handlerThreads": c.handlerThreads = v
        case "headerReadTimeoutMs": c.headerReadTimeoutMs = v
        case "bodyReadTimeoutMs": c.bodyReadTimeoutMs = v
        case "idleTimeoutMs": c.idleTimeoutMs = v
        case "writeTimeoutMs": c.writeTimeoutMs = v
        case "maxRequestsPerConnection": c.maxRequestsPerConnection = v
        case "maxRequestLineBytes": c.maxRequestLineBytes = v
        case "maxHeaderBytes": c.maxHeaderBytes = v
        case "maxHeaderFields": c.maxHeaderFields = v
        case "maxBodyBytes": c.maxBodyBytes = v
        case "drainTimeoutMs": c.drainTimeoutMs = v
        case "gzipMinBytes": c.gzipMinBytes = v
        case "gzipLevel": c.gzipLevel = v
        default: return false
        }
        return true
    }

    static func raiseFileLimit() {
        var limit = rlimit()
        if getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
        }
    }

    static func fail(_ message: String) -> Never {
        Logger.standardError("{\"event\":\"error\",\"message\":\(JSONText.string(message))}\n")
        exit(2)
    }
}

#if canImport(Glibc)
    let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif
