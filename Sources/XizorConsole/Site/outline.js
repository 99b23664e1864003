// The node tree (the editor's left pane): every node of the document as the renderer walks it, with
// its type, a hint of its content and a badge when it has validation errors. A click or the arrow keys
// select; Alt+↑/↓ move a node among its siblings, Delete removes it; a node dragged onto another lands
// before or after it (or inside an empty stack). One tab stop: the selected row.
import { h } from "./dom.js";
import { nodesOf, formatPath } from "./model.js";
import { labelOf } from "./schema.js";

/** `ctx`: {document, selected (segments), hovered, errorsOf(pathString) → count, select(segments), hover(segments|null),
 *  move(from, parent, container, index), shift(delta), remove(), duplicate()}. */
export function outline(ctx) {
  const entries = nodesOf(ctx.document);
  const selected = ctx.selected ? formatPath(ctx.selected) : null;
  const hovered = ctx.hovered ? formatPath(ctx.hovered) : null;
  const list = h("ul", { class: "outline", role: "tree", "aria-label": "Nodes" });
  let dragged = null;
  entries.forEach((entry, index) => {
    const path = formatPath(entry.path);
    const errors = ctx.errorsOf(path);
    const isSelected = path === selected;
    const row = h("li", {
      role: "treeitem", "aria-level": String(entry.depth + 1), "aria-selected": isSelected ? "true" : "false",
      tabindex: isSelected || (!selected && index === 0) ? "0" : "-1", draggable: entry.depth > 0 ? "true" : null,
      class: [path === hovered ? "hovered" : null, errors ? "has-errors" : null].filter(Boolean).join(" ") || null,
      dataset: { path },
    },
    entry.slot && entry.slot !== "children" ? h("span", { class: "slot" }, `${entry.slot} · `) : null,
    h("span", { class: "type" }, labelOf(entry.node.type)),
    summary(entry.node, ctx.document) ? h("span", { class: "summary" }, ` ${summary(entry.node, ctx.document)}`) : null,
    errors ? h("span", { class: "badge error", title: `${errors} error${errors === 1 ? "" : "s"}` }, `${errors} ${errors === 1 ? "error" : "errors"}`) : null);
    row.style.setProperty("--depth", String(entry.depth));
    row.addEventListener("click", () => ctx.select(entry.path));
    row.addEventListener("mouseenter", () => ctx.hover(entry.path));
    row.addEventListener("mouseleave", () => ctx.hover(null));
    row.addEventListener("keydown", (event) => key(event, index));
    row.addEventListener("dragstart", (event) => { dragged = entry; event.dataTransfer.effectAllowed = "move"; event.dataTransfer.setData("text/plain", path); });
    row.addEventListener("dragover", (event) => {
      if (!dragged) return;
      event.preventDefault();
      const after = isLowerHalf(event, row);
      row.classList.toggle("drop-before", !after);
      row.classList.toggle("drop-after", after);
    });
    row.addEventListener("dragleave", () => row.classList.remove("drop-before", "drop-after"));
    row.addEventListener("drop", (event) => {
      event.preventDefault();
      row.classList.remove("drop-before", "drop-after");
      if (!dragged || dragged === entry) return;
      drop(dragged, entry, isLowerHalf(event, row));
      dragged = null;
    });
    list.append(row);
    // An empty stack takes drops inside it.
    if (entry.node.type === "stack" && Array.isArray(entry.node.children) && entry.node.children.length === 0) {
      const inside = h("li", { role: "none", class: "empty-drop" }, "empty: drop a node here");
      inside.style.setProperty("--depth", String(entry.depth + 1));
      inside.addEventListener("dragover", (event) => { if (dragged) event.preventDefault(); });
      inside.addEventListener("drop", (event) => { event.preventDefault(); if (dragged) ctx.move(dragged.path, entry.path, "children", 0); dragged = null; });
      list.append(inside);
    }
  });

  function drop(from, onto, after) {
    const last = onto.path[onto.path.length - 1];
    if (typeof last !== "number") return;
    ctx.move(from.path, onto.path.slice(0, -2), onto.path[onto.path.length - 2], after ? last + 1 : last);
  }

  function key(event, index) {
    const go = (to) => { event.preventDefault(); if (entries[to]) ctx.select(entries[to].path); };
    if (event.altKey && (event.key === "ArrowUp" || event.key === "ArrowDown")) { event.preventDefault(); ctx.shift(event.key === "ArrowUp" ? -1 : 1); }
    else if (event.key === "ArrowUp") go(index - 1);
    else if (event.key === "ArrowDown") go(index + 1);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(entries.length - 1);
    else if (event.key === "Delete" || event.key === "Backspace") { event.preventDefault(); ctx.remove(); }
  }
  return list;
}

function isLowerHalf(event, element) {
  const box = element.getBoundingClientRect();
  return event.clientY > box.top + box.height / 2;
}

/** A few words of what a node shows: its text in the default locale, its slot, its id. */
function summary(node, document) {
  const text = node.text ?? node.label;
  const locale = document.defaultLocale;
  const words = text && typeof text === "object" ? text[locale] ?? Object.values(text)[0] : null;
  const parts = [];
  if (typeof words === "string" && words) parts.push(`“${words.length > 28 ? `${words.slice(0, 27)}…` : words}”`);
  if (node.type === "stack" && node.direction) parts.push(node.direction);
  if (node.productSlot) parts.push(`→ ${node.productSlot}`);
  if (node.id) parts.push(`#${node.id}`);
  return parts.join(" ");
}
