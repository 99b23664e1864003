#!/usr/bin/env bash
# Events ingestion on one core and on two (issue 42): durable events per second through
# POST /v1/sdk/events (16 connections, 100-event batches, the per-key and per-subscriber events
# limits off: this measures the stores), on SQLite and on PostgreSQL (fsync on), and each database's
# floor: the same rows written by one INSERT … SELECT inside the database, no HTTP, no server; and
# PostgreSQL's ceiling in the same shape as the load (pgbench, 16 connections, 100-row batches).
#   one core:  the server and PostgreSQL both on CPU 0, wrk on CPU 1;
#   two cores: the server and PostgreSQL on either CPU, wrk on CPU 1 (it shares one with them).
set -euo pipefail
[ -n "${BENCH_TRACE:-}" ] && set -x
cd "$(dirname "$0")/.."
if [ -z "${XIZOR_TEST_POSTGRES_URL:-}" ]; then exec env XIZOR_PG_FSYNC=on Tests/postgres/with-cluster.sh bash "$0" "$@"; fi
source bench/lib.sh
OUT=$(pwd)/bench/out/ingest
rm -rf "$OUT"; mkdir -p "$OUT"
bench_install wrk
flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
BIN=$(pwd)/.build/release/xizor
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
export XIZOR_RATE_LIMITS_EVENTS_PER_SECOND=0 XIZOR_RATE_LIMITS_EVENTS_PER_SUBSCRIBER_PER_MINUTE=0

# PostgreSQL's processes (the postmaster and its children; new backends inherit its CPUs).
PG_MAIN=$(head -1 "$(psql "$XIZOR_TEST_POSTGRES_URL" -Atc "SHOW data_directory")/postmaster.pid")
pin_postgres() { for pid in $PG_MAIN $(pgrep -P "$PG_MAIN"); do taskset -pc "$1" "$pid" >/dev/null; done; }

per_second() { awk -v r="$1" 'BEGIN{printf "%.0f", r*100}'; }

# floor_sql APP PAYWALL [ROWS] [ID] [TAIL] : ROWS (100,000) rows like the batches' (one paywall, 100
# subscribers) in one statement; ID is the id's SQL expression over g, TAIL what ends the statement.
floor_sql() {
  cat <<SQL
INSERT INTO events (app_id, id, name, occurred_at, received_at, placement, paywall_id, version, subscriber_id, environment)
SELECT '$1', ${4:-'floor-' || md5(g::text)}, 'paywall_open', $(date +%s)000 + g, $(date +%s)000, 'onboarding', '$2', 1, 's' || (g % 100), 'production'
FROM generate_series(1, ${3:-100000}) AS g${5:-}
SQL
}

bench_header
for driver in sqlite postgres; do
  mkdir -p "$OUT/$driver"
  if [ "$driver" = postgres ]; then
    psql "$XIZOR_TEST_POSTGRES_URL" -qc "CREATE DATABASE xizor_ingest" >/dev/null
    export XIZOR_STORAGE_DRIVER=postgres XIZOR_STORAGE_POSTGRES_URL="$XIZOR_TEST_POSTGRES_URL dbname=xizor_ingest"
  fi
  start_demo_server "$BIN" "$OUT/$driver"; PIDS+=("$OURS_PID")
  PAYWALL=$(paywall_of "$URL" "$AUTH")
  APP=$(sed -E 's/.*"appId":"([^"]+)".*/\1/' "$OUT/$driver/demo.json")
  events_lua "${AUTH#Authorization: Bearer }" "$PAYWALL" "$OUT/$driver/events.lua"
  for cores in 0 0,1; do
    taskset -a -pc "$cores" "$OURS_PID" >/dev/null
    [ "$driver" = postgres ] && pin_postgres "$cores"
    CONNECTIONS=16 bench_run "$driver-cpu$cores" "$OURS_PID" "http://127.0.0.1:$PORT" "$OUT" -s "$OUT/$driver/events.lua"
    echo "$driver on CPU $cores: $(per_second "$RPS") durable events/s" >> "$OUT/summary.txt"
  done
  kill "$OURS_PID"; wait "$OURS_PID" 2>/dev/null || true
  if [ "$driver" = sqlite ]; then
    floor_ms=$(.venv/bin/python - "$OUT/$driver/data/xizor.sqlite" "$(floor_sql "$APP" "$PAYWALL")" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA synchronous = FULL")
db.execute("PRAGMA cache_size = -65536")  # the writer's 64 MiB (storage.writerCacheBytes)
db.execute("BEGIN")
t = time.perf_counter()
db.execute(sys.argv[2].replace("md5(g::text)", "hex(randomblob(16))").replace("generate_series(1, 100000) AS g", "(WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < 100000) SELECT g FROM s) AS s"))
db.execute("COMMIT")
print(round((time.perf_counter() - t) * 1000, 1))
PY
)
  else
    pin_postgres 1
    floor_ms=$( { echo '\timing on'; floor_sql "$APP" "$PAYWALL"; echo ';'; } | psql "$XIZOR_STORAGE_POSTGRES_URL" -qAt | awk '/^Time:/{print $2}')
  fi
  echo "$driver floor (one INSERT … SELECT of 100,000 rows, one core): $(awk -v ms="$floor_ms" 'BEGIN{printf "%.1f µs per row, %.0f rows/s", ms/100, 100000000/ms}')" >> "$OUT/summary.txt"
  if [ "$driver" = postgres ]; then
    # The issue's own shape with no server at all: 16 connections each committing 100-row batches
    # (ON CONFLICT DO NOTHING, as the server's), PostgreSQL and pgbench free on both cores. What this
    # reaches, the server cannot pass on this machine.
    pin_postgres 0,1
    { echo '\set r random(1, 2000000000)'
      floor_sql "$APP" "$PAYWALL" 100 "'ceiling-' || :client_id || '-' || :r || '-' || g" " ON CONFLICT DO NOTHING;" | tr '\n' ' '
      echo; } > "$OUT/ceiling.sql"
    tps=$("$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/pgbench" \
      -n -M prepared -c 16 -j 2 -T 10 -f "$OUT/ceiling.sql" "$XIZOR_STORAGE_POSTGRES_URL" | awk '/^tps/{print $3}')
    echo "postgres ceiling (pgbench: 16 connections, 100-row batches, both cores, no server): $(awk -v t="$tps" 'BEGIN{printf "%.0f rows/s", t*100}')" >> "$OUT/summary.txt"
  fi
done
cat "$OUT/summary.txt"
