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
    seen_with_etag = {}
    stop = threading.Event()

    def reader():
        # The SDK endpoint itself, with revalidation as SDKs do it.
        client = Client(server.base, app.public_key)
        etag = None
        while not stop.is_set():
            with lock:
                floor = published["version"]
            r = client.get("/v1/sdk/placements/onboarding/paywall", headers={"If-None-Match": etag} if etag else None)
            if r.status_code == 200:
                etag, got = r.headers["ETag"], r.json()["version"]
                with lock:
                    seen_with_etag[etag] = got
            else:
                assert r.status_code == 304
                with lock:
                    got = seen_with_etag[etag]
            with lock:
                checks[0] += 1
            if got < floor:
                stale.append((floor, got))

    threads = [threading.Thread(target=reader) for _ in range(READERS)]
    for t in threads:
        t.start()
    try:
        fetcher = Client(server.base, app.public_key)
        for _ in range(CYCLES):
            version = app.publish(pw)["version"]
            # The very next request, on another connection, must see it.
            r = fetcher.get("/v1/sdk/placements/onboarding/paywall")
            assert r.json()["version"] == version
            with lock:
                seen_with_etag[r.headers["ETag"]] = version
                published["version"] = version
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert published["version"] == CYCLES + 1
    assert stale == []
    assert checks[0] > CYCLES
