// A side-by-side diff of two JSON documents, line by line (longest common subsequence of their
// pretty-printed lines): unchanged lines pair up, removed ones stand on the left, added on the right.
import { h } from "./dom.js";

/** [{left, right, kind: "same" | "removed" | "added" | "changed"}] */
export function lineDiff(before, after) {
  const a = before.split("\n"), b = after.split("\n");
  const n = a.length, m = b.length;
  // lcs[i][j]: the common length of a[i…] and b[j…], in one flat array.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] = a[i] === b[j] ? lcs[(i + 1) * (m + 1) + j + 1] + 1
        : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
    }
  }
  const rows = [];
  let i = 0, j = 0, removed = [], added = [];
  const flush = () => {
    // A run of removals beside a run of additions reads best as changed lines side by side.
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const left = removed[k], right = added[k];
      rows.push({ left: left ?? null, right: right ?? null, kind: left !== undefined && right !== undefined ? "changed" : left !== undefined ? "removed" : "added" });
    }
    removed = []; added = [];
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) { flush(); rows.push({ left: a[i], right: b[j], kind: "same" }); i++; j++; }
    else if (j < m && (i === n || lcs[i * (m + 1) + j + 1] >= lcs[(i + 1) * (m + 1) + j])) added.push(b[j++]);
    else removed.push(a[i++]);
  }
  flush();
  return rows;
}

/** The diff as a two-column table; runs of unchanged lines longer than `context` × 2 are folded. */
export function sideBySide(before, after, { leftTitle, rightTitle, context = 3 } = {}) {
  const rows = lineDiff(JSON.stringify(before, null, 2), JSON.stringify(after, null, 2));
  const shown = [];
  for (let k = 0; k < rows.length; k++) {
    const near = rows.slice(Math.max(0, k - context), k + context + 1).some((r) => r.kind !== "same");
    if (rows[k].kind !== "same" || near) shown.push(rows[k]);
    else if (shown.length === 0 || shown[shown.length - 1] !== null) shown.push(null);
  }
  const changes = rows.filter((r) => r.kind !== "same").length;
  return h("table", { class: "side-by-side" },
    h("caption", {}, changes === 0 ? "No difference." : `${changes} changed line(s)`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, leftTitle), h("th", { scope: "col" }, rightTitle))),
    h("tbody", {}, shown.map((row) => row === null
      ? h("tr", { class: "fold" }, h("td", { colspan: "2" }, "⋯"))
      : h("tr", { class: row.kind },
        h("td", { class: row.kind === "removed" || row.kind === "changed" ? "minus" : null }, h("code", {}, row.left ?? "")),
        h("td", { class: row.kind === "added" || row.kind === "changed" ? "plus" : null }, h("code", {}, row.right ?? ""))))));
}
