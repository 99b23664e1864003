// The canvas (the editor's centre pane): the real rendered page of the draft in a device frame,
// through a short-lived preview link (a frame cannot send the key), at a phone's or a tablet's size,
// light or dark, in any locale, with sample prices and context values. The page's editor bridge
// reports clicks and hovers by postMessage (node paths only); the frame stays sandboxed.
import { post } from "./api.js";
import { h, field, problemBox, fill } from "./dom.js";

const DEVICES = [["small-phone", "Small phone (375 × 667)"], ["large-phone", "Large phone (430 × 932)"], ["tablet", "Tablet (820 × 1180)"]];

/** `ctx`: {path (the paywall's API path), document() (the draft as saved), select(path), hover(path|null)}. */
export function canvas(ctx) {
  const device = h("select", { name: "device" }, DEVICES.map(([value, label]) => h("option", { value }, label)));
  const scheme = h("select", { name: "colorScheme" }, h("option", { value: "light" }, "Light"), h("option", { value: "dark" }, "Dark"));
  const locale = h("select", { name: "locale" });
  const context = h("input", { name: "previewContext", placeholder: "plan=pro, visits=3" });
  const prices = h("fieldset", { class: "prices" });
  const frame = h("iframe", { title: "Preview of the paywall (click a part to select it)", sandbox: "allow-scripts", class: "device small-phone" });
  const feedback = h("div", {});
  let marks = { selected: null, hovered: null };
  let sequence = 0;
  let started = null;
  let link = null;

  const onMessage = (event) => {
    // The view is gone (another route): this listener goes with it.
    if (!frame.isConnected && frame.dataset.loaded) return window.removeEventListener("message", onMessage);
    if (event.source !== frame.contentWindow || !event.data || typeof event.data !== "object") return;
    const { xizor, path } = event.data;
    if (xizor === "loaded") {
      frame.contentWindow.postMessage({ xizor: "edit" }, "*");
      send();
      if (started !== null) {
        // Edit → repainted canvas, for the editor's speed figure (docs/console.md).
        performance.measure("xizor-repaint", { start: started, end: performance.now() });
        started = null;
      }
      frame.dataset.loaded = String(Number(frame.dataset.loaded ?? 0) + 1);
    } else if (xizor === "select" && typeof path === "string") ctx.select(path);
    else if (xizor === "hover") ctx.hover(typeof path === "string" ? path : null);
  };
  window.addEventListener("message", onMessage);

  function send() {
    frame.contentWindow?.postMessage({ xizor: "select", path: marks.selected }, "*");
    frame.contentWindow?.postMessage({ xizor: "hover", path: marks.hovered }, "*");
  }

  /** Outlines the selected and the hovered node in the page. */
  function highlight(selected, hovered) {
    marks = { selected, hovered };
    send();
  }

  function sync() {
    const draft = ctx.document() ?? {};
    const locales = Array.isArray(draft.locales) ? draft.locales : [];
    const chosen = locale.value;
    fill(locale, ...locales.map((tag) => h("option", { value: tag }, tag)));
    if (locales.includes(chosen)) locale.value = chosen;
    else if (draft.defaultLocale) locale.value = draft.defaultLocale;
    const kept = Object.fromEntries([...prices.querySelectorAll("input")].map((input) => [input.name, input.value]));
    const slots = (Array.isArray(draft.products) ? draft.products : []).map((product) => product.slot).filter((slot) => typeof slot === "string");
    fill(prices, h("legend", {}, "Sample prices (empty: the sample's)"),
      ...slots.map((slot) => field(`Price of ${slot}`, h("input", { name: slot, value: kept[slot] ?? "", placeholder: "$4.99" }))));
  }

  function options() {
    const chosen = { colorScheme: scheme.value };
    if (locale.value) chosen.locale = locale.value;
    const products = {};
    for (const input of prices.querySelectorAll("input")) if (input.value.trim()) products[input.name] = { price: input.value.trim() };
    if (Object.keys(products).length) chosen.products = products;
    const values = {};
    for (const pair of context.value.split(",").map((s) => s.trim()).filter(Boolean)) {
      const [name, ...rest] = pair.split("=");
      const raw = rest.join("=").trim();
      values[name.trim()] = raw === "true" ? true : raw === "false" ? false : raw !== "" && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
    }
    if (Object.keys(values).length) chosen.context = values;
    return chosen;
  }

  /**
   * Shows the saved draft again; `since` (a performance.now() time) is when the edit it shows was made.
   * A link renders the draft as it is when opened, so it is reused (reloaded under a new query) until
   * the options change or it is about to expire: an edit costs one page load, not a link and a load.
   */
  async function refresh(since = null) {
    sync();
    fill(feedback);
    frame.className = `device ${device.value}`;
    const mine = ++sequence;
    const wanted = JSON.stringify(options());
    try {
      if (!link || link.options !== wanted || link.expiresAt - Date.now() < 60_000) {
        const made = await post(`${ctx.path}/preview-link`, JSON.parse(wanted));
        link = { url: made.url, expiresAt: made.expiresAt, options: wanted };
      }
      if (mine !== sequence) return;
      if (since !== null) started = since;
      frame.src = `${link.url}?view=${mine}`;
    } catch (error) {
      link = null;
      fill(feedback, problemBox(error));
    }
  }

  for (const control of [device, scheme, locale]) control.addEventListener("change", () => refresh());
  const section = h("section", { "aria-labelledby": "canvas-heading", class: "canvas" },
    h("h2", { id: "canvas-heading", class: "pane-title" }, "Canvas"),
    h("div", { class: "inline-form wrap canvas-controls" }, field("Device", device), field("Appearance", scheme), field("Locale", locale),
      h("details", { class: "canvas-more" }, h("summary", {}, "Context and prices"),
        field("Context", context, "key=value pairs, comma-separated"), prices,
        h("button", { type: "button", class: "secondary small", onclick: () => refresh() }, "Refresh preview"))),
    feedback, h("div", { class: "stage" }, frame));
  return { section, refresh, highlight, setLocale: (tag) => { locale.value = tag; } };
}
