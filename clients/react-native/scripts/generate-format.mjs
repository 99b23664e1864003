#!/usr/bin/env node
// Generates src/format/document.ts (TypeScript types of the paywall document) and
// src/format/templates.ts (the built-in templates as typed constants) from the server binary:
// `xizor schema --version N` (JSON Schema draft 2020-12) and `xizor templates [NAME]`.
//
// Why generated: the server's SchemaDefinitions already drive its validator, its JSON Schema and
// docs/schema.md, so deriving the TypeScript from the same schema keeps the SDK from drifting.
// `--check` regenerates in memory and fails when the files on disk differ (the drift test).
//
// Usage (from clients/react-native):
//   node scripts/generate-format.mjs [--check] [--xizor PATH]
// The binary is --xizor PATH, else $XIZOR_BIN, else ../../.build/debug/xizor (relative to the package).
//
// Plain Node ESM without dependencies: there is no npm registry in the build of this package.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The document format the types describe. Pinned, not "latest": the SDK's default
 * `schemaVersion` (configuration.ts) is 2 and the built-in templates are version 2 documents, so
 * the types match what the app receives by default; the generator checks the templates agree. */
const SCHEMA_VERSION = 2;

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const OUTPUTS = { document: "src/format/document.ts", templates: "src/format/templates.ts" };
const REGENERATE = "node scripts/generate-format.mjs";

/** A failure to report in one line (no stack): a missing binary, a schema this script cannot map.
 * Exit status 1, or 2 for a usage error. */
class GeneratorError extends Error {
  constructor(message, status = 1) {
    super(message);
    this.status = status;
  }
}

function parseArguments(argv) {
  const options = { check: false, xizor: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--check") options.check = true;
    else if (a === "--xizor") {
      if (i + 1 >= argv.length) throw new GeneratorError("--xizor needs a path", 2);
      options.xizor = argv[++i];
    } else if (a.startsWith("--xizor=")) options.xizor = a.slice("--xizor=".length);
    else if (a === "--help" || a === "-h") options.help = true;
    else throw new GeneratorError(`unknown argument '${a}' (usage: ${REGENERATE} [--check] [--xizor PATH])`, 2);
  }
  return options;
}

function runXizor(binary, args) {
  const result = spawnSync(binary, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new GeneratorError(`cannot run ${binary} ${args.join(" ")}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new GeneratorError(`${binary} ${args.join(" ")} exited ${result.status}: ${result.stderr.trim()}`);
  }
  return result.stdout;
}

// ---- JSON Schema → TypeScript ----

/** Keywords this mapping understands. Anything else fails the generation instead of being dropped
 * silently: a new schema construct needs a decision here, not a type that says less than the schema. */
const KNOWN = new Set([
  "$ref", "type", "properties", "required", "additionalProperties", "allOf", "anyOf", "enum", "const",
  "items", "minItems", "maxItems", "uniqueItems", "minProperties", "propertyNames", "pattern", "minLength",
  "maxLength", "minimum", "maximum", "exclusiveMinimum", "multipleOf", "description", "default",
]);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const literal = (value) => JSON.stringify(value);
const propertyKey = (name) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function refName(ref, path) {
  const match = /^#\/\$defs\/([A-Za-z_$][A-Za-z0-9_$]*)$/.exec(ref);
  if (!match) throw new GeneratorError(`${path}: unsupported $ref '${ref}'`);
  return match[1];
}

/** `{if: {properties: {TAG: {const: V}}, required: [TAG]}, ...}` → [TAG, V], else null. */
function ifTagConst(entry) {
  const condition = entry.if;
  if (!isObject(condition) || !isObject(condition.properties)) return null;
  const tags = Object.keys(condition.properties);
  if (tags.length !== 1 || !("const" in condition.properties[tags[0]])) return null;
  return [tags[0], condition.properties[tags[0]].const];
}

/** The union shape the server emits (`Shape.union`): allOf of `if TAG is V then $ref`, plus TAG's enum. */
function taggedUnion(schema) {
  if (!Array.isArray(schema.allOf) || schema.allOf.length === 0) return null;
  const variants = [];
  for (const entry of schema.allOf) {
    const tag = ifTagConst(entry);
    if (!tag || !isObject(entry.then) || typeof entry.then.$ref !== "string") return null;
    variants.push({ tag: tag[0], value: tag[1], ref: entry.then.$ref });
  }
  return variants;
}

/** A note of the constraints the TypeScript type cannot carry (the validator checks them). */
function constraintNotes(schema) {
  const notes = [];
  const range = [];
  if ("minimum" in schema) range.push(`≥ ${schema.minimum}`);
  if ("exclusiveMinimum" in schema) range.push(`> ${schema.exclusiveMinimum}`);
  if ("maximum" in schema) range.push(`≤ ${schema.maximum}`);
  if ("multipleOf" in schema) range.push(`multiple of ${schema.multipleOf}`);
  if (schema.type === "integer") notes.push(["integer", range.join(", ")].filter(Boolean).join(" "));
  else if (range.length) notes.push(range.join(", "));
  if (schema.minLength === 1) notes.push("non-empty");
  else if ("minLength" in schema) notes.push(`at least ${schema.minLength} characters`);
  if ("maxLength" in schema) notes.push(`at most ${schema.maxLength} characters`);
  if ("pattern" in schema) notes.push(`matches \`${schema.pattern}\``);
  if ("minItems" in schema && schema.minItems === schema.maxItems) notes.push(`exactly ${schema.minItems} items`);
  else if ("minItems" in schema) notes.push(`at least ${schema.minItems} item${schema.minItems === 1 ? "" : "s"}`);
  if ("maxItems" in schema && schema.minItems !== schema.maxItems) notes.push(`at most ${schema.maxItems} items`);
  if (schema.uniqueItems) notes.push("no duplicates");
  if ("minProperties" in schema) notes.push(`at least ${schema.minProperties} entr${schema.minProperties === 1 ? "y" : "ies"}`);
  if (isObject(schema.propertyNames) && schema.propertyNames.pattern) {
    notes.push(`keys match \`${schema.propertyNames.pattern}\``);
  }
  if (isObject(schema.items)) {
    const inner = constraintNotes(schema.items);
    if (inner) notes.push(`each item: ${inner}`);
  }
  if (isObject(schema.additionalProperties) && !schema.properties) {
    const inner = constraintNotes(schema.additionalProperties);
    if (inner) notes.push(`each value: ${inner}`);
  }
  return notes.join("; ");
}

/** A doc comment from a schema's description, constraint notes and default; "" when there is none. */
function docComment(schema, indent) {
  const lines = [];
  if (typeof schema.description === "string") lines.push(schema.description);
  const notes = constraintNotes(schema);
  if (notes) lines.push(notes.charAt(0).toUpperCase() + notes.slice(1) + ".");
  if ("default" in schema) lines.push(`@default ${literal(schema.default)}`);
  if (lines.length === 0) return "";
  const safe = lines.map((l) => l.replace(/\*\//g, "*\\/"));
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((l) => `${indent} * ${l}`).join("\n")}\n${indent} */\n`;
}

class Mapper {
  constructor(defs) {
    this.defs = defs;
  }

  /** The TypeScript type of `schema`; multi-line object types are indented from `indent`. */
  type(schema, path, indent = "") {
    if (!isObject(schema)) throw new GeneratorError(`${path}: a schema must be an object`);
    for (const key of Object.keys(schema)) {
      if (!KNOWN.has(key)) throw new GeneratorError(`${path}: unsupported keyword '${key}'`);
    }
    if ("$ref" in schema) {
      const name = refName(schema.$ref, path);
      if (!(name in this.defs)) throw new GeneratorError(`${path}: $ref to unknown definition '${name}'`);
      return name;
    }
    if ("const" in schema) return literal(schema.const);
    if ("enum" in schema) return schema.enum.map(literal).join(" | ");
    if ("anyOf" in schema) {
      return schema.anyOf.map((s, i) => this.type(s, `${path}/anyOf/${i}`, indent)).join(" | ");
    }
    const union = taggedUnion(schema);
    if (union) return this.unionType(schema, union, path, indent);
    switch (schema.type) {
      case "string": return "string";
      case "number": case "integer": return "number";
      case "boolean": return "boolean";
      case "array": return this.arrayType(schema, path, indent);
      case "object": return this.objectType(schema, path, indent);
      default: throw new GeneratorError(`${path}: unsupported type ${literal(schema.type)}`);
    }
  }

  /** A discriminated union of named definitions, checked against the definitions it names so
   * that every member really carries its tag as a literal (what makes `type: "hologram"` fail). */
  unionType(schema, variants, path, indent) {
    const tag = variants[0].tag;
    const values = variants.map((v) => v.value);
    if (variants.some((v) => v.tag !== tag)) throw new GeneratorError(`${path}: a union with several tags`);
    const declared = schema.properties?.[tag]?.enum;
    if (!Array.isArray(declared) || literal(declared) !== literal(values) || !schema.required?.includes(tag)) {
      throw new GeneratorError(`${path}: the tag '${tag}' must be required with enum ${literal(values)}`);
    }
    const names = variants.map((v, i) => {
      const name = refName(v.ref, `${path}/allOf/${i}`);
      if (this.defs[name]?.properties?.[tag]?.const !== v.value || !this.defs[name].required?.includes(tag)) {
        throw new GeneratorError(`${path}: '${name}' must require ${tag} = ${literal(v.value)}`);
      }
      return name;
    });
    return names.map((n) => `\n${indent}  | ${n}`).join("");
  }

  arrayType(schema, path, indent) {
    const item = this.type(schema.items ?? {}, `${path}/items`, indent);
    // A fixed small length (an easing's four control points) is a tuple; anything else an array.
    if (schema.minItems !== undefined && schema.minItems === schema.maxItems && schema.minItems <= 8) {
      return `[${Array(schema.minItems).fill(item).join(", ")}]`;
    }
    return /^[A-Za-z0-9_$]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
  }

  objectType(schema, path, indent) {
    const inner = indent + "  ";
    const lines = [];
    const properties = schema.properties ?? {};
    const required = schema.required ?? [];
    // Required members first, in the schema's (documentation) order; then the optional ones.
    const names = [...required, ...Object.keys(properties).filter((n) => !required.includes(n))];
    for (const name of names) {
      const property = properties[name];
      if (!property) throw new GeneratorError(`${path}: '${name}' is required but not a property`);
      const type = this.type(property, `${path}/properties/${name}`, inner);
      const optional = required.includes(name) ? "" : "?";
      lines.push(`${docComment(property, inner)}${inner}${propertyKey(name)}${optional}: ${type};`);
    }
    const extra = schema.additionalProperties;
    if (isObject(extra)) {
      lines.push(`${inner}[key: string]: ${this.type(extra, `${path}/additionalProperties`, inner)};`);
    } else if (extra !== false && Object.keys(properties).length === 0) {
      lines.push(`${inner}[key: string]: unknown;`); // `{"type": "object"}`: any JSON object
    } else if (extra !== false) {
      throw new GeneratorError(`${path}: an object with properties must set additionalProperties: false`);
    }
    const body = lines.length ? `{\n${lines.join("\n")}\n${indent}}` : "{}";
    if (!schema.allOf) return body;
    return [body, ...this.constraintUnions(schema, path)].join(" & ");
  }

  /** `allOf` on a plain object: "if FIELD is V then also require …" and "not both A and B", as
   * unions intersected with the members, so a duration timer without `durationSeconds` or a spacer
   * with both `size` and `flex` fails to type-check like it fails validation. */
  constraintUnions(schema, path) {
    const byField = new Map();
    const unions = [];
    schema.allOf.forEach((entry, i) => {
      const where = `${path}/allOf/${i}`;
      const tag = ifTagConst(entry);
      if (tag && isObject(entry.then) && Array.isArray(entry.then.required) && Object.keys(entry.then).length === 1) {
        const [field, value] = tag;
        if (!byField.has(field)) byField.set(field, new Map());
        const extra = byField.get(field);
        extra.set(value, [...(extra.get(value) ?? []), ...entry.then.required]);
      } else if (Object.keys(entry).length === 1 && isObject(entry.not) && Array.isArray(entry.not.required)
        && Object.keys(entry.not).length === 1) {
        unions.push(`(${entry.not.required.map((n) => `{ ${propertyKey(n)}?: undefined }`).join(" | ")})`);
      } else {
        throw new GeneratorError(`${where}: unsupported allOf entry ${literal(entry)}`);
      }
    });
    const members = [];
    for (const [field, extra] of byField) {
      const fieldSchema = schema.properties?.[field];
      const values = fieldSchema?.enum ?? ("const" in (fieldSchema ?? {}) ? [fieldSchema.const] : null);
      if (!values) throw new GeneratorError(`${path}: a condition on '${field}', which has no enum`);
      const branches = values.map((value) => {
        const fields = [...new Set(extra.get(value) ?? [])].map((n) => {
          const type = this.type(schema.properties[n] ?? {}, `${path}/properties/${n}`);
          return `${propertyKey(n)}: ${type}`;
        });
        return `{ ${[`${propertyKey(field)}: ${literal(value)}`, ...fields].join("; ")} }`;
      });
      if (!(schema.required ?? []).includes(field)) branches.push(`{ ${propertyKey(field)}?: undefined }`);
      members.push(`(${branches.join(" | ")})`);
    }
    return [...members, ...unions];
  }
}

function renderDocument(schema) {
  if (!isObject(schema.$defs)) throw new GeneratorError("the schema has no $defs");
  const root = refName(schema.$ref ?? "", "#");
  const mapper = new Mapper(schema.$defs);
  // The root first (what a reader looks for), then the schema's order (alphabetical).
  const names = [root, ...Object.keys(schema.$defs).filter((n) => n !== root)];
  const blocks = names.map((name) => {
    const def = schema.$defs[name];
    const path = `#/$defs/${name}`;
    if (!IDENTIFIER.test(name)) throw new GeneratorError(`${path}: not a TypeScript name`);
    const type = mapper.type(def, path);
    const doc = docComment(def, "");
    const plainObject = def.type === "object" && !def.allOf && type.startsWith("{");
    if (plainObject) return `${doc}export interface ${name} ${type}`;
    return `${doc}export type ${name} =${type.startsWith("\n") ? "" : " "}${type};`;
  });
  const header = [
    `// Generated by scripts/generate-format.mjs from \`xizor schema --version ${SCHEMA_VERSION}\``,
    `// (${schema.$id ?? "paywall document schema"}). DO NOT EDIT.`,
    `// Regenerate (in clients/react-native): ${REGENERATE} [--xizor PATH]; \`--check\` fails when stale.`,
    "//",
    "// One type per $defs entry. Unions tagged by a member (`type`, `kind`) are TypeScript discriminated",
    "// unions, so an unknown node type does not type-check. Constraints a type cannot carry (patterns,",
    "// ranges, lengths) are in the doc comments; the server's validator checks them.",
  ].join("\n");
  const version = `/** The \`schemaVersion\` these types describe. */\nexport const documentSchemaVersion = ${SCHEMA_VERSION};`;
  return `${header}\n\n${version}\n\n${blocks.join("\n\n")}\n`;
}

// ---- templates ----

/** A JSON value as a TypeScript expression: identifier keys unquoted, short scalar arrays on one line. */
function tsValue(value, indent) {
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const flat = value.every((v) => !isObject(v) && !Array.isArray(v));
    const oneLine = `[${value.map((v) => tsValue(v, indent)).join(", ")}]`;
    if (flat && oneLine.length + indent.length <= 100) return oneLine;
    const inner = indent + "  ";
    return `[\n${value.map((v) => inner + tsValue(v, inner)).join(",\n")},\n${indent}]`;
  }
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) return "{}";
    const inner = indent + "  ";
    return `{\n${keys.map((k) => `${inner}${propertyKey(k)}: ${tsValue(value[k], inner)}`).join(",\n")},\n${indent}}`;
  }
  return literal(value);
}

const camelName = (name) => name.replace(/[_-]+([a-z0-9])/g, (_, c) => c.toUpperCase());

function renderTemplates(templates) {
  const header = [
    "// Generated by scripts/generate-format.mjs from `xizor templates NAME`. DO NOT EDIT.",
    `// Regenerate (in clients/react-native): ${REGENERATE} [--xizor PATH]; \`--check\` fails when stale.`,
    "//",
    "// Each template is annotated as a PaywallDocument, so compiling this file checks the server's",
    "// templates against the generated types. The constants are shared: copy one before editing it.",
  ].join("\n");
  const blocks = templates.map(({ name, title, document }) => {
    const doc = `/** The \`${name}\` template${title ? ` (“${title}”)` : ""}, as \`xizor templates ${name}\` prints it. */`;
    return `${doc}\nexport const ${camelName(name)}: PaywallDocument = ${tsValue(document, "")};`;
  });
  const names = templates.map((t) => literal(t.name));
  const record = templates.map((t) =>
    camelName(t.name) === t.name ? `  ${t.name},` : `  ${propertyKey(t.name)}: ${camelName(t.name)},`);
  return [
    `${header}\n\nimport type { PaywallDocument } from "./document.js";\n`,
    ...blocks.map((b) => `${b}\n`),
    `/** A template's name, as \`xizor templates\` lists it. */\nexport type TemplateName = ${names.join(" | ")};\n`,
    "/** Every template's name, in the server's order. */\n"
      + `export const templateNames: readonly TemplateName[] = [${names.join(", ")}];\n`,
    "/** Every template by name. */\n"
      + `export const templates: { readonly [Name in TemplateName]: PaywallDocument } = {\n${record.join("\n")}\n};\n`,
  ].join("\n");
}

// ---- main ----

function generate(binary) {
  if (!existsSync(binary)) {
    throw new GeneratorError(`no xizor binary at ${binary}: build it (swift build), or pass --xizor PATH or set XIZOR_BIN`);
  }
  const schema = JSON.parse(runXizor(binary, ["schema", "--version", String(SCHEMA_VERSION)]));
  const listed = runXizor(binary, ["templates"]).split("\n").filter((line) => line.trim() !== "");
  if (listed.length === 0) throw new GeneratorError(`${binary} templates lists no template`);
  const templates = listed.map((line) => {
    const [name, title = ""] = line.split("\t");
    const document = JSON.parse(runXizor(binary, ["templates", name]));
    if (document.schemaVersion !== SCHEMA_VERSION) {
      throw new GeneratorError(
        `template '${name}' is schemaVersion ${document.schemaVersion}, the types are ${SCHEMA_VERSION}: `
          + "update SCHEMA_VERSION in scripts/generate-format.mjs");
    }
    if (!IDENTIFIER.test(camelName(name))) throw new GeneratorError(`template name '${name}' is not a TypeScript name`);
    return { name, title, document };
  });
  return { [OUTPUTS.document]: renderDocument(schema), [OUTPUTS.templates]: renderTemplates(templates) };
}

/** The 1-based line where two texts first differ (for a stale file's message). */
function firstDifference(a, b) {
  const x = a.split("\n"), y = b.split("\n");
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i + 1;
}

function main() {
  const options = parseArguments(process.argv.slice(2));
  if (options.help) {
    console.log(`usage: ${REGENERATE} [--check] [--xizor PATH]   (binary: --xizor, $XIZOR_BIN, ../../.build/debug/xizor)`);
    return 0;
  }
  const binary = resolve(options.xizor ?? process.env.XIZOR_BIN ?? join(packageDir, "../../.build/debug/xizor"));
  const files = generate(binary);
  if (options.check) {
    const stale = [];
    for (const [file, text] of Object.entries(files)) {
      const path = join(packageDir, file);
      if (!existsSync(path)) stale.push(`${file} is missing`);
      else {
        const onDisk = readFileSync(path, "utf8");
        const line = firstDifference(onDisk, text);
        if (onDisk !== text) stale.push(`${file} is stale (differs from the generated text at line ${line})`);
      }
    }
    if (stale.length) {
      for (const s of stale) console.error(`generate-format --check: ${s}`);
      console.error(`generate-format --check: regenerate with \`${REGENERATE}\` in clients/react-native`);
      return 1;
    }
    console.log(`generate-format --check: ${Object.keys(files).join(", ")} are up to date`);
    return 0;
  }
  for (const [file, text] of Object.entries(files)) {
    const path = join(packageDir, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    console.log(`wrote ${file}`);
  }
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  if (!(error instanceof GeneratorError)) throw error;
  console.error(`generate-format: ${error.message}`);
  process.exitCode = error.status;
}
