// The paywall format's JSON Schema, as the server publishes it in /openapi.json (generated from the
// same definitions as its validator): the editor's property panels are built from it, so a node type
// or a property the server learns appears here without console code.
import { h } from "./dom.js";

let loading = null;

/** The schema of `version` (`PaywallV<n>_*` components), loaded once per page. */
export async function formatSchema(version) {
  loading ??= fetch("/openapi.json", { cache: "no-store" }).then((response) => {
    if (!response.ok) throw new Error(`the format's schema could not be loaded (HTTP ${response.status})`);
    return response.json();
  });
  const components = (await loading).components.schemas;
  const prefix = `PaywallV${version}_`;
  if (!components[`${prefix}PaywallDocument`]) throw new Error(`this console does not know schema version ${version}`);
  return new FormatSchema(components, prefix);
}

export class FormatSchema {
  constructor(components, prefix) {
    this.components = components;
    this.prefix = prefix;
  }

  /** A schema with its `$ref` followed (and the referring schema's description kept). */
  resolve(schema) {
    let current = schema ?? {};
    for (let hops = 0; current.$ref && hops < 16; hops++) {
      const name = current.$ref.split("/").pop();
      const target = this.components[name];
      if (!target) break;
      current = { ...target, description: current.description ?? target.description, default: current.default ?? target.default };
    }
    return current;
  }

  definition(name) { return this.resolve({ $ref: `#/components/schemas/${this.prefix}${name}` }); }

  get document() { return this.definition("PaywallDocument"); }

  /** A tagged union (`allOf` of `if {tag: const} then $ref`): {tag, values, schemaOf(value)}, or null. */
  union(schema) {
    const resolved = this.resolve(schema);
    if (!Array.isArray(resolved.allOf) || !resolved.properties) return null;
    const tag = Object.keys(resolved.properties)[0];
    const values = resolved.properties[tag]?.enum ?? [];
    const branches = new Map(resolved.allOf.map((branch) => [branch.if?.properties?.[tag]?.const, branch.then]));
    return { tag, values, schemaOf: (value) => (branches.has(value) ? this.resolve(branches.get(value)) : null) };
  }

  /** The node types, in the schema's order. */
  get nodeTypes() { return this.union(this.definition("PaywallNode")).values; }

  nodeSchema(type) { return this.union(this.definition("PaywallNode")).schemaOf(type); }

  /** What a schema is, for picking a control: a LocalizedText, a colour, a union, an object, … */
  kind(schema) {
    const resolved = this.resolve(schema);
    const name = schema?.$ref?.split("_").pop();
    if (name === "LocalizedText") return "text";
    if (name === "PaywallNode") return "node";
    if (this.union(schema)) return "union";
    if (resolved.anyOf) return "alternatives";
    if (resolved.const !== undefined) return "const";
    if (resolved.enum) return "enum";
    if (resolved.type === "string" && isColorPattern(resolved.pattern)) return "color";
    if (resolved.type === "string" && /https/.test(resolved.pattern ?? "")) return "url";
    if (resolved.type === "string") return "string";
    if (resolved.type === "number" || resolved.type === "integer") return "number";
    if (resolved.type === "boolean") return "boolean";
    if (resolved.type === "array") return "array";
    if (resolved.type === "object" && resolved.properties) return "object";
    if (resolved.type === "object" && resolved.additionalProperties) return "map";
    return "json";
  }
}

/** Whether a string pattern is the format's colour (hex, or `$token`). */
export function isColorPattern(pattern) {
  return typeof pattern === "string" && pattern.includes("0-9A-Fa-f") && pattern.includes("#");
}

/** A number's bounds as a hint ("≥ 0", "100–900, steps of 100"). */
export function boundsHint(schema) {
  const parts = [];
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) parts.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.multipleOf !== undefined) parts.push(`steps of ${schema.multipleOf}`);
  if (schema.type === "integer") parts.push("whole");
  return parts.join(", ");
}

/** A readable label for a property name: `autoAdvanceMs` → "Auto advance ms". */
export function labelOf(name) {
  const words = String(name).replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A short line under a field: the schema's description, its default and bounds. */
export function describe(schema) {
  const parts = [];
  if (schema.description) parts.push(schema.description.replace(/`/g, ""));
  if (schema.default !== undefined && typeof schema.default !== "object") parts.push(`Default: ${schema.default}`);
  const bounds = boundsHint(schema);
  if (bounds && (schema.type === "number" || schema.type === "integer")) parts.push(bounds);
  return parts.length ? h("p", { class: "hint" }, parts.join(" · ")) : null;
}
