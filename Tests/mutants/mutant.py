"""One mutant file, `Tests/mutants/NAME.mutant`: a header, then the change, anchored on the code it
changes rather than on line numbers (docs/testing.md, "The mutation check").

    Breaks: what a user would suffer if this shipped
    Swift: a `swift test --filter` regular expression      (optional)
    Live: a pytest node id under Tests/e2e                  (optional, repeatable)
    Client: a `swift test --filter` expression for clients/swift (optional)
    Driver: postgres                                        (optional)

    *** Sources/XizorDomain/Apps/KeyService.swift
    @@
     context line (leading space), kept as is
    -a line the mutant takes out
    +a line the mutant puts in

`*** path` names a file; each `@@` starts a change in it. A change's anchor is its old side (the
context and `-` lines, in order): it must occur exactly once in the file as it is when the change
is made (after the file's earlier changes), and is replaced by its new side (context and `+` lines).
Code that moves, or changes elsewhere in the file, leaves a mutant working; only a change to the
lines it anchors on makes it fail to find its anchor, and `make test` says so.

To write one, plant the bug in the working tree, then

    python3 Tests/mutants/mutant.py NAME 'Breaks: …' 'Swift: …' ['Live: …' …]

saves `git diff` (all but the tests) as Tests/mutants/NAME.mutant, each change anchored on the fewest lines that are
unique in the file, and restores nothing: `git checkout` the source yourself.
"""
import dataclasses
import pathlib
import subprocess
import sys

FIELDS = ("Breaks", "Swift", "Live", "Client", "Driver")


class MutantError(Exception):
    pass


@dataclasses.dataclass
class Change:
    old: str
    new: str


@dataclasses.dataclass
class FileChanges:
    path: str
    changes: list


@dataclasses.dataclass
class MutantFile:
    header: dict
    files: list

    @property
    def paths(self):
        return list(dict.fromkeys(f.path for f in self.files))

    def planted(self, root):
        """{path: mutated text} for the tree at `root`; raises MutantError when an anchor is missing
        or not unique."""
        def read(path):
            source = pathlib.Path(root) / path
            if not source.is_file():
                raise MutantError(f"{path}: no such file")
            return source.read_text()
        return self.planted_from(read)

    def planted_from(self, read):
        out = {}
        for f in self.files:
            text = out[f.path] if f.path in out else read(f.path)
            # Anchors match whole lines: the search runs over the text with a newline before it
            # (and after it, when the file's last line has none).
            padded = "\n" + text + ("" if text.endswith("\n") else "\n")
            for n, change in enumerate(f.changes, 1):
                found = padded.count("\n" + change.old)
                if found != 1:
                    first = change.old.strip().splitlines()[0].strip()
                    raise MutantError(f"{f.path}, change {n}: its anchor occurs {found} times (it begins: {first})")
                padded = padded.replace("\n" + change.old, "\n" + change.new, 1)
            text = padded[1:] if text.endswith("\n") else padded[1:-1]
            out[f.path] = text
        return out


def parse(text, name="mutant"):
    head, sep, body = text.partition("\n*** ")
    if not sep:
        raise MutantError(f"{name}: no '*** path' line")
    header = {field: [] for field in FIELDS}
    for line in head.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in header and value.strip():
            header[key.strip()].append(value.strip())
    files = []
    for section in ("*** " + body).split("\n*** "):
        lines = section.removeprefix("*** ").split("\n")
        path, lines = lines[0].strip(), lines[1:]
        if not path:
            raise MutantError(f"{name}: a '***' line without a path")
        changes, old, new, spacing = [], None, None, 0
        for line in lines + ["@@"]:
            if line.startswith("@@"):
                # Blank lines closing a change (before the next '@@' or '***') are spacing, not context.
                while old and old[-1] == "\n" and new and new[-1] == "\n" and spacing:
                    old.pop(); new.pop(); spacing -= 1
                if old is not None:
                    if old == new:
                        raise MutantError(f"{name}: a change in {path} changes nothing")
                    if not "".join(old).strip():
                        raise MutantError(f"{name}: a change in {path} has no anchor")
                    changes.append(Change("".join(old), "".join(new)))
                old, new = [], []
                continue
            if old is None:
                if line.strip():
                    raise MutantError(f"{name}: '{line}' in {path} comes before its '@@'")
                continue
            tag, rest = line[:1], line[1:]
            if tag == "-":
                old.append(rest + "\n")
            elif tag == "+":
                new.append(rest + "\n")
            elif tag == " " or line == "":
                old.append(rest + "\n")
                new.append(rest + "\n")
            else:
                raise MutantError(f"{name}: '{line}' in {path} is neither context, '-' nor '+'")
            spacing = spacing + 1 if line == "" else 0
        if not changes:
            raise MutantError(f"{name}: {path} has no change")
        files.append(FileChanges(path, changes))
    return MutantFile(header, files)


def render(header_lines, files):
    """The text of a mutant file: `files` is [(path, [(old, new), …])], old and new whole lines."""
    out = "\n".join(header_lines) + "\n"
    for path, changes in files:
        out += f"\n*** {path}\n"
        for old, new in changes:
            out += "@@\n" + _hunk(old, new)
    return out


def _hunk(old, new):
    a, b = old.splitlines(), new.splitlines()
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    lines = [" " + line for line in a[:start]]
    lines += ["-" + line for line in a[start:len(a) - end]]
    lines += ["+" + line for line in b[start:len(b) - end]]
    lines += [" " + line for line in a[len(a) - end:]]
    return "".join(line + "\n" for line in lines)


def from_diff(diff_text, original):
    """[(path, [(old, new), …])] from a unified diff (`git diff`), each hunk cut to the fewest
    context lines that make its old side unique in the file; `original(path)` is the file's text
    before the diff."""
    files, hunk = [], None
    for line in diff_text.split("\n"):
        if line.startswith("diff --git"):
            hunk = None
        elif hunk is None and line.startswith("+++ "):
            if not line.startswith("+++ b/"):
                raise MutantError(f"a mutant changes files, it does not delete them ({line})")
            files.append((line[len("+++ b/"):], []))
        elif line.startswith("@@ -"):
            hunk = []
            files[-1][1].append(hunk)
        elif hunk is not None and not line.startswith("\\"):
            hunk.append((line[:1] or " ", line[1:]))
    out = []
    for path, hunks in files:
        text, changes = original(path), []
        for tagged in hunks:
            while tagged and tagged[-1] == (" ", ""):
                tagged.pop()
            old, new = _fewest(text, tagged, path)
            text = ("\n" + text).replace("\n" + old, "\n" + new, 1)[1:]
            changes.append((old, new))
        out.append((path, changes))
    return out


def _fewest(text, tagged, path):
    changed = [i for i, (tag, _) in enumerate(tagged) if tag in "+-"]
    padded = "\n" + text + ("" if text.endswith("\n") else "\n")
    for k in range(len(tagged) + 1):
        part = tagged[max(0, changed[0] - k):changed[-1] + 1 + k]
        old = "".join(line + "\n" for tag, line in part if tag in " -")
        if old.strip() and padded.count("\n" + old) == 1:
            return old, "".join(line + "\n" for tag, line in part if tag in " +")
    raise MutantError(f"{path}: no context makes the change unique")


if __name__ == "__main__":
    if len(sys.argv) < 3 or not sys.argv[2].startswith("Breaks:"):
        raise SystemExit("usage: mutant.py NAME 'Breaks: …' 'Swift: …' ['Live: …' …]  (saves `git diff` as Tests/mutants/NAME.mutant)")
    root = pathlib.Path(__file__).resolve().parents[2]
    diff = subprocess.run(["git", "diff", "--no-color", "--", ".", ":!Tests", ":!clients/swift/Tests"], cwd=root, check=True, capture_output=True, text=True).stdout
    if not diff:
        raise SystemExit("git diff is empty: plant the bug in the working tree first")
    original = lambda path: subprocess.run(["git", "show", f":{path}"], cwd=root, check=True, capture_output=True, text=True).stdout
    text = render(sys.argv[2:], from_diff(diff, original))
    target = root / "Tests" / "mutants" / f"{sys.argv[1]}.mutant"
    planted = parse(text, sys.argv[1]).planted_from(original)
    for path, mutated in planted.items():
        if mutated != (root / path).read_text():
            raise SystemExit(f"{path}: the anchored change does not reproduce the working tree (report this)")
    target.write_text(text)
    print(f"wrote {target.relative_to(root)}; now `git checkout` the source")
