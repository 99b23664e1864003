// The App Store's `appAccountToken` for a subscriber: XizorKit's `Xizor.appAccountToken(for:)`.

import { utf8 } from "./utf8.js";

/** The namespace of app account tokens: itself `uuid5(NAMESPACE_URL, "https://xizor.dev/app-account-token")`. */
export const APP_ACCOUNT_TOKEN_NAMESPACE = "00865d56-5f6a-5954-85e7-b7a50ba01f06";

const NAMESPACE_BYTES = APP_ACCOUNT_TOKEN_NAMESPACE.replace(/-/g, "")
  .match(/../g)!
  .map((pair) => parseInt(pair, 16));

/**
 * The `appAccountToken` to attach to an App Store purchase made for `subscriberId` (react-native-iap's
 * `appAccountToken`, StoreKit's `.appAccountToken(…)`): App Store Server Notifications carry it back, and
 * the server maps it to the subscriber to credit the purchase to the paywall they saw. A name-based
 * UUID, version 5 (RFC 9562 §5.5), in lowercase: SHA-1 of the namespace and the id's UTF-8 bytes as
 * given (not normalised), so it equals XizorKit's and Python's `uuid.uuid5`.
 */
export function appAccountToken(subscriberId: string): string {
  const digest = sha1([...NAMESPACE_BYTES, ...utf8(subscriberId)]);
  digest[6] = (digest[6] & 0x0f) | 0x50; // version 5
  digest[8] = (digest[8] & 0x3f) | 0x80; // the RFC's variant
  const hex = digest
    .slice(0, 16)
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** SHA-1 (FIPS 180-4) of bytes, for name-based UUIDs only: not for security. In JavaScript because React
 * Native has no synchronous digest (`crypto.subtle` is absent or asynchronous). */
export function sha1(message: readonly number[]): number[] {
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  // The message, a 1 bit, zeros to 56 bytes modulo 64, and the length in bits as 64 bits, big-endian.
  const padded = message.slice();
  padded.push(0x80);
  while (padded.length % 64 !== 56) padded.push(0);
  const bits = message.length * 8; // exact below 2⁵³
  const high = Math.floor(bits / 0x100000000);
  padded.push(high >>> 24, (high >>> 16) & 255, (high >>> 8) & 255, high & 255);
  padded.push(bits >>> 24, (bits >>> 16) & 255, (bits >>> 8) & 255, bits & 255);
  const w = new Array<number>(80);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t += 1) {
      const i = block + t * 4;
      w[t] = (padded[i] << 24) | (padded[i + 1] << 16) | (padded[i + 2] << 8) | padded[i + 3];
    }
    for (let t = 16; t < 80; t += 1) w[t] = rotate(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    let [a, b, c, d, e] = h;
    for (let t = 0; t < 80; t += 1) {
      const f =
        t < 20 ? (b & c) | (~b & d) : t < 40 ? b ^ c ^ d : t < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
      const k = t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc : 0xca62c1d6;
      const temp = (rotate(a, 5) + f + e + k + w[t]) | 0;
      e = d;
      d = c;
      c = rotate(b, 30);
      b = a;
      a = temp;
    }
    h[0] = (h[0] + a) | 0;
    h[1] = (h[1] + b) | 0;
    h[2] = (h[2] + c) | 0;
    h[3] = (h[3] + d) | 0;
    h[4] = (h[4] + e) | 0;
  }
  return h.flatMap((word) => [(word >>> 24) & 255, (word >>> 16) & 255, (word >>> 8) & 255, word & 255]);
}

function rotate(value: number, count: number): number {
  return (value << count) | (value >>> (32 - count));
}

