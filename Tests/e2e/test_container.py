"""The container path without a Docker engine: build the release binary exactly as docker/Dockerfile
does, lay out the image's file tree under a temporary root, and run it as the image's entrypoint
would (its ENV, WORKDIR, USER, ENTRYPOINT + CMD), then check health, a publish, and a restart that
keeps the data. The Dockerfile is parsed, not restated, so the test follows it when it changes.

The static release build is cached in .build/container (a separate scratch path, so it does not
invalidate `make release`); from scratch it takes about two minutes on the 2-core machine."""
import json
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

import pytest
import requests

from conftest import ROOT
from xizor_server import ADMIN_TOKEN, App, create_app

# The image and its binary: the same whichever database a deployment configures.
pytestmark = pytest.mark.driver_independent

DOCKERFILE = ROOT / "docker" / "Dockerfile"
SCRATCH = ROOT / ".build" / "container"
# The build stage's context: only what its COPY lines bring in, so a file the build needs but the
# Dockerfile forgets to copy fails here too. Synced file by file (unchanged files keep their inode
# and mtime) so the cached build stays incremental.
CONTEXT = ROOT / ".build" / "container-context"
# What the binary may name as a dependency (ELF NEEDED): the packages the image adds (libpq5's and
# libcurl4's own dependencies come with them from apt; libargon2-1 and libqrencode4 for people's
# passwords and second factor), plus what debian:bookworm-slim has.
ALLOWED_LIBRARIES = {"libsqlite3.so.0", "libz.so.1", "libpq.so.5", "libcrypto.so.3", "libcurl.so.4", "libargon2.so.1",
                     "libqrencode.so.4", "ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1",
                     "libpthread.so.0", "libdl.so.2", "librt.so.1", "libutil.so.1"}


def parse_dockerfile():
    """Instructions of the build stage and of the final stage, continuation lines joined."""
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    stages = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, rest = line.partition(" ")
        instruction = instruction.upper()
        if instruction == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((instruction, rest.strip()))
    assert len(stages) == 2, "multi-stage: a build stage and a runtime stage"
    return stages


BUILD_LOCK = "/tmp/xizor-build.lock"


def ancestor_holds_build_lock():
    """True when a process above this one (e.g. `flock BUILD_LOCK make test`) holds the build lock:
    taking it again here would wait for ourselves forever."""
    try:
        inode = os.stat(BUILD_LOCK).st_ino
        holders = {int(line.split()[4]) for line in open("/proc/locks")
                   if line.split()[1] == "FLOCK" and line.split()[5].split(":")[-1] == str(inode)}
    except (OSError, ValueError, IndexError):
        return False
    pid = os.getppid()
    while pid > 1:
        if pid in holders:
            return True
        try:
            pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def sync_tree(source, destination):
    """Makes `destination` a copy of `source` (a file or a folder), copying only what changed."""
    if source.is_file():
        destination.parent.mkdir(parents=True, exist_ok=True)
        if not destination.exists() or destination.read_bytes() != source.read_bytes():
            shutil.copy2(source, destination)
        return
    wanted = set()
    for directory, _, files in os.walk(source):
        for name in files:
            relative = os.path.relpath(os.path.join(directory, name), source)
            if "__pycache__" in relative or relative.startswith(".") or "/." in relative:
                continue
            wanted.add(relative)
            sync_tree(source / relative, destination / relative)
    for directory, _, files in os.walk(destination):
        for name in files:
            relative = os.path.relpath(os.path.join(directory, name), destination)
            if relative not in wanted:
                os.remove(destination / relative)


def build_context(build_stage):
    """Lays out the build stage's WORKDIR from its COPY lines (sources relative to the repository)."""
    workdir = next(rest for ins, rest in build_stage if ins == "WORKDIR")
    for ins, rest in build_stage:
        if ins != "COPY":
            continue
        *sources, destination = rest.split()
        assert not any(p.startswith("--") for p in sources), "the build stage copies from the build context only"
        target = pathlib.PurePosixPath(destination if destination.startswith("/") else f"{workdir}/{destination}")
        relative = target.relative_to(workdir)
        for source in sources:
            into = CONTEXT / relative / (pathlib.Path(source).name if destination.endswith("/") else "")
            sync_tree(ROOT / source, into)
    return CONTEXT


def exec_form(value):
    return json.loads(value) if value.startswith("[") else shlex.split(value)


@pytest.fixture(scope="module")
def image():
    build, runtime = parse_dockerfile()
    build_cmd = next(rest for ins, rest in build if ins == "RUN" and "swift build" in rest)
    command = re.search(r"(swift build [^&]*)", build_cmd).group(1).split()
    assert "--static-swift-stdlib" in command and "-c" in command
    started = time.monotonic()
    context = build_context(build)
    lock = [] if ancestor_holds_build_lock() else ["flock", BUILD_LOCK]
    proc = subprocess.run([*lock, *command, "--scratch-path", str(SCRATCH)],
                          cwd=context, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    print(f"static release build: {time.monotonic() - started:.1f} s")
    binary = SCRATCH / "release" / "xizor"
    assert binary.exists()

    env, workdir, user, entrypoint, cmd, copies, healthcheck, exposed, volumes = {}, None, None, [], [], [], None, [], []
    for ins, rest in runtime:
        if ins == "ENV":
            for pair in shlex.split(rest):
                key, _, val = pair.partition("=")
                env[key] = val
        elif ins == "WORKDIR":
            workdir = rest
        elif ins == "USER":
            user = rest
        elif ins == "ENTRYPOINT":
            entrypoint = exec_form(rest)
        elif ins == "CMD":
            cmd = exec_form(rest)
        elif ins == "COPY":
            parts = rest.split()
            copies.append((parts[-2], parts[-1], any(p.startswith("--from=") for p in parts)))
        elif ins == "HEALTHCHECK":
            healthcheck = exec_form(rest.split(" CMD ", 1)[1].strip())
        elif ins == "EXPOSE":
            exposed.append(rest)
        elif ins == "VOLUME":
            volumes += exec_form(rest)
        elif ins == "RUN":
            packages = re.search(r"apt-get install -y --no-install-recommends ([^&]*)", rest)
            if packages:
                assert set(packages.group(1).split()) == {"libsqlite3-0", "zlib1g", "libpq5", "libssl3", "libcurl4", "libargon2-1",
                                                          "libqrencode4", "ca-certificates"}, \
                    "the runtime adds only the C libraries the binary links (and the CAs webhooks verify HTTPS with)"
    assert user and not user.startswith("0") and user != "root", "runs as a non-root user"
    assert volumes == ["/data"] and env["XIZOR_DATA_DIR"] == "/data"
    assert exposed == [env["XIZOR_PORT"]]
    assert [(src, dest) for src, dest, _ in copies if not _] == [], "the image holds the binary alone (defaults and migrations are compiled in)"
    uid, _, gid = user.partition(":")
    return {"binary": binary, "env": env, "workdir": workdir, "uid": int(uid), "gid": int(gid or uid),
            "entrypoint": entrypoint, "cmd": cmd, "healthcheck": healthcheck}


def test_the_binary_links_only_what_the_runtime_image_has(image):
    out = subprocess.run(["readelf", "-d", str(image["binary"])], capture_output=True, text=True, check=True).stdout
    linked = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))
    assert linked, "readelf listed the binary's dependencies"
    assert linked <= ALLOWED_LIBRARIES, linked - ALLOWED_LIBRARIES
    assert "libswiftCore.so" not in out and "libFoundation.so" not in out, "the Swift runtime is static"


class RootFS:
    """The image's file tree under a temporary directory; `/x` in the image is `root/x` here."""

    def __init__(self, image):
        self.image = image
        self.root = tempfile.mkdtemp(prefix="xizor-image-")
        os.chmod(self.root, 0o755)  # the non-root user must be able to traverse it
        self.path("/usr/local/bin").mkdir(parents=True)
        shutil.copy2(image["binary"], self.path("/usr/local/bin/xizor"))
        self.path("/app").mkdir()
        self.path("/data").mkdir()
        os.chown(self.path("/data"), image["uid"], image["gid"])
        for directory, _, files in os.walk(self.root):
            os.chmod(directory, 0o755)
            for name in files:
                os.chmod(os.path.join(directory, name), 0o755 if name == "xizor" else 0o644)

    def path(self, image_path):
        import pathlib
        return pathlib.Path(self.root + image_path)

    def translate(self, argument):
        return str(self.path(argument)) if argument.startswith("/") else argument

    def environment(self, **overrides):
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "XIZOR_ADMIN_TOKEN": ADMIN_TOKEN}
        for key, value in self.image["env"].items():
            env[key] = self.translate(value) if key == "XIZOR_DATA_DIR" else value
        env.update(overrides)
        return env

    def as_user(self, argv):
        return ["setpriv", f"--reuid={self.image['uid']}", f"--regid={self.image['gid']}", "--clear-groups",
                *[self.translate(a) for a in argv]]

    def start(self):
        """ENTRYPOINT + CMD, as the image's user, in its WORKDIR, with its ENV (port 0: a free one)."""
        argv = self.as_user(self.image["entrypoint"] + self.image["cmd"])
        process = subprocess.Popen(argv, cwd=self.path(self.image["workdir"]), env=self.environment(XIZOR_PORT="0"),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = process.stdout.readline()
        assert line, process.stderr.read()
        event = json.loads(line)
        assert event["event"] == "listening" and event["host"] == "0.0.0.0"
        return process, event["port"]

    def healthcheck(self, port):
        return subprocess.run(self.as_user(self.image["healthcheck"]), cwd=self.path(self.image["workdir"]),
                              env=self.environment(XIZOR_PORT=str(port)), capture_output=True, text=True, timeout=10)


def stop(process):
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=30)


def test_the_image_layout_serves_publishes_and_keeps_data_across_a_restart(image):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("running as the image's non-root user needs root and setpriv (util-linux)")
    rootfs = RootFS(image)
    try:
        process, port = rootfs.start()
        base = f"http://127.0.0.1:{port}"
        try:
            status = open(f"/proc/{process.pid}/status").read()
            assert re.search(rf"^Uid:\s+{image['uid']}\s", status, re.M), "the server runs as the image's user"
            assert rootfs.healthcheck(port).returncode == 0, "the HEALTHCHECK command passes"
            assert requests.get(base + "/readyz", timeout=10).status_code == 200

            class Server:
                pass
            server = Server()
            server.base = base
            app = App(server, create_app(base))
            pw = app.create_paywall("cinematic")
            assert app.publish(pw)["version"] == 1
            app.assign("onboarding", pw)
            before = app.sdk.get("/v1/sdk/placements/onboarding/paywall", headers={"Accept": "application/json"})
            assert before.status_code == 200 and before.json()["version"] == 1
        finally:
            assert stop(process) == 0, "SIGTERM drains and exits 0"
        assert rootfs.healthcheck(port).returncode == 1, "the health check fails when nothing answers"
        files = os.listdir(rootfs.path("/data"))
        assert "xizor.sqlite" in files and "xizor.sqlite-wal" not in files, "a clean stop leaves one checkpointed file"
        assert all(os.stat(rootfs.path("/data") / f).st_uid == image["uid"] for f in files)

        process, port = rootfs.start()
        try:
            app.sdk.base = app.dashboard.base = f"http://127.0.0.1:{port}"
            after = app.sdk.get("/v1/sdk/placements/onboarding/paywall", headers={"Accept": "application/json"})
            assert after.status_code == 200 and after.content == before.content
            assert after.headers["ETag"] == before.headers["ETag"]
            assert [v["version"] for v in app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"]] == [1]
        finally:
            assert stop(process) == 0
    finally:
        shutil.rmtree(rootfs.root, ignore_errors=True)
