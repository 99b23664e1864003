// Tests of `@xizor/react-native/format` against the compiled output (run `tsc -p .` first):
// - the text functions pass every case of the shared vectors in Tests/Fixtures, unchanged;
// - src/format/document.ts and templates.ts match what the server binary generates now (the drift
//   test), and the check really fails when a generated file differs;
// - the generated types accept every server template and reject a node type the format lacks.
// The server binary is $XIZOR_BIN or ../../.build/debug/xizor; tsc is $TSC or `tsc` on the PATH.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as format from "../dist/format/index.js";

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repoDir = resolve(packageDir, "../..");
const fixturesDir = join(repoDir, "Tests/Fixtures");
const xizor = resolve(process.env.XIZOR_BIN ?? join(repoDir, ".build/debug/xizor"));
const tsc = process.env.TSC ?? "tsc";
const generator = join(packageDir, "scripts/generate-format.mjs");
const generatedFiles = ["src/format/document.ts", "src/format/templates.ts"];

function fixture(name) {
  const vectors = JSON.parse(readFileSync(join(fixturesDir, `${name}.json`), "utf8"));
  assert.ok(Array.isArray(vectors.cases) && vectors.cases.length > 0, `${name}.json has cases`);
  for (const c of vectors.cases) assert.ok("expected" in c, `${name}.json case '${c.name}' has expected`);
  return vectors.cases;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error) throw new Error(`cannot run ${command}: ${result.error.message}`);
  return result;
}

function requireXizor() {
  assert.ok(existsSync(xizor), `no xizor binary at ${xizor}: build the server or set XIZOR_BIN`);
}

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "xizor-format-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---- the shared vectors ----

test("pickLocalizedText passes every shared vector", async (t) => {
  for (const c of fixture("pickLocalizedText")) {
    await t.test(c.name, () => assert.equal(format.pickLocalizedText(c.text, c.locale, c.defaultLocale), c.expected));
  }
});

test("resolveText passes every shared vector", async (t) => {
  for (const c of fixture("resolveText")) {
    await t.test(c.name, () => assert.equal(format.resolveText(c.template, c.context, c.onMissing), c.expected));
  }
});

test("parseMarkdownLite passes every shared vector", async (t) => {
  for (const c of fixture("parseMarkdownLite")) {
    await t.test(c.name, () => assert.deepEqual(format.parseMarkdownLite(c.input), c.expected));
  }
});

test("extractVariables passes every shared vector", async (t) => {
  for (const c of fixture("extractVariables")) {
    await t.test(c.name, () => assert.deepEqual(format.extractVariables(c.template), c.expected));
  }
});

test("the templates record holds every template under its name", () => {
  assert.deepEqual(Object.keys(format.templates), [...format.templateNames]);
  for (const name of format.templateNames) assert.equal(format.templates[name].schemaVersion, format.documentSchemaVersion);
});

// ---- drift ----

test("the generated files match the server binary (generate-format --check)", () => {
  requireXizor();
  const result = run(process.execPath, [generator, "--check"], { env: { ...process.env, XIZOR_BIN: xizor } });
  assert.equal(result.status, 0, `generate-format --check failed:\n${result.stderr}${result.stdout}`);
});

test("generate-format --check fails when a generated file was edited", async (t) => {
  requireXizor();
  // A copy of the package's generator and outputs, so the real files are never touched.
  const copy = tempDir(t);
  mkdirSync(join(copy, "scripts"));
  mkdirSync(join(copy, "src/format"), { recursive: true });
  copyFileSync(generator, join(copy, "scripts/generate-format.mjs"));
  for (const file of generatedFiles) copyFileSync(join(packageDir, file), join(copy, file));
  const check = () =>
    run(process.execPath, [join(copy, "scripts/generate-format.mjs"), "--check"], { env: { ...process.env, XIZOR_BIN: xizor } });
  assert.equal(check().status, 0, "the unedited copy passes the check");
  const edits = { "src/format/document.ts": ['type: "stack";', 'type: "stacks";'], "src/format/templates.ts": ['"en"', '"fr"'] };
  for (const file of generatedFiles) {
    await t.test(file, () => {
      const path = join(copy, file);
      const original = readFileSync(path, "utf8");
      const [from, to] = edits[file];
      assert.ok(original.includes(from), `${file} contains ${from}`);
      writeFileSync(path, original.replace(from, to));
      try {
        const result = check();
        assert.notEqual(result.status, 0, "the check fails");
        assert.match(result.stderr, new RegExp(`${file.replace(/\./g, "\\.")} is stale`));
      } finally {
        writeFileSync(path, original);
      }
    });
  }
});

// ---- the types, with tsc ----

/** Runs `tsc --noEmit --strict` in a temp dir on the files `sources(dir)` returns (name → text),
 * compiled together with the generated sources of the package. */
function typeCheck(t, sources) {
  const dir = tempDir(t);
  const files = sources(dir);
  for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
  const tsconfig = {
    compilerOptions: { target: "ES2020", module: "ES2020", moduleResolution: "node", lib: ["ES2020"], types: [] },
    files: [...generatedFiles.map((f) => join(packageDir, f)), ...Object.keys(files)],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  // cwd = dir, so tsc names the temp files `name.ts(line,column)`.
  const result = run(tsc, ["--noEmit", "--strict", "-p", dir], { cwd: dir });
  return { status: result.status, output: result.stdout + result.stderr };
}

/** `import type` of a generated module, relative from `dir` (with `.js`, as src imports it). */
function importFrom(dir, names, module) {
  const path = relative(dir, join(packageDir, "src/format", `${module}.js`)).split("\\").join("/");
  return `import { ${names.join(", ")} } from "${path.startsWith(".") ? path : `./${path}`}";`;
}

function serverTemplates() {
  requireXizor();
  const listing = run(xizor, ["templates"]);
  assert.equal(listing.status, 0, listing.stderr);
  const names = listing.stdout.split("\n").filter(Boolean).map((line) => line.split("\t")[0]);
  assert.ok(names.length > 0, "the server has templates");
  return names.map((name) => {
    const printed = run(xizor, ["templates", name]);
    assert.equal(printed.status, 0, printed.stderr);
    return { name, document: JSON.parse(printed.stdout) };
  });
}

/** `document` with another node tree. */
const withRoot = (document, root) => JSON.stringify({ ...document, root }, null, 2);

const CONDITIONALS_OK = {
  type: "stack", direction: "vertical", children: [
    { type: "timer", kind: "duration", id: "t", durationSeconds: 600 },
    { type: "timer", kind: "deadline", endsAt: "2030-01-01T00:00:00Z" },
    { type: "spacer", size: 8 }, { type: "spacer", flex: 2 }, { type: "spacer" },
  ],
};

test("tsc accepts every template typed as PaywallDocument", (t) => {
  const templates = serverTemplates();
  const { status, output } = typeCheck(t, (dir) => ({
    "templates-ok.ts": [
      importFrom(dir, ["type PaywallDocument"], "document"),
      importFrom(dir, ["templateNames", "templates"], "templates"),
      // The generated constants, and each template exactly as the server prints it.
      "export const generated: PaywallDocument[] = templateNames.map((name) => templates[name]);",
      ...templates.map(
        (x, i) => `// xizor templates ${x.name}\nexport const server${i}: PaywallDocument = ${JSON.stringify(x.document)};`),
      // The conditional members done right (the counterparts of the rejected ones below).
      `export const conditionals: PaywallDocument = ${withRoot(templates[0].document, CONDITIONALS_OK)};`,
      "",
    ].join("\n"),
  }));
  assert.equal(status, 0, `tsc rejected a template:\n${output}`);
});

test("tsc rejects an unknown node type, and what the schema's conditions forbid", (t) => {
  const [{ document }] = serverTemplates();
  const bad = {
    // Otherwise a valid template: the only error must be the hologram node.
    hologram: { type: "stack", direction: "vertical", children: [{ type: "hologram" }] },
    // `kind: "duration"` also requires `durationSeconds` (the schema's if/then).
    timer: { type: "timer", kind: "duration", id: "t" },
    // At most one of `size` and `flex` (the schema's `not: {required: [size, flex]}`).
    spacer: { type: "spacer", size: 8, flex: 1 },
  };
  const { status, output } = typeCheck(t, (dir) => {
    const header = importFrom(dir, ["type PaywallDocument"], "document");
    return Object.fromEntries(Object.entries(bad).map(([name, root]) => [
      `${name}.ts`, `${header}\nexport const bad: PaywallDocument = ${withRoot(document, root)};\n`,
    ]));
  });
  assert.notEqual(status, 0, "tsc must fail");
  const errors = output.split("\n").filter((line) => / error TS\d+:/.test(line));
  assert.equal(errors.length, Object.keys(bad).length, `exactly one error per file:\n${output}`);
  for (const name of Object.keys(bad)) {
    assert.equal(errors.filter((line) => line.startsWith(`${name}.ts(`)).length, 1, output);
  }
  // The message names the offending type (TypeScript 4.8 words the other two less helpfully).
  assert.match(errors.find((line) => line.startsWith("hologram.ts(")), /"hologram"/, output);
});
