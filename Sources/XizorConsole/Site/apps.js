// The admin's view: every app, create one (its two keys shown once), archive; an instance admin
// signed in as a person opens any app.
import { get, post, del, credential, chooseApp } from "./api.js";
import { h, show, field, problemBox, time, announce, fill, submitter } from "./dom.js";

export async function appsView() {
  const list = h("div", {});
  const created = h("div", { "aria-live": "polite" });
  const errors = h("div", {});
  const name = h("input", { name: "name", required: true, maxlength: "200" });
  const form = h("form", {
    class: "card",
    onsubmit: submitter(errors, async () => {
      const app = await post("/v1/apps", { name: name.value });
      fill(created, h("div", { class: "notice" },
        h("p", {}, `App “${app.name}” created. Copy its keys now: they are shown this once.`),
        h("dl", {},
          h("dt", {}, "Secret key"), h("dd", {}, h("code", { class: "secret", "data-testid": "app-secret-key" }, app.secretKey)),
          h("dt", {}, "Public key"), h("dd", {}, h("code", { class: "secret", "data-testid": "app-public-key" }, app.publicKey)))));
      announce("App created.");
      name.value = "";
      await refresh();
    }),
  }, h("h2", {}, "New app"), field("Name", name), errors, h("button", { type: "submit" }, "Create app"));

  async function refresh() {
    try {
      const page = await get("/v1/apps?limit=200");
      fill(list, h("table", {},
        h("caption", {}, "Apps"),
        h("thead", {}, h("tr", {}, ["Name", "Id", "Created", "Status", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, page.apps.map((app) => h("tr", {},
          h("td", {}, app.name), h("td", {}, h("code", {}, app.id)), h("td", {}, time(app.createdAt)),
          h("td", {}, app.archived ? "archived" : "live"),
          h("td", {}, app.archived || credential()?.kind !== "person" ? null : h("button", {
            type: "button", class: "secondary", "aria-label": `Open ${app.name}`,
            onclick: () => { chooseApp(app.id); location.hash = "#/paywalls"; },
          }, "Open"), app.archived ? null : h("button", {
            type: "button", class: "danger", "aria-label": `Archive ${app.name}`,
            onclick: async () => {
              if (!confirm(`Archive “${app.name}”? Its keys stop working at once; its data is kept.`)) return;
              try {
                await del(`/v1/apps/${encodeURIComponent(app.id)}`);
                announce("App archived.");
                await refresh();
              } catch (error) {
                fill(errors, problemBox(error));
              }
            },
          }, "Archive")))))));
    } catch (error) {
      fill(list, problemBox(error));
    }
  }

  show(h("h1", {}, "Apps"), created, list, form);
  await refresh();
}
