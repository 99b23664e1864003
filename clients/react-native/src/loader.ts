import type { XizorCrypto } from "./edge.js";
import { XizorError } from "./errors.js";
import type { FallbackBundle } from "./fallback.js";
import type { PaywallCache } from "./cache.js";
import {
  keptHeaders,
  meaningOf,
  variantURL,
  type Meaning,
  type PaywallAnswer,
  type PaywallRequest,
  type PaywallSource,
  type StoredResponse,
} from "./paywall.js";
import { combined, type AnswerVerifier, type Verification } from "./signatures.js";
import { NetworkFailure, problemOf, ServerUnavailable, type Transport } from "./transport.js";

/** A response understood: what it means and what its signature check said. */
interface Understood {
  meaning: Meaning;
  verification: Verification;
}

/** What came first: the request's result, or the deadline. */
type RaceOutcome<T> = { kind: "finished"; result: Settled<T> } | { kind: "timedOut" };
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * network → cache → bundled fallback → typed error, without making the user wait (XizorKit's
 * `PaywallLoader`): the network gets `cacheTimeout` when there is something else to show, the whole
 * `requestTimeout` otherwise. A request that loses the race is not cancelled: it goes on and
 * refreshes the cache for the next presentation.
 *
 * With WebCrypto (`crypto`) it asks the cacheable path form, as XizorKit does: an experiment's
 * allocation is bucketed on the device and the variant's paywall is a second (cacheable) request;
 * both are revalidated and cached. Without it, the authenticated endpoint, where the server assigns.
 */
export class PaywallLoader {
  /** One request per key at a time: a preload and a presentation of the same placement share it. */
  private readonly inFlight = new Map<string, Promise<PaywallAnswer>>();

  constructor(
    private readonly transport: Transport,
    private readonly cache: PaywallCache,
    private readonly fallback: FallbackBundle | undefined,
    private readonly cacheTimeout: number,
    private readonly verifier: AnswerVerifier,
    private readonly crypto: XizorCrypto | undefined,
  ) {}

  async answer(request: PaywallRequest): Promise<PaywallAnswer> {
    const cached = await this.cache.entry(request.cacheKey);
    // The bundle holds documents only: a page presentation falls back to the cache alone.
    const bundled = request.format === "document" ? this.fallback?.paywall(request.placement, request.locale) : undefined;
    // Parsed only when it is the answer: a revalidation parses the body once, not twice.
    const alternative = async (): Promise<PaywallAnswer | undefined> => {
      if (cached) {
        try {
          const answer = await this.cachedAnswer(request, cached);
          if (answer) return answer;
        } catch {
          // An unreadable (or, under `enforced`, unverified) cached copy is no alternative; the bundle may still be.
        }
      }
      return bundled ? { kind: "paywall", paywall: bundled } : undefined;
    };
    const network = this.fetchShared(request, cached);

    let outcome: RaceOutcome<PaywallAnswer>;
    if (cached || bundled) {
      outcome = await race(network, this.cacheTimeout * 1000);
      if (outcome.kind === "timedOut") {
        const fallback = await alternative();
        if (fallback) return fallback;
        outcome = { kind: "finished", result: await settle(network) };
      }
    } else {
      outcome = { kind: "finished", result: await settle(network) };
    }
    const { result } = outcome;
    if (result.ok) return result.value;
    if (result.error instanceof XizorError && result.error.isRejection) throw result.error;
    const fallback = await alternative();
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

  /** The cache's answer to `request`, as the network's would be understood: its stored signature
   * checked (under `enforced` a copy that no longer verifies is not used), and an allocation resolved
   * to the cached paywall of this subscriber's variant. */
  private async cachedAnswer(request: PaywallRequest, cached: StoredResponse): Promise<PaywallAnswer | undefined> {
    const first = await this.understand(cached, cached.headers["x-xizor-signature"], request, "cache");
    if (first.meaning.kind === "answer") return first.meaning.answer;
    if (!this.crypto) return undefined;
    const { allocation } = first.meaning;
    const choice = await allocation.choice(this.crypto, request.subscriberId);
    if (choice.kind === "holdout") return { kind: "holdout", experimentId: allocation.experimentId };
    const entry = await this.cache.entry(request.variantCacheKey(allocation.experimentId, choice.variant));
    if (!entry) return undefined;
    const second = await this.understand(entry, entry.headers["x-xizor-signature"], request, "cache");
    if (second.meaning.kind !== "answer") return undefined;
    return withVerification(second.meaning.answer, combined(first.verification, second.verification));
  }

  /** The placement's answer from the network. When it is an allocation, the subscriber's bucket picks
   * the variant (or the holdout) and a second request fetches that variant's paywall. A variant the
   * server no longer knows (the experiment changed since the allocation was cached, here or in a CDN)
   * is retried once with a fresh allocation. */
  private async fetch(request: PaywallRequest, cached: StoredResponse | undefined): Promise<PaywallAnswer> {
    const { baseURL, publicKey } = this.transport.configuration;
    const crypto = this.crypto;
    const url = crypto ? request.edgeURL(baseURL, publicKey) : request.url(baseURL);
    let revalidate = true;
    for (;;) {
      const first = await this.exchange(url, request.cacheKey, revalidate ? cached : undefined, request);
      if (first.meaning.kind === "answer") return first.meaning.answer;
      // Only the path form answers allocations, and it is asked only with WebCrypto.
      if (!crypto) throw XizorError.invalidResponse("an allocation from the authenticated endpoint");
      const { allocation } = first.meaning;
      const choice = await allocation.choice(crypto, request.subscriberId);
      if (choice.kind === "holdout") return { kind: "holdout", experimentId: allocation.experimentId };
      const key = request.variantCacheKey(allocation.experimentId, choice.variant);
      let second: Understood;
      try {
        const previous = revalidate ? await this.cache.entry(key) : undefined;
        second = await this.exchange(variantURL(url, allocation.experimentId, choice.variant), key, previous, request);
      } catch (error) {
        if (revalidate && error instanceof XizorError && error.reason.kind === "rejected" && error.reason.code === "variant_not_found") {
          revalidate = false;
          continue;
        }
        throw error;
      }
      // An answer that is not a variant's paywall: the placement serves something else now (the
      // allocation was stale), so it is the answer as is.
      if (second.meaning.kind === "answer") return withVerification(second.meaning.answer, combined(first.verification, second.verification));
      // The placement reaches another experiment since this allocation: start over, afresh.
      if (!revalidate) throw XizorError.invalidResponse("an allocation answered a variant's request twice");
      revalidate = false;
    }
  }

  /** Checks `signature` for `entry` and understands it; throws when it cannot be understood, or did
   * not verify under `enforced`. */
  private async understand(entry: StoredResponse, signature: string | undefined, request: PaywallRequest, source: PaywallSource): Promise<Understood> {
    const verification = await this.verifier.check(signature, request.placement, entry.status, entry.body);
    this.verifier.enforce(verification);
    return { meaning: meaningOf(entry, request, source, verification), verification };
  }

  /** One request, revalidating the cached copy with `If-None-Match`; every answer worth keeping (200,
   * 204, a 304's confirmation) is checked, understood and then written to the cache before it is
   * returned, so what did not verify or parse is never stored. */
  private async exchange(url: string, key: string, cached: StoredResponse | undefined, request: PaywallRequest): Promise<Understood> {
    const edge = this.crypto !== undefined;
    const headers = request.headers(edge);
    if (cached?.etag) headers["If-None-Match"] = cached.etag;
    const response = await this.transport.send("GET", url, headers, undefined, !edge);
    const now = Date.now();
    const status = response.status;
    if (status === 304) {
      if (!cached) throw XizorError.invalidResponse("304 without a cached copy");
      // The 304 carries the signature of the 200 it confirms, checked against the cached body: the one
      // stored with the copy does not stand in for it, so a 304 stripped of it confirms nothing.
      const signature = response.headers["x-xizor-signature"];
      const understood = await this.understand(cached, signature, request, "revalidated");
      const entry: StoredResponse = { ...cached, confirmedAt: now };
      if (signature && signature !== cached.headers["x-xizor-signature"] && understood.verification.status !== "failed") {
        // Signed anew (by a rotated key, say): kept, so the copy still verifies offline. A signature
        // that did not verify never replaces one that may have.
        entry.headers = { ...entry.headers, "x-xizor-signature": signature };
        await this.cache.store(entry);
      } else {
        this.cache.confirm(entry);
      }
      return understood;
    }
    if (status === 200 || status === 204) {
      const entry: StoredResponse = {
        key,
        status,
        etag: response.headers["etag"],
        headers: keptHeaders(response.headers),
        body: response.body,
        confirmedAt: now,
      };
      const understood = await this.understand(entry, entry.headers["x-xizor-signature"], request, "network");
      await this.cache.store(entry);
      return understood;
    }
    if (status === 429 || status >= 500) throw new ServerUnavailable(status);
    if (status >= 400) {
      // The server says this placement has nothing (or this key may not ask): a cached copy must
      // not outlive that answer.
      await this.cache.remove(key);
      const problem = problemOf(response);
      throw XizorError.rejected(status, problem.code, problem.detail);
    }
    throw XizorError.invalidResponse(`status ${status}`);
  }
}

/** `answer` with the presentation's verdict (a holdout has none to carry). */
function withVerification(answer: PaywallAnswer, verification: Verification): PaywallAnswer {
  return answer.kind === "paywall" ? { kind: "paywall", paywall: { ...answer.paywall, verification } } : answer;
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
