// A paywall's funnel per published version (production events), with daily impressions and
// purchases drawn per version when the API's time series has them.
import { get } from "./api.js";
import { h, problemBox } from "./dom.js";
import { VERIFIED_COLUMNS, verifiedCells } from "./revenue.js";

const SVG = "http://www.w3.org/2000/svg";
const node = (tag, attributes = {}, text) => {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
};

/** Daily impressions (bars) and purchases (darker bars) of one version's series. */
function seriesChart(version) {
  const points = version.series ?? [];
  if (points.length === 0) return null;
  const top = Math.max(...points.map((p) => p.impressions), 1);
  const width = 560, height = 140, gap = 2, bar = Math.max(2, (width - 40) / points.length - gap);
  const chart = node("svg", { viewBox: `0 0 ${width} ${height + 20}`, role: "img", class: "chart",
    "aria-label": `v${version.version}: impressions per day ${points.map((p) => p.impressions).join(", ")}; purchases ${points.map((p) => p.purchaseCompleted).join(", ")}` });
  points.forEach((p, i) => {
    const x = 30 + i * (bar + gap);
    const hImp = (p.impressions / top) * height, hBuy = (p.purchaseCompleted / top) * height;
    chart.append(node("rect", { x, y: height - hImp, width: bar, height: hImp, class: "bar" }),
      node("rect", { x, y: height - hBuy, width: bar, height: hBuy, class: "bar strong" }));
  });
  chart.append(node("text", { x: 0, y: 12, class: "value" }, String(top)), node("text", { x: 0, y: height, class: "value" }, "0"),
    node("text", { x: 30, y: height + 16, class: "value" }, new Date(points[0].start).toLocaleDateString()),
    node("text", { x: width - 90, y: height + 16, class: "value" }, new Date(points[points.length - 1].start).toLocaleDateString()));
  return chart;
}

export async function analyticsSection(paywallId) {
  const box = h("section", { "aria-labelledby": "analytics-heading" }, h("h2", { id: "analytics-heading" }, "Analytics"));
  try {
    const answer = await get(`/v1/paywalls/${encodeURIComponent(paywallId)}/analytics?interval=day`);
    if (answer.versions.length === 0) {
      box.append(h("p", {}, "No version has events yet."));
      return box;
    }
    box.append(h("table", {}, h("caption", {}, "Funnel per version (production events)"),
      h("thead", {}, h("tr", {}, ["Version", "Impressions", "Subscribers", "Purchases", "Conversion"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, answer.versions.map((v) => h("tr", {},
        h("td", {}, `v${v.version}`), h("td", {}, v.impressions), h("td", {}, v.uniqueSubscribers), h("td", {}, v.purchaseCompleted),
        h("td", {}, v.conversion === null ? "—" : `${(v.conversion * 100).toFixed(1)}%`))))),
    // The stores' own word beside what the app reported (docs/revenue.md).
    h("table", {}, h("caption", {}, "Verified by the stores, per version (subscriptions credited to it)"),
      h("thead", {}, h("tr", {}, ["Version", ...VERIFIED_COLUMNS].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, answer.versions.map((v) => h("tr", {}, h("td", {}, `v${v.version}`), verifiedCells(v.verified).map((c) => h("td", {}, c)))))));
    // Read from rollups: distinct subscribers past 2,048 in a bucket are estimates, and a backlog of
    // events not folded yet is left out until it is (docs/analytics.md).
    const estimated = answer.estimates?.fields ?? [];
    if (estimated.length > 0) {
      box.append(h("p", { class: "hint" },
        `Subscribers and conversion are estimates (relative standard error ${(answer.estimates.relativeStandardError * 100).toFixed(2)} %).`));
    }
    if (answer.eventsNotCounted) {
      box.append(h("p", { class: "hint" }, `${answer.eventsNotCounted} recent events are not counted yet; they will be shortly.`));
    }
    for (const version of answer.versions) {
      const chart = seriesChart(version);
      if (chart) box.append(h("h3", {}, `v${version.version} per day`), chart);
    }
  } catch (error) {
    box.append(problemBox(error));
  }
  return box;
}
