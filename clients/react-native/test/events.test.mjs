// The persistent event queue against live servers (XizorKit's EventQueueTests): restart, outage,
// lost answers, Retry-After, 413, refusals, a full queue, unreadable entries, timers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Backoff, MemoryStorage, Xizor, XizorEvents, makeEvent } from "../dist/core.js";
import { withServer, freshStorage, eventually } from "./live-server.mjs";

const quick = { batchSize: 50, flushInterval: 3600, initialBackoff: 0.1, maxBackoff: 0.4 };

const queued = async (storage) => (await storage.getAllKeys()).filter((key) => key.startsWith("xizor:event:")).length;

test("events survive a restart and an outage, and a lost answer, and count once", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const storage = freshStorage(server);
    const online = track(new Xizor(app.configuration(storage, { events: quick })));
    const shown = (await online.paywall("onboarding")).paywall;
    online.close();
    await server.stop();

    // Offline: tracked, persisted, not sent.
    const reports = [];
    const offline = track(new Xizor(app.configuration(storage, { events: { ...quick, onReport: (r) => reports.push(r) } })));
    for (let index = 0; index < 120; index += 1) {
      await offline.track(XizorEvents.paywallOpen, { paywall: shown, subscriberId: `s${index}` });
    }
    await offline.flush();
    assert.equal(await offline.events.count(), 120);
    assert.equal(await queued(storage), 120, "each event is in storage");
    assert.ok(reports.some((r) => r.kind === "retryScheduled" && r.reason.kind === "network"), JSON.stringify(reports));
    offline.close(); // the app is killed; the queue is in storage

    await server.restart();
    const relaunched = track(new Xizor(app.configuration(storage, { events: quick })));
    assert.equal(await relaunched.events.count(), 120);
    void relaunched.flush();
    assert.ok(await eventually(20, async () => (await relaunched.events.count()) === 0));
    assert.equal(await queued(storage), 0, "delivered events leave storage");
    assert.equal(await app.impressions(), 120);

    // The answer is lost: the server is paused while a batch is in flight, the client times out and
    // retries; the server then stores the first attempt and counts the retry's events as
    // duplicates. Still exactly once.
    const lossyReports = [];
    const lossy = track(
      new Xizor(
        app.configuration(freshStorage(server), { requestTimeout: 1, events: { ...quick, onReport: (r) => lossyReports.push(r) } }),
      ),
    );
    for (let index = 0; index < 10; index += 1) {
      await lossy.track(XizorEvents.paywallOpen, { paywall: shown, subscriberId: `late${index}` });
    }
    await server.pause();
    await lossy.flush();
    assert.equal(await lossy.events.count(), 10, JSON.stringify(lossyReports));
    server.resume();
    assert.ok(await eventually(15, async () => (await lossy.events.count()) === 0));
    assert.equal(await app.impressions(), 130);
    assert.ok(lossyReports.some((r) => r.kind === "delivered" && r.duplicates + r.accepted === 10));
  }));

test("rate-limited batches wait for Retry-After", () =>
  withServer({ XIZOR_RATE_LIMITS_EVENTS_PER_SECOND: "1", XIZOR_RATE_LIMITS_EVENTS_BURST: "1" }, async (server, track) => {
    const app = await server.app();
    const reports = [];
    const xizor = track(
      new Xizor(
        app.configuration(freshStorage(server), {
          events: { batchSize: 10, flushInterval: 3600, initialBackoff: 0.1, maxBackoff: 0.4, onReport: (r) => reports.push(r) },
        }),
      ),
    );
    const shown = (await xizor.paywall("onboarding")).paywall;
    const started = Date.now();
    for (let index = 0; index < 30; index += 1) await xizor.track(XizorEvents.paywallOpen, { paywall: shown, subscriberId: `s${index}` });
    assert.ok(await eventually(20, async () => (await xizor.events.count()) === 0));
    const elapsed = (Date.now() - started) / 1000;
    const limited = reports.filter((r) => r.kind === "retryScheduled");
    assert.ok(limited.length > 0, JSON.stringify(reports));
    for (const report of limited) {
      assert.deepEqual(report.reason, { kind: "rateLimited", retryAfter: 1 });
      assert.ok(report.after >= 1, `Retry-After: 1 is a floor above the 0.1 s backoff, waited ${report.after}`);
    }
    assert.ok(elapsed >= 2, "three batches at one per second");
    assert.equal(await app.impressions(), 30);
  }));

test("a 413 halves the batch until it fits, then every event is delivered once", () =>
  withServer({ XIZOR_HTTP_MAX_BODY_BYTES: "6000" }, async (server, track) => {
    const app = await server.app();
    const reports = [];
    const xizor = track(
      new Xizor(app.configuration(freshStorage(server), { events: { ...quick, onReport: (r) => reports.push(r) } })),
    );
    const shown = (await xizor.paywall("onboarding")).paywall;
    // About 470 bytes each: 40 events are 19 kB, 20 are 9.4 kB, 10 (4.7 kB) fit in 6000 bytes.
    for (let index = 0; index < 40; index += 1) {
      await xizor.track(XizorEvents.paywallOpen, { paywall: shown, subscriberId: `subscriber-${index}`, properties: { note: "x".repeat(200) } });
    }
    await xizor.flush();
    assert.equal(await xizor.events.count(), 0, JSON.stringify(reports.filter((r) => r.kind !== "delivered")));
    const delivered = reports.filter((r) => r.kind === "delivered");
    // 40 → 413 → 20 → 413 → 10 delivered; after a delivery the limit is the batch size again, so
    // the 30 left are halved anew (30 → 15 → 7, then 23 → 11, then 12).
    assert.deepEqual(delivered.map((r) => r.accepted), [10, 7, 11, 12], "halved until it fits, each time");
    assert.ok(!reports.some((r) => r.kind === "dropped"));
    assert.equal(await app.impressions(), 40);
  }));

test("events the server refuses are dropped and reported", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const reports = [];
    const xizor = track(new Xizor(app.configuration(freshStorage(server), { events: { ...quick, onReport: (r) => reports.push(r) } })));
    const shown = (await xizor.paywall("onboarding")).paywall;
    const bad = makeEvent(XizorEvents.paywallOpen, { paywall: shown, subscriberId: "s1" });
    bad.paywallId = "pw_unknown";
    await xizor.track(makeEvent(XizorEvents.paywallOpen, { paywall: shown, subscriberId: "s0" }));
    await xizor.track(bad);
    await xizor.flush();
    assert.equal(await xizor.events.count(), 0);
    const dropped = reports.find((r) => r.kind === "dropped");
    assert.ok(dropped, JSON.stringify(reports));
    assert.deepEqual(dropped.events.map((e) => e.id), [bad.id]);
    assert.ok(reports.some((r) => r.kind === "delivered" && r.accepted === 1));

    const revokedReports = [];
    const revoked = track(
      new Xizor(app.configuration(freshStorage(server), { publicKey: "pk_revoked_or_unknown", events: { ...quick, onReport: (r) => revokedReports.push(r) } })),
    );
    await revoked.track("custom.step");
    await revoked.flush();
    assert.equal(await revoked.events.count(), 0);
    assert.ok(revokedReports.some((r) => r.kind === "dropped" && r.reason.startsWith("401")), JSON.stringify(revokedReports));
  }));

test("a full queue drops the oldest, and unreadable entries are removed and reported", async () => {
  const storage = new MemoryStorage();
  const reports = [];
  const configuration = {
    publicKey: "pk_x",
    baseURL: "http://127.0.0.1:9",
    storage,
    events: { batchSize: 2, maxQueued: 3, flushInterval: 3600, onReport: (r) => reports.push(r) },
  };
  const xizor = new Xizor(configuration);
  // Nothing listens on port 9: each send fails and is retried later; the queue keeps growing.
  const events = ["a", "b", "c", "d", "e"].map((name) => makeEvent(`custom.${name}`));
  for (const event of events) await xizor.track(event);
  xizor.close();
  assert.equal(await xizor.events.count(), 3);
  const dropped = reports.filter((r) => r.kind === "dropped").flatMap((r) => r.events.map((e) => e.name));
  assert.deepEqual(dropped, ["custom.a", "custom.b"]);

  // A torn entry (the app killed mid-write) and a foreign one beside the queue's.
  await storage.setItem("xizor:event:000000000099", '{"id":"torn","na');
  const relaunchedReports = [];
  const relaunched = new Xizor({ ...configuration, events: { ...configuration.events, onReport: (r) => relaunchedReports.push(r) } });
  assert.deepEqual(
    (await relaunched.events.count()),
    3,
  );
  assert.deepEqual(relaunchedReports, [{ kind: "unreadable", entries: 1 }]);
  assert.equal(await storage.getItem("xizor:event:000000000099"), null, "the unreadable entry is removed");
  await relaunched.track("custom.f");
  const keys = (await storage.getAllKeys()).filter((key) => key.startsWith("xizor:event:")).sort();
  assert.equal(keys.length, 3, "maxQueued: the oldest made room");
  assert.equal(JSON.parse(await storage.getItem(keys.at(-1))).name, "custom.f", "a new entry sorts after every older one");
  relaunched.close();
});

test("a storage that refuses writes keeps the events in memory and says so", async () => {
  const reports = [];
  const refusing = {
    ...new MemoryStorage(),
    getItem: async () => null,
    getAllKeys: async () => [],
    removeItem: async () => undefined,
    setItem: async () => {
      throw new Error("disk full");
    },
  };
  const xizor = new Xizor({ publicKey: "pk_x", baseURL: "http://127.0.0.1:9", storage: refusing, events: { flushInterval: 3600, onReport: (r) => reports.push(r) } });
  await xizor.track("first");
  await xizor.track("second");
  xizor.close();
  assert.equal(await xizor.events.count(), 2);
  assert.deepEqual(reports.filter((r) => r.kind === "notPersisted").map((r) => r.queued), [1, 2]);
});

test("timer starts are asked once and cached", () =>
  withServer({}, async (server, track) => {
    const app = await server.app();
    const storage = freshStorage(server);
    const xizor = track(new Xizor(app.configuration(storage)));
    const first = await xizor.timerStart("s1", app.paywallId, "countdown");
    assert.ok(first > 1_700_000_000_000);
    assert.equal(await xizor.timerStart("s1", app.paywallId, "countdown"), first);
    await server.stop();
    const relaunched = track(new Xizor(app.configuration(storage)));
    assert.equal(await relaunched.timerStart("s1", app.paywallId, "countdown"), first, "cached across launches");
    await assert.rejects(relaunched.timerStart("s2", app.paywallId, "countdown"), (error) => error.reason.kind === "unavailable");
  }));

test("backoff grows exponentially with equal jitter up to the cap; Retry-After is a floor", () => {
  const low = new Backoff(1, 8, () => 0);
  const high = new Backoff(1, 8, () => 1);
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => low.delay(n)), [0.5, 1, 2, 4, 4]);
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => high.delay(n)), [1, 2, 4, 8, 8]);
  assert.equal(low.delay(1, 30), 30);
  assert.equal(high.delay(1, 30), 31);
  assert.throws(() => low.delay(0));
});
