// Everything but the React parts: usable from any JavaScript runtime with `fetch` (a headless task,
// a test, a server-side render), with no peer dependency imported.
export { Xizor } from "./xizor.js";
export { XizorError, type XizorErrorReason } from "./errors.js";
export { MemoryStorage, type XizorStorage } from "./storage.js";
export {
  DEFAULT_EVENT_SETTINGS,
  deviceHeaders,
  type DeviceInfo,
  type EventSettings,
  type XizorConfiguration,
} from "./configuration.js";
export type {
  ColorScheme,
  ContextValue,
  Experiment,
  JSONValue,
  Paywall,
  PaywallAnswer,
  PaywallFormat,
  PaywallOptions,
  PaywallSource,
} from "./paywall.js";
export { PaywallRequest } from "./paywall.js";
export type { FallbackBundleJSON } from "./fallback.js";
export { bucket, ExperimentAllocation, type AllocationChoice, type XizorCrypto } from "./edge.js";
export type { SignatureVerification, Verification } from "./signatures.js";
export { attribute, makeEvent, newEventId, XizorEvents, type EventInit, type XizorEvent } from "./events.js";
export { EventQueue, type EventReport, type RetryReason } from "./event-queue.js";
export { Backoff } from "./backoff.js";
export {
  BridgeError,
  decodePageMessage,
  hostMessageJSON,
  hostMessageScript,
  storeOf,
  type Attribution,
  type HostMessage,
  type PageMessage,
  type ProductInfo,
  type PurchaseState,
  type Store,
} from "./bridge/messages.js";
export {
  eventFromPage,
  PaywallBridge,
  type BridgeClient,
  type PaywallBridgeDelegate,
  type PaywallBridgeOptions,
} from "./bridge/host.js";
export { sharedXizor, setSharedXizor } from "./shared.js";
export { APP_ACCOUNT_TOKEN_NAMESPACE, appAccountToken } from "./app-account-token.js";
export { XIZOR_REACT_NATIVE_VERSION } from "./version.js";
