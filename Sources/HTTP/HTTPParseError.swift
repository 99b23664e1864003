/// Why a request was rejected before reaching a handler. Each case maps to one status; the
/// connection is always closed afterwards because the framing of what follows is in doubt.
public enum HTTPParseError: Error, Sendable, Hashable {
    case invalidMethod
    case invalidRequestTarget
    case invalidVersion
    case unsupportedVersion
    case requestLineTooLong
    case headerSectionTooLarge
    case tooManyHeaderFields
    case invalidHeaderName
    case whitespaceBeforeColon
    case obsoleteLineFolding
    case bareCarriageReturn
    case bareLineFeed
    case invalidHeaderValue
    case missingHost
    case duplicateHost
    case invalidHost
    case contentLengthWithTransferEncoding
    case invalidContentLength
    case conflictingContentLength
    case contentLengthOverflow
    case transferEncodingNotChunked
    case unsupportedTransferCoding
    case transferEncodingOnHTTP10
    case invalidChunkSize
    case invalidChunkData
    case bodyTooLarge
    case unsupportedExpectation
    case tooManyEmptyLines

    /// The response status for this rejection.
    public var status: HTTPStatus {
        switch self {
        case .unsupportedVersion: .httpVersionNotSupported
        case .requestLineTooLong: .uriTooLong
        case .headerSectionTooLarge, .tooManyHeaderFields: .requestHeaderFieldsTooLarge
        case .unsupportedTransferCoding: .notImplemented
        case .bodyTooLarge: .contentTooLarge
        case .unsupportedExpectation: .expectationFailed
        default: .badRequest
        }
    }

    /// A stable machine-readable code for problem+json answers and logs.
    public var code: String {
        switch self {
        case .invalidMethod: "invalid_method"
        case .invalidRequestTarget: "invalid_request_target"
        case .invalidVersion: "invalid_version"
        case .unsupportedVersion: "unsupported_version"
        case .requestLineTooLong: "request_line_too_long"
        case .headerSectionTooLarge: "header_section_too_large"
        case .tooManyHeaderFields: "too_many_header_fields"
        case .invalidHeaderName: "invalid_header_name"
        case .whitespaceBeforeColon: "whitespace_before_colon"
        case .obsoleteLineFolding: "obsolete_line_folding"
        case .bareCarriageReturn: "bare_carriage_return"
        case .bareLineFeed: "bare_line_feed"
        case .invalidHeaderValue: "invalid_header_value"
        case .missingHost: "missing_host"
        case .duplicateHost: "duplicate_host"
        case .invalidHost: "invalid_host"
        case .contentLengthWithTransferEncoding: "content_length_with_transfer_encoding"
        case .invalidContentLength: "invalid_content_length"
        case .conflictingContentLength: "conflicting_content_length"
        case .contentLengthOverflow: "content_length_overflow"
        case .transferEncodingNotChunked: "transfer_encoding_not_chunked"
        case .unsupportedTransferCoding: "unsupported_transfer_coding"
        case .transferEncodingOnHTTP10: "transfer_encoding_on_http10"
        case .invalidChunkSize: "invalid_chunk_size"
        case .invalidChunkData: "invalid_chunk_data"
        case .bodyTooLarge: "body_too_large"
        case .unsupportedExpectation: "unsupported_expectation"
        case .tooManyEmptyLines: "too_many_empty_lines"
        }
    }
}
