// The draft's validation, said in words: a summary ("2 errors, 1 warning") whose items take you to
// the field (or, in the JSON view, the text); the issues of one path for its field; the error count of
// each node for its badge in the tree. And the banner for an edit made elsewhere.
import { h, fill } from "./dom.js";
import { parsePath, owningNode, formatPath } from "./model.js";
import { sideBySide } from "./diff.js";

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** `ctx`: {reveal(path, offset), reload(), keep(), mine()}. */
export function issuesPanel(ctx) {
  const box = h("div", { id: "issues", class: "issues", "aria-live": "polite" });
  const banner = h("div", {});
  let errors = [];
  let warnings = [];

  function render(validation, parseError) {
    errors = [...(parseError ? [{ path: "$", message: parseError.message, code: "invalid_json", offset: parseError.offset }] : []), ...(validation?.errors ?? [])];
    warnings = validation?.warnings ?? [];
    const items = [...errors.map((issue) => item(issue, "error")), ...warnings.map((issue) => item(issue, "warning"))];
    const heading = items.length ? `Validation: ${plural(errors.length, "error")}, ${plural(warnings.length, "warning")}` : "Validation: no problems";
    fill(box, items.length ? h("details", { open: errors.length > 0 }, h("summary", {}, h("h2", {}, heading)), h("ul", {}, items)) : h("h2", {}, heading));
  }

  function item(issue, severity) {
    return h("li", { class: severity },
      h("button", { type: "button", class: "link", onclick: () => ctx.reveal(issue.path, issue.offset) },
        h("span", { class: "badge" }, severity), " ", issue.message, " ", h("code", { class: "muted" }, issue.path)));
  }

  /** The issues of exactly `path`, for its field. */
  function at(path) {
    return [...errors.filter((i) => i.path === path).map((i) => ({ ...i, severity: "error" })),
      ...warnings.filter((i) => i.path === path).map((i) => ({ ...i, severity: "warning" }))];
  }

  /** Errors and warnings under `prefix` (a panel's part of the document), as a list. */
  function listUnder(prefix) {
    const found = [...errors.map((i) => [i, "error"]), ...warnings.map((i) => [i, "warning"])].filter(([i]) => i.path.startsWith(prefix));
    return found.length ? h("ul", { class: "field-issues" }, found.map(([i, severity]) => h("li", { class: severity }, i.message))) : null;
  }

  /** How many errors belong to the node at `nodePath` itself (not to its children). */
  function errorsOwnedBy(nodePath, document) {
    let count = 0;
    for (const issue of errors) {
      try {
        const owner = owningNode(document, parsePath(issue.path));
        if (owner && formatPath(owner) === nodePath) count++;
      } catch { /* a path this console cannot read belongs to no node */ }
    }
    return count;
  }

  function conflict(theirs) {
    const compare = h("div", {});
    fill(banner, h("div", { class: "problem conflict", role: "alert" },
      h("p", {}, h("strong", {}, "This draft was changed elsewhere"), " (another tab, a teammate or an agent) since you loaded it. Your edits are kept here, not saved."),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary", onclick: async () => { fill(banner); await ctx.reload(); } }, "Reload theirs"),
        h("button", { type: "button", class: "secondary", onclick: async () => { fill(banner); await ctx.keep(); } }, "Keep mine"),
        h("button", { type: "button", class: "secondary", onclick: () => fill(compare, sideBySide(theirs, ctx.mine(), { leftTitle: "theirs", rightTitle: "mine" })) }, "Compare")),
      compare));
  }

  return { section: h("div", {}, banner, box), render, at, listUnder, errorsOwnedBy, conflict };
}
