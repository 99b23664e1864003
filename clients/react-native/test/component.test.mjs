// <XizorPaywall> and useXizorPaywall rendered by the real React (Debian's node-react and its test
// renderer) against a live server, with a stand-in for react-native-webview (test/stand-ins: there
// is no native web view in Node) on which the test plays the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import React from "react";
import TestRenderer from "react-test-renderer";
import { instances } from "react-native-webview";
import { AppState } from "react-native";
import { configure, XizorPaywall, useXizorPaywall, sharedXizor, setSharedXizor, Xizor } from "../dist/index.js";
import { LiveServer, freshStorage, eventually } from "./live-server.mjs";

globalThis.IS_REACT_ACT_ENVIRONMENT = true;
const { act } = TestRenderer;

async function render(element) {
  let renderer;
  await act(async () => {
    renderer = TestRenderer.create(element);
  });
  return renderer;
}

/** Lets React apply what resolved promises scheduled (the paywall arriving, a message handled). */
async function settle(condition, what) {
  const ok = await eventually(10, async () => {
    await act(async () => {});
    return condition();
  });
  assert.ok(ok, `waited for ${what}`);
}

/** The messages the app sent to the page, decoded from the injected scripts. */
const sentTo = (webView) => webView.injected.map((script) => JSON.parse(/receive\((.*)\);true;$/s.exec(script)[1]));
const hidden = (webView) => webView.props.style.some((style) => style && style.opacity === 0);

async function play(webView, message) {
  await act(async () => {
    await webView.props.onMessage({ nativeEvent: { data: JSON.stringify(message) } });
  });
}

test("the component loads the placement's page, answers the page through the web view and calls the app back", async () => {
  const server = await LiveServer.start({});
  try {
    const app = await server.app({ template: "cinematic" });
    // configure() reads the device from react-native (the stand-in: Android 14).
    const xizor = configure({ publicKey: app.publicKey, baseURL: server.base, storage: freshStorage(server), cacheTimeout: 5, appVersion: "1.2.3", events: { flushInterval: 3600 } });
    assert.equal(sharedXizor(), xizor);
    assert.equal(xizor.configuration.device.platform, "android");
    assert.equal(xizor.configuration.device.osVersion, "14", "Android's release, not its API level");

    const calls = [];
    const before = instances.length;
    const renderer = await render(
      React.createElement(XizorPaywall, {
        placement: "onboarding",
        subscriberId: "s1",
        locale: "en",
        style: { flex: 1 },
        products: async (paywall) => (calls.push(["products", paywall.paywallId]), { yearly: { price: "49,99 €" }, monthly: { price: "4,99 €" } }),
        onPurchase: async (slot, productId, _paywall, token) => (calls.push(["purchase", slot, productId, token]), "completed"),
        onRestore: () => void calls.push(["restore"]),
        onClose: () => calls.push(["close"]),
        onOpenURL: (url) => calls.push(["openURL", url]),
        onCustom: (name, payload) => calls.push(["custom", name, payload]),
        onReady: (paywall) => calls.push(["ready", paywall.version]),
        loading: React.createElement("Loading"),
        webViewProps: { testID: "paywall" },
      }),
    );
    assert.equal(renderer.toJSON().type, "Loading", "shown while the paywall loads");
    await settle(() => instances.length > before, "the web view");
    const webView = instances.at(-1);
    assert.match(webView.props.source.html, /^<!doctype html>/i, "the server's page");
    assert.equal(webView.props.source.baseUrl, server.base, "relative asset URLs resolve at the server");
    assert.equal(webView.props.testID, "paywall");
    assert.ok(hidden(webView), "hidden until the page has its products");
    assert.equal(renderer.toJSON().props.pointerEvents, "none", "and no touch reaches it: a tap on an empty screen must not buy");
    assert.equal(renderer.toJSON().children.at(-1).children[0].type, "Loading", "the loading view covers it meanwhile");

    await play(webView, { type: "ready", paywallId: app.paywallId, schemaVersion: 2, locale: "en" });
    await settle(() => !hidden(webView), "the page to be shown");
    assert.equal(renderer.toJSON().props.pointerEvents, "auto");
    assert.equal(renderer.toJSON().children.length, 1, "the loading cover is gone");
    assert.deepEqual(sentTo(webView)[0], { type: "products", products: { yearly: { price: "49,99 €" }, monthly: { price: "4,99 €" } } });

    await play(webView, { type: "purchase", slot: "yearly", storeProductId: "com.x.yearly", storeProductIds: { appStore: "com.x.yearly", googlePlay: "yearly_play" } });
    assert.deepEqual(sentTo(webView).slice(1), [
      { type: "purchase_state", state: "pending", slot: "yearly" },
      { type: "purchase_state", state: "completed", slot: "yearly" },
    ]);
    await play(webView, { type: "restore" });
    await play(webView, { type: "open_url", url: "https://example.com/terms" });
    await play(webView, { type: "custom", name: "show_faq", payload: { section: 2 } });
    await play(webView, { type: "event", name: "paywall_open", properties: {} });
    await play(webView, { type: "close" });

    // Navigation: the page's own load is allowed; afterwards a navigation is a link for the app.
    assert.equal(webView.props.onShouldStartLoadWithRequest({ url: server.base, isTopFrame: true }), true);
    webView.props.onLoadEnd();
    assert.equal(webView.props.onShouldStartLoadWithRequest({ url: "https://example.com/privacy", isTopFrame: true }), false);

    assert.deepEqual(calls, [
      ["products", app.paywallId],
      ["ready", 1],
      ["purchase", "yearly", "yearly_play", "6fd4f533-d712-5ef2-89bc-1b2176e91dd6"], // appAccountToken("s1")
      ["restore"],
      ["openURL", "https://example.com/terms"],
      ["custom", "show_faq", { section: 2 }],
      ["close"],
      ["openURL", "https://example.com/privacy"],
    ]);

    // The events reach the server, attributed to what was shown; going to the background flushes.
    assert.equal(await xizor.events.count(), 2);
    assert.equal(AppState.listenerCount, 1);
    AppState.emit("background");
    assert.ok(await eventually(10, async () => (await xizor.events.count()) === 0), "flushed on background");
    const analytics = await app.dashboard("GET", `/v1/paywalls/${app.paywallId}/analytics`, undefined, 200);
    assert.equal(analytics.versions[0].impressions, 1);
    assert.equal(analytics.versions[0].purchaseCompleted, 1);

    // New props that change what decides the answer load again; the same props do not.
    const requests = instances.length;
    await act(async () => {
      renderer.update(React.createElement(XizorPaywall, { placement: "nowhere", onError: (error) => calls.push(["error", error.reason.status]) }));
    });
    await settle(() => calls.at(-1)?.[0] === "error", "the error callback");
    assert.deepEqual(calls.at(-1), ["error", 404]);
    assert.equal(renderer.toJSON(), null, "nothing is shown for an error");
    assert.equal(instances.length, requests);
    await act(async () => renderer.unmount());
  } finally {
    setSharedXizor(undefined);
    await server.dispose();
  }
});

test("useXizorPaywall reloads when what decides the answer changes, not when a context object is remade", async () => {
  const server = await LiveServer.start({});
  const xizorClients = [];
  try {
    const app = await server.app();
    const other = await app.createPaywall("cinematic");
    await app.publish(other);
    await app.dashboard(
      "PUT",
      "/v1/placements/onboarding/rules",
      { rules: [{ when: { key: "context.source", op: "eq", value: "settings" }, paywallId: other }] },
      200,
    );
    const xizor = new Xizor({ publicKey: app.publicKey, baseURL: server.base, storage: freshStorage(server), cacheTimeout: 5, device: { platform: "ios" } });
    xizorClients.push(xizor);
    const states = [];
    function Probe({ source }) {
      const state = useXizorPaywall("onboarding", { xizor, format: "document", context: { source } });
      states.push(state.status === "ready" ? `${state.paywall.paywallId}:${state.paywall.source}` : state.status);
      return null;
    }
    const renderer = await render(React.createElement(Probe, { source: "home" }));
    await settle(() => states.at(-1) !== "loading", "the first answer");
    assert.equal(states.at(-1), `${app.paywallId}:network`);
    const settled = states.length;
    await act(async () => renderer.update(React.createElement(Probe, { source: "home" })));
    await act(async () => {});
    assert.ok(!states.slice(settled).includes("loading"), "a context object made anew with the same content does not reload");
    await act(async () => renderer.update(React.createElement(Probe, { source: "settings" })));
    await settle(() => states.at(-1).startsWith(other), "the rule's paywall");
    await act(async () => renderer.unmount());
  } finally {
    for (const client of xizorClients) client.close();
    await server.dispose();
  }
});
