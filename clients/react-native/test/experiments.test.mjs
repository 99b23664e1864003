// Experiments through the client (XizorKit's ExperimentTests): sticky assignment, events attributed
// to the variant shown, and the holdout as an answer, cached like any other; the component reports it.
import { test } from "node:test";
import assert from "node:assert/strict";
import React from "react";
import TestRenderer from "react-test-renderer";
import { Xizor, XizorEvents } from "../dist/core.js";
import { XizorPaywall } from "../dist/index.js";
import { LiveServer, freshStorage, eventually } from "./live-server.mjs";

globalThis.IS_REACT_ACT_ENVIRONMENT = true;

async function experiment(app, body) {
  const created = await app.dashboard("POST", "/v1/experiments", body, 201);
  await app.dashboard("PUT", "/v1/placements/onboarding", { experimentId: created.id }, 200);
  await app.dashboard("POST", `/v1/experiments/${created.id}/start`, undefined, 200);
  return created.id;
}

test("assignment is sticky and events are attributed to the variant shown", async () => {
  const server = await LiveServer.start({});
  const clients = [];
  try {
    const app = await server.app();
    const challenger = await app.createPaywall("cinematic");
    await app.publish(challenger);
    const experimentId = await experiment(app, {
      variants: [
        { paywallId: app.paywallId, weight: 50 },
        { paywallId: challenger, weight: 50, name: "cinematic" },
      ],
    });
    const xizor = new Xizor(app.configuration(freshStorage(server)));
    clients.push(xizor);
    const variants = {};
    for (let index = 0; index < 16; index += 1) {
      const subscriberId = `subscriber-${index}`;
      const first = (await xizor.paywall("onboarding", { subscriberId })).paywall;
      const again = (await xizor.paywall("onboarding", { subscriberId })).paywall;
      assert.equal(first.experiment.id, experimentId);
      // Bucketed on the device from the cacheable allocation (WebCrypto is there), with the server's
      // own function: the variant is the one the server assigns this subscriber.
      assert.equal(first.experiment.assignment, "client");
      const assigned = await server.request("GET", `/v1/sdk/placements/onboarding/paywall?subscriberId=${subscriberId}`, app.publicKey, undefined, { Accept: "application/json" });
      assert.equal(assigned.json.experiment.assignment, "bucket");
      assert.equal(first.experiment.variant, assigned.json.experiment.variant);
      assert.equal(again.source, "revalidated");
      assert.deepEqual(again.experiment, first.experiment);
      assert.equal(again.paywallId, first.paywallId);
      variants[subscriberId] = first.experiment.variant;
    }
    assert.deepEqual(new Set(Object.values(variants)), new Set(["control", "cinematic"]), JSON.stringify(variants));

    // A fresh install gets the same variant: the bucket is the subscriber's, not the device's.
    const other = new Xizor(app.configuration(freshStorage(server)));
    clients.push(other);
    assert.equal((await other.paywall("onboarding", { subscriberId: "subscriber-3" })).paywall.experiment.variant, variants["subscriber-3"]);

    const shown = (await xizor.paywall("onboarding", { subscriberId: "subscriber-3" })).paywall;
    await xizor.track(XizorEvents.paywallOpen, { paywall: shown, subscriberId: "subscriber-3" });
    await xizor.flush();
    const results = await app.dashboard("GET", `/v1/experiments/${experimentId}/results`, undefined, 200);
    const impressions = Object.fromEntries(results.variants.map((row) => [row.name ?? row.variant, row.impressions]));
    assert.equal(impressions[variants["subscriber-3"]], 1, JSON.stringify(impressions));
    assert.equal(Object.values(impressions).reduce((a, b) => a + b, 0), 1);
  } finally {
    for (const client of clients) client.close();
    await server.dispose();
  }
});

test("the holdout is an answer to show nothing, cached, and the component shows nothing for it", async () => {
  const server = await LiveServer.start({});
  const xizor = { current: undefined };
  try {
    const app = await server.app();
    const experimentId = await experiment(app, {
      variants: [
        { paywallId: app.paywallId, weight: 1 },
        { paywallId: app.paywallId, weight: 1, name: "same" },
      ],
      holdoutWeight: 98,
    });
    xizor.current = new Xizor(app.configuration(freshStorage(server)));
    let held;
    for (let index = 0; index < 20 && held === undefined; index += 1) {
      const answer = await xizor.current.paywall("onboarding", { subscriberId: `s${index}` });
      if (answer.kind === "holdout") {
        assert.equal(answer.experimentId, experimentId);
        held = `s${index}`;
      }
    }
    assert.ok(held, "98 % holdout: one of 20 subscribers is held out");

    const holdouts = [];
    let renderer;
    await TestRenderer.act(async () => {
      renderer = TestRenderer.create(
        React.createElement(XizorPaywall, { xizor: xizor.current, placement: "onboarding", subscriberId: held, onHoldout: (id) => holdouts.push(id) }),
      );
    });
    assert.ok(await eventually(10, async () => (await TestRenderer.act(async () => {}), holdouts.length === 1)));
    assert.deepEqual(holdouts, [experimentId]);
    assert.equal(renderer.toJSON(), null);
    await TestRenderer.act(async () => renderer.unmount());

    // Cached like any answer: offline, the held-out subscriber still sees nothing.
    await server.stop();
    assert.deepEqual(await xizor.current.paywall("onboarding", { subscriberId: held }), { kind: "holdout", experimentId });
  } finally {
    xizor.current?.close();
    await server.dispose();
  }
});
