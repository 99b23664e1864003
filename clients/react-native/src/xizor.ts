import { XizorError } from "./errors.js";
import { PaywallCache } from "./cache.js";
import { resolveConfiguration, type ResolvedConfiguration, type XizorConfiguration } from "./configuration.js";
import { EventQueue } from "./event-queue.js";
import { makeEvent, type EventInit, type XizorEvent } from "./events.js";
import { FallbackBundle } from "./fallback.js";
import { PaywallLoader } from "./loader.js";
import { PaywallRequest, type JSONValue, type PaywallAnswer, type PaywallOptions } from "./paywall.js";
import { AnswerVerifier } from "./signatures.js";
import { Timers } from "./timers.js";
import { escapeComponent, problemOf, Transport } from "./transport.js";

/**
 * The entry point (XizorKit's `Xizor`): configure once, then ask for placements' paywalls, track
 * events and read timer starts. Creating one does no network I/O, so it never delays start-up; the
 * first interval flush sends what a previous launch left.
 */
export class Xizor {
  readonly configuration: ResolvedConfiguration;
  /** The persistent event queue (also reachable through `track` and `flush`). */
  readonly events: EventQueue;
  private readonly transport: Transport;
  private readonly loader: PaywallLoader;
  private readonly timers: Timers;

  constructor(configuration: XizorConfiguration) {
    const resolved = resolveConfiguration(configuration);
    this.configuration = resolved;
    this.transport = new Transport(resolved);
    const fallback = resolved.fallbackBundle ? new FallbackBundle(resolved.fallbackBundle, resolved.schemaVersion) : undefined;
    this.loader = new PaywallLoader(
      this.transport,
      new PaywallCache(resolved.storage, resolved.storagePrefix),
      fallback,
      resolved.cacheTimeout,
      new AnswerVerifier(resolved.verification, resolved.publicKey, resolved.crypto),
      resolved.crypto,
    );
    this.events = new EventQueue(this.transport, resolved.storage, resolved.storagePrefix, resolved.events);
    this.timers = new Timers(this.transport, resolved.storage, resolved.storagePrefix);
    this.events.start();
  }

  /**
   * The paywall to present for `placement`: from the network when it answers within `cacheTimeout`,
   * else from the cache, else from the bundled fallback (and the network request goes on to refresh
   * the cache). `{kind: "holdout"}` means show nothing. Rejects with a `XizorError`: `rejected` when
   * the server definitively says no (unknown placement, nothing published, bad key), `unavailable`
   * when there is nothing to show.
   */
  paywall(placement: string, options: PaywallOptions = {}): Promise<PaywallAnswer> {
    return this.loader.answer(new PaywallRequest(placement, options, this.configuration.schemaVersion));
  }

  /** Fetches placements ahead of their presentation, so the first one is answered from the cache at
   * worst. Failures are ignored: presenting will try again. */
  async preload(placements: readonly string[], options: PaywallOptions = {}): Promise<void> {
    await Promise.all(placements.map((placement) => this.paywall(placement, options).catch(() => undefined)));
  }

  /** Queues an event (in storage when this resolves); pass the `paywall` that was shown so the
   * event carries its experiment attribution. */
  track(event: XizorEvent): Promise<void>;
  track(name: string, init?: EventInit): Promise<void>;
  track(eventOrName: XizorEvent | string, init: EventInit = {}): Promise<void> {
    const event = typeof eventOrName === "string" ? makeEvent(eventOrName, init) : eventOrName;
    return this.events.enqueue([event]);
  }

  /** Sends queued events now (resolves early when a retry is scheduled). */
  flush(): Promise<void> {
    return this.events.flush();
  }

  /**
   * Replaces what the server stores of a subscriber (rules read it as `subscriber.KEY`, from the
   * next paywall request on): strings, numbers and booleans, at most 50. Rejects with
   * `XizorError.rejected` and the server's problem when it refuses them, `unavailable` when it
   * cannot be reached.
   */
  async setAttributes(attributes: Record<string, JSONValue>, subscriberId: string): Promise<void> {
    if (!subscriberId) throw XizorError.rejected(0, "invalid_subscriber_id", "a subscriber id is 1 to 200 bytes");
    const url = this.transport.url(`v1/sdk/subscribers/${escapeComponent(subscriberId)}/attributes`);
    let response;
    try {
      response = await this.transport.send("PUT", url, {}, JSON.stringify({ attributes }));
    } catch (error) {
      throw XizorError.unavailable("", `subscriber attributes: ${String(error)}`);
    }
    if (response.status === 200) return;
    if (response.status >= 400 && response.status < 500 && response.status !== 429) {
      const problem = problemOf(response);
      throw XizorError.rejected(response.status, problem.code, problem.detail);
    }
    throw XizorError.unavailable("", `subscriber attributes: the server answered ${response.status}`);
  }

  /** The persisted start of a duration timer, in milliseconds since 1970 (cached after the first answer). */
  timerStart(subscriberId: string, paywallId: string, nodeId: string): Promise<number> {
    return this.timers.start(subscriberId, paywallId, nodeId);
  }

  /** Stops the queue's timers (queued events stay in storage for the next launch). */
  close(): void {
    this.events.close();
  }
}
