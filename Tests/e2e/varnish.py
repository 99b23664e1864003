"""Varnish in front of a live `xizor serve`, with the VCL operators are given (Config/varnish/xizor.vcl).

`Varnish(directory, backend_port)` (or a list of ports: one backend per replica) starts `varnishd -F` on a free loopback port with its own work
directory (`-n`) under `directory`, `-s malloc,32m`, and the documented VCL with only its backend's
host and port replaced; it waits until Varnish answers, and `stop()` ends it and removes the work
directory. `-j none`: the default jail (`unix`) needs root and a `varnish` user; without a jail,
varnishd runs as whoever started it, root or not. `running_varnish(...)` is the same as a context
manager, and the `varnish_in_front` fixture starts one in front of any server a test passes it
(stopped after the test). varnishd comes with Debian's `varnish` package (the Makefile's APT_PKGS).
"""
import contextlib
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import time

import pytest
import requests

from conftest import ROOT

VARNISHD = os.environ.get("VARNISHD", shutil.which("varnishd") or "/usr/sbin/varnishd")
VCL = ROOT / "Config" / "varnish" / "xizor.vcl"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def vcl_for(backend_ports, backend_host="127.0.0.1"):
    """The documented VCL with its backend pointed at `backend_host` and the first of `backend_ports`
    (the file's only host and port lines, each replaced exactly once), and one more backend per
    further port, added to the director as the file tells operators to (a copy of the block under
    the name `xizor_N`, and `origin.add_backend(xizor_N);`)."""
    ports = [backend_ports] if isinstance(backend_ports, int) else list(backend_ports)
    text = VCL.read_text()
    text, hosts = re.subn(r'^(\s*\.host = )"127\.0\.0\.1";', rf'\1"{backend_host}";', text, flags=re.M)
    assert hosts == 1, "xizor.vcl names its backend's host once"
    block = re.search(r"^backend xizor \{\n.*?^\}\n", text, flags=re.M | re.S)
    added = re.search(r"^(\s*)origin\.add_backend\(xizor\);\n", text, flags=re.M)
    assert block and added, "xizor.vcl has one backend block, added to the director `origin`"
    blocks, adds = [], []
    for n, port in enumerate(ports, start=1):
        name = "xizor" if n == 1 else f"xizor_{n}"
        copy, renamed = re.subn(r"^backend xizor \{", f"backend {name} {{", block.group(0), flags=re.M)
        copy, replaced = re.subn(r'^(\s*\.port = )"8080";', rf'\1"{port}";', copy, flags=re.M)
        assert renamed == 1 and replaced == 1, "the backend block names its port once"
        blocks.append(copy)
        adds.append(f"{added.group(1)}origin.add_backend({name});\n")
    text = text[:added.start()] + "".join(adds) + text[added.end():]
    return text[:block.start()] + "\n".join(blocks) + text[block.end():]


class Varnish:
    def __init__(self, directory, backend_port, port=None, params=()):
        self.directory = pathlib.Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.workdir = self.directory / "varnish-work"
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.vcl = self.directory / "xizor.vcl"
        self.vcl.write_text(vcl_for(backend_port))
        self.log = self.directory / "varnishd.log"
        command = [VARNISHD, "-F", "-n", str(self.workdir), "-j", "none",
                   "-a", f"127.0.0.1:{self.port}", "-T", "127.0.0.1:0", "-f", str(self.vcl), "-s", "malloc,32m",
                   # Small: a test instance needs neither 2 x 100 idle threads nor an 80 MB shared log.
                   "-p", "thread_pools=1", "-p", "thread_pool_min=10", "-p", "vsl_space=4M",
                   # Ban lurker: evicts banned objects in the background; lookups check bans anyway.
                   "-p", "ban_lurker_sleep=0.1"]
        for p in params:
            command += ["-p", p]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=self.directory,
                                            start_new_session=True)
        self._wait_until_answering()

    def _wait_until_answering(self, timeout=60):
        """Compiling the VCL (cc) takes a second or two, more on a busy machine."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"varnishd exited {self.process.returncode}: {self.log.read_text()[-3000:]}")
            try:
                requests.get(self.base + "/healthz", timeout=2)
                return
            except requests.ConnectionError:
                time.sleep(0.05)
        self.stop()
        raise AssertionError(f"varnishd did not answer within {timeout} s: {self.log.read_text()[-3000:]}")

    def url(self, path):
        return self.base + path

    def stats(self):
        """varnishstat's counters: {"MAIN.cache_hit": 3, …}."""
        out = subprocess.run(["varnishstat", "-n", str(self.workdir), "-1", "-j"], capture_output=True, text=True,
                             check=True, timeout=30).stdout
        data = json.loads(out)
        counters = data.get("counters", data)  # 7.x nests them under "counters"
        return {name: c["value"] for name, c in counters.items() if isinstance(c, dict) and "value" in c}

    def adm(self, *args):
        return subprocess.run(["varnishadm", "-n", str(self.workdir), *args], capture_output=True, text=True,
                              check=True, timeout=30).stdout

    def backend_healthy(self, name="xizor"):
        """What the probe last concluded about one origin (`backend.list`; `xizor_2`… for more replicas)."""
        out = self.adm("backend.list")
        line = next(l for l in out.splitlines() if l.split() and l.split()[0].endswith("." + name))
        assert re.search(r"\b(healthy|sick)\b", line), line
        return "healthy" in line

    def wait_backend(self, healthy, timeout=10, name="xizor"):
        deadline = time.monotonic() + timeout
        while self.backend_healthy(name) != healthy:
            assert time.monotonic() < deadline, f"the probe never saw the origin {'healthy' if healthy else 'sick'}"
            time.sleep(0.1)

    def stop(self):
        if self.process.poll() is None:
            # The manager stops its child and exits on SIGTERM.
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        shutil.rmtree(self.workdir, ignore_errors=True)
        return self.process.returncode


@contextlib.contextmanager
def running_varnish(directory, backend_port, port=None, params=()):
    v = Varnish(directory, backend_port, port=port, params=params)
    try:
        yield v
    finally:
        v.stop()


@pytest.fixture
def varnish_in_front(tmp_path):
    """`varnish_in_front(server)` → a Varnish whose backend is that server, stopped after the test."""
    started = []

    def start(server, port=None, params=()):
        v = Varnish(tmp_path / f"varnish-{len(started)}", server.port, port=port, params=params)
        started.append(v)
        return v

    yield start
    for v in started:
        v.stop()
