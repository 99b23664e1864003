import Foundation
import Testing

@testable import HTTP

/// The library's defaults must be the ones in Config/xizor.json, so neither drifts.
@Test func configurationDefaultsMatchTheConfigFile() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Config/xizor.json")
    let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    let http = try #require(root["http"] as? [String: Any])
    let c = HTTPServer.Configuration()
    #expect(root["host"] as? String == c.host)
    #expect(root["port"] as? Int == c.port)
    #expect(root["accessLog"] as? Bool == c.accessLog)
    let expected: [String: Int] = [
        "ioQueues": c.ioQueues, "maxConnections": c.maxConnections, "handlerThreads": c.handlerThreads,
        "handlerThreadsPerApp": c.handlerThreadsPerPartition,
        "headerReadTimeoutMs": c.headerReadTimeoutMs, "bodyReadTimeoutMs": c.bodyReadTimeoutMs,
        "bodyDeadlineMs": c.bodyDeadlineMs, "maxBufferedBodyBytes": c.maxBufferedBodyBytes,
        "idleTimeoutMs": c.idleTimeoutMs, "writeTimeoutMs": c.writeTimeoutMs,
        "maxRequestsPerConnection": c.maxRequestsPerConnection, "maxRequestLineBytes": c.maxRequestLineBytes,
        "maxHeaderBytes": c.maxHeaderBytes, "maxHeaderFields": c.maxHeaderFields, "maxBodyBytes": c.maxBodyBytes,
        "drainTimeoutMs": c.drainTimeoutMs, "gzipMinBytes": c.gzipMinBytes, "gzipLevel": c.gzipLevel,
        "accessLogMaxPendingBytes": c.accessLogMaxPendingBytes, "accessLogFlushMs": c.accessLogFlushMs,
    ]
    #expect(http["reusePort"] as? Bool == c.reusePort)
    #expect(http["accessLogDropWhenBehind"] as? Bool == c.accessLogDropWhenBehind)
    #expect(Set(http.keys) == Set(expected.keys).union(["reusePort", "accessLogDropWhenBehind"]))
    for (key, value) in expected {
        #expect(http[key] as? Int == value, "\(key)")
    }
}
