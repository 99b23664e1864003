/**
 * Where answers, the event queue and timer starts are kept between launches: the subset of
 * `@react-native-async-storage/async-storage`'s interface the package uses, so an app passes
 * `AsyncStorage` itself (or MMKV, or anything else with these four methods). Values are strings.
 */
export interface XizorStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  getAllKeys(): Promise<readonly string[]>;
  /** Used when present (AsyncStorage has them): one round trip over the native bridge, not N. */
  multiGet?(keys: readonly string[]): Promise<readonly (readonly [string, string | null])[]>;
  multiSet?(pairs: readonly (readonly [string, string])[]): Promise<void>;
  multiRemove?(keys: readonly string[]): Promise<void>;
}

/** Nothing survives the process: for tests, previews, or an app that opts out of persistence. */
export class MemoryStorage implements XizorStorage {
  private readonly items = new Map<string, string>();

  async getItem(key: string): Promise<string | null> {
    return this.items.get(key) ?? null;
  }
  async setItem(key: string, value: string): Promise<void> {
    this.items.set(key, value);
  }
  async removeItem(key: string): Promise<void> {
    this.items.delete(key);
  }
  async getAllKeys(): Promise<readonly string[]> {
    return [...this.items.keys()];
  }
}

export async function getMany(storage: XizorStorage, keys: readonly string[]): Promise<(string | null)[]> {
  if (keys.length === 0) return [];
  if (storage.multiGet) {
    const pairs = await storage.multiGet(keys);
    const byKey = new Map(pairs.map(([key, value]) => [key, value] as const));
    return keys.map((key) => byKey.get(key) ?? null);
  }
  return Promise.all(keys.map((key) => storage.getItem(key)));
}

export async function setMany(storage: XizorStorage, pairs: readonly (readonly [string, string])[]): Promise<void> {
  if (pairs.length === 0) return;
  if (storage.multiSet) return storage.multiSet(pairs);
  for (const [key, value] of pairs) await storage.setItem(key, value);
}

export async function removeMany(storage: XizorStorage, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  if (storage.multiRemove) return storage.multiRemove(keys);
  for (const key of keys) await storage.removeItem(key);
}
