"""Every shell block in README.md and docs/*.md is run here, or listed in UNTESTABLE with the reason
(issue 20: "every command in docs/ is run by a test, or listed as untestable here with the reason").

- docs/api.md runs whole, block after block in document order, as ONE bash session against a live
  server: the conventions block's XIZOR and ADMIN become the server's, and the placeholders a reader
  replaces by hand (`sk_…`, `pw_HlgGYgjo6EYnm1zU`, `cursor=…`, …) are replaced by values captured from
  earlier answers (API_SUBSTITUTIONS, API_AFTER). Every command must exit 0 and every HTTP answer be
  2xx, or the status its `# NNN` comment shows; `# Header: value` and `# {json}` lines under a command,
  and a ```json block right after a block, are that answer: every member shown must be there, with the
  value shown unless it is a placeholder (`…`, an id, a timestamp).
- The other runnable blocks go through the same runner (`run_commands`).
- A listed block runs its nearest equivalent where one exists (the test named in UNTESTABLE).

`test_every_shell_block_is_run_or_listed` fails for a block that is neither run nor listed, and for an
entry that names no block, so a new block cannot slip through.
"""
import json
import os
import re
import shlex
import struct
import subprocess
import sys
import time
import zlib

import pytest
import requests

import drivers
from conftest import BIN, ROOT
from xizor_server import ADMIN_TOKEN, App, XizorServer, create_app

SHELL_FENCES = ("sh", "bash", "shell", "console")

# Blocks run here: (file, how the block's first command starts) -> the test that runs it.
RUN_WHOLE_FILE = {"docs/api.md": "test_api_md_runs_in_order_against_a_live_server"}
RUN = {
    ("docs/mcp.md", "curl -s http://127.0.0.1:8080/mcp"): "test_mcp_md_curl_calls_a_tool",
    ("docs/integrations.md", 'curl -s -X POST "$XIZOR/v1/keys"'): "test_integrations_md_blocks_run",
    ("docs/integrations.md", 'curl -s "$XIZOR/v1/audit-log'): "test_integrations_md_blocks_run",
}

# Blocks that cannot run here: (file, how the block's first command starts) -> (why, the test that
# runs the nearest equivalent or None).
UNTESTABLE = {
    ("README.md", "make run"): (
        "`make run` builds a release binary (minutes) and serves on port 8080 until stopped; `make test` runs "
        "every test, this one included", "test_readme_make_run_equivalent"),
    ("docs/operations.md", "make docker"): (
        "no Docker engine on this machine; Tests/e2e/test_container.py builds the binary with the Dockerfile's "
        "command and runs the image's layout without one", None),
    ("docs/operations.md", "docker exec xizor"): (
        "runs inside the container (no Docker engine here)", "test_operations_md_backup_script_equivalent"),
    ("docs/operations.md", "export XIZOR_STORAGE_DRIVER=postgres"): (
        "names the host db.internal, and `xizor serve` runs until stopped", "test_operations_md_postgres_equivalent"),
    ("docs/mcp.md", "claude mcp add"): (
        "the claude CLI is not installed here (it only writes Claude Code's config); the endpoint and header "
        "it configures are what docs/mcp.md's curl block calls", None),
    ("docs/client-swift.md", 'curl -sf -H "Authorization: Bearer $XIZOR_PUBLIC_KEY"'): (
        "fetches from https://api.xizor.dev, a production host", "test_client_swift_md_fallback_bundle_equivalent"),
    ("docs/client-swift.md", "cd clients/swift"): (
        "`swift run` builds the client package (minutes; `make test-client` builds it)",
        "test_client_swift_md_example_equivalent"),
    ("docs/client-react-native.md", 'curl -sf -H "Authorization: Bearer $XIZOR_PUBLIC_KEY"'): (
        "fetches from https://api.xizor.dev, a production host", "test_client_react_native_md_fallback_bundle_equivalent"),
    ("docs/client-react-native.md", "cd clients/react-native"): (
        "the install is two places (the checkout, then an app beside it) and npm without a registry: "
        "clients/react-native/test/install.test.mjs (make test-react-native) runs it as written in a copy of "
        "the package and a throwaway app", None),
    ("docs/fuzzing.md", "make fuzz"): (
        "builds xizor-fuzz with the sanitizers (about two minutes), then fuzzes for 60 s per target or longer; "
        "`make test` replays every seed and regression (Tests/FuzzTests)", None),
}


# ---------------------------------------------------------------------------------------------------
# The blocks and their commands

class Block:
    def __init__(self, path, line, text, answer, answer_fence):
        self.path, self.line, self.text = path, line, text
        self.answer, self.answer_fence = answer, answer_fence  # the fenced block right after, if any
        self.commands = split_commands(self)
        self.first = self.commands[0].text.splitlines()[0] if self.commands else ""

    def __repr__(self):
        return f"{self.path}:{self.line} ({self.first})"


class Command:
    def __init__(self, block, line, text):
        self.block, self.line, self.text = block, line, text
        self.comments = []  # whole-line comments right under it: the answer it shows

    def trailing_comment(self):
        quote, escaped, previous = None, False, " "
        for i, c in enumerate(self.text):
            if escaped:
                escaped = False
            elif c == "\\" and quote != "'":
                escaped = True
            elif quote:
                quote = None if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c == "#" and previous.isspace():
                return self.text[i + 1:].strip()
            previous = c
        return ""

    def expected_status(self):
        """The status a trailing `# NNN` comment shows (`# 204`, `# 201, "key" shown once`), else None."""
        m = re.match(r"([1-5]\d\d)\b", self.trailing_comment())
        return m.group(1) if m else None

    def __repr__(self):
        return f"{self.block.path}:{self.line}: {self.text}"


def doc_paths():
    return ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))


def blocks():
    found = []
    for path in doc_paths():
        lines = (ROOT / path).read_text().splitlines()
        i = 0
        while i < len(lines):
            fence = re.fullmatch(r"```(\w*)", lines[i].strip())
            if not fence:
                i += 1
                continue
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            if fence.group(1) in SHELL_FENCES:
                k = end + 1
                while k < len(lines) and not lines[k].strip():
                    k += 1
                answer, answer_fence = None, None
                after = re.fullmatch(r"```(\w+)", lines[k].strip()) if k < len(lines) else None
                if after and after.group(1) not in SHELL_FENCES:
                    close = next(j for j in range(k + 1, len(lines)) if lines[j].strip() == "```")
                    answer, answer_fence = "\n".join(lines[k + 1:close]), after.group(1)
                found.append(Block(path, i + 1, "\n".join(lines[i + 1:end]), answer, answer_fence))
            i = end + 1
    return found


def split_commands(block):
    """The block's commands, a command being the lines up to where the shell would run it (a trailing
    backslash or an open quote continues it); whole-line comments are attached to the command above."""
    commands, pending = [], []
    for n, line in enumerate(block.text.splitlines()):
        if not pending:
            if not line.strip():
                continue
            if line.lstrip().startswith("#"):
                if commands:
                    commands[-1].comments.append(line.lstrip()[1:].strip())
                continue
            start = block.line + 1 + n
        pending.append(line)
        text = "\n".join(pending)
        if text.endswith("\\"):
            continue
        try:
            shlex.split(text, comments=True)
        except ValueError:  # an open quote: the command goes on
            continue
        commands.append(Command(block, start, text))
        pending = []
    assert not pending, f"{block}: an unfinished command: {pending}"
    return commands


def the_block(path, prefix):
    matches = [b for b in blocks() if b.path == path and b.first.startswith(prefix)]
    assert len(matches) == 1, f"{path}: {len(matches)} shell blocks start with {prefix!r}"
    return matches[0]


# ---------------------------------------------------------------------------------------------------
# Example answers

ID = re.compile(r"^(app|pw|key|sk|pk|xa|exp)_[A-Za-z0-9]{8,}$")
PLACEHOLDER = "…"


def loose_json(text):
    """An example answer as JSON, its elisions (`…`, `{...}`, `[...]`) read as the placeholder string."""
    text = re.sub(r"\{\.\.\.\}|\[\.\.\.\]", lambda _: json.dumps(PLACEHOLDER), text)
    out, in_string, escaped, i = [], False, False, 0
    while i < len(text):
        c = text[i]
        if in_string:
            in_string = escaped or c != '"'
            escaped = not escaped and c == "\\"
        elif c == '"':
            in_string = True
        elif c == PLACEHOLDER or text.startswith("...", i):
            out.append(json.dumps(PLACEHOLDER))
            i += 1 if c == PLACEHOLDER else 3
            continue
        out.append(c)
        i += 1
    return json.loads("".join(out))


def disagreements(example, actual, where="$", skip=()):
    """Where `actual` differs from the example: every member shown must be there, with the value shown,
    except placeholders (text with `…`, ids, timestamps), which need only the same type."""
    if example == PLACEHOLDER:  # elided: anything
        return []
    if isinstance(example, str):
        if PLACEHOLDER in example or ID.match(example):
            return [] if isinstance(actual, str) else [f"{where}: {actual!r} is not a string"]
        return [] if example == actual else [f"{where}: {actual!r}, the docs show {example!r}"]
    if isinstance(example, bool) or example is None:
        return [] if example is actual else [f"{where}: {actual!r}, the docs show {example!r}"]
    if isinstance(example, (int, float)):
        if example >= 10 ** 12:  # a timestamp
            return [] if isinstance(actual, int) and not isinstance(actual, bool) else [f"{where}: {actual!r} is not a timestamp"]
        return [] if example == actual else [f"{where}: {actual!r}, the docs show {example!r}"]
    if isinstance(example, dict):
        if not isinstance(actual, dict):
            return [f"{where}: {actual!r} is not an object"]
        problems = []
        for key, value in example.items():
            if key in skip:
                continue
            if key not in actual:
                problems.append(f"{where}: no member {key!r} (has {sorted(actual)})")
            else:
                problems += disagreements(value, actual[key], f"{where}.{key}")
        return problems
    if isinstance(example, list):
        if not isinstance(actual, list):
            return [f"{where}: {actual!r} is not an array"]
        if PLACEHOLDER in example:  # an elided list: each element shown must be one of the answer's
            return [f"{where}: no element like {e!r}" for e in example
                    if e != PLACEHOLDER and all(disagreements(e, a) for a in actual)]
        if len(example) != len(actual):
            return [f"{where}: {len(actual)} elements, the docs show {len(example)}"]
        return [p for i, (e, a) in enumerate(zip(example, actual)) for p in disagreements(e, a, f"{where}[{i}]")]
    raise AssertionError(f"unexpected example value {example!r}")


def body_of(output):
    """The answer's body, after the header blocks `curl -D -` prints."""
    while output.startswith("HTTP/"):
        output = output.split("\r\n\r\n", 1)[1] if "\r\n\r\n" in output else ""
    return output


def shown_answers(command):
    """(kind, value) for each answer shown in the comment lines under the command: ("header", "ETag: \"r1\"")
    or ("json", parsed example)."""
    shown, pending = [], []
    for line in command.comments:
        if pending or line.startswith("{"):
            pending.append(line)
            try:
                shown.append(("json", loose_json(" ".join(pending))))
                pending = []
            except json.JSONDecodeError:
                pass
        elif re.match(r"^[A-Za-z][A-Za-z0-9-]*: \S", line):
            shown.append(("header", line))
    assert not pending, f"{command}: cannot read the example answer {pending}"
    return shown


# ---------------------------------------------------------------------------------------------------
# The runner: one bash session, each command recorded

PRELUDE = r'''
# Each command's output goes to its own file (what it redirects elsewhere aside).
xizor_begin() { XIZOR_N=$1; XIZOR_EXPECT=$2; : > "$ANSWERS/$1.status"; exec 3>&1 1>"$ANSWERS/$1.out"; }
xizor_end() {
    local rc=$1 s statuses
    exec 1>&3 3>&-
    statuses=$(grep -Eo '^[0-9]{3}$' "$ANSWERS/$XIZOR_N.status" | tr '\n' ' ')
    echo "$XIZOR_N $rc $statuses" >> "$ANSWERS/log"
    [ "$rc" = 0 ] || { echo "command $XIZOR_N exited $rc" >&2; exit 1; }
    for s in $statuses; do
        if [ -n "$XIZOR_EXPECT" ]; then
            [ "$s" = "$XIZOR_EXPECT" ] || { echo "command $XIZOR_N answered $s, not $XIZOR_EXPECT" >&2; exit 1; }
        elif [ "$s" -lt 200 ] || [ "$s" -ge 300 ]; then
            echo "command $XIZOR_N answered $s" >&2; exit 1
        fi
    done
}
# The documented commands call this: curl as written, its status noted.
curl() { command curl "$@" -w '%{stderr}%{http_code}\n' 2>>"$ANSWERS/$XIZOR_N.status"; }
# A member of the current command's answer (its body, after any headers).
xizor_field() {
    "$XIZOR_PY" -c '
import json, sys
text = open(sys.argv[1], encoding="utf-8", newline="").read()
while text.startswith("HTTP/"):
    text = text.split("\r\n\r\n", 1)[1]
value = json.loads(text)[sys.argv[2]]
assert value is not None, sys.argv[2] + " is null"
print(value)' "$ANSWERS/$XIZOR_N.out" "$1"
}
'''


def run_commands(commands, tmp_path, *, workdir, env=None, substitutions=(), after=(), prelude="", epilogue=""):
    """Runs the commands in one bash session in `workdir` (each command's substitutions applied, then the
    shell lines of `after` whose pattern matches it) and returns [(command, rc, statuses, output)].
    Fails naming the first command that exits non-zero or answers an unexpected status."""
    answers = tmp_path / "answers"
    answers.mkdir()
    for literal, _ in substitutions:
        assert any(literal in c.text for c in commands), f"the substitution for {literal!r} matches no command"
    for pattern, _ in after:
        hits = [c for c in commands if re.search(pattern, c.text)]
        assert len(hits) == 1, f"{pattern!r} should match one command, matches {hits}"
    script = [PRELUDE, prelude]
    for n, command in enumerate(commands):
        text = command.text
        for literal, replacement in substitutions:
            text = text.replace(literal, replacement)
        script += [f"# {command.block.path}:{command.line}", f"xizor_begin {n} '{command.expected_status() or ''}'",
                   text, "xizor_end $?"]
        script += [f"{shell} || {{ echo {shlex.quote(f'after command {n}, this failed: {shell}')} >&2; exit 1; }}"
                   for pattern, shell in after if re.search(pattern, command.text)]
    script.append(epilogue)
    (tmp_path / "docs.sh").write_text("\n".join(script) + "\n")
    full_env = dict(os.environ, ANSWERS=str(answers), XIZOR_PY=sys.executable, **(env or {}))
    done = subprocess.run(["bash", "--noprofile", "--norc", str(tmp_path / "docs.sh")], cwd=workdir, env=full_env,
                          capture_output=True, text=True, timeout=120)
    log = [line.split() for line in (answers / "log").read_text().splitlines()] if (answers / "log").exists() else []
    results = [(commands[int(n)], int(rc), statuses, (answers / f"{n}.out").read_bytes().decode(errors="replace"))
               for n, rc, *statuses in log]
    if done.returncode != 0:
        failed = results[-1] if results else None
        raise AssertionError(
            f"{failed[0] if failed else 'the script'} failed: {done.stderr.strip()}\n"
            f"statuses {failed[2] if failed else None}, output:\n{failed[3][:2000] if failed else done.stdout[:2000]}\n"
            f"(script: {tmp_path / 'docs.sh'})")
    assert len(results) == len(commands), done.stderr
    return results


def answer_json(command, output):
    try:
        return json.loads(body_of(output))
    except json.JSONDecodeError:
        raise AssertionError(f"{command}: the docs show a JSON answer, the command printed {output[:600]!r}") from None


def check_answers(results, exceptions=None):
    """The answers the docs show (comment lines under a command, a ```json block after a block) against
    the real ones; `exceptions`: command substring -> members whose shown value cannot hold here."""
    problems = []
    last_of_block = {}
    for command, rc, statuses, output in results:
        last_of_block[id(command.block)] = (command, output)
        skip = next((keys for part, keys in (exceptions or {}).items() if part in command.text), ())
        for kind, shown in shown_answers(command):
            if kind == "header":
                name, value = shown.split(": ", 1)
                if not re.search(rf"^{re.escape(name)}: {re.escape(value)}\r?$", output, re.M | re.I):
                    problems.append(f"{command}: no header {shown!r} in\n{output[:600]}")
            else:
                problems += [f"{command}: {p}" for p in disagreements(shown, answer_json(command, output), skip=skip)]
    for command, output in last_of_block.values():
        if command.block.answer_fence == "json":
            skip = next((keys for part, keys in (exceptions or {}).items() if part in command.text), ())
            example = loose_json(command.block.answer)
            problems += [f"{command} (the ```json after it): {p}"
                         for p in disagreements(example, answer_json(command, output), skip=skip)]
    assert not problems, "\n".join(problems)


def bin_dir(tmp_path):
    """A directory holding `xizor` (the binary under test), for commands that call it by name."""
    d = tmp_path / "bin"
    d.mkdir()
    (d / "xizor").symlink_to(BIN)
    return d


def png_file(path):
    """A small real PNG (the server types an upload by its bytes)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\x3b\x82\xf6" * 16 for _ in range(8))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 8, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


# ---------------------------------------------------------------------------------------------------
# docs/api.md, whole

# Literal in docs/api.md -> what the session uses instead (a value a reader would paste by hand).
API_SUBSTITUTIONS = [
    ("XIZOR=http://127.0.0.1:8080", "XIZOR=$LIVE_BASE"),
    ("ADMIN=xa_…", "ADMIN=$LIVE_ADMIN"),
    ("APP=app_WaOebuvW1C2Dm305", "APP=$APP_ID"),
    ("SK=sk_LlCXAdYK…", "SK=$APP_SECRET_KEY"),
    ("keys/key_N9p4NmXDEjDbByAP", "keys/$NEW_KEY_ID"),  # revokes the key the line above creates
    ("webhooks/we_…", "webhooks/$WEBHOOK_ID"),
    ("PW=pw_HlgGYgjo6EYnm1zU", "PW=$PAYWALL_ID"),
    ("cursor=…", "cursor=$FIXTURE_CURSOR"),
    ("/v1/assets/app_…/529ba125….png", "$ASSET_PATH"),
    ("/v1/assets/529ba125…", "/v1/assets/$ASSET_ID"),
    # The rules' example paywalls (inside a single-quoted body: close the quote, expand, reopen).
    ("pw_referred", "'\"$FIXTURE_REFERRED\"'"),
    ("pw_engaged", "'\"$FIXTURE_ENGAGED\"'"),
    ("pw_dach", "'\"$FIXTURE_DACH\"'"),
]

# A command of docs/api.md (pattern) -> what the session runs right after it.
API_AFTER = [
    (r"-X POST \$XIZOR/v1/apps ", "APP_SECRET_KEY=$(xizor_field secretKey) && APP_ID=$(xizor_field appId) && xizor_fixtures"),
    (r"-X POST \$XIZOR/v1/keys ", "NEW_KEY_ID=$(xizor_field id)"),
    (r"-X POST \$XIZOR/v1/webhooks -H", "WEBHOOK_ID=$(xizor_field id)"),
    (r"-X POST \$XIZOR/v1/paywalls -H", "PAYWALL_ID=$(xizor_field id)"),
    (r'-X POST "\$XIZOR/v1/assets\?', "ASSET_ID=$(xizor_field id) && ASSET_PATH=$(xizor_field path)"),
]

# The paywalls the rules example names, each published, and a real cursor (two paywalls exist by then).
API_FIXTURES = r'''
xizor_fixtures() {
    local auth="Authorization: Bearer $APP_SECRET_KEY" name id
    for name in REFERRED ENGAGED DACH; do
        id=$(command curl -sf -X POST "$LIVE_BASE/v1/paywalls" -H "$auth" -H 'Content-Type: application/json' \
             -d "{\"template\": \"clean\", \"name\": \"$name\"}" | "$XIZOR_PY" -c 'import json,sys; print(json.load(sys.stdin)["id"])') || return 1
        command curl -sf -o /dev/null -X POST "$LIVE_BASE/v1/paywalls/$id/publish" -H "$auth" || return 1
        printf -v "FIXTURE_$name" %s "$id"
    done
    FIXTURE_CURSOR=$(command curl -sf "$LIVE_BASE/v1/paywalls?limit=1" -H "$auth" \
        | "$XIZOR_PY" -c 'import json,sys; print(json.load(sys.stdin)["nextCursor"])')
}
'''

# Members of the example answers that cannot hold here, with why.
API_EXCEPTIONS = {
    # The example shows the DACH rule winning, which it does only inside its activeFrom/activeUntil week:
    # checked against the clock below instead.
    "/resolve?": ("matchedRule", "paywallId", "version"),
    "/v1/assets?name=": ("size",),  # the size of the reader's header.png
}


def test_api_md_runs_in_order_against_a_live_server(server, tmp_path):
    commands = [c for b in blocks() if b.path == "docs/api.md" for c in b.commands]
    work = tmp_path / "work"
    work.mkdir()
    png_file(work / "header.png")  # the file the upload example sends
    results = run_commands(
        commands, tmp_path, workdir=work, env={"LIVE_BASE": server.base, "LIVE_ADMIN": ADMIN_TOKEN},
        substitutions=API_SUBSTITUTIONS, after=API_AFTER, prelude=API_FIXTURES,
        epilogue='printf \'{"paywall": "%s", "dach": "%s"}\' "$PAYWALL_ID" "$FIXTURE_DACH" > "$ANSWERS/ids.json"')
    check_answers(results, API_EXCEPTIONS)

    assert (work / "preview.html").read_text().lstrip().lower().startswith("<!doctype html")
    assert json.loads((work / "draft.json").read_text())["document"]["name"] == "Spring sale"

    # The dry run: the DACH rule (the third) wins inside its window; outside it the placement's own paywall.
    ids = json.loads((tmp_path / "answers" / "ids.json").read_text())
    rules = next(c for c in commands if "/rules" in c.text)
    active_from, active_until = (int(re.search(rf'"{k}": (\d+)', rules.text).group(1)) for k in ("activeFrom", "activeUntil"))
    resolved = json.loads(body_of(next(out for c, _, _, out in results if "/resolve?" in c.text)))
    now = time.time() * 1000
    if active_from <= now < active_until:
        assert (resolved["matchedRule"], resolved["paywallId"]) == (2, ids["dach"]), resolved
    else:
        assert (resolved["matchedRule"], resolved["paywallId"]) == (None, ids["paywall"]), resolved


# ---------------------------------------------------------------------------------------------------
# The other runnable blocks

def test_mcp_md_curl_calls_a_tool(app, server, tmp_path):
    block = the_block("docs/mcp.md", "curl -s http://127.0.0.1:8080/mcp")
    [(_, _, statuses, output)] = run_commands(
        block.commands, tmp_path, workdir=tmp_path, env={"SK": app.secret_key},
        substitutions=[("http://127.0.0.1:8080", server.base)])
    answer = json.loads(output)
    assert statuses == ["200"] and answer.get("result", {}).get("isError") is False, answer
    names = [t["name"] for t in answer["result"]["structuredContent"]["templates"]]
    assert names == ["cinematic", "clean", "lottie_delight"]


def test_integrations_md_blocks_run(app, server, tmp_path):
    """The scoped key is created, and the audit log lists that write (a publish filter finds none yet)."""
    commands = [c for b in blocks() if b.path == "docs/integrations.md" for c in b.commands]
    results = run_commands(commands, tmp_path, workdir=tmp_path,
                           env={"XIZOR": server.base, "AUTH": f"Authorization: Bearer {app.secret_key}",
                                "JSON": "Content-Type: application/json"})
    (_, _, created_status, created), (_, _, log_status, log) = results
    key = json.loads(created)
    assert created_status == ["201"] and key["scopes"] == ["read", "drafts", "publish"] and key["fullAccess"] is False
    assert log_status == ["200"] and json.loads(log) == {"entries": [], "nextCursor": None}


# ---------------------------------------------------------------------------------------------------
# Equivalents of the blocks that cannot run here

def test_readme_make_run_equivalent(tmp_path):
    """`make run`'s recipe (the Makefile's, the release build aside) on an empty data directory prints the
    summary the README shows, and its `try` line works."""
    recipe = re.search(r"^run:.*\n\t(.+)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    args = shlex.split(recipe.replace("$(CONFIG)", "Config/xizor.json"))
    assert args[:2] == [".build/release/xizor", "serve"], recipe
    server = XizorServer(tmp_path / "data", extra_env={"XIZOR_ADMIN_TOKEN": None, "XIZOR_LOG_LEVEL": "info"},
                         args=args[2:])
    try:
        deadline = time.time() + 10
        while time.time() < deadline and not any(l.startswith("  docs") for l in server.stderr_lines):
            time.sleep(0.05)
        printed = [l.rstrip("\n") for l in server.stderr_lines if l.startswith(("Xizor is serving", "  "))]
        shown = re.search(r"^```text\n(.*?)^```$", (ROOT / "README.md").read_text(), re.M | re.S).group(1).splitlines()

        def labels(lines):
            return [re.match(r"\s*(\S+(?: \S+)*?)(?:\s{2,}|$)", l).group(1) if l.startswith(" ") else l.split(" http")[0]
                    for l in lines]
        assert labels(printed) == labels(shown), printed
        placements = [l for l in printed if l.strip().startswith("placements")]
        assert placements == [l for l in shown if l.strip().startswith("placements")]
        curl = next(l.split("try", 1)[1].strip() for l in printed if l.startswith("  try"))
        answer = subprocess.run(shlex.split(curl) + ["-s", "-o", "/dev/null", "-w", "%{http_code}"],
                                capture_output=True, text=True, timeout=30)
        assert answer.stdout == "200", curl
    finally:
        assert server.stop() == 0


@pytest.mark.sqlite_only  # `xizor backup` copies the SQLite file (PostgreSQL: pg_dump, test_postgres.py)
def test_operations_md_backup_script_equivalent(tmp_path):
    """The script the backup example runs in the container, as written, with the data directory a
    temporary one (the image's XIZOR_DATA_DIR=/data), while a server serves from it."""
    line = the_block("docs/operations.md", "docker exec xizor").first
    words = shlex.split(line)
    assert words[:5] == ["docker", "exec", "xizor", "sh", "-c"], words
    data = tmp_path / "data"
    server = XizorServer(data)
    try:
        assert create_app(server.base)["appId"]
        script = words[5].replace("/data", str(data))
        done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                              env=dict(os.environ, PATH=f"{bin_dir(tmp_path)}:{os.environ['PATH']}", XIZOR_DATA_DIR=str(data)))
        assert done.returncode == 0, done.stderr
        printed = json.loads(done.stdout)
        assert printed["integrity"] == "ok", printed
        [backup] = (data / "backups").iterdir()
        assert re.fullmatch(r"xizor-\d{8}T\d{6}Z\.sqlite", backup.name) and printed["database"] == str(backup)
    finally:
        assert server.stop() == 0


def test_operations_md_postgres_equivalent(tmp_path):
    """The PostgreSQL block: on the PostgreSQL pass as written, with the test cluster's database for
    db.internal's; on the SQLite pass its `xizor migrate` alone (the default driver). `xizor serve` is the
    live server started on the same database after it."""
    block = the_block("docs/operations.md", "export XIZOR_STORAGE_DRIVER=postgres")
    assert [c.text.split()[:2] for c in block.commands][2:] == [["xizor", "migrate"], ["xizor", "serve"]], block.commands
    data = tmp_path / "data"
    data.mkdir()
    if drivers.DRIVER == "postgres":
        commands, url = block.commands[:3], drivers.database_url(data)
    else:
        commands, url = block.commands[2:3], None
    results = run_commands(
        commands, tmp_path, workdir=tmp_path,
        env={"PATH": f"{bin_dir(tmp_path)}:{os.environ['PATH']}", "XIZOR_DATA_DIR": str(data)},
        substitutions=[("'postgresql://xizor@db.internal:5432/xizor'", shlex.quote(url))] if url else [])
    assert "applied 0001_initial.sql" in results[-1][3], results[-1][3]
    assert (data / "xizor.sqlite").exists() == (drivers.DRIVER == "sqlite")  # the exports took effect
    server = XizorServer(data)  # on the same database (drivers.storage_env)
    try:
        assert requests.get(server.base + "/readyz", timeout=10).status_code == 200
        assert create_app(server.base)["appId"]
    finally:
        assert server.stop() == 0


def published_onboarding(server):
    app = App(server, create_app(server.base))
    paywall = app.create_paywall("clean")
    version = app.publish(paywall)["version"]
    app.assign("onboarding", paywall)
    return app, paywall, version


def test_client_swift_md_fallback_bundle_equivalent(server, tmp_path):
    """The build step that fetches the fallback bundle, with the live server for api.xizor.dev."""
    app, paywall, version = published_onboarding(server)
    (tmp_path / "App" / "Resources").mkdir(parents=True)  # the app's resources folder it writes into
    block = the_block("docs/client-swift.md", 'curl -sf -H "Authorization: Bearer $XIZOR_PUBLIC_KEY"')
    run_commands(block.commands, tmp_path, workdir=tmp_path, env={"XIZOR_PUBLIC_KEY": app.public_key},
                 substitutions=[("https://api.xizor.dev", server.base)])
    bundle = json.loads((tmp_path / "App" / "Resources" / "xizor-fallback.json").read_text())
    entry = bundle["placements"]["onboarding"]
    assert (entry["paywallId"], entry["version"], entry["schemaVersion"]) == (paywall, version, 2), entry


def test_client_react_native_md_fallback_bundle_equivalent(server, tmp_path):
    """The React Native docs' build step for the fallback bundle, with the live server for api.xizor.dev."""
    app, paywall, version = published_onboarding(server)
    block = the_block("docs/client-react-native.md", 'curl -sf -H "Authorization: Bearer $XIZOR_PUBLIC_KEY"')
    run_commands(block.commands, tmp_path, workdir=tmp_path, env={"XIZOR_PUBLIC_KEY": app.public_key},
                 substitutions=[("https://api.xizor.dev", server.base)])
    entry = json.loads((tmp_path / "xizor-fallback.json").read_text())["placements"]["onboarding"]
    assert (entry["paywallId"], entry["version"], entry["schemaVersion"]) == (paywall, version, 2), entry


EXAMPLE = ROOT / "clients" / "swift" / ".build" / "debug" / "xizor-kit-example"


@pytest.mark.skipif(not EXAMPLE.exists(), reason="clients/swift is not built (make test-client builds it)")
def test_client_swift_md_example_equivalent(server, tmp_path):
    """The example's two commands with the client package's built example for `swift run` (the second
    line relies on the default base URL, 127.0.0.1:8080: it gets the live server's)."""
    app, paywall, version = published_onboarding(server)
    block = the_block("docs/client-swift.md", "cd clients/swift")
    results = run_commands(
        block.commands, tmp_path, workdir=ROOT, env={"LIVE_BASE": server.base, "PUBLIC_KEY": app.public_key},
        substitutions=[("swift run xizor-kit-example", shlex.quote(str(EXAMPLE))),
                       ("--base-url http://127.0.0.1:8080", "--base-url $LIVE_BASE"),
                       ("--key pk_… --cache", "--base-url $LIVE_BASE --key $PUBLIC_KEY --cache"),
                       ("--key pk_…", "--key $PUBLIC_KEY"),
                       ("/tmp/xizor-cache", str(tmp_path / "cache"))])
    for command, _, _, output in results[1:]:
        printed = json.loads(output)
        assert {"placement", "paywallId", "version", "schemaVersion", "locale", "source", "document"} <= set(printed), command
        assert (printed["placement"], printed["paywallId"], printed["version"]) == ("onboarding", paywall, version)


# ---------------------------------------------------------------------------------------------------
# Every block run or listed

@pytest.mark.driver_independent
def test_every_shell_block_is_run_or_listed():
    found = blocks()
    assert len(found) >= 20, found
    problems = []
    for block in found:
        run = block.path in RUN_WHOLE_FILE
        entries = [k for k in [*RUN, *UNTESTABLE] if k[0] == block.path and block.first.startswith(k[1])]
        if run + len(entries) != 1:
            problems.append(f"{block}: run by {RUN_WHOLE_FILE.get(block.path)} and/or listed as {entries}; "
                            "run it here or list it in UNTESTABLE with the reason")
        if not block.commands:
            problems.append(f"{block}: no command")
    for key in [*RUN, *UNTESTABLE]:
        if not any(b.path == key[0] and b.first.startswith(key[1]) for b in found):
            problems.append(f"{key}: names no shell block (the docs changed: update the table)")
    tests = [*RUN.values(), *RUN_WHOLE_FILE.values(), *(t for _, t in UNTESTABLE.values() if t)]
    problems += [f"{t}: no such test in this module" for t in tests if not callable(globals().get(t))]
    assert not problems, "\n".join(problems)


@pytest.mark.driver_independent
def test_example_answers_are_read_as_shown():
    """The reading of examples itself: elisions, members compared, placeholders only typed."""
    shown = loose_json('{"id":"pw_…","n":1,"list":[{"a":1}, …],"doc": {...},"t":1796010740920,"x":…}')
    assert shown == {"id": "pw_…", "n": 1, "list": [{"a": 1}, "…"], "doc": "…", "t": 1796010740920, "x": "…"}
    good = {"id": "pw_abc", "n": 1, "list": [{"a": 2}, {"a": 1, "b": 0}], "doc": "{}", "t": 5, "x": "y", "more": 1}
    assert disagreements(shown, good) == []
    assert disagreements(shown, dict(good, n=2)) and disagreements(shown, dict(good, list=[{"a": 2}]))
    assert disagreements(shown, {k: v for k, v in good.items() if k != "x"})
    assert disagreements({"id": "app_WaOebuvW1C2Dm305"}, {"id": "app_other1234567"}) == []
