"""Runs the Node tests in Tests/js (`node --test`) against the runtime JavaScript the pages embed:
the shared text vectors (Tests/Fixtures) through the JS port of resolveText and friends."""
import os
import shutil
import subprocess

from conftest import BIN, ROOT, run_cli

import pytest
# No database: the HTTP core, the renderer and the format run the same whatever stores the data.
pytestmark = pytest.mark.driver_independent


def test_runtime_js_passes_the_shared_vectors(tmp_path):
    node = shutil.which("node")
    assert node, "node must be installed (make deps installs nodejs)"
    runtime = tmp_path / "xizor-runtime.js"
    runtime.write_text(run_cli("render", "--runtime-js").stdout)
    env = dict(os.environ, XIZOR_RUNTIME_JS=str(runtime), XIZOR_BIN=BIN)
    files = sorted(str(p) for p in (ROOT / "Tests" / "js").glob("*.test.mjs"))
    assert files
    proc = subprocess.run([node, "--test", *files], capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "# fail 0" in proc.stdout
    passed = int(proc.stdout.split("# pass ")[1].split()[0])
    assert passed >= 6, proc.stdout


def test_runtime_js_is_what_the_page_embeds(tmp_path):
    runtime = run_cli("render", "--runtime-js").stdout
    document = tmp_path / "clean.json"
    document.write_text(run_cli("templates", "clean").stdout)
    page = run_cli("render", str(document)).stdout
    assert "<script>" + runtime + "</script>" in page
