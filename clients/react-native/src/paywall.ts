import { ExperimentAllocation } from "./edge.js";
import { XizorError } from "./errors.js";
import type { Verification } from "./signatures.js";
import { escapeComponent } from "./transport.js";

/** A JSON value as the server sends it. */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

/** A presentation context value (`context.KEY` in rules), typed as the server types it. */
export type ContextValue = string | number | boolean;

/** JSON for a native renderer, or the server-rendered page for a web view (what `<XizorPaywall>` shows). */
export type PaywallFormat = "document" | "page";
export type ColorScheme = "light" | "dark";

/** The experiment that decided a presentation. */
export interface Experiment {
  id: string;
  /** The variant's name, `control`, or undefined in the holdout. */
  variant?: string;
  holdout: boolean;
  /** `bucket` (hashed from the subscriber id) or `no_subscriber` (answered from the control). */
  assignment?: string;
}

/** Where an answer came from on this call. */
export type PaywallSource =
  /** A fresh 200 from the server. */
  | "network"
  /** The server confirmed the cached copy (304). */
  | "revalidated"
  /** The cache, because the network did not answer in time or failed. */
  | "cache"
  /** The bundled fallback, because there was neither network nor cache. */
  | "fallback";

/** A paywall to present, with what the server decided about it (sent back on every event). */
export interface Paywall {
  placement: string;
  paywallId: string;
  version: number;
  /** The document format served (at most the configured `schemaVersion`). */
  schemaVersion: number;
  locale: string;
  /** The paywall document (format `document`). */
  document?: JSONValue;
  /** The self-contained HTML page (format `page`). */
  page?: string;
  experiment?: Experiment;
  source: PaywallSource;
  /** The representation's strong tag (undefined for bundled fallbacks). */
  etag?: string;
  /** What the signature check said (`verification` in the configuration). */
  verification: Verification;
}

/** What to present for a placement: a paywall, or the experiment's holdout (show nothing). */
export type PaywallAnswer = { kind: "paywall"; paywall: Paywall } | { kind: "holdout"; experimentId: string };

/** What a presentation asks for. */
export interface PaywallOptions {
  locale?: string;
  colorScheme?: ColorScheme;
  subscriberId?: string;
  context?: Record<string, ContextValue>;
  format?: PaywallFormat;
}

/** One presentation's request: what is sent, and what identifies its answer in the cache. */
export class PaywallRequest {
  readonly format: PaywallFormat;
  readonly context: Record<string, ContextValue>;

  constructor(
    readonly placement: string,
    options: PaywallOptions,
    readonly schemaVersion: number,
  ) {
    this.format = options.format ?? "document";
    this.context = options.context ?? {};
    this.locale = options.locale;
    this.colorScheme = options.colorScheme;
    this.subscriberId = options.subscriberId;
  }

  readonly locale?: string;
  readonly colorScheme?: ColorScheme;
  readonly subscriberId?: string;

  /** Everything the server's answer depends on, in a stable order (XizorKit's key, byte for byte):
   * two requests with the same key get the same answer, so the cache can stand in for either. */
  get cacheKey(): string {
    return this.key();
  }

  /** The cache key of one variant's paywall, asked after an allocation. */
  variantCacheKey(experimentId: string, variant: string): string {
    return this.key([experimentId, variant]);
  }

  private key(variant?: [string, string]): string {
    const parts = [
      variant ? "v1+variant" : "v1",
      this.placement,
      this.format,
      String(this.schemaVersion),
      this.locale ?? "",
      this.colorScheme ?? "",
      this.subscriberId ?? "",
      ...this.contextKeys().map((key) => `${key}=${queryValue(this.context[key])}`),
      ...(variant ?? []),
    ];
    return parts.map((part) => part.replace(/%/g, "%25").replace(/\|/g, "%7C")).join("|");
  }

  /** The authenticated endpoint's URL (the subscriber in the query): asked without WebCrypto. */
  url(base: string): string {
    return `${base}/v1/sdk/placements/${escapeComponent(this.placement)}/paywall${this.query(true)}`;
  }

  /** The cacheable path form (docs/sdk.md): the app's public key in the path and nothing of the
   * subscriber in the URL, so a CDN keeps one copy per app, placement and query for everybody. The
   * subscriber goes in `X-Xizor-Subscriber-Id` (`headers`). */
  edgeURL(base: string, publicKey: string): string {
    const path = `v1/sdk/apps/${escapeComponent(publicKey)}/placements/${escapeComponent(this.placement)}/paywall`;
    return `${base}/${path}${this.query(false)}`;
  }

  /** What a request sends besides the URL: the format wanted and, on the path form, the subscriber. */
  headers(edge: boolean): Record<string, string> {
    const headers: Record<string, string> = { Accept: this.accept };
    if (edge && this.subscriberId != null) headers["X-Xizor-Subscriber-Id"] = this.subscriberId;
    return headers;
  }

  private query(withSubscriber: boolean): string {
    const items: [string, string][] = [];
    // `!= null`: a plain-JavaScript caller's null means absent, as the cache key reads it.
    if (this.locale != null) items.push(["locale", this.locale]);
    if (this.colorScheme != null) items.push(["colorScheme", this.colorScheme]);
    if (withSubscriber && this.subscriberId != null) items.push(["subscriberId", this.subscriberId]);
    for (const key of this.contextKeys()) items.push([`context.${key}`, queryValue(this.context[key])]);
    const query = items.map(([name, value]) => `${escapeComponent(name)}=${escapeComponent(value)}`).join("&");
    return query ? `?${query}` : "";
  }

  get accept(): string {
    return this.format === "page" ? "text/html" : "application/json";
  }

  /** Sorted by UTF-16 code units, as Swift's `sorted()` on ASCII keys (context keys are `[A-Za-z0-9_]`). */
  private contextKeys(): string[] {
    return Object.keys(this.context).sort();
  }
}

/** The query form: the server turns `true`/`false` into booleans and JSON numbers into numbers. */
export function queryValue(value: ContextValue | undefined): string {
  if (value === undefined) return "";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) < 1e15 ? value.toFixed(0) : String(value);
  return value;
}

/** An answer as the server sent it (status, the headers that matter, body), kept in storage so a
 * cached answer is understood by exactly the code that understands a fresh one. */
export interface StoredResponse {
  key: string;
  status: number;
  etag?: string;
  /** Lower-cased names: `content-language` and the `x-xizor-*` headers. */
  headers: Record<string, string>;
  body: string;
  /** Milliseconds since 1970 when the server last produced or confirmed it. */
  confirmedAt: number;
}

export function keptHeaders(all: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(all)) {
    const lowered = name.toLowerCase();
    if (lowered === "content-language" || lowered.startsWith("x-xizor-")) kept[lowered] = value;
  }
  return kept;
}

/** `url` asking for one variant of an allocation's experiment (a cacheable answer too). */
export function variantURL(url: string, experimentId: string, variant: string): string {
  const added = `experiment=${escapeComponent(experimentId)}&variant=${escapeComponent(variant)}`;
  return url + (url.includes("?") ? "&" : "?") + added;
}

/** What a stored response means: an answer, or an experiment's allocation to bucket on the device. */
export type Meaning = { kind: "answer"; answer: PaywallAnswer } | { kind: "allocation"; allocation: ExperimentAllocation };

export function meaningOf(entry: StoredResponse, request: PaywallRequest, source: PaywallSource, verification: Verification): Meaning {
  if (entry.status === 200 && entry.headers["x-xizor-allocation"] === "1") {
    let value: unknown;
    try {
      value = JSON.parse(entry.body);
    } catch (error) {
      throw XizorError.invalidResponse(`the allocation is not JSON: ${String(error)}`);
    }
    const allocation = value && typeof value === "object" ? (value as Record<string, JSONValue>).allocation : undefined;
    return { kind: "allocation", allocation: ExperimentAllocation.parse(allocation) };
  }
  return { kind: "answer", answer: answerOf(entry, request, source, verification) };
}

/** The answer a stored response stands for, or why it cannot be understood. */
export function answerOf(entry: StoredResponse, request: PaywallRequest, source: PaywallSource, verification: Verification): PaywallAnswer {
  if (entry.status === 204) {
    const experimentId = entry.headers["x-xizor-holdout"];
    if (!experimentId) throw XizorError.invalidResponse("204 without X-Xizor-Holdout");
    return { kind: "holdout", experimentId };
  }
  if (entry.status !== 200) throw XizorError.invalidResponse(`status ${entry.status} is not an answer`);
  if (request.format === "page") {
    const paywallId = entry.headers["x-xizor-paywall"];
    const version = integer(entry.headers["x-xizor-version"]);
    const schemaVersion = integer(entry.headers["x-xizor-schema-version"]);
    if (!paywallId || version === undefined || schemaVersion === undefined) {
      throw XizorError.invalidResponse("the page lacks X-Xizor-Paywall, X-Xizor-Version or X-Xizor-Schema-Version");
    }
    const experimentId = entry.headers["x-xizor-experiment"];
    const variant = entry.headers["x-xizor-variant"];
    return {
      kind: "paywall",
      paywall: {
        placement: request.placement,
        paywallId,
        version,
        schemaVersion,
        locale: entry.headers["content-language"] ?? "",
        page: entry.body,
        experiment: experimentId ? { id: experimentId, variant: variant || undefined, holdout: false } : undefined,
        source,
        etag: entry.etag,
        verification,
      },
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(entry.body);
  } catch (error) {
    throw XizorError.invalidResponse(`the body is not JSON: ${String(error)}`);
  }
  const answer = (value && typeof value === "object" ? value : {}) as Record<string, JSONValue | undefined>;
  const { paywallId, version, schemaVersion, document } = answer;
  if (typeof paywallId !== "string" || !isInteger(version) || !isInteger(schemaVersion) || document === undefined) {
    throw XizorError.invalidResponse("the answer lacks paywallId, version, schemaVersion or document");
  }
  return {
    kind: "paywall",
    paywall: {
      placement: typeof answer.placement === "string" ? answer.placement : request.placement,
      paywallId,
      version,
      schemaVersion,
      locale: typeof answer.locale === "string" ? answer.locale : entry.headers["content-language"] ?? "",
      document,
      experiment: experimentOf(answer.experiment),
      source,
      etag: entry.etag,
      verification,
    },
  };
}

function experimentOf(raw: JSONValue | undefined): Experiment | undefined {
  // As XizorKit's decoder: an experiment that is not whole is no attribution at all.
  if (!raw || typeof raw !== "object" || Array.isArray(raw) || typeof raw.id !== "string") return undefined;
  if (typeof raw.holdout !== "boolean" || (raw.variant != null && typeof raw.variant !== "string")) return undefined;
  return {
    id: raw.id,
    variant: typeof raw.variant === "string" ? raw.variant : undefined,
    holdout: raw.holdout === true,
    assignment: typeof raw.assignment === "string" ? raw.assignment : undefined,
  };
}

function isInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}

function integer(text: string | undefined): number | undefined {
  return text !== undefined && /^-?\d+$/.test(text) ? Number(text) : undefined;
}
