// The bridge's messages against the fixture XizorKit and the browser test share, and the host's
// side of the bridge driven with those messages against a live server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  BridgeError,
  PaywallBridge,
  Xizor,
  decodePageMessage,
  eventFromPage,
  hostMessageJSON,
  hostMessageScript,
} from "../dist/core.js";
import { LiveServer, freshStorage, eventually } from "./live-server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const fixture = JSON.parse(readFileSync(join(here, "../../swift/Tests/XizorKitTests/Fixtures/bridge-messages.json"), "utf8"));

/** The host messages as the fixture lists them, built through the package's types. */
export const HOST_MESSAGES = [
  {
    type: "products",
    products: {
      yearly: {
        title: "Yearly",
        price: "49,99 €",
        period: "year",
        pricePerWeek: "0,96 €",
        pricePerMonth: "4,17 €",
        introPrice: "0,00 €",
        introPeriod: "1 week",
        trialDays: 7,
        currency: "EUR",
        introEligible: true,
      },
    },
    timerStarts: { countdown: 1796000000000 },
    selected: "yearly",
  },
  { type: "purchase_state", state: "pending", slot: "yearly" },
  { type: "purchase_state", state: "completed" },
  { type: "timer_start", nodeId: "countdown", startedAt: 1796000000000 },
  { type: "dismiss" },
];

test("every page message of the fixture decodes, from a string as onMessage delivers it", () => {
  const decoded = fixture.page.map((message) => decodePageMessage(JSON.stringify(message)));
  assert.equal(decoded.length, 10);
  assert.deepEqual(decoded[0], {
    type: "ready",
    paywallId: "pw_1",
    schemaVersion: 2,
    locale: "en",
    attribution: { placement: "onboarding", paywallId: "pw_1", version: 3, experimentId: "ex_1", variant: "cinematic" },
  });
  assert.deepEqual(decoded[1], { type: "purchase", slot: "yearly", storeProductId: "com.example.yearly" });
  assert.deepEqual(decoded[2], { type: "restore" });
  assert.deepEqual(decoded[3], { type: "close" });
  assert.deepEqual(decoded[4], { type: "open_url", url: "https://example.com/terms" });
  assert.deepEqual(decoded[5], { type: "custom", name: "show_faq", payload: { section: 2 } });
  assert.deepEqual(decoded[6], { type: "timer_start", paywallId: "pw_1", nodeId: "countdown", durationSeconds: 900 });
  assert.equal(decoded[7].type, "event");
  assert.equal(decoded[7].name, "paywall_open");
  assert.equal(decoded[7].attribution.variant, "cinematic");
  assert.equal(decoded[7].attribution.version, 3);
  assert.ok(!decoded.some((message) => message.type === "unknown"));
  // Objects decode too; an unknown type is ignorable, a missing field is an error.
  assert.deepEqual(decodePageMessage({ type: "hologram" }), { type: "unknown", name: "hologram" });
  assert.throws(() => decodePageMessage('{"type":"purchase"}'), (error) => error instanceof BridgeError && error.reason.field === "slot");
  assert.throws(() => decodePageMessage('["type"]'), (error) => error.reason.kind === "notAnObject");
  assert.throws(() => decodePageMessage("{"), (error) => error.reason.kind === "notJSON");
});

test("a schema 3 purchase names this platform's store's product", () => {
  const message = JSON.stringify({
    type: "purchase",
    slot: "yearly",
    storeProductId: "com.example.yearly",
    storeProductIds: { appStore: "com.example.yearly", googlePlay: "yearly_sub" },
  });
  assert.equal(decodePageMessage(message, "googlePlay").storeProductId, "yearly_sub");
  assert.equal(decodePageMessage(message, "appStore").storeProductId, "com.example.yearly");
  const appStoreOnly = JSON.stringify({ type: "purchase", slot: "m", storeProductId: "ios.m", storeProductIds: { appStore: "ios.m" } });
  assert.equal(decodePageMessage(appStoreOnly, "googlePlay").storeProductId, "ios.m", "the page's own choice when the store has none");
});

test("every host message encodes to the fixture, and the script escapes line separators", () => {
  assert.deepEqual(HOST_MESSAGES.map(hostMessageJSON), fixture.host);
  assert.equal(
    hostMessageScript({ type: "purchase_state", state: "failed", slot: "a\u2028b" }),
    'window.xizor && window.xizor.receive({"type":"purchase_state","state":"failed","slot":"a\\u2028b"});true;',
  );
});

test("page events become queued events with their attribution", () => {
  const shown = {
    placement: "onboarding",
    paywallId: "pw_1",
    version: 3,
    schemaVersion: 2,
    locale: "en",
    page: "<html>",
    experiment: { id: "ex_1", variant: "cinematic", holdout: false },
    source: "network",
  };
  const open = eventFromPage(decodePageMessage(fixture.page[7]), undefined, "s1");
  assert.equal(open.name, "paywall_open");
  assert.equal(open.paywallId, "pw_1");
  assert.equal(open.version, 3);
  assert.equal(open.placement, "onboarding");
  assert.equal(open.experimentId, "ex_1");
  assert.equal(open.variant, "cinematic");
  assert.equal(open.subscriberId, "s1");
  assert.equal(open.properties, undefined);
  assert.match(open.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  // A page message without attribution takes the presentation's.
  const started = eventFromPage(decodePageMessage(fixture.page[8]), shown);
  assert.equal(started.paywallId, "pw_1");
  assert.equal(started.variant, "cinematic");
  assert.equal(started.properties.slot, "yearly");
});

test("the host answers every page message of the fixture against a live server", async () => {
  const server = await LiveServer.start({});
  const app = await server.app({ template: "cinematic" });
  const reports = [];
  const xizor = new Xizor(app.configuration(freshStorage(server), { events: { flushInterval: 3600, onReport: (r) => reports.push(r) } }));
  try {
    const { paywall } = await xizor.paywall("onboarding", { format: "page", subscriberId: "s1" });
    const injected = [];
    const calls = [];
    const bridge = new PaywallBridge({
      client: xizor,
      paywall,
      subscriberId: "s1",
      platform: "android",
      inject: (script) => injected.push(script),
      delegate: {
        products: async () => ({ yearly: { price: "49,99 €", period: "year" } }),
        purchase: async (slot, productId) => (calls.push(["purchase", slot, productId]), "completed"),
        restore: () => void calls.push(["restore"]),
        close: () => calls.push(["close"]),
        openURL: (url) => calls.push(["openURL", url]),
        custom: (name, payload) => calls.push(["custom", name, payload]),
        ready: () => calls.push(["ready"]),
        invalidMessage: (error) => calls.push(["invalid", error.message]),
      },
    });
    const sent = () => injected.map((script) => JSON.parse(/receive\((.*)\);true;$/s.exec(script)[1]));
    for (const message of fixture.page) await bridge.receive(JSON.stringify(message));
    await bridge.receive("not json");

    const messages = sent();
    assert.deepEqual(messages[0], { type: "products", products: { yearly: { price: "49,99 €", period: "year" } } });
    assert.deepEqual(messages[1], { type: "purchase_state", state: "pending", slot: "yearly" });
    assert.deepEqual(messages[2], { type: "purchase_state", state: "completed", slot: "yearly" });
    assert.equal(messages[3].type, "timer_start");
    assert.equal(messages[3].nodeId, "countdown");
    assert.equal(messages[3].startedAt, await xizor.timerStart("s1", paywall.paywallId, "countdown"), "the server's start");
    assert.equal(messages.length, 4);
    bridge.dismiss();
    assert.deepEqual(sent().at(-1), { type: "dismiss" });

    assert.deepEqual(calls, [
      ["ready"],
      ["purchase", "yearly", "com.example.yearly"],
      ["restore"],
      ["close"],
      ["openURL", "https://example.com/terms"],
      ["custom", "show_faq", { section: 2 }],
      ["invalid", "the message is not JSON"],
    ]);
    // purchase_completed (the host's), and the page's three events, queued with attribution.
    assert.equal(await xizor.events.count(), 4);
    await xizor.flush();
    assert.equal(await xizor.events.count(), 0);
    // The fixture's paywall_open carries its own attribution (pw_1, which this app does not have):
    // the server refuses that one and stores the three attributed to the paywall shown.
    const dropped = reports.filter((r) => r.kind === "dropped").flatMap((r) => r.events);
    assert.deepEqual(dropped.map((event) => [event.name, event.paywallId]), [["paywall_open", "pw_1"]]);
    assert.deepEqual(reports.filter((r) => r.kind === "delivered").map((r) => r.accepted), [3]);
    const analytics = await app.dashboard("GET", `/v1/paywalls/${paywall.paywallId}/analytics`, undefined, 200);
    const [version] = analytics.versions;
    assert.equal(version.purchaseStarted, 1, JSON.stringify(analytics));
    assert.equal(version.purchaseCompleted, 1, "the host's purchase_completed, attributed to the paywall shown");
  } finally {
    xizor.close();
    await server.dispose();
  }
});

test("a purchase whose handler throws is reported failed to the page and to analytics", async () => {
  const injected = [];
  const tracked = [];
  const bridge = new PaywallBridge({
    client: {
      track: async (event) => void tracked.push(event),
      timerStart: async () => 0,
      // A flush that fails must not fail the purchase either.
      flush: async () => {
        throw new Error("offline");
      },
    },
    paywall: { placement: "p", paywallId: "pw_1", version: 1, schemaVersion: 2, locale: "en", source: "network" },
    platform: "ios",
    inject: (script) => injected.push(script),
    delegate: {
      purchase: async () => {
        throw new Error("the store is down");
      },
      // Not async: throws synchronously, which must not stall the page either.
      products: () => {
        throw new Error("no products");
      },
    },
  });
  const warn = console.warn;
  console.warn = () => {};
  try {
    await bridge.receive({ type: "purchase", slot: "monthly" });
    await bridge.receive({ type: "ready" });
  } finally {
    console.warn = warn;
  }
  assert.match(injected.at(-2), /"state":"failed","slot":"monthly"/);
  assert.equal(injected.at(-1), 'window.xizor && window.xizor.receive({"type":"products","products":{}});true;', "answered with no products");
  assert.deepEqual(tracked.map((event) => [event.name, event.properties]), [["purchase_failed", { slot: "monthly" }]]);
});
