#!/usr/bin/env bash
# Analytics at any size (issue 42): one app's events loaded straight into the server's schema (5 M
# on SQLite and PostgreSQL, and 50 M on both with ANALYTICS_LARGE=1: hours on a 2-core VM), the rollups
# backfilled by the server's own job, then each report timed, and the dashboard's GET /v1/paywalls
# while 20 clients loop on experiment results (bench/analytics_bench.py). A throwaway PostgreSQL
# cluster with fsync on (Tests/postgres/with-cluster.sh).
#
#   bash bench/analytics.bench.sh            # 5 M events on each database
#   ANALYTICS_EVENTS="1000000" bash bench/analytics.bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${XIZOR_TEST_POSTGRES_URL:-}" ]; then exec env XIZOR_PG_FSYNC=on Tests/postgres/with-cluster.sh bash "$0" "$@"; fi
SIZES=${ANALYTICS_EVENTS:-5000000}
[ "${ANALYTICS_LARGE:-0}" = 1 ] && SIZES="$SIZES 50000000"
flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
PY=${PY:-.venv/bin/python}
for events in $SIZES; do
  OUT=$(pwd)/bench/out/analytics-sqlite-$events
  rm -rf "$OUT"
  "$PY" bench/analytics_bench.py .build/release/xizor "$OUT" sqlite "$events"
  db=xizor_analytics_$events
  psql "$XIZOR_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
  OUT=$(pwd)/bench/out/analytics-postgres-$events
  rm -rf "$OUT"
  "$PY" bench/analytics_bench.py .build/release/xizor "$OUT" postgres "$events" "$XIZOR_TEST_POSTGRES_URL dbname=$db"
  psql "$XIZOR_TEST_POSTGRES_URL" -qc "DROP DATABASE $db" >/dev/null
done
