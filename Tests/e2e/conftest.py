"""Shared fixtures for the live tests: the real `xizor` binary, real sockets, temp data dirs."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

from drivers import DRIVER, storage_env

pytest_plugins = ["xizor_server", "varnish"]


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_only: about the SQLite file itself; runs in the SQLite pass only")
    config.addinivalue_line("markers", "driver_independent: touches no database; runs in the SQLite pass only")


def pytest_collection_modifyitems(config, items):
    if DRIVER == "sqlite":
        return
    skip = pytest.mark.skip(reason=f"not a database test: runs in the SQLite pass")
    for item in items:
        if item.get_closest_marker("sqlite_only") or item.get_closest_marker("driver_independent"):
            item.add_marker(skip)

ROOT = pathlib.Path(os.environ.get("XIZOR_ROOT", pathlib.Path(__file__).resolve().parents[2]))
BIN = os.environ.get("XIZOR_BIN", str(ROOT / ".build" / "debug" / "xizor"))


def run_cli(*args, env=None, check=True, timeout=60):
    """Runs `xizor ARGS…` and returns the CompletedProcess (a command given `--data-dir DIR` runs on
    the database standing for DIR: see drivers.py)."""
    full_env = dict(os.environ)
    if "--data-dir" in args:
        full_env.update(storage_env(args[args.index("--data-dir") + 1]))
    for name, value in (env or {}).items():
        if value is None:
            full_env.pop(name, None)  # None removes a variable
        else:
            full_env[name] = value
    proc = subprocess.run([BIN, *args], capture_output=True, text=True, env=full_env, timeout=timeout, cwd=ROOT)
    if check and proc.returncode != 0:
        raise AssertionError(f"xizor {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


@pytest.fixture
def data_dir(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    return d
