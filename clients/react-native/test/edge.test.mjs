// Edge delivery through the client (XizorKit's EdgeDeliveryTests, docs/client-react-native.md): the
// cacheable path form without the key, experiments bucketed on the device with the server's split,
// and signatures checked against pinned keys through a proxy that changes a product id.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Xizor, XizorError } from "../dist/core.js";
import { withServer, freshStorage } from "./live-server.mjs";

/** A proxy in front of `origin` that records each request and can change answers on the way: a
 * product id in the body (`flip`), or the signature removed (`strip`). */
async function proxy(origin) {
  const seen = [];
  const state = { flip: false, strip: false, flipped: 0 };
  const server = createServer(async (request, response) => {
    seen.push({ url: request.url, headers: request.headers });
    const headers = { ...request.headers };
    delete headers.host;
    delete headers["accept-encoding"];
    const answer = await fetch(origin + request.url, { method: request.method, headers });
    let body = await answer.text();
    if (state.flip && body.includes("com.example.notes.pro.yearly")) {
      body = body.replace("com.example.notes.pro.yearly", "com.attacker.notes.pro.yearly");
      state.flipped += 1;
    }
    const out = {};
    answer.headers.forEach((value, name) => {
      if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name)) out[name] = value;
    });
    if (state.strip) delete out["x-xizor-signature"];
    response.writeHead(answer.status, out);
    response.end(answer.status === 304 || answer.status === 204 ? undefined : body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    seen,
    state,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function signingKeys(server) {
  const answer = await fetch(`${server.base}/v1/sdk/signing-keys`);
  return (await answer.json()).keys.map((key) => key.publicKey);
}

test("paywalls are asked by the path form, without the key, the subscriber in a header", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const front = await proxy(server.base);
    try {
      const xizor = track(new Xizor(app.configuration(freshStorage(server), { baseURL: front.base })));
      const { paywall } = await xizor.paywall("onboarding", { subscriberId: "s-1", locale: "en" });
      assert.equal(paywall.paywallId, app.paywallId);
      const asked = front.seen.find((r) => r.url.includes("/paywall"));
      assert.equal(asked.url, `/v1/sdk/apps/${app.publicKey}/placements/onboarding/paywall?locale=en`);
      assert.equal(asked.headers.authorization, undefined);
      assert.equal(asked.headers["x-xizor-subscriber-id"], "s-1");
      // A revalidation too.
      assert.equal((await xizor.paywall("onboarding", { subscriberId: "s-1", locale: "en" })).paywall.source, "revalidated");

      // Without WebCrypto: the authenticated endpoint, where the server assigns.
      const plain = track(new Xizor(app.configuration(freshStorage(server), { baseURL: front.base, crypto: null })));
      await plain.paywall("onboarding", { subscriberId: "s-1" });
      const last = front.seen.at(-1);
      assert.equal(last.url, "/v1/sdk/placements/onboarding/paywall?subscriberId=s-1");
      assert.equal(last.headers.authorization, `Bearer ${app.publicKey}`);
      assert.throws(() => new Xizor(app.configuration(freshStorage(server), { crypto: null, verification: { mode: "informational", publicKeys: [] } })), TypeError);
    } finally {
      await front.close();
    }
  }));

test("an experiment is bucketed on the device with the server's split, and works offline from the cache", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const challenger = await app.createPaywall("cinematic");
    await app.publish(challenger);
    const created = await app.dashboard("POST", "/v1/experiments", {
      variants: [
        { paywallId: app.paywallId, weight: 40 },
        { paywallId: challenger, weight: 40, name: "cinematic" },
      ],
      holdoutWeight: 20,
    }, 201);
    await app.dashboard("PUT", "/v1/placements/onboarding", { experimentId: created.id }, 200);
    await app.dashboard("POST", `/v1/experiments/${created.id}/start`, undefined, 200);
    const storage = freshStorage(server);
    const xizor = track(new Xizor(app.configuration(storage)));
    const seen = {};
    for (let index = 0; index < 40; index += 1) {
      const subscriberId = `edge-${index}`;
      const answer = await xizor.paywall("onboarding", { subscriberId });
      const assigned = await server.request("GET", `/v1/sdk/placements/onboarding/paywall?subscriberId=${subscriberId}`, app.publicKey, undefined, { Accept: "application/json" });
      if (assigned.status === 204) {
        assert.deepEqual(answer, { kind: "holdout", experimentId: created.id }, subscriberId);
        seen[subscriberId] = "holdout";
      } else {
        assert.equal(answer.kind, "paywall", subscriberId);
        assert.equal(answer.paywall.experiment.assignment, "client");
        assert.equal(answer.paywall.experiment.variant, assigned.json.experiment.variant, subscriberId);
        assert.equal(answer.paywall.paywallId, assigned.json.paywallId);
        seen[subscriberId] = answer.paywall.experiment.variant;
      }
    }
    assert.deepEqual(new Set(Object.values(seen)), new Set(["control", "cinematic", "holdout"]), JSON.stringify(seen));
    // The server stopped: the cached allocation and the cached variants answer, each subscriber its own.
    await server.stop();
    const offline = track(new Xizor(app.configuration(storage, { cacheTimeout: 0.2, requestTimeout: 1 })));
    for (const subscriberId of ["edge-0", "edge-1", "edge-2", "edge-3"]) {
      const answer = await offline.paywall("onboarding", { subscriberId });
      if (seen[subscriberId] === "holdout") assert.equal(answer.kind, "holdout");
      else {
        assert.equal(answer.paywall.source, "cache");
        assert.equal(answer.paywall.experiment.variant, seen[subscriberId]);
      }
    }
  }));

test("signatures: verified with pinned keys; a changed product id is refused when enforced and reported when informational", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const keys = await signingKeys(server);
    const front = await proxy(server.base);
    try {
      const enforced = { mode: "enforced", publicKeys: keys };
      // The runtime's WebCrypto, counting imports: each pinned key is imported once per client.
      const subtle = globalThis.crypto.subtle;
      const imports = { count: 0 };
      const counting = {
        digest: (algorithm, data) => subtle.digest(algorithm, data),
        importKey: (...args) => { imports.count += 1; return subtle.importKey(...args); },
        verify: (...args) => subtle.verify(...args),
      };
      const honest = track(new Xizor(app.configuration(freshStorage(server), { baseURL: front.base, verification: enforced, crypto: counting })));
      const first = (await honest.paywall("onboarding")).paywall;
      assert.deepEqual(first.verification, { status: "verified" });
      assert.deepEqual((await honest.paywall("onboarding")).paywall.verification, { status: "verified" }, "a 304 verifies too");

      front.state.flip = true;
      const storage = freshStorage(server);
      const victim = track(new Xizor(app.configuration(storage, { baseURL: front.base, verification: enforced, cacheTimeout: 1, requestTimeout: 2 })));
      await assert.rejects(victim.paywall("onboarding"), (error) => error instanceof XizorError && error.reason.kind === "unavailable" && /signature/.test(error.reason.underlying));
      assert.ok(front.state.flipped > 0, "the proxy changed the answer");
      assert.equal(await storage.getAllKeys().then((names) => names.filter((name) => name.includes("paywall")).length), 0, "an unverified answer is never stored");

      const watcher = track(new Xizor(app.configuration(freshStorage(server), { baseURL: front.base, verification: { mode: "informational", publicKeys: keys } })));
      const flipped = (await watcher.paywall("onboarding")).paywall;
      assert.equal(flipped.verification.status, "failed");
      assert.match(flipped.verification.reason, /does not match/);
      assert.match(JSON.stringify(flipped.document), /com\.attacker/);

      // A missing signature; and a key that is not pinned.
      front.state.flip = false;
      front.state.strip = true;
      const stripped = (await track(new Xizor(app.configuration(freshStorage(server), { baseURL: front.base, verification: { mode: "informational", publicKeys: keys } }))).paywall("onboarding")).paywall;
      assert.deepEqual(stripped.verification, { status: "failed", reason: "the answer is not signed" });
      front.state.strip = false;
      const other = Buffer.alloc(32, 7).toString("base64");
      const unpinned = (await track(new Xizor(app.configuration(freshStorage(server), { baseURL: front.base, verification: { mode: "informational", publicKeys: [other] } }))).paywall("onboarding")).paywall;
      assert.equal(unpinned.verification.status, "failed");
      assert.match(unpinned.verification.reason, /not pinned/);
      // The honest proxy again: the enforcing client still verifies (a 304 with its signature back).
      assert.deepEqual((await honest.paywall("onboarding")).paywall.verification, { status: "verified" });
      assert.equal(imports.count, keys.length, "three answers checked, each pinned key imported once");
      // Disabled: nothing is checked.
      const unchecked = (await track(new Xizor(app.configuration(freshStorage(server)))).paywall("onboarding")).paywall;
      assert.deepEqual(unchecked.verification, { status: "notRequested" });
    } finally {
      await front.close();
    }
  }));
