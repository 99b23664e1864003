// The visual rule builder: each rule's condition as a tree of groups (all / any / not) and
// comparisons (key, operator, value), audiences and rollouts, with its target (a paywall or an
// experiment), schedule and frequency cap. It
// edits the same JSON the rules' text area holds (the text stays what is saved), so anything the
// builder does not draw can still be written by hand.
import { h, field, fill } from "./dom.js";

export const OPERATORS = ["eq", "ne", "in", "not_in", "exists", "gt", "gte", "lt", "lte", "starts_with", "between",
  "semver_eq", "semver_gt", "semver_gte", "semver_lt", "semver_lte"];
const KINDS = [["compare", "Compare a value"], ["all", "All of"], ["any", "Any of"], ["not", "Not"], ["audience", "Audience"], ["rollout", "Rollout"]];

function kindOf(condition) {
  if (condition && typeof condition === "object") {
    for (const kind of ["all", "any", "not", "audience", "rollout"]) if (kind in condition) return kind;
  }
  return "compare";
}

function fresh(kind) {
  switch (kind) {
    case "all": case "any": return { [kind]: [{ key: "", op: "eq", value: "" }] };
    case "not": return { not: { key: "", op: "eq", value: "" } };
    case "audience": return { audience: "" };
    case "rollout": return { rollout: { percent: 10 } };
    default: return { key: "", op: "eq", value: "" };
  }
}

/** A value as typed: JSON when it reads as JSON (numbers, booleans, arrays), else the text itself. */
export function typedValue(text) {
  const trimmed = text.trim();
  if (trimmed === "") return "";
  try {
    const parsed = JSON.parse(trimmed);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? text : parsed;
  } catch {
    return text;
  }
}

const shown = (value) => value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);

/**
 * The editor of one condition; `set(next)` replaces it in its parent. `label` names it for screen
 * readers. `audiences` lists the app's audiences (an `{"audience": ID}` picks among them), or is null
 * where an audience cannot be referred to: inside an audience's own condition.
 */
function conditionEditor(condition, set, label, audiences) {
  const kind = kindOf(condition);
  const kinds = audiences === null ? KINDS.filter(([value]) => value !== "audience") : KINDS;
  const pick = h("select", { "aria-label": `${label}: kind` }, kinds.map(([value, text]) => h("option", { value, selected: value === kind }, text)));
  pick.addEventListener("change", () => set(fresh(pick.value)));
  const box = h("div", { class: `condition ${kind}`, role: "group", "aria-label": label }, pick);
  if (kind === "compare") {
    const key = h("input", { value: condition.key ?? "", placeholder: "plan, device.appVersion, subscriber.tier", "aria-label": `${label}: key` });
    const op = h("select", { "aria-label": `${label}: operator` }, OPERATORS.map((o) => h("option", { value: o, selected: o === condition.op }, o)));
    const value = h("input", { value: shown(condition.value), placeholder: "pro, 3, true, [\"DE\",\"AT\"]", "aria-label": `${label}: value`,
      disabled: condition.op === "exists" });
    const update = () => {
      const next = { key: key.value, op: op.value };
      if (op.value !== "exists") next.value = typedValue(value.value);
      set(next);
    };
    key.addEventListener("change", update); op.addEventListener("change", update); value.addEventListener("change", update);
    box.append(key, op, value);
  } else if (kind === "all" || kind === "any") {
    const items = Array.isArray(condition[kind]) ? condition[kind] : [];
    box.append(h("div", { class: "children" }, items.map((child, i) => h("div", { class: "child" },
      conditionEditor(child, (next) => set({ [kind]: items.map((c, k) => k === i ? next : c) }), `${label} › ${i + 1}`, audiences),
      h("button", { type: "button", class: "link", "aria-label": `Remove ${label} › ${i + 1}`,
        onclick: () => set({ [kind]: items.filter((_, k) => k !== i) }) }, "Remove")))),
      h("button", { type: "button", class: "secondary small", onclick: () => set({ [kind]: [...items, fresh("compare")] }) }, "Add a condition"));
  } else if (kind === "not") {
    box.append(h("div", { class: "children" }, conditionEditor(condition.not, (next) => set({ not: next }), `${label} › not`, audiences)));
  } else if (kind === "audience") {
    const current = condition.audience ?? "";
    // The app's audiences by name; an id typed by hand that no audience has is kept (the API names it).
    const choices = [...(audiences ?? [])];
    if (current && !choices.some((a) => a.id === current)) choices.push({ id: current, name: `${current} (unknown)` });
    const id = choices.length
      ? h("select", { "aria-label": `${label}: audience` }, h("option", { value: "", selected: current === "" }, "Choose an audience"),
        choices.map((a) => h("option", { value: a.id, selected: a.id === current }, a.name === a.id ? a.id : `${a.name} (${a.id})`)))
      : h("input", { value: current, "aria-label": `${label}: audience id` });
    id.addEventListener("change", () => set({ audience: id.value }));
    box.append(id);
  } else {
    const percent = h("input", { type: "number", min: "0", max: "100", step: "0.01", value: condition.rollout?.percent ?? 10, "aria-label": `${label}: percent` });
    percent.addEventListener("change", () => set({ rollout: { ...condition.rollout, percent: Number(percent.value) } }));
    box.append(percent, h("span", { class: "hint" }, " % of subscribers", condition.rollout?.seed ? ` (seed ${condition.rollout.seed})` : ""));
  }
  return box;
}

/**
 * What a placement or a rule serves: a paywall, or an experiment (whose control answers where the
 * experiment does not: the API's `experimentId`). The option values are `paywall:ID` and
 * `experiment:ID`; `targetOf` turns one back into the body's fields (the other one cleared).
 */
export function targetSelect(label, current, paywalls, experiments) {
  const chosen = current.experimentId ? `experiment:${current.experimentId}` : `paywall:${current.paywallId ?? ""}`;
  const live = experiments.filter((e) => e.status !== "stopped" || e.id === current.experimentId);
  // A target no longer offered (a paywall archived since, an experiment gone) stays chosen and
  // says so, rather than the first paywall silently standing in for it.
  const offered = paywalls.some((p) => `paywall:${p.id}` === chosen) || live.some((e) => `experiment:${e.id}` === chosen);
  const kept = current.experimentId ?? current.paywallId;
  return h("select", { "aria-label": label },
    !offered && kept ? h("option", { value: chosen, selected: true }, `${kept} (archived or unknown)`) : null,
    h("optgroup", { label: "Paywalls" }, paywalls.map((p) => h("option", { value: `paywall:${p.id}`, selected: `paywall:${p.id}` === chosen }, p.name))),
    live.length === 0 ? null : h("optgroup", { label: "Experiments" }, live.map((e) =>
      h("option", { value: `experiment:${e.id}`, selected: `experiment:${e.id}` === chosen }, `${e.name} (${e.status})`))));
}

export function targetOf(value) {
  const [kind, ...rest] = value.split(":");
  const id = rest.join(":");
  return kind === "experiment" ? { experimentId: id, paywallId: undefined } : { paywallId: id, experimentId: undefined };
}

const PERIODS = [["hour", 3600], ["day", 86400], ["week", 604800]];

/**
 * A rule's frequency cap: at most `count` presentations per period and subscriber (`{count, per}`, or
 * `{count, seconds}` for another period). An empty count removes the cap.
 */
export function frequencyCapOf(countText, period, secondsText) {
  const count = Number(countText);
  if (countText.trim() === "" || !Number.isFinite(count)) return undefined;
  if (period === "seconds") return { count, seconds: Number(secondsText) };
  return { count, per: period };
}

function capEditor(rule, update, i) {
  const cap = rule.frequencyCap;
  const named = cap ? (cap.per ?? PERIODS.find(([, s]) => s === cap.seconds)?.[0]) : "day";
  const count = h("input", { type: "number", min: "1", step: "1", value: cap?.count ?? "", placeholder: "no cap", "aria-label": `Rule ${i}: at most (presentations)` });
  const period = h("select", { "aria-label": `Rule ${i}: per` },
    [...PERIODS.map(([name]) => [name, name]), ["seconds", "seconds…"]].map(([value, text]) =>
      h("option", { value, selected: value === (named ?? "seconds") }, text)));
  const seconds = h("input", { type: "number", min: "1", step: "1", value: cap && !named ? cap.seconds : "", "aria-label": `Rule ${i}: period in seconds`,
    hidden: (named ?? "seconds") !== "seconds" });
  let previous = period.value;
  const write = () => {
    // No count and no cap yet: nothing to write (a redraw would reset the period just chosen).
    if (count.value.trim() === "" && !cap) return;
    update({ frequencyCap: frequencyCapOf(count.value, period.value, seconds.value) });
  };
  period.addEventListener("change", () => {
    seconds.hidden = period.value !== "seconds";
    if (period.value !== "seconds") { previous = period.value; return write(); }
    // "seconds…" opens the box on the period it replaces; what is typed there is written (a
    // number of seconds that is a whole hour, day or week is drawn as that period again).
    if (seconds.value.trim() === "") seconds.value = String(PERIODS.find(([name]) => name === previous)?.[1] ?? 86400);
    seconds.focus();
  });
  count.addEventListener("change", write);
  seconds.addEventListener("change", write);
  return h("div", { class: "field", role: "group", "aria-label": `Rule ${i}: frequency cap` }, h("span", {}, "Frequency cap: at most "),
    h("span", { class: "inline-form" }, count, h("span", {}, " per "), period, seconds),
    h("p", { class: "hint" }, "Past this many presentations to one subscriber, the rule is skipped."));
}

/**
 * A builder for one condition standing alone (an audience's): `changed(next)` gets the whole new
 * condition after every edit, and the builder draws itself again.
 */
export function conditionBuilder(condition, changed, label, audiences = []) {
  const root = h("div", { class: "rule-builder" });
  const render = (current) => fill(root, conditionEditor(current, (next) => { changed(next); render(next); }, label, audiences));
  render(condition);
  return root;
}

/** The builder for `rules` (an array); `changed(next)` gets the whole new array after every edit. */
export function ruleBuilder(rules, changed, paywalls, experiments = [], audiences = []) {
  const root = h("div", { class: "rule-builder" });
  function render(current) {
    const set = (next) => { changed(next); render(next); };
    fill(root, 
      ...current.map((rule, i) => {
        const update = (patch) => set(current.map((r, k) => k === i ? { ...r, ...patch } : r));
        const target = targetSelect(`Rule ${i}: shows`, rule, paywalls, experiments);
        target.addEventListener("change", () => update(targetOf(target.value)));
        const from = h("input", { type: "datetime-local", "aria-label": `Rule ${i}: active from`, value: local(rule.activeFrom) });
        const until = h("input", { type: "datetime-local", "aria-label": `Rule ${i}: active until`, value: local(rule.activeUntil) });
        from.addEventListener("change", () => update({ activeFrom: from.value ? new Date(from.value).getTime() : undefined }));
        until.addEventListener("change", () => update({ activeUntil: until.value ? new Date(until.value).getTime() : undefined }));
        return h("fieldset", { class: "rule" }, h("legend", {}, `Rule ${i}`),
          h("p", { class: "hint" }, "When"),
          conditionEditor(rule.when, (next) => update({ when: next }), `Rule ${i} condition`, audiences),
          h("div", { class: "inline-form wrap" },
            field("Show", target), field("Active from", from), field("Active until", until)),
          capEditor(rule, update, i),
          h("div", { class: "toolbar" },
            h("button", { type: "button", class: "link", disabled: i === 0, onclick: () => set(move(current, i, -1)) }, "Move up"),
            h("button", { type: "button", class: "link", disabled: i === current.length - 1, onclick: () => set(move(current, i, 1)) }, "Move down"),
            h("button", { type: "button", class: "link", onclick: () => set(current.filter((_, k) => k !== i)) }, `Remove rule ${i}`)));
      }),
      h("button", { type: "button", class: "secondary", onclick: () =>
        set([...current, { when: fresh("compare"), paywallId: paywalls[0]?.id ?? "" }]) }, "Add a rule"));
  }
  render(rules);
  return root;
}

function move(list, i, by) {
  const next = [...list];
  [next[i], next[i + by]] = [next[i + by], next[i]];
  return next;
}

function local(ms) {
  if (ms === undefined || ms === null) return "";
  const date = new Date(ms);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}
