// The live preview: the rendered page in a frame, through a short-lived preview link (a frame
// cannot send the key), at a device's size, light or dark, in any of the paywall's locales, with
// context values and editable sample prices.
import { post } from "./api.js";
import { h, field, problemBox, fill } from "./dom.js";

const DEVICES = [["small-phone", "Small phone (375 × 667)"], ["large-phone", "Large phone (430 × 932)"], ["tablet", "Tablet (820 × 1180)"]];

/** `document()` answers the draft as last loaded or saved (its locales and product slots). */
export function previewSection(paywallPath, document) {
  const device = h("select", { name: "device" }, DEVICES.map(([value, label]) => h("option", { value }, label)));
  const scheme = h("select", { name: "colorScheme" }, h("option", { value: "light" }, "Light"), h("option", { value: "dark" }, "Dark"));
  const locale = h("select", { name: "locale" });
  const context = h("input", { name: "previewContext", placeholder: "plan=pro, visits=3" });
  const prices = h("fieldset", { class: "prices" });
  const frame = h("iframe", { title: "Preview of the paywall", sandbox: "allow-scripts", class: "device small-phone" });
  const feedback = h("div", {});

  function sync() {
    const draft = document() ?? {};
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

  async function refresh() {
    sync();
    fill(feedback);
    frame.className = `device ${device.value}`;
    const options = { colorScheme: scheme.value };
    if (locale.value) options.locale = locale.value;
    const products = {};
    for (const input of prices.querySelectorAll("input")) if (input.value.trim()) products[input.name] = { price: input.value.trim() };
    if (Object.keys(products).length) options.products = products;
    const values = {};
    for (const pair of context.value.split(",").map((s) => s.trim()).filter(Boolean)) {
      const [name, ...rest] = pair.split("=");
      const raw = rest.join("=").trim();
      values[name.trim()] = raw === "true" ? true : raw === "false" ? false : raw !== "" && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
    }
    if (Object.keys(values).length) options.context = values;
    try {
      const link = await post(`${paywallPath}/preview-link`, options);
      frame.src = link.url;
    } catch (error) {
      fill(feedback, problemBox(error));
    }
  }

  for (const control of [device, scheme, locale]) control.addEventListener("change", refresh);
  const section = h("section", { "aria-labelledby": "preview-heading", class: "preview" },
    h("h2", { id: "preview-heading" }, "Preview"),
    h("div", { class: "inline-form wrap" }, field("Device", device), field("Appearance", scheme), field("Locale", locale),
      field("Context", context, "key=value pairs, comma-separated"),
      h("button", { type: "button", class: "secondary", onclick: refresh }, "Refresh preview")),
    prices, feedback, h("div", { class: "stage" }, frame));
  return { section, refresh };
}
