// The app's keys: list (prefixes only), create (the key shown once), revoke.
import { get, post, del } from "./api.js";
import { h, show, field, problemBox, time, announce, fill, submitter } from "./dom.js";

const SCOPES = ["read", "drafts", "publish", "placements", "experiments", "analytics", "keys", "webhooks", "members"];

export async function keysView() {
  const list = h("div", {});
  const created = h("div", { "aria-live": "polite" });
  const errors = h("div", {});
  const kind = h("select", { name: "kind" }, h("option", { value: "secret" }, "Secret"), h("option", { value: "public" }, "Public"));
  const label = h("input", { name: "label", maxlength: "100" });
  const scopeBoxes = SCOPES.map((scope) => h("input", { type: "checkbox", name: "scope", value: scope }));
  const sandbox = h("input", { type: "checkbox", name: "sandbox" });
  const form = h("form", {
    class: "card",
    onsubmit: submitter(errors, async () => {
      const body = { kind: kind.value };
      if (label.value.trim()) body.label = label.value.trim();
      const scopes = scopeBoxes.filter((box) => box.checked).map((box) => box.value);
      if (kind.value === "secret" && scopes.length) body.scopes = scopes;
      if (kind.value === "public" && sandbox.checked) body.environment = "sandbox";
      const key = await post("/v1/keys", body);
      fill(created, h("div", { class: "notice" },
        h("p", {}, "Copy the new key now: it is shown this once."),
        h("code", { class: "secret", "data-testid": "new-key" }, key.key)));
      announce("Key created.");
      label.value = "";
      for (const box of [...scopeBoxes, sandbox]) box.checked = false;
      await refresh();
    }),
  },
  h("h2", {}, "New key"),
  field("Kind", kind),
  field("Label", label, "What the key is for: “iOS app”, “CI”."),
  h("fieldset", {}, h("legend", {}, "Scopes of a secret key (none checked: full access)"),
    scopeBoxes.map((box) => h("label", { class: "inline" }, box, " ", box.value))),
  h("label", { class: "inline" }, sandbox, " Sandbox public key (its events stay out of results)"),
  errors,
  h("button", { type: "submit" }, "Create key"));

  async function refresh() {
    try {
      const page = await get("/v1/keys?limit=200");
      fill(list, h("table", {},
        h("caption", {}, "Keys of this app"),
        h("thead", {}, h("tr", {}, ["Prefix", "Kind", "Label", "Scopes", "Created", "Status", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, page.keys.map((key) => h("tr", {},
          h("td", {}, h("code", {}, key.prefix, "…")),
          h("td", {}, key.kind + (key.environment === "sandbox" ? " (sandbox)" : "")),
          h("td", {}, key.label || "—"),
          h("td", {}, key.kind === "secret" ? (key.fullAccess ? "full access" : key.scopes.join(", ")) : "—"),
          h("td", {}, time(key.createdAt)),
          h("td", {}, key.revokedAt ? `revoked ${time(key.revokedAt)}` : "live"),
          h("td", {}, key.revokedAt ? null : h("button", {
            type: "button", class: "danger", "aria-label": `Revoke ${key.prefix}`,
            onclick: async () => {
              if (!confirm(`Revoke ${key.prefix}…? It stops working at once.`)) return;
              try {
                await del(`/v1/keys/${encodeURIComponent(key.id)}`);
                announce("Key revoked.");
                await refresh();
              } catch (error) {
                fill(errors, problemBox(error));
              }
            },
          }, "Revoke")))))));
    } catch (error) {
      fill(list, problemBox(error));
    }
  }

  show(h("h1", {}, "Keys"), created, list, form);
  await refresh();
}
