#!/usr/bin/env bash
# HTTP core benchmark: the fixed 6 KB JSON with a strong ETag, served by xizor-http-fixture and by
# nginx (Debian's, one process, etag on) in the same run. Server pinned to CPU 0, wrk to CPU 1,
# 64 connections; plain GET and GET with a matching If-None-Match (304). Prints req/s, p50/p99 and
# server CPU time per request (utime+stime from /proc/PID/stat over the run / requests wrk counted),
# and the ratio nginx/ours (>= 0.8 is the target).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=$(pwd)/bench/out/http
rm -rf "$OUT"; mkdir -p "$OUT/www"
bench_install wrk nginx
flock /tmp/xizor-build.lock swift build -c release --product xizor-http-fixture >/dev/null
BIN=.build/release/xizor-http-fixture

cleanup() {
  [ -n "${OURS_PID:-}" ] && kill "$OURS_PID" 2>/dev/null || true
  [ -n "${NGINX_PID:-}" ] && kill "$NGINX_PID" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

taskset -c 0 "$BIN" --port 0 --no-access-log > "$OUT/fixture.out" 2> "$OUT/fixture.err" &
OURS_PID=$!
wait_for_line "$OUT/fixture.out"
OURS_PORT=$(listening_port "$OUT/fixture.out")
curl -s "http://127.0.0.1:$OURS_PORT/bench" -o "$OUT/www/bench.json"

NGINX_PORT=$(free_port $((OURS_PORT + 1)))
start_nginx "$OUT" "$NGINX_PORT" "
    location = /bench {
      default_type application/json;
      add_header Cache-Control no-cache;
      alias $OUT/www/bench.json;
    }"
cmp -s <(curl -s "http://127.0.0.1:$NGINX_PORT/bench") "$OUT/www/bench.json" || { echo "nginx serves different bytes"; exit 1; }
OURS_ETAG=$(etag_of "http://127.0.0.1:$OURS_PORT/bench")
NGINX_ETAG=$(etag_of "http://127.0.0.1:$NGINX_PORT/bench")

bench_header
bench_run xizor-200 "$OURS_PID" "http://127.0.0.1:$OURS_PORT/bench" "$OUT";                                  OURS_200=$CPU_US
bench_run nginx-200 "$NGINX_PID" "http://127.0.0.1:$NGINX_PORT/bench" "$OUT";                                NGINX_200=$CPU_US
bench_run xizor-304 "$OURS_PID" "http://127.0.0.1:$OURS_PORT/bench" "$OUT" -H "If-None-Match: $OURS_ETAG";   OURS_304=$CPU_US
bench_run nginx-304 "$NGINX_PID" "http://127.0.0.1:$NGINX_PORT/bench" "$OUT" -H "If-None-Match: $NGINX_ETAG"; NGINX_304=$CPU_US
echo "ratio nginx/xizor cpu per request, 200: $(ratio "$NGINX_200" "$OURS_200")"
echo "ratio nginx/xizor cpu per request, 304: $(ratio "$NGINX_304" "$OURS_304")"
