import { XizorError } from "./errors.js";
import type { FallbackBundle } from "./fallback.js";
import type { PaywallCache } from "./cache.js";
import { answerOf, keptHeaders, type PaywallAnswer, type PaywallRequest, type StoredResponse } from "./paywall.js";
import { NetworkFailure, problemOf, ServerUnavailable, type Transport } from "./transport.js";

/** What came first: the request's result, or the deadline. */
type RaceOutcome<T> = { kind: "finished"; result: Settled<T> } | { kind: "timedOut" };
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * network → cache → bundled fallback → typed error, without making the user wait (XizorKit's
 * `PaywallLoader`): the network gets `cacheTimeout` when there is something else to show, the whole
 * `requestTimeout` otherwise. A request that loses the race is not cancelled: it goes on and
 * refreshes the cache for the next presentation.
 */
export class PaywallLoader {
  /** One request per key at a time: a preload and a presentation of the same placement share it. */
  private readonly inFlight = new Map<string, Promise<PaywallAnswer>>();

  constructor(
    private readonly transport: Transport,
    private readonly cache: PaywallCache,
    private readonly fallback: FallbackBundle | undefined,
    private readonly cacheTimeout: number,
  ) {}

  async answer(request: PaywallRequest): Promise<PaywallAnswer> {
    const cached = await this.cache.entry(request.cacheKey);
    // The bundle holds documents only: a page presentation falls back to the cache alone.
    const bundled = request.format === "document" ? this.fallback?.paywall(request.placement, request.locale) : undefined;
    // Parsed only when it is the answer: a revalidation parses the body once, not twice.
    const alternative = (): PaywallAnswer | undefined => {
      if (cached) {
        try {
          return answerOf(cached, request, "cache");
        } catch {
          // An unreadable cached copy is no alternative; the bundle may still be.
        }
      }
      return bundled ? { kind: "paywall", paywall: bundled } : undefined;
    };
    const network = this.fetchShared(request, cached);

    let outcome: RaceOutcome<PaywallAnswer>;
    if (cached || bundled) {
      outcome = await race(network, this.cacheTimeout * 1000);
      if (outcome.kind === "timedOut") {
        const fallback = alternative();
        if (fallback) return fallback;
        outcome = { kind: "finished", result: await settle(network) };
      }
    } else {
      outcome = { kind: "finished", result: await settle(network) };
    }
    const { result } = outcome;
    if (result.ok) return result.value;
    if (result.error instanceof XizorError && result.error.isRejection) throw result.error;
    const fallback = alternative();
    if (fallback) return fallback;
    throw XizorError.unavailable(request.placement, describe(result.error));
  }

  private fetchShared(request: PaywallRequest, cached: StoredResponse | undefined): Promise<PaywallAnswer> {
    const key = request.cacheKey;
    const running = this.inFlight.get(key);
    if (running) return running;
    const task = this.fetch(request, cached);
    this.inFlight.set(key, task);
    // Removed before a caller sees the result, so one that asks again revalidates instead of joining
    // the finished request. Only its own entry: a later request for the key may have replaced it.
    const done = (): void => {
      if (this.inFlight.get(key) === task) this.inFlight.delete(key);
    };
    task.then(done, done);
    return task;
  }

  /** One request, revalidating the cached copy with `If-None-Match`; every answer worth keeping (200,
   * 204, a 304's confirmation) is written to the cache before it is returned. */
  private async fetch(request: PaywallRequest, cached: StoredResponse | undefined): Promise<PaywallAnswer> {
    const headers: Record<string, string> = { Accept: request.accept };
    if (cached?.etag) headers["If-None-Match"] = cached.etag;
    const response = await this.transport.send("GET", request.url(this.transport.configuration.baseURL), headers);
    const now = Date.now();
    const status = response.status;
    if (status === 304) {
      if (!cached) throw XizorError.invalidResponse("304 without a cached copy");
      const entry: StoredResponse = { ...cached, confirmedAt: now };
      const answer = answerOf(entry, request, "revalidated");
      this.cache.confirm(entry);
      return answer;
    }
    if (status === 200 || status === 204) {
      const entry: StoredResponse = {
        key: request.cacheKey,
        status,
        etag: response.headers["etag"],
        headers: keptHeaders(response.headers),
        body: response.body,
        confirmedAt: now,
      };
      const answer = answerOf(entry, request, "network");
      await this.cache.store(entry);
      return answer;
    }
    if (status === 429 || status >= 500) throw new ServerUnavailable(status);
    if (status >= 400) {
      // The server says this placement has nothing (or this key may not ask): a cached copy must
      // not outlive that answer.
      await this.cache.remove(request.cacheKey);
      const problem = problemOf(response);
      throw XizorError.rejected(status, problem.code, problem.detail);
    }
    throw XizorError.invalidResponse(`status ${status}`);
  }
}

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** Waits for `promise` at most `ms` without cancelling it; the timer is cleared when it settles. */
function race<T>(promise: Promise<T>, ms: number): Promise<RaceOutcome<T>> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ kind: "timedOut" }), Math.max(0, ms));
    void settle(promise).then((result) => {
      clearTimeout(timer);
      resolve({ kind: "finished", result });
    });
  });
}

export function describe(error: unknown): string {
  if (error instanceof NetworkFailure) return `network: ${error.message}`;
  if (error instanceof ServerUnavailable) return `the server answered ${error.status}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
