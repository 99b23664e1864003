/// Iterates the comma-separated elements of a field value, trimmed of optional whitespace.
enum HeaderValueList {
    static func forEachElement(_ value: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        var i = 0
        while i <= value.count {
            if i == value.count || value[i] == UInt8(ascii: ",") {
                var s = start
                var e = i
                while s < e, ByteClass.isWhitespace(value[s]) { s += 1 }
                while e > s, ByteClass.isWhitespace(value[e - 1]) { e -= 1 }
                body(UnsafeBufferPointer(rebasing: value[s..<e]))
                start = i + 1
            }
            i += 1
        }
    }
}
