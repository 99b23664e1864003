// A person's own account: their sessions (end one, or all) and their second factor (set up with a
// QR code and a code from it; the recovery codes shown once; turn off with a code).
import { get, post, del, signInPerson, credential, signOut } from "./api.js";
import { h, show, field, problemBox, time, announce, fill, submitter } from "./dom.js";

export async function accountView(restart) {
  const me = credential();
  const sessions = h("div", {});
  const factor = h("div", {});
  const errors = h("div", {});

  async function refreshSessions() {
    try {
      const list = await get("/v1/me/sessions");
      fill(sessions, h("table", {},
        h("caption", {}, "Your sessions"),
        h("thead", {}, h("tr", {}, ["Signed in", "Last used", "From", "Browser", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, list.sessions.map((session) => h("tr", { "data-session": session.id },
          h("td", {}, time(session.createdAt)), h("td", {}, time(session.lastSeenAt)), h("td", {}, session.address || ""),
          h("td", {}, (session.userAgent || "").slice(0, 60)),
          h("td", {}, session.current ? "this one" : h("button", {
            type: "button", class: "secondary", "aria-label": `End the session signed in ${new Date(session.createdAt).toISOString()}`,
            onclick: async () => {
              try {
                await del(`/v1/me/sessions/${encodeURIComponent(session.id)}`);
                announce("Session ended.");
                await refreshSessions();
              } catch (error) {
                fill(errors, problemBox(error));
              }
            },
          }, "End")))))),
        h("button", {
          type: "button", class: "danger",
          onclick: async () => {
            if (!confirm("Sign out everywhere, this browser too?")) return;
            await del("/v1/me/sessions").catch(() => {});
            signOut();
            restart();
          },
        }, "Sign out everywhere"));
    } catch (error) {
      fill(sessions, problemBox(error));
    }
  }

  function showFactor() {
    if (me.user.totpEnabled) {
      const code = h("input", { name: "disableCode", inputmode: "numeric", required: true });
      fill(factor, h("form", {
        class: "card",
        onsubmit: submitter(errors, async () => {
          const value = code.value.trim();
          await del("/v1/me/totp", { body: /^\d{6}$/.test(value) ? { code: value } : { recoveryCode: value } });
          me.user.totpEnabled = false;
          announce("Second factor turned off.");
          showFactor();
        }),
      }, h("h2", {}, "Second factor: on"), field("Code (or a recovery code) to turn it off", code), h("button", { type: "submit", class: "secondary" }, "Turn off")));
      return;
    }
    fill(factor, h("div", { class: "card" }, h("h2", {}, "Second factor: off"),
      h("p", {}, "Add a one-time code from an authenticator app to every sign-in."),
      h("button", {
        type: "button",
        onclick: async () => {
          try {
            enrol(await post("/v1/me/totp"));
          } catch (error) {
            fill(errors, problemBox(error));
          }
        },
      }, "Set up")));
  }

  function enrol(enrolment) {
    const code = h("input", { name: "totpCode", inputmode: "numeric", required: true, pattern: "[0-9]{6}" });
    const svg = `data:image/svg+xml;base64,${btoa(enrolment.qrSvg)}`;
    fill(factor, h("form", {
      class: "card",
      onsubmit: submitter(errors, async () => {
        const confirmed = await post("/v1/me/totp/confirm", { code: code.value.trim() });
        // The session was replaced: keep the new CSRF token, as a sign-in would.
        signInPerson(confirmed, me.appId);
        Object.assign(me, credential());
        fill(factor, h("div", { class: "notice" },
          h("h2", {}, "Second factor: on"),
          h("p", {}, "Keep these recovery codes somewhere safe: each signs in once without the app. They are shown this once."),
          h("ul", { "data-testid": "recovery-codes" }, confirmed.recoveryCodes.map((c) => h("li", {}, h("code", { class: "secret" }, c))))));
        announce("Second factor on.");
      }),
    },
    h("h2", {}, "Set up the second factor"),
    h("p", {}, "Scan this with an authenticator app, or type the key in; then enter the code it shows."),
    h("img", { src: svg, alt: "QR code of the authenticator key", width: "200", height: "200" }),
    h("p", {}, "Key: ", h("code", { class: "secret", "data-testid": "totp-secret" }, enrolment.secret)),
    field("Code", code),
    h("button", { type: "submit" }, "Turn on")));
  }

  show(h("h1", {}, "Account"), h("p", {}, me.user.email), errors, factor, sessions);
  showFactor();
  await refreshSessions();
}

/** `#/invitation/TOKEN` without a session: set a password (or give the account's) and join. */
export function acceptView(token, done) {
  // The token leaves the address bar (and the history) as soon as it is read: it is a credential.
  history.replaceState(null, "", "#/invitation");
  const errors = h("div", {});
  // For password managers: the account's name goes with the password they offer to keep.
  const username = h("input", { type: "text", name: "username", autocomplete: "username", hidden: true });
  const password = h("input", { type: "password", name: "password", autocomplete: "new-password", required: true, minlength: "12" });
  const code = h("input", { name: "code", inputmode: "numeric" });
  show(h("h1", {}, "Join an app"), h("form", {
    class: "card narrow",
    onsubmit: submitter(errors, async () => {
      const body = { token, password: password.value };
      if (code.value.trim()) body.code = code.value.trim();
      const session = await post("/v1/invitations/accept", body);
      password.value = "";
      signInPerson(session);
      history.replaceState(null, "", "#/paywalls");
      done();
    }),
  },
  h("p", {}, "You were invited. Choose a password (at least 12 characters), or type your account's password if you have one."),
  username,
  field("Password", password),
  field("One-time code (only if your account has a second factor)", code),
  errors,
  h("button", { type: "submit" }, "Join")));
}
