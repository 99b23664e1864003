import Testing

@testable import HTTP

/// The parser's record of where the standard fields are (`HTTPRequestHeaders.StandardIndex`)
/// answers what a scan of the names would, for each field: absent, once, several times (every
/// value visited, in order), in any case, and past the index the record can hold.
@Suite struct StandardFieldsTests {
    /// Every value of `field` by the record and by name, for the request parsed from `head`.
    private func both(_ field: HTTPRequestHeaders.Standard, _ headers: HTTPRequestHeaders) -> ([String], [String]) {
        var recorded: [String] = []
        headers.forEachValue(of: field) { recorded.append(String(decoding: $0, as: UTF8.self)) }
        var named: [String] = []
        headers.forEachValue(ofLowercased: field.lowercasedName) { named.append(String(decoding: $0, as: UTF8.self)) }
        return (recorded, named)
    }

    private func parsed(_ fields: [(String, String)], limits: HTTPParserLimits = HTTPParserLimits()) throws
        -> HTTPRequestHeaders
    {
        var text = "GET /v1/sdk/placements/onboarding/paywall HTTP/1.1\r\nHost: x\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        guard case .request(let request, _) = parseOne(text, limits: limits, byteByByte: false) else {
            throw ParseFailure()
        }
        return request.headers
    }
    private struct ParseFailure: Error {}

    @Test func recordedLookupsAgreeWithLookupsByName() throws {
        let cases: [[(String, String)]] = [
            [],
            [("Authorization", "Bearer pk_1"), ("Accept-Encoding", "gzip"), ("If-None-Match", "\"a\"")],
            [("ACCEPT", "application/json"), ("accept-language", "de"), ("X-Xizor-Nonce", "n")],
            [("Accept-Encoding", "br"), ("X-Other", "1"), ("accept-encoding", "gzip;q=0.5"), ("Accept-Encoding", "x")],
            [("If-None-Match", "\"a\""), ("If-None-Match", "\"b\""), ("Authorization", "Bearer one")],
            [("Accept-Language", "fr"), ("Accept-Charset", "utf-8"), ("Acceptx", "no"), ("Authorizatio", "no")],
        ]
        for fields in cases {
            let headers = try parsed(fields)
            for field in HTTPRequestHeaders.Standard.allCases {
                let (recorded, named) = both(field, headers)
                #expect(recorded == named, "\(field) in \(fields)")
                #expect(headers[field] == named.first, "\(field) in \(fields)")
                let first = headers.withFirstValue(of: field) { $0.map { String(decoding: $0, as: UTF8.self) } }
                #expect(first == named.first, "\(field) in \(fields)")
            }
        }
        // A name that is one of them is found whatever its case; one byte off, it is not.
        let headers = try parsed([("aUtHoRiZaTiOn", "Bearer k"), ("Accept-Encodinh", "gzip")])
        #expect(headers[.authorization] == "Bearer k")
        #expect(headers[.acceptEncoding] == nil)
    }

    /// Past index 126 the record holds "look by name": the answer is still the scan's.
    @Test func fieldsPastTheRecordedIndexAreFoundByName() throws {
        var fields = (0..<130).map { ("X-Filler-\($0)", "v") }
        fields.append(("If-None-Match", "\"late\""))
        fields.append(("Accept-Encoding", "gzip"))
        fields.insert(("Accept", "text/html"), at: 3)
        let headers = try parsed(fields, limits: HTTPParserLimits(maxHeaderFields: 200))
        #expect(headers.standard.entry(.ifNoneMatch) == .unrecorded)
        #expect(headers.standard.entry(.accept) == .at(4))
        for field in HTTPRequestHeaders.Standard.allCases {
            let (recorded, named) = both(field, headers)
            #expect(recorded == named, "\(field)")
        }
        #expect(headers[.ifNoneMatch] == "\"late\"" && headers[.acceptEncoding] == "gzip")
    }

    @Test func theRecordNotesFirstIndexAndRepetition() {
        var index = HTTPRequestHeaders.StandardIndex()
        #expect(index.entry(.authorization) == .absent)
        index.record(.authorization, at: 2)
        index.record(.accept, at: 0)
        #expect(index.entry(.authorization) == .at(2) && index.entry(.accept) == .at(0))
        index.record(.authorization, at: 5)
        #expect(index.entry(.authorization) == .repeated(first: 2) && index.entry(.accept) == .at(0))
        index.record(.ifNoneMatch, at: 126)
        #expect(index.entry(.ifNoneMatch) == .unrecorded)
        index.record(.acceptLanguage, at: 125)
        #expect(index.entry(.acceptLanguage) == .at(125))
        #expect(index.entry(.acceptEncoding) == .absent)
    }
}
