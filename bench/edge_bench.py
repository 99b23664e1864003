#!/usr/bin/env python3
"""Edge delivery through Varnish (docs/scaling.md "Edge delivery"; docs/benchmarks.md "Edge delivery";
run by bench/edge.bench.sh, which builds the release binary).

  edge_bench.py BIN OUT_DIR SUBSCRIBERS CLIENTS DIRECT_SUBSCRIBERS CACHEABLE_SUBSCRIBERS

A release `xizor serve` (SQLite, access log off, rate limits off, `cache.purgeURLs` pointing at the
Varnish) and varnishd with Config/varnish/xizor.vcl (Tests/e2e/varnish.py) both on CPU 0; the clients
(CLIENTS processes, one keep-alive connection each) on CPU 1. One app, 20 placements: 14 plain (5 of
them with a `device.platform` rule, so the platform is in their Vary), 4 whose target is a running
experiment (two variants; two of them with a holdout), 2 with a rule on `subscriber.plan` (every
answer subscriber-dependent: never stored). SUBSCRIBERS distinct subscribers (`sub-{i}`) present once
each, as XizorKit does on a first launch: the placement class by a 70 / 20 / 10 mix, a placement of
the class uniformly, one of four `Accept-Language`s, ios or android (60 / 40), the path form with
`X-Xizor-Subscriber-Id`; an allocation answer is bucketed client-side (SHA-256 of
"<experimentId>:<subscriberId>") and, unless held out, followed by the variant's own request
(`&experiment=…&variant=…`).

Counted per class: client requests, origin requests (Varnish's backend fetches by URL, from
`varnishncsa -b`, which also sees background refreshes; cross-checked with `MAIN.backend_req` and the
origin's own `xizor_http_requests_total` for the path form's route), latency p50/p99 through the cache,
and the CPU (utime+stime from /proc) of the origin and of Varnish over the run. Then, for the origin's
cost without a cache, the first DIRECT_SUBSCRIBERS subscribers of the same mix straight to the origin
on the authenticated endpoint (`GET /v1/sdk/placements/{key}/paywall?subscriberId=…`, the server
assigning experiments itself). Last, informative: CACHEABLE_SUBSCRIBERS of the plain and experiment
share alone through a fresh Varnish, so both CPUs are those of the cacheable traffic (in the mixed run
the subscriber-rule tenth dominates them)."""
import atexit
import collections
import gzip
import hashlib
import http.client
import json
import multiprocessing
import os
import pathlib
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "Tests" / "e2e"))
from varnish import Varnish, free_port  # noqa: E402

BIN, OUT = sys.argv[1], pathlib.Path(sys.argv[2])
SUBSCRIBERS, CLIENTS, DIRECT, CACHEABLE = (int(a) for a in sys.argv[3:7])
TOKEN = "xa_bench_admin_token_0123456789abcdef"
TICK_US = 1_000_000 / os.sysconf("SC_CLK_TCK")
SERVER_CPU, CLIENT_CPU = 0, 1
CLASSES = ("plain", "experiment", "subscriber rule")
LANGUAGES = [("en-US,en;q=0.9", 50), ("de-DE,de;q=0.9", 20), ("fr-FR,fr;q=0.9", 15), ("es-ES,es;q=0.9", 15)]
OS_VERSIONS = {"ios": "18.1", "android": "15"}  # platforms: ios 60 %, android 40 %
EDGE_PATH = "/v1/sdk/apps/{}/placements/{}/paywall"
ROUTE = "/v1/sdk/apps/:publicKey/placements/:key/paywall"

shutil.rmtree(OUT, ignore_errors=True)
OUT.mkdir(parents=True)
# What this process starts from here on inherits CPU 0 (the origin and every varnishd process and
# thread); once both run, this process and its clients move to CPU 1.
os.sched_setaffinity(0, {SERVER_CPU})
load_before = os.getloadavg()

# --- the origin, and the cache in front of it ------------------------------------------------------
server_port, cache_port = free_port(), free_port()
while cache_port == server_port:
    cache_port = free_port()
env = {**os.environ, "XIZOR_ADMIN_TOKEN": TOKEN, "XIZOR_LOG_LEVEL": "error", "XIZOR_ACCESS_LOG": "false",
       "XIZOR_RATE_LIMITS_AUTH_FAILURES_PER_SECOND": "0", "XIZOR_RATE_LIMITS_WRITES_PER_SECOND": "0",
       "XIZOR_CACHE_PURGE_URLS": f"http://127.0.0.1:{cache_port}/"}
server = subprocess.Popen([BIN, "serve", "--port", str(server_port), "--data-dir", str(OUT / "data")],
                          stdout=subprocess.PIPE, stderr=open(OUT / "serve.err", "wb"), text=True, env=env)
listening = json.loads(server.stdout.readline())
assert listening["port"] == server_port, listening
varnish = ncsa = None


def cleanup():
    """Whatever happens (an assertion, ^C, a closed pipe), nothing of this run outlives it."""
    for process in (ncsa, server):
        if process and process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
    if varnish:
        varnish.stop()


atexit.register(cleanup)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))


def children(pid):
    try:
        return [int(p) for p in pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def start_varnish():
    """varnishd on CPU 0 (started from there: every process and thread inherits it), with a default-
    sized worker pool (the module's test instance starts 10 threads and grows) and a shared log large
    enough for varnishncsa to read every backend transaction without being overrun."""
    os.sched_setaffinity(0, {SERVER_CPU})
    v = Varnish(OUT / "varnish", server_port, port=cache_port, params=("thread_pool_min=100", "vsl_space=64M"))
    os.sched_setaffinity(0, {CLIENT_CPU})
    return v, [v.process.pid, *children(v.process.pid)]


varnish, varnish_pids = start_varnish()


def cpu_ticks(pid):
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()
    return int(fields[11]) + int(fields[12])


def call(method, path, body=None, key=None, port=server_port, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    h = {"Content-Type": "application/json", **(headers or {})}
    if key:
        h["Authorization"] = f"Bearer {key}"
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    if r.getheader("Content-Encoding") == "gzip":
        data = gzip.decompress(data)
    return r.status, (json.loads(data) if data and data[:1] in (b"{", b"[") else data), r


def ok(expected, result):
    status, body, _ = result
    assert status == expected, (status, body)
    return body


# --- the app: 20 placements ------------------------------------------------------------------------
started = time.monotonic()
app = ok(201, call("POST", "/v1/apps", {"name": "Edge bench"}, TOKEN))
SK, PK = app["secretKey"], app["publicKey"]


def paywall(template, name):
    pw = ok(201, call("POST", "/v1/paywalls", {"template": template, "name": name}, SK))["id"]
    ok(201, call("POST", f"/v1/paywalls/{pw}/publish", {"force": True}, SK))
    return pw


templates = ["clean", "cinematic", "lottie_delight"]
general = [paywall(templates[i % 3], f"General {i}") for i in range(6)]
ios_special, pro_special, canary_a, canary_b = (paywall("cinematic", n) for n in ("iOS", "Pro", "Canary A", "Canary B"))
placements = {"plain": [], "experiment": [], "subscriber rule": []}
for i in range(14):
    key = f"plain-{i:02d}"
    ok(200, call("PUT", f"/v1/placements/{key}", {"paywallId": general[i % len(general)]}, SK))
    if i % 3 == 0:  # 5 of 14: the platform decides, so it is in Vary
        ok(200, call("PUT", f"/v1/placements/{key}/rules", {"rules": [
            {"when": {"key": "device.platform", "op": "eq", "value": "ios"}, "paywallId": ios_special}]}, SK))
    placements["plain"].append(key)
experiments = {}
for i in range(4):
    key = f"exp-{i}"
    control, challenger = paywall(templates[i % 3], f"Control {i}"), paywall(templates[(i + 1) % 3], f"B {i}")
    holdout = 1 if i % 2 else 0  # exp-1 and exp-3: a 10 % holdout
    exp = ok(201, call("POST", "/v1/experiments", {"name": f"Edge bench {i}", "holdoutWeight": holdout, "variants": [
        {"paywallId": control, "weight": 5}, {"paywallId": challenger, "weight": 4, "name": "b"}]}, SK))
    ok(200, call("PUT", f"/v1/placements/{key}", {"paywallId": control}, SK))
    ok(200, call("PUT", f"/v1/placements/{key}", {"experimentId": exp["id"]}, SK))
    assert ok(200, call("POST", f"/v1/experiments/{exp['id']}/start", None, SK))["status"] == "running"
    experiments[key] = exp["id"]
    placements["experiment"].append(key)
for i in range(2):
    key = f"rule-{i}"
    ok(200, call("PUT", f"/v1/placements/{key}", {"paywallId": general[i]}, SK))
    ok(200, call("PUT", f"/v1/placements/{key}/rules", {"rules": [
        {"when": {"key": "subscriber.plan", "op": "eq", "value": "pro"}, "paywallId": pro_special}]}, SK))
    placements["subscriber rule"].append(key)
CLASS_OF = {key: c for c, keys in placements.items() for key in keys}


# --- who presents what -----------------------------------------------------------------------------
def mix(n, seed=40):
    rng = random.Random(seed)
    languages, language_weights = zip(*LANGUAGES)
    out = []
    for i in range(n):
        roll = rng.random()
        cls = "plain" if roll < 0.7 else "experiment" if roll < 0.9 else "subscriber rule"
        platform = "ios" if rng.random() < 0.6 else "android"
        out.append((f"sub-{i}", rng.choice(placements[cls]), rng.choices(languages, language_weights)[0], platform))
    return out


work = mix(SUBSCRIBERS)
# A fifth of the subscribers reaching a subscriber rule are on the "pro" plan (stored attributes).
pros = [s for s, key, _, _ in work if CLASS_OF[key] == "subscriber rule"][::5]
attributes_started = time.monotonic()
conn = http.client.HTTPConnection("127.0.0.1", server_port, timeout=60)
for s in pros:
    conn.request("PUT", f"/v1/sdk/subscribers/{s}/attributes", body=json.dumps({"attributes": {"plan": "pro"}}),
                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {PK}"})
    r = conn.getresponse()
    r.read()
    assert r.status == 200, r.status
conn.close()
PROS = set(pros)
setup_times = {"app": attributes_started - started, "attributes": time.monotonic() - attributes_started}
purge_started = time.monotonic()

# The purger has caught up with every change above once the canary's change is visible through the
# cache (purges go out in change order); nothing stale of the setup may be purged during the run.
ok(200, call("PUT", "/v1/placements/canary", {"paywallId": canary_a}, SK))
canary = EDGE_PATH.format(PK, "canary")
ok(200, call("GET", canary, port=cache_port, headers={"Accept": "application/json"}))
ok(200, call("PUT", "/v1/placements/canary", {"paywallId": canary_b}, SK))
deadline = time.monotonic() + 10
while ok(200, call("GET", canary, port=cache_port, headers={"Accept": "application/json"}))["paywallId"] != canary_b:
    assert time.monotonic() < deadline, "no purge reached Varnish within 10 s (XIZOR_CACHE_PURGE_URLS not read?)"
    time.sleep(0.1)
setup_times["purges caught up"] = time.monotonic() - purge_started


def varnish_version():
    out = subprocess.run([shutil.which("varnishd") or "/usr/sbin/varnishd", "-V"], capture_output=True, text=True)
    m = re.search(r"varnish-([0-9.]+)", out.stderr + out.stdout)
    return m.group(1) if m else "?"


print(f"setup: 1 app, 20 placements, 4 running experiments, {len(PROS)} subscribers on plan pro "
      f"({', '.join(f'{k} {v:.1f} s' for k, v in setup_times.items())}); origin on CPU {SERVER_CPU}, "
      f"varnishd {varnish_version()} on CPU {SERVER_CPU}, {CLIENTS} client processes on CPU {CLIENT_CPU}")


# --- the clients -----------------------------------------------------------------------------------
def bucket(experiment_id, subscriber):
    digest = hashlib.sha256(f"{experiment_id}:{subscriber}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 10_000


def headers_for(subscriber, language, platform):
    return {"Accept": "application/json", "Accept-Encoding": "gzip", "Accept-Language": language,
            "X-Xizor-Schema-Version": "3", "X-Xizor-Subscriber-Id": subscriber, "User-Agent": "XizorKit/1.0.0",
            "X-Xizor-Platform": platform, "X-Xizor-OS-Version": OS_VERSIONS[platform],
            "X-Xizor-SDK-Version": "1.0.0", "X-Xizor-Device-Locale": language.split(",")[0]}


def worker(items, port, direct, results):
    """One device after another on one keep-alive connection: (class, latency s, hit, status) per
    request, and what was shown, checked afterwards."""
    os.sched_setaffinity(0, {CLIENT_CPU})
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    out, shown = [], collections.Counter()

    def get(path, headers):
        t = time.perf_counter()
        c.request("GET", path, headers=headers)
        r = c.getresponse()
        data = r.read()
        latency = time.perf_counter() - t
        return r, data, latency

    for subscriber, key, language, platform in items:
        cls = CLASS_OF[key]
        h = headers_for(subscriber, language, platform)
        if direct:
            h["Authorization"] = f"Bearer {PK}"
            r, data, latency = get(f"/v1/sdk/placements/{key}/paywall?subscriberId={subscriber}", h)
            out.append((cls, latency, False, r.status))
            what = "holdout" if r.status == 204 else r.getheader("X-Xizor-Variant") or r.getheader("X-Xizor-Paywall")
            shown[(key, what)] += 1
            if cls == "subscriber rule":
                assert (r.getheader("X-Xizor-Paywall") == pro_special) == (subscriber in PROS), (subscriber, key)
            continue
        path = EDGE_PATH.format(PK, key)
        r, data, latency = get(path, h)
        out.append((cls, latency, len(r.getheader("X-Varnish", "").split()) == 2, r.status))
        if r.getheader("X-Xizor-Allocation") == "1" and r.status == 200:
            if r.getheader("Content-Encoding") == "gzip":
                data = gzip.decompress(data)
            allocation = json.loads(data)["allocation"]
            b = bucket(allocation["experimentId"], subscriber)
            variant = next(x["variant"] for x in allocation["ranges"] if x["from"] <= b < x["to"])
            if variant is None:
                shown[(key, "holdout")] += 1
                continue
            r, data, latency = get(f"{path}?experiment={allocation['experimentId']}&variant={variant}", h)
            out.append((cls, latency, len(r.getheader("X-Varnish", "").split()) == 2, r.status))
            assert r.getheader("X-Xizor-Variant") == variant, (r.status, r.getheaders())
            shown[(key, variant)] += 1
        else:
            shown[(key, r.getheader("X-Xizor-Paywall"))] += 1
            if cls == "subscriber rule":
                assert (r.getheader("X-Xizor-Paywall") == pro_special) == (subscriber in PROS), (subscriber, key)
    c.close()
    results.put((out, shown))


def run(port, items, direct):
    results = multiprocessing.Queue()
    slices = [items[i::CLIENTS] for i in range(CLIENTS)]
    procs = [multiprocessing.Process(target=worker, args=(s, port, direct, results)) for s in slices]
    t0 = time.monotonic()
    for p in procs:
        p.start()
    collected = [results.get() for _ in procs]
    elapsed = time.monotonic() - t0
    for p in procs:
        p.join()
        assert p.exitcode == 0, p.exitcode
    rows = [row for out, _ in collected for row in out]
    shown = sum((s for _, s in collected), collections.Counter())
    return rows, shown, elapsed


def origin_requests(route):
    text = call("GET", "/metrics")[1].decode()
    return sum(int(float(v)) for v in re.findall(
        r'^xizor_http_requests_total\{route="' + re.escape(route) + r'",[^}]*\} ([0-9.e+]+)$', text, re.M))


def percentile(values, q):
    return values[min(len(values) - 1, int(q * (len(values) - 1)))] * 1000 if values else float("nan")


# --- through the cache -----------------------------------------------------------------------------
def through_cache(items, table):
    """The load through a cold Varnish: per class what reached the origin, latency, and both CPUs.
    Prints the table (or, `table` false, one line) and returns the origin's CPU per client request."""
    global ncsa
    ncsa_file = OUT / "backend-requests.txt"
    if shutil.which("varnishncsa"):
        ncsa = subprocess.Popen(["taskset", "-c", str(CLIENT_CPU), "varnishncsa", "-n", str(varnish.workdir), "-b",
                                 "-F", "%U%q %s"], stdout=open(ncsa_file, "w"), stderr=subprocess.DEVNULL)
        time.sleep(1)
    stats_before, metrics_before = varnish.stats(), origin_requests(ROUTE)
    cpu_before = cpu_ticks(server.pid), sum(cpu_ticks(p) for p in varnish_pids)
    rows, shown, elapsed = run(cache_port, items, direct=False)
    cpu_after = cpu_ticks(server.pid), sum(cpu_ticks(p) for p in varnish_pids)
    metrics_after = origin_requests(ROUTE)
    time.sleep(2)  # Varnish's workers add their counters to the totals when idle
    stats_after = varnish.stats()
    if ncsa:
        time.sleep(1)
        ncsa.send_signal(signal.SIGINT)
        ncsa.wait(timeout=10)
    statuses = collections.Counter(s for _, _, _, s in rows)
    assert set(statuses) == {200}, statuses

    backend_by_class, backend_total = collections.Counter(), 0
    if ncsa:
        for line in ncsa_file.read_text().splitlines():
            m = re.match(r"/v1/sdk/apps/[^/]+/placements/([^/?]+)/paywall", line)
            if m and m.group(1) in CLASS_OF:
                backend_by_class[CLASS_OF[m.group(1)]] += 1
                backend_total += 1
    stat = lambda name: stats_after.get(name, 0) - stats_before.get(name, 0)
    requests_by_class = collections.Counter(c for c, _, _, _ in rows)
    misses_by_class = collections.Counter(c for c, _, hit, _ in rows if not hit)
    latencies = collections.defaultdict(list)
    for c, latency, _, _ in rows:
        latencies[c].append(latency)
        latencies["all"].append(latency)
    for values in latencies.values():
        values.sort()
    subscribers_by_class = collections.Counter(CLASS_OF[key] for _, key, _, _ in items)
    origin_total = backend_total if ncsa else metrics_after - metrics_before
    origin_us = (cpu_after[0] - cpu_before[0]) * TICK_US
    varnish_us = (cpu_after[1] - cpu_before[1]) * TICK_US
    classes = [c for c in CLASSES if requests_by_class[c]]
    if not table:
        print(f"{len(items):,} subscribers ({', '.join(classes)}), {len(rows):,} client requests in {elapsed:.1f} s "
              f"({len(rows) / elapsed:.0f} req/s): origin requests {origin_total:,} "
              f"({100 * origin_total / len(rows):.2f} %), "
              f"p50 {percentile(latencies['all'], 0.5):.2f} ms, p99 {percentile(latencies['all'], 0.99):.2f} ms; "
              f"origin CPU {origin_us / len(rows):.2f} µs per client request, varnishd CPU "
              f"{varnish_us / len(rows):.2f} µs per client request")
        return origin_us / len(rows)
    print(f"\n{len(items):,} subscribers, {len(rows):,} client requests through Varnish in {elapsed:.1f} s "
          f"({len(rows) / elapsed:.0f} req/s)\n")
    print("| class | placements | subscribers | client requests | origin requests | origin ÷ client | p50 | p99 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for c in (*classes, "all"):
        n = len(rows) if c == "all" else requests_by_class[c]
        o = origin_total if c == "all" else (backend_by_class[c] if ncsa else misses_by_class[c])
        print(f"| {c} | {20 if c == 'all' else len(placements[c])} | "
              f"{len(items) if c == 'all' else subscribers_by_class[c]:,} | {n:,} | {o:,} | {100 * o / n:.2f} % | "
              f"{percentile(latencies[c], 0.5):.2f} ms | {percentile(latencies[c], 0.99):.2f} ms |")
    print(f"\norigin requests counted three ways: varnishncsa -b {backend_total if ncsa else 'n/a'} (by URL, "
          f"background refreshes included), MAIN.backend_req {stat('MAIN.backend_req')}, the origin's "
          f"xizor_http_requests_total for {ROUTE} {metrics_after - metrics_before}; answers clients saw "
          f"not from the store (X-Varnish with one id): {sum(misses_by_class.values())} "
          f"({', '.join(f'{c} {misses_by_class[c]}' for c in classes)})")
    print(f"varnish: cache_hit {stat('MAIN.cache_hit')}, cache_miss {stat('MAIN.cache_miss')}, cache_hitmiss "
          f"{stat('MAIN.cache_hitmiss')}, cache_hit_grace {stat('MAIN.cache_hit_grace')}, "
          f"s_pass {stat('MAIN.s_pass')}, "
          f"bans_added {stat('MAIN.bans_added')}, busy_sleep {stat('MAIN.busy_sleep')} (requests parked on the waiting "
          f"list behind another's fetch), objects {stats_after.get('MAIN.n_object', '?')}")
    print(f"origin CPU: {origin_us / 1e6:.2f} s over the run = {origin_us / len(rows):.2f} µs per client request, "
          f"{origin_us / max(1, origin_total):.0f} µs per origin request; varnishd CPU {varnish_us / 1e6:.2f} s = "
          f"{varnish_us / len(rows):.2f} µs per client request")
    holdouts = sum(n for (key, v), n in shown.items() if v == "holdout")
    print(f"experiments: {holdouts} subscribers held out; shown per variant: "
          + ", ".join(f"{k} {v} {n}" for (k, v), n in sorted(shown.items()) if k.startswith("exp-")))
    return origin_us / len(rows)


EDGE_ORIGIN_US = through_cache(work, table=True)
# --- straight to the origin (the authenticated endpoint, no cache) ---------------------------------
if DIRECT > 0:
    direct = work[:DIRECT]
    metrics_before = origin_requests("/v1/sdk/placements/:key/paywall")
    before = cpu_ticks(server.pid)
    rows, shown, elapsed = run(server_port, direct, direct=True)
    after = cpu_ticks(server.pid)
    served = origin_requests("/v1/sdk/placements/:key/paywall") - metrics_before
    statuses = collections.Counter(s for _, _, _, s in rows)
    assert set(statuses) <= {200, 204}, statuses
    assert served == len(rows), (served, len(rows))
    latencies = collections.defaultdict(list)
    for c, latency, _, _ in rows:
        latencies[c].append(latency)
        latencies["all"].append(latency)
    for values in latencies.values():
        values.sort()
    us = (after - before) * TICK_US
    print(f"\nstraight to the origin, authenticated endpoint (server assigns): the first {DIRECT:,} subscribers, "
          f"{len(rows):,} requests in {elapsed:.1f} s ({len(rows) / elapsed:.0f} req/s), {statuses[204]} holdout 204s")
    print(f"origin CPU {us / len(rows):.2f} µs per request (through the cache: {EDGE_ORIGIN_US:.2f} µs per client "
          f"request, {EDGE_ORIGIN_US / (us / len(rows)):.3f} ×); p50 {percentile(latencies['all'], 0.5):.2f} ms, "
          f"p99 {percentile(latencies['all'], 0.99):.2f} ms; per class p99: "
          + ", ".join(f"{c} {percentile(latencies[c], 0.99):.2f} ms" for c in CLASSES))

# --- the cacheable share alone, through a fresh cache (informative) --------------------------------
if CACHEABLE > 0:
    varnish.stop()
    varnish, varnish_pids = start_varnish()
    cacheable = [w for w in work if CLASS_OF[w[1]] != "subscriber rule"][:CACHEABLE]
    print("\nthe plain and experiment share alone, through a fresh Varnish: ", end="")
    through_cache(cacheable, table=False)

cleanup()
load_after = os.getloadavg()
print(f"load average before {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f}, "
      f"after {load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f}")
