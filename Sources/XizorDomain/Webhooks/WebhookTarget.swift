import Foundation
import Glibc

/// Where a delivery may go (docs/integrations.md, "Where deliveries may go"): the URL's form,
/// checked and made canonical when an endpoint is written, and each address a connection is about
/// to use, checked by the sender on every connection (so a name that resolves somewhere else later
/// cannot smuggle a request into the operator's network).
public enum WebhookTarget {
    /// The URL as stored — its scheme and host canonical (an IPv4 address in any spelling
    /// `inet_aton` accepts as a dotted quad, IPv6 compressed in brackets, a name in lower case
    /// without its trailing dot) — or a 422 with its path. A host that is an internal address
    /// literally, or `localhost` or a name under `.localhost` (RFC 6761: always loopback), is refused
    /// unless `allowPrivate`: the resolver would turn every such spelling into that address.
    static func validate(_ raw: String, allowPrivate: Bool, path: String = "$.url") throws -> String {
        let url = raw.trimmingCharacters(in: .whitespaces)
        guard url.utf8.count <= 2048, let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty,
            let split = Authority(url, schemeLength: scheme.utf8.count)
        else {
            throw ServiceError.badField(
                path, "invalid_url", "A webhook URL is an absolute http or https URL of at most 2,048 bytes.")
        }
        guard parts.user == nil, parts.password == nil, !split.host.contains("@") else {
            throw ServiceError.badField(
                path, "invalid_url", "A webhook URL carries no user or password; the signature authenticates.")
        }
        let canonical: Host
        do { canonical = try Host(split.host) } catch {
            throw ServiceError.badField(
                path, "invalid_url", "\(split.host) is not a host name, an IPv4 address or a bracketed IPv6 address.")
        }
        if !allowPrivate && canonical.isInternal {
            throw ServiceError.badField(
                path, "private_webhook_target",
                "\(split.host) (\(canonical.text)) is a loopback, private, link-local or otherwise internal address; set webhooks.allowPrivateTargets to allow it."
            )
        }
        return scheme + "://" + canonical.text + split.rest
    }

    /// A URL's host and what follows it (`:port/path?query#fragment`), found by hand so the host
    /// can be replaced byte for byte; nil when the URL has no `//` authority.
    private struct Authority {
        let host: String
        let rest: Substring

        init?(_ url: String, schemeLength: Int) {
            let afterScheme = url.utf8.index(url.startIndex, offsetBy: schemeLength)
            guard url[afterScheme...].hasPrefix("://") else { return nil }
            let start = url.index(afterScheme, offsetBy: 3)
            let end = url[start...].firstIndex(where: { "/?#".contains($0) }) ?? url.endIndex
            let authority = url[start..<end]
            // The host ends at a port's ':' (after the ']' of an IPv6 literal).
            let hostEnd: String.Index
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                hostEnd = authority.index(after: close)
            } else {
                hostEnd = authority.lastIndex(of: ":") ?? authority.endIndex
            }
            host = String(authority[..<hostEnd])
            rest = url[hostEnd...]
        }
    }

    /// A URL host in its canonical spelling.
    struct Host: Equatable {
        struct Invalid: Error {}
        /// As stored: `93.184.216.34`, `[2606:4700::1111]`, `hooks.example.com`.
        let text: String
        /// The address, when the host is one (4 or 16 bytes).
        let address: [UInt8]?

        init(_ raw: String) throws {
            if raw.hasPrefix("[") {
                // Brackets hold IPv6 only; a zone id (`%25eth0`) names an interface of this server.
                var v6 = in6_addr()
                guard raw.hasSuffix("]"), raw.count > 2,
                    inet_pton(AF_INET6, String(raw.dropFirst().dropLast()), &v6) == 1
                else {
                    throw Invalid()
                }
                let bytes = withUnsafeBytes(of: v6) { Array($0) }
                address = bytes
                text = "[" + WebhookTarget.text(bytes) + "]"
                return
            }
            var name = raw.lowercased()
            if name.hasSuffix(".") { name.removeLast() }  // the root: `localhost.` is `localhost`
            guard !name.isEmpty, name.utf8.count <= 253,
                name.utf8.allSatisfy({
                    ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d || $0 == 0x2e || $0 == 0x5f
                }),
                !name.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
            else { throw Invalid() }
            if let v4 = WebhookTarget.inetAton(name) {
                address = v4
                text = v4.map(String.init).joined(separator: ".")
                return
            }
            // A name whose last label is a number is an address that did not parse (`256.1.1.1`,
            // `1.2.3.4.5`, `0x1.0x100000000`), never a DNS name: refused rather than left to a resolver.
            if let last = name.split(separator: ".").last,
                last.allSatisfy(\.isNumber) || (last.hasPrefix("0x") && last.dropFirst(2).allSatisfy(\.isHexDigit))
            {
                throw Invalid()
            }
            address = nil
            text = name
        }

        /// Loopback, private, link-local and the like, or a name that is always loopback.
        var isInternal: Bool {
            if let address { return WebhookTarget.isPrivate(address) }
            return text == "localhost" || text.hasSuffix(".localhost")
        }
    }

    /// An IPv4 address as `inet_aton` reads it (and so every resolver libcurl may use): one to four
    /// parts separated by dots, each decimal, octal (a leading `0`) or hexadecimal (`0x`), the last
    /// part filling the bytes left (`127.1` is 127.0.0.1, `2130706433` and `0x7f000001` too).
    static func inetAton(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            guard let value = number(part) else { return nil }
            values.append(value)
        }
        guard values.dropLast().allSatisfy({ $0 <= 255 }), let last = values.last,
            last < (UInt64(1) << (8 * UInt64(5 - values.count)))
        else { return nil }
        var bytes = values.dropLast().map { UInt8($0) }
        let lastBytes = 4 - bytes.count
        for shift in stride(from: lastBytes - 1, through: 0, by: -1) {
            bytes.append(UInt8((last >> (8 * UInt64(shift))) & 0xff))
        }
        return bytes
    }

    /// One part of an `inet_aton` address; nil when it is not a number in its base, or past 32 bits.
    static func number(_ part: Substring) -> UInt64? {
        let lower = part.lowercased()
        let (digits, radix): (Substring, Int) =
            lower.hasPrefix("0x")
            ? (lower.dropFirst(2), 16)
            : lower.hasPrefix("0") && lower.count > 1 ? (lower.dropFirst(), 8) : (Substring(lower), 10)
        guard radix == 16 || !digits.isEmpty, digits.count <= 32 else { return nil }
        if digits.isEmpty { return 0 }  // `0x` alone is 0 to inet_aton
        guard let value = UInt64(digits, radix: radix), value <= UInt64(UInt32.max) else { return nil }
        return value
    }

    /// An IPv4 (4 bytes) or IPv6 (16 bytes) address written literally as a URL host, or nil for a name.
    /// `try?` on purpose: a host that does not parse as an address *is* a name (checked as one), not an error.
    static func literalAddress(_ host: String) -> [UInt8]? {
        (try? Host(host))?.address ?? (try? Host("[" + host + "]"))?.address
    }

    /// The address as `inet_ntop` writes it.
    static func text(_ address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 4 ? AF_INET : AF_INET6
        let ok = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) } != nil
        guard ok else { return "an internal address" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether an address (4 or 16 bytes, network order) is one a server's own network trusts.
    public static func isPrivate(_ a: [UInt8]) -> Bool {
        if a.count == 4 {
            switch (a[0], a[1]) {
            case (0, _), (10, _), (127, _): return true  // this network, private, loopback
            case (100, 64...127): return true  // carrier-grade NAT
            case (169, 254): return true  // link-local (cloud metadata)
            case (172, 16...31), (192, 168): return true  // private
            case (192, 0) where a[2] == 0: return true  // IETF protocol assignments
            case (198, 18...19): return true  // benchmarking
            default: return a[0] >= 224  // multicast, reserved, broadcast
            }
        }
        guard a.count == 16 else { return true }
        // v4-mapped
        if a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xff && a[11] == 0xff { return isPrivate(Array(a[12..<16])) }
        if a[0..<12].allSatisfy({ $0 == 0 }) { return true }  // ::, ::1, v4-compatible
        if a[0] & 0xfe == 0xfc { return true }  // unique local fc00::/7
        if a[0] == 0xfe && a[1] & 0xc0 == 0x80 { return true }  // link-local fe80::/10
        if a[0] == 0xff { return true }  // multicast
        // NAT64
        if a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b { return isPrivate(Array(a[12..<16])) }
        if a[0] == 0x20 && a[1] == 0x02 { return isPrivate(Array(a[2..<6])) }  // 6to4 carries an IPv4 address
        // Teredo: a tunnel, never a webhook host
        if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0 { return true }
        return false
    }
}
