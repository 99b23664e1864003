// A JSON reader that remembers where each value is in the text, by the server's JSON paths
// ($.root.children[3].title, $["a key"]), so an error's path can select its place in the editor.
// It reads what JSON.parse reads; on malformed text it throws an Error with `offset`.

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function childPath(path, key) {
  if (typeof key === "number") return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** {value, spans: Map(path → {start, end})} */
export function locate(text) {
  const spans = new Map();
  let i = 0;
  const fail = (message) => { const error = new Error(`${message} at line ${lineOf(text, i)}`); error.offset = i; throw error; };
  const space = () => { while (i < text.length && " \t\n\r".includes(text[i])) i++; };
  const literal = (word, value) => { if (text.startsWith(word, i)) { i += word.length; return value; } return fail(`expected ${word}`); };
  function string() {
    const start = i++;
    while (i < text.length && text[i] !== '"') { if (text[i] === "\\") i++; i++; }
    if (i >= text.length) fail("unterminated string");
    i++;
    try { return JSON.parse(text.slice(start, i)); } catch { return fail("bad string escape"); }
  }
  function value(path) {
    space();
    const start = i;
    let result;
    const c = text[i];
    if (c === "{") {
      i++; result = {}; space();
      if (text[i] === "}") i++;
      else for (;;) {
        space();
        if (text[i] !== '"') fail("expected a key");
        const key = string(); space();
        if (text[i++] !== ":") { i--; fail("expected ':'"); }
        result[key] = value(childPath(path, key)); space();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "}") { i++; break; }
        fail("expected ',' or '}'");
      }
    } else if (c === "[") {
      i++; result = []; space();
      if (text[i] === "]") i++;
      else for (let n = 0; ; n++) {
        result.push(value(childPath(path, n))); space();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "]") { i++; break; }
        fail("expected ',' or ']'");
      }
    } else if (c === '"') result = string();
    else if (c === "t") result = literal("true", true);
    else if (c === "f") result = literal("false", false);
    else if (c === "n") result = literal("null", null);
    else {
      const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
      if (!match) fail("unexpected character");
      i += match[0].length;
      result = Number(match[0]);
    }
    spans.set(path, { start, end: i });
    return result;
  }
  const result = value("$");
  space();
  if (i < text.length) fail("unexpected text after the document");
  return { value: result, spans };
}

/** The span of `path`, or of its nearest ancestor that exists (a missing member's object). */
export function spanOf(spans, path) {
  let p = path;
  while (p) {
    if (spans.has(p)) return spans.get(p);
    const cut = Math.max(p.lastIndexOf("."), p.lastIndexOf("["));
    if (cut <= 0) break;
    p = p.slice(0, cut);
  }
  return spans.get("$");
}

function lineOf(text, offset) {
  return text.slice(0, offset).split("\n").length;
}
