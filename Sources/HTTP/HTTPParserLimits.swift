/// Size limits the parser enforces while reading (config keys `maxRequestLineBytes`,
/// `maxHeaderBytes`, `maxHeaderFields`, `maxBodyBytes`).
public struct HTTPParserLimits: Sendable, Hashable {
    public var maxRequestLineBytes: Int
    public var maxHeaderBytes: Int
    public var maxHeaderFields: Int
    public var maxBodyBytes: Int

    public init(
        maxRequestLineBytes: Int = 8192, maxHeaderBytes: Int = 32768,
        maxHeaderFields: Int = 100, maxBodyBytes: Int = 1_048_576
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderFields = maxHeaderFields
        self.maxBodyBytes = maxBodyBytes
    }
}
