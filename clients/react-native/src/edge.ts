import { XizorError } from "./errors.js";
import type { JSONValue } from "./paywall.js";
import { utf8 } from "./utf8.js";

/**
 * The WebCrypto the client buckets and verifies with (`crypto.subtle`): Node and browsers have it;
 * in a React Native app pass one (react-native-quick-crypto's `subtle`, for example) as
 * `XizorConfiguration.crypto`, or install it as `globalThis.crypto`. Only these three calls are used.
 */
export interface XizorCrypto {
  digest(algorithm: "SHA-256", data: Uint8Array): Promise<ArrayBuffer>;
  importKey(format: "raw", key: Uint8Array, algorithm: { name: "Ed25519" }, extractable: false, usages: ["verify"]): Promise<unknown>;
  verify(algorithm: { name: "Ed25519" }, key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
}

/** `globalThis.crypto.subtle` when the runtime has it. */
export function runtimeCrypto(): XizorCrypto | undefined {
  const subtle = (globalThis as { crypto?: { subtle?: XizorCrypto } }).crypto?.subtle;
  return subtle && typeof subtle.digest === "function" ? subtle : undefined;
}

export async function sha256(crypto: XizorCrypto, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.digest("SHA-256", data));
}

/** A variant's name, or the holdout (show nothing). */
export type AllocationChoice = { kind: "variant"; variant: string } | { kind: "holdout" };

interface AllocationRange {
  from: number;
  to: number;
  /** Undefined: the holdout. */
  variant?: string;
}

/**
 * A cacheable allocation (XizorKit's `ExperimentAllocation`, docs/client-react-native.md): instead of
 * assigning the subscriber, which would make the answer differ per subscriber and so uncacheable by a
 * CDN, the server answers which variant each bucket shows, and the device computes its bucket with
 * the server's own function. The variant's paywall is then a second cacheable request.
 */
export class ExperimentAllocation {
  private constructor(
    readonly experimentId: string,
    readonly buckets: number,
    private readonly ranges: AllocationRange[],
    /** In the experiment's order; the first is the control. */
    readonly variants: string[],
  ) {}

  /** Reads the body's `allocation` and checks it is whole: ranges in order covering 0..<buckets
   * exactly, naming only listed variants. One with a gap would leave some subscribers without an
   * answer, so it is refused as a malformed answer rather than half used. */
  static parse(value: JSONValue | undefined): ExperimentAllocation {
    const invalid = (why: string): XizorError => XizorError.invalidResponse(`allocation: ${why}`);
    if (!value || typeof value !== "object" || Array.isArray(value)) throw invalid("not an object");
    const { experimentId, buckets, variants: rawVariants, ranges: rawRanges } = value;
    if (typeof experimentId !== "string" || !experimentId) throw invalid("no experimentId");
    if (typeof buckets !== "number" || !Number.isInteger(buckets) || buckets <= 0) throw invalid("no positive buckets");
    if (!Array.isArray(rawVariants) || rawVariants.length === 0) throw invalid("no variants");
    const variants: string[] = [];
    for (const raw of rawVariants) {
      const name = raw && typeof raw === "object" && !Array.isArray(raw) ? raw.name : undefined;
      if (typeof name !== "string" || !name || variants.includes(name)) throw invalid("a variant without a name of its own");
      variants.push(name);
    }
    if (!Array.isArray(rawRanges) || rawRanges.length === 0) throw invalid("no ranges");
    const ranges: AllocationRange[] = [];
    let next = 0;
    for (const raw of rawRanges) {
      const range = raw && typeof raw === "object" && !Array.isArray(raw) ? raw : {};
      const { from, to, variant } = range as Record<string, JSONValue | undefined>;
      if (from !== next || typeof to !== "number" || !Number.isInteger(to) || to <= next) {
        throw invalid(`ranges do not cover 0..<${buckets} in order`);
      }
      if (variant != null && (typeof variant !== "string" || !variants.includes(variant))) {
        throw invalid("a range names no listed variant");
      }
      ranges.push({ from: next, to, variant: variant ?? undefined });
      next = to;
    }
    if (next !== buckets) throw invalid(`ranges do not cover 0..<${buckets} in order`);
    return new ExperimentAllocation(experimentId, buckets, ranges, variants);
  }

  /** What `subscriberId` is shown: its bucket's range; without a subscriber, the first variant (the
   * control), as the server answers one. */
  async choice(crypto: XizorCrypto, subscriberId: string | undefined): Promise<AllocationChoice> {
    if (!subscriberId) return { kind: "variant", variant: this.variants[0] as string };
    const value = await bucket(crypto, this.experimentId, subscriberId, this.buckets);
    const range = this.ranges.find((r) => r.from <= value && value < r.to);
    if (!range) throw XizorError.invalidResponse(`allocation: no range holds bucket ${value}`);
    return range.variant === undefined ? { kind: "holdout" } : { kind: "variant", variant: range.variant };
  }
}

/** The server's `Allocation.bucket`: the first 8 bytes of SHA-256("<experimentId>:<subscriberId>"),
 * big-endian, modulo `buckets`. The same on every device and server, so a subscriber sees the variant
 * the server would have assigned, and results count them there. In two 32-bit halves: JavaScript's
 * numbers are exact to 2^53, and (hi × 2^32 + lo) mod n = ((hi mod n) × (2^32 mod n) + lo) mod n. */
export async function bucket(crypto: XizorCrypto, experimentId: string, subscriberId: string, buckets: number): Promise<number> {
  const digest = await sha256(crypto, Uint8Array.from(utf8(`${experimentId}:${subscriberId}`)));
  const word = (offset: number): number =>
    (((digest[offset] ?? 0) << 24) >>> 0) + ((digest[offset + 1] ?? 0) << 16) + ((digest[offset + 2] ?? 0) << 8) + (digest[offset + 3] ?? 0);
  const high = word(0) % buckets;
  const low = word(4) % buckets;
  return (high * (2 ** 32 % buckets) + low) % buckets;
}

