#!/usr/bin/env python3
"""Analytics at any size (issue 42; run by bench/analytics.bench.sh).

  analytics_bench.py BIN OUT DRIVER EVENTS [PG_URL]

One app (two paywalls of two versions each, a running experiment over both, 30 days, EVENTS/10
subscribers) is created through the API; EVENTS events are then loaded straight into the server's
own schema in time order (SQLite: one connection, 100,000 rows per transaction; PostgreSQL: COPY;
the two indexes keyed by subscriber dropped for the load and built after it, by sorting), as an
upgrade from a database without rollups would find them: every event queued. The server is started
(its startup check timed) and the rollup job backfills the rollups
(PostgreSQL: then a VACUUM ANALYZE, what autovacuum would do after the load); then each report is
timed (p50 and p99 of 100, one client), and GET /v1/paywalls while 20 clients loop on experiment
results. Prints one JSON line per figure and a markdown table."""
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import requests

if sys.argv[1] != "--loop":
    BIN, OUT, DRIVER, EVENTS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    PG_URL = sys.argv[5] if len(sys.argv) > 5 else None
ADMIN = "xa_bench_admin_token_0123456789abcdef"
DAY = 86_400_000
NOW = int(time.time() * 1000)
START = NOW - 30 * DAY
DATA = os.path.join(OUT, "data") if sys.argv[1] != "--loop" else None
rows = []


def emit(**figure):
    figure.update(driver=DRIVER, events=EVENTS)
    print(json.dumps(figure), flush=True)
    rows.append(figure)


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def env():
    e = dict(os.environ, XIZOR_LOG_LEVEL="warning", XIZOR_ACCESS_LOG="false", XIZOR_ADMIN_TOKEN=ADMIN)
    if DRIVER == "postgres":
        e.update(XIZOR_STORAGE_DRIVER="postgres", XIZOR_STORAGE_POSTGRES_URL=PG_URL)
    return e


def serve():
    """Starts the server; answers it, its URL and the seconds it took to listen. On SQLite that time is
    mostly the startup check (`storage.startupCheck`): `quick`, the default, leaves the events and
    their rollups out (0.17 s at 50 M events); `file` reads the whole file (334 s at 50 M)."""
    out = open(os.path.join(OUT, "serve.out"), "w")
    started = time.time()
    process = subprocess.Popen([BIN, "serve", "--port", "0", "--data-dir", DATA], env=env(), stdout=out,
                               stderr=open(os.path.join(OUT, "serve.err"), "a"))
    while time.time() - started < 3600 and process.poll() is None:
        try:
            line = open(os.path.join(OUT, "serve.out")).readline()
            if line:
                return process, "http://127.0.0.1:%d" % json.loads(line)["port"], time.time() - started
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


def stop(process):
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=120)


def sql(statement):
    """One value from the server's database."""
    if DRIVER == "sqlite":
        db = sqlite3.connect(os.path.join(DATA, "xizor.sqlite"), timeout=60)
        try:
            return db.execute(statement).fetchone()[0]
        finally:
            db.close()
    return subprocess.run(["psql", PG_URL, "-Atqc", statement], check=True, capture_output=True,
                          text=True).stdout.strip()


def setup(base):
    admin = requests.Session()
    admin.headers["Authorization"] = f"Bearer {ADMIN}"
    app = admin.post(base + "/v1/apps", json={"name": "Analytics bench"}).json()
    s = requests.Session()
    s.headers["Authorization"] = f"Bearer {app['secretKey']}"
    paywalls = []
    for template in ("clean", "cinematic"):
        pw = s.post(base + "/v1/paywalls", json={"template": template}).json()["id"]
        for note in ("one", "two"):
            r = s.post(base + f"/v1/paywalls/{pw}/publish", json={"note": note, "force": True})
            assert r.status_code in (200, 201), r.text
        paywalls.append(pw)
    r = s.post(base + "/v1/experiments", json={"name": "Bench", "variants": [
        {"paywallId": paywalls[0], "weight": 50}, {"paywallId": paywalls[1], "weight": 50, "name": "b"}]})
    assert r.status_code == 201, r.text
    experiment = r.json()["id"]
    assert s.put(base + "/v1/placements/onboarding", json={"experimentId": experiment}).status_code == 200
    assert s.post(base + f"/v1/experiments/{experiment}/start").status_code == 200
    return app["appId"], app["secretKey"], paywalls, experiment


NAMES = ["paywall_open"] * 50 + ["paywall_close"] * 25 + ["purchase_started"] * 10 + \
        ["purchase_completed"] * 5 + ["purchase_failed"] * 5 + ["purchase_cancelled"] * 3 + ["restore_completed"] * 2


def generate(app, paywalls, experiment):
    """EVENTS rows in time order: (app_id, id, name, occurred_at, received_at, placement, paywall_id,
    version, subscriber_id, context, properties, experiment_id, variant, environment)."""
    rng = random.Random(42)
    subscribers = max(EVENTS // 10, 1)
    step = 30 * DAY / EVENTS
    for i in range(EVENTS):
        t = START + int(i * step)
        name = rng.choice(NAMES)
        onboarding = rng.random() < 0.7
        paywall = rng.randrange(2)
        properties = '{"price":9.99,"currency":"USD"}' if name == "purchase_completed" else None
        yield (app, "e%010d" % i, name, t, t + 1000, "onboarding" if onboarding else "upsell", paywalls[paywall],
               1 + rng.randrange(2), "s%d" % rng.randrange(subscribers), None, properties,
               experiment if onboarding else None, ("control" if paywall == 0 else "b") if onboarding else None,
               "sandbox" if rng.random() < 0.05 else "production")


COLUMNS = ("app_id, id, name, occurred_at, received_at, placement, paywall_id, version, subscriber_id, context, "
           "properties, experiment_id, variant, environment")


def built(indexing):
    seconds = time.time() - indexing
    emit(figure="indexes built after the load", seconds=round(seconds, 1), per_second=round(EVENTS / max(seconds, 0.001)))


def load(app, paywalls, experiment):
    started = time.time()
    if DRIVER == "sqlite":
        db = sqlite3.connect(os.path.join(DATA, "xizor.sqlite"), timeout=60)
        db.execute("PRAGMA synchronous = NORMAL")
        # A GiB of the loader's own page cache: at 50 M the indexes outgrow the default 2 MiB and each
        # row's inserts became reads of the OS cache (the first 50 M load: 11,091 rows/s; 5 M's, 18,111).
        db.execute("PRAGMA cache_size = -1048576")
        db.execute("PRAGMA threads = 2")  # the sorter of CREATE INDEX on both cores
        # The indexes keyed by subscriber take rows in random order: at 50 M each insert was a read of
        # a page no longer cached. They are dropped for the load and built again after it by sorting,
        # as a bulk import would; the load's time includes building them.
        dropped = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' "
                             "AND sql LIKE '%subscriber_id%'").fetchall()
        for name, _ in dropped:
            db.execute(f"DROP INDEX {name}")
        batch = []
        for row in generate(app, paywalls, experiment):
            batch.append(row)
            if len(batch) == 100_000:
                db.executemany(f"INSERT INTO events ({COLUMNS}) VALUES ({', '.join('?' * 14)})", batch)
                db.commit()
                batch = []
        if batch:
            db.executemany(f"INSERT INTO events ({COLUMNS}) VALUES ({', '.join('?' * 14)})", batch)
            db.commit()
        indexing = time.time()
        for _, statement in dropped:
            db.execute(statement)
        db.commit()
        built(indexing)
        db.close()
    else:
        # As on SQLite: the subscriber indexes are dropped for the copy and built after it.
        dropped = subprocess.run(["psql", PG_URL, "-Atqc", "SELECT indexname || '|' || indexdef FROM pg_indexes "
                                  "WHERE tablename = 'events' AND indexdef LIKE '%subscriber_id%'"],
                                 check=True, capture_output=True, text=True).stdout.splitlines()
        # pg_indexes names the partitioned parent "ON ONLY", which would build the index on no partition.
        dropped = [line.replace(" ON ONLY ", " ON ").split("|", 1) for line in dropped if line]
        for name, _ in dropped:
            sql(f"DROP INDEX {name}")
        copy = subprocess.Popen(["psql", PG_URL, "-qc", f"\\copy events ({COLUMNS}) FROM STDIN WITH (FORMAT text)"],
                                stdin=subprocess.PIPE, text=True)

        def text(value):
            return "\\N" if value is None else str(value)
        chunk = []
        for row in generate(app, paywalls, experiment):
            chunk.append("\t".join(text(v) for v in row))
            if len(chunk) == 50_000:
                copy.stdin.write("\n".join(chunk) + "\n")
                chunk = []
        if chunk:
            copy.stdin.write("\n".join(chunk) + "\n")
        copy.stdin.close()
        assert copy.wait() == 0
        indexing = time.time()
        subprocess.run(["psql", PG_URL, "-qc", "SET maintenance_work_mem = '1GB'"]
                       + [arg for _, statement in dropped for arg in ("-c", statement)], check=True)
        built(indexing)
    return time.time() - started


def timed(session, url, n=100, **params):
    for _ in range(3):
        session.get(url, params=params)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        r = session.get(url, params=params)
        times.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 200, r.text
    return times


def main():
    os.makedirs(OUT, exist_ok=True)
    saved = os.path.join(OUT, "setup.json")
    if os.environ.get("ANALYTICS_REUSE") == "1" and os.path.exists(saved):
        # The requests again, over what an earlier run of the same size loaded and folded, and over
        # the same window: "now" is the load's (the events end there), so the 7-day range's two
        # partial hours hold an hour of events together, as in the first run, whatever the clock says.
        app, secret, paywalls, experiment, *loaded = json.load(open(saved))
        if loaded:
            now = loaded[0]
        else:  # saved before the load's "now" was (SQLite runs only): the last event's time, by rowid
            assert DRIVER == "sqlite", "this database's setup.json predates its load time: load it again"
            now = int(sql("SELECT occurred_at FROM events ORDER BY rowid DESC LIMIT 1")) + 30 * DAY // EVENTS + 1
    else:
        process, base, _ = serve()
        app, secret, paywalls, experiment = setup(base)
        stop(process)
        loading = load(app, paywalls, experiment)
        emit(figure="load", seconds=round(loading, 1), per_second=round(EVENTS / loading))
        json.dump([app, secret, paywalls, experiment, NOW], open(saved, "w"))
        now = NOW
    process, base, starting = serve()
    emit(figure="server start (its startup check)", seconds=round(starting, 1))
    try:
        started = time.time()
        waited = False
        # Whether anything is queued, not how much: a count of a 50 M queue is a scan a second beside
        # the job (and on SQLite a reader that keeps the WAL from being checkpointed).
        while sql("SELECT EXISTS (SELECT 1 FROM event_rollup_queue)") in (1, "t"):
            waited = True
            time.sleep(1)
        folding = time.time() - started
        if waited:  # a reused database may still have been backfilling
            emit(figure="backfill", seconds=round(folding, 1), per_second=round(EVENTS / max(folding, 0.001)))
            if DRIVER == "postgres":
                # What autovacuum does after a bulk load and a drained queue, done before measuring
                # rather than beside it (measured during it, every funnel took 2-3x as long).
                started = time.time()
                sql("VACUUM (ANALYZE)")
                vacuum = time.time() - started
                emit(figure="vacuum", seconds=round(vacuum, 1), per_second=round(EVENTS / max(vacuum, 0.001)))

        s = requests.Session()
        s.headers["Authorization"] = f"Bearer {secret}"
        funnel = base + f"/v1/paywalls/{paywalls[0]}/analytics"
        results = base + f"/v1/experiments/{experiment}/results"
        cases = [
            ("funnel", funnel, {}),
            ("funnel, last 7 days", funnel, {"from": now - 7 * DAY - 1234, "to": now}),
            ("funnel, environment=all", funnel, {"environment": "all"}),
            ("funnel, interval=day", funnel, {"interval": "day"}),
            ("experiment results", results, {}),
        ]
        answer = s.get(funnel).json()
        assert "eventsNotCounted" not in answer, answer
        emit(figure="estimates", fields=answer["estimates"]["fields"])
        for label, url, params in cases:
            times = timed(s, url, **params)
            emit(figure=label, p50_ms=round(pct(times, 50), 1), p99_ms=round(pct(times, 99), 1))

        # 20 dashboards open on the results page, in a process of their own (the measuring client's
        # interpreter is not shared): each reloads as soon as it has an answer, and waits what a
        # 429's Retry-After says, as the console does.
        loopers = subprocess.Popen([sys.executable, __file__, "--loop", results, secret, "20"],
                                   stdout=subprocess.PIPE, text=True)
        time.sleep(2)
        times = timed(s, base + "/v1/paywalls", n=300)
        loopers.terminate()
        answered = json.loads(loopers.communicate(timeout=30)[0])
        assert answered.get("200", 0) > 0, answered
        emit(figure="GET /v1/paywalls beside 20 results clients", p50_ms=round(pct(times, 50), 1),
             p99_ms=round(pct(times, 99), 1), results_answered=answered)
    finally:
        stop(process)
    print()
    print(f"| {DRIVER}, {EVENTS:,} events | p50 | p99 |")
    print("| --- | ---: | ---: |")
    for row in rows:
        if "p50_ms" in row:
            print(f"| {row['figure']} | {row['p50_ms']} ms | {row['p99_ms']} ms |")
        elif "seconds" in row:
            rate = f"{row['per_second']:,}/s" if "per_second" in row else ""
            print(f"| {row['figure']} | {row['seconds']} s | {rate} |")


def loop(url, secret, clients):
    """Runs `clients` threads reloading `url` until SIGTERM; prints the statuses answered."""
    answered = {}
    lock = threading.Lock()

    def client():
        c = requests.Session()
        c.headers["Authorization"] = f"Bearer {secret}"
        while True:
            r = c.get(url)
            with lock:
                answered[str(r.status_code)] = answered.get(str(r.status_code), 0) + 1
            if r.status_code in (429, 503):
                time.sleep(float(r.headers.get("Retry-After", "1")))
    for _ in range(clients):
        threading.Thread(target=client, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: (print(json.dumps(answered), flush=True), os._exit(0)))
    while True:
        time.sleep(1)


if sys.argv[1] == "--loop":
    loop(sys.argv[2], sys.argv[3], int(sys.argv[4]))
else:
    main()
