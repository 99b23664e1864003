// appAccountToken: the App Store token the server maps notifications back to the subscriber with
// (XizorKit's Xizor.appAccountToken(for:)), its SHA-1, and the bridge handing it to the app's purchase.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { APP_ACCOUNT_TOKEN_NAMESPACE, PaywallBridge, appAccountToken } from "../dist/core.js";
import * as fromIndex from "../dist/index.js";
import { sha1 } from "../dist/app-account-token.js";

const hex = (bytes) => bytes.map((byte) => byte.toString(16).padStart(2, "0")).join("");
const ascii = (text) => [...Buffer.from(text, "latin1")];

test("SHA-1 gives FIPS 180 / RFC 3174's digests", () => {
  const vectors = [
    ["abc", "a9993e364706816aba3e25717850c26c9cd0d89d"],
    ["", "da39a3ee5e6b4b0d3255bfef95601890afd80709"],
    ["abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"],
    [
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "a49b2446a02c645bf419f995b67091253a04a259",
    ],
    ["0123456701234567012345670123456701234567012345670123456701234567".repeat(10), "dea356a2cddd90c7a7ecedc5ebb563934f460452"],
    ["a".repeat(1_000_000), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"],
  ];
  for (const [message, digest] of vectors) assert.equal(hex(sha1(ascii(message))), digest, message.slice(0, 20));
});

test("SHA-1 equals Node's on every length across several blocks and on random bytes", () => {
  const messages = [];
  for (let length = 0; length <= 300; length += 1) messages.push(Array.from({ length }, (_, index) => (index * 31 + length) & 255));
  for (let index = 0; index < 100; index += 1) {
    messages.push(Array.from({ length: Math.floor(Math.random() * 1000) }, () => Math.floor(Math.random() * 256)));
  }
  for (const message of messages) {
    assert.equal(hex(sha1(message)), createHash("sha1").update(Buffer.from(message)).digest("hex"), `${message.length} bytes`);
  }
});

test("the token equals Python's uuid5 of the documented namespace and XizorKit's", () => {
  // uuid.uuid5(uuid.UUID("00865d56-5f6a-5954-85e7-b7a50ba01f06"), subscriber_id), as XizorKit's tests list them.
  const python = [
    ["subscriber-42", "f331d089-6c8f-5ff8-ad92-3826732f62d9"],
    ["subscriber-43", "7d74c0f2-a24b-5eba-a92c-cdcf33706e99"],
    ["", "e107f889-3626-5f93-935b-5151d05e672a"],
    ["J\u00fcrgen-\u00fc", "7ef5d861-9f4b-5b17-98b3-c19447bed8b2"],
    ["user@example.com", "b6932955-bc24-5835-8f06-78dc4cee7b01"],
    ["a/b c?d", "947e4457-eb53-576d-a0c3-eb39b6e30b32"],
    ["\u6f22\u5b57-\u{1f600}", "d46f58ab-6dd3-53ad-a738-a5a93bf1654f"],
    ["x".repeat(200), "205cb3b0-56f3-5ca8-994a-70fe3109f9c9"],
    ["s1", "6fd4f533-d712-5ef2-89bc-1b2176e91dd6"],
  ];
  for (const [subscriberId, token] of python) assert.equal(appAccountToken(subscriberId), token, subscriberId);
  assert.equal(APP_ACCOUNT_TOKEN_NAMESPACE, "00865d56-5f6a-5954-85e7-b7a50ba01f06");
  // uuid5(NAMESPACE_URL, "https://xizor.dev/app-account-token"): the namespace is what the docs say it is.
  const url = [...Buffer.from("6ba7b8119dad11d180b400c04fd430c8", "hex"), ...Buffer.from("https://xizor.dev/app-account-token")];
  assert.equal(hex(sha1(url).slice(0, 6)), "00865d565f6a");
  // The id's bytes as given: a decomposed ü is another id; a lone surrogate is U+FFFD, as in a Swift string.
  assert.notEqual(appAccountToken("Ju\u0308rgen"), appAccountToken("J\u00fcrgen"));
  assert.equal(appAccountToken("\ud800"), "35abd739-79fe-5053-bf3f-b94752f442b9");
  assert.equal(fromIndex.appAccountToken, appAccountToken, "exported by the package's entry point too");
});

test("the bridge hands the purchase the token of the subscriber the paywall was loaded for", async () => {
  const paywall = { placement: "p", paywallId: "pw_1", version: 1, schemaVersion: 2, locale: "en", source: "network" };
  const bought = [];
  const flushed = [];
  const bridgeFor = (subscriberId) =>
    new PaywallBridge({
      // The purchase sends the queued presentation at once, so the server has it before the store's notification.
      client: { track: async () => {}, timerStart: async () => 0, flush: async () => void flushed.push(bought.length) },
      paywall,
      subscriberId,
      platform: "ios",
      inject: () => {},
      delegate: { purchase: async (...values) => (bought.push(values), "completed") },
    });
  await bridgeFor("subscriber-42").receive({ type: "purchase", slot: "yearly", storeProductId: "com.x.yearly" });
  await bridgeFor(undefined).receive({ type: "purchase", slot: "monthly" });
  assert.deepEqual(bought, [
    ["yearly", "com.x.yearly", paywall, "f331d089-6c8f-5ff8-ad92-3826732f62d9"],
    ["monthly", undefined, paywall, undefined],
  ]);
  assert.deepEqual(flushed, [0, 1], "each purchase flushed the queue before the app's purchase ran");
});
