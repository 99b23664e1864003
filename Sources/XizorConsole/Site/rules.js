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

/**
 * A value as typed, read as the operator takes it (docs/targeting.md, "Operators"): `semver_*` and
 * `starts_with` take a string whatever it looks like (`2.1` is the version "2.1", not the number the
 * server refuses); `in`, `not_in` and `between` a JSON array or comma-separated values; `exists`
 * nothing (undefined); the others a JSON scalar or the text.
 */
export function valueFor(op, text) {
  if (op === "exists") return undefined;
  if (op === "starts_with" || op.startsWith("semver_")) {
    const trimmed = text.trim();
    // A value quoted by hand stays the string inside the quotes.
    if (/^".*"$/.test(trimmed)) { try { return JSON.parse(trimmed); } catch { return trimmed; } }
    return trimmed;
  }
  const typed = typedValue(text);
  if ((op === "in" || op === "not_in" || op === "between") && !Array.isArray(typed) && typeof typed === "string" && typed.includes(",")) {
    return typed.split(",").map((part) => typedValue(part.trim())).filter((part) => part !== "");
  }
  return typed;
}

const shown = (value) => value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);

/** The prefix of an `audience:ID` the key picker offers: choosing one makes the row an audience. */
const AUDIENCE_KEY = "audience:";

/**
 * The key picker's choices: the server's keys (`GET /v1/targeting/keys`: device.*, stored subscriber
 * attributes, events' context) and, where an audience may be named, `audience:ID` for each audience.
 */
function keyChoices(id, keys, audiences) {
  return h("datalist", { id },
    (keys ?? []).map((key) => h("option", { value: key })),
    (audiences ?? []).map((a) => h("option", { value: `${AUDIENCE_KEY}${a.id}` }, `Audience ${a.name}`)));
}

/**
 * The editor of one condition, editing `condition` in place: an edit changes the model and calls
 * `ctx.changed()`, and redraws nothing, so the field being typed in keeps its focus and text and a
 * click that follows a change lands on the button it aimed at. Only what changes shape is drawn
 * again, and only there: a new kind replaces this editor, an added condition is appended to its
 * group, a removed one leaves its group's list drawn again. `replace(next)` puts a new condition
 * in this one's place in the parent's model (the change is then announced by `ctx.changed`). `label` names it for screen readers; `ctx.audiences`
 * lists the app's audiences, or is null where none may be named (an audience's own condition).
 */
function conditionEditor(condition, replace, label, ctx) {
  const kind = kindOf(condition);
  const kinds = ctx.audiences === null ? KINDS.filter(([value]) => value !== "audience") : KINDS;
  const pick = h("select", { "aria-label": `${label}: kind` }, kinds.map(([value, text]) => h("option", { value, selected: value === kind }, text)));
  const box = h("div", { class: `condition ${kind}`, role: "group", "aria-label": label }, pick);
  const become = (next) => {
    replace(next);
    ctx.changed();
    const editor = conditionEditor(next, replace, label, ctx);
    box.replaceWith(editor);
    return editor;
  };
  pick.addEventListener("change", () => become(fresh(pick.value)).querySelector("select")?.focus());
  if (kind === "compare") {
    const key = h("input", { value: condition.key ?? "", placeholder: "plan, device.appVersion, subscriber.tier", "aria-label": `${label}: key`,
      list: ctx.listId, autocomplete: "off" });
    const op = h("select", { "aria-label": `${label}: operator` }, OPERATORS.map((o) => h("option", { value: o, selected: o === condition.op }, o)));
    const value = h("input", { value: shown(condition.value), placeholder: "pro, 3, true, [\"DE\",\"AT\"]", "aria-label": `${label}: value`,
      disabled: condition.op === "exists" });
    const write = () => {
      condition.key = key.value;
      condition.op = op.value;
      const typed = valueFor(op.value, value.value);
      if (typed === undefined) delete condition.value; else condition.value = typed;
      ctx.changed();
    };
    key.addEventListener("input", () => {
      // An audience chosen in the picker: the row becomes that audience.
      const chosen = key.value.startsWith(AUDIENCE_KEY) && ctx.audiences?.find((a) => `${AUDIENCE_KEY}${a.id}` === key.value);
      if (chosen) return become({ audience: chosen.id }).querySelector("select:last-of-type")?.focus();
      write();
    });
    op.addEventListener("change", () => { value.disabled = op.value === "exists"; write(); });
    value.addEventListener("input", write);
    box.append(key, op, value);
  } else if (kind === "all" || kind === "any") {
    const items = Array.isArray(condition[kind]) ? condition[kind] : (condition[kind] = []);
    const list = h("div", { class: "children" });
    const add = h("button", { type: "button", class: "secondary small" }, "Add a condition");
    const drawChildren = () => fill(list, items.map((child, i) => childRow(child, i)));
    const childRow = (child, i) => {
      let current = child;
      const at = () => items.indexOf(current);
      const put = (next) => { items[at()] = next; current = next; };
      return h("div", { class: "child" }, conditionEditor(child, put, `${label} › ${i + 1}`, ctx),
        h("button", { type: "button", class: "link", "aria-label": `Remove ${label} › ${i + 1}`, onclick: () => {
          items.splice(at(), 1);
          ctx.changed();
          drawChildren();
          add.focus();
        } }, "Remove"));
    };
    add.addEventListener("click", () => {
      const child = fresh("compare");
      items.push(child);
      ctx.changed();
      const row = childRow(child, items.length - 1);
      list.append(row);
      row.querySelector("input")?.focus();
    });
    drawChildren();
    box.append(list, add);
  } else if (kind === "not") {
    box.append(h("div", { class: "children" }, conditionEditor(condition.not, (next) => { condition.not = next; }, `${label} › not`, ctx)));
  } else if (kind === "audience") {
    const current = condition.audience ?? "";
    // The app's audiences by name; an id typed by hand that no audience has is kept (the API names it).
    const choices = [...(ctx.audiences ?? [])];
    if (current && !choices.some((a) => a.id === current)) choices.push({ id: current, name: `${current} (unknown)` });
    const id = choices.length
      ? h("select", { "aria-label": `${label}: audience` }, h("option", { value: "", selected: current === "" }, "Choose an audience"),
        choices.map((a) => h("option", { value: a.id, selected: a.id === current }, a.name === a.id ? a.id : `${a.name} (${a.id})`)))
      : h("input", { value: current, "aria-label": `${label}: audience id` });
    id.addEventListener(id.tagName === "SELECT" ? "change" : "input", () => { condition.audience = id.value; ctx.changed(); });
    box.append(id);
  } else {
    const percent = h("input", { type: "number", min: "0", max: "100", step: "0.01", value: condition.rollout?.percent ?? 10, "aria-label": `${label}: percent` });
    percent.addEventListener("input", () => { condition.rollout = { ...condition.rollout, percent: Number(percent.value) }; ctx.changed(); });
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

function capEditor(rule, update, n) {
  const cap = rule.frequencyCap;
  const named = cap ? (cap.per ?? PERIODS.find(([, s]) => s === cap.seconds)?.[0]) : "day";
  const count = h("input", { type: "number", min: "1", step: "1", value: cap?.count ?? "", placeholder: "no cap", "aria-label": `Rule ${n}: at most (presentations)` });
  const period = h("select", { "aria-label": `Rule ${n}: per` },
    [...PERIODS.map(([name]) => [name, name]), ["seconds", "seconds…"]].map(([value, text]) =>
      h("option", { value, selected: value === (named ?? "seconds") }, text)));
  const seconds = h("input", { type: "number", min: "1", step: "1", value: cap && !named ? cap.seconds : "", "aria-label": `Rule ${n}: period in seconds`,
    hidden: (named ?? "seconds") !== "seconds" });
  let previous = period.value;
  const write = () => {
    // No count and no cap (yet, or any more): nothing to write.
    if (count.value.trim() === "" && !rule.frequencyCap) return;
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
  return h("div", { class: "field", role: "group", "aria-label": `Rule ${n}: frequency cap` }, h("span", {}, "Frequency cap: at most "),
    h("span", { class: "inline-form wrap" }, count, h("span", {}, " per "), period, seconds),
    h("p", { class: "hint" }, "Past this many presentations to one subscriber, the rule is skipped."));
}

let builders = 0;

/**
 * A builder for one condition standing alone (an audience's): edits change `condition` in place
 * and `changed(condition)` gets it after every one (nothing is drawn again but what changes shape).
 * `keys` are the key picker's choices (`GET /v1/targeting/keys`).
 */
export function conditionBuilder(condition, changed, label, audiences = [], keys = []) {
  const listId = `rule-keys-${++builders}`;
  const model = { when: condition };
  const ctx = { audiences, listId, changed: () => changed(model.when) };
  return h("div", { class: "rule-builder" }, keyChoices(listId, keys, audiences),
    conditionEditor(model.when, (next) => { model.when = next; }, label, ctx));
}

/**
 * The builder for `rules` (an array, edited in place); `changed(rules)` gets it after every edit.
 * Rules are numbered from 1 here (the API's paths count from 0: `$.rules[0]` is rule 1). Adding,
 * removing or moving a rule draws the list of rules again (from the model: nothing typed is lost);
 * any other edit draws nothing.
 */
export function ruleBuilder(rules, changed, paywalls, experiments = [], audiences = [], keys = []) {
  const listId = `rule-keys-${++builders}`;
  const root = h("div", { class: "rule-builder" });
  const list = h("div", {});
  const emit = () => changed(rules);
  const ctx = { audiences, listId, changed: emit };
  const restructure = (focus) => { emit(); render(); root.querySelector(focus)?.focus(); };
  function ruleEditor(rule, i) {
    const n = i + 1;
    const update = (patch) => {
      for (const [name, value] of Object.entries(patch)) if (value === undefined) delete rule[name]; else rule[name] = value;
      emit();
    };
    const target = targetSelect(`Rule ${n}: shows`, rule, paywalls, experiments);
    target.addEventListener("change", () => update(targetOf(target.value)));
    const from = h("input", { type: "datetime-local", "aria-label": `Rule ${n}: active from`, value: local(rule.activeFrom) });
    const until = h("input", { type: "datetime-local", "aria-label": `Rule ${n}: active until`, value: local(rule.activeUntil) });
    from.addEventListener("change", () => update({ activeFrom: from.value ? new Date(from.value).getTime() : undefined }));
    until.addEventListener("change", () => update({ activeUntil: until.value ? new Date(until.value).getTime() : undefined }));
    return h("fieldset", { class: "rule" }, h("legend", {}, `Rule ${n}`),
      h("p", { class: "hint" }, "When"),
      conditionEditor(rule.when, (next) => { rule.when = next; }, `Rule ${n} condition`, ctx),
      h("div", { class: "inline-form wrap" },
        field("Show", target), field("Active from", from), field("Active until", until)),
      capEditor(rule, update, n),
      h("div", { class: "toolbar" },
        h("button", { type: "button", class: "link", disabled: i === 0, onclick: () => { move(rules, i, -1); restructure(`[data-rule="${i - 1}"] legend`); } }, "Move up"),
        h("button", { type: "button", class: "link", disabled: i === rules.length - 1, onclick: () => { move(rules, i, 1); restructure(`[data-rule="${i + 1}"] legend`); } }, "Move down"),
        h("button", { type: "button", class: "link", onclick: () => { rules.splice(i, 1); restructure(".add-rule"); } }, `Remove rule ${n}`)));
  }
  function render() {
    fill(list, rules.map((rule, i) => {
      const editor = ruleEditor(rule, i);
      editor.dataset.rule = String(i);
      return editor;
    }));
  }
  render();
  fill(root, keyChoices(listId, keys, audiences), list,
    h("button", { type: "button", class: "secondary add-rule", onclick: () => {
      rules.push({ when: fresh("compare"), paywallId: paywalls[0]?.id ?? "" });
      // Drawn again (the former last rule's "Move down" comes alive); the new rule's key takes the focus.
      restructure(`[data-rule="${rules.length - 1}"] input`);
    } }, "Add a rule"));
  return root;
}

/** Swaps a rule with its neighbour, in place. */
function move(list, i, by) {
  [list[i], list[i + by]] = [list[i + by], list[i]];
}

function local(ms) {
  if (ms === undefined || ms === null) return "";
  const date = new Date(ms);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}
