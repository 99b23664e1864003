#!/usr/bin/env bash
# Verified revenue's App Store notification endpoint (docs/revenue.md; docs/benchmarks.md "Verified
# revenue"): new notifications (three ES256 chains verified, one durable write each), the stores'
# retries (one read), forged ones (refused), on SQLite and PostgreSQL; REVENUE_BENCH_COUNT (2,000) and
# REVENUE_BENCH_CLIENTS (8) override the size.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${XIZOR_TEST_POSTGRES_URL:-}" ]; then exec env XIZOR_PG_FSYNC=on Tests/postgres/with-cluster.sh bash "$0" "$@"; fi
OUT=$(pwd)/bench/out/revenue
rm -rf "$OUT"; mkdir -p "$OUT"
flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
psql "$XIZOR_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS xizor_revenue_bench" >/dev/null
psql "$XIZOR_TEST_POSTGRES_URL" -qc "CREATE DATABASE xizor_revenue_bench" >/dev/null
for driver in sqlite postgres; do
  echo "-- $driver"
  if [ "$driver" = postgres ]; then
    export XIZOR_STORAGE_DRIVER=postgres XIZOR_STORAGE_POSTGRES_URL="$XIZOR_TEST_POSTGRES_URL dbname=xizor_revenue_bench"
  fi
  .venv/bin/python bench/revenue_bench.py .build/release/xizor "$OUT/$driver" "${REVENUE_BENCH_COUNT:-2000}" "${REVENUE_BENCH_CLIENTS:-8}"
done
