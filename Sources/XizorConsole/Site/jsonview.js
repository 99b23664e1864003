// The editor's Advanced view: the draft as JSON text, validated as you type (the server's validator a
// moment after typing stops; a JSON syntax error found here with its line), each issue selecting its
// place in the text; "Save draft" makes the text the draft (an undoable edit like any other).
import { post } from "./api.js";
import { h, field } from "./dom.js";
import { locate, spanOf } from "./jsonpos.js";

/** `ctx`: {apply(document) (the text as the new draft, saved), issues(validation, parseError), failed(error)}. */
export function jsonView(ctx) {
  const text = h("textarea", { class: "code", rows: "28", spellcheck: "false", "aria-describedby": "issues" });
  let timer = null;

  /** Shows `document` (after an edit elsewhere), unless the text has edits of its own not yet saved. */
  function show(document, { force = false } = {}) {
    if (!force && text.dataset.dirty === "true") return;
    text.value = JSON.stringify(document, null, 2);
    text.dataset.dirty = "false";
  }

  /** Selects the text of `issuePath` (or of the nearest value that exists, or the offset) and scrolls to it. */
  function reveal(issuePath, offset) {
    let start = offset ?? 0, end = (offset ?? 0) + 1;
    if (offset === undefined) {
      try {
        const span = spanOf(locate(text.value).spans, issuePath);
        start = span.start; end = span.end;
      } catch (error) {
        start = error.offset ?? 0; end = start + 1;
      }
    }
    text.focus();
    text.setSelectionRange(start, end);
    const line = text.value.slice(0, start).split("\n").length;
    text.scrollTop = Math.max(0, (line - 5) * parseFloat(getComputedStyle(text).lineHeight || "18"));
  }

  text.addEventListener("input", () => {
    text.dataset.dirty = "true";
    clearTimeout(timer);
    timer = setTimeout(async () => {
      let document;
      try {
        document = locate(text.value).value;
      } catch (error) {
        return ctx.issues(null, error);
      }
      try {
        ctx.issues(await post("/v1/validate", document));
      } catch (error) {
        ctx.failed(error);
      }
    }, 350);
  });

  async function save() {
    let document;
    try {
      document = locate(text.value).value;
    } catch (error) {
      ctx.issues(null, error);
      return reveal("$", error.offset);
    }
    text.dataset.dirty = "false";
    await ctx.apply(document);
  }

  const section = h("section", { class: "panel", "aria-labelledby": "json-heading" },
    h("h2", { id: "json-heading" }, "Advanced: the document as JSON"),
    h("p", { class: "hint" }, "Everything the visual editor does, as the JSON the API stores. Saving it is one undoable edit."),
    field("Document (JSON)", text),
    h("div", { class: "toolbar" }, h("button", { type: "button", onclick: save }, "Save draft")));
  return { section, show, reveal, text };
}
