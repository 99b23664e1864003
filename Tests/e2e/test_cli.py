from conftest import run_cli


def test_version_prints_a_version():
    out = run_cli("version").stdout.strip()
    assert out.startswith("xizor ")


def test_help_lists_serve():
    out = run_cli("--help").stdout
    assert "serve" in out and "version" in out


def test_unknown_command_fails_with_usage():
    proc = run_cli("frobnicate", check=False)
    assert proc.returncode == 64
    assert "unknown command" in proc.stderr
