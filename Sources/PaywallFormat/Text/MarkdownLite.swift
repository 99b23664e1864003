/// A run of text with the emphasis markdown-lite gives it.
public struct StyledSpan: Sendable, Hashable {
    public var text: String
    public var bold: Bool
    public var italic: Bool

    public init(text: String, bold: Bool = false, italic: Bool = false) {
        self.text = text
        self.bold = bold
        self.italic = italic
    }

    public var json: JSONValue { ["text": .string(text), "bold": .bool(bold), "italic": .bool(italic)] }
}

/// Parses markdown-lite: `**bold**`, `*em*`, `\*` for a literal asterisk — deliberately nothing more.
///
/// The algorithm (ported 1:1 to the page's JavaScript and pinned by Tests/Fixtures/parseMarkdownLite.json):
/// 1. Scan left to right: `\*` is a literal `*`; `**` is a bold marker; a single `*` is an italic marker;
///    everything else (including a `\` not before `*`) is text.
/// 2. Bold markers pair up in order (1st with 2nd, 3rd with 4th, …); so do italic markers. An unpaired
///    last marker is literal text (`**` or `*`).
/// 3. Each paired marker toggles its style; text takes the styles in force. Adjacent runs with the same
///    styles merge; empty runs are dropped.
public func parseMarkdownLite(_ text: String) -> [StyledSpan] {
    enum Token { case text(String), bold, italic }
    var tokens: [Token] = []
    var buffer = ""
    let scalars = Array(text.unicodeScalars)
    var i = 0
    func flush() {
        if !buffer.isEmpty {
            tokens.append(.text(buffer))
            buffer = ""
        }
    }
    while i < scalars.count {
        let c = scalars[i]
        if c == "\\", i + 1 < scalars.count, scalars[i + 1] == "*" {
            buffer.unicodeScalars.append("*")
            i += 2
        } else if c == "*" {
            flush()
            if i + 1 < scalars.count, scalars[i + 1] == "*" {
                tokens.append(.bold)
                i += 2
            } else {
                tokens.append(.italic)
                i += 1
            }
        } else {
            buffer.unicodeScalars.append(c)
            i += 1
        }
    }
    flush()
    let boldCount = tokens.reduce(0) { if case .bold = $1 { return $0 + 1 } else { return $0 } }
    let italicCount = tokens.reduce(0) { if case .italic = $1 { return $0 + 1 } else { return $0 } }
    let boldPaired = boldCount - boldCount % 2
    let italicPaired = italicCount - italicCount % 2
    var spans: [StyledSpan] = []
    var bold = false
    var italic = false
    var boldSeen = 0
    var italicSeen = 0
    func emit(_ s: String) {
        guard !s.isEmpty else { return }
        if let last = spans.last, last.bold == bold, last.italic == italic {
            spans[spans.count - 1].text += s
        } else {
            spans.append(StyledSpan(text: s, bold: bold, italic: italic))
        }
    }
    for token in tokens {
        switch token {
        case .text(let s): emit(s)
        case .bold:
            boldSeen += 1
            if boldSeen <= boldPaired { bold.toggle() } else { emit("**") }
        case .italic:
            italicSeen += 1
            if italicSeen <= italicPaired { italic.toggle() } else { emit("*") }
        }
    }
    return spans
}

/// The emphasis marks of a text: how many bold and italic pairs it has (what a translation must keep).
public struct MarkdownLiteMarks: Sendable, Hashable {
    public var boldPairs: Int
    public var italicPairs: Int

    public init(_ text: String) {
        var bold = 0
        var italic = 0
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            if scalars[i] == "\\", i + 1 < scalars.count, scalars[i + 1] == "*" {
                i += 2
                continue
            }
            if scalars[i] == "*" {
                if i + 1 < scalars.count, scalars[i + 1] == "*" {
                    bold += 1
                    i += 2
                } else {
                    italic += 1
                    i += 1
                }
                continue
            }
            i += 1
        }
        boldPairs = bold / 2
        italicPairs = italic / 2
    }
}
