// Audiences: conditions written once and referred to by rules as {"audience": ID}, each with the
// rules that use it. Create one, edit its condition in the builder the rules use, rename, delete
// (refused, with the rules named, while one refers to it). A change is live on the next SDK request.
// Each card saves and redraws itself alone: what is being edited in another card stays as it is.
import { get, put, del } from "./api.js";
import { h, show, field, problemBox, announce, fill, submitter } from "./dom.js";
import { conditionBuilder } from "./rules.js";

/** A write's warnings (a comparison that can never match), each with its path, as the rules' are listed. */
function warningList(warnings) {
  return h("ul", { class: "issues-inline" }, warnings.map((issue) => h("li", { class: "warning" },
    h("span", { class: "badge" }, "warning"), " ", h("code", {}, issue.path), " ", issue.message)));
}

export async function audiencesView() {
  const list = h("div", {});
  const errors = h("div", {});
  const id = h("input", { name: "id", required: true, maxlength: "64", pattern: "[A-Za-z0-9_\\-]+" });
  const name = h("input", { name: "name", maxlength: "200", placeholder: "German-speaking countries" });
  let fresh = { key: "device.country", op: "in", value: ["DE", "AT", "CH"] };
  // The cards by audience id: what is listed (`known`) is read from them.
  const cards = new Map();
  let keys = [];
  const empty = h("p", {}, "No audiences yet: a condition made here can be used by any rule.");
  const builderBox = h("div", {});
  const drawNew = () => fill(builderBox, conditionBuilder(fresh, (next) => { fresh = next; }, "New audience condition", null, keys));

  const form = h("form", {
    class: "card",
    onsubmit: submitter(errors, async () => {
      const wanted = id.value.trim();
      // PUT replaces: creating an id that exists asks first.
      if (cards.has(wanted) && !confirm(`An audience '${wanted}' exists. Replace its condition?`)) return;
      const body = { condition: fresh };
      if (name.value.trim()) body.name = name.value.trim();
      const saved = await put(`/v1/audiences/${encodeURIComponent(wanted)}`, body);
      announce(`Audience ${wanted} saved.`);
      id.value = "";
      name.value = "";
      place(saved);
    }),
  }, h("h2", {}, "New audience"),
  field("Id", id, "What rules name: {\"audience\": \"dach\"}. Letters, digits, _ and -."),
  field("Name", name, "Left empty, the id."),
  h("p", { class: "hint" }, "Condition"), builderBox,
  errors, h("button", { type: "submit" }, "Create audience"));

  function usedBy(audience) {
    if (!audience.usedBy.length) return "No rule uses it yet.";
    return `Used by ${audience.usedBy.map((ref) => `${ref.placement} rule ${ref.rule + 1}`).join(", ")}.`;
  }

  /** Puts a saved audience's card in its place (a new one at the end, in id order as the list). */
  function place(audience) {
    const next = card(audience);
    const old = cards.get(audience.id);
    if (old) old.replaceWith(next);
    else {
      empty.remove();
      const after = [...cards.keys()].sort().find((other) => other > audience.id);
      if (after) cards.get(after).before(next); else list.append(next);
    }
    cards.set(audience.id, next);
  }

  function card(audience) {
    let condition = audience.condition;
    const feedback = h("div", {}, audience.warnings?.length ? warningList(audience.warnings) : null);
    const label = h("input", { value: audience.name, maxlength: "200", "aria-label": `Name of ${audience.id}` });
    const heading = h("h2", { id: `audience-${audience.id}` }, audience.name, " ", h("code", { class: "muted" }, audience.id));
    const users = h("p", {}, usedBy(audience));
    const save = async () => {
      fill(feedback);
      try {
        const saved = await put(`/v1/audiences/${encodeURIComponent(audience.id)}`, { name: label.value.trim() || audience.id, condition });
        announce(`Audience ${audience.id} saved.`);
        // This card only, and without drawing its builder again: what it shows is what was saved.
        fill(heading, saved.name, " ", h("code", { class: "muted" }, saved.id));
        fill(users, usedBy(saved));
        if (saved.warnings?.length) fill(feedback, warningList(saved.warnings));
      } catch (error) {
        fill(feedback, problemBox(error));
      }
    };
    const remove = async () => {
      if (!confirm(`Delete the audience ${audience.id}?`)) return;
      fill(feedback);
      try {
        await del(`/v1/audiences/${encodeURIComponent(audience.id)}`);
        announce(`Audience ${audience.id} deleted.`);
        cards.get(audience.id)?.remove();
        cards.delete(audience.id);
        if (cards.size === 0) list.append(empty);
      } catch (error) {
        fill(feedback, problemBox(error));
      }
    };
    return h("section", { class: "card", "aria-labelledby": `audience-${audience.id}` },
      heading, users, field("Name", label),
      conditionBuilder(condition, (next) => { condition = next; }, `Audience ${audience.id} condition`, null, keys),
      feedback,
      h("div", { class: "toolbar" },
        h("button", { type: "button", onclick: save }, `Save ${audience.id}`),
        h("button", { type: "button", class: "danger", onclick: remove, "aria-label": `Delete audience ${audience.id}` }, "Delete")));
  }

  show(h("h1", {}, "Audiences"), list, form);
  // The key picker's choices are a help only: without them a key is typed.
  const known = await get("/v1/targeting/keys").catch(() => null);
  keys = known ? [...known.device, ...known.subscriber, ...known.context] : [];
  drawNew();
  try {
    const items = (await get("/v1/audiences")).items;
    fill(list, items.length === 0 ? empty : []);
    for (const audience of items) place(audience);
  } catch (error) {
    fill(list, problemBox(error));
  }
}
