import Digest
import Foundation
import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Preview links: signed, expiring, bound to their app and paywall, shared by every process.
@Suite struct PreviewLinkTests {
    @Test(arguments: Driver.allCases)
    func aLinkShowsItsPreviewUntilItExpiresAndCannotBeAltered(driver: Driver) throws {
        let clock = TestClock(1_800_000_000_000)
        let test = try TestServices("preview-links", driver: driver, clock: clock.clock)
        defer { test.remove() }
        let app = try test.services.keys.createApp(name: "Links").appID
        let paywall = try test.services.paywalls.create(appID: app, from: .template("cinematic", name: "Offer")).id
        let previews = PreviewService(services: test.services, pages: PageRendering(lottiePlayerURL: nil))
        let links = test.services.previewLinks
        let key = try test.services.keys.createKey(appID: app, .init(kind: "secret")).info.id
        let link = try links.create(
            appID: app, paywallID: paywall, keyID: key, options: ["locale": "de", "colorScheme": "dark"],
            previews: previews)
        #expect(link.path.hasPrefix("/v1/previews/") && link.expiresAt == clock.now + PreviewLinks.lifetimeMs)
        let token = String(link.path.dropFirst("/v1/previews/".count))
        let opened = try links.open(token)
        #expect(
            opened.appID == app && opened.paywallID == paywall && opened.options.locale == "de"
                && opened.options.colorScheme == .dark)
        // Another process on the same database reads the same secret and serves the link.
        let second = try test.second()
        defer { second.store.close() }
        #expect(try second.previewLinks.open(token).paywallID == paywall)
        // Any change to the token, and expiry, make it unknown.
        let body = token.split(separator: ".")[0]
        let mac = token.split(separator: ".")[1]
        let otherBody = Base64URL.encode(Array(#"{"a":"x","e":9999999999999,"o":{},"p":"y"}"#.utf8))
        for forged in [
            otherBody + "." + mac, body + "." + String(repeating: "0", count: mac.count), String(body), token + "x", "",
        ] {
            #expect(failsWith("preview_link_not_found") { _ = try links.open(forged) }, "\(forged.prefix(20))")
        }
        clock.advance(byMs: PreviewLinks.lifetimeMs)
        #expect(failsWith("preview_link_not_found") { _ = try links.open(token) })
        // Options are checked, and the paywall must be the app's, before a link is made.
        #expect(
            failsWith("invalid_color_scheme") {
                _ = try links.create(
                    appID: app, paywallID: paywall, keyID: key, options: ["colorScheme": "sepia"], previews: previews)
            })
        let other = try test.services.keys.createApp(name: "Other").appID
        #expect(
            failsWith("paywall_not_found") {
                _ = try links.create(appID: other, paywallID: paywall, keyID: key, options: [:], previews: previews)
            })
    }

    /// Finding 8 of issue 35: a link works only while the key that made it, its paywall and its app
    /// are live (revoking a leaked key must end its links at once, not after ten minutes).
    @Test(arguments: Driver.allCases)
    func aLinkEndsWithItsKeyItsPaywallAndItsApp(driver: Driver) throws {
        let test = try TestServices("preview-links", driver: driver)
        defer { test.remove() }
        let app = try test.services.keys.createApp(name: "Links").appID
        let paywalls = try (0..<2).map { _ in
            try test.services.paywalls.create(appID: app, from: .template("clean", name: "Offer")).id
        }
        let previews = PreviewService(services: test.services, pages: PageRendering(lottiePlayerURL: nil))
        let links = test.services.previewLinks
        func token(_ paywall: String, key: String) throws -> String {
            String(
                try links.create(appID: app, paywallID: paywall, keyID: key, options: [:], previews: previews).path
                    .dropFirst("/v1/previews/".count))
        }
        let keys = try (0..<2).map { _ in try test.services.keys.createKey(appID: app, .init(kind: "secret")).info.id }
        let byRevoked = try token(paywalls[0], key: keys[0])
        let byLive = try token(paywalls[0], key: keys[1])
        #expect(try links.open(byRevoked).paywallID == paywalls[0])
        try test.services.keys.revokeKey(appID: app, keyID: keys[0])
        #expect(failsWith("preview_link_not_found") { _ = try links.open(byRevoked) })
        #expect(try links.open(byLive).paywallID == paywalls[0], "another key's link is unaffected")
        let other = try token(paywalls[1], key: keys[1])
        _ = try test.services.paywalls.archive(appID: app, id: paywalls[0])
        #expect(failsWith("preview_link_not_found") { _ = try links.open(byLive) })
        #expect(try links.open(other).paywallID == paywalls[1])
        try test.services.keys.archiveApp(appID: app)
        #expect(failsWith("preview_link_not_found") { _ = try links.open(other) })
    }
}
