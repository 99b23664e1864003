// The Locales panel: the document's locales (add, remove, choose the default) and the column view,
// every text of the document in every locale side by side, missing entries marked and translations
// older than their default-locale text flagged stale (the server's translation memory says which).
import { get } from "./api.js";
import { h, fill } from "./dom.js";
import { formatPath } from "./model.js";

const LOCALE = /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$/;

/** Every localized text of the document: [{segments, value}] (objects whose keys are all locales). */
export function textsOf(document) {
  const locales = new Set(document.locales ?? []);
  const out = [];
  function walk(value, segments) {
    if (Array.isArray(value)) return value.forEach((item, i) => walk(item, [...segments, i]));
    if (!value || typeof value !== "object") return;
    const keys = Object.keys(value);
    if (keys.length && keys.every((k) => LOCALE.test(k) && typeof value[k] === "string") && keys.some((k) => locales.has(k))) {
      out.push({ segments, value });
      return;
    }
    for (const key of keys) walk(value[key], [...segments, key]);
  }
  walk(document.root, ["root"]);
  walk(document.settings, ["settings"]);
  return out;
}

/** `ctx`: the editor's field context plus {path (the paywall's API path), revision()}. */
export function localesPanel(ctx) {
  const document = ctx.document();
  const locales = document.locales ?? [];
  const added = h("input", { name: "newLocale", placeholder: "fr", size: 8, "aria-label": "Locale to add (BCP 47, e.g. fr or pt-BR)" });
  const stale = h("p", { class: "hint", "aria-live": "polite" });
  const defaultLocale = h("select", { "aria-label": "Default locale" }, locales.map((tag) => h("option", { value: tag, selected: tag === document.defaultLocale }, tag)));
  defaultLocale.addEventListener("change", () => ctx.change(["defaultLocale"], defaultLocale.value, { commit: true }));

  const add = () => {
    const tag = added.value.trim();
    if (!LOCALE.test(tag) || locales.includes(tag)) { added.setCustomValidity("A new locale tag: fr, de-AT, pt-BR…"); added.reportValidity(); return; }
    ctx.change(["locales"], [...locales, tag], { commit: true });
  };
  const remove = (tag) => {
    if (!confirm(`Remove ${tag} and its texts?`)) return;
    const next = structuredClone(ctx.document());
    next.locales = locales.filter((l) => l !== tag);
    for (const { segments } of textsOf(next)) {
      let holder = next;
      for (const segment of segments) holder = holder[segment];
      delete holder[tag];
    }
    ctx.replace(next, `remove ${tag}`);
  };

  const texts = textsOf(document);
  const table = h("table", { class: "texts" },
    h("caption", {}, `Every text in every locale (default ${document.defaultLocale ?? "—"}); missing entries are marked`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Text"), locales.map((tag) => h("th", { scope: "col" }, tag)))),
    h("tbody", {}, texts.map(({ segments, value }) => {
      const path = formatPath(segments);
      return h("tr", { dataset: { path } },
        h("th", { scope: "row" }, h("span", {}, ctx.describeText(segments)), h("br"), h("code", { class: "muted" }, path)),
        locales.map((tag) => {
          const missing = value[tag] === undefined;
          const input = h("input", { value: value[tag] ?? "", "aria-label": `${ctx.describeText(segments)} in ${tag}`,
            class: missing ? "missing" : null, placeholder: missing ? "missing" : null, dataset: { field: `${path}|${tag}`, locale: tag } });
          const write = (commit) => ctx.change([...segments, tag], input.value === "" ? undefined : input.value, { commit });
          input.addEventListener("input", () => write(false));
          input.addEventListener("change", () => write(true));
          return h("td", {}, input);
        }));
    })));

  // Stale translations come from the server (its translation memory), for the draft as last saved.
  get(`${ctx.path}/draft/texts`).then((answer) => {
    let count = 0;
    for (const entry of answer.texts ?? []) {
      for (const tag of entry.staleLocales ?? []) {
        const input = table.querySelector(`input[data-field="${CSS.escape(`${entry.path}|${tag}`)}"]`);
        if (input) { input.classList.add("stale"); input.title = "Stale: the default-locale text changed since this translation"; count++; }
      }
    }
    stale.textContent = count ? `${count} translation${count === 1 ? " is" : "s are"} stale (older than the default-locale text).` : "";
  }).catch(() => {});

  return h("section", { class: "panel", "aria-labelledby": "locales-heading" },
    h("h2", { id: "locales-heading" }, "Locales"),
    h("div", { class: "inline-form wrap" },
      h("div", { class: "locale-chips" }, locales.map((tag) => h("span", { class: "chip" }, tag, tag === document.defaultLocale ? " (default)" : "",
        tag === document.defaultLocale ? null : h("button", { type: "button", class: "link small", "aria-label": `Remove locale ${tag}`, onclick: () => remove(tag) }, "×")))),
      h("label", {}, "Default ", defaultLocale),
      added, h("button", { type: "button", class: "secondary", onclick: add }, "Add locale")),
    ctx.issueList("$.locales"), stale, table);
}
