// Sign in with an app's secret key or the admin token: checked against the API before it is kept.
import { get, signIn } from "./api.js";
import { h, show, field, problemBox, fill } from "./dom.js";

export function signInView(done) {
  const kind = h("select", { name: "kind" },
    h("option", { value: "secret" }, "App secret key (sk_…)"),
    h("option", { value: "admin" }, "Admin token (xa_…)"));
  const token = h("input", { type: "password", name: "token", autocomplete: "current-password", required: true, spellcheck: "false" });
  const errors = h("div", {});
  const form = h("form", {
    class: "card narrow",
    onsubmit: async (event) => {
      event.preventDefault();
      fill(errors);
      const value = token.value.trim();
      try {
        // The key is tried on a read it may make: the app's keys, or the admin's apps.
        await get(kind.value === "admin" ? "/v1/apps?limit=1" : "/v1/paywalls?limit=1", { token: value });
        signIn(kind.value, value);
        token.value = "";
        // The section is set without a hashchange event: `done` renders it once.
        history.replaceState(null, "", `#/${kind.value === "admin" ? "apps" : "paywalls"}`);
        done();
      } catch (error) {
        fill(errors, problemBox(error));
        token.focus();
      }
    },
  },
  h("h1", {}, "Sign in"),
  h("p", {}, "The key stays in this tab only (sessionStorage) and is sent only to this server."),
  field("Credential", kind),
  field("Key", token),
  errors,
  h("button", { type: "submit" }, "Sign in"));
  show(form);
}
