"""Authentication where it is declared: a request is routed and its key verified as soon as its head
is complete, before any body byte is read or `100 Continue` is sent. Raw sockets against the real
server: a refused request is answered at once, with `Connection: close`, while the body it announced
is still unsent; the server never waits for (or buffers) it."""
import socket
import time

import pytest

from http_fixture import Reader
from test_operations import LIMITS
from xizor_server import ADMIN_TOKEN, App, XizorServer, create_app

MIB = 1 << 20


def head(method, path, key=None, length=MIB, extra=""):
    auth = f"Authorization: Bearer {key}\r\n" if key else ""
    return (f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{auth}"
            f"Content-Length: {length}\r\n{extra}\r\n").encode()


def answer_to_head_alone(server, raw, timeout=5):
    """Sends only a head that announces a body and reads the answer, which must come without the
    body; answers it and whether the server then closed the connection (checked only after a final
    answer: after `100 Continue` the server waits for the body)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as sock:
        sock.sendall(raw)
        started = time.monotonic()
        reader = Reader(sock)
        response = reader.read_response()
        assert time.monotonic() - started < timeout
        return response, response.status >= 200 and reader.at_eof(timeout=timeout)


@pytest.fixture(scope="module")
def live(module_server):
    return module_server


@pytest.fixture(scope="module")
def keys(live):
    return App(live, create_app(live.base, "admission"))


@pytest.mark.parametrize("key, status, code", [
    (None, 401, "missing_api_key"),
    ("pk_forged_0123456789abcdefghij", 401, "invalid_api_key"),
    ("secret", 403, "public_key_required"),
])
def test_a_refused_key_is_answered_before_the_body(live, keys, key, status, code):
    key = keys.secret_key if key == "secret" else key
    response, closed = answer_to_head_alone(live, head("POST", "/v1/sdk/events", key))
    assert response.status == status and response.json()["code"] == code
    assert response.header("Connection") == "close"
    assert closed, "the connection closes: the unread body cannot be taken for a request"


def test_no_100_continue_for_a_client_without_a_key(live):
    response, _ = answer_to_head_alone(live, head("POST", "/v1/paywalls", extra="Expect: 100-continue\r\n"))
    assert response.status == 401, "a refusal, never an invitation to send the body"


def test_an_admitted_client_gets_100_continue_and_its_answer(live, keys):
    body = b'{"name": "after continue"}'
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        sock.sendall(head("POST", "/v1/paywalls", keys.secret_key, len(body), "Expect: 100-continue\r\n"))
        reader = Reader(sock)
        assert reader.read_response().status == 100
        sock.sendall(body)
        created = reader.read_response()
        assert created.status == 201 and created.json()["name"] == "after continue"


@pytest.mark.parametrize("method, path, status", [("POST", "/v1/nothing-here", 404), ("PATCH", "/v1/paywalls", 405)])
def test_unknown_routes_and_methods_are_answered_before_the_body(live, keys, method, path, status):
    response, closed = answer_to_head_alone(live, head(method, path, keys.secret_key))
    assert response.status == status and response.header("Connection") == "close" and closed


def test_the_rate_limit_refuses_before_the_body(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env=LIMITS)
    try:
        app = App(s, create_app(s.base, "limited"))
        statuses = []
        for _ in range(6):
            response, _ = answer_to_head_alone(s, head("POST", "/v1/sdk/events", app.public_key, extra="Expect: 100-continue\r\n"))
            statuses.append(response.status)
            if response.status == 429:
                assert int(response.header("Retry-After")) >= 1 and response.header("Connection") == "close"
                break
        # Admitted requests get 100 Continue (the test sends no body); the bucket of 2 then runs out.
        assert statuses == [100, 100, 429], statuses
    finally:
        assert s.stop() == 0


def test_admin_routes_admit_only_the_admin_token(live, keys):
    response, _ = answer_to_head_alone(live, head("POST", "/v1/apps", keys.secret_key))
    assert response.status == 403 and response.json()["code"] == "admin_token_required"
    body = b'{"name": "by the admin"}'
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        sock.sendall(head("POST", "/v1/apps", ADMIN_TOKEN, len(body)) + body)
        assert Reader(sock).read_response().status == 201


def test_an_encoded_slash_never_reaches_another_route(live, keys):
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        sock.sendall(f"GET /v1%2Fsdk%2Ffallback-bundle HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {keys.public_key}\r\n\r\n".encode())
        assert Reader(sock).read_response().status == 404
        sock.sendall(f"GET /v1/sdk/fallback-bundle HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {keys.public_key}\r\n\r\n".encode())
        assert Reader(sock).read_response().status == 200


def test_a_refused_client_that_keeps_sending_is_cut_off_after_a_little(live):
    """After answering a refused request the server discards what the client still sends, so the
    answer survives — but only 256 KiB of it: a client pouring megabytes after its 401 is closed at
    once instead of being read for the whole 2 s linger (which would let hundreds of them keep a
    core busy copying; docs/benchmarks.md, "Hostile clients")."""
    with socket.create_connection(("127.0.0.1", live.port), timeout=5) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        sock.sendall(head("POST", "/v1/sdk/events", None, length=MIB))
        response = Reader(sock).read_response()
        assert response.status == 401
        chunk = b"x" * 65536
        sent, started = 0, time.monotonic()
        try:
            while time.monotonic() - started < 3:
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:  # reset or broken pipe: the server closed
            pass
        elapsed = time.monotonic() - started
    assert elapsed < 1.5, f"still accepted data after {elapsed:.2f} s ({sent} bytes)"
    assert sent < 16 * MIB, sent
