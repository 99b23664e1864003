#!/usr/bin/env python3
"""Dashboard write latency on SQLite and PostgreSQL, and publish → visible on two other replicas
(run by bench/postgres.bench.sh).

  postgres_bench.py BIN OUT PG_URL SQLITE_BASE SQLITE_SECRET PG_BASE PG_SECRET PG_PUBLIC"""
import json
import os
import statistics
import subprocess
import sys
import time

import requests

BIN, OUT, PG_URL, S_BASE, S_SECRET, P_BASE, P_SECRET, P_PUBLIC = sys.argv[1:9]


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def draft_saves(base, secret, n=200):
    s = requests.Session()
    s.headers["Authorization"] = f"Bearer {secret}"
    pw = s.get(base + "/v1/paywalls").json()["items"][0]["id"]
    r = s.get(base + f"/v1/paywalls/{pw}/draft")
    document, etag = r.json()["document"], r.headers["ETag"]
    timings = []
    for i in range(n):
        document["name"] = f"Saved {i}"
        t = time.perf_counter()
        r = s.put(base + f"/v1/paywalls/{pw}/draft", json=document, headers={"If-Match": etag})
        timings.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 200, r.text
        etag = r.headers["ETag"]
    return statistics.median(timings), pct(timings, 99)


for name, base, secret in (("SQLite", S_BASE, S_SECRET), ("PostgreSQL", P_BASE, P_SECRET)):
    p50, p99 = draft_saves(base, secret)
    print(f"dashboard write (draft save, durable) on {name}: p50 {p50:.2f} ms, p99 {p99:.2f} ms")

# Replicas B and C on the same PostgreSQL database (data directories of their own, CPU 1).
env = {**os.environ, "XIZOR_STORAGE_DRIVER": "postgres", "XIZOR_STORAGE_POSTGRES_URL": PG_URL}
replicas = []
for name in ("b", "c"):
    proc = subprocess.Popen(["taskset", "-c", "1", BIN, "serve", "--port", "0", "--data-dir", f"{OUT}/{name}"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    replicas.append((proc, f"http://127.0.0.1:{json.loads(proc.stdout.readline())['port']}"))
a = requests.Session()
a.headers["Authorization"] = f"Bearer {P_SECRET}"
pw = a.get(P_BASE + "/v1/placements/onboarding").json()["paywallId"]
sdk = requests.Session()
sdk.headers["Authorization"] = f"Bearer {P_PUBLIC}"
delays = []
for _ in range(100):
    version = a.post(P_BASE + f"/v1/paywalls/{pw}/publish", json={"force": True}).json()["version"]
    t = time.perf_counter()
    for _, base in replicas:
        while sdk.get(base + "/v1/sdk/placements/onboarding/paywall").json().get("version") != version:
            time.sleep(0.0005)
    delays.append((time.perf_counter() - t) * 1000)
print(f"publish on replica A → served by B and C (PostgreSQL, LISTEN/NOTIFY): p50 {statistics.median(delays):.1f} ms, "
      f"p99 {pct(delays, 99):.1f} ms (target p99 < 100 ms)")
for proc, _ in replicas:
    proc.terminate()
    proc.wait()
