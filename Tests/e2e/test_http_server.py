"""Live tests of the HTTP core: a real `xizor-http-fixture` on loopback port 0, real sockets."""
import gzip
import json
import os
import resource
import signal
import socket
import subprocess
import time
import zlib

import pytest

from http_fixture import FixtureServer, Reader, request, wait_for

# No database: the HTTP core, the renderer and the format run the same whatever stores the data.
pytestmark = pytest.mark.driver_independent


@pytest.fixture(scope="module")
def server():
    s = FixtureServer()
    yield s
    s.stop()


def roundtrip(server, raw, head_request=False):
    with server.connect() as sock:
        sock.sendall(raw)
        return Reader(sock).read_response(head_request=head_request)


def test_healthz_and_framing(server):
    r = roundtrip(server, request("GET", "/healthz"))
    assert r.status == 200
    assert r.json() == {"status": "ok"}
    assert r.header("Content-Length") == str(len(r.body))
    assert r.header("Date").endswith(" GMT")
    assert r.header("X-Request-Id")


def test_keep_alive_serves_many_requests_on_one_socket(server):
    with server.connect() as sock:
        reader = Reader(sock)
        for i in range(5):
            sock.sendall(request("GET", f"/echo?i={i}"))
            r = reader.read_response()
            assert r.status == 200
            assert r.json()["query"] == [["i", str(i)]]
            assert r.header("Connection") is None


def test_three_pipelined_requests_in_one_write_answer_in_order(server):
    raw = (request("GET", "/echo?n=1") + request("GET", "/slow?ms=200")
           + request("POST", "/echo?n=3", body=b"third"))
    with server.connect() as sock:
        sock.sendall(raw)
        reader = Reader(sock)
        first, second, third = (reader.read_response() for _ in range(3))
    assert first.json()["query"] == [["n", "1"]]
    assert second.body == b"slept 200\n"
    assert third.json()["body"] == "third"


def test_connection_close_is_honoured(server):
    with server.connect() as sock:
        sock.sendall(request("GET", "/healthz", [("Connection", "close")]))
        reader = Reader(sock)
        r = reader.read_response()
        assert r.header("Connection") == "close"
        assert reader.at_eof()


def test_http10_keep_alive_only_when_asked(server):
    with server.connect() as sock:
        sock.sendall(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        reader = Reader(sock)
        r = reader.read_response()
        assert r.header("Connection") == "keep-alive"
        sock.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
        r = reader.read_response()
        assert r.header("Connection") == "close"
        assert reader.at_eof()


def test_chunked_upload_with_extensions_and_trailers(server):
    raw = (b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"5;name=value\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: gone\r\n\r\n")
    r = roundtrip(server, raw)
    body = r.json()
    assert body["body"] == "hello, world"
    assert body["bodyLength"] == 12


def test_expect_100_continue(server):
    with server.connect() as sock:
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        reader = Reader(sock)
        interim = reader.read_response()
        assert interim.status == 100
        sock.sendall(b"ping")
        final = reader.read_response()
        assert final.status == 200
        assert final.json()["body"] == "ping"


def test_head_has_get_headers_and_no_body(server):
    get = roundtrip(server, request("GET", "/bench"))
    with server.connect() as sock:
        sock.sendall(request("HEAD", "/bench") + request("GET", "/healthz"))
        reader = Reader(sock)
        head = reader.read_response(head_request=True)
        after = reader.read_response()  # proves no body bytes followed the HEAD answer
    assert head.status == 200
    assert head.header("Content-Length") == get.header("Content-Length") == str(len(get.body))
    assert head.header("ETag") == get.header("ETag")
    assert after.json() == {"status": "ok"}


def test_options_and_405_and_404(server):
    r = roundtrip(server, request("OPTIONS", "/healthz"))
    assert r.status == 204 and r.header("Allow") == "GET, HEAD, OPTIONS"
    r = roundtrip(server, request("DELETE", "/healthz"))
    assert r.status == 405 and r.header("Allow") == "GET, HEAD, OPTIONS"
    assert r.header("Content-Type") == "application/problem+json"
    r = roundtrip(server, request("GET", "/nope"))
    assert r.status == 404 and r.json()["code"] == "not_found"
    r = roundtrip(server, b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
    assert r.status == 204 and "GET" in r.header("Allow")


def test_path_parameters_percent_decoding_and_absolute_form(server):
    r = roundtrip(server, request("GET", "http://example.com/items/a%2Bb%20c/versions/7?q=x+y&z=%C3%A9"))
    body = r.json()
    assert body["params"] == {"id": "a+b c", "n": "7"}
    assert body["query"] == [["q", "x y"], ["z", "é"]]
    assert body["route"] == "/items/:id/versions/:n"
    # An encoded slash is data inside one segment, never a separator; a fragment is no target.
    r = roundtrip(server, request("GET", "/items/a%2Fb%252F/versions/7"))
    assert r.json()["params"] == {"id": "a/b%2F", "n": "7"}
    assert roundtrip(server, request("GET", "/items%2Fa%2Fversions%2F7")).status == 404
    assert roundtrip(server, request("GET", "/items/a/versions/7#frag")).status == 400


def test_gzip_round_trip_with_zlib(server):
    identity = roundtrip(server, request("GET", "/large"))
    zipped = roundtrip(server, request("GET", "/large", [("Accept-Encoding", "br;q=1, gzip;q=0.8")]))
    assert zipped.header("Content-Encoding") == "gzip"
    assert zipped.header("Vary") == identity.header("Vary") == "Accept-Encoding"
    assert len(zipped.body) < len(identity.body) // 5
    assert zlib.decompress(zipped.body, 16 + zlib.MAX_WBITS) == identity.body
    assert zipped.header("ETag") != identity.header("ETag")
    refused = roundtrip(server, request("GET", "/large", [("Accept-Encoding", "gzip;q=0, identity")]))
    assert refused.header("Content-Encoding") is None and refused.body == identity.body
    star = roundtrip(server, request("GET", "/large", [("Accept-Encoding", "*")]))
    assert star.header("Content-Encoding") == "gzip"


def test_precomputed_gzip_representation(server):
    identity = roundtrip(server, request("GET", "/bench"))
    zipped = roundtrip(server, request("GET", "/bench", [("Accept-Encoding", "gzip")]))
    assert zipped.header("Content-Encoding") == "gzip"
    assert gzip.decompress(zipped.body) == identity.body
    assert identity.header("ETag") == '"bench-6k-v1"'
    assert zipped.header("ETag") == '"bench-6k-v1-gzip"'
    small = roundtrip(server, request("GET", "/healthz", [("Accept-Encoding", "gzip")]))
    assert small.header("Content-Encoding") is None


def test_gzip_with_curl_compressed(server):
    url = f"http://{server.host}:{server.port}/large"
    plain = subprocess.run(["curl", "-s", url], capture_output=True, check=True, timeout=60).stdout
    compressed = subprocess.run(["curl", "-s", "--compressed", "-D", "-", "-o", "/dev/null", url],
                                capture_output=True, check=True, timeout=60).stdout.decode()
    assert "content-encoding: gzip" in compressed.lower()
    decoded = subprocess.run(["curl", "-s", "--compressed", url], capture_output=True, check=True, timeout=60).stdout
    assert decoded == plain and len(plain) > 100_000


def test_conditional_get_304_and_412(server):
    first = roundtrip(server, request("GET", "/bench"))
    tag = first.header("ETag")
    for inm in (tag, f'W/{tag}', f'"other", {tag}', "*"):
        r = roundtrip(server, request("GET", "/bench", [("If-None-Match", inm)]))
        assert r.status == 304, inm
        assert r.body == b""
        assert r.header("ETag") == tag
        assert r.header("Cache-Control") == "no-cache"
        assert r.header("Vary") == "Accept-Encoding"
        assert r.header("Content-Length") is None
    miss = roundtrip(server, request("GET", "/bench", [("If-None-Match", '"stale"')]))
    assert miss.status == 200 and miss.body == first.body
    zipped = roundtrip(server, request("GET", "/bench", [("If-None-Match", '"bench-6k-v1-gzip"'), ("Accept-Encoding", "gzip")]))
    assert zipped.status == 304 and zipped.header("ETag") == '"bench-6k-v1-gzip"'
    put = roundtrip(server, request("PUT", "/etag", [("If-None-Match", '"small-v1"')], body=b"{}"))
    assert put.status == 412
    assert put.header("Content-Type") == "application/problem+json"
    head = roundtrip(server, request("HEAD", "/etag", [("If-None-Match", '"small-v1"')]), head_request=True)
    assert head.status == 304


def test_throwing_handler_is_500_problem_and_server_keeps_serving(server):
    with server.connect() as sock:
        sock.sendall(request("GET", "/throw"))
        reader = Reader(sock)
        r = reader.read_response()
        assert r.status == 500
        assert r.header("Content-Type") == "application/problem+json"
        problem = r.json()
        assert set(problem) == {"type", "title", "status", "detail", "code"}
        assert problem["status"] == 500
        sock.sendall(request("GET", "/problem"))
        r = reader.read_response()
        assert r.status == 422 and r.json()["code"] == "fixture_problem"
        sock.sendall(request("GET", "/healthz"))
        assert reader.read_response().status == 200


def test_streamed_body_uses_chunked_encoding(server):
    r = roundtrip(server, request("GET", "/stream?chunks=50"))
    assert r.header("Transfer-Encoding") == "chunked"
    assert r.header("Content-Length") is None
    assert r.body == b"".join(f"chunk {i}\n".encode() for i in range(50))
    head = roundtrip(server, request("HEAD", "/stream"), head_request=True)
    assert head.header("Transfer-Encoding") == "chunked"


def test_request_id_is_taken_or_generated(server):
    r = roundtrip(server, request("GET", "/echo", [("X-Request-Id", "abc-123")]))
    assert r.header("X-Request-Id") == "abc-123" and r.json()["requestId"] == "abc-123"
    a = roundtrip(server, request("GET", "/healthz")).header("X-Request-Id")
    b = roundtrip(server, request("GET", "/healthz")).header("X-Request-Id")
    assert a and b and a != b


def test_access_log_line_per_request(server):
    roundtrip(server, request("GET", "/echo?log=1", [("X-Request-Id", "log-probe-1")]))
    def logged():
        return [json.loads(l) for l in server.stderr_lines if "log-probe-1" in l]
    assert wait_for(lambda: len(logged()) == 1)
    line = logged()[0]
    assert line["method"] == "GET" and line["path"] == "/echo" and line["status"] == 200
    assert line["bytes"] > 0 and line["micros"] >= 0 and line["requestId"] == "log-probe-1"


def test_unknown_method_is_501(server):
    r = roundtrip(server, request("PURGE", "/healthz"))
    assert r.status == 501


@pytest.mark.parametrize("raw,status", [
    (b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
    (b"GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    (b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-Big: " + b"b" * 40000 + b"\r\n\r\n", 431),
    (b"GET / HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\n\r\n", 400),
    (b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
    (b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", 413),
])
def test_malformed_requests_get_exact_status_and_close(server, raw, status):
    with server.connect() as sock:
        sock.sendall(raw)
        reader = Reader(sock)
        r = reader.read_response()
        assert r.status == status
        assert r.header("Connection") == "close"
        assert r.header("Content-Type") == "application/problem+json"
        assert reader.at_eof()


def test_slow_handler_does_not_stall_other_connections(server):
    with server.connect() as slow, server.connect() as fast:
        slow.sendall(request("GET", "/slow?ms=3000"))
        time.sleep(0.2)
        fast.sendall(request("GET", "/healthz"))
        assert Reader(fast).read_response().status == 200
        slow.settimeout(0.0)
        with pytest.raises(BlockingIOError):
            slow.recv(1)  # the slow answer is still pending while /healthz was answered
        slow.settimeout(30)
        assert Reader(slow).read_response().body == b"slept 3000\n"


def test_thousand_concurrent_connections_all_served(server):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    socks = []
    try:
        for _ in range(1000):
            socks.append(server.connect(timeout=60))
        for i, s in enumerate(socks):
            s.sendall(request("GET", f"/echo?i={i}"))
        for i, s in enumerate(socks):
            r = Reader(s).read_response()
            assert r.status == 200 and r.json()["query"] == [["i", str(i)]]
    finally:
        for s in socks:
            s.close()


def test_slowloris_gets_408_and_close():
    s = FixtureServer("--headerReadTimeoutMs", "1000")
    try:
        with s.connect() as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            for _ in range(3):
                time.sleep(0.3)
                sock.sendall(b"a")
            reader = Reader(sock)
            r = reader.read_response()
            assert r.status == 408
            assert r.header("Connection") == "close"
            assert reader.at_eof()
        with s.connect() as sock:  # the server is still fine
            sock.sendall(request("GET", "/healthz"))
            assert Reader(sock).read_response().status == 200
    finally:
        s.stop()


def test_idle_keep_alive_connection_is_closed():
    s = FixtureServer("--idleTimeoutMs", "500")
    try:
        with s.connect() as sock:
            sock.sendall(request("GET", "/healthz"))
            reader = Reader(sock)
            assert reader.read_response().status == 200
            assert reader.at_eof(timeout=30)
    finally:
        s.stop()


def test_requests_per_connection_limit():
    s = FixtureServer("--maxRequestsPerConnection", "3")
    try:
        with s.connect() as sock:
            reader = Reader(sock)
            for i in range(3):
                sock.sendall(request("GET", "/healthz"))
                r = reader.read_response()
            assert r.header("Connection") == "close"
            assert reader.at_eof()
    finally:
        s.stop()


def test_max_connections_refuses_new_and_keeps_existing():
    s = FixtureServer("--maxConnections", "4")
    try:
        held = [s.connect() for _ in range(4)]
        readers = [Reader(h) for h in held]
        for h, r in zip(held, readers):
            h.sendall(request("GET", "/healthz"))
            assert r.read_response().status == 200
        extra = s.connect()
        try:
            extra.sendall(request("GET", "/healthz"))
        except OSError:
            pass
        assert Reader(extra).at_eof()
        extra.close()
        for h, r in zip(held, readers):
            h.sendall(request("GET", "/healthz"))
            assert r.read_response().status == 200
        held[0].close()
        def served():
            try:
                with s.connect() as again:
                    again.sendall(request("GET", "/healthz"))
                    return Reader(again).read_response().status == 200
            except (EOFError, OSError):
                return False
        assert wait_for(served)
        for h in held[1:]:
            h.close()
    finally:
        s.stop()


def _cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_out_of_descriptors_pauses_accepting_then_serves_the_queue():
    """The listening socket sits in the loops' epoll sets, level-triggered: a server that cannot
    accept (EMFILE) must stop polling it for a moment instead of waking at every wait, and take the
    queued connections once descriptors are free again."""
    s = FixtureServer()
    try:
        pid = s.proc.pid
        open_now = len(os.listdir(f"/proc/{pid}/fd"))
        held = [s.connect() for _ in range(3)]
        for h in held:
            h.sendall(request("GET", "/healthz"))
            assert Reader(h).read_response().status == 200
        # No descriptor left for another connection: the next ones wait in the kernel's queue.
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (open_now + 3, open_now + 3))
        waiting = [s.connect() for _ in range(3)]
        for w in waiting:
            w.sendall(request("GET", "/healthz"))
        time.sleep(0.3)
        before = _cpu_seconds(pid)
        time.sleep(1.5)
        spent = _cpu_seconds(pid) - before
        assert spent < 0.3, f"{spent:.2f} s of CPU in 1.5 s while out of descriptors: accepting spins"
        for h in held:
            h.close()
        for w in waiting:
            w.settimeout(10)
            assert Reader(w).read_response().status == 200
            w.close()
    finally:
        s.stop()


def test_sigterm_finishes_in_flight_request_then_exits_zero():
    s = FixtureServer("--drainTimeoutMs", "20000")
    idle = s.connect()
    Reader_idle = Reader(idle)
    idle.sendall(request("GET", "/healthz"))
    assert Reader_idle.read_response().status == 200
    with s.connect() as sock:
        sock.sendall(request("GET", "/slow?ms=1500"))
        time.sleep(0.3)
        s.proc.send_signal(signal.SIGTERM)
        reader = Reader(sock)
        r = reader.read_response()
        assert r.status == 200 and r.body == b"slept 1500\n"
        assert r.header("Connection") == "close"
        assert reader.at_eof()
    assert Reader_idle.at_eof()  # idle keep-alive connections are closed by the drain
    idle.close()
    assert s.proc.wait(timeout=30) == 0
    with pytest.raises(OSError):
        socket.create_connection((s.host, s.port), timeout=5)


def test_sigterm_serves_the_connections_queued_on_the_listening_socket():
    """Connections the kernel completed while the server was not accepting (stopped here with
    SIGSTOP) wait in the listening socket's queue, their requests sent; closing the socket would
    reset them. The drain accepts and answers them before it closes the socket."""
    s = FixtureServer("--drainTimeoutMs", "20000")
    queued = []
    try:
        s.proc.send_signal(signal.SIGSTOP)
        queued = [s.connect() for _ in range(300)]
        for sock in queued:
            sock.sendall(request("GET", "/healthz"))
        s.proc.send_signal(signal.SIGTERM)  # pending until the process runs again
        s.proc.send_signal(signal.SIGCONT)
        for sock in queued:
            reader = Reader(sock)
            assert reader.read_response().status == 200
            assert reader.at_eof()
        assert s.proc.wait(timeout=30) == 0
    finally:
        for sock in queued:
            sock.close()
        s.proc.send_signal(signal.SIGCONT)
        s.stop()


def test_a_connection_opened_before_sigterm_gets_its_first_request_answered():
    """A drain closes connections that are between requests, not one that has had none yet: its
    client opened it to send one (a client need not retry a request that failed on a new
    connection). The request is answered with `Connection: close`."""
    s = FixtureServer("--drainTimeoutMs", "20000")
    try:
        with s.connect() as sock:
            time.sleep(0.3)  # accepted, nothing sent yet
            s.proc.send_signal(signal.SIGTERM)
            time.sleep(0.3)  # the drain has closed the idle connections
            sock.sendall(request("GET", "/healthz"))
            reader = Reader(sock)
            r = reader.read_response()
            assert r.status == 200 and r.header("Connection") == "close"
            assert reader.at_eof()
        assert s.proc.wait(timeout=30) == 0
    finally:
        s.stop()


def test_ipv6_loopback():
    s = FixtureServer("--host", "::1")
    try:
        with socket.create_connection(("::1", s.port), timeout=30) as sock:
            sock.sendall(request("GET", "/echo"))
            r = Reader(sock).read_response()
            assert r.status == 200 and r.json()["remote"].startswith("[::1]:")
    finally:
        s.stop()


def test_body_read_timeout_gets_408():
    s = FixtureServer("--bodyReadTimeoutMs", "1000")
    try:
        with s.connect() as sock:
            sock.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
            reader = Reader(sock)
            r = reader.read_response()
            assert r.status == 408 and r.header("Connection") == "close"
            assert reader.at_eof()
    finally:
        s.stop()


def test_drain_is_bounded_when_a_handler_outlives_it():
    s = FixtureServer("--drainTimeoutMs", "1000")
    with s.connect() as sock:
        sock.sendall(request("GET", "/slow?ms=20000"))
        time.sleep(0.3)
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(timeout=15) == 0
        assert Reader(sock).at_eof()


def test_blocked_offloaded_handlers_do_not_stall_other_offloaded_handlers(server):
    slow = [server.connect() for _ in range(8)]
    try:
        for s in slow:
            s.sendall(request("GET", "/slow?ms=4000"))
        time.sleep(0.3)
        with server.connect() as sock:
            sock.sendall(request("POST", "/echo", body=b"through"))
            assert Reader(sock).read_response().json()["body"] == "through"
        for s in slow:
            s.settimeout(0.0)
            with pytest.raises(BlockingIOError):
                s.recv(1)  # all eight are still sleeping
            s.settimeout(30)
        for s in slow:
            assert Reader(s).read_response().body == b"slept 4000\n"
    finally:
        for s in slow:
            s.close()


def test_large_body_over_many_reads(server):
    body = bytes(range(97, 123)) * 40000  # 1,040,000 bytes, under the 1 MiB limit
    with server.connect() as sock:
        sock.sendall(request("POST", "/echo", body=body))
        r = Reader(sock).read_response()
    assert r.status == 200
    assert r.json()["bodyLength"] == len(body)


def test_write_timeout_closes_a_client_that_stops_reading():
    s = FixtureServer("--writeTimeoutMs", "1000")
    try:
        sock = s.connect()
        count = 200  # 200 x 200 KB = 40 MB: far more than loopback socket buffers hold
        sock.sendall(b"".join(request("GET", "/large") for _ in range(count)))
        time.sleep(4)
        received = 0
        sock.settimeout(30)
        try:
            while True:
                data = sock.recv(1 << 20)
                if not data:
                    break
                received += len(data)
        except ConnectionResetError:
            pass
        sock.close()
        assert 0 < received < count * 200_000
    finally:
        s.stop()


def test_empty_lines_do_not_restart_the_header_deadline():
    # Runs from the first byte of a request, empty lines included: a client trickling them (then a
    # slow head) must not hold the connection past headerReadTimeoutMs.
    s = FixtureServer("--headerReadTimeoutMs", "1000")
    try:
        with s.connect() as sock:
            started = time.monotonic()
            sock.sendall(b"\r\n")
            time.sleep(0.9)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            reader = Reader(sock)
            sock.settimeout(0.2)
            response = None
            while response is None and time.monotonic() - started < 5:
                try:
                    response = reader.read_response()
                except socket.timeout:
                    sock.sendall(b"a")
            elapsed = time.monotonic() - started
            assert response is not None and response.status == 408
            # 1 s from the first byte (plus the 250 ms sweep); restarting at the request line would be ≥ 1.9 s.
            assert elapsed < 1.7, elapsed
        with s.connect() as sock:
            sock.sendall(b"\r\n" * 5 + request("GET", "/healthz"))
            r = Reader(sock).read_response()
            assert r.status == 400 and r.json()["code"] == "too_many_empty_lines"
    finally:
        s.stop()
