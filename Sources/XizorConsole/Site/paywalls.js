// Paywalls: the list with each one's status, create from a template, rename, archive; the archived
// ones apart, each with the placements still serving it, restored in one click.
import { get, post, patch, del } from "./api.js";
import { h, show, field, problemBox, time, announce, fill } from "./dom.js";

export async function paywallsView() {
  const list = h("div", {});
  const archivedBox = h("div", {});
  const restoreErrors = h("div", {});
  const errors = h("div", {});
  const name = h("input", { name: "name", maxlength: "200", placeholder: "Spring sale" });
  const gallery = h("div", { class: "gallery", role: "list" });

  /** Creates a paywall from `template` ("" for blank) and opens it in the editor. */
  async function create(template) {
    fill(errors);
    try {
      const body = {};
      if (name.value.trim()) body.name = name.value.trim();
      if (template) body.template = template;
      const created = await post("/v1/paywalls", body);
      announce(`Paywall “${created.name}” created.`);
      // A new paywall opens in the editor, as in Superwall's and RevenueCat's dashboards.
      location.hash = `#/paywalls/${encodeURIComponent(created.id)}`;
    } catch (error) {
      fill(errors, problemBox(error));
    }
  }

  /** A template's card: its live page (rendered by the server, framed and scaled down) and a button. */
  function card(template) {
    const frame = template ? h("iframe", { src: `/v1/templates/${encodeURIComponent(template.name)}/preview`, title: `${template.title} template`,
      sandbox: "allow-scripts", tabindex: "-1", loading: "lazy", class: "thumbnail" }) : h("div", { class: "thumbnail blank" }, "Blank");
    return h("div", { class: "template", role: "listitem" }, h("div", { class: "thumb-box" }, frame),
      h("button", { type: "button", onclick: () => create(template?.name ?? "") }, template ? `Use ${template.title}` : "Start blank"),
      template ? h("span", { class: "hint" }, template.locales.join(", ")) : null);
  }

  const form = h("section", { class: "card", "aria-labelledby": "new-paywall" },
    h("h2", { id: "new-paywall" }, "New paywall"),
    field("Name", name, "Left empty, the template's name."),
    h("p", { class: "hint" }, "Pick a template: the paywall opens in the editor."),
    gallery, errors);

  /** The status the list shows: never published, or published at its latest version. */
  function status(paywall) {
    if (paywall.latestVersion === null) return h("span", { class: "badge warn" }, "draft only");
    return h("span", {}, h("span", { class: "badge ok" }, `v${paywall.latestVersion} live`),
      paywall.draftChangedSincePublish ? [" ", h("span", { class: "badge warn" }, "draft changed")] : null);
  }

  function targets(paywall) {
    if (!paywall.targetedBy.length) return "—";
    // Rules are numbered from 1, as the placements view shows them; an experiment's variant says so.
    return paywall.targetedBy.map((ref) => [ref.placement, ref.rule === null ? null : `rule ${ref.rule + 1}`,
      ref.experimentName ? `via experiment ${ref.experimentName}` : null].filter(Boolean).join(" · ")).join(", ");
  }

  function rename(paywall) {
    return async () => {
      const next = prompt(`New name for “${paywall.name}”`, paywall.name);
      if (next === null || next.trim() === paywall.name) return;
      try {
        await patch(`/v1/paywalls/${encodeURIComponent(paywall.id)}`, { name: next.trim() });
        announce("Renamed.");
        await refresh();
      } catch (error) {
        fill(errors, problemBox(error));
      }
    };
  }

  function archive(paywall) {
    return async () => {
      const where = paywall.targetedBy.length ? ` Placements keep serving its last version: ${targets(paywall)}.` : "";
      if (!confirm(`Archive “${paywall.name}”?${where}`)) return;
      try {
        await del(`/v1/paywalls/${encodeURIComponent(paywall.id)}`);
        announce("Archived.");
        await refresh();
      } catch (error) {
        fill(errors, problemBox(error));
      }
    };
  }

  function unarchive(paywall) {
    return async () => {
      try {
        await post(`/v1/paywalls/${encodeURIComponent(paywall.id)}/unarchive`);
        announce(`“${paywall.name}” restored.`);
        await refresh();
      } catch (error) {
        fill(restoreErrors, problemBox(error));
      }
    };
  }

  /** Every page of a paywall list (`archived`: the archived ones). */
  async function every(archived) {
    const items = [];
    let cursor = null;
    do {
      const page = await get(`/v1/paywalls?limit=200${archived ? "&archived=true" : ""}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }

  function archivedTable(items) {
    if (items.length === 0) return null;
    return h("details", { class: "card" }, h("summary", {}, `Archived paywalls (${items.length})`),
      h("p", { class: "hint" }, "Archived paywalls cannot be published or targeted; placements that still point at one keep serving its last version. Restoring one makes it live again, its draft and versions as they were."),
      h("table", {},
        h("caption", {}, "Archived paywalls of this app"),
        h("thead", {}, h("tr", {}, ["Name", "Archived", "Still serving", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, items.map((paywall) => h("tr", { dataset: { archived: paywall.id } },
          h("th", { scope: "row" }, paywall.name, h("br"), h("code", { class: "muted" }, paywall.id)),
          h("td", {}, time(paywall.archivedAt)),
          h("td", {}, targets(paywall)),
          h("td", {}, h("button", { type: "button", class: "secondary", "aria-label": `Restore ${paywall.name}`, onclick: unarchive(paywall) }, "Restore")))))));
  }

  async function refresh() {
    try {
      const [items, archived] = await Promise.all([every(false), every(true)]);
      fill(restoreErrors);
      const wasOpen = archivedBox.querySelector("details")?.open;
      fill(archivedBox, archivedTable(archived));
      if (wasOpen) archivedBox.querySelector("details")?.setAttribute("open", "");
      fill(list, items.length === 0
        ? h("p", {}, "No paywalls yet: create one from a template below.")
        : h("table", {},
          h("caption", {}, "Paywalls of this app"),
          h("thead", {}, h("tr", {}, ["Name", "Status", "Draft", "Targeted by", "Updated", ""].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, items.map((paywall) => h("tr", { dataset: { paywall: paywall.id } },
            h("th", { scope: "row" }, h("a", { href: `#/paywalls/${encodeURIComponent(paywall.id)}` }, paywall.name), h("br"),
              h("code", { class: "muted" }, paywall.id)),
            h("td", {}, status(paywall)),
            h("td", {}, `revision ${paywall.draftRevision}`),
            h("td", {}, targets(paywall)),
            h("td", {}, time(paywall.updatedAt)),
            h("td", {}, h("div", { class: "actions" },
              h("button", { type: "button", class: "secondary", "aria-label": `Rename ${paywall.name}`, onclick: rename(paywall) }, "Rename"),
              h("button", { type: "button", class: "danger", "aria-label": `Archive ${paywall.name}`, onclick: archive(paywall) }, "Archive"))))))));
    } catch (error) {
      fill(list, problemBox(error));
    }
  }

  show(h("h1", {}, "Paywalls"), list, restoreErrors, archivedBox, form);
  try {
    const { templates } = await get("/v1/templates");
    fill(gallery, templates.map(card), card(null));
  } catch (error) {
    fill(errors, problemBox(error));
  }
  await refresh();
}
