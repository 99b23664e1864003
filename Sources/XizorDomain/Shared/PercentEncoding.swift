/// RFC 3986 percent-encoding of a URL's query value or path label (and of
/// `application/x-www-form-urlencoded` fields): unreserved characters as they are, every other
/// byte of the UTF-8 as `%XX`. One place for the single sign-on's URLs and forms and the second
/// factor's `otpauth://` label.
enum PercentEncoding {
    private static let hex = Array("0123456789ABCDEF")

    /// `text` encoded; `keeping` adds characters left as they are (an email's `@` in a label).
    static func encode(_ text: String, keeping: Set<UInt8> = []) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case _ where keeping.contains(byte):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out.append("%")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }

    /// Fields joined as `name=value&…`, each side encoded.
    static func form(_ fields: [(String, String)]) -> String {
        fields.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }
}
