"""A webhook receiver for the live tests (docs/integrations.md, "Webhooks"): a real HTTP or HTTPS
server on a loopback port in the test process that records every request it is sent (method, path,
headers, the raw body as received, what it answered) and can be told to fail.

    receiver = Receiver()                  # plain HTTP; Receiver(tls=TestCertificates(dir)) for HTTPS
    receiver.fail_next(3)                  # the next 3 requests answer 500
    receiver.fail_next(1, mode="hang")     # the next request gets no answer for `hang_seconds`
    receiver.fail_always()                 # every request answers 500 until `recover()`
    receiver.fail_next(2, mode=REDIRECT)   # the next 2 answer 307 to `receiver.redirect_to`
    receiver.stop(); receiver.start()      # connections refused in between; the same port after

`TestCertificates` makes a private CA and a server certificate it signed (for 127.0.0.1 and
localhost) with the `openssl` command line; the server trusts the CA through `webhooks.caFile`.
"""
import http.server
import socket
import ssl
import subprocess
import threading
import time

HANG = "hang"
ERROR = "500"
REDIRECT = "307"   # answers 307 with Location: the receiver's `redirect_to`


class Recorded:
    """One request as the receiver saw it. `status` is what it answered (None: no answer, it hung)."""

    def __init__(self, method, path, headers, body, status):
        self.method = method
        self.path = path
        self.headers = headers  # an email.message.Message: case-insensitive get(), get_all()
        self.body = body        # bytes, exactly as received
        self.status = status
        self.at = time.time()

    @property
    def ok(self):
        return self.status is not None and 200 <= self.status < 300

    def header(self, name):
        return self.headers.get(name)

    def json(self):
        import json
        return json.loads(self.body)

    def __repr__(self):
        return f"<{self.method} {self.path} {self.header('Xizor-Event-Type')} {self.header('Xizor-Event-Id')} → {self.status}>"


class TestCertificates:
    """A private CA (`ca_file`) and a server certificate and key it signed for 127.0.0.1 and localhost."""

    __test__ = False  # not a test class, whatever pytest thinks of the name

    def __init__(self, directory):
        d = str(directory)
        self.ca_file, ca_key = f"{d}/ca.pem", f"{d}/ca.key"
        self.cert_file, self.key_file = f"{d}/server.pem", f"{d}/server.key"
        csr, ext = f"{d}/server.csr", f"{d}/server.ext"
        with open(ext, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                    "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for command in (
            ["req", "-x509", *ec, "-keyout", ca_key, "-out", self.ca_file, "-days", "2", "-subj", "/CN=Xizor test CA",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["req", "-new", *ec, "-keyout", self.key_file, "-out", csr, "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", csr, "-CA", self.ca_file, "-CAkey", ca_key, "-CAcreateserial",
             "-out", self.cert_file, "-days", "2", "-extfile", ext],
        ):
            subprocess.run(["openssl", *command], check=True, capture_output=True, timeout=60)

    def server_context(self):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert_file, self.key_file)
        return context


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a TLS handshake refused or a connection cut mid-request: counted, not printed


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        receiver = self.server.receiver
        receiver._track(self.request)
        if receiver.tls is not None:
            self.request.settimeout(10)
            try:
                self.request = receiver.tls.wrap_socket(self.request, server_side=True)
            except (ssl.SSLError, OSError):
                receiver._count_tls_failure()
                raise
            receiver._track(self.request)
        super().setup()

    def log_message(self, *args):
        pass

    def _body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _handle(self):
        receiver = self.server.receiver
        body = self._body()
        plan = receiver._take_plan()
        status = {HANG: None, ERROR: 500, REDIRECT: 307, None: 200}[plan]
        receiver._record(Recorded(self.command, self.path, self.headers, body, status))
        self.close_connection = True
        if plan == HANG:
            receiver._released.wait(receiver.hang_seconds)
            status = 200  # too late: the sender has given up on this attempt
        payload = b'{"ok":true}' if status == 200 else b'{"error":"told to fail"}'
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if status == 307:
                self.send_header("Location", receiver.redirect_to)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            pass

    do_POST = do_GET = do_PUT = _handle


class Receiver:
    def __init__(self, tls=None, hang_seconds=4.0):
        self.tls = tls.server_context() if tls is not None else None
        self.scheme = "https" if tls is not None else "http"
        self.hang_seconds = hang_seconds
        self.redirect_to = "/elsewhere"
        self.port = 0
        self.requests = []
        self.tls_failures = 0
        self._plans = []          # one entry per request to fail: ERROR, HANG or REDIRECT
        self._always = None       # the failure every request gets (ERROR, HANG, REDIRECT) until recover()
        self._cond = threading.Condition()
        self._released = threading.Event()
        self._sockets = set()
        self._server = None
        self.start()

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self):
        """Listens (again) on the receiver's port (a free one the first time)."""
        assert self._server is None
        self._released.clear()
        server = _Server(("127.0.0.1", self.port), _Handler)
        server.receiver = self
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def stop(self):
        """Closes the listening socket and every open connection: the next connection is refused."""
        if self._server is None:
            return
        self._released.set()
        self._server.shutdown()
        self._server.server_close()
        with self._cond:
            sockets, self._sockets = list(self._sockets), set()
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server = None

    def url(self, path="/hook", host="127.0.0.1"):
        return f"{self.scheme}://{host}:{self.port}{path}"

    # --- failures ----------------------------------------------------------------------------

    def fail_next(self, n, mode=ERROR):
        with self._cond:
            self._plans.extend([mode] * n)

    def fail_always(self, mode=ERROR):
        with self._cond:
            self._always = mode

    def recover(self):
        with self._cond:
            self._always = None
            self._plans.clear()

    # --- what arrived ------------------------------------------------------------------------

    def all(self):
        with self._cond:
            return list(self.requests)

    def successes(self):
        return [r for r in self.all() if r.ok]

    def wait_until(self, predicate, timeout, what="the receiver's requests"):
        """Waits until predicate(list of every recorded request) holds; returns that list."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(list(self.requests)):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out after {timeout} s waiting for {what}; got {self.requests} "
                                         f"(TLS handshakes refused: {self.tls_failures})")
                self._cond.wait(min(left, 0.1))
            return list(self.requests)

    def wait_for_successes(self, n, timeout=10):
        """Waits until `n` requests were answered 2xx; returns those (every one so far, in arrival order)."""
        self.wait_until(lambda rs: sum(r.ok for r in rs) >= n, timeout, f"{n} successful deliveries")
        return self.successes()

    def events(self):
        """The first successful request of each event id, in arrival order (a receiver de-duplicates on
        Xizor-Event-Id: delivery is at least once)."""
        seen, first = set(), []
        for r in self.successes():
            if r.header("Xizor-Event-Id") not in seen:
                seen.add(r.header("Xizor-Event-Id"))
                first.append(r)
        return first

    def wait_for_events(self, n, timeout=10):
        """Waits until `n` distinct events were answered 2xx; returns `events()`."""
        self.wait_until(lambda rs: len({r.header("Xizor-Event-Id") for r in rs if r.ok}) >= n, timeout,
                        f"{n} distinct events delivered")
        return self.events()

    # --- internals ---------------------------------------------------------------------------

    def _take_plan(self):
        with self._cond:
            if self._always is not None:
                return self._always
            return self._plans.pop(0) if self._plans else None

    def _record(self, recorded):
        with self._cond:
            self.requests.append(recorded)
            self._cond.notify_all()

    def _track(self, sock):
        with self._cond:
            self._sockets.add(sock)

    def _count_tls_failure(self):
        with self._cond:
            self.tls_failures += 1
            self._cond.notify_all()
