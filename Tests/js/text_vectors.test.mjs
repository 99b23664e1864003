// Runs the shared text vectors (Tests/Fixtures/*.json, the same files the Swift tests use) against the
// page runtime exactly as the renderer embeds it: the source comes from `xizor render --runtime-js`
// (or the file named by XIZOR_RUNTIME_JS) and is evaluated in a fresh VM context without a DOM.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import vm from "node:vm";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const fixtures = process.env.XIZOR_FIXTURES || path.join(root, "Tests", "Fixtures");

function runtimeSource() {
  if (process.env.XIZOR_RUNTIME_JS) return readFileSync(process.env.XIZOR_RUNTIME_JS, "utf8");
  const bin = process.env.XIZOR_BIN || path.join(root, ".build", "debug", "xizor");
  return execFileSync(bin, ["render", "--runtime-js"], { encoding: "utf8" });
}

const sandbox = {};
vm.createContext(sandbox);
vm.runInContext(runtimeSource(), sandbox, { filename: "xizor-runtime.js" });
const api = sandbox.XizorText;
// Values cross the VM boundary: compare as plain JSON.
const plain = (v) => JSON.parse(JSON.stringify(v));
const vectors = (name) => JSON.parse(readFileSync(path.join(fixtures, name), "utf8")).cases;

test("runtime exposes the text functions", () => {
  for (const f of ["resolveText", "pickLocalizedText", "parseMarkdownLite", "extractVariables"]) {
    assert.equal(typeof api[f], "function", f);
  }
});

test("resolveText vectors", () => {
  const cases = vectors("resolveText.json");
  assert.ok(cases.length > 0);
  for (const c of cases) assert.equal(api.resolveText(c.template, c.context, c.onMissing), c.expected, c.name);
});

test("pickLocalizedText vectors", () => {
  const cases = vectors("pickLocalizedText.json");
  assert.ok(cases.length > 0);
  for (const c of cases) assert.equal(api.pickLocalizedText(c.text, c.locale, c.defaultLocale), c.expected, c.name);
});

test("parseMarkdownLite vectors", () => {
  const cases = vectors("parseMarkdownLite.json");
  assert.ok(cases.length > 0);
  for (const c of cases) assert.deepEqual(plain(api.parseMarkdownLite(c.input)), c.expected, c.name);
});

test("extractVariables vectors", () => {
  const cases = vectors("extractVariables.json");
  assert.ok(cases.length > 0);
  for (const c of cases) assert.deepEqual(plain(api.extractVariables(c.template)), c.expected, c.name);
});

test("blurhash decodes to opaque pixels of the right size", () => {
  const px = api.decodeBlurhash("LEHV6nWB2yk8pyo0adR*.7kCMdnj", 8, 8);
  assert.equal(px.length, 8 * 8 * 4);
  for (let i = 3; i < px.length; i += 4) assert.equal(px[i], 255);
  assert.equal(api.decodeBlurhash("LEHV6n", 8, 8), null);
});
