import type { ContextValue, JSONValue, Paywall } from "./paywall.js";

/**
 * A funnel event as `POST /v1/sdk/events` takes it (XizorKit's `XizorEvent`). The `id` is made once,
 * when the event is tracked, and kept with it in storage: however often a batch is retried, the
 * server counts it once.
 */
export interface XizorEvent {
  id: string;
  name: string;
  /** Milliseconds since 1970. */
  timestamp: number;
  placement?: string;
  paywallId?: string;
  version?: number;
  subscriberId?: string;
  context?: Record<string, ContextValue>;
  properties?: Record<string, JSONValue>;
  experimentId?: string;
  variant?: string;
}

/** Funnel event names the server knows; any other `[A-Za-z0-9_.:-]{1,100}` is a custom event. */
export const XizorEvents = {
  paywallOpen: "paywall_open",
  paywallClose: "paywall_close",
  purchaseStarted: "purchase_started",
  purchaseCompleted: "purchase_completed",
  purchaseFailed: "purchase_failed",
  purchaseCancelled: "purchase_cancelled",
  restoreStarted: "restore_started",
  restoreCompleted: "restore_completed",
  restoreFailed: "restore_failed",
} as const;

export interface EventInit {
  paywall?: Paywall;
  subscriberId?: string;
  context?: Record<string, ContextValue>;
  properties?: Record<string, JSONValue>;
  /** Milliseconds since 1970; now by default. */
  timestamp?: number;
  id?: string;
}

/** A new event, attributed to `paywall` when one was shown. */
export function makeEvent(name: string, init: EventInit = {}): XizorEvent {
  const event: XizorEvent = { id: init.id ?? newEventId(), name, timestamp: Math.round(init.timestamp ?? Date.now()) };
  if (init.subscriberId !== undefined) event.subscriberId = init.subscriberId;
  if (init.context !== undefined) event.context = init.context;
  if (init.properties !== undefined) event.properties = init.properties;
  if (init.paywall) attribute(event, init.paywall);
  return event;
}

/** Fills in what the server decided for the presentation (placement, paywall, version, experiment
 * and variant), so results count the event for the variant that was shown. */
export function attribute(event: XizorEvent, paywall: Paywall): XizorEvent {
  event.placement = paywall.placement;
  event.paywallId = paywall.paywallId;
  event.version = paywall.version;
  const experiment = paywall.experiment;
  delete event.experimentId;
  delete event.variant;
  if (experiment) {
    event.experimentId = experiment.id;
    const variant = experiment.holdout ? "holdout" : experiment.variant;
    if (variant !== undefined) event.variant = variant;
  }
  return event;
}

/** A lower-case UUID v4, as XizorKit's ids: `crypto.randomUUID` where the runtime has it (Hermes
 * and Node do), else `Math.random` (ids only need to be unique per app, not secret). */
export function newEventId(): string {
  if (typeof crypto !== "undefined" && crypto?.randomUUID) return crypto.randomUUID().toLowerCase();
  const hex = "0123456789abcdef";
  let id = "";
  for (let index = 0; index < 36; index += 1) {
    if (index === 8 || index === 13 || index === 18 || index === 23) id += "-";
    else if (index === 14) id += "4";
    else if (index === 19) id += hex[8 + Math.floor(Math.random() * 4)];
    else id += hex[Math.floor(Math.random() * 16)];
  }
  return id;
}

/** An event read back from storage, or undefined when the entry is not one (torn, foreign). */
export function parseEvent(raw: string): XizorEvent | undefined {
  try {
    const value = JSON.parse(raw) as Partial<XizorEvent> | null;
    if (!value || typeof value.id !== "string" || typeof value.name !== "string" || typeof value.timestamp !== "number") {
      return undefined;
    }
    return value as XizorEvent;
  } catch {
    return undefined;
  }
}
