"""The body budget (issue 14, item 2): request bodies held in memory are capped for the whole process
(`http.maxBufferedBodyBytes`), each charged before it is read; over the cap a body is refused at once
with 503 and `Retry-After`, never buffered; a body that trickles in is cut off by `http.bodyDeadlineMs`
(408) however often it sends a byte. Raw sockets against the real server, with the public key anyone
can take from an app."""
import json
import socket
import time

import pytest
import requests

from http_fixture import Reader
from test_admission import head
from xizor_server import App, XizorServer, create_app

BODY = 400_000


@pytest.fixture(scope="module")
def budgeted(tmp_path_factory):
    s = XizorServer(tmp_path_factory.mktemp("budget") / "data", extra_env={
        "XIZOR_HTTP_MAX_BODY_BYTES": str(BODY), "XIZOR_HTTP_MAX_BUFFERED_BODY_BYTES": str(2 * BODY),
        "XIZOR_HTTP_BODY_DEADLINE_MS": "1500"})
    yield s, App(s, create_app(s.base, "budget"))
    assert s.stop() == 0


def events_body(length):
    """A valid (empty) events batch padded with spaces to exactly `length` bytes."""
    text = json.dumps({"events": []}).encode()
    return text + b" " * (length - len(text))


def refused_bodies(server):
    metrics = requests.get(server.base + "/metrics", timeout=10).text
    refused = [line for line in metrics.splitlines() if line.startswith("xizor_http_bodies_refused_total ")]
    assert refused, "no xizor_http_bodies_refused_total in /metrics"
    return float(refused[0].split()[1])


def test_bodies_past_the_budget_are_refused_unread_and_the_budget_is_refunded(budgeted):
    server, app = budgeted
    refused_before = refused_bodies(server)
    holders = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(2)]
    try:
        for sock in holders:  # two heads announce BODY bytes each: the whole budget is charged
            sock.sendall(head("POST", "/v1/sdk/events", app.public_key, length=BODY))
        time.sleep(0.3)
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as third:
            started = time.monotonic()
            third.sendall(head("POST", "/v1/sdk/events", app.public_key, length=BODY))
            reader = Reader(third)
            refused = reader.read_response()
            assert time.monotonic() - started < 5
            assert refused.status == 503 and refused.json()["code"] == "body_budget_exhausted"
            assert refused.header("Retry-After") == "1" and refused.header("Connection") == "close"
            assert reader.at_eof(timeout=5)
        # A small body does not fit either while the budget is spent.
        r = requests.post(server.base + "/v1/sdk/events", data=events_body(1000),
                          headers={"Authorization": f"Bearer {app.public_key}", "Content-Type": "application/json"}, timeout=10)
        assert r.status_code == 503
        # The first holder sends its body: answered, and its charge refunded.
        holders[0].sendall(events_body(BODY))
        assert Reader(holders[0]).read_response().status == 202
    finally:
        for sock in holders:
            sock.close()
    time.sleep(0.3)  # the second holder's close refunds its charge too
    for _ in range(3):
        r = requests.post(server.base + "/v1/sdk/events", data=events_body(BODY),
                          headers={"Authorization": f"Bearer {app.public_key}", "Content-Type": "application/json"}, timeout=10)
        assert r.status_code == 202, r.text
    assert refused_bodies(server) == refused_before + 2


def send_until_answered(sock, piece, pause, give_up):
    """Sends `piece` again and again, waiting up to `pause` for an answer after each, until the
    server answers or `give_up(bytes sent)`; returns the answer (or None) and the bytes sent."""
    reader, sent, response = Reader(sock), 0, None
    sock.settimeout(pause)
    while response is None and not give_up(sent):
        try:
            sock.sendall(piece)
            sent += len(piece)
        except OSError:
            pass
        try:
            response = reader.read_response()
        except (socket.timeout, TimeoutError):
            continue
    return response, sent


def test_a_trickled_body_is_cut_off_by_the_body_deadline(budgeted):
    server, app = budgeted
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head("POST", "/v1/sdk/events", app.public_key, length=1000))
        started = time.monotonic()
        # One byte every 200 ms: well inside the per-read timeout (60 s).
        response, _ = send_until_answered(sock, b" ", pause=0.2, give_up=lambda sent: time.monotonic() - started > 10)
        elapsed = time.monotonic() - started
        assert response is not None and response.status == 408 and response.json()["code"] == "request_timeout"
        assert 1.4 < elapsed < 4, elapsed


def chunked_head(key):
    return (f"POST /v1/sdk/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {key}\r\nTransfer-Encoding: chunked\r\n\r\n").encode()


def chunk(data):
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def test_a_chunked_body_is_charged_as_it_grows_and_refused_past_the_budget(budgeted):
    """A chunked body declares no length: it is charged in steps as it arrives, so it is read until
    the budget runs out mid-body, then refused with 503; once the charges are refunded a chunked
    body fits again."""
    server, app = budgeted
    holders = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(2)]
    try:  # BODY + 200,000 of the 2 × BODY budget charged: 200,000 left
        holders[0].sendall(head("POST", "/v1/sdk/events", app.public_key, length=BODY))
        holders[1].sendall(head("POST", "/v1/sdk/events", app.public_key, length=200_000))
        time.sleep(0.3)
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(chunked_head(app.public_key) + chunk(b'{"events": ['))
            # 16 KiB per 20 ms: the 200,000 left go well inside the 1.5 s body deadline.
            response, sent = send_until_answered(sock, chunk(b" " * 16_384), pause=0.02, give_up=lambda sent: sent >= BODY)
            assert response is not None and response.status == 503, (sent, response and response.status)
            assert response.json()["code"] == "body_budget_exhausted" and response.header("Retry-After") == "1"
            # Read well into the body (not refused at the head), refused before the rest of the budget.
            assert 100_000 <= sent <= 300_000, sent
    finally:
        for sock in holders:
            sock.close()
    time.sleep(0.3)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        body = events_body(150_000)
        sock.sendall(chunked_head(app.public_key) + b"".join(chunk(body[i:i + 50_000]) for i in range(0, len(body), 50_000)) + b"0\r\n\r\n")
        assert Reader(sock).read_response().status == 202
