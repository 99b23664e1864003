import Foundation
import Testing

@testable import XizorKit

/// The fetch chain against a live server: network, 304 revalidation, disk cache, bundled fallback.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct PaywallTests {
    @Test func revalidatesWithIfNoneMatchAndSeesAPublishOnTheNextFetch() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let xizor = try Xizor(configuration: app.configuration(cache: freshCache(server)))

        let first = try #require(try await xizor.paywall(for: "onboarding", locale: "en").paywall)
        #expect(first.source == .network && first.paywallId == app.paywallId && first.version == 1)
        #expect(first.schemaVersion == 2 && first.document?["schemaVersion"]?.intValue == 2)
        let etag = try #require(first.etag)
        let second = try #require(try await xizor.paywall(for: "onboarding", locale: "en").paywall)
        #expect(second.source == .revalidated && second.etag == etag && second.document == first.document)

        try await app.publish(app.paywallId, marker: "second")
        let third = try #require(try await xizor.paywall(for: "onboarding", locale: "en").paywall)
        #expect(third.source == .network && third.version == 2 && third.etag != etag)
    }

    @Test func startsOfflineFromTheDiskCache() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let cache = freshCache(server)
        let online = try Xizor(configuration: app.configuration(cache: cache))
        await online.preload(placements: ["onboarding"], locale: "en")
        server.stop()

        // A new launch: nothing in memory, the server refuses connections.
        let offline = try Xizor(configuration: app.configuration(cache: cache))
        let started = Date()
        let answer = try #require(try await offline.paywall(for: "onboarding", locale: "en").paywall)
        #expect(answer.source == .cache && answer.paywallId == app.paywallId && answer.version == 1)
        #expect(Date().timeIntervalSince(started) < 2, "a refused connection falls back at once")
        // A different request (another locale) has nothing cached and no bundle: a typed error.
        await #expect(throws: XizorError.self) { try await offline.paywall(for: "onboarding", locale: "de") }
    }

    @Test func firstLaunchWithTheServerDownUsesTheBundledFallback() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let bundle = try await server.request(
            "GET", "/v1/sdk/fallback-bundle", key: app.publicKey,
            headers: ["X-Xizor-Schema-Version": "2"])
        #expect(bundle.status == 200)
        let file = server.directory.appendingPathComponent("fallback.json")
        try bundle.body.write(to: file)
        server.stop()

        let xizor = try Xizor(configuration: app.configuration(cache: freshCache(server)) { $0.fallbackBundle = file })
        let answer = try #require(try await xizor.paywall(for: "onboarding").paywall)
        #expect(answer.source == .fallback && answer.paywallId == app.paywallId && answer.version == 1)
        #expect(answer.document?["schemaVersion"]?.intValue == 2)

        let bare = try Xizor(configuration: app.configuration(cache: freshCache(server)))
        await #expect(throws: XizorError.self) { try await bare.paywall(for: "onboarding") }

        // An app whose renderer reads only schema 1 cannot use this (schema 2) bundle: the entry
        // is skipped, the answer is a typed error, never a document it cannot read.
        let old = try Xizor(
            configuration: app.configuration(cache: freshCache(server)) {
                $0.fallbackBundle = file
                $0.schemaVersion = 1
            })
        do {
            _ = try await old.paywall(for: "onboarding")
            Issue.record("a schema 2 fallback was served to a schema 1 client")
        } catch let error as XizorError {
            guard case .unavailable = error else {
                Issue.record("expected unavailable, got \(error)")
                return
            }
        }
    }

    @Test func aSlowServerGetsTheCachedAnswerInTimeThenRevalidatesInTheBackground() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let xizor = try Xizor(configuration: app.configuration(cache: freshCache(server)) { $0.cacheTimeout = 0.5 })
        let first = try #require(try await xizor.paywall(for: "onboarding").paywall)
        try await app.publish(app.paywallId, marker: "while paused")

        server.pause()
        let started = Date()
        let answer = try #require(try await xizor.paywall(for: "onboarding").paywall)
        let waited = Date().timeIntervalSince(started)
        #expect(
            answer.source == .cache && answer.version == first.version,
            "answered from \(answer.source), version \(answer.version)")
        #expect(waited >= 0.4 && waited < 3, "waited \(waited) s for a cacheTimeout of 0.5 s")
        server.resume()

        // The request that lost the race finished in the background and stored version 2, so
        // the next fetch revalidates *that* copy: a 304 with version 2.
        let updated = try await eventually {
            guard let next = try await xizor.paywall(for: "onboarding").paywall else { return false }
            return next.version == 2 && next.source == .revalidated
        }
        #expect(updated)
    }

    @Test func aSlowServerWithNothingCachedIsWaitedFor() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let xizor = try Xizor(configuration: app.configuration(cache: freshCache(server)))
        server.pause()
        let resumer = Task {
            try await Task.sleep(nanoseconds: 1_200_000_000)
            server.resume()
        }
        let answer = try #require(try await xizor.paywall(for: "onboarding").paywall)
        #expect(answer.source == .network)
        try await resumer.value
    }

    @Test func schemaVersionIsSentAndTheDowngradedFormIsCachedApart() async throws {
        let server = try LiveServer()
        let app = try await server.app(template: "cinematic")
        let cache = freshCache(server)
        let old = try Xizor(configuration: app.configuration(cache: cache) { $0.schemaVersion = 1 })
        let downgraded = try #require(try await old.paywall(for: "onboarding", colorScheme: .dark).paywall)
        #expect(downgraded.schemaVersion == 1 && downgraded.document?["schemaVersion"]?.intValue == 1)

        let current = try Xizor(configuration: app.configuration(cache: cache))
        let full = try #require(try await current.paywall(for: "onboarding", colorScheme: .dark).paywall)
        #expect(full.source == .network, "a schema 1 answer must not stand in for schema 2")
        #expect(full.schemaVersion == 2 && full.etag != downgraded.etag)
    }

    @Test func definitiveAnswersAreErrorsNotFallbacks() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let xizor = try Xizor(configuration: app.configuration(cache: freshCache(server)))
        do {
            _ = try await xizor.paywall(for: "nowhere")
            Issue.record("an unknown placement answered")
        } catch let error as XizorError {
            #expect(error == .rejected(status: 404, code: "placement_not_found", detail: error.detail))
        }
        let wrongKey = try Xizor(
            configuration: app.configuration(cache: freshCache(server)) { $0.publicKey = "pk_wrong" })
        await #expect(throws: XizorError.self) { try await wrongKey.paywall(for: "onboarding") }
    }

    @Test func pagesCarryWhatWasServed() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let xizor = try Xizor(configuration: app.configuration(cache: freshCache(server)))
        let page = try #require(try await xizor.paywall(for: "onboarding", locale: "en", format: .page).paywall)
        #expect(page.page?.hasPrefix("<!DOCTYPE html>") == true || page.page?.hasPrefix("<!doctype html>") == true)
        #expect(page.paywallId == app.paywallId && page.version == 1 && page.locale == "en" && page.schemaVersion == 2)
        let again = try #require(try await xizor.paywall(for: "onboarding", locale: "en", format: .page).paywall)
        #expect(again.source == .revalidated && again.page == page.page, "\(again.source)")
    }
}

extension XizorError {
    var detail: String? { if case .rejected(_, _, let detail) = self { return detail } else { return nil } }
}
