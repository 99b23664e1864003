// A media URL's control: the URL itself, the app's assets to pick from, and a drop zone that uploads
// a file to /v1/assets (its bytes decide its type on the server) and puts the asset's URL in.
import { get, credential, ApiError } from "./api.js";
import { h, fill } from "./dom.js";

/** Wraps the URL `input` of `args` (a control's arguments) with the picker and the drop zone. */
export function mediaControl({ ctx, segments }, input) {
  const status = h("span", { class: "hint", "aria-live": "polite" });
  const list = h("div", { class: "asset-list" });
  const pick = h("button", { type: "button", class: "secondary small", onclick: async () => {
    if (!list.hidden && list.childElementCount) { fill(list); list.hidden = true; return; }
    list.hidden = false;
    fill(list, h("span", { class: "hint" }, "Loading the app's assets…"));
    try {
      const { items } = await get("/v1/assets?limit=50");
      fill(list, items.length === 0 ? h("span", { class: "hint" }, "No assets yet: drop a file here.") : items.map((asset) =>
        h("button", { type: "button", class: "asset", title: asset.name ?? asset.id, onclick: () => {
          ctx.change(segments, asset.url, { commit: true });
        } }, asset.kind === "image" ? h("img", { src: asset.path, alt: asset.name ?? "asset" }) : h("span", {}, `${asset.kind}: ${asset.name ?? asset.id.slice(0, 8)}`))));
    } catch (error) {
      fill(list, h("span", { class: "problem" }, error.message));
    }
  } }, "Choose an asset");
  const zone = h("div", { class: "drop", tabindex: "-1" }, input, pick, h("span", { class: "hint" }, "or drop a file"), status, list);
  zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", async (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    const file = event.dataTransfer?.files?.[0];
    if (!file) return;
    status.textContent = `Uploading ${file.name}…`;
    try {
      const asset = await upload(file);
      status.textContent = `Uploaded ${file.name}.`;
      ctx.change(segments, asset.url, { commit: true });
    } catch (error) {
      status.textContent = `Not uploaded: ${error.message}`;
    }
  });
  return zone;
}

/** The file's bytes as the body, as the API takes them; a person's session sends its CSRF token. */
async function upload(file) {
  const saved = credential();
  const headers = { "Content-Type": file.type || "application/octet-stream" };
  if (saved?.token) headers.Authorization = `Bearer ${saved.token}`;
  if (saved?.kind === "person") {
    if (saved.appId) headers["X-Xizor-App-Id"] = saved.appId;
    headers["X-Xizor-CSRF"] = saved.csrf;
  }
  const response = await fetch(`/v1/assets?name=${encodeURIComponent(file.name)}`, { method: "POST", headers, body: file, credentials: "same-origin" });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}
