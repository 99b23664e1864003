"""Shared fixtures for the live tests: the real `xizor` binary, real sockets, temp data dirs."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

pytest_plugins = ["xizor_server"]

ROOT = pathlib.Path(os.environ.get("XIZOR_ROOT", pathlib.Path(__file__).resolve().parents[2]))
BIN = os.environ.get("XIZOR_BIN", str(ROOT / ".build" / "debug" / "xizor"))


def run_cli(*args, env=None, check=True, timeout=60):
    """Runs `xizor ARGS…` and returns the CompletedProcess."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    proc = subprocess.run([BIN, *args], capture_output=True, text=True, env=full_env, timeout=timeout, cwd=ROOT)
    if check and proc.returncode != 0:
        raise AssertionError(f"xizor {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


@pytest.fixture
def data_dir(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    return d
