// The document as a collapsible tree: objects and arrays fold (<details>), every node is a button
// that selects its place in the JSON text, so a large document can be walked without scrolling.
import { h } from "./dom.js";
import { childPath } from "./jsonpos.js";

/** `select(path)` is called with a node's JSON path. Nodes deeper than `open` levels start folded. */
export function tree(value, select, { open = 2 } = {}) {
  function node(key, value, path, depth) {
    const label = h("button", { type: "button", class: "link", onclick: () => select(path), title: path }, h("code", {}, key));
    if (value !== null && typeof value === "object") {
      const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
      const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
      return h("li", {}, h("details", { open: depth < open },
        h("summary", {}, label, " ", h("span", { class: "muted" }, describe(value) || summary)),
        h("ul", {}, entries.map(([k, v]) => node(String(k), v, childPath(path, k), depth + 1)))));
    }
    return h("li", {}, label, ": ", h("span", { class: `leaf ${value === null ? "null" : typeof value}` }, JSON.stringify(value)));
  }
  return h("ul", { class: "tree" }, node("$", value, "$", 0));
}

/** What a node is, in a word: a paywall node's type and id, or a product's slot. */
function describe(value) {
  if (Array.isArray(value)) return "";
  const parts = [];
  if (typeof value.type === "string") parts.push(value.type);
  if (typeof value.id === "string") parts.push(`#${value.id}`);
  if (typeof value.slot === "string") parts.push(`slot ${value.slot}`);
  return parts.join(" ");
}
