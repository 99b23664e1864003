// An audit log (docs/integrations.md): the app's, or the instance's own (sign-ins, accounts: the
// admin's) — who did what, a key or a person and their session — filtered by action, target and
// time, a page at a time.
import { get } from "./api.js";
import { h, show, field, problemBox, time, fill, submitter } from "./dom.js";

const PAGE = 50;

function actorOf(actor) {
  if (actor.kind === "user") return `${actor.email} (${actor.via})`;
  if (actor.keyId) return `${actor.kind} key ${actor.keyId} (${actor.via})`;
  return `${actor.kind} (${actor.via})`;
}

export async function auditView(path = "/v1/audit-log", title = "Audit log") {
  const list = h("div", {});
  const errors = h("div", {});
  const action = h("input", { name: "action", placeholder: "paywall.published", spellcheck: "false" });
  const target = h("input", { name: "targetId", spellcheck: "false" });
  const from = h("input", { type: "date", name: "from" });
  const to = h("input", { type: "date", name: "to" });
  let cursors = [null];

  function query(cursor) {
    const params = new URLSearchParams({ limit: String(PAGE) });
    if (action.value.trim()) params.set("action", action.value.trim());
    if (target.value.trim()) params.set("targetId", target.value.trim());
    if (from.value) params.set("from", `${from.value}T00:00:00Z`);
    if (to.value) params.set("to", `${to.value}T23:59:59Z`);
    if (cursor) params.set("cursor", cursor);
    return `${path}?${params}`;
  }

  async function load(page) {
    try {
      const answer = await get(query(cursors[page]));
      cursors = cursors.slice(0, page + 1);
      if (answer.nextCursor) cursors.push(answer.nextCursor);
      fill(list, answer.entries.length === 0 ? h("p", {}, "Nothing recorded for these filters.") : h("table", {},
        h("caption", {}, `${title}, page ${page + 1}`),
        h("thead", {}, h("tr", {}, ["When", "Who", "Action", "Target"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, answer.entries.map((entry) => h("tr", { "data-entry": entry.id },
          h("td", {}, time(entry.at)), h("td", {}, actorOf(entry.actor)), h("td", {}, h("code", {}, entry.action)),
          h("td", {}, entry.target.kind, entry.target.id ? " " : null, entry.target.id ? h("code", {}, entry.target.id) : null))))),
        h("div", { class: "pager" },
          page > 0 ? h("button", { type: "button", class: "secondary", onclick: () => load(page - 1) }, "Newer") : null,
          answer.nextCursor ? h("button", { type: "button", class: "secondary", onclick: () => load(page + 1) }, "Older") : null));
    } catch (error) {
      fill(list, problemBox(error));
    }
  }

  const filters = h("form", {
    class: "card",
    onsubmit: submitter(errors, async () => { cursors = [null]; await load(0); }),
  }, h("h2", {}, "Filters"), field("Action", action), field("Target id", target), field("From", from), field("To", to),
  errors, h("button", { type: "submit" }, "Show"));

  show(h("h1", {}, title), filters, list);
  await load(0);
}
