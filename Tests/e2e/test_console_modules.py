"""The console's pure modules under Node (no browser): jsonpos.js, which maps the server's JSON paths
to places in the editor's text (docs/console.md)."""
import json
import shutil
import subprocess

import pytest

from conftest import ROOT

SITE = ROOT / "Sources" / "XizorConsole" / "Site"
pytestmark = pytest.mark.driver_independent


def run_module(script, tmp_path):
    node = shutil.which("node")
    assert node, "Node is installed by `make deps` (nodejs)"
    (tmp_path / "jsonpos.mjs").write_text((SITE / "jsonpos.js").read_text())
    (tmp_path / "case.mjs").write_text('import { locate, spanOf, childPath } from "./jsonpos.mjs";\n' + script)
    out = subprocess.run([node, str(tmp_path / "case.mjs")], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_every_path_the_server_names_finds_its_text(tmp_path):
    document = {"root": {"children": [{"title": "a"}, {"weird key": 2, "a.b": [True, None]}]}, "n": -1.5e3, "s": "q\"\\u00e9"}
    text = json.dumps(document, indent=2)
    answer = run_module(f"""
const text = {json.dumps(text)};
const {{ value, spans }} = locate(text);
const pick = (p) => {{ const s = spans.get(p); return s && text.slice(s.start, s.end); }};
console.log(JSON.stringify({{ value, paths: [...spans.keys()],
  child: pick('$.root.children[1]["weird key"]'), dotted: pick('$.root.children[1]["a.b"][1]'),
  missing: (() => {{ const s = spanOf(spans, "$.root.children[0].subtitle"); return text.slice(s.start, s.end); }})(),
  names: [childPath("$", "root"), childPath("$", "a b"), childPath("$.x", 3)] }}));
""", tmp_path)
    assert answer["value"] == document
    assert answer["child"] == "2" and answer["dotted"] == "null"
    assert json.loads(answer["missing"]) == {"title": "a"}, "a missing member selects the object that lacks it"
    assert answer["names"] == ["$.root", '$["a b"]', "$.x[3]"], "the server's path syntax (PaywallFormat/JSON/JSONPath.swift)"
    assert "$.root.children[0].title" in answer["paths"] and "$.n" in answer["paths"]


@pytest.mark.parametrize("text, offset", [('{"a": [1, 2,, 3]}', 12), ('{"a": 1} x', 9), ('{"a" 1}', 5), ('[1, 2', 5), ('"open', 5)])
def test_malformed_text_throws_with_its_place(text, offset, tmp_path):
    answer = run_module(f"""
try {{ locate({json.dumps(text)}); console.log(JSON.stringify({{ thrown: false }})); }}
catch (error) {{ console.log(JSON.stringify({{ thrown: true, offset: error.offset, message: error.message }})); }}
""", tmp_path)
    assert answer["thrown"] and answer["offset"] == offset, answer
    assert "line 1" in answer["message"]


def run_diff(script, tmp_path):
    node = shutil.which("node")
    assert node
    (tmp_path / "dom.js").write_text("export const h = () => null;\n")  # lineDiff needs no DOM
    (tmp_path / "diff.mjs").write_text((SITE / "diff.js").read_text())
    (tmp_path / "case.mjs").write_text('import { lineDiff } from "./diff.mjs";\n' + script)
    out = subprocess.run([node, str(tmp_path / "case.mjs")], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("before, after", [
    ("a\nb\nc", "a\nb\nc"), ("a\nb\nc", "a\nx\nc"), ("a\nb\nc", "a\nc"), ("a\nc", "a\nb\nc"), ("", "x\ny"), ("x\ny", ""),
    ("1\n2\n3\n4\n5\n6", "0\n1\n3\n4\n4.5\n6\n7"),
])
def test_the_line_diff_pairs_unchanged_lines_and_keeps_every_line(before, after, tmp_path):
    rows = run_diff(f"console.log(JSON.stringify(lineDiff({json.dumps(before)}, {json.dumps(after)})));", tmp_path)
    # Read down either column, the lines are that side's, in order: nothing lost or invented.
    assert [r["left"] for r in rows if r["left"] is not None] == before.split("\n")
    assert [r["right"] for r in rows if r["right"] is not None] == after.split("\n")
    assert all((r["kind"] == "same") == (r["left"] == r["right"] and r["left"] is not None) for r in rows)
    same = sum(r["kind"] == "same" for r in rows)
    # The pairing is a longest common subsequence (checked against Python's own LCS length).
    a, b = before.split("\n"), after.split("\n")
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
    assert same == table[0][0]


@pytest.mark.parametrize("typed, value", [("pro", "pro"), ("3", 3), ("2.5", 2.5), ("true", True), ('["DE", "AT"]', ["DE", "AT"]),
                                          ("[1, 10]", [1, 10]), ('{"a": 1}', '{"a": 1}'), ("", ""), ("2.4.0", "2.4.0"), ('"quoted"', "quoted")])
def test_the_rule_builder_reads_values_as_the_api_types_them(typed, value, tmp_path):
    """A comparison's value as typed in the builder: JSON where it reads as a scalar or an array
    (numbers, booleans, `in` lists, `between` pairs), else the text; objects are never a value."""
    node = shutil.which("node")
    assert node
    (tmp_path / "dom.js").write_text("export const h = () => null; export const field = () => null; export const fill = () => null;\n")
    (tmp_path / "rules.mjs").write_text((SITE / "rules.js").read_text())
    (tmp_path / "case.mjs").write_text(f'import {{ typedValue, OPERATORS }} from "./rules.mjs";\n'
                                       f'console.log(JSON.stringify({{ value: typedValue({json.dumps(typed)}), operators: OPERATORS }}));')
    out = subprocess.run([node, str(tmp_path / "case.mjs")], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["value"] == value
    # Every operator the server knows (Targeting/Condition.swift's error message lists them).
    assert answer["operators"] == ["eq", "ne", "in", "not_in", "exists", "gt", "gte", "lt", "lte", "starts_with", "between",
                                   "semver_eq", "semver_gt", "semver_gte", "semver_lt", "semver_lte"]


@pytest.mark.parametrize("count, period, seconds, cap", [
    ("3", "day", "", {"count": 3, "per": "day"}), ("1", "hour", "", {"count": 1, "per": "hour"}),
    ("2", "week", "99", {"count": 2, "per": "week"}), ("5", "seconds", "90", {"count": 5, "seconds": 90}),
    ("", "day", "", None), ("  ", "week", "", None), ("x", "day", "", None)])
def test_the_rule_builder_writes_a_frequency_cap_as_the_api_reads_it(count, period, seconds, cap, tmp_path):
    """A rule's cap from the builder's three fields: `{count, per}` for a named period, `{count,
    seconds}` for another; an empty (or unreadable) count is no cap at all (the key is left out).
    What the server then refuses (a fraction, zero seconds) it names by its JSON path."""
    node = shutil.which("node")
    assert node
    (tmp_path / "dom.js").write_text("export const h = () => null; export const field = () => null; export const fill = () => null;\n")
    (tmp_path / "rules.mjs").write_text((SITE / "rules.js").read_text())
    (tmp_path / "case.mjs").write_text(
        'import { frequencyCapOf, targetOf } from "./rules.mjs";\n'
        f'const cap = frequencyCapOf({json.dumps(count)}, {json.dumps(period)}, {json.dumps(seconds)});\n'
        'console.log(JSON.stringify({ cap: cap === undefined ? null : cap, rule: JSON.parse(JSON.stringify({ paywallId: "p", frequencyCap: cap })),\n'
        '  paywall: JSON.parse(JSON.stringify(targetOf("paywall:pw_1"))), experiment: JSON.parse(JSON.stringify(targetOf("experiment:ex:1"))) }));')
    out = subprocess.run([node, str(tmp_path / "case.mjs")], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["cap"] == cap
    assert answer["rule"] == ({"paywallId": "p", "frequencyCap": cap} if cap else {"paywallId": "p"})
    # A target's option value back into the body: one of paywallId / experimentId, the other dropped.
    assert answer["paywall"] == {"paywallId": "pw_1"} and answer["experiment"] == {"experimentId": "ex:1"}
