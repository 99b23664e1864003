import CCurl
import Glibc

/// One HTTP client for webhook deliveries, over libcurl's easy interface: a handle per sender
/// thread, so connections to an endpoint are reused between its deliveries. Never shared between
/// threads (libcurl handles are not), hence not Sendable.
final class WebhookSender {
    /// How an attempt ended on the wire.
    enum Answer: Equatable {
        /// The endpoint answered with this status.
        case status(Int)
        /// No answer: `code` for the log (`timeout`, `connect_failed`, `private_address`, `tls`, …).
        case failed(code: String, detail: String)
    }

    struct Options: Sendable {
        var timeoutMs: Int
        var allowPrivateTargets: Bool
        /// A CA bundle to verify HTTPS endpoints against instead of the system's.
        var caFile: String?
    }

    /// libcurl's global state, set up once before any handle (curl_global_init is not thread-safe).
    static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    private let handle: UnsafeMutableRawPointer
    private let options: Options
    /// The open-socket callback's context: the policy, and what it refused on this attempt.
    private let policy: ConnectionPolicy
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    init?(options: Options) {
        guard WebhookSender.globalInit, let handle = curl_easy_init() else { return nil }
        self.handle = handle
        self.options = options
        policy = ConnectionPolicy(allowPrivate: options.allowPrivateTargets)
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// POSTs `body` to `url` with `headers` ("Name: value") and answers how it went; the
    /// response body is read and dropped. Another `method` (a cache's `BAN`) is sent without a body.
    func post(url: String, body: [UInt8], headers: [String], method: String = "POST") -> Answer {
        curl_easy_reset(handle)
        policy.refused = nil
        errorBuffer[0] = 0
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers + ["Expect:"] { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        let context = Unmanaged.passUnretained(policy).toOpaque()
        let code: CURLcode = body.withUnsafeBufferPointer { bytes in
            var failed = CURLE_OK
            func set(_ result: CURLcode) { if failed == CURLE_OK && result != CURLE_OK { failed = result } }
            set(xizor_curl_setopt_string(handle, CURLOPT_URL, url))
            if method == "POST" {
                set(xizor_curl_setopt_long(handle, CURLOPT_POST, 1))
                set(
                    xizor_curl_setopt_pointer(
                        handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress)))
                set(xizor_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, bytes.count))
            } else {
                set(xizor_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
            }
            set(xizor_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
            set(xizor_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, options.timeoutMs))
            set(xizor_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, options.timeoutMs))
            set(xizor_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
            set(xizor_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
            set(xizor_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
            // No proxy from the environment: the address check below must see where the request goes.
            set(xizor_curl_setopt_string(handle, CURLOPT_PROXY, ""))
            set(xizor_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
            set(xizor_curl_setopt_write(handle, WebhookSender.discard))
            set(xizor_curl_setopt_opensocket(handle, WebhookSender.openSocket))
            set(xizor_curl_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, context))
            if let caFile = options.caFile { set(xizor_curl_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
            guard failed == CURLE_OK else { return failed }
            return curl_easy_perform(handle)
        }
        if let refused = policy.refused {
            return .failed(
                code: "private_address",
                detail: "Refused to connect to \(refused): an internal address (webhooks.allowPrivateTargets is off).")
        }
        guard code == CURLE_OK else { return .failed(code: Self.name(code), detail: detail(code)) }
        var status = 0
        guard xizor_curl_response_code(handle, &status) == CURLE_OK, status > 0 else {
            return .failed(code: "no_response", detail: "The endpoint sent no HTTP status.")
        }
        return .status(status)
    }

    private func detail(_ code: CURLcode) -> String {
        let buffered = String(cString: errorBuffer)
        return buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered
    }

    /// A short, stable name for the log's `lastError`.
    private static func name(_ code: CURLcode) -> String {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: "timeout"
        case CURLE_COULDNT_RESOLVE_HOST: "dns_failed"
        case CURLE_COULDNT_CONNECT: "connect_failed"
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE: "tls_failed"
        case CURLE_UNSUPPORTED_PROTOCOL: "unsupported_protocol"
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING: "connection_lost"
        default: "transfer_failed"
        }
    }

    /// Reads and drops the response body (its size is all libcurl needs to hear).
    private static let discard: curl_write_callback = { _, size, count, _ in size * count }

    /// Checks the address libcurl is about to connect to (after resolving, for every connection)
    /// and opens the socket only when the policy allows it.
    private static let openSocket: curl_opensocket_callback = { context, _, address in
        guard let context, let address else { return -1 }
        let policy = Unmanaged<ConnectionPolicy>.fromOpaque(context).takeUnretainedValue()
        let family = address.pointee.family
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return -1 }
        let raw = UnsafeRawPointer(address) + offset
        let bytes: [UInt8]
        switch family {
        case AF_INET: bytes = withUnsafeBytes(of: raw.loadUnaligned(as: sockaddr_in.self).sin_addr) { Array($0) }
        case AF_INET6: bytes = withUnsafeBytes(of: raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr) { Array($0) }
        default:
            policy.refused = "an address of family \(family)"
            return -1
        }
        if !policy.allowPrivate && WebhookTarget.isPrivate(bytes) {
            policy.refused = WebhookTarget.text(bytes)
            return -1
        }
        return socket(family, address.pointee.socktype, address.pointee.protocol)
    }
}

/// What the open-socket callback decides by, and what it refused (read after the transfer).
final class ConnectionPolicy {
    let allowPrivate: Bool
    var refused: String?

    init(allowPrivate: Bool) { self.allowPrivate = allowPrivate }
}
