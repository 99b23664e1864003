#!/usr/bin/env bash
# PostgreSQL beside SQLite (issue 16): the SDK 304 on a PostgreSQL replica (served from memory) and
# on the SQLite server, CPU per request; durable events per second in 100-event batches on each;
# dashboard write latency (draft saves) on each; and a publish on replica A until replicas B and C
# serve it. A throwaway cluster with fsync on (Tests/postgres/with-cluster.sh), the servers on CPU 0,
# wrk and the clients on CPU 1.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${XIZOR_TEST_POSTGRES_URL:-}" ]; then exec env XIZOR_PG_FSYNC=on Tests/postgres/with-cluster.sh bash "$0" "$@"; fi
source bench/lib.sh
OUT=$(pwd)/bench/out/postgres
rm -rf "$OUT"; mkdir -p "$OUT/sqlite" "$OUT/pg"
bench_install wrk
flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
BIN=.build/release/xizor
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

psql "$XIZOR_TEST_POSTGRES_URL" -qc "CREATE DATABASE xizor_bench" >/dev/null
PG_URL="$XIZOR_TEST_POSTGRES_URL dbname=xizor_bench"

# The same demo app on each store; SQLite's server first. The per-key events limit (500 requests/s)
# is off: this measures what the stores sustain, not the limiter.
export XIZOR_RATE_LIMITS_EVENTS_PER_SECOND=0 XIZOR_RATE_LIMITS_EVENTS_PER_SUBSCRIBER_PER_MINUTE=0
start_demo_server "$BIN" "$OUT/sqlite"; PIDS+=("$OURS_PID")
S_PID=$OURS_PID S_URL=$URL S_AUTH=$AUTH S_PORT=$PORT S_SECRET=$(sed -E 's/.*"secretKey":"([^"]+)".*/\1/' "$OUT/sqlite/demo.json")
export XIZOR_STORAGE_DRIVER=postgres XIZOR_STORAGE_POSTGRES_URL="$PG_URL"
start_demo_server "$BIN" "$OUT/pg"; PIDS+=("$OURS_PID")
P_PID=$OURS_PID P_URL=$URL P_AUTH=$AUTH P_PORT=$PORT P_SECRET=$(sed -E 's/.*"secretKey":"([^"]+)".*/\1/' "$OUT/pg/demo.json")

bench_header
bench_run sqlite-304 "$S_PID" "$S_URL" "$OUT" -H "$S_AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $(etag_of "$S_URL" -H "$S_AUTH" -H "Accept-Encoding: gzip")"; S304=$CPU_US
bench_run postgres-304 "$P_PID" "$P_URL" "$OUT" -H "$P_AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $(etag_of "$P_URL" -H "$P_AUTH" -H "Accept-Encoding: gzip")"; P304=$CPU_US
echo "SDK 304 CPU per request, PostgreSQL replica / SQLite: $(ratio "$P304" "$S304") (target 1.00: served from memory)"

events_lua "${S_AUTH#Authorization: Bearer }" "$(paywall_of "$S_URL" "$S_AUTH")" "$OUT/sqlite-events.lua"
events_lua "${P_AUTH#Authorization: Bearer }" "$(paywall_of "$P_URL" "$P_AUTH")" "$OUT/pg-events.lua"
CONNECTIONS=16 bench_run sqlite-events "$S_PID" "http://127.0.0.1:$S_PORT" "$OUT" -s "$OUT/sqlite-events.lua"; S_EV=$RPS
CONNECTIONS=16 bench_run postgres-events "$P_PID" "http://127.0.0.1:$P_PORT" "$OUT" -s "$OUT/pg-events.lua"; P_EV=$RPS
echo "durable events per second in 100-event batches, 16 connections: SQLite $(awk -v r="$S_EV" 'BEGIN{printf "%.0f", r*100}'), PostgreSQL $(awk -v r="$P_EV" 'BEGIN{printf "%.0f", r*100}')"

# Dashboard writes, and a publish on A until B and C serve it.
.venv/bin/python bench/postgres_bench.py "$BIN" "$OUT" "$PG_URL" "http://127.0.0.1:$S_PORT" "$S_SECRET" "http://127.0.0.1:$P_PORT" "$P_SECRET" "${P_AUTH#Authorization: Bearer }"
