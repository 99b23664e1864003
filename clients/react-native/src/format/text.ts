// The text functions of the paywall format: choosing a LocalizedText's locale, the `{{path}}`
// template language and markdown-lite. Ported from the page runtime
// (Sources/PaywallRenderer/Runtime/runtime.js), itself a port of Sources/PaywallFormat/Text; all
// three are pinned by the shared vectors in Tests/Fixtures (test/format.test.mjs runs every case),
// so a React Native renderer shows exactly the text the server's page and the Swift SDK show.
// The rules are documented in docs/schema.md (Concepts).

/** A locale → text map as a document holds it (`LocalizedText`), or anything read from JSON:
 * entries that are not strings are ignored, like the page and the Swift reader ignore them. */
export type LocalizedTextInput = { readonly [locale: string]: unknown };

/** What `resolveText` does with a variable that has no value: `keep` shows the placeholder as
 * written (editor, preview), `empty` removes it (production: end users never see `{{…}}`). */
export type MissingVariablePolicy = "keep" | "empty";

/** The values `{{path}}` placeholders read: a JSON object walked segment by segment. */
export type TextContext = { readonly [key: string]: unknown };

/** A run of text with the emphasis markdown-lite gives it. */
export interface StyledSpan {
  text: string;
  bold: boolean;
  italic: boolean;
}

// Own properties only: a context or a LocalizedText from JSON must not find `toString` or
// `__proto__` through the prototype chain.
const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

// ---- pickLocalizedText ----

/** Compares by Unicode code points (Swift's `unicodeScalars` order), not UTF-16 units as `<` does,
 * so the "first key" is the same key on every platform even past the BMP. */
function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = (x[i].codePointAt(0) ?? 0) - (y[i].codePointAt(0) ?? 0);
    if (d) return d;
  }
  return x.length - y.length;
}

/** Locale comparison ignores case and treats `_` as `-` (`de_at` finds `de-AT`). */
const normalizeLocale = (locale: string): string => locale.toLowerCase().replace(/_/g, "-");

/** `de` is a subtag prefix of `de-at`; `d` is not a prefix of `de`. */
const isSubtagPrefix = (short: string, long: string): boolean =>
  short.length < long.length && long.startsWith(short + "-");

/**
 * Chooses the text for `locale` from a LocalizedText, in the format's order:
 * 1. the exact locale;
 * 2. the same locale ignoring case and `_`/`-`;
 * 3. the longest key that is a subtag prefix of the locale (`de` for `de-AT`), else the first key
 *    (code-point order) the locale is a subtag prefix of (`de-AT` for `de`);
 * 4. `defaultLocale`;
 * 5. the first key in code-point order (the canonical document's first entry).
 * Null only for a map without string entries (or no map at all).
 */
export function pickLocalizedText(
  text: LocalizedTextInput | null | undefined,
  locale: string,
  defaultLocale: string,
): string | null {
  if (!text || typeof text !== "object") return null;
  const map: { [locale: string]: string } = {};
  const keys: string[] = [];
  for (const key of Object.keys(text)) {
    const value = text[key];
    if (typeof value === "string") {
      map[key] = value;
      keys.push(key);
    }
  }
  if (hasOwn(map, locale)) return map[locale];
  keys.sort(compareCodePoints);
  const wanted = normalizeLocale(locale || "");
  const exact = keys.find((k) => normalizeLocale(k) === wanted);
  if (exact !== undefined) return map[exact];
  if (wanted) {
    let best: string | null = null;
    for (const key of keys) {
      if (isSubtagPrefix(normalizeLocale(key), wanted) && (best === null || key.length > best.length)) best = key;
    }
    if (best !== null) return map[best];
    const longer = keys.find((k) => isSubtagPrefix(wanted, normalizeLocale(k)));
    if (longer !== undefined) return map[longer];
  }
  if (hasOwn(map, defaultLocale)) return map[defaultLocale];
  return keys.length ? map[keys[0]] : null;
}

// ---- {{path}} templates ----

/** A piece of a template: literal text, a variable, or a malformed placeholder kept as text. */
type TemplatePart =
  | { kind: "literal"; text: string }
  | { kind: "variable"; path: string; raw: string }
  | { kind: "malformed"; raw: string };

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** `segment(.segment)*`, segments of `[A-Za-z0-9_-]+`. */
const isPath = (path: string): boolean => path !== "" && path.split(".").every((s) => SEGMENT.test(s));

/**
 * Splits a template: a placeholder starts at `{{` and ends at the next `}}`, spaces and tabs around
 * the path are allowed. A `{{` never closed, or an inside that is not a path (`{{}}`, `{{a b}}`,
 * `{{a..b}}`, `{{{x}}}`), is malformed: the validator rejects it, renderers show it as written.
 */
function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = "";
  let i = 0;
  while (i < template.length) {
    if (template[i] === "{" && template[i + 1] === "{") {
      const close = template.indexOf("}}", i + 2);
      if (literal) {
        parts.push({ kind: "literal", text: literal });
        literal = "";
      }
      if (close < 0) {
        parts.push({ kind: "malformed", raw: template.slice(i) });
        return parts;
      }
      const raw = template.slice(i, close + 2);
      const inner = template.slice(i + 2, close).replace(/^[ \t]+|[ \t]+$/g, "");
      parts.push(isPath(inner) ? { kind: "variable", path: inner, raw } : { kind: "malformed", raw });
      i = close + 2;
    } else {
      literal += template[i];
      i += 1;
    }
  }
  if (literal) parts.push({ kind: "literal", text: literal });
  return parts;
}

/**
 * The text of `path` in `context`: strings as they are, finite numbers in JavaScript's shortest
 * form (integers without `.0`, like the server's canonical JSON for ordinary values), booleans as
 * `true`/`false`. Null, objects, arrays, absent paths and paths through non-objects are missing.
 */
function lookupVariable(path: string, context: unknown): string | null {
  let current: unknown = context;
  for (const segment of path.split(".")) {
    if (current === null || typeof current !== "object" || Array.isArray(current) || !hasOwn(current, segment)) {
      return null;
    }
    current = (current as { [key: string]: unknown })[segment];
  }
  if (typeof current === "string") return current;
  if (typeof current === "number" && Number.isFinite(current)) return String(current);
  if (typeof current === "boolean") return current ? "true" : "false";
  return null;
}

/**
 * Replaces each `{{path}}` with its value in `context` (`product.price` →
 * `context.product.price`). A missing value keeps the placeholder as written (`keep`, the default,
 * as in Swift) or removes it (`empty`). Malformed placeholders stay literal text; inserted values
 * are not re-interpreted, and no escaping or markdown processing happens here.
 */
export function resolveText(
  template: string,
  context: TextContext | null | undefined,
  onMissing: MissingVariablePolicy = "keep",
): string {
  if (template.indexOf("{{") < 0) return template;
  let out = "";
  for (const part of parseTemplate(template)) {
    if (part.kind === "literal") out += part.text;
    else if (part.kind === "malformed") out += part.raw;
    else {
      const value = lookupVariable(part.path, context);
      if (value !== null) out += value;
      else if (onMissing !== "empty") out += part.raw;
    }
  }
  return out;
}

/** The variable paths of a template, each once, in order of first appearance (malformed
 * placeholders are not variables): what a renderer must supply, what a translation must keep. */
export function extractVariables(template: string): string[] {
  if (template.indexOf("{{") < 0) return [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of parseTemplate(template)) {
    if (part.kind === "variable" && !seen.has(part.path)) {
      seen.add(part.path);
      out.push(part.path);
    }
  }
  return out;
}

// ---- markdown-lite ----

const BOLD = 2;
const ITALIC = 1;

/**
 * Parses markdown-lite: `**bold**`, `*em*`, `\*` for a literal asterisk, deliberately nothing more.
 * 1. Left to right: `\*` is a literal `*`; `**` is a bold marker; a single `*` an italic marker;
 *    everything else (a `\` not before `*` too) is text.
 * 2. Bold markers pair up in order (1st with 2nd, …), so do italic ones; an unpaired last marker
 *    is literal text (`**` or `*`).
 * 3. Each paired marker toggles its style. Adjacent runs with equal styles merge; empty runs are
 *    dropped (so `""` gives `[]`).
 * Apply it before `resolveText` on each span, as the page does, so a `*` inside a value (a price,
 * a user's name) never turns into emphasis.
 */
export function parseMarkdownLite(text: string): StyledSpan[] {
  const tokens: Array<string | typeof BOLD | typeof ITALIC> = [];
  let buffer = "";
  let i = 0;
  const flush = () => {
    if (buffer) {
      tokens.push(buffer);
      buffer = "";
    }
  };
  while (i < text.length) {
    const c = text[i];
    if (c === "\\" && text[i + 1] === "*") {
      buffer += "*";
      i += 2;
    } else if (c === "*") {
      flush();
      if (text[i + 1] === "*") {
        tokens.push(BOLD);
        i += 2;
      } else {
        tokens.push(ITALIC);
        i += 1;
      }
    } else {
      buffer += c;
      i += 1;
    }
  }
  flush();
  const boldCount = tokens.filter((t) => t === BOLD).length;
  const italicCount = tokens.filter((t) => t === ITALIC).length;
  const boldPaired = boldCount - (boldCount % 2);
  const italicPaired = italicCount - (italicCount % 2);
  const spans: StyledSpan[] = [];
  let bold = false;
  let italic = false;
  let boldSeen = 0;
  let italicSeen = 0;
  const emit = (s: string) => {
    if (!s) return;
    const last = spans[spans.length - 1];
    if (last && last.bold === bold && last.italic === italic) last.text += s;
    else spans.push({ text: s, bold, italic });
  };
  for (const token of tokens) {
    if (token === BOLD) {
      boldSeen += 1;
      if (boldSeen <= boldPaired) bold = !bold;
      else emit("**");
    } else if (token === ITALIC) {
      italicSeen += 1;
      if (italicSeen <= italicPaired) italic = !italic;
      else emit("*");
    } else {
      emit(token);
    }
  }
  return spans;
}
