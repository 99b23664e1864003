#!/usr/bin/env python3
"""Verified revenue's notification endpoint (docs/revenue.md; run by bench/revenue.bench.sh, which builds
the release binary and, for PostgreSQL, starts a cluster).

  revenue_bench.py BIN DATA_DIR COUNT CLIENTS

The server (on CPU 0) trusts a test root; COUNT App Store notifications (SUBSCRIBED, each with its
nested transaction and renewal info: three ES256 signatures and chains to verify) are signed beforehand,
then sent by CLIENTS threads (on CPU 1): first as new notifications (verified, stored, counted: one write
transaction each, durable before 200), then again as the stores' retries (answered from one read), then
forged (refused: 401 after the checks). Prints per case: notifications per second, p50 and p99 latency,
and the server's CPU per notification."""
import concurrent.futures
import http.client
import json
import os
import pathlib
import statistics
import subprocess
import sys
import threading
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
import apple_notifications as an  # noqa: E402

BIN, DATA, COUNT, CLIENTS = sys.argv[1], pathlib.Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
TOKEN = "xa_bench_admin_token_0123456789abcdef"
BUNDLE, APPLE_ID = "com.example.bench", 1234567890
TICK_US = 1_000_000 / os.sysconf("SC_CLK_TCK")

DATA.mkdir(parents=True, exist_ok=True)
chain = an.make_chain()
root = chain.write_root_der(DATA / "root.der")
env = {**os.environ, "XIZOR_ADMIN_TOKEN": TOKEN, "XIZOR_LOG_LEVEL": "error", "XIZOR_ACCESS_LOG": "false",
       "XIZOR_RATE_LIMITS_AUTH_FAILURES_PER_SECOND": "0", "XIZOR_RATE_LIMITS_WRITES_PER_SECOND": "0",
       "XIZOR_STORES_APPLE_ROOT_CERTIFICATES": str(root)}
server = subprocess.Popen(["taskset", "-c", "0", BIN, "serve", "--port", "0", "--data-dir", str(DATA / "data")],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
port = json.loads(server.stdout.readline())["port"]


def call(method, path, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"Content-Type": "application/json", **(headers or {})})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data) if data else None


status, app = call("POST", "/v1/apps", {"name": "Revenue bench"}, {"Authorization": f"Bearer {TOKEN}"})
assert status == 201, app
status, _ = call("PATCH", "/v1/revenue/settings", {"apple": {"bundleId": BUNDLE, "appAppleId": APPLE_ID}},
                 {"Authorization": f"Bearer {app['secretKey']}"})
assert status == 200
path = f"/v1/apps/{app['appId']}/notifications/apple"

started = time.monotonic()
now = an.now_ms()
bodies = []
for i in range(COUNT):
    tx = an.transaction(transaction_id=f"bench-{i}", bundle_id=BUNDLE, purchase_date=now - 60_000,
                        environment="Production", price=9990, app_account_token=an.app_account_token(f"s{i}"))
    renewal = an.renewal_info(original_transaction_id=f"bench-{i}", environment="Production")
    body = an.signed_notification(chain, "SUBSCRIBED", "INITIAL_BUY", transaction=tx, renewal=renewal,
                                  bundle_id=BUNDLE, app_apple_id=APPLE_ID, environment="Production",
                                  notification_uuid=str(uuid.uuid4()))
    bodies.append(json.dumps(body).encode())
forged = [an.signed_notification(chain, "SUBSCRIBED", "INITIAL_BUY", bundle_id=BUNDLE, app_apple_id=APPLE_ID,
                                 environment="Production", forge=True,
                                 transaction=an.transaction(transaction_id=f"forged-{i}", bundle_id=BUNDLE,
                                                            environment="Production"))
          for i in range(min(COUNT, 2000))]
forged = [json.dumps(b).encode() for b in forged]
print(f"signed {COUNT} notifications in {time.monotonic() - started:.1f} s (client side)")

local = threading.local()


def send(body):
    if not hasattr(local, "c"):
        local.c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    t = time.perf_counter()
    local.c.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    r = local.c.getresponse()
    data = r.read()
    return time.perf_counter() - t, r.status, data


def cpu_ticks():
    fields = pathlib.Path(f"/proc/{server.pid}/stat").read_text().split(")")[-1].split()
    return int(fields[11]) + int(fields[12])


def run(name, items, expected):
    before, t0 = cpu_ticks(), time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        results = list(pool.map(send, items))
    elapsed, after = time.monotonic() - t0, cpu_ticks()
    statuses = {s for _, s, _ in results}
    assert statuses == {expected}, (name, statuses, results[0][2][:300])
    latencies = sorted(l for l, _, _ in results)
    p = lambda q: latencies[min(len(latencies) - 1, int(q * (len(latencies) - 1)))] * 1000
    print(f"{name:<28} {len(items) / elapsed:10.0f} {p(0.5):8.1f} ms {p(0.99):8.1f} ms "
          f"{(after - before) * TICK_US / len(items):10.0f} µs {len(items):8d}")


print(f"{'case':<28} {'per s':>10} {'p50':>11} {'p99':>11} {'cpu/notif':>13} {'count':>8}")
run("new (verified, stored)", bodies, 200)
run("retry (duplicate)", bodies, 200)
run("forged (refused)", forged, 401)
status, report = call("GET", "/v1/revenue?environment=all", headers={"Authorization": f"Bearer {app['secretKey']}"})
assert report["total"]["paidConversions"] == COUNT, report["total"]
server.terminate()
server.wait(timeout=30)
