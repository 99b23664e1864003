// The editor's toolbar: undo and redo, the save state, publish with a note, and serving the paywall
// on a placement (PUT /v1/placements/{key}), which needs a published version.
import { get, post, put } from "./api.js";
import { h, problemBox, announce, fill } from "./dom.js";

const STATES = { saved: "All changes saved", unsaved: "Unsaved changes…", saving: "Saving…", conflict: "Not saved: changed elsewhere", failed: "Not saved" };

/** `ctx`: {path, paywallId, feedback, flush(), published(), refused(error), undo(), redo(), history()}. */
export function publishBar(ctx) {
  const undo = h("button", { type: "button", class: "secondary small", onclick: ctx.undo, "aria-keyshortcuts": "Control+Z" }, "Undo");
  const redo = h("button", { type: "button", class: "secondary small", onclick: ctx.redo, "aria-keyshortcuts": "Control+Shift+Z" }, "Redo");
  const status = h("span", { class: "save-state", role: "status" }, STATES.saved);
  const note = h("input", { name: "note", maxlength: "500", placeholder: "What changed", "aria-label": "Publish note" });
  const placement = h("input", { name: "placement", list: "placement-keys", placeholder: "onboarding", "aria-label": "Placement key", size: 14 });
  const keys = h("datalist", { id: "placement-keys" });

  async function publish() {
    fill(ctx.feedback);
    try {
      await ctx.flush();
      const body = note.value.trim() ? { note: note.value.trim() } : {};
      const version = await post(`${ctx.path}/publish`, body);
      announce(version.unchanged ? `Nothing to publish: v${version.version} is this draft.` : `Published v${version.version}.`);
      note.value = "";
      await ctx.published();
    } catch (error) {
      const listed = error.errors?.length > 0;
      if (listed) ctx.refused(error);
      fill(ctx.feedback, problemBox(error, { listErrors: !listed }));
    }
  }

  async function assign() {
    fill(ctx.feedback);
    const key = placement.value.trim();
    if (!key) return placement.focus();
    try {
      await put(`/v1/placements/${encodeURIComponent(key)}`, { paywallId: ctx.paywallId });
      announce(`Placement ${key} serves this paywall.`);
    } catch (error) {
      fill(ctx.feedback, problemBox(error));
    }
  }

  get("/v1/placements?limit=200").then(({ items }) => fill(keys, items.map((p) => h("option", { value: p.key })))).catch(() => {});

  const section = h("div", { class: "editor-toolbar" },
    h("div", { class: "actions" }, undo, redo, status),
    h("div", { class: "actions" }, note, h("button", { type: "button", onclick: publish }, "Publish")),
    h("div", { class: "actions" }, placement, keys, h("button", { type: "button", class: "secondary", onclick: assign }, "Serve on placement")));

  return {
    section,
    state(label) { status.textContent = STATES[label] ?? label; status.dataset.state = label; },
    refresh() {
      const history = ctx.history();
      undo.disabled = !history.canUndo;
      redo.disabled = !history.canRedo;
      undo.title = history.undoLabel ? `Undo ${history.undoLabel}` : "Nothing to undo";
      redo.title = history.redoLabel ? `Redo ${history.redoLabel}` : "Nothing to redo";
    },
  };
}
