#!/usr/bin/env python3
"""README's "What is in the tree" table, generated from Package.swift (`make embed` writes it;
Tests/e2e/test_readme_tree.py fails until it matches). Each target's row is the `/// README:` comment
right above it in Package.swift (continued by further `///` lines); a target without one is an error,
so a new target cannot be added without saying what it is. The folders that are not targets follow."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
BEGIN = "<!-- tree: generated from Package.swift by `make embed` (Tests/readme_tree.py); do not edit by hand -->"
END = "<!-- end of tree -->"
FOLDERS = [
    ("Migrations/", "numbered SQL migrations per database (`Migrations/`, `Migrations/postgres/`), applied once each, embedded in the binary by `make embed`"),
    ("Config/xizor.json", "a copy of every configuration default (the binary has them compiled in; tested equal)"),
    ("clients/swift", "XizorKit, the Swift client library: its own package (the `XizorKit` library, a command-line example, a benchmark, tests against live servers)"),
    ("clients/react-native", "`@xizor/react-native`, the React Native and Expo client (TypeScript, compiled by Debian's `tsc`): its own npm package with the format's generated types, tested by `node --test` against live servers"),
    ("Tests/", "Swift Testing suites per layer, live-server tests in Python (`Tests/e2e`), shared vectors (`Tests/Fixtures`), fuzz corpora (`Tests/fuzz`), the standing mutants (`Tests/mutants`)"),
    ("bench/", "`make bench`: the benchmarks and their scripts"),
    ("docker/", "the container image and a compose deployment"),
    ("docs/", "API, schema and operations references, benchmarks"),
]


def rows(package_text):
    lines = package_text.split("\n")
    out = []
    for index, line in enumerate(lines):
        m = re.search(r"\.(target|executableTarget|systemLibrary)\(", line)
        if not m:
            continue
        window = " ".join(lines[index:index + 3])
        name = re.search(r'name: "([^"]+)"', window)
        path = re.search(r'path: "([^"]+)"', " ".join(lines[index:index + 8]))
        if not name or not path:
            raise SystemExit(f"Package.swift:{index + 1}: a target without a name and a path")
        doc, k = [], index - 1
        while k >= 0 and lines[k].strip().startswith("///"):
            doc.insert(0, lines[k].strip()[3:].strip())
            k -= 1
        text = " ".join(doc)
        if not text.startswith("README:"):
            raise SystemExit(f"Package.swift:{index + 1}: the target {name.group(1)} has no `/// README:` line above it")
        out.append((path.group(1), text[len("README:"):].strip()))
    return out


def table():
    package = (ROOT / "Package.swift").read_text()
    body = [f"| `{path}` | {text} |" for path, text in rows(package)]
    body += [f"| `{path}` | {text} |" for path, text in FOLDERS]
    return "\n".join([BEGIN, "| path | what it is |", "| --- | --- |", *body, END])


def write():
    readme = ROOT / "README.md"
    text = readme.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    readme.write_text(text[:start] + table() + text[end:])


if __name__ == "__main__":
    write() if sys.argv[1:] == ["--write"] else print(table())
