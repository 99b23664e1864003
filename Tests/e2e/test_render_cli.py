"""`xizor render FILE [--locale L] [--color-scheme light|dark] [--preview]` as an operator runs it."""
import json
import subprocess

from conftest import BIN, ROOT, run_cli


def template_file(tmp_path, name="clean"):
    path = tmp_path / f"{name}.json"
    path.write_text(run_cli("templates", name).stdout)
    return path


def test_render_prints_a_complete_page(tmp_path):
    page = run_cli("render", str(template_file(tmp_path))).stdout
    assert page.startswith('<!DOCTYPE html><html lang="en" class="xz-light xz-production">')
    assert page.endswith("</body></html>")
    assert "--c-bg:#ffffff" in page


def test_render_options(tmp_path):
    source = str(template_file(tmp_path))
    dark_de = run_cli("render", source, "--locale", "de", "--color-scheme", "dark").stdout
    assert '<html lang="de" class="xz-dark xz-production">' in dark_de and "--c-bg:#0b0b0c" in dark_de
    assert "Klarer denken mit <strong>Notes Pro</strong>" in dark_de
    preview = run_cli("render", source, "--preview").stdout
    assert "then {{product.price}} per {{product.period}}</span>" in preview
    production = run_cli("render", source).stdout
    assert "then  per </span>" in production
    # Same input, same bytes (ETags can be derived from the page).
    assert run_cli("render", source).stdout == production


def test_render_context_and_stdin(tmp_path):
    doc = json.loads(run_cli("templates", "clean").stdout)
    doc["root"]["children"].insert(0, {"type": "text", "id": "hi", "text": {"en": "Hi {{context.name}}"}})
    proc = run_cli_input(["render", "-", "--context", "name=Ada"], json.dumps(doc))
    assert 'data-id="hi">Hi Ada</p>' in proc


def run_cli_input(args, text):
    proc = subprocess.run([BIN, *args], input=text, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_render_reports_unknown_nodes(tmp_path):
    doc = json.loads(run_cli("templates", "clean").stdout)
    doc["root"]["children"].append({"type": "hologram"})
    path = tmp_path / "unknown.json"
    path.write_text(json.dumps(doc))
    proc = run_cli("render", str(path), "--unknown-nodes")
    index = len(doc["root"]["children"]) - 1
    assert f"paywall_unknown_node $.root.children[{index}] type=hologram skipped" in proc.stderr
    assert proc.stdout.startswith("<!DOCTYPE html>")


def test_render_errors(tmp_path):
    missing = run_cli("render", str(tmp_path / "nope.json"), check=False)
    assert missing.returncode == 1 and "cannot read" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    invalid = run_cli("render", str(bad), check=False)
    assert invalid.returncode == 1 and "invalid JSON" in invalid.stderr
    future = tmp_path / "future.json"
    future.write_text(json.dumps({"schemaVersion": 99, "root": {"type": "text", "text": {"en": "x"}}}))
    unsupported = run_cli("render", str(future), check=False)
    assert unsupported.returncode == 1 and "unsupported schemaVersion 99" in unsupported.stderr
    scheme = run_cli("render", str(template_file(tmp_path)), "--color-scheme", "sepia", check=False)
    assert scheme.returncode == 64 and "light or dark" in scheme.stderr
    no_file = run_cli("render", check=False)
    assert no_file.returncode == 64
    assert "render" in run_cli("--help").stdout
