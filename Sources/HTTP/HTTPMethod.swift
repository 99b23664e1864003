#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request method; the common ones are cases so matching and routing never compare strings.
public enum HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    case GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, TRACE, CONNECT
    /// Any other syntactically valid method token; the server answers 501 for it.
    case other(String)

    public init(_ name: String) {
        switch name {
        case "GET": self = .GET
        case "HEAD": self = .HEAD
        case "POST": self = .POST
        case "PUT": self = .PUT
        case "DELETE": self = .DELETE
        case "PATCH": self = .PATCH
        case "OPTIONS": self = .OPTIONS
        case "TRACE": self = .TRACE
        case "CONNECT": self = .CONNECT
        default: self = .other(name)
        }
    }

    /// Methods are case-sensitive (RFC 9110 §9.1); matches bytes without building a String for known ones.
    init(bytes: UnsafeBufferPointer<UInt8>) {
        func eq(_ s: StaticString) -> Bool {
            bytes.count == s.utf8CodeUnitCount && memcmp(bytes.baseAddress!, s.utf8Start, bytes.count) == 0
        }
        if eq("GET") {
            self = .GET
        } else if eq("HEAD") {
            self = .HEAD
        } else if eq("POST") {
            self = .POST
        } else if eq("PUT") {
            self = .PUT
        } else if eq("DELETE") {
            self = .DELETE
        } else if eq("PATCH") {
            self = .PATCH
        } else if eq("OPTIONS") {
            self = .OPTIONS
        } else if eq("TRACE") {
            self = .TRACE
        } else if eq("CONNECT") {
            self = .CONNECT
        } else {
            self = .other(String(decoding: bytes, as: UTF8.self))
        }
    }

    public var description: String {
        switch self {
        case .GET: "GET"
        case .HEAD: "HEAD"
        case .POST: "POST"
        case .PUT: "PUT"
        case .DELETE: "DELETE"
        case .PATCH: "PATCH"
        case .OPTIONS: "OPTIONS"
        case .TRACE: "TRACE"
        case .CONNECT: "CONNECT"
        case .other(let s): s
        }
    }

    /// GET and HEAD: the methods a matching `If-None-Match` answers with 304 rather than 412.
    public var isSafeRead: Bool { self == .GET || self == .HEAD }
}
