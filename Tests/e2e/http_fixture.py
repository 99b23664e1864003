"""Starts `xizor-http-fixture` on port 0 and speaks raw HTTP/1.1 to it over real sockets."""
import json
import os
import socket
import subprocess
import threading
import time

from conftest import ROOT

FIXTURE = os.environ.get("XIZOR_HTTP_FIXTURE", str(ROOT / ".build" / "debug" / "xizor-http-fixture"))


class FixtureServer:
    def __init__(self, *flags):
        self.proc = subprocess.Popen([FIXTURE, "--port", "0", *flags], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        event = json.loads(line)
        assert event["event"] == "listening", line
        self.port = event["port"]
        self.host = event["host"]
        self.stderr_lines = []
        self._reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self._reader.start()

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line)

    def connect(self, timeout=30):
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Response:
    def __init__(self, status, reason, headers, body):
        self.status = status
        self.reason = reason
        self.headers = headers  # list of (name, value) in order
        self.body = body

    def header(self, name):
        for n, v in self.headers:
            if n.lower() == name.lower():
                return v
        return None

    def json(self):
        return json.loads(self.body)


class Reader:
    """Reads responses off one socket, keeping leftovers between them (pipelining)."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("connection closed")
        self.buf += data

    def read_until(self, marker):
        while marker not in self.buf:
            self._fill()
        i = self.buf.index(marker) + len(marker)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def read_exact(self, n):
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def read_response(self, head_request=False):
        head = self.read_until(b"\r\n\r\n").decode("latin-1")
        lines = head.split("\r\n")
        version, status, reason = lines[0].split(" ", 2)
        assert version == "HTTP/1.1", lines[0]
        headers = []
        for line in lines[1:]:
            if line:
                name, value = line.split(":", 1)
                headers.append((name, value.strip()))
        resp = Response(int(status), reason, headers, b"")
        if head_request or resp.status in (100, 204, 304):
            return resp
        if (resp.header("Transfer-Encoding") or "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.read_until(b"\r\n")[:-2].split(b";")[0], 16)
                if size == 0:
                    self.read_until(b"\r\n")
                    break
                body += self.read_exact(size)
                assert self.read_exact(2) == b"\r\n"
            resp.body = body
        elif resp.header("Content-Length") is not None:
            resp.body = self.read_exact(int(resp.header("Content-Length")))
        else:
            while True:
                try:
                    self._fill()
                except EOFError:
                    break
            resp.body, self.buf = self.buf, b""
        return resp

    def at_eof(self, timeout=30):
        """True when the peer closed (EOF or reset) within `timeout` seconds with no more data."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            return True
        return data == b"" and self.buf == b""


def request(method, target, headers=(), body=b"", host="x"):
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    lines += [f"{k}: {v}" for k, v in headers]
    if body and not any(k.lower() in ("content-length", "transfer-encoding") for k, _ in headers):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def wait_for(predicate, timeout=30.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
