// The package's host side of the bridge as a process, for Tests/e2e/test_render_browser.py: it plays
// the app around a real page in Chromium. Arguments: base URL, public key, placement, subscriber id.
// Reads JSON lines: {"page": "<the string the page posted>"}, {"dismiss": true}, {"flush": true}.
// Writes JSON lines: {"paywall": …} once, then per input the scripts to run in the page
// ({"inject": script}), the app's callbacks ({"call": [name, …]}), and {"done": true} when handled.
import { createInterface } from "node:readline";
import { MemoryStorage, PaywallBridge, Xizor } from "../dist/core.js";

const [baseURL, publicKey, placement, subscriberId] = process.argv.slice(2);
const write = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const reports = [];
const xizor = new Xizor({
  publicKey,
  baseURL,
  storage: new MemoryStorage(),
  device: { platform: "ios" },
  events: { flushInterval: 3600, onReport: (report) => reports.push(report) },
});
const answer = await xizor.paywall(placement, { format: "page", subscriberId, colorScheme: "dark" });
if (answer.kind !== "paywall") throw new Error(`no paywall: ${JSON.stringify(answer)}`);
const { paywall } = answer;
write({ paywall: { paywallId: paywall.paywallId, version: paywall.version, placement: paywall.placement } });

const call = (...values) => write({ call: values });
const bridge = new PaywallBridge({
  client: xizor,
  paywall,
  subscriberId,
  platform: "ios",
  inject: (script) => write({ inject: script }),
  delegate: {
    products: async () => ({
      yearly: { title: "Yearly", price: "49,99 €", period: "year", pricePerMonth: "4,17 €", trialDays: 7, currency: "EUR" },
      monthly: { title: "Monthly", price: "7,99 €", period: "month", currency: "EUR" },
    }),
    purchase: async (slot, productId) => (call("purchase", slot, productId), "completed"),
    restore: () => call("restore"),
    close: () => call("close"),
    openURL: (url) => call("openURL", url),
    custom: (name, payload) => call("custom", name, payload),
    ready: () => call("ready"),
    invalidMessage: (error) => call("invalid", error.message),
  },
});

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line);
  if (command.page !== undefined) await bridge.receive(command.page);
  if (command.dismiss) bridge.dismiss();
  if (command.flush) {
    await xizor.flush();
    write({ queued: await xizor.events.count(), reports });
  }
  write({ done: true });
}
xizor.close();
