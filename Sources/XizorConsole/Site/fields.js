// A typed control for any part of the document, chosen from its JSON Schema: localized texts with
// every locale side by side and a variable inserter, colours (theme tokens or hex, with a contrast
// warning), numbers with their bounds, enums, switches, unions (actions, gradients, backgrounds),
// alternatives (a number or per-edge padding, a preset or a cubic-bezier easing), objects, lists and
// maps. Each control writes through `ctx.change(segments, value, {commit})` and shows the server's
// validation issues for its path on the field itself.
import { h } from "./dom.js";
import { labelOf, describe, boundsHint } from "./schema.js";
import { formatPath } from "./model.js";
import { mediaControl } from "./media.js";
import { contrastWarning } from "./contrast.js";

/** `ctx`: {schema, document(), change(segments, value, {commit}), issuesAt(path) → [{severity, message}],
 *  variablesAt(segments) → [name], colorTokens() → [name], radiusTokens(), fontTokens(), slots(), play(segments)}. */
export function control(ctx, member, segments, { name, required = false, label } = {}) {
  const value = valueAt(ctx, segments);
  const kind = ctx.schema.kind(member);
  const resolved = ctx.schema.resolve(member);
  const title = label ?? labelOf(name ?? segments[segments.length - 1]);
  const path = formatPath(segments);
  // A product slot is picked from the document's slots, so a reference cannot be misspelt.
  const build = name === "productSlot" ? slotControl : BUILDERS[kind] ?? jsonControl;
  return build({ ctx, member, resolved, segments, value, title, required, path });
}

export function valueAt(ctx, segments) {
  let current = ctx.document();
  for (const segment of segments) current = current?.[segment];
  return current;
}

/** Issues of `path` itself (not of its members), as a list under the field. */
function issuesOf(ctx, path) {
  const found = ctx.issuesAt(path);
  if (!found.length) return null;
  return h("ul", { class: "field-issues" }, found.map((issue) => h("li", { class: issue.severity }, issue.message)));
}

/** A labelled row: the label, the control, the schema's hint and the path's issues. */
function row({ ctx, path, title, resolved }, input, extra = null) {
  const id = `p-${path.replace(/[^A-Za-z0-9]/g, "_")}`;
  if (input instanceof HTMLElement && ["INPUT", "SELECT", "TEXTAREA"].includes(input.tagName)) input.id = id;
  const issues = issuesOf(ctx, path);
  if (issues) {
    issues.id = `${id}-issues`;
    if (input instanceof HTMLElement) { input.setAttribute("aria-invalid", "true"); input.setAttribute("aria-describedby", issues.id); }
  }
  return h("div", { class: `prop${issues ? " invalid" : ""}`, dataset: { path } },
    h("label", { for: id }, title), input, extra, describe(resolved), issues);
}

function textInput({ ctx, segments, path }, value, parse = (raw) => raw, attributes = {}) {
  const input = h("input", { value: value ?? "", dataset: { field: path }, ...attributes });
  const write = (commit) => ctx.change(segments, input.value === "" ? undefined : parse(input.value), { commit });
  input.addEventListener("input", () => write(false));
  input.addEventListener("change", () => write(true));
  return input;
}

const BUILDERS = {
  const: () => null,
  node: () => null,
  string: (args) => row(args, textInput(args, args.value, undefined, { maxlength: args.resolved.maxLength ?? null })),
  url: (args) => row(args, mediaControl(args, textInput(args, args.value, undefined, { type: "url", placeholder: "https://…" }))),
  number: (args) => {
    const { resolved } = args;
    const step = resolved.multipleOf ?? (resolved.type === "integer" ? 1 : "any");
    const input = textInput(args, args.value, Number, {
      type: "number", step, min: resolved.minimum ?? resolved.exclusiveMinimum ?? null, max: resolved.maximum ?? null,
      placeholder: resolved.default ?? null, title: boundsHint(resolved) || null,
    });
    return row(args, input);
  },
  boolean: (args) => {
    const { ctx, segments, resolved, path, value } = args;
    const select = h("select", { dataset: { field: path } },
      h("option", { value: "" }, resolved.default === undefined ? "—" : `Default (${resolved.default ? "yes" : "no"})`),
      h("option", { value: "true", selected: value === true }, "Yes"), h("option", { value: "false", selected: value === false }, "No"));
    select.addEventListener("change", () => ctx.change(segments, select.value === "" ? undefined : select.value === "true", { commit: true }));
    return row(args, select);
  },
  enum: (args) => row(args, enumSelect(args, args.resolved.enum)),
  color: (args) => row(args, colorControl(args), contrastWarning(args.ctx, args.segments)),
  text: (args) => localizedText(args),
  union: (args) => unionControl(args),
  alternatives: (args) => alternativesControl(args),
  object: (args) => objectControl(args),
  array: (args) => arrayControl(args),
  map: (args) => mapControl(args),
};

function slotControl(args) {
  const slots = args.ctx.slots();
  const values = [...slots, "$selected"];
  if (typeof args.value === "string" && !values.includes(args.value)) values.push(args.value);
  return row(args, enumSelect({ ...args, required: true }, values, (v) => v === "$selected" ? "The product selector's choice" : v));
}

function enumSelect({ ctx, segments, path, value, required, resolved }, values, label = labelOf) {
  const select = h("select", { dataset: { field: path } },
    required ? null : h("option", { value: "" }, resolved.default !== undefined ? `Default (${resolved.default})` : "—"),
    values.map((v) => h("option", { value: v, selected: v === value }, label(v))));
  if (required && value === undefined) select.value = "";
  select.addEventListener("change", () => ctx.change(segments, select.value === "" ? undefined : select.value, { commit: true }));
  return select;
}

/** A colour: a theme token from the list, or a hex value with a picker. */
function colorControl({ ctx, segments, path, value }) {
  const tokens = ctx.colorTokens();
  const isToken = typeof value === "string" && value.startsWith("$");
  const choice = h("select", { dataset: { field: `${path}#kind` }, "aria-label": "Colour source" },
    h("option", { value: "" }, "—"), h("option", { value: "#hex", selected: typeof value === "string" && !isToken }, "Custom colour"),
    tokens.map((name) => h("option", { value: `$${name}`, selected: value === `$${name}` }, `Theme: ${name}`)));
  const hex = h("input", { value: !isToken && value ? value : "", placeholder: "#1A1A2E", size: 9, dataset: { field: path }, "aria-label": "Hex colour" });
  const picker = h("input", { type: "color", value: /^#[0-9a-fA-F]{6}$/.test(hex.value) ? hex.value : "#000000", "aria-label": "Pick a colour", tabindex: "-1" });
  const custom = h("span", { class: "color-custom", hidden: isToken || value === undefined }, hex, picker);
  choice.addEventListener("change", () => {
    if (choice.value === "#hex") { custom.hidden = false; hex.focus(); return; }
    ctx.change(segments, choice.value || undefined, { commit: true });
  });
  hex.addEventListener("change", () => ctx.change(segments, hex.value.trim() || undefined, { commit: true }));
  picker.addEventListener("input", () => { hex.value = picker.value.toUpperCase(); ctx.change(segments, hex.value, { commit: false }); });
  picker.addEventListener("change", () => ctx.change(segments, picker.value.toUpperCase(), { commit: true }));
  return h("span", { class: "color-control" }, choice, custom);
}

/** Every locale of the document side by side, missing ones marked, and the variables valid here. */
function localizedText({ ctx, segments, path, title, value, required }) {
  const document = ctx.document();
  const locales = document.locales ?? [];
  const issues = issuesOf(ctx, path);
  let last = null;
  const rows = locales.map((locale) => {
    const current = value?.[locale];
    const input = h("input", {
      value: current ?? "", "aria-label": `${title} (${locale})`, dataset: { field: `${path}|${locale}` },
      class: current === undefined ? "missing" : null, placeholder: current === undefined ? `missing in ${locale}` : null,
    });
    const write = (commit) => {
      const next = { ...(valueAt(ctx, segments) ?? {}) };
      if (input.value === "") delete next[locale]; else next[locale] = input.value;
      ctx.change(segments, Object.keys(next).length ? next : undefined, { commit });
    };
    input.addEventListener("focus", () => { last = input; });
    input.addEventListener("input", () => write(false));
    input.addEventListener("change", () => write(true));
    return h("div", { class: "locale-row" }, h("span", { class: "locale" }, locale), input);
  });
  const variables = ctx.variablesAt(segments);
  const inserter = variables.length ? h("select", { "aria-label": `Insert a variable into ${title}`, dataset: { field: `${path}#variable` } },
    h("option", { value: "" }, "Insert variable…"), variables.map((name) => h("option", { value: name }, `{{${name}}}`))) : null;
  inserter?.addEventListener("change", () => {
    const input = last ?? rows[0]?.querySelector("input");
    if (!input || !inserter.value) return;
    const at = input.selectionStart ?? input.value.length;
    input.value = `${input.value.slice(0, at)}{{${inserter.value}}}${input.value.slice(input.selectionEnd ?? at)}`;
    inserter.value = "";
    input.dispatchEvent(new Event("change"));
    input.focus();
  });
  return h("fieldset", { class: `prop localized${issues ? " invalid" : ""}`, dataset: { path } },
    h("legend", {}, title, required ? "" : h("span", { class: "muted" }, " (optional)")), rows, inserter, issues);
}

function unionControl(args) {
  const { ctx, member, segments, path, title, value, required } = args;
  const union = ctx.schema.union(member);
  const current = value?.[union.tag];
  const select = h("select", { dataset: { field: `${path}.${union.tag}` }, "aria-label": `${title}: ${union.tag}` },
    required ? null : h("option", { value: "" }, "None"), union.values.map((v) => h("option", { value: v, selected: v === current }, labelOf(v))));
  if (current === undefined) select.value = "";
  select.addEventListener("change", () => {
    ctx.change(segments, select.value ? { [union.tag]: select.value, ...requiredDefaults(ctx, union.schemaOf(select.value), union.tag) } : undefined, { commit: true });
  });
  const variant = current ? union.schemaOf(current) : null;
  const members = variant ? memberControls(ctx, variant, segments, [union.tag]) : [];
  return h("fieldset", { class: "prop union", dataset: { path } }, h("legend", {}, title),
    h("div", { class: "prop" }, h("label", { for: select.id = `p-${path.replace(/[^A-Za-z0-9]/g, "_")}-tag` }, labelOf(union.tag)), select),
    members, issuesOf(ctx, path));
}

/** Values for a variant's required members, so switching an action to `purchase` stays valid. */
function requiredDefaults(ctx, variant, tag) {
  const out = {};
  for (const name of variant?.required ?? []) {
    if (name === tag) continue;
    const member = variant.properties[name];
    const kind = ctx.schema.kind(member);
    const resolved = ctx.schema.resolve(member);
    if (name === "productSlot") out[name] = ctx.slots()[0] ?? "$selected";
    else if (kind === "enum") out[name] = resolved.enum[0];
    else if (kind === "number") out[name] = resolved.default ?? resolved.minimum ?? 0;
    else if (kind === "color") out[name] = "#000000";
    else if (kind === "array" && ctx.schema.kind(resolved.items) === "object") out[name] = [];
    else if (kind === "text") out[name] = Object.fromEntries((ctx.document().locales ?? []).map((l) => [l, ""]));
    else if (kind === "string" || kind === "url") out[name] = kind === "url" ? "https://" : "";
  }
  return out;
}

/** The controls of an object's members, in the schema's order (the tag and `type` left out). */
export function memberControls(ctx, objectSchema, segments, skip = []) {
  const required = new Set(objectSchema.required ?? []);
  return Object.entries(objectSchema.properties ?? {})
    .filter(([name]) => !skip.includes(name) && name !== "type")
    .map(([name, member]) => control(ctx, member, [...segments, name], { name, required: required.has(name) }));
}

function objectControl(args) {
  const { ctx, resolved, segments, path, title, value, member } = args;
  const open = ctx.isOpen(path, value !== undefined);
  const details = h("details", { class: "prop object", dataset: { path }, open },
    h("summary", {}, title, value === undefined ? h("span", { class: "muted" }, " (not set)") : null));
  details.addEventListener("toggle", () => ctx.setOpen(path, details.open));
  const name = member?.$ref?.split("_").pop();
  details.append(...memberControls(ctx, resolved, segments));
  if (name === "Animation") details.append(h("button", { type: "button", class: "secondary small", onclick: () => ctx.play(segments) }, "Play in the canvas"));
  if (value !== undefined) details.append(h("button", { type: "button", class: "link small", onclick: () => ctx.change(segments, undefined, { commit: true }) }, `Clear ${title.toLowerCase()}`));
  const issues = issuesOf(ctx, path);
  if (issues) details.append(issues);
  return details;
}

/** One of several shapes: a chooser ("Number" / "Per edge", "Preset" / "Cubic-bezier", …), then its control. */
function alternativesControl(args) {
  const { ctx, resolved, segments, path, title, value } = args;
  const options = resolved.anyOf.map((alternative, i) => ({ alternative, label: alternativeLabel(ctx, alternative, i) }));
  const index = Math.max(0, options.findIndex(({ alternative }) => matches(ctx, alternative, value)));
  const chooser = h("select", { "aria-label": `${title}: kind`, dataset: { field: `${path}#alternative` } },
    options.map(({ label }, i) => h("option", { value: String(i), selected: i === index }, label)));
  chooser.addEventListener("change", () => {
    ctx.change(segments, initialOf(ctx, options[Number(chooser.value)].alternative), { commit: true });
  });
  const chosen = options[index].alternative;
  const inner = control(ctx, chosen, segments, { label: title });
  return h("div", { class: "prop alternatives", dataset: { path } }, h("div", { class: "alt-head" }, chooser), inner);
}

/** A first value of an alternative, so choosing it shows its control (and validates). */
function initialOf(ctx, alternative) {
  const kind = ctx.schema.kind(alternative);
  const resolved = ctx.schema.resolve(alternative);
  if (kind === "array") return [0.25, 0.1, 0.25, 1];
  if (kind === "union") {
    const union = ctx.schema.union(alternative);
    return { [union.tag]: union.values[0], ...requiredDefaults(ctx, union.schemaOf(union.values[0]), union.tag) };
  }
  if (kind === "object") return {};
  if (kind === "enum") return resolved.enum[0];
  if (kind === "number") return resolved.minimum ?? 0;
  if (kind === "color") return "#000000";
  const token = ctx.radiusTokens()[0];
  return kind === "string" && token ? `$${token}` : undefined;
}

function alternativeLabel(ctx, alternative, i) {
  const kind = ctx.schema.kind(alternative);
  const resolved = ctx.schema.resolve(alternative);
  const name = alternative.$ref?.split("_").pop();
  if (name === "EdgeInsets") return "Per edge";
  if (name) return labelOf(name);
  if (kind === "enum") return resolved.enum.length === 1 ? labelOf(resolved.enum[0]) : "Preset";
  if (kind === "array") return resolved.items?.type === "number" && resolved.minItems === 4 ? "Cubic-bezier" : "List";
  if (kind === "string" && /\^\\\$/.test(resolved.pattern ?? "")) return "Theme token";
  if (kind === "color") return "Colour";
  return kind === "number" ? "Number" : labelOf(kind || `option ${i + 1}`);
}

function matches(ctx, alternative, value) {
  if (value === undefined) return false;
  const resolved = ctx.schema.resolve(alternative);
  const kind = ctx.schema.kind(alternative);
  if (kind === "enum") return resolved.enum.includes(value);
  if (kind === "number") return typeof value === "number";
  if (kind === "array") return Array.isArray(value);
  if (kind === "string" || kind === "color") return typeof value === "string" && (!resolved.pattern || new RegExp(resolved.pattern).test(value));
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function arrayControl(args) {
  const { ctx, resolved, segments, path, title, value } = args;
  const items = Array.isArray(value) ? value : [];
  const itemKind = ctx.schema.kind(resolved.items);
  // Child nodes are the tree's to edit (add, move, delete), not a list here.
  if (itemKind === "node") return null;
  if (resolved.items?.type === "number" && resolved.minItems === 4 && resolved.maxItems === 4) return cubicBezier(args, items);
  const list = h("ol", { class: "prop-list" }, items.map((_, i) => h("li", {},
    control(ctx, resolved.items, [...segments, i], { label: `${title} ${i + 1}` }),
    h("button", { type: "button", class: "link small", "aria-label": `Remove ${title} ${i + 1}`,
      onclick: () => ctx.change(segments, items.filter((__, j) => j !== i), { commit: true }) }, "Remove"))));
  const fresh = () => itemKind === "object" ? requiredDefaults(ctx, ctx.schema.resolve(resolved.items), null)
    : itemKind === "text" ? {} : itemKind === "number" ? 0 : "";
  const add = resolved.maxItems !== undefined && items.length >= resolved.maxItems ? null
    : h("button", { type: "button", class: "secondary small", onclick: () => ctx.change(segments, [...items, fresh()], { commit: true }) }, `Add ${title.toLowerCase()}`);
  return h("fieldset", { class: "prop array", dataset: { path } }, h("legend", {}, title), list, add, issuesOf(ctx, path));
}

function cubicBezier(args, items) {
  const { ctx, segments, path, title } = args;
  const names = ["x1", "y1", "x2", "y2"];
  const inputs = names.map((name, i) => {
    const input = h("input", { type: "number", step: "0.01", value: items[i] ?? "", "aria-label": `${title} ${name}`, dataset: { field: `${path}[${i}]` }, size: 5 });
    input.addEventListener("change", () => {
      const next = inputs.map((field) => Number(field.value || 0));
      ctx.change(segments, next, { commit: true });
    });
    return input;
  });
  return h("div", { class: "prop bezier", dataset: { path } }, h("span", {}, `${title} (cubic-bezier)`), inputs, issuesOf(ctx, path));
}

/** An object used as a map (theme tokens): a row per key, add and remove. */
function mapControl(args) {
  const { ctx, resolved, segments, path, title, value } = args;
  const entries = Object.entries(value ?? {});
  const name = h("input", { placeholder: "name", "aria-label": `New ${title.toLowerCase()} name`, size: 12 });
  return h("fieldset", { class: "prop map", dataset: { path } }, h("legend", {}, title),
    entries.map(([key]) => h("div", { class: "map-row" },
      control(ctx, resolved.additionalProperties, [...segments, key], { label: key }),
      h("button", { type: "button", class: "link small", "aria-label": `Remove ${key}`, onclick: () => {
        const next = { ...value }; delete next[key]; ctx.change(segments, next, { commit: true });
      } }, "Remove"))),
    h("div", { class: "inline-form" }, name, h("button", { type: "button", class: "secondary small", onclick: () => {
      const key = name.value.trim();
      if (!key) return;
      const kind = ctx.schema.kind(resolved.additionalProperties);
      ctx.change(segments, { ...(value ?? {}), [key]: kind === "number" ? 0 : kind === "object" ? {} : "#000000" }, { commit: true });
    } }, "Add")), issuesOf(ctx, path));
}

/** Anything else, as JSON (a custom action's payload). */
function jsonControl(args) {
  const { ctx, segments, value, path } = args;
  const area = h("textarea", { class: "code", rows: "3", dataset: { field: path } }, value === undefined ? "" : JSON.stringify(value));
  area.addEventListener("change", () => {
    try {
      ctx.change(segments, area.value.trim() ? JSON.parse(area.value) : undefined, { commit: true });
      area.setCustomValidity("");
    } catch (error) {
      area.setCustomValidity(error.message);
      area.reportValidity();
    }
  });
  return row(args, area);
}
