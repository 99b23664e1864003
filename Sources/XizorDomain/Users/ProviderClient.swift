import CCurl

/// What single sign-on asks of the identity provider over HTTP (its discovery document, its keys,
/// the code exchange), through libcurl: one handle per request, a bounded answer, a timeout. Not
/// the webhook sender: the provider is configured by the operator (it may well be on a private
/// network), and its answers are read.
struct ProviderClient: Sendable {
    struct Answer {
        let status: Int
        let body: [UInt8]
    }

    enum Failure: Error, CustomStringConvertible {
        case unavailable
        case transfer(String)
        case tooLarge

        var description: String {
            switch self {
            case .unavailable: "libcurl could not be set up"
            case .transfer(let detail): detail
            case .tooLarge: "the provider's answer is larger than 1 MiB"
            }
        }
    }

    static let maximumBytes = 1 << 20
    let timeoutMs: Int

    func get(_ url: String) throws(Failure) -> Answer { try perform(url: url, form: nil, headers: []) }

    /// POSTs `form` (already `application/x-www-form-urlencoded`).
    func post(_ url: String, form: String, headers: [String]) throws(Failure) -> Answer {
        try perform(
            url: url, form: Array(form.utf8), headers: headers + ["Content-Type: application/x-www-form-urlencoded"])
    }

    private func perform(url: String, form: [UInt8]?, headers: [String]) throws(Failure) -> Answer {
        guard WebhookSender.globalInit, let handle = curl_easy_init() else { throw .unavailable }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers + ["Accept: application/json", "Expect:"] { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        let sink = ResponseSink()
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        defer { errorBuffer.deallocate() }
        let code: CURLcode = withExtendedLifetime(sink) {
            var failed = CURLE_OK
            func set(_ result: CURLcode) { if failed == CURLE_OK, result != CURLE_OK { failed = result } }
            set(xizor_curl_setopt_string(handle, CURLOPT_URL, url))
            set(xizor_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
            set(xizor_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
            set(xizor_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs))
            set(xizor_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeoutMs))
            set(xizor_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
            set(xizor_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
            set(xizor_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
            set(
                xizor_curl_setopt_write(
                    handle,
                    { data, size, count, context in
                        guard let data, let context else { return 0 }
                        return Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue().append(
                            data, size * count)
                    }))
            set(xizor_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque()))
            if let form {
                set(xizor_curl_setopt_long(handle, CURLOPT_POST, 1))
                set(xizor_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, form.count))
                set(xizor_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, String(decoding: form, as: UTF8.self)))
            }
            guard failed == CURLE_OK else { return failed }
            return curl_easy_perform(handle)
        }
        if sink.overflowed { throw .tooLarge }
        guard code == CURLE_OK else {
            let buffered = String(cString: errorBuffer)
            throw .transfer(buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered)
        }
        var status = 0
        _ = xizor_curl_response_code(handle, &status)
        return Answer(status: status, body: sink.bytes)
    }
}

/// The answer's bytes as libcurl hands them over, up to the bound.
private final class ResponseSink {
    var bytes: [UInt8] = []
    var overflowed = false

    func append(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard bytes.count + count <= ProviderClient.maximumBytes else {
            overflowed = true
            return 0
        }
        data.withMemoryRebound(to: UInt8.self, capacity: count) {
            bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
        }
        return count
    }
}
