#!/usr/bin/env python3
"""Writes the seed corpora of Tests/fuzz/corpus from the existing test vectors (docs/fuzzing.md).

Run from the repository root after the test vectors change: python3 Tests/fuzz/make_seeds.py
Seeds are named by the SHA-1 of their content (as libFuzzer names what it adds), so rerunning only
adds; a seed whose source vector was removed stays until deleted by hand.

- http-parser: every string literal of the HTTP parser and observer tests that starts like a request
  (a method, or the empty lines some vectors send first), with Swift escapes decoded.
- json, document, render: the paywall templates and the document at every limit (`xizor templates`,
  `xizor-render-bench`'s example is the same document), and the text vector files of Tests/Fixtures.
- condition: the condition test cases of Tests/XizorAPITests/ConditionTests.swift, written as JSON.
"""
import hashlib, json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "Tests", "fuzz", "corpus")
XIZOR = os.environ.get("XIZOR_BIN", os.path.join(ROOT, ".build", "debug", "xizor"))


def save(target, data):
    if isinstance(data, str):
        data = data.encode()
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def swift_string(body):
    """Decodes the escapes of a Swift string literal's body."""
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c); i += 1; continue
        n = body[i + 1]
        if n == "u":
            end = body.index("}", i)
            out.append(chr(int(body[i + 3:end], 16))); i = end + 1; continue
        out.append({"r": "\r", "n": "\n", "t": "\t", "0": "\0", '"': '"', "\\": "\\", "'": "'"}.get(n, n)); i += 2
    return "".join(out)


LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
REQUEST = re.compile(r"^(\r\n|\n|[A-Z]+ )")


def http_seeds():
    folder = os.path.join(ROOT, "Tests", "HTTPTests")
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("Parser") or name.startswith("RequestObserver")):
            continue
        for line in open(os.path.join(folder, name), encoding="utf-8"):
            for body in LITERAL.findall(line):
                if "\\(" in body:  # interpolation: not a literal vector
                    continue
                text = swift_string(body)
                if REQUEST.match(text) and ("\r\n" in text or "\n" in text):
                    save("http-parser", text.encode("utf-8"))


def document_seeds():
    listing = subprocess.run([XIZOR, "templates"], capture_output=True, text=True, check=True).stdout
    names = [line.split()[0] for line in listing.splitlines() if line.strip() and not line.startswith(" ")]
    for name in names:
        shown = subprocess.run([XIZOR, "templates", name], capture_output=True)
        if shown.returncode == 0 and shown.stdout.lstrip().startswith(b"{"):
            for target in ("json", "document", "render"):
                save(target, shown.stdout)
    fixtures = os.path.join(ROOT, "Tests", "Fixtures")
    for name in sorted(os.listdir(fixtures)):
        if name.endswith(".json"):
            save("json", open(os.path.join(fixtures, name), "rb").read())


CONDITIONS = [
    ({"key": "flag", "op": "eq", "value": True}, {"flag": True}),
    ({"key": "tier", "op": "ne", "value": "free"}, {"tier": "pro"}),
    ({"not": {"key": "tier", "op": "eq", "value": "free"}}, {}),
    ({"key": "n", "op": "gte", "value": 5}, {"n": 5}),
    ({"key": "n", "op": "gt", "value": 5}, {"n": 5}),
    ({"key": "n", "op": "lt", "value": 5.5}, {"n": 5}),
    ({"key": "n", "op": "lt", "value": 5}, {"n": "4"}),
    ({"key": "v", "op": "lte", "value": "b"}, {"v": "a"}),
    ({"key": "c", "op": "in", "value": ["DE", "AT", "CH"]}, {"c": "AT"}),
    ({"key": "c", "op": "not_in", "value": ["DE", "AT"]}, {"c": "FR"}),
    ({"key": "c", "op": "exists"}, {"c": False}),
    ({"all": [{"key": "a", "op": "exists"}, {"any": [{"key": "b", "op": "eq", "value": 1}, {"key": "c", "op": "exists"}]}]}, {"a": 1, "c": "x"}),
    ({"all": [{"key": "x", "op": "near", "value": 1}, {"key": "", "op": "eq"}, {"any": []}, 7]}, {}),
    ({"key": "x", "op": "in", "value": [1, {"no": 1}], "extra": True}, {"x": 1}),
    ({"all": [], "not": {"key": "x", "op": "exists"}}, {}),
    ({"any": [{"key": "x", "op": "in", "value": [1, "a", True]}, {"not": {"key": "y", "op": "exists"}}]}, {"x": "a", "y": 2}),
]


def condition_seeds():
    for condition, context in CONDITIONS:
        save("condition", json.dumps({"condition": condition, "context": context}))


if __name__ == "__main__":
    if not os.path.exists(XIZOR):
        sys.exit(f"build first ({XIZOR} is missing), or set XIZOR_BIN")
    http_seeds()
    document_seeds()
    condition_seeds()
    for target in sorted(os.listdir(CORPUS)):
        print(target, len(os.listdir(os.path.join(CORPUS, target))))
