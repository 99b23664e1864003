import { Backoff } from "./backoff.js";
import type { EventSettings } from "./configuration.js";
import { parseEvent, type XizorEvent } from "./events.js";
import { getMany, removeMany, setMany, type XizorStorage } from "./storage.js";
import { problemOf, retryAfterSeconds, type HTTPResponse, type Transport } from "./transport.js";

/** Why a send is retried. */
export type RetryReason =
  | { kind: "network"; description: string }
  | { kind: "serverError"; status: number }
  | { kind: "rateLimited"; retryAfter?: number };

/** What happened to queued events (XizorKit's `EventReport`). */
export type EventReport =
  /** The server stored a batch: `accepted` new events, `duplicates` it had already (a retry). */
  | { kind: "delivered"; accepted: number; duplicates: number }
  /** Events the server refused (4xx other than 429, or per-event rejections) or the queue had no
   * room for: they are gone, never retried. */
  | { kind: "dropped"; events: XizorEvent[]; reason: string }
  /** A send failed for a reason worth retrying; the next attempt is in `after` seconds. */
  | { kind: "retryScheduled"; after: number; reason: RetryReason }
  /** At launch, stored entries that did not read as events (torn, foreign): removed, their events lost. */
  | { kind: "unreadable"; entries: number }
  /** The storage refused a write: the `queued` events are kept in memory and still delivered this
   * launch, but an app killed before they are sent loses them. Reported each time a write fails. */
  | { kind: "notPersisted"; queued: number; reason: string };

/** What the queue is doing; every change goes through `startSending`, `idle` or `scheduleRetry`. */
type State =
  | { kind: "idle" }
  | { kind: "sending"; done: Promise<void> }
  | { kind: "backingOff"; until: number; wake: unknown };

type Outcome =
  | { kind: "delivered"; accepted: number; duplicates: number; rejected: { id: string; reason: string }[] }
  | { kind: "refused"; reason: string }
  | { kind: "tooLarge" }
  | { kind: "retry"; reason: RetryReason; retryAfter?: number };

interface Pending {
  event: XizorEvent;
  /** Its storage key, or undefined when the storage refused it (kept in memory only). */
  key?: string;
}

/**
 * The persistent event queue (XizorKit's `EventQueue`): each event is one storage entry, written
 * before `enqueue` returns, named by a sequence number so a launch reads them back oldest first.
 * Batches of up to `batchSize` are sent when that many wait, every `flushInterval`, and on `flush()`
 * (the app going to the background); retried with backoff on network errors, 5xx and 429; dropped
 * and reported when the server refuses them. Delivery removes the batch's entries; a crash before
 * that resends the batch, which the server counts once (event ids).
 */
export class EventQueue {
  private pending: Pending[] = [];
  private state: State = { kind: "idle" };
  private failures = 0;
  /** Halved on 413 (a batch over the server's body limit), back to `batchSize` after a delivery. */
  private batchLimit: number;
  /** Per-instance order within a millisecond (keys are `<ms>-<counter>-<random>`). */
  private counter = 0;
  /** Events being written, counted against `maxQueued` before they join `pending`. */
  private writing = 0;
  /** The newest millisecond among the entries a previous launch left: new keys sort after them even
   * when this launch begins within that millisecond. */
  private loadedUntil = 0;
  private ticker: unknown;
  private closed = false;
  /** Storage operations one after another, so entries are written and removed in queue order. */
  private storageChain: Promise<void> = Promise.resolve();
  private readonly backoff: Backoff;
  private readonly loaded: Promise<void>;

  constructor(
    private readonly transport: Transport,
    private readonly storage: XizorStorage,
    private readonly prefix: string,
    private readonly settings: EventSettings,
  ) {
    this.batchLimit = settings.batchSize;
    this.backoff = new Backoff(settings.initialBackoff, settings.maxBackoff);
    this.loaded = this.load();
  }

  /** Events waiting to be delivered (after what a previous launch left has been read). */
  async count(): Promise<number> {
    await this.loaded;
    return this.pending.length;
  }

  /** Starts the interval flush; the first tick also sends what a previous launch left. */
  start(): void {
    if (this.ticker !== undefined || this.closed) return;
    this.ticker = unref(setInterval(() => this.flushIfIdle(), this.settings.flushInterval * 1000));
  }

  /** Stops the timers; queued events stay in storage for the next launch. */
  close(): void {
    this.closed = true;
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.state.kind === "backingOff") {
      clearTimeout(this.state.wake);
      this.state = { kind: "idle" };
    }
  }

  /** Queues events; they are in storage when this resolves. */
  async enqueue(events: readonly XizorEvent[]): Promise<void> {
    await this.loaded;
    let incoming = [...events];
    const overflow = this.pending.length + this.writing + incoming.length - this.settings.maxQueued;
    if (overflow > 0) {
      const fromQueue = Math.min(overflow, this.pending.length);
      const dropped = this.pending.slice(0, fromQueue).map((item) => item.event);
      this.dropFront(fromQueue);
      dropped.push(...incoming.slice(0, overflow - fromQueue));
      incoming = incoming.slice(overflow - fromQueue);
      this.report({ kind: "dropped", events: dropped, reason: `the queue holds at most ${this.settings.maxQueued} events` });
    }
    const items: Pending[] = incoming.map((event) => ({ event, key: this.entryKey() }));
    this.writing += items.length;
    await this.serially(async () => {
      try {
        await setMany(this.storage, items.map((item) => [item.key ?? "", JSON.stringify(item.event)] as const));
      } catch (error) {
        for (const item of items) item.key = undefined;
        this.report({ kind: "notPersisted", queued: this.pending.length + items.length, reason: String(error) });
      }
    });
    this.writing -= items.length;
    this.pending.push(...items);
    if (this.pending.length >= this.settings.batchSize) this.flushIfIdle();
  }

  /** Sends everything queued now, unless a retry is scheduled (the server asked to wait, or the
   * network is down); resolves once the queue is empty or a retry is scheduled. */
  async flush(): Promise<void> {
    await this.loaded;
    if (this.state.kind === "sending") await this.state.done;
    if (this.state.kind === "idle" && this.pending.length > 0) await this.startSending();
  }

  private flushIfIdle(): void {
    if (this.state.kind === "idle" && this.pending.length > 0 && !this.closed) void this.startSending();
  }

  private startSending(): Promise<void> {
    // Nothing in the loop should throw; if something does, the queue must not stay "sending" forever.
    const done = this.sendAll().catch((error: unknown) => {
      console.warn("Xizor: the event queue failed", error);
      this.state = { kind: "idle" };
    });
    this.state = { kind: "sending", done };
    return done;
  }

  private async sendAll(): Promise<void> {
    // Let the caller record the state before the loop can change it.
    await Promise.resolve();
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, this.batchLimit).map((item) => item.event);
      const outcome = await this.send(batch);
      switch (outcome.kind) {
        case "delivered": {
          this.failures = 0;
          this.batchLimit = this.settings.batchSize;
          await this.remove(batch);
          this.report({ kind: "delivered", accepted: outcome.accepted, duplicates: outcome.duplicates });
          if (outcome.rejected.length > 0) {
            const byId = new Map(batch.map((event) => [event.id, event] as const));
            const events = outcome.rejected.flatMap((item) => byId.get(item.id) ?? []);
            this.report({ kind: "dropped", events, reason: outcome.rejected.map((item) => item.reason).join("; ") });
          }
          break;
        }
        case "refused":
          this.failures = 0;
          await this.remove(batch);
          this.report({ kind: "dropped", events: batch, reason: outcome.reason });
          break;
        case "tooLarge":
          if (batch.length > 1) {
            this.batchLimit = Math.max(1, Math.floor(batch.length / 2));
          } else {
            await this.remove(batch);
            this.report({ kind: "dropped", events: batch, reason: "the event is larger than the server takes" });
          }
          break;
        case "retry":
          this.scheduleRetry(outcome.reason, outcome.retryAfter);
          return;
      }
    }
    this.state = { kind: "idle" };
  }

  private scheduleRetry(reason: RetryReason, retryAfter: number | undefined): void {
    this.failures += 1;
    // setTimeout takes at most 2³¹−1 ms (about 24.8 days); longer fires at once.
    const delay = Math.min(this.backoff.delay(this.failures, retryAfter), 2_147_483);
    if (this.closed) {
      this.state = { kind: "idle" };
      return;
    }
    const wake = unref(
      setTimeout(() => {
        if (this.state.kind !== "backingOff") return;
        this.state = { kind: "idle" };
        this.flushIfIdle();
      }, delay * 1000),
    );
    this.state = { kind: "backingOff", until: Date.now() + delay * 1000, wake };
    this.report({ kind: "retryScheduled", after: delay, reason });
  }

  private async send(batch: XizorEvent[]): Promise<Outcome> {
    let body: string;
    try {
      body = JSON.stringify({ events: batch });
    } catch (error) {
      return { kind: "refused", reason: `the events cannot be encoded: ${String(error)}` };
    }
    let response: HTTPResponse;
    try {
      response = await this.transport.send("POST", this.transport.url("v1/sdk/events"), {}, body);
    } catch (error) {
      return { kind: "retry", reason: { kind: "network", description: error instanceof Error ? error.message : String(error) } };
    }
    const status = response.status;
    if (status === 200 || status === 202) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(response.body);
      } catch {
        parsed = undefined;
      }
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
        return { kind: "retry", reason: { kind: "serverError", status } };
      }
      const answer = parsed as Record<string, unknown>;
      const rejected = (Array.isArray(answer.rejected) ? answer.rejected : []).flatMap((item: unknown) => {
        const entry = item as { id?: unknown; errors?: unknown } | null;
        if (!entry || typeof entry.id !== "string") return [];
        const first = Array.isArray(entry.errors) ? (entry.errors[0] as { path?: unknown; message?: unknown } | undefined) : undefined;
        const reason = first ? [first.path, first.message].filter((part) => typeof part === "string").join(": ") : "rejected";
        return [{ id: entry.id, reason }];
      });
      return {
        kind: "delivered",
        accepted: typeof answer.accepted === "number" ? answer.accepted : 0,
        duplicates: typeof answer.duplicates === "number" ? answer.duplicates : 0,
        rejected,
      };
    }
    if (status === 413) return { kind: "tooLarge" };
    const retryAfter = retryAfterSeconds(response);
    if (status === 429) return { kind: "retry", reason: { kind: "rateLimited", retryAfter }, retryAfter };
    if (status >= 500) return { kind: "retry", reason: { kind: "serverError", status }, retryAfter };
    const problem = problemOf(response);
    return { kind: "refused", reason: `${status} ${problem.code ?? ""}: ${problem.detail ?? ""}` };
  }

  /** A batch is always the queue's front (events only ever leave from there); what of it is still
   * queued goes (an overflow during the send may have dropped some already). */
  private async remove(batch: readonly XizorEvent[]): Promise<void> {
    const ids = new Set(batch.map((event) => event.id));
    let count = 0;
    while (count < this.pending.length && ids.has(this.pending[count]?.event.id ?? "")) count += 1;
    await this.dropFront(count);
  }

  private dropFront(count: number): Promise<void> {
    if (!(count >= 0 && count <= this.pending.length)) throw new RangeError("dropping more events than are queued");
    const keys = this.pending.splice(0, count).flatMap((item) => item.key ?? []);
    return this.serially(async () => {
      try {
        await removeMany(this.storage, keys);
      } catch {
        // Left in storage, they are sent again next launch and counted once by the server.
      }
    });
  }

  /** What a previous launch left, oldest first; entries that do not read as events are removed and reported. */
  private async load(): Promise<void> {
    const marker = `${this.prefix}:event:`;
    let keys: string[];
    try {
      keys = (await this.storage.getAllKeys()).filter((key) => key.startsWith(marker)).sort();
    } catch (error) {
      this.report({ kind: "notPersisted", queued: 0, reason: `reading the queue: ${String(error)}` });
      return;
    }
    const values = await getMany(this.storage, keys).catch(() => keys.map(() => null));
    const unreadable: string[] = [];
    keys.forEach((key, index) => {
      const event = parseEvent(values[index] ?? "");
      const time = /^(\d{13})-/.exec(key.slice(marker.length));
      if (time) this.loadedUntil = Math.max(this.loadedUntil, Number(time[1]));
      if (event) this.pending.push({ event, key });
      else unreadable.push(key);
    });
    if (unreadable.length > 0) {
      await removeMany(this.storage, unreadable).catch(() => undefined);
      this.report({ kind: "unreadable", entries: unreadable.length });
    }
  }

  /** The time (13 digits, so keys sort in time order), a counter for order within a millisecond, and a
   * random suffix: unique without knowing what is stored, so two instances on one prefix (a
   * `configure()` again while an old instance still tracks) or a launch that could not read the
   * queue never overwrite an entry. */
  private entryKey(): string {
    const time = String(Math.max(Date.now(), this.loadedUntil + 1)).padStart(13, "0");
    const counter = String(this.counter++ % 1_000_000).padStart(6, "0");
    const random = Math.floor(Math.random() * 0x100000000).toString(36);
    return `${this.prefix}:event:${time}-${counter}-${random}`;
  }

  private serially(operation: () => Promise<void>): Promise<void> {
    const next = this.storageChain.then(operation);
    this.storageChain = next.catch(() => undefined);
    return next;
  }

  private report(report: EventReport): void {
    try {
      this.settings.onReport?.(report);
    } catch (error) {
      console.warn("Xizor: an onReport callback threw", error);
    }
  }
}

/** Node keeps a process alive for a pending timer; a queue's timers must not (React Native has no `unref`). */
function unref(handle: unknown): unknown {
  (handle as { unref?: () => void } | null)?.unref?.();
  return handle;
}
