import { XizorError } from "./errors.js";
import { sha256, type XizorCrypto } from "./edge.js";
import { utf8 } from "./utf8.js";

/**
 * Whether the client checks the server's Ed25519 signature (`X-Xizor-Signature`) on paywall answers
 * (XizorKit's `SignatureVerification`). Keys are the standard base64 of the raw 32-byte public keys
 * `GET /v1/sdk/signing-keys` publishes: pin `current` and `next`, so the next rotation needs no
 * app update. `informational` checks and reports (`Paywall.verification`); `enforced` treats an
 * answer without a valid signature by a pinned key as unusable: the presentation falls back to the
 * cache, then the bundled fallback, and the answer is never stored.
 */
export type SignatureVerification =
  | { mode: "disabled" }
  | { mode: "informational"; publicKeys: string[] }
  | { mode: "enforced"; publicKeys: string[] };

/** What the check said about one presented paywall. */
export type Verification =
  /** Signed by a pinned key, for this app's key and placement, over exactly this body. */
  | { status: "verified" }
  /** Not signed, or not by a pinned key, or not over this answer (`informational` only: `enforced`
   * never delivers such an answer). */
  | { status: "failed"; reason: string }
  /** Verification is disabled, or the paywall is the bundled fallback (shipped inside the app). */
  | { status: "notRequested" };

const MESSAGE_TAG = "xizor-sdk-signature-v1";

/** Checks `X-Xizor-Signature` (docs/client-react-native.md, "Signed answers"): the message is rebuilt
 * from what this client asked and received — the app's public key, the placement asked for, the
 * status, the SHA-256 of the body — so a signature made for another app, placement or body cannot
 * verify, without reading any of those from the answer. */
export class AnswerVerifier {
  /** Pinned keys by id (lowercase hex of the first 8 bytes of SHA-256 of the raw key), each imported
   * once for every answer it checks. Made lazily: WebCrypto is asynchronous, and a client that is
   * never asked for a paywall needs none. */
  private keys?: Promise<Map<string, unknown>>;

  constructor(
    readonly setting: SignatureVerification,
    private readonly publicKey: string,
    private readonly crypto: XizorCrypto | undefined,
  ) {
    if (setting.mode !== "disabled") {
      if (!crypto) throw new TypeError("Xizor configuration: signature verification needs WebCrypto (`crypto`)");
      if (setting.mode === "enforced" && setting.publicKeys.length === 0) {
        throw new TypeError("Xizor configuration: enforced verification needs at least one pinned key");
      }
      for (const key of setting.publicKeys) {
        if (base64(key.trim(), false)?.length !== 32) {
          throw new TypeError(`Xizor configuration: a pinned key is the standard base64 of a raw 32-byte Ed25519 key: '${key}'`);
        }
      }
    }
  }

  /** The verdict on one answer: `status` 200 or 204 (a 304 confirms a 200: its status and the cached
   * body), `body` the identity body (fetch has already undone any `Content-Encoding`). */
  async check(signature: string | undefined, placement: string, status: number, body: string): Promise<Verification> {
    const crypto = this.crypto;
    if (this.setting.mode === "disabled" || !crypto) return { status: "notRequested" };
    if (!signature) return { status: "failed", reason: "the answer is not signed" };
    const fields = new Map<string, string>();
    for (const part of signature.split(";")) {
      const equals = part.indexOf("=");
      if (equals > 0) fields.set(part.slice(0, equals).trim(), part.slice(equals + 1).trim());
    }
    const kid = fields.get("kid")?.toLowerCase();
    const time = fields.get("t");
    const encoded = fields.get("sig");
    if (!kid || !time || !/^\d+$/.test(time) || !encoded) {
      return { status: "failed", reason: `the signature header lacks kid, t or sig: '${signature}'` };
    }
    const key = (await this.pinned(crypto)).get(kid);
    if (!key) return { status: "failed", reason: `signed by key ${kid}, which is not pinned` };
    const sig = base64(encoded, true);
    if (sig?.length !== 64) return { status: "failed", reason: "the signature is not 64 bytes of base64url" };
    const digest = await sha256(crypto, Uint8Array.from(utf8(status === 204 ? "" : body)));
    const message = [MESSAGE_TAG, this.publicKey, placement, String(status), hex(digest), time, ""].join("\n");
    return (await crypto.verify({ name: "Ed25519" }, key, sig, Uint8Array.from(utf8(message))))
      ? { status: "verified" }
      : { status: "failed", reason: `the signature does not match this answer (kid ${kid})` };
  }

  /** Under `enforced`, an answer that did not verify is not an answer: thrown as an invalid one, so
   * the caller falls back exactly as for a body that does not parse. */
  enforce(verification: Verification): void {
    if (this.setting.mode === "enforced" && verification.status === "failed") {
      throw XizorError.invalidResponse(`signature: ${verification.reason}`);
    }
  }

  private pinned(crypto: XizorCrypto): Promise<Map<string, unknown>> {
    this.keys ??= (async () => {
      const keys = new Map<string, unknown>();
      const texts = this.setting.mode === "disabled" ? [] : this.setting.publicKeys;
      for (const text of texts) {
        const raw = base64(text.trim(), false) as Uint8Array;
        const id = hex((await sha256(crypto, raw)).subarray(0, 8));
        keys.set(id, await crypto.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]));
      }
      return keys;
    })();
    return this.keys;
  }
}

/** One verdict for a presentation decided by two answers (an allocation, then its variant's paywall):
 * verified only when both are; a failure names the answer that failed. */
export function combined(allocation: Verification, paywall: Verification): Verification {
  if (allocation.status === "failed") return { status: "failed", reason: `the allocation: ${allocation.reason}` };
  if (paywall.status === "failed") return paywall;
  return allocation.status === "verified" && paywall.status === "verified" ? paywall : { status: "notRequested" };
}

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const STANDARD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Base64 (standard with padding) or base64url (without), strictly: a character of the other
 * alphabet, bad padding or stray bits is undefined, never a guess. */
export function base64(text: string, urlSafe: boolean): Uint8Array | undefined {
  let body = text;
  if (!urlSafe) {
    if (body.length % 4 !== 0) return undefined;
    body = body.replace(/={1,2}$/, "");
  }
  if (body.length % 4 === 1) return undefined;
  const alphabet = urlSafe ? URL_SAFE : STANDARD;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const character of body) {
    const index = alphabet.indexOf(character);
    if (index < 0) return undefined;
    value = (value << 6) | index;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >> bits) & 0xff);
      value &= (1 << bits) - 1;
    }
  }
  return value === 0 ? Uint8Array.from(out) : undefined;
}
