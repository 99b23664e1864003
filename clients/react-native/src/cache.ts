import type { StoredResponse } from "./paywall.js";
import type { XizorStorage } from "./storage.js";
import { utf8 } from "./utf8.js";

/** Answers kept between launches, one storage entry per request key, mirrored in memory. A storage
 * write is one `setItem`, so an app killed mid-write leaves the old answer or the new one; an entry
 * that cannot be read is treated as absent. */
export class PaywallCache {
  private readonly memory = new Map<string, StoredResponse>();

  constructor(
    private readonly storage: XizorStorage,
    private readonly prefix: string,
  ) {}

  async entry(key: string): Promise<StoredResponse | undefined> {
    const known = this.memory.get(key);
    if (known) return known;
    let raw: string | null;
    try {
      raw = await this.storage.getItem(this.storageKey(key));
    } catch {
      return undefined;
    }
    if (raw === null) return undefined;
    const entry = parseEntry(raw);
    // The key is stored in the entry and compared: a hash collision reads as a miss, never as another answer.
    if (!entry || entry.key !== key) return undefined;
    this.memory.set(key, entry);
    return entry;
  }

  async store(entry: StoredResponse): Promise<void> {
    this.memory.set(entry.key, entry);
    try {
      await this.storage.setItem(this.storageKey(entry.key), JSON.stringify(entry));
    } catch {
      // The memory copy still serves this launch; the next answer tries the storage again.
    }
  }

  /** A 304: the stored copy is still the answer, so only memory learns when it was confirmed. */
  confirm(entry: StoredResponse): void {
    this.memory.set(entry.key, entry);
  }

  async remove(key: string): Promise<void> {
    this.memory.delete(key);
    try {
      await this.storage.removeItem(this.storageKey(key));
    } catch {
      // Nothing better to do: a later 4xx removes it again.
    }
  }

  /** FNV-1a (64-bit) of the key, as XizorKit names its files: short, safe storage keys whatever the context holds. */
  private storageKey(key: string): string {
    return `${this.prefix}:paywall:${fnv1a64(key)}`;
  }
}

function parseEntry(raw: string): StoredResponse | undefined {
  try {
    const value = JSON.parse(raw) as Partial<StoredResponse> | null;
    if (
      !value ||
      typeof value.key !== "string" ||
      typeof value.status !== "number" ||
      typeof value.body !== "string" ||
      typeof value.headers !== "object" ||
      value.headers === null ||
      typeof value.confirmedAt !== "number"
    ) {
      return undefined;
    }
    return value as StoredResponse;
  } catch {
    return undefined;
  }
}

/** FNV-1a, 64-bit, in two 32-bit halves: no BigInt, which JavaScriptCore on older devices lacks. The
 * prime is 2⁴⁰ + 0x1b3, so hash × prime is (hash << 40) + hash × 0x1b3, modulo 2⁶⁴. */
export function fnv1a64(text: string): string {
  let high = 0xcbf29ce4;
  let low = 0x84222325;
  for (const byte of utf8(text)) {
    low = (low ^ byte) >>> 0;
    const lowProduct = low * 0x1b3; // < 2⁴¹: exact in a double
    const carry = Math.floor(lowProduct / 0x100000000);
    high = (Math.imul(high, 0x1b3) + (low << 8) + carry) >>> 0;
    low = lowProduct >>> 0;
  }
  return high === 0 ? low.toString(16) : high.toString(16) + low.toString(16).padStart(8, "0");
}

