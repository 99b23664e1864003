// A paywall's published versions: the list with each note, the diff between any two (the draft
// included) side by side, and rollback (publishing an old version's document again).
import { get, post } from "./api.js";
import { h, field, problemBox, time, announce, fill } from "./dom.js";
import { sideBySide } from "./diff.js";

/** `path`: the paywall's API path; `feedback`: where a failed rollback is shown. Answers {section, refresh}. */
export function versionsSection(path, feedback) {
  const section = h("div", {});

  async function refresh() {
    try {
      const { items } = await get(`${path}/versions`);
      const from = h("select", { name: "from" }, items.map((v) => h("option", { value: v.version }, `v${v.version}`)));
      const to = h("select", { name: "to" }, h("option", { value: "draft" }, "draft"), items.map((v) => h("option", { value: v.version }, `v${v.version}`)));
      const diff = h("div", {});
      fill(section,
        h("h2", {}, "Versions"),
        items.length === 0 ? h("p", {}, "Not published yet.") : h("table", {},
          h("caption", {}, "Published versions, newest first"),
          h("thead", {}, h("tr", {}, ["Version", "Published", "Note", ""].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, items.map((v) => h("tr", {},
            h("td", {}, `v${v.version}`, v.rolledBackFrom ? ` (rollback to v${v.rolledBackFrom})` : ""),
            h("td", {}, time(v.publishedAt)), h("td", {}, v.note || "—"),
            h("td", {}, h("button", { type: "button", class: "secondary", "aria-label": `Roll back to v${v.version}`,
              onclick: () => rollback(v.version) }, "Roll back to this")))))),
        items.length ? h("form", { class: "inline-form", onsubmit: async (event) => {
          event.preventDefault();
          try {
            const documentOf = async (which) => which === "draft"
              ? (await get(`${path}/draft`)).document : (await get(`${path}/versions/${which}`)).document;
            const [before, after, answer] = await Promise.all([documentOf(from.value), documentOf(to.value),
              get(`${path}/diff?from=${from.value}&to=${to.value}`)]);
            const name = (which) => which === "draft" ? "the draft" : `v${which}`;
            fill(diff,
              h("p", {}, `${answer.operations.length} JSON Patch operation(s) turn ${name(from.value)} into ${name(to.value)}.`),
              sideBySide(before, after, { leftTitle: name(from.value), rightTitle: name(to.value) }));
          } catch (error) {
            fill(diff, problemBox(error));
          }
        } }, field("From", from), field("To", to), h("button", { type: "submit", class: "secondary" }, "Compare")) : null,
        diff);
    } catch (error) {
      fill(section, problemBox(error));
    }
  }

  async function rollback(version) {
    if (!confirm(`Publish v${version}'s document again as a new version?`)) return;
    try {
      const answer = await post(`${path}/rollback`, { version });
      announce(answer.unchanged ? `v${version} is live already.` : `Rolled back: v${answer.version} is live.`);
      await refresh();
    } catch (error) {
      fill(feedback, problemBox(error));
    }
  }

  return { section, refresh };
}
