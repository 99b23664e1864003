// The draft editor: the document as JSON with live validation (click an issue to go to its path),
// save under If-Match (a conflict offers reload or overwrite), publish with a note, and versions
// with their diff and rollback.
import { get, post, request, ApiError } from "./api.js";
import { h, show, field, problemBox, time, announce, fill } from "./dom.js";
import { locate, spanOf } from "./jsonpos.js";
import { analyticsSection } from "./analytics.js";
import { textsSection } from "./texts.js";
import { previewSection } from "./preview.js";
import { tree } from "./tree.js";
import { sideBySide } from "./diff.js";

export async function editorView(paywallId) {
  const path = `/v1/paywalls/${encodeURIComponent(paywallId)}`;
  const text = h("textarea", { class: "code", rows: "28", spellcheck: "false", "aria-describedby": "issues" });
  const issues = h("div", { id: "issues", class: "issues", "aria-live": "polite" });
  const feedback = h("div", {});
  const note = h("input", { name: "note", maxlength: "500", placeholder: "What changed" });
  const versions = h("div", {});
  const colors = h("div", { class: "colors" });
  const structure = h("div", { class: "structure" });
  const textsBox = h("div", {});
  const title = h("h1", {}, "Edit paywall");
  let etag = null;
  let timer = null;
  let loaded = null;
  const preview = previewSection(path, () => loaded);

  async function load() {
    const response = await fetchDraft();
    text.value = JSON.stringify(response.draft.document, null, 2);
    loaded = response.draft.document;
    etag = response.etag;
    title.textContent = `Edit “${response.draft.document.name ?? paywallId}”`;
    renderIssues(response.draft.validation);
    renderColors(response.draft.document);
    renderTree(response.draft.document);
  }

  function renderTree(document) {
    fill(structure, h("h2", {}, "Structure"), tree(document, (nodePath) => reveal(nodePath)));
  }

  /** The theme's colours, each a colour input that rewrites its value in the text. */
  function renderColors(document) {
    const palette = document?.theme?.colors ?? {};
    fill(colors, h("h2", {}, "Theme colours"), h("div", { class: "swatches" }, Object.entries(palette)
      .filter(([, value]) => typeof value === "string" && /^#[0-9a-fA-F]{6}$/.test(value))
      .map(([name, value]) => {
        const input = h("input", { type: "color", value, "aria-label": `Colour ${name}` });
        input.addEventListener("change", () => {
          try {
            const span = locate(text.value).spans.get(`$.theme.colors.${name}`);
            if (!span) return renderIssues(null, new Error(`theme.colors.${name} is no longer in the text`));
            text.value = text.value.slice(0, span.start) + JSON.stringify(input.value.toUpperCase()) + text.value.slice(span.end);
            revalidate();
          } catch (error) {
            renderIssues(null, error);
          }
        });
        return h("label", { class: "swatch" }, input, " ", h("code", {}, name));
      })));
  }

  async function fetchDraft() {
    const { body, etag: tag } = await request("GET", `${path}/draft`);
    return { draft: body, etag: tag };
  }

  /** Errors and warnings with their paths; each a button that selects its place in the text. */
  function renderIssues(validation, parseError) {
    const items = [];
    if (parseError) items.push(issueButton({ path: "$", message: parseError.message, code: "invalid_json" }, "error", parseError.offset));
    for (const issue of validation?.errors ?? []) items.push(issueButton(issue, "error"));
    for (const issue of validation?.warnings ?? []) items.push(issueButton(issue, "warning"));
    fill(issues, 
      h("h2", {}, items.length ? `Validation: ${(validation?.errors?.length ?? 0) + (parseError ? 1 : 0)} errors, ${validation?.warnings?.length ?? 0} warnings` : "Validation: no problems"),
      items.length ? h("ul", {}, items) : null);
  }

  function issueButton(issue, severity, offset) {
    return h("li", { class: severity },
      h("button", { type: "button", class: "link", onclick: () => reveal(issue.path, offset) },
        h("span", { class: "badge" }, severity), " ", h("code", {}, issue.path), " ", issue.message));
  }

  /** Selects the text of `path` (or of the nearest value that exists) and scrolls to it. */
  function reveal(issuePath, offset) {
    let start = offset ?? 0, end = (offset ?? 0) + 1;
    if (offset === undefined) {
      try {
        const span = spanOf(locate(text.value).spans, issuePath);
        start = span.start; end = span.end;
      } catch (error) {
        start = error.offset ?? 0; end = start + 1;
      }
    }
    text.focus();
    text.setSelectionRange(start, end);
    const line = text.value.slice(0, start).split("\n").length;
    text.scrollTop = Math.max(0, (line - 5) * parseFloat(getComputedStyle(text).lineHeight || "18"));
  }

  /** Live validation, a moment after typing stops: the JSON first, then the server's validator. */
  function revalidate() {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      let document;
      try {
        document = locate(text.value).value;
      } catch (error) {
        return renderIssues(null, error);
      }
      renderTree(document);
      try {
        renderIssues(await post("/v1/validate", document));
      } catch (error) {
        fill(feedback, problemBox(error));
      }
    }, 350);
  }

  async function save(overwrite = false) {
    fill(feedback);
    let document;
    try {
      document = locate(text.value).value;
    } catch (error) {
      renderIssues(null, error);
      return reveal("$", error.offset);
    }
    try {
      if (overwrite) etag = (await fetchDraft()).etag;
      let answer;
      try {
        answer = await request("PUT", `${path}/draft`, { body: document, headers: { "If-Match": etag } });
      } catch (error) {
        if (error instanceof ApiError && error.status === 412) return conflict();
        throw error;
      }
      const body = answer.body;
      etag = answer.etag;
      loaded = body.document;
      title.textContent = `Edit “${body.document.name ?? paywallId}”`;
      renderIssues(body.validation);
      announce(`Saved (revision ${body.revision}).`);
      await preview.refresh();
    } catch (error) {
      fill(feedback, problemBox(error));
    }
  }

  function conflict() {
    fill(feedback, h("div", { class: "problem", role: "alert" },
      h("p", {}, "Someone saved this draft since you loaded it."),
      h("button", { type: "button", class: "secondary", onclick: async () => { fill(feedback); await load(); announce("Reloaded."); } }, "Reload theirs"),
      " ",
      h("button", { type: "button", class: "danger", onclick: () => save(true) }, "Overwrite with mine")));
  }

  async function publish() {
    fill(feedback);
    try {
      const body = note.value.trim() ? { note: note.value.trim() } : {};
      const version = await post(`${path}/publish`, body);
      announce(version.unchanged ? `Nothing to publish: v${version.version} is this draft.` : `Published v${version.version}.`);
      note.value = "";
      await refreshVersions();
    } catch (error) {
      const listed = error instanceof ApiError && error.errors.length > 0;
      if (listed) renderIssues({ errors: error.errors, warnings: [] });
      fill(feedback, problemBox(error, { listErrors: !listed }));
    }
  }

  async function refreshVersions() {
    try {
      const { items } = await get(`${path}/versions`);
      const from = h("select", { name: "from" }, items.map((v) => h("option", { value: v.version }, `v${v.version}`)));
      const to = h("select", { name: "to" }, h("option", { value: "draft" }, "draft"), items.map((v) => h("option", { value: v.version }, `v${v.version}`)));
      const diff = h("div", {});
      fill(versions, 
        h("h2", {}, "Versions"),
        items.length === 0 ? h("p", {}, "Not published yet.") : h("table", {},
          h("caption", {}, "Published versions, newest first"),
          h("thead", {}, h("tr", {}, ["Version", "Published", "Note", ""].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, items.map((v) => h("tr", {},
            h("td", {}, `v${v.version}`, v.rolledBackFrom ? ` (rollback to v${v.rolledBackFrom})` : ""),
            h("td", {}, time(v.publishedAt)), h("td", {}, v.note || "—"),
            h("td", {}, h("button", { type: "button", class: "secondary", "aria-label": `Roll back to v${v.version}`,
              onclick: () => rollback(v.version) }, "Roll back to this")))))),
        items.length ? h("form", { class: "inline-form", onsubmit: async (event) => {
          event.preventDefault();
          try {
            const documentOf = async (which) => which === "draft"
              ? (await get(`${path}/draft`)).document : (await get(`${path}/versions/${which}`)).document;
            const [before, after, answer] = await Promise.all([documentOf(from.value), documentOf(to.value),
              get(`${path}/diff?from=${from.value}&to=${to.value}`)]);
            const name = (which) => which === "draft" ? "the draft" : `v${which}`;
            fill(diff, 
              h("p", {}, `${answer.operations.length} JSON Patch operation(s) turn ${name(from.value)} into ${name(to.value)}.`),
              sideBySide(before, after, { leftTitle: name(from.value), rightTitle: name(to.value) }));
          } catch (error) {
            fill(diff, problemBox(error));
          }
        } }, field("From", from), field("To", to), h("button", { type: "submit", class: "secondary" }, "Compare")) : null,
        diff);
    } catch (error) {
      fill(versions, problemBox(error));
    }
  }

  async function rollback(version) {
    if (!confirm(`Publish v${version}'s document again as a new version?`)) return;
    try {
      const answer = await post(`${path}/rollback`, { version });
      announce(answer.unchanged ? `v${version} is live already.` : `Rolled back: v${answer.version} is live.`);
      await refreshVersions();
    } catch (error) {
      fill(feedback, problemBox(error));
    }
  }

  text.addEventListener("input", revalidate);
  show(title,
    h("p", {}, h("a", { href: "#/paywalls" }, "← All paywalls")),
    h("div", { class: "editor" },
      h("div", {}, field("Document (JSON)", text), feedback,
        h("div", { class: "toolbar" },
          h("button", { type: "button", onclick: () => save() }, "Save draft"),
          field("Publish note", note),
          h("button", { type: "button", class: "secondary", onclick: publish }, "Publish"))),
      h("div", {}, issues, colors, structure)),
    preview.section,
    textsBox,
    versions);
  try {
    await load();
  } catch (error) {
    fill(feedback, problemBox(error));
  }
  await preview.refresh();
  const refreshTexts = async () => fill(textsBox, await textsSection({
    path, etag: () => etag, saved: async () => { await load(); await refreshTexts(); await preview.refresh(); } }));
  await refreshTexts();
  await refreshVersions();
  versions.after(await analyticsSection(paywallId));
}
