// The console's shell: the session, the navigation and a hash router (#/paywalls, #/keys, …).
import { credential, signOut } from "./api.js";
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

const SECTIONS = {
  secret: [["paywalls", "Paywalls", paywallsView], ["placements", "Placements", placementsView],
    ["audiences", "Audiences", audiencesView], ["experiments", "Experiments", experimentsView], ["revenue", "Revenue", revenueView], ["keys", "Keys", keysView]],
  admin: [["apps", "Apps", appsView]],
};

function route() {
  // Only #/section[/id] hashes are routes; any other (the skip link's #main) leaves the view as it is.
  if (location.hash && !location.hash.startsWith("#/")) return undefined;
  const session = credential();
  renderSession(session);
  if (!session) {
    renderNav([]);
    return signInView(start);
  }
  const sections = SECTIONS[session.kind] || [];
  const [wanted, id] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const current = sections.find(([name]) => name === wanted) || sections[0];
  renderNav(sections, current[0]);
  // #/paywalls/ID opens that paywall's editor.
  if (session.kind === "secret" && current[0] === "paywalls" && id) return editorView(id);
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
  fill(box, 
    h("span", { class: "who" }, session.kind === "admin" ? "Admin token" : "App secret key"),
    h("button", { type: "button", class: "secondary", onclick: () => { signOut(); history.replaceState(null, "", location.pathname); start(); } }, "Sign out"));
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
