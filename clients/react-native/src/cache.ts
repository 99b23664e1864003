import type { StoredResponse } from "./paywall.js";
import type { XizorStorage } from "./storage.js";

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

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

export function fnv1a64(text: string): string {
  let hash = FNV_OFFSET;
  for (const byte of utf8(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK;
  }
  return hash.toString(16);
}

function utf8(text: string): number[] {
  const bytes: number[] = [];
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 63));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    else bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
  }
  return bytes;
}
