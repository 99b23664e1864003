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


def test_bodies_past_the_budget_are_refused_unread_and_the_budget_is_refunded(budgeted):
    server, app = budgeted
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
    metrics = requests.get(server.base + "/metrics", timeout=10).text
    refused = [line for line in metrics.splitlines() if line.startswith("xizor_http_bodies_refused_total ")]
    assert refused and float(refused[0].split()[1]) == 2


def test_a_trickled_body_is_cut_off_by_the_body_deadline(budgeted):
    server, app = budgeted
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head("POST", "/v1/sdk/events", app.public_key, length=1000))
        started = time.monotonic()
        reader = Reader(sock)
        sock.settimeout(0.2)
        response = None
        while time.monotonic() - started < 10 and response is None:
            try:
                sock.sendall(b" ")  # one byte every 200 ms: well inside the per-read timeout (60 s)
            except OSError:
                pass
            try:
                response = reader.read_response()
            except (socket.timeout, TimeoutError):
                continue
        elapsed = time.monotonic() - started
        assert response is not None and response.status == 408 and response.json()["code"] == "request_timeout"
        assert 1.4 < elapsed < 4, elapsed
