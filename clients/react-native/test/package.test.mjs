// What the package says of itself agrees with what it is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { XIZOR_REACT_NATIVE_VERSION, deviceHeaders } from "../dist/core.js";
import { fnv1a64 } from "../dist/cache.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

test("the version sent as X-Xizor-SDK-Version is package.json's", () => {
  assert.equal(XIZOR_REACT_NATIVE_VERSION, manifest.version);
  assert.equal(deviceHeaders({ platform: "ios" })["X-Xizor-SDK-Version"], manifest.version);
});

test("every export resolves to a compiled module with its types, and nothing but the peers is depended on", () => {
  for (const [entry, target] of Object.entries(manifest.exports)) {
    if (typeof target === "string") continue;
    assert.ok(existsSync(join(root, target.default)), `${entry} → ${target.default}`);
    assert.ok(existsSync(join(root, target.types)), `${entry} → ${target.types}`);
  }
  assert.equal(manifest.dependencies, undefined, "no runtime dependency beyond the peers");
  assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), ["react", "react-native", "react-native-webview"]);
});

test("the core imports no peer, so it runs without React Native", () => {
  const core = readFileSync(join(root, "dist/core.js"), "utf8");
  const seen = new Set();
  const pending = ["core.js"];
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const text = file === "core.js" ? core : readFileSync(join(root, "dist", file), "utf8");
    for (const [, specifier] of text.matchAll(/from "([^"]+)"/g)) {
      assert.ok(specifier.startsWith("./") || specifier.startsWith("../"), `${file} imports ${specifier}`);
      pending.push(join(dirname(file), specifier));
    }
  }
  assert.ok(seen.size > 10);
});

test("the cache's FNV-1a, computed without BigInt, equals the 64-bit reference", () => {
  const reference = (text) => {
    let hash = 0xcbf29ce484222325n;
    for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
    return hash.toString(16);
  };
  const samples = ["", "a", "v1|onboarding|document|2|en||", "v1|x|page|2|de-AT|dark|user/1|plan=pro|", "ünïcödé ✓ 😀"];
  for (let index = 0; index < 200; index += 1) samples.push(Math.random().toString(36).repeat(1 + (index % 7)));
  for (const sample of samples) assert.equal(fnv1a64(sample), reference(sample), sample);
  assert.equal(fnv1a64("a"), "af63dc4c8601ec8c", "the published FNV-1a 64 value of 'a'");
});
