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


@pytest.mark.parametrize("op, typed, value", [
    ("semver_gte", "2.1", "2.1"), ("semver_eq", " 10 ", "10"), ("semver_lt", '"2.0.0"', "2.0.0"), ("starts_with", "42", "42"),
    ("eq", "2.1", 2.1), ("eq", "pro", "pro"), ("in", "DE, AT", ["DE", "AT"]), ("in", '["DE", 3]', ["DE", 3]),
    ("not_in", "1, 2", [1, 2]), ("between", "[1, 10]", [1, 10]), ("exists", "anything", None), ("gt", "3", 3)])
def test_the_rule_builder_types_a_value_as_its_operator_takes_it(op, typed, value, tmp_path):
    """`valueFor`: semver_* and starts_with keep the text (2.1 is the version "2.1", which the server
    takes, not the number it refuses); in / not_in / between take JSON or comma-separated values;
    exists takes none (the key is left out)."""
    node = shutil.which("node")
    assert node
    (tmp_path / "dom.js").write_text("export const h = () => null; export const field = () => null; export const fill = () => null;\n")
    (tmp_path / "rules.mjs").write_text((SITE / "rules.js").read_text())
    (tmp_path / "case.mjs").write_text(f'import {{ valueFor }} from "./rules.mjs";\n'
                                       f'const v = valueFor({json.dumps(op)}, {json.dumps(typed)});\n'
                                       'console.log(JSON.stringify({ value: v === undefined ? null : v }));')
    out = subprocess.run([node, str(tmp_path / "case.mjs")], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["value"] == value


def run_editor_model(script, tmp_path):
    """model.js and history.js (the visual editor's pure parts) under Node."""
    node = shutil.which("node")
    assert node
    for name in ("model.js", "history.js"):
        (tmp_path / name).write_text((SITE / name).read_text())
    (tmp_path / "case.mjs").write_text('import * as m from "./model.js";\nimport { History } from "./history.js";\n' + script)
    out = subprocess.run([node, str(tmp_path / "case.mjs")], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


DOCUMENT = {"locales": ["en", "de"], "defaultLocale": "en", "products": [{"slot": "yearly", "storeProductId": "y"}],
            "root": {"type": "stack", "direction": "vertical", "children": [
                {"type": "text", "id": "title", "text": {"en": "Hi", "de": "Hallo"}},
                {"type": "stack", "direction": "horizontal", "children": [{"type": "badge", "text": {"en": "New"}}]},
                {"type": "product_selector", "option": {"type": "text", "text": {"en": "{{product.title}}"}}},
                {"type": "lottie", "src": "https://x/a.json", "fallback": {"type": "image", "src": "https://x/a.png", "id": "title-2"}}]}}


def test_the_editor_walks_nodes_as_the_renderer_and_reads_the_servers_paths(tmp_path):
    answer = run_editor_model(f"""
const d = {json.dumps(DOCUMENT)};
const paths = m.nodesOf(d).map((e) => m.formatPath(e.path));
const parsed = ['$.root.children[1].children[0]', '$["a b"].c[2]', "$.products[0].storeProductIds.appStore"].map((p) => m.parsePath(p));
const set = m.setAt(d, ["root", "children", 0, "style", "color"], "$accent");
const removed = m.setAt(d, ["root", "children", 0, "id"], undefined);
let bad = null; try {{ m.parsePath("$.a..b"); }} catch (e) {{ bad = e.message; }}
console.log(JSON.stringify({{ paths, parsed, round: parsed.map(m.formatPath), bad,
  setColor: set.root.children[0].style, untouched: d.root.children[0].style === undefined, sharedSibling: set.root.children[1] === d.root.children[1],
  removedId: "id" in removed.root.children[0],
  owner: m.formatPath(m.owningNode(d, m.parsePath("$.root.children[1].children[0].text.en"))) }}));
""", tmp_path)
    assert answer["paths"] == ["$.root", "$.root.children[0]", "$.root.children[1]", "$.root.children[1].children[0]",
                               "$.root.children[2]", "$.root.children[2].option", "$.root.children[3]", "$.root.children[3].fallback"]
    assert answer["parsed"] == [["root", "children", 1, "children", 0], ["a b", "c", 2], ["products", 0, "storeProductIds", "appStore"]]
    assert answer["round"] == ['$.root.children[1].children[0]', '$["a b"].c[2]', "$.products[0].storeProductIds.appStore"]
    assert answer["bad"] and "not a JSON path" in answer["bad"]
    assert answer["setColor"] == {"color": "$accent"} and answer["untouched"] and answer["sharedSibling"], "edits copy only their path"
    assert answer["removedId"] is False
    assert answer["owner"] == "$.root.children[1].children[0]"


def test_structure_edits_answer_the_new_document_and_where_the_node_went(tmp_path):
    answer = run_editor_model(f"""
const d = {json.dumps(DOCUMENT)};
const P = m.formatPath;
const badge = m.newNode("badge", d, null);
const [before, atBefore] = m.placeNode(d, ["root", "children", 2], "before", badge);
const [inside, atInside] = m.placeNode(d, ["root", "children", 1], "inside", m.newNode("text", d, null));
let refused = null; try {{ m.placeNode(d, ["root", "children", 0], "inside", badge); }} catch (e) {{ refused = e.message; }}
const [dup, atDup] = m.duplicateNode(d, ["root", "children", 0]);
const [wrapped, atWrapped] = m.wrapNode(d, ["root", "children", 0]);
const [down, atDown] = m.shiftNode(d, ["root", "children", 0], 1);
const [moved, atMoved] = m.moveNode(d, ["root", "children", 0], ["root", "children", 1], "children", 1);
const [later, atLater] = m.moveNode(d, ["root", "children", 0], ["root"], "children", 3);
let loop = null; try {{ m.moveNode(d, ["root", "children", 1], ["root", "children", 1], "children", 0); }} catch (e) {{ loop = e.message; }}
const gone = m.removeNode(d, ["root", "children", 3, "fallback"]);
const timer = m.newNode("timer", {{ ...d, root: {{ type: "stack", children: [{{ type: "timer", id: "timer" }}] }} }}, null);
console.log(JSON.stringify({{
  badge, atBefore: P(atBefore), beforeTypes: before.root.children.map((n) => n.type),
  atInside: P(atInside), insideTypes: inside.root.children[1].children.map((n) => n.type), refused,
  atDup: P(atDup), dupIds: dup.root.children.map((n) => n.id ?? null),
  atWrapped: P(atWrapped), wrappedType: wrapped.root.children[0].type, wrappedChild: wrapped.root.children[0].children[0].id,
  atDown: P(atDown), downIds: down.root.children.map((n) => n.id ?? n.type),
  atMoved: P(atMoved), movedRoot: moved.root.children.map((n) => n.type), movedInner: moved.root.children[0].children.map((n) => n.id ?? n.type),
  atLater: P(atLater), laterIds: later.root.children.map((n) => n.id ?? n.type), loop,
  fallbackGone: "fallback" in gone.root.children[3], timerId: timer.id, original: JSON.stringify(d) === {json.dumps(json.dumps(DOCUMENT, separators=(",", ":")))} }}));
""", tmp_path)
    assert answer["badge"] == {"type": "badge", "text": {"en": "Best value", "de": "Best value"}}, "texts in every locale"
    assert answer["atBefore"] == "$.root.children[2]" and answer["beforeTypes"] == ["text", "stack", "badge", "product_selector", "lottie"]
    assert answer["atInside"] == "$.root.children[1].children[1]" and answer["insideTypes"] == ["badge", "text"]
    assert "Only stacks and carousels" in answer["refused"]
    assert answer["atDup"] == "$.root.children[1]" and answer["dupIds"] == ["title", "title-3", None, None, None], "a copy's id is unique"
    assert answer["atWrapped"] == "$.root.children[0].children[0]" and answer["wrappedType"] == "stack" and answer["wrappedChild"] == "title"
    assert answer["atDown"] == "$.root.children[1]" and answer["downIds"] == ["stack", "title", "product_selector", "lottie"]
    assert answer["atMoved"] == "$.root.children[0].children[1]", "the parent's own path shifts when an earlier sibling leaves"
    assert answer["movedRoot"] == ["stack", "product_selector", "lottie"] and answer["movedInner"] == ["badge", "title"]
    assert answer["atLater"] == "$.root.children[2]" and answer["laterIds"] == ["stack", "product_selector", "title", "lottie"]
    assert "into itself" in answer["loop"]
    assert answer["fallbackGone"] is False
    assert answer["timerId"] == "timer-2"
    assert answer["original"], "no edit changes the document it was given"


def test_undo_and_redo_walk_the_documents_and_an_edit_clears_redo(tmp_path):
    answer = run_editor_model("""
const h = new History("a");
h.push("b", "one"); h.push("c", "two");
const steps = [h.undo(), h.undoLabel, h.redoLabel, h.undo(), h.undo(), h.redo(), h.canRedo];
h.push("d", "three");
steps.push(h.canRedo, h.redo(), h.present);
const long = new History(0);
for (let i = 1; i <= 250; i++) long.push(i, `edit ${i}`);
let n = 0; while (long.undo() !== null) n++;
console.log(JSON.stringify({ steps, undone: n, oldest: long.present }));
""", tmp_path)
    assert answer["steps"] == ["b", "one", "two", "a", None, "b", True, False, None, "d"]
    assert answer["undone"] == 200 and answer["oldest"] == 50, "history keeps the newest 200 edits"
