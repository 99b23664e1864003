// Placements: each with its paywall or experiment and rules; assign a paywall or an experiment, edit
// the ordered rules (builder and JSON, every error selected by its path), delete; and the resolve
// dry run with its trace.
import { get, getAll, put, del, ApiError } from "./api.js";
import { h, show, field, problemBox, time, announce, fill, submitter } from "./dom.js";
import { locate, spanOf } from "./jsonpos.js";
import { ruleBuilder, targetSelect, targetOf } from "./rules.js";

export async function placementsView() {
  const list = h("div", {});
  const errors = h("div", {});
  const key = h("input", { name: "key", required: true, maxlength: "100", pattern: "[A-Za-z0-9_.\\-]+" });
  let paywalls = [];
  let experiments = [];
  let audiences = [];
  let keys = [];
  let archived = [];
  let target = h("select", { name: "target", required: true });
  const targetBox = h("div", {});

  const form = h("form", {
    class: "card",
    onsubmit: submitter(errors, async () => {
      await put(`/v1/placements/${encodeURIComponent(key.value.trim())}`, targetOf(target.value));
      announce("Placement saved.");
      key.value = "";
      await refresh();
    }),
  }, h("h2", {}, "Assign a placement"), field("Placement key", key, "What the app passes to present(…): onboarding, settings_upsell."),
  targetBox, errors, h("button", { type: "submit" }, "Save placement"));

  // A placement may still serve a paywall archived since (it keeps serving its last version): named too.
  const paywallName = (id) => paywalls.find((p) => p.id === id)?.name
    ?? (archived.find((p) => p.id === id) ? `${archived.find((p) => p.id === id).name} (archived)` : id);
  const experimentName = (id) => experiments.find((e) => e.id === id)?.name ?? id;

  function rulesEditor(placement) {
    const text = h("textarea", { class: "code", rows: "12", spellcheck: "false" });
    const summary = h("summary", {}, `Rules of ${placement.key} (${placement.rules.length})`);
    text.value = JSON.stringify(placement.rules, null, 2);
    const feedback = h("div", {});
    const select = (path) => {
      // The API's paths start at the request body: $.rules[2].when → [2].when in this text.
      const inner = path.replace(/^\$\.rules/, "$");
      try {
        const span = spanOf(locate(text.value).spans, inner);
        text.focus();
        text.setSelectionRange(span.start, span.end);
      } catch (error) {
        text.focus();
        text.setSelectionRange(error.offset ?? 0, (error.offset ?? 0) + 1);
      }
    };
    const save = async () => {
      fill(feedback);
      let rules;
      try {
        rules = locate(text.value).value;
      } catch (error) {
        fill(feedback, h("p", { class: "problem", role: "alert" }, error.message));
        return select("$");
      }
      try {
        const saved = await put(`/v1/placements/${encodeURIComponent(placement.key)}/rules`, { rules });
        text.value = JSON.stringify(saved.rules, null, 2);
        summary.textContent = `Rules of ${placement.key} (${saved.rules.length})`;
        drawBuilder();
        announce("Rules saved.");
        if (saved.warnings?.length) fill(feedback, issueList(saved.warnings, "warning", select));
      } catch (error) {
        const listed = error instanceof ApiError && error.errors.length > 0;
        fill(feedback, problemBox(error, { listErrors: !listed }), listed ? issueList(error.errors, "error", select) : null);
      }
    };
    // The builder and the text edit the same rules: the builder rewrites the text on every change;
    // "Rebuild from the text" draws the builder again after a hand edit.
    const builderBox = h("div", {});
    const drawBuilder = () => {
      let current;
      try { current = locate(text.value).value; } catch (error) { return fill(feedback, h("p", { class: "problem", role: "alert" }, error.message)); }
      if (!Array.isArray(current)) return fill(feedback, h("p", { class: "problem", role: "alert" }, "The rules are a JSON array."));
      fill(builderBox, ruleBuilder(current, (next) => { text.value = JSON.stringify(next, null, 2); }, paywalls, experiments, audiences, keys));
    };
    drawBuilder();
    return h("details", {}, summary,
      h("p", { class: "hint" }, "Rules are tried in order; the first whose condition matches decides (docs/targeting.md). Anything not drawn here can be written in the JSON below."),
      builderBox,
      field(`Rules of ${placement.key} (JSON)`, text),
      h("button", { type: "button", class: "link", onclick: drawBuilder }, "Rebuild from the text"), feedback,
      h("button", { type: "button", onclick: save }, "Save rules"));
  }

  function issueList(issues, severity, select) {
    return h("ul", { class: "issues-inline" }, issues.map((issue) => h("li", { class: severity },
      h("button", { type: "button", class: "link", onclick: () => select(issue.path) },
        h("span", { class: "badge" }, severity), " ", h("code", {}, issue.path), " ", issue.message))));
  }

  function dryRun(placement) {
    const context = h("input", { name: "context", placeholder: "plan=pro, visits=3" });
    // Every request attribute the dry run takes (device.NAME, docs/targeting.md), as the client library sends it.
    const device = [["platform", "Platform", "ios"], ["appVersion", "App version", "2.4.0"], ["osVersion", "OS version", "17.4"],
      ["sdkVersion", "SDK version", "1.2.0"], ["locale", "Device locale", "de-DE"], ["country", "Country", "DE"]]
      .map(([name, label, example]) => [name, label, h("input", { name, placeholder: example, maxlength: name === "country" ? "2" : "64",
        list: name === "platform" ? "dry-run-platforms" : null, autocomplete: "off" })]);
    const subscriber = h("input", { name: "subscriberId" });
    const answer = h("div", { "aria-live": "polite" });
    return h("form", {
      class: "inline-form wrap",
      onsubmit: async (event) => {
        event.preventDefault();
        const query = new URLSearchParams();
        for (const pair of context.value.split(",").map((s) => s.trim()).filter(Boolean)) {
          const [name, ...rest] = pair.split("=");
          query.append(`context.${name.trim()}`, rest.join("=").trim());
        }
        for (const [name, , input] of device) if (input.value.trim()) query.append(`device.${name}`, input.value.trim());
        if (subscriber.value.trim()) query.append("subscriberId", subscriber.value.trim());
        try {
          const result = await get(`/v1/placements/${encodeURIComponent(placement.key)}/resolve?${query}`);
          fill(answer, h("div", { class: "notice" },
            h("p", {}, result.fallback ? "No rule matched: the placement's own paywall answers, "
              : result.matchedRule === null ? "The placement's own target answers: " : `Rule ${result.matchedRule + 1} matched: `,
              h("strong", {}, paywallName(result.paywallId)), result.version ? ` v${result.version}` : ""),
            h("ol", {}, (result.trace ?? []).map((step) => h("li", {}, `Rule ${step.rule + 1}: `, h("strong", {}, OUTCOMES[step.outcome] ?? step.outcome),
              step.failed ? [" — ", failureText(step.failed)] : "")))));
        } catch (error) {
          fill(answer, problemBox(error));
        }
      },
    }, h("h3", {}, `Dry run of ${placement.key}`), field("Context", context, "key=value pairs, comma-separated"),
    device.map(([, label, input]) => field(label, input)), field("Subscriber", subscriber),
    h("button", { type: "submit", class: "secondary" }, "Resolve"), answer);
  }

  async function refresh() {
    try {
      const { items } = await get("/v1/placements");
      fill(list, items.length === 0 ? h("p", {}, "No placements yet.") : h("div", {}, items.map((placement) =>
        h("section", { class: "card", "aria-labelledby": `placement-${placement.key}` },
          h("h2", { id: `placement-${placement.key}` }, placement.key),
          h("p", {}, "Serves ", placement.experimentId
            ? [h("strong", {}, `experiment ${experimentName(placement.experimentId)}`), ` (else ${paywallName(placement.paywallId)})`]
            : h("strong", {}, paywallName(placement.paywallId)), ` · updated ${time(placement.updatedAt)} · `,
            h("button", { type: "button", class: "danger", "aria-label": `Delete placement ${placement.key}`, onclick: async () => {
              if (!confirm(`Delete the placement ${placement.key}? Apps asking for it get 404.`)) return;
              try { await del(`/v1/placements/${encodeURIComponent(placement.key)}`); announce("Deleted."); await refresh(); }
              catch (error) { fill(errors, problemBox(error)); }
            } }, "Delete")),
          rulesEditor(placement), dryRun(placement)))));
    } catch (error) {
      fill(list, problemBox(error));
    }
  }

  show(h("h1", {}, "Placements"), list, form,
    h("datalist", { id: "dry-run-platforms" }, ["ios", "android", "web"].map((value) => h("option", { value }))));
  // Each list loads on its own: without the experiments or audiences (or the archived names) the
  // forms still work with what did load; without the paywalls there is nothing to assign.
  const items = (path) => get(path).then((r) => r.items, (error) => { fill(errors, problemBox(error)); return null; });
  // Every paywall, page after page (a picker that stopped at 200 would hide the rest); the key
  // picker's choices are a help only: without them a key is typed.
  const every = (path) => getAll(path).catch((error) => { fill(errors, problemBox(error)); return null; });
  const [live, gone, tests, named, known] = await Promise.all([every("/v1/paywalls"), every("/v1/paywalls?archived=true"),
    items("/v1/experiments"), items("/v1/audiences"), get("/v1/targeting/keys").catch(() => null)]);
  [archived, experiments, audiences] = [gone ?? [], tests ?? [], named ?? []];
  keys = known ? [...known.device, ...known.subscriber, ...known.context] : [];
  if (live) {
    paywalls = live;
    target = targetSelect("Serves", {}, paywalls, experiments);
    target.name = "target";
    target.required = true;
    target.removeAttribute("aria-label");
    fill(targetBox, field("Serves", target, "A paywall, or an experiment: its variants split the placement's traffic."));
  }
  await refresh();
}

/** A dry run's outcomes in words. */
const OUTCOMES = {
  matched: "matched", not_matched: "not matched", inactive: "outside its schedule", capped: "matched, but its frequency cap is reached",
  target_unpublished: "matched, but its target has nothing published", not_reached: "not tried (an earlier rule decided)",
  budget_exhausted: "not tried (the evaluation budget ran out)",
};

/**
 * What failed in a rule, in words: the server's message (the key, operator, expected and seen
 * value), where in the rule, and the alternatives of an `any` or an audience, each in its own item.
 */
export function failureText(failed) {
  const saw = failed.saw !== undefined ? ` (saw ${JSON.stringify(failed.saw)})` : "";
  return h("span", { class: "failure" }, failed.message ?? `${failed.reason}${saw}`, " ", h("code", {}, failed.path),
    failed.failures?.length ? h("ul", {}, failed.failures.map((inner) => h("li", {}, failureText(inner)))) : null);
}
