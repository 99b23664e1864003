import type { JSONValue } from "../paywall.js";

/** What the server decided for a presentation, as the page carries it on `ready` and `event`. */
export interface Attribution {
  placement?: string;
  paywallId?: string;
  version?: number;
  experimentId?: string;
  variant?: string;
}

/** A message from the page to the app (docs/renderer.md, "The bridge"); XizorKit's `PageMessage`. */
export type PageMessage =
  /** Always first: answer with a `products` message before showing the web view. */
  | { type: "ready"; paywallId?: string; schemaVersion?: number; locale?: string; attribution: Attribution }
  | { type: "purchase"; slot: string; storeProductId?: string }
  | { type: "restore" }
  | { type: "close" }
  | { type: "open_url"; url: string }
  | { type: "custom"; name: string; payload?: JSONValue }
  /** A duration timer without a known start: answer with a `timer_start` message. */
  | { type: "timer_start"; paywallId?: string; nodeId: string; durationSeconds?: number }
  /** A funnel event to forward to the queue, with the attribution the page carries. */
  | { type: "event"; name: string; properties: Record<string, JSONValue>; attribution: Attribution }
  /** A message this version does not know (a newer page): ignore it. */
  | { type: "unknown"; name?: string };

/** What is not a message at all; a host logs it instead of acting on half of it. */
export class BridgeError extends Error {
  constructor(
    readonly reason: { kind: "notJSON" } | { kind: "notAnObject" } | { kind: "missing"; field: string; type?: string },
  ) {
    super(
      reason.kind === "missing"
        ? `the ${reason.type ?? "untyped"} message has no string '${reason.field}'`
        : reason.kind === "notJSON"
          ? "the message is not JSON"
          : "the message is not an object",
    );
    this.name = "BridgeError";
  }
}

/** The store whose product id a purchase names: schema version 3 pages send `storeProductIds` per
 * store, since the page cannot know its platform; the host can. */
export type Store = "appStore" | "googlePlay";

export function storeOf(platform: string): Store | undefined {
  return platform === "ios" || platform === "macos" ? "appStore" : platform === "android" ? "googlePlay" : undefined;
}

/** Decodes a message as `react-native-webview`'s `onMessage` delivers it (a JSON string) or as an
 * object; throws `BridgeError` for what is not a message. */
export function decodePageMessage(body: unknown, store?: Store): PageMessage {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body);
    } catch {
      throw new BridgeError({ kind: "notJSON" });
    }
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new BridgeError({ kind: "notAnObject" });
  const message = value as Record<string, unknown>;
  const type = string(message.type);
  const required = (field: string): string => {
    const found = string(message[field]);
    if (found === undefined) throw new BridgeError({ kind: "missing", field, type });
    return found;
  };
  switch (type) {
    case "ready":
      return {
        type,
        paywallId: string(message.paywallId),
        schemaVersion: integer(message.schemaVersion),
        locale: string(message.locale),
        attribution: attributionOf(message),
      };
    case "purchase": {
      const ids = message.storeProductIds as Record<string, unknown> | undefined;
      const own = store && ids && typeof ids === "object" ? string(ids[store]) : undefined;
      return { type, slot: required("slot"), storeProductId: own ?? string(message.storeProductId) };
    }
    case "restore":
    case "close":
      return { type };
    case "open_url":
      return { type, url: required("url") };
    case "custom":
      return { type, name: required("name"), payload: message.payload as JSONValue | undefined };
    case "timer_start":
      return {
        type,
        paywallId: string(message.paywallId),
        nodeId: required("nodeId"),
        durationSeconds: typeof message.durationSeconds === "number" ? message.durationSeconds : undefined,
      };
    case "event": {
      const properties = message.properties;
      return {
        type,
        name: required("name"),
        properties:
          properties && typeof properties === "object" && !Array.isArray(properties)
            ? (properties as Record<string, JSONValue>)
            : {},
        attribution: attributionOf(message),
      };
    }
    default:
      return { type: "unknown", name: type };
  }
}

/** A product as the page shows it: the strings the store's SDK formats (`price`, `period`, …). */
export interface ProductInfo {
  title?: string;
  description?: string;
  price?: string;
  period?: string;
  pricePerWeek?: string;
  pricePerMonth?: string;
  introPrice?: string;
  introPeriod?: string;
  trialDays?: number;
  currency?: string;
  /** `false` hides the intro offer (`introPrice`, `introPeriod`, `trialDays` render empty). */
  introEligible?: boolean;
}

export type PurchaseState = "pending" | "failed" | "completed";

/** A message from the app to the page, delivered by `window.xizor.receive(…)`; XizorKit's `HostMessage`. */
export type HostMessage =
  /** Fills product variables; `timerStarts` (node id → ms since 1970) and `selected` are optional. */
  | { type: "products"; products: Record<string, ProductInfo>; timerStarts?: Record<string, number>; selected?: string }
  /** Purchase buttons of `slot` (or all) show progress or clear it. */
  | { type: "purchase_state"; state: PurchaseState; slot?: string }
  /** The persisted start of a duration timer (ms since 1970). */
  | { type: "timer_start"; nodeId: string; startedAt: number }
  /** The app is dismissing the page: it sends `paywall_close` once and releases its media. */
  | { type: "dismiss" };

const PRODUCT_FIELDS: readonly (keyof ProductInfo)[] = [
  "title",
  "description",
  "price",
  "period",
  "pricePerWeek",
  "pricePerMonth",
  "introPrice",
  "introPeriod",
  "trialDays",
  "currency",
  "introEligible",
];

/** The message as the page reads it: fields left undefined are left out, never sent as `null`. */
export function hostMessageJSON(message: HostMessage): Record<string, JSONValue> {
  switch (message.type) {
    case "products": {
      const products: Record<string, JSONValue> = {};
      for (const [slot, product] of Object.entries(message.products)) {
        const fields: Record<string, JSONValue> = {};
        for (const field of PRODUCT_FIELDS) {
          const value = product[field];
          if (value !== undefined) fields[field] = value;
        }
        products[slot] = fields;
      }
      const json: Record<string, JSONValue> = { type: "products", products };
      if (message.timerStarts) json.timerStarts = { ...message.timerStarts };
      if (message.selected !== undefined) json.selected = message.selected;
      return json;
    }
    case "purchase_state":
      return message.slot === undefined
        ? { type: message.type, state: message.state }
        : { type: message.type, state: message.state, slot: message.slot };
    case "timer_start":
      return { type: message.type, nodeId: message.nodeId, startedAt: message.startedAt };
    case "dismiss":
      return { type: "dismiss" };
  }
}

/**
 * The script `injectJavaScript` runs to deliver the message. JSON is a JavaScript expression, except
 * that U+2028 and U+2029 end lines in older engines: they are escaped. The trailing `true;` is what
 * react-native-webview asks of injected scripts (a script whose value is not serialisable fails
 * silently on iOS).
 */
export function hostMessageScript(message: HostMessage): string {
  const encoded = JSON.stringify(hostMessageJSON(message)).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
  return `window.xizor && window.xizor.receive(${encoded});true;`;
}

function attributionOf(message: Record<string, unknown>): Attribution {
  return {
    placement: string(message.placement),
    paywallId: string(message.paywallId),
    version: integer(message.version),
    experimentId: string(message.experimentId),
    variant: string(message.variant),
  };
}

function string(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function integer(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) ? value : undefined;
}
