#!/usr/bin/env bash
# XizorKit (clients/swift) against a local server: a first launch's cold fetch, a cached
# presentation's 304 revalidation, and events tracked to disk then flushed in batches of 500
# (issue 18; docs/benchmarks.md "The Swift client"). Server pinned to CPU 0; the client is not
# pinned: confined to one CPU, Linux's FoundationNetworking (libcurl driven by Dispatch) spends most
# of its time in Dispatch wake-ups (perf: eventfd_write, finish_task_switch) and its event flush
# falls from ~15,000 to ~1,100 events/s — a property of that runtime, not of a phone's.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=$(pwd)/bench/out/client
rm -rf "$OUT"; mkdir -p "$OUT"
flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
flock /tmp/xizor-build.lock swift build -c release --package-path clients/swift --product xizor-kit-bench >/dev/null
BIN=.build/release/xizor

cleanup() { [ -n "${OURS_PID:-}" ] && kill "$OURS_PID" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT
# Events carry the client's clock; the bench sends far more than the default per-key limit allows.
export XIZOR_RATE_LIMITS_EVENTS_PER_SECOND=0
start_demo_server "$BIN" "$OUT"
clients/swift/.build/release/xizor-kit-bench --base-url "http://127.0.0.1:$PORT" --key "$PK" \
  --placement onboarding --events "${CLIENT_BENCH_EVENTS:-50000}" --fetches "${CLIENT_BENCH_FETCHES:-300}"
