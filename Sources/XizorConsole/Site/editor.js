// The visual editor: the node tree (left), the canvas (centre, the real rendered page) and the
// selection's properties generated from the format's schema (right); Products, Locales, Theme and
// Settings panels; the JSON as an Advanced view in sync. Every edit is undoable and autosaved under
// If-Match; an edit made elsewhere is noticed within seconds and offered as reload / keep / compare.
import { h, show, problemBox, announce, fill } from "./dom.js";
import { analyticsSection } from "./analytics.js";
import { formatSchema, labelOf } from "./schema.js";
import { parsePath, formatPath, getAt, setAt, owningNode, placeNode, removeNode, duplicateNode, wrapNode, moveNode, shiftNode, newNode, withFreshIds } from "./model.js";
import { History } from "./history.js";
import { outline } from "./outline.js";
import { canvas } from "./canvas.js";
import { propertiesPane } from "./properties.js";
import { productsPanel, themePanel, settingsPanel } from "./panels.js";
import { localesPanel } from "./locales.js";
import { jsonView } from "./jsonview.js";
import { versionsSection } from "./versions.js";
import { issuesPanel } from "./issues.js";
import { Draft } from "./draft.js";
import { publishBar } from "./publish.js";

const TABS = [["design", "Design"], ["products", "Products"], ["locales", "Locales"], ["theme", "Theme"], ["settings", "Settings"], ["json", "JSON (advanced)"]];
const CLIPBOARD = "xizor.console.clipboard";
const PRODUCT_FIELDS = ["price", "period", "title", "description", "pricePerWeek", "pricePerMonth", "introPrice", "introPeriod", "trialDays", "currency"];

export async function editorView(paywallId) {
  const path = `/v1/paywalls/${encodeURIComponent(paywallId)}`;
  const title = h("h1", {}, "Edit paywall");
  const feedback = h("div", {});
  const left = h("div", { class: "pane tree-pane" });
  const right = h("div", { class: "pane properties-pane" });
  const panel = h("div", {});
  const tabs = h("div", { role: "tablist", class: "tabs", "aria-label": "Editor views" });
  const design = h("div", { class: "designer" });
  let tab = "design";
  let selected = ["root"];
  let hovered = null;
  let schema = null;
  const open = new Map();

  const draft = new Draft(path, {
    saved: (sentAt, { changedIssues }) => {
      // Panes are drawn again only when the validation changed, so a field being typed in is not replaced.
      if (changedIssues) { issues.render(draft.validation); renderPanes({ keepJSON: true }); }
      view.refresh(sentAt);
    },
    conflict: (theirs) => issues.conflict(theirs),
    state: (label) => publish.state(label),
    failed: (error) => fill(feedback, problemBox(error)),
  });
  const history = new History(null);

  const issues = issuesPanel({
    reveal: (issuePath, offset) => reveal(issuePath, offset),
    reload: async () => {
      await draft.reload();
      history.push(draft.document, "their changes");
      await loadSchema();
      renderPanes({ keepJSON: false });
      view.refresh();
      announce("Reloaded.");
    },
    keep: async () => { await draft.overwrite(); await settle(); },
    mine: () => draft.document,
  });
  const view = canvas({
    path, document: () => draft.savedDocument,
    select: (nodePath) => { try { select(parsePath(nodePath), { fromCanvas: true }); } catch { /* not a node path: ignore */ } },
    hover: (nodePath) => markHovered(nodePath ? safeParse(nodePath) : null, false),
  });
  const json = jsonView({
    apply: async (document) => {
      edit(document, "JSON edit");
      await settle();
    },
    issues: (validation, parseError) => issues.render(validation, parseError),
    failed: (error) => fill(feedback, problemBox(error)),
  });
  const versions = versionsSection(path, feedback);
  const publish = publishBar({
    path, paywallId, feedback,
    flush: () => draft.flush(),
    published: async () => { await versions.refresh(); },
    refused: (error) => issues.render({ errors: error.errors, warnings: [] }),
    undo: () => undo(), redo: () => redo(),
    history: () => history,
  });

  /** Waits for the draft to be saved and says so; a conflict is left to its banner, a failure shown. */
  async function settle() {
    try {
      await draft.flush();
      announce(`Saved (revision ${draft.revision}).`);
    } catch (error) {
      if (draft.state !== "conflict") fill(feedback, problemBox(error));
    }
  }

  function safeParse(nodePath) { try { return parsePath(nodePath); } catch { return null; } }

  /** The field context every control writes through (fields.js). */
  const fieldContext = {
    get schema() { return schema; },
    document: () => draft.document,
    change: (segments, value, { commit }) => {
      draft.set(setAt(draft.document, segments, value));
      if (commit) history.push(draft.document, `${labelOf(String(segments[segments.length - 1]))}`);
      afterEdit(commit);
    },
    replace: (document, label) => edit(document, label),
    issuesAt: (issuePath) => issues.at(issuePath),
    issueList: (prefix) => issues.listUnder(prefix),
    variablesAt: (segments) => variablesAt(segments),
    colorTokens: () => Object.keys(draft.document.theme?.colors ?? {}),
    radiusTokens: () => Object.keys(draft.document.theme?.radii ?? {}),
    slots: () => (draft.document.products ?? []).map((p) => p.slot),
    isOpen: (p, fallback) => open.get(p) ?? fallback,
    setOpen: (p, value) => open.set(p, value),
    play: () => view.refresh(performance.now()),
    describeText: (segments) => describeText(segments),
    path,
  };

  function variablesAt(segments) {
    const document = draft.document;
    const slots = (document.products ?? []).map((p) => p.slot);
    const names = slots.length ? PRODUCT_FIELDS.map((f) => `product.${f}`) : [];
    for (const slot of slots) names.push(`products.${slot}.price`, `products.${slot}.period`);
    const owner = owningNode(document, segments);
    if (owner && getAt(document, owner)?.type === "timer" && segments[owner.length] === "label") names.unshift("timer.remaining");
    return names;
  }

  function describeText(segments) {
    const owner = owningNode(draft.document, segments);
    const node = owner ? getAt(draft.document, owner) : null;
    const field = segments.slice(owner?.length ?? 0).filter((s) => typeof s === "string").join(" ");
    return node ? `${labelOf(node.type)}${node.id ? ` #${node.id}` : ""} · ${labelOf(field || "text")}` : labelOf(field);
  }

  /** A whole-document edit (structure, panels, JSON): one undo step, saved at once. */
  function edit(document, label, nextSelection) {
    draft.set(document);
    history.push(document, label);
    if (nextSelection) selected = nextSelection;
    afterEdit(true);
  }

  function afterEdit(commit) {
    // A committed edit is sent before anything is drawn again: the canvas shows it sooner.
    if (commit) draft.saveNow(); else draft.schedule(600);
    if (!commit) return renderOutline();
    if (draft.document.schemaVersion !== schema?.version) loadSchema().then(() => renderPanes());
    else renderPanes();
  }

  async function loadSchema() {
    schema = await formatSchema(draft.document.schemaVersion ?? 2);
    schema.version = draft.document.schemaVersion ?? 2;
  }

  /** Undo (back) or redo: the document it answers becomes the draft, saved like any edit. */
  function step(back) {
    const document = back ? history.undo() : history.redo();
    if (document === null) return;
    draft.set(document);
    if (!getAt(document, selected)) selected = ["root"];
    afterEdit(true);
    announce(back ? `Undone: ${history.redoLabel ?? "edit"}.` : `Redone: ${history.undoLabel ?? "edit"}.`);
  }
  const undo = () => step(true);
  const redo = () => step(false);

  function select(segments, { fromCanvas = false, focusTree = false } = {}) {
    if (!getAt(draft.document, segments)) return;
    selected = segments;
    if (fromCanvas && tab !== "design") setTab("design");
    renderPanes({ keepJSON: true });
    if (focusTree) left.querySelector("li[aria-selected='true']")?.focus();
  }

  /** An issue's place: the JSON text in the Advanced view, else the field (its node selected first). */
  function reveal(issuePath, offset) {
    if (tab === "json" || offset !== undefined) {
      if (tab !== "json") setTab("json");
      return json.reveal(issuePath, offset);
    }
    const segments = safeParse(issuePath) ?? [];
    const owner = owningNode(draft.document, segments);
    const target = owner ? "design" : { products: "products", locales: "locales", defaultLocale: "locales", theme: "theme", settings: "settings", name: "settings" }[segments[0]] ?? "json";
    if (owner) selected = owner;
    setTab(target);
    if (target === "json") return json.reveal(issuePath);
    const root = target === "design" ? right : panel;
    const fieldBox = [...root.querySelectorAll("[data-path]")].filter((e) => issuePath.startsWith(e.dataset.path)).pop();
    fieldBox?.scrollIntoView({ block: "center" });
    (fieldBox?.querySelector("input, select, textarea") ?? fieldBox)?.focus?.();
  }

  function renderOutline() {
    const ctx = {
      document: draft.document, selected, hovered, errorsOf: (p) => issues.errorsOwnedBy(p, draft.document),
      select: (segments) => select(segments, { focusTree: true }), hover: (segments) => markHovered(segments, true),
      move: (from, parent, container, index) => structure(() => moveNode(draft.document, from, parent, container, index), "move"),
      shift: (delta) => structure(() => shiftNode(draft.document, selected, delta), "move", true),
      remove: () => removeSelected(),
    };
    const focused = left.contains(document.activeElement);
    fill(left, h("h2", { class: "pane-title" }, "Nodes"), palette(), outline(ctx));
    if (focused) left.querySelector("li[aria-selected='true']")?.focus();
    view.highlight(formatPath(selected), hovered ? formatPath(hovered) : null);
  }

  /** Outlines the hovered node in the tree (a class, not a redraw: the row under the pointer stays the
   * element a click lands on) and, when the tree is hovered, in the canvas. */
  function markHovered(segments, inCanvas) {
    hovered = segments;
    const path = segments ? formatPath(segments) : null;
    for (const row of left.querySelectorAll("li.hovered")) row.classList.remove("hovered");
    if (path) left.querySelector(`li[data-path="${CSS.escape(path)}"]`)?.classList.add("hovered");
    if (inCanvas) view.highlight(formatPath(selected), path);
  }

  /** Add a node of any type, above, below or inside the selection, with defaults that validate. */
  function palette() {
    const type = h("select", { "aria-label": "Node type to add" }, (schema?.nodeTypes ?? []).map((t) => h("option", { value: t }, labelOf(t))));
    const where = h("select", { "aria-label": "Where to add it" }, h("option", { value: "after" }, "below the selection"), h("option", { value: "before" }, "above the selection"), h("option", { value: "inside" }, "inside the selection"));
    return h("div", { class: "palette" }, type, where, h("button", { type: "button", class: "small", onclick: () =>
      structure(() => placeNode(draft.document, selected, where.value, newNode(type.value, draft.document, schema)), `add ${labelOf(type.value).toLowerCase()}`) }, "Add"));
  }

  /** Runs a structure edit answering [document, newSelection]; a refusal is said, not thrown. */
  function structure(operation, label, focusTree = false) {
    try {
      const [document, next] = operation();
      edit(document, label, next);
      if (focusTree) left.querySelector("li[aria-selected='true']")?.focus();
      announce(`${labelOf(label)}: done.`);
    } catch (error) {
      announce(error.message);
    }
  }

  function removeSelected() {
    if (selected.length <= 1) return announce("The root node cannot be deleted.");
    const parent = owningNode(draft.document, selected.slice(0, -1)) ?? ["root"];
    try { edit(removeNode(draft.document, selected), "delete", parent); announce("Deleted (undo brings it back)."); } catch (error) { announce(error.message); }
  }

  const structureContext = {
    duplicate: () => structure(() => duplicateNode(draft.document, selected), "duplicate"),
    wrap: () => structure(() => wrapNode(draft.document, selected), "wrap in stack"),
    remove: () => removeSelected(),
    copy: () => { localStorage.setItem(CLIPBOARD, JSON.stringify(getAt(draft.document, selected))); announce("Copied: paste it into any paywall."); renderProperties(); },
    paste: () => {
      let node;
      try { node = JSON.parse(localStorage.getItem(CLIPBOARD)); } catch { return announce("Nothing to paste."); }
      structure(() => placeNode(draft.document, selected.length > 1 ? selected : [...selected], selected.length > 1 ? "after" : "inside", withFreshIds(node, draft.document)), "paste");
    },
    canPaste: () => localStorage.getItem(CLIPBOARD) !== null,
    addFallback: (type) => structure(() => [setAt(draft.document, [...selected, "fallback"], newNode(type, draft.document, schema)), [...selected, "fallback"]], "add fallback"),
  };

  /** Re-renders a pane keeping the focused control (and its caret) where it was. */
  function keepingFocus(container, render) {
    const active = document.activeElement;
    const key = container.contains(active) ? active.dataset.field : null;
    const caret = key && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
    render();
    if (!key) return;
    const again = container.querySelector(`[data-field="${CSS.escape(key)}"]`);
    if (!again) return;
    again.focus();
    if (caret && typeof again.setSelectionRange === "function") try { again.setSelectionRange(...caret); } catch { /* not a text input */ }
  }

  function renderProperties() {
    keepingFocus(right, () => fill(right, propertiesPane({ ...fieldContext, ...structureContext, selected })));
  }

  function renderPanel() {
    const render = { products: productsPanel, locales: localesPanel, theme: themePanel, settings: settingsPanel }[tab];
    if (render) keepingFocus(panel, () => fill(panel, render(fieldContext)));
  }

  function renderPanes({ keepJSON = false } = {}) {
    if (!schema) return;
    title.textContent = `Edit “${draft.document.name ?? paywallId}”`;
    renderOutline();
    renderProperties();
    renderPanel();
    if (tab === "json") json.show(draft.document, { force: !keepJSON });
    publish.refresh();
  }

  function setTab(name) {
    tab = name;
    for (const button of tabs.children) {
      const on = button.dataset.tab === name;
      button.setAttribute("aria-selected", on ? "true" : "false");
      button.tabIndex = on ? 0 : -1;
    }
    design.hidden = name !== "design";
    if (name !== "design" && name !== "json") panel.setAttribute("aria-labelledby", `tab-${name}`);
    panel.hidden = name === "design" || name === "json";
    json.section.hidden = name !== "json";
    // The text shows the draft unless it holds edits of its own not yet saved (kept, not overwritten).
    if (name === "json") json.show(draft.document);
    renderPanel();
  }

  for (const [name, label] of TABS) {
    // Design and JSON have their own panels; the four document panels share one.
    const controls = name === "design" || name === "json" ? `view-${name}` : "view-panel";
    const button = h("button", { type: "button", role: "tab", id: `tab-${name}`, "aria-controls": controls, dataset: { tab: name }, onclick: () => setTab(name) }, label);
    button.addEventListener("keydown", (event) => {
      const i = TABS.findIndex(([n]) => n === name);
      const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      if (!step) return;
      const next = TABS[(i + step + TABS.length) % TABS.length][0];
      setTab(next);
      tabs.querySelector(`[data-tab="${next}"]`).focus();
    });
    tabs.append(button);
  }
  design.id = "view-design"; design.setAttribute("role", "tabpanel"); design.setAttribute("aria-labelledby", "tab-design");
  panel.id = "view-panel"; panel.setAttribute("role", "tabpanel");
  json.section.id = "view-json"; json.section.setAttribute("role", "tabpanel");
  design.append(left, view.section, right);

  // Undo and redo from the keyboard, anywhere in the editor but the JSON text (which has its own).
  const onKey = (event) => {
    if (!root.isConnected) return window.removeEventListener("keydown", onKey);
    if (!(event.ctrlKey || event.metaKey) || event.target === json.text) return;
    const key = event.key.toLowerCase();
    if (key === "z" && !event.shiftKey) { event.preventDefault(); document.activeElement?.blur?.(); undo(); }
    else if ((key === "z" && event.shiftKey) || key === "y") { event.preventDefault(); redo(); }
  };
  window.addEventListener("keydown", onKey);

  const root = h("div", { class: "editor-root" }, publish.section, issues.section, feedback, tabs, design, panel, json.section, versions.section);
  show(title, h("p", {}, h("a", { href: "#/paywalls" }, "← All paywalls")), root);
  try {
    await draft.load();
    history.reset(draft.document);
    await loadSchema();
    issues.render(draft.validation);
    setTab("design");
    renderPanes();
    draft.watch(() => root.isConnected);
  } catch (error) {
    fill(feedback, problemBox(error));
    return;
  }
  await view.refresh();
  await versions.refresh();
  root.append(await analyticsSection(paywallId));
}
