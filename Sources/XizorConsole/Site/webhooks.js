// The app's webhook endpoints (docs/integrations.md): create (the signing secret shown once),
// enable or disable, rotate the secret, send a test event, delete; and each endpoint's delivery
// log, with a retry for a delivery that gave up.
import { get, post, patch, del } from "./api.js";
import { h, show, field, problemBox, time, announce, fill, submitter } from "./dom.js";

const EVENT_TYPES = ["paywall.published", "paywall.rolled_back", "paywall.archived", "paywall.unarchived",
  "placement.updated", "experiment.started", "experiment.stopped", "experiment.reweighted", "experiment.promoted",
  "key.created", "key.revoked", "webhook.disabled", "purchase.verified", "trial.converted", "subscription.renewed",
  "subscription.refunded"];

function secretNotice(endpoint, what) {
  return h("div", { class: "notice" },
    h("p", {}, `${what} Copy the signing secret now: it is shown this once.`),
    h("code", { class: "secret", "data-testid": "webhook-secret" }, endpoint.secret));
}

export async function webhooksView() {
  const list = h("div", {});
  const log = h("div", {});
  const notice = h("div", { "aria-live": "polite" });
  const errors = h("div", {});
  const url = h("input", { type: "url", name: "url", required: true, placeholder: "https://example.com/hooks/xizor" });
  const description = h("input", { name: "description", maxlength: "200" });
  const boxes = EVENT_TYPES.map((type) => h("input", { type: "checkbox", name: "eventType", value: type }));
  const form = h("form", {
    class: "card",
    onsubmit: submitter(errors, async () => {
      const body = { url: url.value.trim() };
      if (description.value.trim()) body.description = description.value.trim();
      const chosen = boxes.filter((box) => box.checked).map((box) => box.value);
      if (chosen.length) body.eventTypes = chosen;
      const endpoint = await post("/v1/webhooks", body);
      fill(notice, secretNotice(endpoint, "Endpoint created."));
      announce("Endpoint created.");
      url.value = "";
      description.value = "";
      for (const box of boxes) box.checked = false;
      await refresh();
    }),
  },
  h("h2", {}, "New endpoint"),
  field("URL", url),
  field("Description", description),
  h("fieldset", {}, h("legend", {}, "Event types (none checked: every type)"),
    boxes.map((box) => h("label", { class: "inline" }, box, " ", box.value))),
  errors,
  h("button", { type: "submit" }, "Create endpoint"));

  const act = (label, run) => h("button", {
    type: "button", class: "secondary", "aria-label": label,
    onclick: async () => {
      try {
        await run();
      } catch (error) {
        fill(errors, problemBox(error));
      }
    },
  }, label.split(" ")[0]);

  async function refresh() {
    try {
      const { items } = await get("/v1/webhooks");
      fill(list, items.length === 0 ? h("p", {}, "No endpoints yet.") : h("table", {},
        h("caption", {}, "Webhook endpoints"),
        h("thead", {}, h("tr", {}, ["URL", "Events", "State", "Created", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, items.map((endpoint) => h("tr", { "data-webhook": endpoint.id },
          h("td", {}, h("code", {}, endpoint.url), endpoint.description ? h("div", { class: "hint" }, endpoint.description) : null),
          h("td", {}, endpoint.eventTypes.join(", ")),
          h("td", {}, !endpoint.enabled ? `disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ""}`
            : endpoint.failingSince ? `failing since ${time(endpoint.failingSince)}` : "enabled"),
          h("td", {}, time(endpoint.createdAt)),
          h("td", { class: "actions" },
            act(`Deliveries of ${endpoint.url}`, () => showLog(endpoint)),
            act(`Test ${endpoint.url}`, async () => { await post(`/v1/webhooks/${endpoint.id}/test`); announce("Test event queued."); await showLog(endpoint); }),
            act(`${endpoint.enabled ? "Disable" : "Enable"} ${endpoint.url}`, async () => {
              await patch(`/v1/webhooks/${endpoint.id}`, { enabled: !endpoint.enabled });
              await refresh();
            }),
            act(`Rotate the secret of ${endpoint.url}`, async () => {
              if (!confirm("Give this endpoint a new signing secret? The old one signs nothing from now on.")) return;
              fill(notice, secretNotice(await post(`/v1/webhooks/${endpoint.id}/rotate-secret`), "Secret rotated."));
            }),
            act(`Delete ${endpoint.url}`, async () => {
              if (!confirm(`Delete the endpoint ${endpoint.url} and its delivery log?`)) return;
              await del(`/v1/webhooks/${endpoint.id}`);
              fill(log);
              await refresh();
            })))))));
    } catch (error) {
      fill(list, problemBox(error));
    }
  }

  async function showLog(endpoint) {
    const { items } = await get(`/v1/webhooks/${endpoint.id}/deliveries?limit=50`);
    fill(log, h("table", {},
      h("caption", {}, `Deliveries to ${endpoint.url}, newest first`),
      h("thead", {}, h("tr", {}, ["Event", "State", "Attempts", "Last answer", "Created", ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, items.map((delivery) => h("tr", { "data-delivery": delivery.id },
        h("td", {}, delivery.eventType), h("td", {}, delivery.state), h("td", {}, String(delivery.attempts)),
        h("td", {}, delivery.lastStatus ? `HTTP ${delivery.lastStatus}` : delivery.lastError || "—"),
        h("td", {}, time(delivery.createdAt)),
        h("td", {}, delivery.state !== "failed" ? null : act(`Retry delivery ${delivery.id}`, async () => {
          await post(`/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`);
          announce("Delivery queued again.");
          await showLog(endpoint);
        })))))));
  }

  show(h("h1", {}, "Webhooks"), notice, list, log, form);
  await refresh();
}
