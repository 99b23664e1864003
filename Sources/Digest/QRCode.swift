import CQRencode

/// A QR code as an SVG image, drawn from libqrencode's module matrix: an enrolment's `otpauth://`
/// URI, for an authenticator app's camera. Not written here: QR encoding is libqrencode's.
public enum QRCode {
    public enum Failure: Error, Equatable { case tooLong }

    /// The SVG of `text` (byte mode, error correction M), `scale` pixels per module with the
    /// standard quiet zone of four modules.
    public static func svg(_ text: String, scale: Int = 4) throws(Failure) -> String {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { throw .tooLong }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let size = (width + 8) * scale
        var path = ""
        for y in 0..<width {
            for x in 0..<width where code.pointee.data[y * width + x] & 1 == 1 {
                path += "M\((x + 4) * scale) \((y + 4) * scale)h\(scale)v\(scale)h-\(scale)z"
            }
        }
        return
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(size)\" height=\"\(size)\" viewBox=\"0 0 \(size) \(size)\" shape-rendering=\"crispEdges\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(path)\"/></svg>"
    }
}
