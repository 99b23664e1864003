import { createElement, useEffect, useMemo, useRef, useState, type ReactElement, type ReactNode } from "react";
import { View } from "react-native";
import { WebView, type WebViewHandle, type WebViewMessageEvent } from "react-native-webview";
import { PaywallBridge, type PaywallBridgeDelegate } from "./bridge/host.js";
import type { ProductInfo, PurchaseState } from "./bridge/messages.js";
import { XizorError } from "./errors.js";
import type { ColorScheme, ContextValue, JSONValue, Paywall, PaywallFormat } from "./paywall.js";
import { sharedXizor } from "./shared.js";
import type { Xizor } from "./xizor.js";

/** What a presentation is doing. */
export type PaywallState =
  | { status: "loading" }
  | { status: "ready"; paywall: Paywall }
  /** The subscriber is in the experiment's holdout: show nothing. */
  | { status: "holdout"; experimentId: string }
  | { status: "error"; error: XizorError };

export interface UseXizorPaywallOptions {
  locale?: string;
  colorScheme?: ColorScheme;
  subscriberId?: string;
  context?: Record<string, ContextValue>;
  /** `page` for `<XizorPaywall>` (a web view), `document` for a native renderer; default `page`. */
  format?: PaywallFormat;
  /** Default: the instance `configure()` made. */
  xizor?: Xizor;
}

/** Loads a placement's paywall (network → cache → fallback) and reloads when what decides it changes. */
export function useXizorPaywall(placement: string, options: UseXizorPaywallOptions = {}): PaywallState & { reload(): void } {
  const xizor = options.xizor ?? sharedXizor();
  const [state, setState] = useState<PaywallState>({ status: "loading" });
  const [generation, setGeneration] = useState(0);
  // A context object made anew on every render must not refetch: compare it by content.
  const contextKey = JSON.stringify(sortedEntries(options.context));
  const { locale, colorScheme, subscriberId } = options;
  const format = options.format ?? "page";
  useEffect(() => {
    let current = true;
    setState({ status: "loading" });
    xizor
      .paywall(placement, { locale, colorScheme, subscriberId, format, context: options.context })
      .then((answer) => {
        if (!current) return;
        setState(
          answer.kind === "holdout"
            ? { status: "holdout", experimentId: answer.experimentId }
            : { status: "ready", paywall: answer.paywall },
        );
      })
      .catch((error: unknown) => {
        if (!current) return;
        const typed = error instanceof XizorError ? error : XizorError.invalidResponse(String(error));
        setState({ status: "error", error: typed });
      });
    return () => {
      current = false;
    };
  }, [xizor, placement, locale, colorScheme, subscriberId, format, contextKey, generation]);
  return { ...state, reload: () => setGeneration((value) => value + 1) };
}

export interface XizorPaywallProps extends Omit<UseXizorPaywallOptions, "format"> {
  placement: string;
  /** The paywall's products, formatted by the app's store SDK (RevenueCat, react-native-iap, expo-in-app-purchases). */
  products?: Record<string, ProductInfo> | ((paywall: Paywall) => Promise<Record<string, ProductInfo>>);
  /** Buy the slot's product (this platform's store id); resolve with how it ended. `appAccountToken` is
   * `appAccountToken(subscriberId)` (undefined without a `subscriberId`): pass it to the App Store purchase. */
  onPurchase?: (
    slot: string,
    storeProductId: string | undefined,
    paywall: Paywall,
    appAccountToken: string | undefined,
  ) => Promise<PurchaseState>;
  onRestore?: (paywall: Paywall) => Promise<void> | void;
  /** The page's close button: unmount the component. */
  onClose?: () => void;
  /** A link the page opens (terms, privacy): e.g. `Linking.openURL`. */
  onOpenURL?: (url: string) => void;
  onCustom?: (name: string, payload: JSONValue | undefined) => void;
  /** The page is shown (its products are in place). */
  onReady?: (paywall: Paywall) => void;
  /** The subscriber is in the experiment's holdout: nothing is shown; continue as without a paywall. */
  onHoldout?: (experimentId: string) => void;
  /** Nothing to show (rejected, or no network, cache or fallback). */
  onError?: (error: XizorError) => void;
  /** Shown while the paywall loads; nothing by default. */
  loading?: ReactNode;
  style?: unknown;
  /** Passed to the WebView as they are (e.g. `testID`). */
  webViewProps?: Record<string, unknown>;
}

/**
 * A placement's paywall in a `react-native-webview`: the server-rendered page, with purchases,
 * restores, links and analytics through the bridge. Until the page has its products it is invisible
 * and takes no touches (a tap on an empty screen must not buy), with `loading` shown over it.
 */
export function XizorPaywall(props: XizorPaywallProps): ReactElement | null {
  const xizor = props.xizor ?? sharedXizor();
  const state = useXizorPaywall(props.placement, { ...props, xizor, format: "page" });
  const webView = useRef<WebViewHandle | null>(null);
  const loaded = useRef(false);
  const [shown, setShown] = useState(false);
  // The latest callbacks, read when a message arrives: a new closure per render must not make a new bridge.
  const latest = useRef(props);
  latest.current = props;
  const paywall = state.status === "ready" ? state.paywall : undefined;

  const bridge = useMemo(() => {
    if (!paywall) return undefined;
    const delegate: PaywallBridgeDelegate = {
      products: (shownPaywall) => {
        const products = latest.current.products;
        return typeof products === "function" ? products(shownPaywall) : products ?? {};
      },
      purchase: (slot, storeProductId, shownPaywall, token) =>
        latest.current.onPurchase?.(slot, storeProductId, shownPaywall, token) ?? Promise.resolve("failed" as const),
      restore: (shownPaywall) => latest.current.onRestore?.(shownPaywall),
      close: () => latest.current.onClose?.(),
      openURL: (url) => latest.current.onOpenURL?.(url),
      custom: (name, payload) => latest.current.onCustom?.(name, payload),
      ready: () => {
        setShown(true);
        latest.current.onReady?.(paywall);
      },
    };
    return new PaywallBridge({
      client: xizor,
      paywall,
      subscriberId: props.subscriberId,
      platform: xizor.configuration.device.platform,
      delegate,
      inject: (script) => webView.current?.injectJavaScript(script),
    });
  }, [xizor, paywall, props.subscriberId]);

  useEffect(() => {
    setShown(false);
    loaded.current = false;
  }, [bridge]);
  useEffect(() => {
    if (state.status === "holdout") latest.current.onHoldout?.(state.experimentId);
    if (state.status === "error") latest.current.onError?.(state.error);
  }, [state.status]);

  if (!paywall || !bridge) return state.status === "loading" ? ((props.loading ?? null) as ReactElement | null) : null;
  const webViewElement = createElement(WebView, {
    ...props.webViewProps,
    ref: webView,
    source: { html: paywall.page ?? "", baseUrl: xizor.configuration.baseURL },
    originWhitelist: ["*"],
    javaScriptEnabled: true,
    allowsInlineMediaPlayback: true,
    mediaPlaybackRequiresUserAction: false,
    style: [{ flex: 1 }, shown ? null : { opacity: 0 }],
    onMessage: (event: WebViewMessageEvent) => void bridge.receive(event.nativeEvent.data),
    onLoadEnd: () => {
      loaded.current = true;
    },
    // The page never navigates itself (links are `open_url` messages): once it has loaded, anything
    // that tries is handed to onOpenURL instead of replacing the paywall.
    onShouldStartLoadWithRequest: (request: { url: string; isTopFrame?: boolean }) => {
      if (!loaded.current || request.isTopFrame === false) return true;
      latest.current.onOpenURL?.(request.url);
      return false;
    },
  });
  const cover = shown || props.loading == null ? null : createElement(View, { style: COVER }, props.loading);
  return createElement(View, { style: props.style ?? { flex: 1 }, pointerEvents: shown ? "auto" : "none" }, webViewElement, cover);
}

const COVER = { position: "absolute", top: 0, left: 0, right: 0, bottom: 0 };

function sortedEntries(context: Record<string, ContextValue> | undefined): [string, ContextValue][] {
  return Object.entries(context ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
