import CSystem

extension HTTPServer {
    /// Everything the server is tuned by. Defaults equal `Config/xizor.json` (`host`, `port`,
    /// `accessLog` at the top level, the rest under `"http"` with the same key names, `…Ms` in
    /// milliseconds).
    public struct Configuration: Sendable {
        public var host: String = "127.0.0.1"
        public var port: Int = 8080
        /// Number of I/O event loops (a thread each) all connections are spread over; 0: one per CPU the process
        /// may run on (like nginx's `worker_processes auto`: more loops than cores only add
        /// context switches).
        public var ioQueues: Int = 0
        public var maxConnections: Int = 10000
        /// Upper bound on threads running offloaded handlers (and, separately, streamed bodies).
        public var handlerThreads: Int = 64
        /// How many of them one partition (one tenant, `HTTPRequest.partition`) may hold at once;
        /// its further requests wait for its own to finish (`FairQueue`).
        public var handlerThreadsPerPartition: Int = 8
        public var headerReadTimeoutMs: Int = 60000
        public var bodyReadTimeoutMs: Int = 60000
        /// Time to receive a whole request body, from the end of its head (a minimum rate for slow senders).
        public var bodyDeadlineMs: Int = 60000
        public var idleTimeoutMs: Int = 75000
        public var writeTimeoutMs: Int = 60000
        public var maxRequestsPerConnection: Int = 1000
        public var maxRequestLineBytes: Int = 8192
        public var maxHeaderBytes: Int = 32768
        public var maxHeaderFields: Int = 100
        public var maxBodyBytes: Int = 1_048_576
        /// Request-body bytes all connections together may hold in memory; past it, bodies get 503.
        public var maxBufferedBodyBytes: Int = 16 * 1_048_576
        public var drainTimeoutMs: Int = 10000
        /// Sets `SO_REUSEPORT` on the listening socket, so a second process can bind the same
        /// address and port while this one still serves: a new server starts, then the old one
        /// drains (a restart without a moment in which nobody listens). Off by default, as in
        /// nginx (`listen … reuseport`): with it on, two unrelated servers started on one port
        /// would silently split its connections instead of the second failing to bind. The kernel
        /// lets the second socket join only when both set it and belong to the same user.
        public var reusePort: Bool = false
        /// Bodies smaller than this are never compressed by the server.
        public var gzipMinBytes: Int = 860
        public var gzipLevel: Int = 6
        /// One JSON line per request on the logger, written by `AccessLog`'s writer thread.
        public var accessLog: Bool = true
        /// Access log lines queued for the writer beyond which lines are dropped (or the loop waits).
        public var accessLogMaxPendingBytes: Int = 8 << 20
        /// Drop (and count) lines when the writer is that far behind, rather than make the I/O loop wait.
        public var accessLogDropWhenBehind: Bool = true
        /// The writer takes every loop's lines at least this often.
        public var accessLogFlushMs: Int = 100

        var accessLogOptions: AccessLog.Options {
            AccessLog.Options(
                maxPendingBytes: accessLogMaxPendingBytes, dropWhenBehind: accessLogDropWhenBehind,
                flushIntervalMs: accessLogFlushMs)
        }
        /// Listen backlog (not in the config file).
        public var backlog: Int32 = 1024

        public init() {}

        /// `ioQueues` with 0 resolved against the CPUs available now (at most 64, the configured
        /// maximum). The affinity mask is what counts; a cgroup CPU quota is not seen. Public for an
        /// observer that keeps counters per loop (`HTTPExchange.loop`).
        public var resolvedIOQueues: Int { ioQueues > 0 ? ioQueues : min(Int(xizor_available_cpus()), 64) }

        var parserLimits: HTTPParserLimits {
            HTTPParserLimits(
                maxRequestLineBytes: maxRequestLineBytes, maxHeaderBytes: maxHeaderBytes,
                maxHeaderFields: maxHeaderFields, maxBodyBytes: maxBodyBytes)
        }
    }
}
