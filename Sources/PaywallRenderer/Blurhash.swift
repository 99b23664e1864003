/// Just enough BlurHash on the server for a placeholder colour: the hash's DC component is the image's
/// average colour (sRGB, 4 base-83 digits after the size and max-AC digits). The page's runtime decodes
/// the full hash into a 32×32 canvas over that colour.
enum Blurhash {
    static let alphabet = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    static func digit(_ b: UInt8) -> Int? { alphabet.firstIndex(of: b) }

    /// Length matches the component count in its first digit, and every character is base 83.
    static func isWellFormed(_ hash: String) -> Bool {
        let u = Array(hash.utf8)
        guard u.count >= 6, u.count <= 128, let size = digit(u[0]), u.allSatisfy({ digit($0) != nil }) else {
            return false
        }
        let nx = size % 9 + 1
        let ny = size / 9 + 1
        return u.count == 4 + 2 * nx * ny
    }

    /// `#rrggbb`, or nil for a malformed hash.
    static func averageColor(_ hash: String) -> String? {
        guard isWellFormed(hash) else { return nil }
        let u = Array(hash.utf8)
        var value = 0
        for b in u[2..<6] { value = value * 83 + (digit(b) ?? 0) }
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [0x23]
        for shift in [20, 16, 12, 8, 4, 0] { out.append(hex[(value >> shift) & 0xF]) }
        return String(decoding: out, as: UTF8.self)
    }
}
