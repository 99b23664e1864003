import { appAccountToken } from "../app-account-token.js";
import { attribute, makeEvent, XizorEvents, type XizorEvent } from "../events.js";
import type { JSONValue, Paywall } from "../paywall.js";
import {
  decodePageMessage,
  hostMessageScript,
  storeOf,
  type HostMessage,
  type PageMessage,
  type ProductInfo,
  type PurchaseState,
} from "./messages.js";

/** What only the app can do: the store's products and purchases, and leaving the paywall. Every
 * member is optional; a paywall without `purchase` reports every purchase as failed. */
export interface PaywallBridgeDelegate {
  /** The products of the paywall's slots, formatted for display (asked once, on `ready`). */
  products?(paywall: Paywall): Promise<Record<string, ProductInfo>> | Record<string, ProductInfo>;
  /** Buy the slot's product (`storeProductId` is this platform's store's); the page shows
   * `pending` until this settles. A rejection counts as `failed`. `appAccountToken` is
   * `appAccountToken(subscriberId)` of the subscriber the paywall was loaded for (undefined without one):
   * pass it to the App Store purchase, so the store's notifications credit it to this paywall. */
  purchase?(
    slot: string,
    storeProductId: string | undefined,
    paywall: Paywall,
    appAccountToken: string | undefined,
  ): Promise<PurchaseState>;
  restore?(paywall: Paywall): Promise<void> | void;
  close?(): void;
  openURL?(url: string): void;
  custom?(name: string, payload: JSONValue | undefined): void;
  /** The page has its products: show the web view now, so prices never show empty. */
  ready?(): void;
  /** A message that is not one (logged by default). */
  invalidMessage?(error: Error, raw: unknown): void;
}

/** What the bridge needs of the client: `Xizor` provides both. */
export interface BridgeClient {
  track(event: XizorEvent): Promise<void>;
  /** Sends queued events now: the presentation reaches the server before the store's notification. */
  flush(): Promise<void>;
  timerStart(subscriberId: string, paywallId: string, nodeId: string): Promise<number>;
}

export interface PaywallBridgeOptions {
  client: BridgeClient;
  paywall: Paywall;
  subscriberId?: string;
  /** `Platform.OS`: which of a page's `storeProductIds` a purchase names. */
  platform: string;
  delegate: PaywallBridgeDelegate;
  /** Runs a script in the page: the web view's `injectJavaScript`. */
  inject(script: string): void;
}

/**
 * The app's side of the page bridge (XizorKit's `PaywallWebHost`, without the view): answers
 * `ready` with products, forwards events to the queue with their attribution, answers duration
 * timers from the server, and hands purchase, restore, close and links to the delegate. The
 * `<XizorPaywall>` component feeds it `onMessage` data; any other web view host can too.
 */
export class PaywallBridge {
  private readonly store;

  constructor(private readonly options: PaywallBridgeOptions) {
    this.store = storeOf(options.platform);
  }

  get paywall(): Paywall {
    return this.options.paywall;
  }

  /** A message as `onMessage` delivers it (`event.nativeEvent.data`). Resolves once it is handled. */
  receive(raw: unknown): Promise<void> {
    let message: PageMessage;
    try {
      message = decodePageMessage(raw, this.store);
    } catch (error) {
      const invalid = this.options.delegate.invalidMessage;
      if (invalid) invalid(error as Error, raw);
      else console.warn("Xizor: a page message is not one", error);
      return Promise.resolve();
    }
    return this.handle(message);
  }

  /** Delivers a message to the page. */
  send(message: HostMessage): void {
    this.options.inject(hostMessageScript(message));
  }

  /** Asks the page to close itself (it sends `paywall_close` once and releases its media). */
  dismiss(): void {
    this.send({ type: "dismiss" });
  }

  private async handle(message: PageMessage): Promise<void> {
    const { delegate, paywall, subscriberId, client } = this.options;
    switch (message.type) {
      case "ready": {
        const products = (await settle(() => delegate.products?.(paywall))) ?? {};
        this.send({ type: "products", products });
        await settle(() => delegate.ready?.());
        return;
      }
      case "purchase": {
        this.send({ type: "purchase_state", state: "pending", slot: message.slot });
        // The presentation is sent now, while the store's sheet is up, not at the next interval: the
        // server credits the store's notification to it only once it has it (docs/revenue.md).
        void client.flush().catch(() => undefined);
        let state: PurchaseState = "failed";
        if (delegate.purchase) {
          const token = subscriberId === undefined ? undefined : appAccountToken(subscriberId);
          state =
            (await settle(() => delegate.purchase?.(message.slot, message.storeProductId, paywall, token))) ?? "failed";
        }
        this.send({ type: "purchase_state", state, slot: message.slot });
        const name = state === "completed" ? XizorEvents.purchaseCompleted : XizorEvents.purchaseFailed;
        await client.track(makeEvent(name, { paywall, subscriberId, properties: { slot: message.slot } }));
        return;
      }
      case "restore":
        await settle(() => delegate.restore?.(paywall));
        return;
      case "close":
        await settle(() => delegate.close?.());
        return;
      case "open_url":
        await settle(() => delegate.openURL?.(message.url));
        return;
      case "custom":
        await settle(() => delegate.custom?.(message.name, message.payload));
        return;
      case "timer_start": {
        // A timer's start is kept per subscriber; without one the page runs it from now.
        if (subscriberId === undefined) return;
        const startedAt = await client.timerStart(subscriberId, paywall.paywallId, message.nodeId).catch(() => undefined);
        if (startedAt !== undefined) this.send({ type: "timer_start", nodeId: message.nodeId, startedAt });
        return;
      }
      case "event":
        await client.track(eventFromPage(message, paywall, subscriberId));
        return;
      case "unknown":
        return;
    }
  }
}

/** The event a page posted, with the attribution the page carries (or, for a page without one, the
 * presentation's). */
export function eventFromPage(
  message: Extract<PageMessage, { type: "event" }>,
  paywall?: Paywall,
  subscriberId?: string,
): XizorEvent {
  const properties = Object.keys(message.properties).length > 0 ? message.properties : undefined;
  const event = makeEvent(message.name, { subscriberId, properties });
  if (paywall) attribute(event, paywall);
  const carried = message.attribution;
  if (carried.paywallId !== undefined) {
    event.placement = carried.placement ?? event.placement;
    event.paywallId = carried.paywallId;
    event.version = carried.version;
    event.experimentId = carried.experimentId;
    event.variant = carried.variant;
    for (const key of ["version", "experimentId", "variant"] as const) if (event[key] === undefined) delete event[key];
  }
  return event;
}

/** The delegate's answer, or undefined when it threw (synchronously or not) or rejected: logged, since an
 * app's bug must not stall the page. */
async function settle<T>(call: () => Promise<T> | T | undefined): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    console.warn("Xizor: a paywall delegate failed", error);
    return undefined;
  }
}
