import CCurl
import Foundation

/// Mail through an SMTP server, over libcurl's SMTP support (`smtp.*`, docs/teams.md): an
/// invitation's link, sent to the invited address. Not written here: SMTP, its TLS and its
/// authentication are libcurl's. A handle per message: mail is rare (an owner inviting someone).
public struct Mailer: Sendable {
    public struct Options: Sendable {
        /// `smtp://host:port` (STARTTLS when the server offers it) or `smtps://host:port`.
        public var url: String
        public var from: String
        public var username: String?
        public var password: String?
        public var timeoutMs: Int = 10_000
        /// `smtp.requireTLS`: refuse to send unless the connection is encrypted.
        public var requireTLS = false

        public init(url: String, from: String) {
            self.url = url
            self.from = from
        }
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unavailable
        case transfer(String)

        public var description: String {
            switch self {
            case .unavailable: "libcurl could not be set up"
            case .transfer(let detail): detail
            }
        }
    }

    public let options: Options

    public init(options: Options) { self.options = options }

    /// Sends a plain-text UTF-8 message to one recipient. `to` and `subject` must not hold a line
    /// break (the callers pass a checked address and a fixed subject with control characters removed).
    public func send(to recipient: String, subject: String, text: String) throws(Failure) {
        guard !recipient.contains(where: \.isNewline), !subject.contains(where: \.isNewline) else {
            throw .transfer("a line break in a header")
        }
        guard WebhookSender.globalInit, let handle = curl_easy_init() else { throw .unavailable }
        defer { curl_easy_cleanup(handle) }
        let message = Self.message(from: options.from, to: recipient, subject: subject, text: text)
        let upload = UploadSource(Array(message.utf8))
        let recipients: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "<\(recipient)>")
        defer { curl_slist_free_all(recipients) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        defer { errorBuffer.deallocate() }
        let code: CURLcode = withExtendedLifetime(upload) {
            let context = Unmanaged.passUnretained(upload).toOpaque()
            var failed = CURLE_OK
            func set(_ result: CURLcode) { if failed == CURLE_OK, result != CURLE_OK { failed = result } }
            set(xizor_curl_setopt_string(handle, CURLOPT_URL, options.url))
            set(xizor_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps"))
            set(xizor_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(options.from)>"))
            set(xizor_curl_setopt_slist(handle, CURLOPT_MAIL_RCPT, recipients))
            if let username = options.username { set(xizor_curl_setopt_string(handle, CURLOPT_USERNAME, username)) }
            if let password = options.password { set(xizor_curl_setopt_string(handle, CURLOPT_PASSWORD, password)) }
            let tls = options.requireTLS ? CURLUSESSL_ALL : CURLUSESSL_TRY
            set(xizor_curl_setopt_long(handle, CURLOPT_USE_SSL, Int(tls.rawValue)))
            set(xizor_curl_setopt_long(handle, CURLOPT_UPLOAD, 1))
            set(
                xizor_curl_setopt_read(
                    handle,
                    { buffer, size, count, context in
                        guard let buffer, let context else { return 0 }
                        return Unmanaged<UploadSource>.fromOpaque(context).takeUnretainedValue().read(
                            into: buffer, max: size * count)
                    }))
            set(xizor_curl_setopt_pointer(handle, CURLOPT_READDATA, context))
            set(xizor_curl_setopt_long(handle, CURLOPT_INFILESIZE, upload.bytes.count))
            set(xizor_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, options.timeoutMs))
            set(xizor_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, options.timeoutMs))
            set(xizor_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
            set(xizor_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
            guard failed == CURLE_OK else { return failed }
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            let buffered = String(cString: errorBuffer)
            throw .transfer(buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered)
        }
    }

    /// An RFC 5322 message: the headers a receiving server expects, a UTF-8 body sent as 8bit (every
    /// SMTP server of this century takes 8BITMIME), lines ended by CRLF.
    static func message(from: String, to: String, subject: String, text: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        let headers = [
            "Date: \(formatter.string(from: Date()))", "From: <\(from)>", "To: <\(to)>", "Subject: \(subject)",
            "Message-ID: <\(Identifiers.random(24))@\(domain)>", "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit",
        ]
        // libcurl doubles a line's leading dot itself (RFC 5321 §4.5.2), so the text goes as it is.
        let body = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return (headers + [""] + body).joined(separator: "\r\n") + "\r\n"
    }
}

/// The bytes libcurl reads the message from, in pieces.
private final class UploadSource {
    let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        let count = min(max, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            guard let base = source.baseAddress else { return }
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: count)
        }
        offset += count
        return count
    }
}
