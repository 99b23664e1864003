import { XizorError } from "./errors.js";
import type { XizorStorage } from "./storage.js";
import { problemOf, type Transport } from "./transport.js";

/**
 * Persisted starts of duration timers (`POST /v1/sdk/timers`): the first write wins on the server,
 * so a start never changes and is cached for good, in one storage entry (`<prefix>:timers`).
 */
export class Timers {
  private starts: Promise<Record<string, number>>;

  constructor(
    private readonly transport: Transport,
    private readonly storage: XizorStorage,
    private readonly prefix: string,
  ) {
    this.starts = storage
      .getItem(`${prefix}:timers`)
      .then((raw) => (raw ? (JSON.parse(raw) as Record<string, number>) : {}))
      .then((value) => (value && typeof value === "object" ? value : {}))
      .catch(() => ({}));
  }

  /** When the timer started for this subscriber, in milliseconds since 1970. */
  async start(subscriberId: string, paywallId: string, nodeId: string): Promise<number> {
    const key = [subscriberId, paywallId, nodeId].map((part) => part.replace(/\|/g, "%7C")).join("|");
    const starts = await this.starts;
    const known = starts[key];
    if (typeof known === "number") return known;
    let response;
    try {
      response = await this.transport.send(
        "POST",
        this.transport.url("v1/sdk/timers"),
        {},
        JSON.stringify({ subscriberId, paywallId, nodeId }),
      );
    } catch (error) {
      throw XizorError.unavailable("", `timer start: ${String(error)}`);
    }
    if (response.status !== 200 && response.status !== 201) {
      if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        const problem = problemOf(response);
        throw XizorError.rejected(response.status, problem.code, problem.detail);
      }
      throw XizorError.unavailable("", `timer start: the server answered ${response.status}`);
    }
    let startedAt: unknown;
    try {
      startedAt = (JSON.parse(response.body) as { startedAt?: unknown }).startedAt;
    } catch {
      startedAt = undefined;
    }
    if (typeof startedAt !== "number") throw XizorError.invalidResponse("the timer answer has no startedAt");
    starts[key] = startedAt;
    await this.storage.setItem(`${this.prefix}:timers`, JSON.stringify(starts)).catch(() => undefined);
    return startedAt;
  }
}
