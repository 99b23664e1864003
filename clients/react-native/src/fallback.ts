import type { JSONValue, Paywall } from "./paywall.js";

/** The server's fallback bundle (`GET /v1/sdk/fallback-bundle`) as the app ships it. */
export interface FallbackBundleJSON {
  placements: Record<string, unknown>;
}

interface Entry {
  paywallId: string;
  version: number;
  schemaVersion: number;
  document: JSONValue;
}

/** The bundle's usable entries: those the app's renderer cannot read (a newer schema than it
 * supports, or incomplete) are left out, so an outdated or foreign bundle degrades to "no fallback"
 * for those placements instead of failing the app. */
export class FallbackBundle {
  private readonly entries = new Map<string, Entry>();

  constructor(bundle: FallbackBundleJSON, schemaVersion: number) {
    if (!bundle || typeof bundle !== "object" || typeof bundle.placements !== "object" || bundle.placements === null) {
      throw new TypeError('the fallback bundle has no "placements" object');
    }
    for (const [key, raw] of Object.entries(bundle.placements)) {
      if (!raw || typeof raw !== "object") continue;
      const entry = raw as Record<string, unknown>;
      const { paywallId, version, document } = entry;
      const entrySchema = entry.schemaVersion;
      if (
        typeof paywallId !== "string" ||
        typeof version !== "number" ||
        typeof entrySchema !== "number" ||
        entrySchema > schemaVersion ||
        document === undefined
      ) {
        continue;
      }
      this.entries.set(key, { paywallId, version, schemaVersion: entrySchema, document: document as JSONValue });
    }
  }

  /** The placement's bundled paywall, named in `locale` when the document has that locale. */
  paywall(placement: string, locale?: string): Paywall | undefined {
    const entry = this.entries.get(placement);
    if (!entry) return undefined;
    const document = entry.document as { defaultLocale?: unknown; locales?: unknown } | null;
    const locales = Array.isArray(document?.locales) ? document?.locales : [];
    const chosen =
      locale !== undefined && locales?.includes(locale)
        ? locale
        : typeof document?.defaultLocale === "string"
          ? document.defaultLocale
          : "";
    return {
      placement,
      paywallId: entry.paywallId,
      version: entry.version,
      schemaVersion: entry.schemaVersion,
      locale: chosen,
      document: entry.document,
      source: "fallback",
      verification: { status: "notRequested" },
    };
  }
}
