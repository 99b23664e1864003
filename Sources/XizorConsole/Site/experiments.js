// Experiments: create (variants, weights, holdout), start, stop, re-weight, promote, and the
// results with their 95 % intervals drawn as a chart (SVG, no library).
import { get, getAll, post, put, ApiError } from "./api.js";
import { h, show, field, problemBox, time, announce, fill, submitter } from "./dom.js";
import { VERIFIED_COLUMNS, verifiedCells } from "./revenue.js";

/** What the results count as a conversion (`?metric=`): the app's events or the stores' verified figures. */
const METRICS = [["conversion", "Purchases the app reported"], ["verified_conversion", "Verified paid (stores)"],
  ["trial_start", "Verified trial starts"], ["trial_conversion", "Verified trial → paid"]];

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return element;
}

/** Conversion per variant: a dot at the rate, a bar across the 95 % interval, on one 0–max scale. */
export function resultsChart(results) {
  const rows = results.variants.filter((v) => v.conversionRate !== null);
  if (rows.length === 0) return h("p", {}, "No subscriber has seen a variant yet.");
  const top = Math.max(...rows.map((v) => v.confidenceInterval[1]), 0.01);
  const width = 600, left = 130, right = 60, rowHeight = 34, height = rows.length * rowHeight + 30;
  const x = (rate) => left + (rate / top) * (width - left - right);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart",
    "aria-label": `Conversion rate per variant with 95% intervals: ${rows.map((v) => `${v.name} ${(v.conversionRate * 100).toFixed(1)}%`).join(", ")}` });
  rows.forEach((v, i) => {
    const y = 20 + i * rowHeight;
    chart.append(
      svg("text", { x: 0, y: y + 4, class: "label" }, v.name),
      svg("line", { x1: x(v.confidenceInterval[0]), x2: x(v.confidenceInterval[1]), y1: y, y2: y, class: v.control ? "ci control" : "ci" }),
      svg("circle", { cx: x(v.conversionRate), cy: y, r: 5, class: v.control ? "rate control" : "rate" }),
      svg("text", { x: x(v.confidenceInterval[1]) + 6, y: y + 4, class: "value" }, `${(v.conversionRate * 100).toFixed(1)}%`));
  });
  chart.append(svg("line", { x1: left, x2: width - right, y1: height - 8, y2: height - 8, class: "axis" }),
    svg("text", { x: left, y: height, class: "value" }, "0%"),
    svg("text", { x: width - right - 40, y: height, class: "value" }, `${(top * 100).toFixed(1)}%`));
  return chart;
}

export async function experimentsView() {
  const list = h("div", {});
  const errors = h("div", {});
  let paywalls = [];
  const name = h("input", { name: "name", maxlength: "200" });
  const holdout = h("input", { name: "holdoutWeight", type: "number", min: "0", value: "0" });
  const variantRows = h("div", {});
  const addVariant = () => {
    const n = variantRows.children.length;
    const select = h("select", { name: "paywallId" }, paywalls.map((p) => h("option", { value: p.id }, p.name)));
    const weight = h("input", { name: "weight", type: "number", min: "0", value: "50" });
    variantRows.append(h("div", { class: "inline-form" },
      field(n === 0 ? "Control paywall" : `Variant ${n} paywall`, select), field(`Weight ${n === 0 ? "(control)" : n}`, weight)));
  };
  const form = h("form", {
    class: "card",
    onsubmit: submitter(errors, async () => {
      const variants = [...variantRows.children].map((row) => ({
        paywallId: row.querySelector("select").value, weight: Number(row.querySelector("input").value) }));
      const body = { variants, holdoutWeight: Number(holdout.value) || 0 };
      if (name.value.trim()) body.name = name.value.trim();
      await post("/v1/experiments", body);
      announce("Experiment created.");
      await refresh();
    }),
  }, h("h2", {}, "New experiment"), field("Name", name), variantRows,
  h("button", { type: "button", class: "secondary", onclick: () => variantRows.children.length < 5 && addVariant() }, "Add a variant"),
  field("Holdout weight", holdout, "Subscribers in the holdout are shown nothing."), errors, h("button", { type: "submit" }, "Create experiment"));

  const act = (promise, message) => promise.then(async () => { announce(message); await refresh(); })
    .catch((error) => fill(errors, problemBox(error)));

  function card(experiment) {
    const base = `/v1/experiments/${encodeURIComponent(experiment.id)}`;
    const results = h("div", { "aria-live": "polite" });
    const weights = experiment.variants.map((v) => h("input", { type: "number", min: "0", value: v.weight, name: `weight-${v.name}` }));
    const winner = h("select", { name: "winner" }, experiment.variants.map((v) => h("option", { value: v.name }, v.name)));
    const metric = h("select", { name: "metric" }, METRICS.map(([value, label]) => h("option", { value }, label)));
    return h("section", { class: "card", "aria-labelledby": `exp-${experiment.id}` },
      h("h2", { id: `exp-${experiment.id}` }, experiment.name, " ", h("span", { class: "badge" }, experiment.status)),
      h("p", { class: "hint" }, `Created ${time(experiment.createdAt)}`, experiment.placements.length ? ` · on ${experiment.placements.join(", ")}` : " · on no placement yet (target it from a placement or a rule)"),
      h("table", {}, h("caption", {}, "Variants"),
        h("thead", {}, h("tr", {}, ["Variant", "Paywall", "Weight"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, experiment.variants.map((v, i) => h("tr", {},
          h("td", {}, v.name), h("td", {}, paywalls.find((p) => p.id === v.paywallId)?.name ?? v.paywallId),
          h("td", {}, field(`Weight of ${v.name}`, weights[i])))))),
      h("div", { class: "toolbar" },
        experiment.status === "draft" ? h("button", { type: "button", onclick: () => act(post(`${base}/start`), "Started.") }, "Start") : null,
        experiment.status === "running" ? h("button", { type: "button", class: "danger", onclick: () => act(post(`${base}/stop`), "Stopped.") }, "Stop") : null,
        h("button", { type: "button", class: "secondary",
          onclick: () => act(put(`${base}/weights`, { weights: weights.map((w) => Number(w.value)), holdoutWeight: experiment.holdoutWeight }), "Re-weighted.") }, "Save weights"),
        experiment.status !== "draft" ? h("span", { class: "inline-form" }, field("Winner", winner),
          h("button", { type: "button", class: "secondary", onclick: () => confirm(`Promote ${winner.value} to every placement and rule of this experiment?`)
            && act(post(`${base}/promote`, { variant: winner.value }), "Promoted.") }, "Promote")) : null,
        h("button", { type: "button", class: "secondary", onclick: async () => {
          try {
            const answer = await get(`${base}/results?metric=${encodeURIComponent(metric.value)}`);
            const counted = answer.source === "verified" ? "the stores' verified notifications" : "purchase events the app reported";
            fill(results, h("h3", {}, `Results (production; conversions: ${counted})`), resultsChart(answer),
              h("table", {}, h("caption", {}, "Per variant"),
                h("thead", {}, h("tr", {}, ["Variant", "Subscribers", "Conversions", "Rate (95% CI)", "P(beats control)", "P(best)", "Revenue", "Sample size"]
                  .map((c) => h("th", { scope: "col" }, c)))),
                h("tbody", {}, answer.variants.map((v) => h("tr", {},
                  h("td", {}, v.name), h("td", {}, v.uniqueSubscribers ?? 0), h("td", {}, v.conversions),
                  h("td", {}, v.conversionRate === null ? "—" : `${(v.conversionRate * 100).toFixed(1)}% (${(v.confidenceInterval[0] * 100).toFixed(1)}–${(v.confidenceInterval[1] * 100).toFixed(1)}%)`),
                  h("td", {}, v.probabilityToBeatControl === null ? "—" : `${(v.probabilityToBeatControl * 100).toFixed(0)}%`),
                  h("td", {}, v.probabilityToBeBest === null ? "—" : `${(v.probabilityToBeBest * 100).toFixed(0)}%`),
                  h("td", {}, revenueText(v.revenue)), h("td", {}, sampleText(v.sampleSize)))))),
              h("table", {}, h("caption", {}, "Verified by the stores, per variant"),
                h("thead", {}, h("tr", {}, ["Variant", ...VERIFIED_COLUMNS].map((c) => h("th", { scope: "col" }, c)))),
                h("tbody", {}, answer.variants.map((v) => h("tr", {}, h("td", {}, v.name), verifiedCells(v.verified).map((c) => h("td", {}, c)))))),
              h("p", { class: "hint" }, `Revenue from purchase_completed events' price and currency. Sample size: subscribers per variant to detect a ${
                (answer.sampleSize.minimumDetectableEffect * 100).toFixed(0)}% relative change in the control's rate (95% confidence, 80% power).`));
          } catch (error) {
            fill(results, problemBox(error));
          }
        } }, "Show results"), field("Count as a conversion", metric)),
      results);
  }

  async function refresh() {
    try {
      const { items } = await get("/v1/experiments");
      fill(list, items.length === 0 ? h("p", {}, "No experiments yet.") : h("div", {}, items.map(card)));
    } catch (error) {
      fill(list, problemBox(error));
    }
  }

  show(h("h1", {}, "Experiments"), errors, list, form);
  try {
    // Every paywall, page after page: a variant may be the 201st.
    paywalls = await getAll("/v1/paywalls");
  } catch (error) {
    fill(errors, problemBox(error));
  }
  addVariant();
  addVariant();
  await refresh();
}

/** A variant's revenue per currency: the sum, its purchases and the amount per subscriber. */
export function revenueText(revenue) {
  if (!revenue?.length) return "—";
  return revenue.map((r) => `${r.amount.toFixed(2)} ${r.currency} (${r.purchases} purchase${r.purchases === 1 ? "" : "s"}, ${
    r.perSubscriber === null ? "—" : r.perSubscriber.toFixed(2)} per subscriber)`).join("; ");
}

/** How many more subscribers a variant needs before the test can see the effect it is sized for. */
export function sampleText(size) {
  if (!size) return "—";
  return size.remaining === 0 ? `enough (${size.perVariant} per variant)` : `${size.remaining} more of ${size.perVariant}`;
}
