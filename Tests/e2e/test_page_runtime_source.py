"""The page runtime is a real JavaScript file: node parses it, and the binary serves exactly it."""
import pathlib
import shutil
import subprocess

import pytest

from conftest import BIN, ROOT

RUNTIME = pathlib.Path(ROOT) / "Sources" / "PaywallRenderer" / "Runtime" / "runtime.js"


@pytest.mark.driver_independent
def test_node_parses_the_runtime_and_the_binary_carries_it():
    node = shutil.which("node")
    assert node, "nodejs is installed by make test"
    checked = subprocess.run([node, "--check", str(RUNTIME)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    printed = subprocess.run([BIN, "render", "--runtime-js"], capture_output=True, text=True, check=True).stdout
    assert printed + "\n" == RUNTIME.read_text(), "runtime.js changed since make embed"
