import { deviceHeaders, type ResolvedConfiguration } from "./configuration.js";
import { XIZOR_REACT_NATIVE_VERSION } from "./version.js";

/** A response with its headers under lower-cased names. */
export interface HTTPResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The request failed before an HTTP answer arrived (refused, reset, DNS, timed out). */
export class NetworkFailure extends Error {
  constructor(description: string) {
    super(description);
    this.name = "NetworkFailure";
  }
}

/** The server could not answer now (5xx or 429): worth falling back, not worth reporting as the answer. */
export class ServerUnavailable extends Error {
  constructor(readonly status: number) {
    super(`the server answered ${status}`);
    this.name = "ServerUnavailable";
  }
}

/** The problem+json `code` and `detail` of an error answer, when it has them. */
export function problemOf(response: HTTPResponse): { code?: string; detail?: string } {
  try {
    const value: unknown = JSON.parse(response.body);
    if (value && typeof value === "object") {
      const { code, detail } = value as Record<string, unknown>;
      return { code: typeof code === "string" ? code : undefined, detail: typeof detail === "string" ? detail : undefined };
    }
  } catch {
    // Not JSON: no problem details to report.
  }
  return {};
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `Retry-After` in seconds: delta-seconds or an IMF-fixdate (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterSeconds(response: HTTPResponse, now: number = Date.now()): number | undefined {
  const raw = response.headers["retry-after"]?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw);
  const match = /^[A-Z][a-z]{2}, (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(raw);
  if (!match) return undefined;
  const month = MONTHS.indexOf(match[2] ?? "");
  if (month < 0) return undefined;
  const at = Date.UTC(Number(match[3]), month, Number(match[1]), Number(match[4]), Number(match[5]), Number(match[6]));
  return Math.max(0, (at - now) / 1000);
}

/** HTTP through `fetch`, with the key, the schema version and the device headers. The client keeps its
 * own cache and revalidates it itself (`If-None-Match`, so a 304 reaches it as a 304). No `cache`
 * option is passed: React Native's fetch (whatwg-fetch) turns `no-store` into an `_=<time>` query
 * parameter, and the server's answers are `no-cache` to every HTTP cache anyway (a CDN in between
 * keeps the path form's public answers; the device's own revalidation goes through it). */
export class Transport {
  private readonly fixedHeaders: Record<string, string>;

  constructor(readonly configuration: ResolvedConfiguration) {
    this.fixedHeaders = {
      Authorization: `Bearer ${configuration.publicKey}`,
      "X-Xizor-Schema-Version": String(configuration.schemaVersion),
      "User-Agent": `XizorReactNative/${XIZOR_REACT_NATIVE_VERSION}`,
      ...deviceHeaders(configuration.device),
    };
  }

  url(path: string): string {
    return `${this.configuration.baseURL}/${path}`;
  }

  /** `authorized: false` leaves the key out: the path form names the app in its URL, and a shared cache
   * must not reuse an answer to a request with `Authorization` (RFC 9111 §3.5). */
  async send(method: string, url: string, headers: Record<string, string> = {}, body?: string, authorized = true): Promise<HTTPResponse> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.configuration.requestTimeout * 1000);
    const all: Record<string, string> = { ...this.fixedHeaders, ...headers };
    if (!authorized) delete all["Authorization"];
    if (body !== undefined) all["Content-Type"] = "application/json";
    try {
      const response = await fetch(url, { method, headers: all, body, signal: controller.signal });
      const lowered: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        lowered[name.toLowerCase()] = value;
      });
      // The body is read under the same deadline: a server that stops mid-answer is a failure too.
      return { status: response.status, headers: lowered, body: await response.text() };
    } catch (error) {
      throw new NetworkFailure(controller.signal.aborted ? `timed out after ${this.configuration.requestTimeout} s` : describe(error));
    } finally {
      clearTimeout(timer);
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}

/** Strict escaping (`+`, `&`, `=` and `/` included), so a value never changes the URL's shape. */
export function escapeComponent(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
