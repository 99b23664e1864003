// Audiences: conditions written once and referred to by rules as {"audience": ID}, each with the
// rules that use it. Create one, edit its condition in the builder the rules use, rename, delete
// (refused, with the rules named, while one refers to it). A change is live on the next SDK request.
import { get, put, del } from "./api.js";
import { h, show, field, problemBox, announce, fill, submitter } from "./dom.js";
import { conditionBuilder } from "./rules.js";

export async function audiencesView() {
  const list = h("div", {});
  const errors = h("div", {});
  const id = h("input", { name: "id", required: true, maxlength: "64", pattern: "[A-Za-z0-9_\\-]+" });
  const name = h("input", { name: "name", maxlength: "200", placeholder: "German-speaking countries" });
  let fresh = { key: "device.country", op: "in", value: ["DE", "AT", "CH"] };
  let known = [];

  const form = h("form", {
    class: "card",
    onsubmit: submitter(errors, async () => {
      const wanted = id.value.trim();
      // PUT replaces: creating an id that exists asks first.
      if (known.some((a) => a.id === wanted) && !confirm(`An audience '${wanted}' exists. Replace its condition?`)) return;
      const body = { condition: fresh };
      if (name.value.trim()) body.name = name.value.trim();
      await put(`/v1/audiences/${encodeURIComponent(wanted)}`, body);
      announce(`Audience ${wanted} saved.`);
      id.value = "";
      name.value = "";
      await refresh();
    }),
  }, h("h2", {}, "New audience"),
  field("Id", id, "What rules name: {\"audience\": \"dach\"}. Letters, digits, _ and -."),
  field("Name", name, "Left empty, the id."),
  h("p", { class: "hint" }, "Condition"),
  conditionBuilder(fresh, (next) => { fresh = next; }, "New audience condition", null),
  errors, h("button", { type: "submit" }, "Create audience"));

  function usedBy(audience) {
    if (!audience.usedBy.length) return "No rule uses it yet.";
    return `Used by ${audience.usedBy.map((ref) => `${ref.placement} rule ${ref.rule}`).join(", ")}.`;
  }

  function card(audience) {
    let condition = audience.condition;
    const feedback = h("div", {});
    const label = h("input", { value: audience.name, maxlength: "200", "aria-label": `Name of ${audience.id}` });
    const save = async () => {
      fill(feedback);
      try {
        await put(`/v1/audiences/${encodeURIComponent(audience.id)}`, { name: label.value.trim() || audience.id, condition });
        announce(`Audience ${audience.id} saved.`);
        await refresh();
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
        await refresh();
      } catch (error) {
        fill(feedback, problemBox(error));
      }
    };
    return h("section", { class: "card", "aria-labelledby": `audience-${audience.id}` },
      h("h2", { id: `audience-${audience.id}` }, audience.name, " ", h("code", { class: "muted" }, audience.id)),
      h("p", {}, usedBy(audience)),
      field("Name", label),
      conditionBuilder(condition, (next) => { condition = next; }, `Audience ${audience.id} condition`, null),
      feedback,
      h("div", { class: "toolbar" },
        h("button", { type: "button", onclick: save }, `Save ${audience.id}`),
        h("button", { type: "button", class: "danger", onclick: remove, "aria-label": `Delete audience ${audience.id}` }, "Delete")));
  }

  async function refresh() {
    try {
      known = (await get("/v1/audiences")).items;
      fill(list, known.length === 0 ? h("p", {}, "No audiences yet: a condition made here can be used by any rule.") : known.map(card));
    } catch (error) {
      fill(list, problemBox(error));
    }
  }

  show(h("h1", {}, "Audiences"), list, form);
  await refresh();
}
