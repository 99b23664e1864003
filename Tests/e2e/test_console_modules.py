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
