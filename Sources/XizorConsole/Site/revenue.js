// Verified revenue (docs/revenue.md): the app's store settings — with the URLs to paste into App Store
// Connect and RevenueCat — and the stores' own figures, attributed to paywalls or not.
import { get, patch } from "./api.js";
import { h, show, field, problemBox, time, announce, fill, submitter } from "./dom.js";

/** A block of verified figures as a table row's cells: counts, then net per currency. */
export function verifiedCells(block) {
  return [block.trialStarts, block.trialConversions, block.paidConversions, block.refunds, netText(block.revenue)];
}

export const VERIFIED_COLUMNS = ["Trials", "Trial → paid", "Paid", "Refunds", "Net (7 / 30 / 90 days)"];

/** Net per currency, with the cohort windows: never summed across currencies. */
export function netText(revenue) {
  if (!revenue?.length) return "—";
  return revenue.map((r) => `${r.net.toFixed(2)} ${r.currency} (${r.net7d.toFixed(2)} / ${r.net30d.toFixed(2)} / ${r.net90d.toFixed(2)})`).join("; ");
}

export async function revenueView() {
  const errors = h("div", {});
  const settingsBox = h("div", { "aria-live": "polite" });
  const report = h("div", {});
  const bundleId = h("input", { name: "bundleId", maxlength: "255", autocomplete: "off" });
  const appAppleId = h("input", { name: "appAppleId", inputmode: "numeric", pattern: "[0-9]*", autocomplete: "off" });
  const authorization = h("input", { name: "authorization", type: "password", minlength: "8", maxlength: "500", autocomplete: "new-password" });
  const windowHours = h("input", { name: "attributionWindowHours", type: "number", min: "1", max: "720", value: "24" });

  function renderSettings(settings) {
    bundleId.value = settings.apple?.bundleId ?? "";
    appAppleId.value = settings.apple?.appAppleId ?? "";
    authorization.value = "";
    authorization.placeholder = settings.revenueCat?.authorizationSet ? "set (type to replace)" : "";
    windowHours.value = settings.attributionWindowHours;
    fill(settingsBox,
      settings.apple ? h("p", {}, "App Store Connect → App Store Server Notifications (Version 2, production and sandbox): ",
        h("code", { "data-testid": "apple-url" }, settings.apple.notificationURL)) : h("p", { class: "hint" }, "Apple: not set up."),
      settings.revenueCat ? h("p", {}, "RevenueCat → Integrations → Webhooks, with the same Authorization value: ",
        h("code", { "data-testid": "revenuecat-url" }, settings.revenueCat.webhookURL)) : h("p", { class: "hint" }, "RevenueCat: not set up."),
      settings.updatedAt ? h("p", { class: "hint" }, `Updated ${time(settings.updatedAt)}`) : null);
  }

  const form = h("form", {
    class: "card",
    onsubmit: submitter(errors, async () => {
      const body = { attributionWindowHours: Number(windowHours.value) };
      if (bundleId.value.trim()) {
        body.apple = { bundleId: bundleId.value.trim(), appAppleId: appAppleId.value.trim() ? Number(appAppleId.value.trim()) : null };
      }
      if (authorization.value) body.revenueCat = { authorization: authorization.value };
      renderSettings(await patch("/v1/revenue/settings", body));
      announce("Store settings saved.");
    }),
  },
  h("h2", {}, "Store settings"),
  field("Bundle id", bundleId, "The iOS app's bundle identifier: Apple's notifications of another are refused."),
  field("Apple ID of the app", appAppleId, "App Store Connect → App Information → Apple ID; needed for production notifications."),
  field("RevenueCat Authorization value", authorization, "Write-only: the server keeps its hash."),
  field("Attribution window (hours)", windowHours, "A purchase is credited to the subscriber's last paywall presentation within this window."),
  errors,
  h("button", { type: "submit" }, "Save store settings"));

  async function refreshReport() {
    try {
      const answer = await get("/v1/revenue");
      const rows = [["Attributed to paywalls", answer.attributed], ["Unattributed", answer.unattributed], ["Total", answer.total]];
      fill(report, h("table", {}, h("caption", {}, "Verified revenue (production; the stores' notifications)"),
        h("thead", {}, h("tr", {}, ["", ...VERIFIED_COLUMNS, "Renewals"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, rows.map(([label, block]) => h("tr", {},
          h("th", { scope: "row" }, label), verifiedCells(block).map((c) => h("td", {}, c)), h("td", {}, block.renewals))))));
    } catch (error) {
      fill(report, problemBox(error));
    }
  }

  show(h("h1", {}, "Revenue"), report, settingsBox, form);
  try {
    renderSettings(await get("/v1/revenue/settings"));
  } catch (error) {
    fill(errors, problemBox(error));
  }
  await refreshReport();
}
