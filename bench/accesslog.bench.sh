#!/usr/bin/env bash
# What the access log costs: two `xizor serve` on the same demo data, one with the access log off and
# one with it on (to a file), both pinned to CPU 0, wrk on CPU 1 with 64 connections; the 304 and the
# 200 are measured ROUNDS times, alternating servers, and the median CPU per request compared
# (a single pair of runs on this machine varies by ±20 %, more than what is measured).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=$(pwd)/bench/out/accesslog
rm -rf "$OUT"; mkdir -p "$OUT"
ROUNDS=${ROUNDS:-5}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
bench_install wrk
flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
BIN=.build/release/xizor
cleanup() {
  [ -n "${OURS_PID:-}" ] && kill "$OURS_PID" 2>/dev/null || true
  [ -n "${LOGGED_PID:-}" ] && kill "$LOGGED_PID" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
start_demo_server "$BIN" "$OUT"
XIZOR_ACCESS_LOG=true XIZOR_LOG_LEVEL=info taskset -c 0 "$BIN" serve --port 0 --data-dir "$OUT/data" \
  > "$OUT/serve-logged.out" 2> "$OUT/serve-logged.err" &
LOGGED_PID=$!
wait_for_line "$OUT/serve-logged.out"
LURL="http://127.0.0.1:$(listening_port "$OUT/serve-logged.out")/v1/sdk/placements/onboarding/paywall"
ETAG=$(etag_of "$URL" -H "$AUTH" -H "Accept-Encoding: gzip")

bench_header
for round in $(seq "$ROUNDS"); do
  bench_run "off-304-$round" "$OURS_PID" "$URL" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $ETAG"; echo "$CPU_US" >> "$OUT/off-304"
  bench_run "on-304-$round" "$LOGGED_PID" "$LURL" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $ETAG"; echo "$CPU_US" >> "$OUT/on-304"
  bench_run "off-200-$round" "$OURS_PID" "$URL" "$OUT" -H "$AUTH" -H "Accept-Encoding: identity"; echo "$CPU_US" >> "$OUT/off-200"
  bench_run "on-200-$round" "$LOGGED_PID" "$LURL" "$OUT" -H "$AUTH" -H "Accept-Encoding: identity"; echo "$CPU_US" >> "$OUT/on-200"
done
OFF304=$(median < "$OUT/off-304"); ON304=$(median < "$OUT/on-304"); OFF200=$(median < "$OUT/off-200"); ON200=$(median < "$OUT/on-200")
echo "median cpu_us/req: 304 off $OFF304, on $ON304 (on ÷ off $(ratio "$ON304" "$OFF304")); 200 off $OFF200, on $ON200 (on ÷ off $(ratio "$ON200" "$OFF200")); target ≤ 1.10"
echo "lines written: $(grep -c '"message":"request"' "$OUT/serve-logged.err"); dropped: $(curl -s "http://127.0.0.1:$(listening_port "$OUT/serve-logged.out")/metrics" | awk '/^xizor_http_access_log_lines_dropped_total/{print $2}')"
