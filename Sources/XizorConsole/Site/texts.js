// The draft's texts as a grid: a row per text path, a column per locale, missing entries marked,
// stale translations flagged; each locale's column saved on its own under If-Match.
import { get, request } from "./api.js";
import { h, problemBox, announce, fill } from "./dom.js";

/** `context`: {path (API base of the paywall), etag(), saved()} from the editor. */
export async function textsSection(context) {
  const box = h("section", { "aria-labelledby": "texts-heading" }, h("h2", { id: "texts-heading" }, "Texts"));
  const feedback = h("div", {});
  let texts;
  try {
    texts = await get(`${context.path}/draft/texts`);
  } catch (error) {
    box.append(problemBox(error));
    return box;
  }
  const inputs = new Map(); // locale → [{path, input}]
  const table = h("table", { class: "texts" },
    h("caption", {}, `Every text in every locale (default ${texts.defaultLocale ?? "—"}); missing entries are marked`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Path"), texts.locales.map((locale) => h("th", { scope: "col" }, locale)))),
    h("tbody", {}, texts.texts.map((entry) => h("tr", {},
      h("th", { scope: "row" }, h("code", {}, entry.path)),
      texts.locales.map((locale) => {
        const missing = entry.missingLocales.includes(locale);
        const stale = entry.staleLocales.includes(locale);
        const input = h("input", { value: entry.values[locale] ?? "", "aria-label": `${entry.path} in ${locale}`,
          class: missing ? "missing" : stale ? "stale" : null, placeholder: missing ? "missing" : null });
        if (!inputs.has(locale)) inputs.set(locale, []);
        inputs.get(locale).push({ path: entry.path, input, before: entry.values[locale] ?? "" });
        return h("td", {}, input, stale ? h("span", { class: "hint" }, " stale") : null);
      })))),
    h("tfoot", {}, h("tr", {}, h("td", {}), texts.locales.map((locale) => h("td", {},
      h("button", { type: "button", class: "secondary", onclick: () => save(locale) }, `Save ${locale}`))))));

  async function save(locale) {
    fill(feedback);
    const changed = {};
    for (const { path, input, before } of inputs.get(locale) ?? []) if (input.value !== before && input.value !== "") changed[path] = input.value;
    if (Object.keys(changed).length === 0) return announce(`No change in ${locale}.`);
    try {
      await request("PUT", `${context.path}/draft/texts/${encodeURIComponent(locale)}`,
        { body: { texts: changed }, headers: { "If-Match": context.etag() } });
    } catch (error) {
      return fill(feedback, problemBox(error));
    }
    for (const entry of inputs.get(locale)) if (entry.path in changed) { entry.before = changed[entry.path]; entry.input.classList.remove("missing"); }
    await context.saved();
    announce(`Saved ${Object.keys(changed).length} ${locale} text(s).`);
  }

  box.append(table, feedback);
  return box;
}
