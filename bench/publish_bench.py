#!/usr/bin/env python3
"""Publish cost by app size, RSS per published version, start-up time and cross-process visibility
(issue 15's `make bench` figures; run by bench/publish.bench.sh, which starts the servers).

  publish_bench.py BIN DATA_DIR SIZES...   (e.g. 10 1000 10000)

Prints one table row per size, then start-up and cross-process lines."""
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import time

import requests

BIN, DATA, SIZES = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
TOKEN = "xa_bench_admin_token_0123456789abcdef"
ENV = {**os.environ, "XIZOR_ADMIN_TOKEN": TOKEN, "XIZOR_LOG_LEVEL": "warning", "XIZOR_ACCESS_LOG": "false",
       "XIZOR_RATE_LIMITS_WRITES_PER_SECOND": "0"}


def start(cpu):
    started = time.monotonic()
    proc = subprocess.Popen(["taskset", "-c", str(cpu), BIN, "serve", "--port", "0", "--data-dir", DATA],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)
    port = json.loads(proc.stdout.readline())["port"]
    return proc, f"http://127.0.0.1:{port}", time.monotonic() - started


def rss_kib(proc):
    with open(f"/proc/{proc.pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


server, base, _ = start(0)
admin = requests.Session()
admin.headers["Authorization"] = f"Bearer {TOKEN}"
app = admin.post(base + "/v1/apps", json={"name": "Publish bench"}).json()
local = __import__("threading").local()


def session():
    if not hasattr(local, "s"):
        local.s = requests.Session()
        local.s.headers["Authorization"] = f"Bearer {app['secretKey']}"
    return local.s


def add_paywall(_):
    s = session()
    r = s.post(base + "/v1/paywalls", json={"template": "clean"})
    assert r.status_code == 201, r.text
    pw = r.json()["id"]
    r = s.post(base + f"/v1/paywalls/{pw}/publish", json={"force": True})
    assert r.status_code == 201, r.text
    return pw


paywalls = []
baseline = rss_kib(server)
print(f"{'paywalls':>9} {'publish p50':>12} {'publish p99':>12} {'RSS MiB':>8}")
for size in SIZES:
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        paywalls += list(pool.map(add_paywall, range(size - len(paywalls))))
    s = session()
    target = paywalls[0]
    timings = []
    for _ in range(200):
        t = time.perf_counter()
        r = s.post(base + f"/v1/paywalls/{target}/publish", json={"force": True})
        timings.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 201, r.text
    rss = rss_kib(server)
    print(f"{size:>9} {statistics.median(timings):>10.2f}ms {pct(timings, 99):>10.2f}ms {rss / 1024:>8.1f}", flush=True)
    if size == SIZES[0]:
        small_rss, small_n = rss, len(paywalls)
per_version = (rss - small_rss) / max(1, len(paywalls) - small_n)
print(f"RSS per published version: {per_version:.1f} KiB (from {small_n} to {len(paywalls)} paywalls with one published version each, clean template)")

# Cross-process visibility: a second server on the same data directory.
s.put(base + "/v1/placements/bench", json={"paywallId": paywalls[0]})
second, second_base, startup = start(1)
print(f"start-up with {len(paywalls)} published versions: {startup * 1000:.0f} ms to the listening line, "
      f"RSS {rss_kib(second) / 1024:.1f} MiB after loading them (older forms built on first request)")
sdk = requests.Session()
sdk.headers["Authorization"] = f"Bearer {app['publicKey']}"
delays = []
for _ in range(50):
    version = s.post(base + f"/v1/paywalls/{paywalls[0]}/publish", json={"force": True}).json()["version"]
    t = time.perf_counter()
    while sdk.get(second_base + "/v1/sdk/placements/bench/paywall").json().get("version") != version:
        time.sleep(0.001)
    delays.append((time.perf_counter() - t) * 1000)
print(f"cross-process visibility (publish on one server → served by the other): p50 {statistics.median(delays):.1f} ms, p99 {pct(delays, 99):.1f} ms (poll interval 50 ms)")
second.terminate(); server.terminate()
second.wait(); server.wait()
