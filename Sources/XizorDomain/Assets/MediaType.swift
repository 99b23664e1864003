import PaywallFormat

/// What an uploaded file is, decided from its bytes (magic numbers; a Lottie file by its JSON
/// shape), never from the `Content-Type` the client declared: a declared type that disagrees is
/// refused. SVG is not accepted (it can carry script), nor anything else.
public struct MediaType: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case image, video, lottie
    }

    public let kind: Kind
    public let contentType: String
    /// The file extension asset URLs end with.
    public let fileExtension: String

    static let png = MediaType(kind: .image, contentType: "image/png", fileExtension: "png")
    static let jpeg = MediaType(kind: .image, contentType: "image/jpeg", fileExtension: "jpg")
    static let gif = MediaType(kind: .image, contentType: "image/gif", fileExtension: "gif")
    static let webp = MediaType(kind: .image, contentType: "image/webp", fileExtension: "webp")
    static let mp4 = MediaType(kind: .video, contentType: "video/mp4", fileExtension: "mp4")
    static let webm = MediaType(kind: .video, contentType: "video/webm", fileExtension: "webm")
    static let lottie = MediaType(kind: .lottie, contentType: "application/json", fileExtension: "json")
    static let all = [png, jpeg, gif, webp, mp4, webm, lottie]

    static func byExtension(_ ext: String) -> MediaType? { all.first { $0.fileExtension == ext } }
    static func byContentType(_ type: String) -> MediaType? { all.first { $0.contentType == type } }

    /// The type of `bytes`, or nil when it is none of the accepted ones.
    static func sniff(_ bytes: [UInt8]) -> MediaType? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4) { return .mp4 }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return .webm }
        if isLottie(bytes) { return .lottie }
        return nil
    }

    /// A Lottie (bodymovin) animation: a JSON object with a version, a frame rate, a size and layers.
    static func isLottie(_ bytes: [UInt8]) -> Bool {
        // Bytes that are not JSON are not a Lottie file: a fact about the upload (answered 415), not an
        // error to pass on.
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            first == UInt8(ascii: "{"),
            let json = try? JSONParser().parse(bytes)
        else { return false }
        func number(_ key: String) -> Bool { if case .number? = json[key] { return true } else { return false } }
        guard json["v"]?.stringValue != nil, number("fr"), number("w"), number("h"), case .array? = json["layers"]
        else { return false }
        return true
    }

    /// Whether a declared `Content-Type` agrees (absent and `application/octet-stream` always do).
    func agrees(withDeclared declared: String?) -> Bool {
        guard let declared else { return true }
        let bare = String(declared.split(separator: ";").first ?? "").lowercased().filter { $0 != " " && $0 != "\t" }
        if bare.isEmpty || bare == "application/octet-stream" { return true }
        if kind == .lottie { return bare == "application/json" || bare == "application/lottie+json" }
        return bare == contentType || (self == .jpeg && bare == "image/jpg")
    }
}
