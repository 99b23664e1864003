"""docs/mcp.md's Python example, run as written against a live server (issue 20, item 1).

Only the example's placeholder URL and key are replaced; everything else (imports, calls, the
printed id) is the documented code, run by this venv's python, so the pinned `mcp` SDK checks it.
"""
import re
import subprocess
import sys

from conftest import ROOT

DOC = ROOT / "docs" / "mcp.md"
URL, KEY = "http://127.0.0.1:8080", "sk_your_secret_key"


def python_example():
    blocks = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(), flags=re.M | re.S)
    assert len(blocks) == 1, f"docs/mcp.md should hold one Python example, found {len(blocks)}"
    return blocks[0]


def test_the_python_example_creates_a_paywall(app, server):
    code = python_example()
    # Exactly one of each, so the test cannot quietly run an example that talks to somewhere else.
    assert code.count(URL) == 1 and code.count(KEY) == 1, code
    code = code.replace(URL, server.base).replace(KEY, app.secret_key)

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    printed = done.stdout.strip()
    assert re.fullmatch(r"pw_\w+", printed), done.stdout

    # The printed id is the paywall the example created, from the `clean` template.
    listed = app.dashboard.get("/v1/paywalls").json()["items"]
    assert [p["id"] for p in listed] == [printed]
    reference = app.create_paywall("clean")
    assert app.draft(printed)[0]["document"]["root"] == app.draft(reference)[0]["document"]["root"]
