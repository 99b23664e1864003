"""Zero-downtime restart (docs/operations.md, "Zero-downtime restart"). With `http.reusePort` on, a
new `xizor serve` binds the same port on the same data directory while the old one still serves;
the old one then gets SIGTERM and drains. Three such rolling restarts run under client loops (a new
connection per request: SDK reads and dashboard writes; keep-alive SDK readers), and not one
request may fail. Without the setting, a second server on the port fails to start, exit 1, and the
first serves on.

The one retry allowed is HTTP's own (RFC 9112 §9.3.1): a keep-alive client may resend an idempotent
request on a new connection when a reused connection closes before any byte of the response. The
keep-alive readers do exactly that and count it; the other loops never retry.

Linux resets connections still queued on a listening socket when it closes, unless
`net.ipv4.tcp_migrate_req` is 1 (Linux >= 5.14), which moves them to another socket on the port.
The procedure needs it, so the test sets it (and puts the old value back); it fails when it cannot.
"""
import json
import signal
import socket
import threading
import time

import pytest
import requests

from conftest import run_cli
from xizor_server import ADMIN_TOKEN, App, XizorServer, create_app

MIGRATE_REQ = "/proc/sys/net/ipv4/tcp_migrate_req"
PAYWALL = "/v1/sdk/placements/onboarding/paywall"
# The access log tells which process served which request id (the loops keep the ids they got).
REUSE = {"XIZOR_HTTP_REUSE_PORT": "true", "XIZOR_ACCESS_LOG": "true", "XIZOR_LOG_LEVEL": "info"}
RESTARTS = 3


@pytest.fixture
def migrate_req():
    """`net.ipv4.tcp_migrate_req=1` while the test runs; the previous value afterwards."""
    try:
        with open(MIGRATE_REQ) as f:
            previous = f.read().strip()
        with open(MIGRATE_REQ, "w") as f:
            f.write("1")
    except OSError as error:
        pytest.fail(f"cannot set net.ipv4.tcp_migrate_req=1 ({error}): the restart procedure needs it "
                    "(Linux >= 5.14, root, a writable /proc/sys); without it the kernel resets connections "
                    "still queued on the old server's socket when it closes")
    yield
    with open(MIGRATE_REQ, "w") as f:
        f.write(previous)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(data, port, env=REUSE):
    """A server on `port` (the later `--port` wins over the fixture's `--port 0`); returns once its
    `listening` line is out: the database is open and migrated, its state loaded, and it accepts."""
    server = XizorServer(data, env, args=("--port", str(port)))
    assert server.port == port
    return server


class Closed(Exception):
    """The connection ended (EOF, reset, broken pipe) before any byte of the response arrived."""


def exchange(sock, method, path, headers, body=b""):
    """One request on `sock`; returns (status, headers with lower-case names, body). Raises `Closed`
    only when no response byte came; anything else (a partial response, a timeout) raises as itself."""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    if body or method in ("POST", "PUT"):
        head += f"Content-Length: {len(body)}\r\n"
    try:
        sock.sendall(head.encode() + b"\r\n" + body)
    except (BrokenPipeError, ConnectionResetError) as error:
        raise Closed(repr(error)) from error
    received = b""
    while b"\r\n\r\n" not in received:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError as error:
            if not received:
                raise Closed(repr(error)) from error
            raise
        if not chunk:
            if not received:
                raise Closed("EOF")
            raise ConnectionError(f"closed inside the response head: {received[:200]!r}")
        received += chunk
    head_bytes, _, rest = received.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    fields = {name.strip().lower(): value.strip() for name, value in (line.split(":", 1) for line in lines[1:])}
    assert "transfer-encoding" not in fields, "this client reads Content-Length bodies only"
    length = int(fields.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed inside the body ({len(rest)} of {length} bytes)")
        rest += chunk
    return status, fields, rest[:length]


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=15)


def once(port, method, path, headers, body=b""):
    """A request on a connection of its own (`Connection: close`): no retry, whatever happens."""
    with connect(port) as sock:
        return exchange(sock, method, path, {**headers, "Connection": "close"}, body)


class Loops:
    """The client loops, run in threads until `stop`; every outcome is recorded."""

    def __init__(self, port, app, paywall):
        self.port, self.app, self.paywall = port, app, paywall
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.served = {"fresh_reads": 0, "writes": 0, "keep_alive_reads": 0}
        self.retries = []
        self.failures = []
        self.request_ids = []
        self.published = 0
        self.threads = [threading.Thread(target=self.guarded, args=(loop,), daemon=True)
                        for loop in (self.fresh_reads, self.fresh_reads, self.writes, self.keep_alive_reads,
                                     self.keep_alive_reads)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in self.threads), "a client loop hangs"

    def guarded(self, loop):
        try:
            loop()
        except Exception as error:  # a loop that dies must fail the test, not go quiet
            self.fail(loop.__name__, "loop died", repr(error))

    def fail(self, loop, what, detail):
        with self.lock:
            self.failures.append((time.monotonic(), loop, what, detail))

    def record(self, loop, fields):
        with self.lock:
            self.served[loop] += 1
            self.request_ids.append(fields.get("x-request-id", ""))

    def sdk_headers(self):
        return {"Authorization": f"Bearer {self.app.public_key}"}

    def fresh_reads(self):
        while not self.stop.is_set():
            try:
                status, fields, body = once(self.port, "GET", PAYWALL, self.sdk_headers())
            except Exception as error:
                self.fail("fresh_reads", "GET", repr(error))
                continue
            if status != 200:
                self.fail("fresh_reads", "GET", f"{status} {body[:200]!r}")
            else:
                self.record("fresh_reads", fields)

    def writes(self):
        """Draft saves with If-Match and, every fifth round, a publish: dashboard writes, each on a
        new connection, each of which must answer 2xx."""
        dashboard = {"Authorization": f"Bearer {self.app.secret_key}"}
        draft = f"/v1/paywalls/{self.paywall}/draft"
        round_ = 0
        while not self.stop.is_set():
            round_ += 1
            try:
                status, fields, body = once(self.port, "GET", draft, dashboard)
                if status != 200:
                    self.fail("writes", "GET draft", f"{status} {body[:200]!r}")
                    continue
                document = dict(json.loads(body)["document"], name=f"Saved in round {round_}")
                status, fields, body = once(self.port, "PUT", draft, {**dashboard, "If-Match": fields["etag"],
                                                                      "Content-Type": "application/json"},
                                            json.dumps(document).encode())
                if status != 200:
                    self.fail("writes", "PUT draft", f"{status} {body[:200]!r}")
                    continue
                self.record("writes", fields)
                if round_ % 5 == 0:
                    status, fields, body = once(self.port, "POST", f"/v1/paywalls/{self.paywall}/publish", dashboard)
                    if status != 201:
                        self.fail("writes", "publish", f"{status} {body[:200]!r}")
                        continue
                    self.record("writes", fields)
                    self.published = json.loads(body)["version"]
            except Exception as error:
                self.fail("writes", "request", repr(error))
            time.sleep(0.02)  # a dashboard's pace, well inside the write rate limit

    def keep_alive_reads(self):
        sock, reused = None, False
        try:
            while not self.stop.is_set():
                if sock is None:
                    sock, reused = connect(self.port), False
                try:
                    status, fields, body = exchange(sock, "GET", PAYWALL, self.sdk_headers())
                except Closed as error:
                    sock.close()
                    sock = None
                    if reused:  # RFC 9112 §9.3.1: GET is idempotent and no response byte came
                        with self.lock:
                            self.retries.append(str(error))
                    else:
                        self.fail("keep_alive_reads", "GET on a new connection", str(error))
                    continue
                except Exception as error:
                    sock.close()
                    sock = None
                    self.fail("keep_alive_reads", "GET", repr(error))
                    continue
                if status != 200:
                    self.fail("keep_alive_reads", "GET", f"{status} {body[:200]!r}")
                else:
                    self.record("keep_alive_reads", fields)
                reused = True
                if fields.get("connection", "").lower() == "close":  # the server drains: next request anew
                    sock.close()
                    sock = None
        finally:
            if sock is not None:
                sock.close()


def served_request_ids(server):
    """The request ids in `server`'s access log (after it exited, its whole log)."""
    server._reader.join(timeout=10)
    ids = set()
    for line in server.stderr_lines:
        entry = json.loads(line)
        if entry.get("message") == "request":
            ids.add(entry["requestId"])
    return ids


def test_rolling_restarts_with_reuse_port_drop_no_request(tmp_path, migrate_req):
    data = tmp_path / "data"
    port = free_port()
    current = serve(data, port)
    generations = [current]
    loops = None
    try:
        app = App(current, create_app(current.base, "Rolling restarts"))
        paywall = app.create_paywall()
        app.publish(paywall)
        app.assign("onboarding", paywall)

        loops = Loops(port, app, paywall)
        loops.start()
        time.sleep(1.0)
        for _ in range(RESTARTS):
            successor = serve(data, port)
            generations.append(successor)
            time.sleep(1.0)  # both serve: the kernel spreads new connections over the two sockets
            current.process.send_signal(signal.SIGTERM)
            assert current.process.wait(timeout=30) == 0, "the old server drains and exits 0"
            current = successor
            time.sleep(0.5)
        time.sleep(1.0)
        loops.finish()
        # The last publish is live on the process that is left, whichever process made it.
        status, _, body = once(port, "GET", PAYWALL, loops.sdk_headers())
        assert status == 200 and json.loads(body)["version"] == loops.published, (status, body[:200], loops.published)
    finally:
        if loops is not None:
            loops.stop.set()
        for server in generations:
            if server is not current:
                server.stop()  # only left running when the procedure failed half-way
        assert current.stop() == 0

    total = sum(loops.served.values())
    logged = [served_request_ids(server) for server in generations]
    per_generation = [sum(1 for rid in loops.request_ids if rid in ids) for ids in logged]
    print(f"\nzero-downtime restart: {total} requests served {loops.served}, per process {per_generation}, "
          f"{len(loops.retries)} keep-alive retries (RFC 9112 §9.3.1), {len(loops.failures)} failures")
    assert loops.failures == [], loops.failures[:20]
    assert loops.served["fresh_reads"] > 100 and loops.served["writes"] > 20 and loops.served["keep_alive_reads"] > 100, loops.served
    assert loops.published > 0
    assert all(count > 0 for count in per_generation), f"every one of the {len(generations)} processes served the loops: {per_generation}"
    assert sum(per_generation) == total, "every answer came from one of these processes"


@pytest.mark.parametrize("first_reuses, second_reuses", [(False, False), (True, False), (False, True)])
def test_without_reuse_port_on_both_a_second_server_cannot_bind_and_the_first_serves_on(tmp_path, first_reuses, second_reuses):
    data = tmp_path / "data"
    port = free_port()
    first = serve(data, port, {"XIZOR_HTTP_REUSE_PORT": str(first_reuses).lower()})
    try:
        app = App(first, create_app(first.base, "Port in use"))
        paywall = app.create_paywall()
        app.publish(paywall)
        app.assign("onboarding", paywall)
        second = run_cli("serve", "--port", str(port), "--data-dir", str(data), check=False, timeout=60,
                         env={"XIZOR_ADMIN_TOKEN": ADMIN_TOKEN, "XIZOR_HTTP_REUSE_PORT": str(second_reuses).lower()})
        assert second.returncode == 1, (second.returncode, second.stderr)  # docs/operations.md, "Exit statuses"
        assert second.stdout == "", "no `listening` line"
        assert f"cannot listen on 127.0.0.1:{port}: bind failed: Address already in use" in second.stderr, second.stderr
        assert "http.reusePort" in second.stderr and "XIZOR_HTTP_REUSE_PORT=true" in second.stderr
        assert requests.get(first.base + "/readyz", timeout=10).status_code == 200
        assert app.sdk.get(PAYWALL).status_code == 200
    finally:
        assert first.stop() == 0
