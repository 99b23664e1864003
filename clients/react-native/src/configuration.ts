import type { XizorStorage } from "./storage.js";
import type { EventReport } from "./event-queue.js";
import type { FallbackBundleJSON } from "./fallback.js";
import { XIZOR_REACT_NATIVE_VERSION } from "./version.js";
import { runtimeCrypto, type XizorCrypto } from "./edge.js";
import type { SignatureVerification } from "./signatures.js";

/** What the server's rules read as `device.*` (docs/targeting.md), sent with every request. */
export interface DeviceInfo {
  /** `ios`, `android`, … — React Native's `Platform.OS` (`configure()` fills it in). */
  platform: string;
  /** The app's version as rules compare it (`device.appVersion`, `semver_*`), e.g. Expo's `nativeApplicationVersion`. */
  appVersion?: string;
  /** `Platform.Version` as a string: `17.2` on iOS, the API level (`34`) on Android. */
  osVersion?: string;
  /** The device's locale as a BCP 47 tag (`de-AT`). */
  locale?: string;
}

/** How the event queue batches, flushes and retries (XizorKit's `EventSettings`, same defaults). */
export interface EventSettings {
  /** Events per request, 1 to 500 (the server takes at most 500). */
  batchSize: number;
  /** A batch is sent once `batchSize` events wait, and at least every this many seconds. */
  flushInterval: number;
  /** Beyond this many queued events the oldest are dropped (and reported). */
  maxQueued: number;
  /** Backoff after a failed send: `initialBackoff × 2^attempt` seconds, at most `maxBackoff`, with jitter. */
  initialBackoff: number;
  maxBackoff: number;
  /** Told about deliveries, drops and retries. */
  onReport?: (report: EventReport) => void;
}

/** Everything the client needs, given once (`configure(...)` or `new Xizor(...)`). */
export interface XizorConfiguration {
  /** The app's public key (`pk_…`). Secret keys are refused by the SDK endpoints: they stay on servers. */
  publicKey: string;
  /** The server, e.g. `https://api.xizor.dev`. */
  baseURL: string;
  /** Where answers, the event queue and timer starts persist: pass `AsyncStorage`. */
  storage: XizorStorage;
  /** The newest document format the app's renderer reads (`X-Xizor-Schema-Version`); default 2. */
  schemaVersion?: number;
  /** Seconds a presentation waits for the network before it is answered from the cache or the fallback; default 1. */
  cacheTimeout?: number;
  /** Seconds one request may take, and the longest a presentation with nothing else to show waits; default 10. */
  requestTimeout?: number;
  /** The server's fallback bundle (`GET /v1/sdk/fallback-bundle`) shipped in the app, e.g. `require("./xizor-fallback.json")`. */
  fallbackBundle?: FallbackBundleJSON;
  events?: Partial<EventSettings>;
  device?: DeviceInfo;
  /** Prefix of every storage key, so two configurations (apps, servers) never share entries; default `xizor`. */
  storagePrefix?: string;
  /** WebCrypto for edge delivery and signatures; default `globalThis.crypto.subtle` when the runtime
   * has it. With it, paywalls are asked by the cacheable URL that names the app and experiments are
   * bucketed on the device; without it (`null`, or a runtime without WebCrypto) the authenticated
   * endpoint is asked and the server assigns. */
  crypto?: XizorCrypto | null;
  /** Checks the server's signature on answers; default `{ mode: "disabled" }`. Needs `crypto`. */
  verification?: SignatureVerification;
}

/** The configuration with every default applied and checked. */
export interface ResolvedConfiguration {
  publicKey: string;
  baseURL: string;
  storage: XizorStorage;
  schemaVersion: number;
  cacheTimeout: number;
  requestTimeout: number;
  fallbackBundle?: FallbackBundleJSON;
  events: EventSettings;
  device: DeviceInfo;
  storagePrefix: string;
  crypto?: XizorCrypto;
  verification: SignatureVerification;
}

export const DEFAULT_EVENT_SETTINGS: EventSettings = {
  batchSize: 500,
  flushInterval: 30,
  maxQueued: 10_000,
  initialBackoff: 1,
  maxBackoff: 300,
};

/** Applies defaults; a configuration that cannot work throws at once (a programming error, as XizorKit's preconditions). */
export function resolveConfiguration(configuration: XizorConfiguration): ResolvedConfiguration {
  const events: EventSettings = { ...DEFAULT_EVENT_SETTINGS, ...configuration.events };
  const resolved: ResolvedConfiguration = {
    publicKey: configuration.publicKey,
    baseURL: configuration.baseURL.replace(/\/+$/, ""),
    storage: configuration.storage,
    schemaVersion: configuration.schemaVersion ?? 2,
    cacheTimeout: configuration.cacheTimeout ?? 1,
    requestTimeout: configuration.requestTimeout ?? 10,
    fallbackBundle: configuration.fallbackBundle,
    events,
    device: configuration.device ?? { platform: "unknown" },
    storagePrefix: configuration.storagePrefix ?? "xizor",
    crypto: configuration.crypto === null ? undefined : configuration.crypto ?? runtimeCrypto(),
    verification: configuration.verification ?? { mode: "disabled" },
  };
  const problems: string[] = [];
  if (!/^https?:\/\/[^/]/.test(resolved.baseURL)) problems.push(`baseURL '${configuration.baseURL}' is not an http(s) URL`);
  if (!resolved.publicKey) problems.push("publicKey is empty");
  if (!Number.isInteger(resolved.schemaVersion) || resolved.schemaVersion < 1) problems.push("schemaVersion starts at 1");
  if (!(resolved.cacheTimeout >= 0) || !(resolved.requestTimeout > 0)) problems.push("timeouts are seconds, requestTimeout > 0");
  if (!Number.isInteger(events.batchSize) || events.batchSize < 1 || events.batchSize > 500) {
    problems.push("events.batchSize is 1 to 500 (the server takes at most 500 per batch)");
  }
  if (!(events.maxQueued >= events.batchSize) || !(events.flushInterval > 0)) {
    problems.push("events.maxQueued ≥ batchSize and flushInterval > 0");
  }
  if (!(events.initialBackoff > 0) || !(events.maxBackoff >= events.initialBackoff)) {
    problems.push("events.initialBackoff > 0 and maxBackoff ≥ initialBackoff");
  }
  if (problems.length > 0) throw new TypeError(`Xizor configuration: ${problems.join("; ")}`);
  return resolved;
}

/** The headers the server reads `device.*` from; values over 64 bytes or empty are left out, as XizorKit does. */
export function deviceHeaders(device: DeviceInfo): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    "X-Xizor-Platform": device.platform,
    "X-Xizor-SDK-Version": XIZOR_REACT_NATIVE_VERSION,
    "X-Xizor-OS-Version": device.osVersion,
    "X-Xizor-Device-Locale": device.locale,
    "X-Xizor-App-Version": device.appVersion,
  };
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value && utf8Length(value) <= 64) kept[name] = value;
  }
  return kept;
}

export function utf8Length(value: string): number {
  let bytes = 0;
  for (const character of value) {
    const code = character.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}
