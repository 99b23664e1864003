// The fetch chain against live servers: network, 304 revalidation, cache, bundled fallback, typed
// errors (XizorKit's PaywallTests, case for case).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Xizor, XizorError } from "../dist/core.js";
import { withServer, freshStorage, eventually, sleep } from "./live-server.mjs";

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

test("revalidates with If-None-Match and sees a publish on the next fetch", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const xizor = track(new Xizor(app.configuration(freshStorage(server))));
    const first = await xizor.paywall("onboarding", { locale: "en" });
    assert.equal(first.kind, "paywall");
    assert.equal(first.paywall.source, "network");
    assert.equal(first.paywall.paywallId, app.paywallId);
    assert.equal(first.paywall.version, 1);
    assert.equal(first.paywall.schemaVersion, 2);
    assert.equal(first.paywall.document.schemaVersion, 2);
    assert.ok(first.paywall.etag);
    const second = await xizor.paywall("onboarding", { locale: "en" });
    assert.equal(second.paywall.source, "revalidated");
    assert.equal(second.paywall.etag, first.paywall.etag);
    assert.deepEqual(second.paywall.document, first.paywall.document);

    await app.publish(app.paywallId, "second");
    const third = await xizor.paywall("onboarding", { locale: "en" });
    assert.equal(third.paywall.source, "network");
    assert.equal(third.paywall.version, 2);
    assert.notEqual(third.paywall.etag, first.paywall.etag);
  }));

test("starts offline from the cache a previous launch stored", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const storage = freshStorage(server);
    const online = track(new Xizor(app.configuration(storage)));
    await online.preload(["onboarding"], { locale: "en" });
    await server.stop();

    // A new launch: nothing in memory, the server refuses connections.
    const offline = track(new Xizor(app.configuration(storage)));
    const started = Date.now();
    const answer = await offline.paywall("onboarding", { locale: "en" });
    assert.equal(answer.paywall.source, "cache");
    assert.equal(answer.paywall.paywallId, app.paywallId);
    assert.equal(answer.paywall.version, 1);
    assert.ok(Date.now() - started < 2000, "a refused connection falls back at once");
    // Another request (another locale) has nothing cached and no bundle: a typed error.
    const error = await rejection(offline.paywall("onboarding", { locale: "de" }));
    assert.ok(error instanceof XizorError);
    assert.equal(error.reason.kind, "unavailable");
  }));

test("a first launch with the server down uses the bundled fallback", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const bundle = await server.request("GET", "/v1/sdk/fallback-bundle", app.publicKey, undefined, {
      "X-Xizor-Schema-Version": "2",
    });
    assert.equal(bundle.status, 200);
    await server.stop();

    const xizor = track(new Xizor(app.configuration(freshStorage(server), { fallbackBundle: bundle.json })));
    const answer = await xizor.paywall("onboarding");
    assert.equal(answer.paywall.source, "fallback");
    assert.equal(answer.paywall.paywallId, app.paywallId);
    assert.equal(answer.paywall.version, 1);
    assert.equal(answer.paywall.document.schemaVersion, 2);

    const bare = track(new Xizor(app.configuration(freshStorage(server))));
    assert.equal((await rejection(bare.paywall("onboarding"))).reason.kind, "unavailable");

    // A renderer that reads only schema 1 cannot use this (schema 2) bundle: a typed error, never a
    // document it cannot read.
    const old = track(new Xizor(app.configuration(freshStorage(server), { fallbackBundle: bundle.json, schemaVersion: 1 })));
    assert.equal((await rejection(old.paywall("onboarding"))).reason.kind, "unavailable");
  }));

test("a slow server (SIGSTOP) gets the cached answer at the timeout, then revalidates in the background", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const xizor = track(new Xizor(app.configuration(freshStorage(server), { cacheTimeout: 0.5 })));
    const first = await xizor.paywall("onboarding");
    await app.publish(app.paywallId, "while paused");

    await server.pause();
    const started = Date.now();
    const answer = await xizor.paywall("onboarding");
    const waited = (Date.now() - started) / 1000;
    assert.equal(answer.paywall.source, "cache");
    assert.equal(answer.paywall.version, first.paywall.version);
    assert.ok(waited >= 0.4 && waited < 3, `waited ${waited} s for a cacheTimeout of 0.5 s`);
    server.resume();

    // The request that lost the race finished in the background and stored version 2, so the next
    // fetch revalidates that copy: a 304 with version 2.
    const updated = await eventually(10, async () => {
      const next = await xizor.paywall("onboarding");
      return next.paywall.version === 2 && next.paywall.source === "revalidated";
    });
    assert.ok(updated);
  }));

test("a slow server with nothing cached is waited for", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const xizor = track(new Xizor(app.configuration(freshStorage(server))));
    await server.pause();
    const resumed = sleep(1200).then(() => server.resume());
    const answer = await xizor.paywall("onboarding");
    assert.equal(answer.paywall.source, "network");
    await resumed;
  }));

test("the schema version is sent and the downgraded form is cached apart", () =>
  withServer({}, async (server, track) => {
    const app = await server.app({ template: "cinematic" });
    const storage = freshStorage(server);
    const old = track(new Xizor(app.configuration(storage, { schemaVersion: 1 })));
    const downgraded = await old.paywall("onboarding", { colorScheme: "dark" });
    assert.equal(downgraded.paywall.schemaVersion, 1);
    assert.equal(downgraded.paywall.document.schemaVersion, 1);

    const current = track(new Xizor(app.configuration(storage)));
    const full = await current.paywall("onboarding", { colorScheme: "dark" });
    assert.equal(full.paywall.source, "network", "a schema 1 answer must not stand in for schema 2");
    assert.equal(full.paywall.schemaVersion, 2);
    assert.notEqual(full.paywall.etag, downgraded.paywall.etag);
  }));

test("a 4xx is a rejection, not a fallback, and removes the cached entry", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const storage = freshStorage(server);
    const xizor = track(new Xizor(app.configuration(storage)));
    const unknown = await rejection(xizor.paywall("nowhere"));
    assert.ok(unknown instanceof XizorError && unknown.isRejection);
    assert.equal(unknown.reason.status, 404);
    assert.equal(unknown.reason.code, "placement_not_found");

    const wrongKey = track(new Xizor(app.configuration(freshStorage(server), { publicKey: "pk_wrong" })));
    assert.equal((await rejection(wrongKey.paywall("onboarding"))).reason.kind, "rejected");

    // Cached, then the placement is deleted: the server's 404 wins over the cached copy …
    await xizor.paywall("onboarding");
    const cachedKeys = (await storage.getAllKeys()).filter((key) => key.startsWith("xizor:paywall:"));
    assert.equal(cachedKeys.length, 1);
    const deleted = await server.request("DELETE", "/v1/placements/onboarding", app.secretKey);
    assert.ok(deleted.status === 200 || deleted.status === 204, `delete answered ${deleted.status}`);
    const gone = await rejection(xizor.paywall("onboarding"));
    assert.equal(gone.reason.kind, "rejected");
    assert.equal(gone.reason.status, 404);
    // … and the entry is gone: a later launch without the network has nothing to show.
    assert.deepEqual((await storage.getAllKeys()).filter((key) => key.startsWith("xizor:paywall:")), []);
    await server.stop();
    const relaunched = track(new Xizor(app.configuration(storage)));
    assert.equal((await rejection(relaunched.paywall("onboarding"))).reason.kind, "unavailable");
  }));

test("pages carry what was served and revalidate", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const xizor = track(new Xizor(app.configuration(freshStorage(server))));
    const page = await xizor.paywall("onboarding", { locale: "en", format: "page" });
    assert.match(page.paywall.page, /^<!doctype html>/i);
    assert.equal(page.paywall.paywallId, app.paywallId);
    assert.equal(page.paywall.version, 1);
    assert.equal(page.paywall.locale, "en");
    assert.equal(page.paywall.schemaVersion, 2);
    const again = await xizor.paywall("onboarding", { locale: "en", format: "page" });
    assert.equal(again.paywall.source, "revalidated");
    assert.equal(again.paywall.page, page.paywall.page);
  }));

test("rules see the device headers and the stored subscriber attributes", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const upgrade = await app.createPaywall("cinematic");
    await app.publish(upgrade);
    const { XIZOR_REACT_NATIVE_VERSION } = await import("../dist/core.js");
    await app.dashboard(
      "PUT",
      "/v1/placements/onboarding/rules",
      {
        rules: [
          {
            when: {
              all: [
                { key: "device.appVersion", op: "semver_gte", value: "3.0.0" },
                { key: "device.sdkVersion", op: "eq", value: XIZOR_REACT_NATIVE_VERSION },
                { key: "device.platform", op: "eq", value: "android" },
                { key: "device.osVersion", op: "exists" },
                { key: "device.locale", op: "eq", value: "de-AT" },
              ],
            },
            paywallId: upgrade,
          },
          { when: { key: "subscriber.plan", op: "eq", value: "pro" }, paywallId: upgrade },
        ],
      },
      200,
    );
    const device = (appVersion) => ({ platform: "android", osVersion: "34", locale: "de-AT", appVersion });
    const oldApp = track(new Xizor(app.configuration(freshStorage(server), { device: device("2.9.1") })));
    assert.equal((await oldApp.paywall("onboarding")).paywall.paywallId, app.paywallId);
    const newApp = track(new Xizor(app.configuration(freshStorage(server), { device: device("3.0.0") })));
    assert.equal((await newApp.paywall("onboarding")).paywall.paywallId, upgrade, "the device headers reached the rule");

    await oldApp.setAttributes({ plan: "pro", seats: 3 }, "user/1");
    const stored = await app.dashboard("GET", "/v1/subscribers/user%2F1/attributes", undefined, 200);
    assert.deepEqual(stored.attributes, { plan: "pro", seats: 3 });
    assert.equal((await oldApp.paywall("onboarding", { subscriberId: "user/1" })).paywall.paywallId, upgrade);
    assert.equal((await oldApp.paywall("onboarding", { subscriberId: "user-2" })).paywall.paywallId, app.paywallId);
    const refused = await rejection(oldApp.setAttributes({ "not a key": 1 }, "user/1"));
    assert.equal(refused.reason.kind, "rejected");
  }));
