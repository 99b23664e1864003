/** UTF-8 as Swift's `String.utf8` and `TextEncoder` make it (React Native has no `TextEncoder` in every
 * runtime): a lone surrogate, which a Swift string cannot hold, becomes U+FFFD. The one encoder of the
 * package: cache file names, the app account token, experiment buckets and signed messages all hash
 * the bytes the server would. */
export function utf8(text: string): number[] {
  const bytes: number[] = [];
  for (const character of text) {
    let code = character.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 63));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    else bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
  }
  return bytes;
}
