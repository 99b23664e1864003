/**
 * Exponential backoff with "equal jitter" (XizorKit's `Backoff`): half the exponential delay plus a
 * random share of the other half, so a fleet of devices that lost the network together does not
 * come back in step, while each still waits at least half the nominal delay. A `Retry-After` is a
 * floor, never shortened; a little spread above it keeps clients from returning together.
 */
export class Backoff {
  constructor(
    readonly initial: number,
    readonly maximum: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** Seconds to wait before the next attempt, after `failures` (≥ 1) consecutive failures. */
  delay(failures: number, retryAfter?: number): number {
    if (!(failures >= 1)) throw new RangeError("a delay follows a failure");
    const exponent = Math.min(failures - 1, 30);
    const nominal = Math.min(this.maximum, this.initial * 2 ** exponent);
    const jittered = nominal / 2 + (this.random() * nominal) / 2;
    if (retryAfter === undefined) return jittered;
    return Math.max(jittered, retryAfter + this.random() * Math.min(1, retryAfter / 10));
  }
}
