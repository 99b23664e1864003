// Sign in as a person (email and password: a session cookie), or with an app's secret key or the
// admin token (checked against the API before it is kept, in this tab only).
import { get, post, signIn, signInPerson } from "./api.js";
import { h, show, field, problemBox, fill } from "./dom.js";

export function signInView(done) {
  const errors = h("div", {});
  const email = h("input", { type: "email", name: "email", autocomplete: "email", required: true, spellcheck: "false" });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  // Asked for only when the account answers that it has a second factor.
  const code = h("input", { name: "code", inputmode: "numeric", spellcheck: "false" });
  const codeField = field("One-time code (or a recovery code)", code);
  codeField.hidden = true;
  const person = h("form", {
    class: "card narrow", "data-form": "person",
    onsubmit: async (event) => {
      event.preventDefault();
      fill(errors);
      try {
        const body = { email: email.value.trim(), password: password.value };
        const second = code.value.trim();
        if (second) body[/^\d{6}$/.test(second) ? "code" : "recoveryCode"] = second;
        const session = await post("/v1/session", body);
        password.value = "";
        signInPerson(session);
        history.replaceState(null, "", `#/${session.memberships.length ? "paywalls" : "apps"}`);
        done();
      } catch (error) {
        if (error.code === "totp_required") {
          codeField.hidden = false;
          code.focus();
          return;
        }
        fill(errors, problemBox(error));
        (codeField.hidden ? password : code).focus();
      }
    },
  },
  field("Email", email),
  field("Password", password),
  codeField,
  errors,
  h("button", { type: "submit" }, "Sign in"));

  const keyErrors = h("div", {});
  const kind = h("select", { name: "kind" },
    h("option", { value: "secret" }, "App secret key (sk_…)"),
    h("option", { value: "admin" }, "Admin token (xa_…)"));
  const token = h("input", { type: "password", name: "token", autocomplete: "current-password", required: true, spellcheck: "false" });
  const keyForm = h("form", {
    class: "card narrow", "data-form": "key",
    onsubmit: async (event) => {
      event.preventDefault();
      fill(keyErrors);
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
        fill(keyErrors, problemBox(error));
        token.focus();
      }
    },
  },
  h("h2", {}, "Or with a key"),
  h("p", {}, "The key stays in this tab only (sessionStorage) and is sent only to this server."),
  field("Credential", kind),
  field("Key", token),
  keyErrors,
  h("button", { type: "submit" }, "Sign in with the key"));
  const sso = h("div", {});
  show(h("h1", {}, "Sign in"), sso, person, keyForm);
  // What this server offers: a single sign-on button, and the password form only when passwords work.
  get("/v1/session/methods").then((methods) => {
    if (methods.singleSignOn) {
      fill(sso, h("p", { class: "card narrow" }, h("a", { class: "button", href: methods.singleSignOn, "data-testid": "sso" }, "Sign in with single sign-on")));
    }
    if (!methods.password) person.hidden = true;
  }).catch(() => {});
}
