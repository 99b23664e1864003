// The draft as the editor changes it: values read and written by JSON path (`$.root.children[2]`,
// as the server's validation issues and the preview's elements name them), the node tree walked the
// way the renderer walks it, and the structure edits (add, duplicate, delete, wrap, move). Every edit
// answers a new document and leaves the old one as it was, so undo is keeping the old one.

/** `$.root.children[2].text.en` → ["root", "children", 2, "text", "en"]. */
export function parsePath(path) {
  const segments = [];
  const pattern = /\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\['((?:[^'\\]|\\.)*)'\]/gy;
  if (!path.startsWith("$")) throw new Error(`not a JSON path: ${path}`);
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const at = pattern.lastIndex;
    const match = pattern.exec(path);
    if (!match || match.index !== at) throw new Error(`not a JSON path: ${path}`);
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(JSON.parse(match[3]));
    else segments.push(match[4]);
  }
  return segments;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function formatPath(segments) {
  return "$" + segments.map((s) => typeof s === "number" ? `[${s}]` : IDENTIFIER.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`).join("");
}

export function getAt(value, segments) {
  let current = value;
  for (const segment of segments) {
    if (current === null || typeof current !== "object") return undefined;
    current = current[segment];
  }
  return current;
}

/** A copy of `document` with the value at `segments` set (undefined removes it; missing objects are made). */
export function setAt(document, segments, value) {
  if (segments.length === 0) return value;
  const [head, ...rest] = segments;
  const base = Array.isArray(document) ? [...document] : document && typeof document === "object" ? { ...document } : typeof head === "number" ? [] : {};
  const next = setAt(base[head], rest, value);
  if (next === undefined && !Array.isArray(base)) delete base[head];
  else base[head] = next;
  return base;
}

/** Where a node's children live, in the renderer's order. */
export const CONTAINERS = ["children", "pages"];

export function isNode(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && typeof value.type === "string";
}

/** Every node under `root` (pre-order): {path: segments, node, depth, parent: segments|null, slot}. */
export function nodesOf(document) {
  const out = [];
  function walk(node, segments, depth, parent, slot) {
    if (!isNode(node)) return;
    out.push({ path: segments, node, depth, parent, slot });
    for (const key of CONTAINERS) {
      if (Array.isArray(node[key])) node[key].forEach((child, i) => walk(child, [...segments, key, i], depth + 1, segments, key));
    }
    if (isNode(node.option)) walk(node.option, [...segments, "option"], depth + 1, segments, "option");
    if (isNode(node.fallback)) walk(node.fallback, [...segments, "fallback"], depth + 1, segments, "fallback");
  }
  walk(document?.root, ["root"], 0, null, null);
  return out;
}

/** The node path that holds `path` (an issue's `$.root.children[1].text.de` → the text node's). */
export function owningNode(document, segments) {
  let best = null;
  for (const entry of nodesOf(document)) {
    if (entry.path.length <= segments.length && entry.path.every((s, i) => s === segments[i])
      && (!best || entry.path.length > best.length)) best = entry.path;
  }
  return best;
}

/** Every `id` in the document, to keep new ones unique. */
function idsOf(document) {
  return new Set(nodesOf(document).map((entry) => entry.node.id).filter((id) => typeof id === "string"));
}

function uniqueId(base, taken) {
  let candidate = base.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 56) || "node";
  for (let n = 2; taken.has(candidate); n++) candidate = `${base.slice(0, 56)}-${n}`;
  taken.add(candidate);
  return candidate;
}

/** A copy of a subtree whose ids are unique in `document` (pasted or duplicated nodes keep none of theirs). */
export function withFreshIds(node, document) {
  const taken = idsOf(document);
  const copy = structuredClone(node);
  const visit = (value) => {
    if (!isNode(value)) return;
    if (typeof value.id === "string") value.id = uniqueId(value.id, taken);
    for (const key of CONTAINERS) if (Array.isArray(value[key])) value[key].forEach(visit);
    visit(value.option);
    visit(value.fallback);
  };
  visit(copy);
  return copy;
}

/** Inserts `node` into the array `container` of the node at `parent`, at `index`; answers [document, path]. */
export function insertNode(document, parent, container, index, node) {
  const list = getAt(document, [...parent, container]) ?? [];
  const at = Math.max(0, Math.min(index, list.length));
  const next = setAt(document, [...parent, container], [...list.slice(0, at), node, ...list.slice(at)]);
  return [next, [...parent, container, at]];
}

/** Where a new node goes relative to the selection: "before", "after" or "inside" (a container's end). */
export function placeNode(document, selection, where, node) {
  const target = getAt(document, selection);
  if (where === "inside") {
    const key = CONTAINERS.find((k) => Array.isArray(target?.[k])) ?? (target?.type === "stack" ? "children" : null);
    if (!key) throw new Error("Only stacks and carousels hold other nodes.");
    return insertNode(document, selection, key, (target[key] ?? []).length, node);
  }
  const index = selection[selection.length - 1];
  if (typeof index !== "number") throw new Error("This node has no siblings: add inside a stack instead.");
  const container = selection.slice(0, -1);
  return insertNode(document, container.slice(0, -1), container[container.length - 1], where === "before" ? index : index + 1, node);
}

export function removeNode(document, segments) {
  if (segments.length <= 1) throw new Error("The root node cannot be deleted.");
  const last = segments[segments.length - 1];
  if (typeof last !== "number") return setAt(document, segments, undefined);
  const container = segments.slice(0, -1);
  const list = getAt(document, container);
  return setAt(document, container, list.filter((_, i) => i !== last));
}

export function duplicateNode(document, segments) {
  const copy = withFreshIds(getAt(document, segments), document);
  return placeNode(document, segments, "after", copy);
}

/** Wraps the node in a vertical stack (the stack takes its place). */
export function wrapNode(document, segments) {
  const node = getAt(document, segments);
  return [setAt(document, segments, { type: "stack", direction: "vertical", children: [node] }), [...segments, "children", 0]];
}

/**
 * Moves the node at `from` into the array `container` of the node at `parent`, before the element that
 * is at `index` now; answers [document, newPath]. Refuses to move a node into itself.
 */
export function moveNode(document, from, parent, container, index) {
  const target = [...parent, container];
  if (from.length <= target.length && from.every((s, i) => s === target[i])) throw new Error("A node cannot move into itself.");
  const node = getAt(document, from);
  const sameList = typeof from[from.length - 1] === "number" && from.length === target.length + 1 && target.every((s, i) => s === from[i]);
  let at = index;
  if (sameList && from[from.length - 1] < index) at -= 1;
  const without = removeNode(document, from);
  // Removing an earlier sibling of an ancestor shifts the parent's own path.
  const shifted = shiftAfterRemoval(parent, from);
  return insertNode(without, shifted, container, at, node);
}

/** `path` as it reads after the node at `removed` left its array. */
function shiftAfterRemoval(path, removed) {
  const depth = removed.length - 1;
  const prefix = removed.slice(0, depth);
  if (path.length <= depth || !prefix.every((s, i) => s === path[i])) return path;
  const index = path[depth];
  if (typeof index !== "number" || index <= removed[depth]) return path;
  return [...path.slice(0, depth), index - 1, ...path.slice(depth + 1)];
}

/** Moves a node one place up (-1) or down (+1) among its siblings. */
export function shiftNode(document, segments, delta) {
  const index = segments[segments.length - 1];
  if (typeof index !== "number") return [document, segments];
  const container = segments.slice(0, -1);
  const list = getAt(document, container);
  const to = index + delta;
  if (to < 0 || to >= list.length) return [document, segments];
  const next = [...list];
  [next[index], next[to]] = [next[to], next[index]];
  return [setAt(document, container, next), [...container, to]];
}

/** The same text in every locale of the document. */
export function textIn(document, value) {
  return Object.fromEntries((document.locales ?? [document.defaultLocale ?? "en"]).map((locale) => [locale, value]));
}

/** A new node of `type` that validates as it is: required fields filled, texts in every locale. */
export function newNode(type, document, schema) {
  const t = (value) => textIn(document, value);
  const slot = document.products?.[0]?.slot ?? "$selected";
  const media = "https://xizor.localhost/v1/assets/templates/";
  const image = `${media}clean-header.png`;
  const presets = {
    stack: { direction: "vertical", gap: 8, children: [] },
    text: { text: t("New text") },
    image: { src: image, aspectRatio: 1.5 },
    video: { src: `${media}clean-sync-demo.mp4`, poster: `${media}clean-sync-demo-poster.jpg`, aspectRatio: 1.78 },
    lottie: { src: `${media}lottie-delight-mascot-wave.json`, fallback: { type: "image", src: `${media}lottie-delight-mascot-wave.png` } },
    button: { label: t("Button"), action: { type: "close" } },
    purchase_button: { productSlot: slot, label: t("Continue") },
    restore_button: { label: t("Restore purchases") },
    carousel: { pages: [{ type: "text", text: t("Page 1") }] },
    timer: { kind: "duration", durationSeconds: 900, id: "timer", label: t("Offer ends in {{timer.remaining}}") },
    feature_list: { items: [{ icon: "✓", text: t("A feature") }] },
    spacer: { size: 16 },
    divider: {},
    badge: { text: t("Best value") },
    product_selector: { layout: "cards" },
    footer_links: { showRestore: true },
  };
  const node = { type, ...(presets[type] ?? requiredOf(schema?.nodeSchema(type), schema, document)) };
  return withFreshIds(node, document);
}

/** Required members filled with the simplest valid value, for a node type this console has no preset for. */
function requiredOf(nodeSchema, schema, document) {
  const out = {};
  for (const name of nodeSchema?.required ?? []) {
    if (name === "type") continue;
    const member = nodeSchema.properties[name];
    const kind = schema.kind(member);
    const resolved = schema.resolve(member);
    out[name] = kind === "text" ? textIn(document, "Text") : kind === "enum" ? resolved.enum[0] : kind === "number" ? (resolved.minimum ?? 1)
      : kind === "boolean" ? false : kind === "array" ? [] : kind === "object" ? {} : "";
  }
  return out;
}
