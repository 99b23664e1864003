import Foundation
import Glibc

/// Where a delivery may go (docs/integrations.md, "Where deliveries may go"): the URL's form,
/// checked when an endpoint is written, and each address a connection is about to use, checked by
/// the sender on every connection (so a name that resolves somewhere else later cannot smuggle a
/// request into the operator's network).
public enum WebhookTarget {
    /// The URL as stored, or a 422 with its path.
    static func validate(_ raw: String, allowPrivate: Bool, path: String = "$.url") throws -> String {
        let url = raw.trimmingCharacters(in: .whitespaces)
        guard url.utf8.count <= 2048, let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty else {
            throw ServiceError.badField(path, "invalid_url", "A webhook URL is an absolute http or https URL of at most 2,048 bytes.")
        }
        guard parts.user == nil, parts.password == nil else {
            throw ServiceError.badField(path, "invalid_url", "A webhook URL carries no user or password; the signature authenticates.")
        }
        if !allowPrivate, let address = literalAddress(host), isPrivate(address) {
            throw ServiceError.badField(path, "private_webhook_target",
                                        "\(host) is a loopback, private, link-local or otherwise internal address; set webhooks.allowPrivateTargets to allow it.")
        }
        return url
    }

    /// An IPv4 (4 bytes) or IPv6 (16 bytes) address written literally as a URL host, or nil for a name.
    static func literalAddress(_ host: String) -> [UInt8]? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// Whether an address (4 or 16 bytes, network order) is one a server's own network trusts.
    public static func isPrivate(_ a: [UInt8]) -> Bool {
        if a.count == 4 {
            switch (a[0], a[1]) {
            case (0, _), (10, _), (127, _): return true                       // this network, private, loopback
            case (100, 64...127): return true                                 // carrier-grade NAT
            case (169, 254): return true                                      // link-local (cloud metadata)
            case (172, 16...31), (192, 168): return true                      // private
            case (192, 0) where a[2] == 0: return true                        // IETF protocol assignments
            case (198, 18...19): return true                                  // benchmarking
            default: return a[0] >= 224                                       // multicast, reserved, broadcast
            }
        }
        guard a.count == 16 else { return true }
        if a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xff && a[11] == 0xff { return isPrivate(Array(a[12..<16])) } // v4-mapped
        if a[0..<12].allSatisfy({ $0 == 0 }) { return true }                  // ::, ::1, v4-compatible
        if a[0] & 0xfe == 0xfc { return true }                                // unique local fc00::/7
        if a[0] == 0xfe && a[1] & 0xc0 == 0x80 { return true }                // link-local fe80::/10
        if a[0] == 0xff { return true }                                       // multicast
        if a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b { return isPrivate(Array(a[12..<16])) } // NAT64
        return false
    }
}
