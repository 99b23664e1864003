"""A noisy tenant for bench/abuse.bench.sh's "noisy neighbour" section (issue 35): an app of its own,
made with the admin token, that does one expensive-looking thing for SECONDS while the bench times
the quiet demo app's SDK revalidation. Prints one JSON line: what the noisy app's requests answered.

    python3 bench/noisy_tenant.py PORT ADMIN_TOKEN CASE SECONDS [CONNECTIONS]

Cases (docs/benchmarks.md, "Noisy neighbour"):
  subscriber-rules  50 rules on stored subscriber attributes, its SDK endpoint hammered (off the I/O loop, its app's share)
  caps-flood        100 capped rules; one subscriber flooded with paywall_open batches (429) while its SDK endpoint is asked
  patch-bomb        the JSON Patch that copied a subtree into itself (413 before it grows)
  audience-fanout   a 20,000-comparison audience written again and again (422 at the budget)
"""
import http.client
import json
import sys
import threading
import time
import uuid

port, admin, case, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
connections = int(sys.argv[5]) if len(sys.argv) > 5 else 8


def call(conn, method, path, key, body=None, headers=None):
    h = {"Authorization": f"Bearer {key}", **(headers or {})}
    data = None
    if body is not None:
        data = json.dumps(body)
        h.setdefault("Content-Type", "application/json")
    conn.request(method, path, body=data, headers=h)
    r = conn.getresponse()
    payload = r.read()
    return r.status, payload, r


setup = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
status, body, _ = call(setup, "POST", "/v1/apps", admin, {"name": f"Noisy {uuid.uuid4().hex[:6]}"})
assert status == 201, body
created = json.loads(body)
sk, pk = created["secretKey"], created["publicKey"]
status, body, _ = call(setup, "POST", "/v1/paywalls", sk, {"template": "clean"})
paywall = json.loads(body)["id"]
assert call(setup, "POST", f"/v1/paywalls/{paywall}/publish", sk, {"force": True})[0] == 201
assert call(setup, "PUT", "/v1/placements/home", sk, {"paywallId": paywall})[0] == 200

if case == "subscriber-rules":
    rules = [{"when": {"key": f"subscriber.k{i}", "op": "eq", "value": i}, "paywallId": paywall} for i in range(50)]
    assert call(setup, "PUT", "/v1/placements/home/rules", sk, {"rules": rules})[0] == 200
    for i in range(connections):
        assert call(setup, "PUT", f"/v1/sdk/subscribers/s{i}/attributes", pk, {"attributes": {"k49": 49}})[0] == 200
elif case == "caps-flood":
    rules = [{"when": {"key": "promo", "op": "exists"}, "paywallId": paywall, "frequencyCap": {"count": 90, "per": "week"}}
             for _ in range(100)]
    assert call(setup, "PUT", "/v1/placements/home/rules", sk, {"rules": rules})[0] == 200

statuses = {}
lock = threading.Lock()
deadline = time.monotonic() + seconds


def count(status):
    with lock:
        statuses[status] = statuses.get(status, 0) + 1


def worker(index):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    huge = {"condition": {"any": [{"key": f"k{i}", "op": "eq", "value": "x"} for i in range(20_000)]}}
    patch = [{"op": "add", "path": "/x", "value": []}, {"op": "copy", "from": "/root", "path": "/x/-"}]
    patch += [{"op": "copy", "from": "/x", "path": "/x/-"} for _ in range(14)]
    now = int(time.time() * 1000)
    while time.monotonic() < deadline:
        if case == "subscriber-rules":
            status = call(conn, "GET", f"/v1/sdk/placements/home/paywall?subscriberId=s{index}", pk)[0]
        elif case == "caps-flood":
            if index % 2 == 0:
                events = [{"id": uuid.uuid4().hex, "name": "paywall_open", "timestamp": now, "placement": "home",
                           "paywallId": paywall, "version": 1, "subscriberId": "flood"} for _ in range(500)]
                status = call(conn, "POST", "/v1/sdk/events", pk, {"events": events})[0]
            else:
                status = call(conn, "GET", "/v1/sdk/placements/home/paywall?subscriberId=flood&context.promo=1", pk)[0]
        elif case == "patch-bomb":
            _, _, r = call(conn, "GET", f"/v1/paywalls/{paywall}/draft", sk)
            status = call(conn, "PATCH", f"/v1/paywalls/{paywall}/draft", sk, patch,
                          {"If-Match": r.getheader("ETag"), "Content-Type": "application/json-patch+json"})[0]
        elif case == "audience-fanout":
            status = call(conn, "PUT", "/v1/audiences/huge", sk, huge)[0]
        else:
            raise SystemExit(f"unknown case {case}")
        count(status)
        if status == 429:
            time.sleep(0.05)


threads = [threading.Thread(target=worker, args=(i,)) for i in range(connections)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps({"case": case, "statuses": statuses}))
