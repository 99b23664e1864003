// The console's shell: the session, the navigation and a hash router (#/paywalls, #/keys, …).
import { credential, signOut, chooseApp, del } from "./api.js";
import { h, show, fill } from "./dom.js";
import { signInView } from "./signin.js";
import { paywallsView } from "./paywalls.js";
import { keysView } from "./keys.js";
import { appsView } from "./apps.js";
import { editorView } from "./editor.js";
import { placementsView } from "./placements.js";
import { experimentsView } from "./experiments.js";
import { audiencesView } from "./audiences.js";
import { revenueView } from "./revenue.js";
import { teamView } from "./team.js";
import { webhooksView } from "./webhooks.js";
import { auditView } from "./audit.js";
import { accountView, acceptView } from "./account.js";

const SECTIONS = {
  secret: [["paywalls", "Paywalls", paywallsView], ["placements", "Placements", placementsView],
    ["audiences", "Audiences", audiencesView], ["experiments", "Experiments", experimentsView], ["revenue", "Revenue", revenueView], ["keys", "Keys", keysView],
    ["webhooks", "Webhooks", webhooksView], ["team", "Team", teamView], ["audit", "Audit log", () => auditView()]],
  admin: [["apps", "Apps", appsView], ["instance-log", "Instance log", () => auditView("/v1/instance/audit-log", "Instance log")]],
};

/** A person's sections: their app's (as a member, or any app for an instance admin) and, for an instance admin, Apps. */
function sectionsOf(session) {
  if (session.kind !== "person") return SECTIONS[session.kind] || [];
  return [...(session.appId ? SECTIONS.secret : []), ...(session.user.instanceAdmin ? SECTIONS.admin : []),
    ["account", "Account", () => accountView(start)]];
}

function route() {
  // Only #/section[/id] hashes are routes; any other (the skip link's #main) leaves the view as it is.
  if (location.hash && !location.hash.startsWith("#/")) return undefined;
  const session = credential();
  renderSession(session);
  if (!session) {
    renderNav([]);
    // An invitation's link: join (and sign in) with it.
    const invitation = location.hash.match(/^#\/invitation\/([A-Za-z0-9_]+)$/);
    if (invitation) return acceptView(invitation[1], start);
    if (location.hash === "#/invitation") return signInView(start);
    return signInView(start);
  }
  const sections = sectionsOf(session);
  if (!sections.length) {
    renderNav([]);
    return show(h("h1", {}, "No app yet"), h("p", {}, "You are not a member of any app. Ask an app's owner to add you."));
  }
  const [wanted, id] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const current = sections.find(([name]) => name === wanted) || sections[0];
  renderNav(sections, current[0]);
  // #/paywalls/ID opens that paywall's editor.
  if (session.kind !== "admin" && current[0] === "paywalls" && id) return editorView(id);
  return current[2]();
}

function renderNav(sections, current) {
  document.getElementById("nav").replaceChildren(
    ...sections.map(([name, label]) =>
      h("a", { href: `#/${name}`, "aria-current": name === current ? "page" : null }, label)));
}

function renderSession(session) {
  const box = document.getElementById("session");
  if (!session) return fill(box);
  const leave = async () => {
    // A person's session ends on the server too; a key is only forgotten by this tab.
    if (session.kind === "person") await del("/v1/session").catch(() => {});
    signOut();
    // What the status said (a toast of the session just ended) is not the next person's to read.
    document.getElementById("status").textContent = "";
    history.replaceState(null, "", location.pathname);
    start();
  };
  const who = session.kind === "person" ? session.user.email : session.kind === "admin" ? "Admin token" : "App secret key";
  fill(box,
    h("span", { class: "who" }, who),
    session.kind === "person" && session.memberships.length > 1 ? appSwitcher(session) : null,
    h("button", { type: "button", class: "secondary", onclick: leave }, "Sign out"));
}

/** The apps a person belongs to; choosing one reopens the console on it. */
function appSwitcher(session) {
  return h("select", {
    "aria-label": "App",
    onchange: (event) => { chooseApp(event.target.value); history.replaceState(null, "", "#/paywalls"); start(); },
  }, session.memberships.map((m) => h("option", { value: m.appId, selected: m.appId === session.appId ? "" : null }, `${m.appName} (${m.role})`)));
}

function start() {
  Promise.resolve(route()).catch((error) => show(h("p", { role: "alert" }, String(error))));
}

// The skip link moves focus to the content without touching the address (and so the route).
document.querySelector(".skip")?.addEventListener("click", (event) => {
  event.preventDefault();
  document.getElementById("main").focus();
});

window.addEventListener("hashchange", start);
start();
