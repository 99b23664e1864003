// The selection's properties (the editor's right pane), generated from the format's schema: the node
// type's own fields first, then style, animation, accessibility and its id, each a typed control
// (fields.js). Above them the structure edits of the selection: duplicate, wrap in a stack, copy,
// paste, delete.
import { h } from "./dom.js";
import { control, memberControls } from "./fields.js";
import { labelOf } from "./schema.js";
import { getAt } from "./model.js";

const COMMON = ["style", "animation", "accessibilityLabel", "id", "fallback"];

/** `ctx`: the field context (fields.js) plus {selected (segments), duplicate(), wrap(), remove(), copy(), paste(), canPaste()}. */
export function propertiesPane(ctx) {
  const node = getAt(ctx.document(), ctx.selected ?? []);
  if (!node || typeof node.type !== "string") {
    return h("div", { class: "properties" }, h("p", { class: "hint" }, "Select a node in the tree or click one in the canvas."));
  }
  const nodeSchema = ctx.schema.nodeSchema(node.type);
  const heading = h("h2", { class: "pane-title", id: "properties-heading" }, labelOf(node.type), node.id ? h("span", { class: "muted" }, ` #${node.id}`) : null);
  const isRoot = ctx.selected.length <= 1;
  const actions = h("div", { class: "actions structure-actions" },
    h("button", { type: "button", class: "secondary small", onclick: ctx.duplicate, disabled: isRoot }, "Duplicate"),
    h("button", { type: "button", class: "secondary small", onclick: ctx.wrap }, "Wrap in stack"),
    h("button", { type: "button", class: "secondary small", onclick: ctx.copy }, "Copy"),
    h("button", { type: "button", class: "secondary small", onclick: ctx.paste, disabled: !ctx.canPaste() }, "Paste below"),
    h("button", { type: "button", class: "danger small", onclick: ctx.remove, disabled: isRoot }, "Delete"));
  if (!nodeSchema) {
    return h("div", { class: "properties" }, heading, actions,
      h("p", { class: "hint" }, `This console does not know “${node.type}” nodes: edit it in the JSON view.`));
  }
  const own = memberControls(ctx, nodeSchema, ctx.selected, COMMON);
  const common = COMMON.filter((name) => nodeSchema.properties?.[name] && name !== "fallback")
    .map((name) => control(ctx, nodeSchema.properties[name], [...ctx.selected, name], { name, label: name === "accessibilityLabel" ? "Accessibility label" : undefined }));
  return h("div", { class: "properties", role: "group", "aria-labelledby": "properties-heading" },
    heading, actions, nodeSchema.description ? h("p", { class: "hint" }, nodeSchema.description.replace(/`/g, "")) : null,
    own, common, nodeSchema.properties?.fallback && !node.fallback ? fallbackAdder(ctx) : null);
}

/** A fallback (what renderers that do not know this node type show): added here, edited in the tree. */
function fallbackAdder(ctx) {
  const type = h("select", { "aria-label": "Fallback node type" }, ctx.schema.nodeTypes.map((t) => h("option", { value: t, selected: t === "image" }, labelOf(t))));
  return h("div", { class: "prop" }, h("span", { class: "hint" }, "Fallback: none. Renderers that do not know this node show it instead."),
    h("div", { class: "actions" }, type, h("button", { type: "button", class: "secondary small", onclick: () => ctx.addFallback(type.value) }, "Add fallback")));
}
