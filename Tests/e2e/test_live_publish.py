"""Publishing is live at once: a request that starts after a write answered sees the write."""
import threading

from xizor_server import Client

CYCLES = 200
READERS = 4


def test_publish_then_fetch_never_sees_a_stale_version(app, server):
    pw = app.create_paywall()
    app.publish(pw)
    app.assign("onboarding", pw)
    published = {"version": 1}
    lock = threading.Lock()
    stale, checks = [], [0]
    stop = threading.Event()

    def reader():
        client = Client(server.base, app.secret_key)
        while not stop.is_set():
            with lock:
                floor = published["version"]
            got = client.get("/v1/placements/onboarding/resolve").json()["version"]
            with lock:
                checks[0] += 1
            if got < floor:
                stale.append((floor, got))

    threads = [threading.Thread(target=reader) for _ in range(READERS)]
    for t in threads:
        t.start()
    try:
        fetcher = Client(server.base, app.secret_key)
        for _ in range(CYCLES):
            version = app.publish(pw)["version"]
            with lock:
                published["version"] = version
            # The very next request, on another connection, must see it.
            assert fetcher.get("/v1/placements/onboarding/resolve").json()["version"] == version
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert published["version"] == CYCLES + 1
    assert stale == []
    assert checks[0] > CYCLES
