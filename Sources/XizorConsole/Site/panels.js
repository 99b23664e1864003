// The document-wide panels of the editor: Products (slots ↔ store product ids, references kept valid
// when a slot is renamed or removed), Theme (colours, fonts, radii; renaming a token rewrites every
// `$token` reference) and Settings (dismissal, safe area, background). Each edits through the same
// `ctx.change` as the properties pane, so undo, autosave and validation treat them alike.
import { h } from "./dom.js";
import { control, memberControls } from "./fields.js";

/** Every string equal to `from` (a slot or a `$token`) in `value`, replaced by `to`; `keys` limits where. */
export function rewrite(value, from, to, keys = null, key = null) {
  if (typeof value === "string") return value === from && (!keys || keys.includes(key)) ? to : value;
  if (Array.isArray(value)) return value.map((item) => rewrite(item, from, to, keys, key));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, from, to, keys, k)]));
  return value;
}

const SLOT_KEYS = ["productSlot", "slots"];

export function productsPanel(ctx) {
  const document = ctx.document();
  const products = Array.isArray(document.products) ? document.products : [];
  const perStore = document.schemaVersion >= 3;
  const slotName = h("input", { name: "newSlot", placeholder: "yearly", "aria-label": "New slot id", pattern: "[A-Za-z0-9_-]{1,64}", size: 14 });
  const rows = products.map((product, i) => {
    const slot = h("input", { value: product.slot ?? "", "aria-label": `Slot ${i + 1} id`, size: 12, dataset: { field: `$.products[${i}].slot` } });
    slot.addEventListener("change", () => {
      const to = slot.value.trim();
      if (!to || to === product.slot) return;
      // Nodes and actions that named the old slot follow it.
      const next = rewrite({ ...document, products: undefined }, product.slot, to, SLOT_KEYS);
      next.products = products.map((p, j) => (j === i ? { ...p, slot: to } : p));
      ctx.replace(next, `rename slot ${product.slot}`);
    });
    const ids = perStore
      ? [["appStore", "App Store"], ["googlePlay", "Google Play"]].map(([store, label]) => h("td", {}, storeInput(ctx, i, product, store, label)))
      : [h("td", { colspan: "2" }, storeInput(ctx, i, product, null, "Store"))];
    const preselected = h("input", { type: "radio", name: "preselected", checked: product.preselected === true, "aria-label": `Preselect ${product.slot}` });
    preselected.addEventListener("change", () => ctx.change(["products"], products.map((p, j) => ({ ...p, preselected: j === i ? true : undefined })), { commit: true }));
    return h("tr", {}, h("td", {}, slot), ...ids, h("td", {}, preselected),
      h("td", {}, h("button", { type: "button", class: "link small", "aria-label": `Remove slot ${product.slot}`, onclick: () => {
        const used = JSON.stringify(rewrite({ ...document, products: undefined }, product.slot, "\u0000", SLOT_KEYS)).includes("\\u0000");
        if (used && !confirm(`Nodes still buy “${product.slot}”: remove it anyway? They will need another slot.`)) return;
        ctx.change(["products"], products.filter((_, j) => j !== i), { commit: true });
      } }, "Remove")));
  });
  return h("section", { class: "panel", "aria-labelledby": "products-heading" },
    h("h2", { id: "products-heading" }, "Products"),
    h("p", { class: "hint" }, "Each slot is what nodes buy (purchase buttons, the product selector); map it to your store product ids."),
    h("table", { class: "products" },
      h("caption", {}, "Product slots and their store ids"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Slot"), perStore
        ? [h("th", { scope: "col" }, "App Store id"), h("th", { scope: "col" }, "Google Play id")]
        : h("th", { scope: "col", colspan: "2" }, "Store product id"), h("th", { scope: "col" }, "Preselected"), h("th", { scope: "col" }, ""))),
      h("tbody", {}, rows)),
    h("div", { class: "inline-form" }, slotName, h("button", { type: "button", class: "secondary", onclick: () => {
      const slot = slotName.value.trim();
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(slot) || products.some((p) => p.slot === slot)) { slotName.setCustomValidity("A new slot id: letters, digits, - and _."); slotName.reportValidity(); return; }
      const product = perStore ? { slot, storeProductIds: { appStore: `com.example.${slot}` } } : { slot, storeProductId: `com.example.${slot}` };
      ctx.change(["products"], [...products, product], { commit: true });
    } }, "Add slot")),
    perStore ? null : h("p", {}, h("button", { type: "button", class: "secondary", onclick: () => ctx.replace({
      ...document, schemaVersion: 3,
      products: products.map(({ storeProductId, ...rest }) => ({ ...rest, storeProductIds: { appStore: storeProductId, googlePlay: storeProductId } })),
    }, "separate store ids") }, "Use separate App Store and Google Play ids"),
    h("span", { class: "hint" }, " (schema version 3: one paywall for iOS and Android)")),
    ctx.issueList("$.products"));
}

function storeInput(ctx, i, product, store, label) {
  const segments = store ? ["products", i, "storeProductIds", store] : ["products", i, "storeProductId"];
  const value = store ? product.storeProductIds?.[store] : product.storeProductId;
  const input = h("input", { value: value ?? "", "aria-label": `${label} id of ${product.slot}`, dataset: { field: `$.products[${i}].${store ?? "storeProductId"}` } });
  input.addEventListener("change", () => ctx.change(segments, input.value.trim() || undefined, { commit: true }));
  return input;
}

export function themePanel(ctx) {
  const theme = ctx.document().theme ?? {};
  const renames = ["colors", "fonts", "radii"].flatMap((group) => Object.keys(theme[group] ?? {}).map((token) => [group, token]));
  const from = h("select", { "aria-label": "Token to rename" }, renames.map(([group, token]) => h("option", { value: `${group}:${token}` }, `${group}: ${token}`)));
  const to = h("input", { "aria-label": "New token name", placeholder: "new name", size: 14 });
  const rename = () => {
    const [group, token] = from.value.split(":");
    const name = to.value.trim();
    if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(name) || theme[group]?.[name] !== undefined) { to.setCustomValidity("A new token name: a letter, then letters, digits, - and _."); to.reportValidity(); return; }
    const document = ctx.document();
    const next = rewrite({ ...document, theme: undefined }, `$${token}`, `$${name}`);
    const entries = Object.entries(theme[group]).map(([key, value]) => [key === token ? name : key, value]);
    next.theme = { ...theme, [group]: Object.fromEntries(entries) };
    ctx.replace(next, `rename ${token}`);
  };
  return h("section", { class: "panel", "aria-labelledby": "theme-heading" },
    h("h2", { id: "theme-heading" }, "Theme"),
    h("p", { class: "hint" }, "Design tokens: nodes refer to them as $name, so a change here changes every node that uses one."),
    memberControls(ctx, ctx.schema.definition("Theme"), ["theme"]),
    renames.length ? h("div", { class: "inline-form" }, from, to, h("button", { type: "button", class: "secondary", onclick: rename }, "Rename token")) : null);
}

export function settingsPanel(ctx) {
  return h("section", { class: "panel", "aria-labelledby": "settings-heading" },
    h("h2", { id: "settings-heading" }, "Settings"),
    memberControls(ctx, ctx.schema.definition("Settings"), ["settings"]),
    control(ctx, ctx.schema.document.properties.name, ["name"], { name: "name", required: true, label: "Name" }));
}
