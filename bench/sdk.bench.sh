#!/usr/bin/env bash
# The headline: the SDK endpoint serving the `cinematic` template (JSON, identity and gzip) and its
# 304 revalidation, beside nginx serving the same bytes (a static file with its ETag; a
# precompressed copy for gzip) the same way: server on CPU 0, wrk on CPU 1, 64 keep-alive
# connections; then, informative, nginx with open_file_cache. Then events ingested per second in
# 100-event batches (durable: synchronous=FULL).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=$(pwd)/bench/out/sdk
rm -rf "$OUT"; mkdir -p "$OUT/www"
bench_install wrk nginx
flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
BIN=.build/release/xizor

cleanup() {
  [ -n "${OURS_PID:-}" ] && kill "$OURS_PID" 2>/dev/null || true
  [ -n "${NGINX_PID:-}" ] && kill "$NGINX_PID" 2>/dev/null || true
  [ -n "${LOGGED_PID:-}" ] && kill "$LOGGED_PID" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

# One key sends every batch here: its per-key events limit (500 requests/s by default) is off, and so
# is the per-subscriber one (the ordered load repeats s1…s100 in every batch, which 600 events a
# minute would answer 429), so the ingest path is what is measured.
export XIZOR_RATE_LIMITS_EVENTS_PER_SECOND=0 XIZOR_RATE_LIMITS_EVENTS_PER_SUBSCRIBER_PER_MINUTE=0
start_demo_server "$BIN" "$OUT"

curl -sf -H "$AUTH" -H "Accept-Encoding: identity" "$URL" -o "$OUT/www/paywall.json"
curl -sf -H "$AUTH" -H "Accept-Encoding: gzip" "$URL" -o "$OUT/www/paywall.json.gz"
cmp -s <(gzip -dc "$OUT/www/paywall.json.gz") "$OUT/www/paywall.json" || { echo "gzip form differs"; exit 1; }
OURS_ETAG=$(etag_of "$URL" -H "$AUTH" -H "Accept-Encoding: identity")
OURS_GZIP_ETAG=$(etag_of "$URL" -H "$AUTH" -H "Accept-Encoding: gzip")

# Our 304's own header fields (signature, Vary), for an nginx location that sends as many header
# bytes as we do (the request id's value is a fixed one of the same length).
OURS_304=(-H "$AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $OURS_GZIP_ETAG")
OURS_SIGNATURE=$(header_of X-Xizor-Signature "$URL" "${OURS_304[@]}")
OURS_VARY=$(header_of Vary "$URL" "${OURS_304[@]}")
[ -n "$OURS_SIGNATURE" ] && [ -n "$OURS_VARY" ] || { echo "our 304 has no signature or Vary"; exit 1; }

NGINX_PORT=$(free_port $((PORT + 1)))
start_nginx "$OUT" "$NGINX_PORT" "
    location = /paywall.json {
      default_type application/json;
      gzip_static on;
      add_header Cache-Control no-cache;
      alias $OUT/www/paywall.json;
    }
    location = /logged/paywall.json {
      default_type application/json;
      gzip_static on;
      access_log $OUT/nginx-access.log;
      add_header Cache-Control no-cache;
      alias $OUT/www/paywall.json;
    }
    location = /cached/paywall.json {
      default_type application/json;
      gzip_static on;
      open_file_cache max=1000 inactive=60s;
      add_header Cache-Control no-cache;
      alias $OUT/www/paywall.json;
    }
    location = /same-bytes/paywall.json {
      default_type application/json;
      gzip_static on;
      open_file_cache max=1000 inactive=60s;
      add_header Cache-Control no-cache;
      add_header X-Xizor-Signature '$OURS_SIGNATURE' always;
      add_header Vary '$OURS_VARY' always;
      add_header X-Request-Id 0123456789abcdef always;
      alias $OUT/www/paywall.json;
    }"
NURL="http://127.0.0.1:$NGINX_PORT/paywall.json"
cmp -s <(curl -s "$NURL") "$OUT/www/paywall.json" || { echo "nginx serves different bytes"; exit 1; }
cmp -s <(curl -s -H "Accept-Encoding: gzip" "$NURL") "$OUT/www/paywall.json.gz" || { echo "nginx gzip differs"; exit 1; }
NGINX_ETAG=$(etag_of "$NURL")
NGINX_GZIP_ETAG=$(etag_of "$NURL" -H "Accept-Encoding: gzip")

echo "cinematic on placement onboarding: $(wc -c < "$OUT/www/paywall.json") bytes identity, $(wc -c < "$OUT/www/paywall.json.gz") gzip"
bench_header
bench_run xizor-200-identity "$OURS_PID" "$URL" "$OUT" -H "$AUTH" -H "Accept-Encoding: identity";  O200=$CPU_US; P99_200=$P99
bench_run nginx-200-identity "$NGINX_PID" "$NURL" "$OUT" -H "Accept-Encoding: identity";           N200=$CPU_US
bench_run xizor-200-gzip "$OURS_PID" "$URL" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip";          OGZ=$CPU_US; P99_GZ=$P99
bench_run nginx-200-gzip "$NGINX_PID" "$NURL" "$OUT" -H "Accept-Encoding: gzip";                   NGZ=$CPU_US
bench_run xizor-304 "$OURS_PID" "$URL" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $OURS_GZIP_ETAG"; O304=$CPU_US; P99_304=$P99
bench_run nginx-304 "$NGINX_PID" "$NURL" "$OUT" -H "Accept-Encoding: gzip" -H "If-None-Match: $NGINX_GZIP_ETAG";        N304=$CPU_US
grep -q "Non-2xx" "$OUT/wrk-xizor-304.txt" && { echo "unexpected statuses"; exit 1; }
# The cacheable path form (docs/scaling.md, "Edge delivery"): the key in the path, the subscriber in
# a header, the answer public and signed — what a CDN's revalidation, or a device's, costs the origin.
EURL="http://127.0.0.1:$PORT/v1/sdk/apps/$PK/placements/onboarding/paywall"
OURS_EDGE_GZIP_ETAG=$(etag_of "$EURL" -H "Accept-Encoding: gzip")
bench_run xizor-edge-200-gzip "$OURS_PID" "$EURL" "$OUT" -H "X-Xizor-Subscriber-Id: s1" -H "Accept-Encoding: gzip"; OEGZ=$CPU_US
bench_run xizor-edge-304 "$OURS_PID" "$EURL" "$OUT" -H "X-Xizor-Subscriber-Id: s1" -H "Accept-Encoding: gzip" -H "If-None-Match: $OURS_EDGE_GZIP_ETAG"; OE304=$CPU_US
grep -q "Non-2xx" "$OUT/wrk-xizor-edge-304.txt" && { echo "unexpected statuses (edge)"; exit 1; }
# Informative: nginx with open_file_cache, which keeps the file open and skips openat/fstat/close
# per request (not in nginx's default configuration, which the targets are measured against).
CURL="http://127.0.0.1:$NGINX_PORT/cached/paywall.json"
bench_run nginx-cached-200-identity "$NGINX_PID" "$CURL" "$OUT" -H "Accept-Encoding: identity";           NC200=$CPU_US
bench_run nginx-cached-200-gzip "$NGINX_PID" "$CURL" "$OUT" -H "Accept-Encoding: gzip";                   NCGZ=$CPU_US
bench_run nginx-cached-304 "$NGINX_PID" "$CURL" "$OUT" -H "Accept-Encoding: gzip" -H "If-None-Match: $NGINX_GZIP_ETAG"; NC304=$CPU_US
echo "ratio nginx/xizor cpu per request: 200 identity $(ratio "$N200" "$O200"), 200 gzip $(ratio "$NGZ" "$OGZ"), 304 $(ratio "$N304" "$O304") (targets ≥ 0.8, ≥ 0.8, ≥ 1.0)"
echo "against nginx with open_file_cache (issue 22 asks ≥ 1.2): 200 identity $(ratio "$NC200" "$O200"), 200 gzip $(ratio "$NCGZ" "$OGZ"), 304 $(ratio "$NC304" "$O304")"
echo "path form ÷ authenticated form, cpu per request: 200 gzip $(ratio "$OEGZ" "$OGZ"), 304 $(ratio "$OE304" "$O304") (target ≤ 1.0); nginx-cached ÷ path-form 304: $(ratio "$NC304" "$OE304") (issue 40 asks ≥ 1.0)"
echo "p99: 200 identity $P99_200, 200 gzip $P99_GZ, 304 $P99_304 (target < 5 ms)"

# Issue 40's figure, the 304 against nginx with open_file_cache, in alternating rounds: this VM's
# speed drifts by ±10 % over tens of seconds (the same binary measured 6.8 to 8.4 µs per 304 in one
# run), more than the gap, so each round's ratio is printed and the median is the figure. Beside
# it, informative: the same nginx sending as many header bytes as our 304 (signature, Vary,
# request id), which shows how much of the gap is the answer's size in the kernel.
SURL="http://127.0.0.1:$NGINX_PORT/same-bytes/paywall.json"
head_bytes() { curl -s -D - -o /dev/null "${@:2}" "$1" | wc -c; }  # head_bytes URL [curl args…]
NGINX_304=(-H "Accept-Encoding: gzip" -H "If-None-Match: $NGINX_GZIP_ETAG")
echo "304 head bytes: xizor $(head_bytes "$URL" "${OURS_304[@]}"), nginx $(head_bytes "$CURL" "${NGINX_304[@]}"), nginx same-bytes $(head_bytes "$SURL" "${NGINX_304[@]}")"
: > "$OUT/rounds-cached"; : > "$OUT/rounds-same"; : > "$OUT/rounds-edge"
# The path form's 304 (what a CDN's revalidation costs) in the same rounds, against the same nginx.
EDGE_304=(-H "X-Xizor-Subscriber-Id: s1" -H "Accept-Encoding: gzip" -H "If-None-Match: $OURS_EDGE_GZIP_ETAG")
for round in $(seq "${BENCH_ROUNDS:-3}"); do
  bench_run "xizor-304-r$round" "$OURS_PID" "$URL" "$OUT" "${OURS_304[@]}"; R_OURS=$CPU_US
  bench_run "nginx-cached-304-r$round" "$NGINX_PID" "$CURL" "$OUT" "${NGINX_304[@]}"; R_CACHED=$CPU_US
  bench_run "xizor-edge-304-r$round" "$OURS_PID" "$EURL" "$OUT" "${EDGE_304[@]}"; R_EDGE=$CPU_US
  bench_run "nginx-same-bytes-304-r$round" "$NGINX_PID" "$SURL" "$OUT" "${NGINX_304[@]}"; R_SAME=$CPU_US
  ratio3 "$R_CACHED" "$R_OURS" >> "$OUT/rounds-cached"; echo >> "$OUT/rounds-cached"
  ratio3 "$R_CACHED" "$R_EDGE" >> "$OUT/rounds-edge"; echo >> "$OUT/rounds-edge"
  ratio3 "$R_SAME" "$R_OURS" >> "$OUT/rounds-same"; echo >> "$OUT/rounds-same"
done
echo "304, nginx with open_file_cache ÷ xizor, by round: $(paste -sd' ' "$OUT/rounds-cached"), median $(median < "$OUT/rounds-cached") (issue 40 asks ≥ 1.0); nginx sending our header bytes ÷ xizor: $(paste -sd' ' "$OUT/rounds-same"), median $(median < "$OUT/rounds-same")"
echo "path-form 304, nginx with open_file_cache ÷ xizor, by round: $(paste -sd' ' "$OUT/rounds-edge"), median $(median < "$OUT/rounds-edge") (issue 40 asks ≥ 1.0)"

# Access logs on, both sides (their default configurations): a second `xizor serve` on the same data
# with the access log on (to a file), nginx's `access_log` on for /logged/.
XIZOR_ACCESS_LOG=true XIZOR_LOG_LEVEL=info taskset -c 0 "$BIN" serve --port 0 --data-dir "$OUT/data" \
  > "$OUT/serve-logged.out" 2> "$OUT/serve-logged.err" &
LOGGED_PID=$!
wait_for_line "$OUT/serve-logged.out"
LURL="http://127.0.0.1:$(listening_port "$OUT/serve-logged.out")/v1/sdk/placements/onboarding/paywall"
NLURL="http://127.0.0.1:$NGINX_PORT/logged/paywall.json"
bench_run xizor-logged-200       "$LOGGED_PID" "$LURL" "$OUT" -H "$AUTH" -H "Accept-Encoding: identity";  OL200=$CPU_US
bench_run nginx-logged-200       "$NGINX_PID" "$NLURL" "$OUT" -H "Accept-Encoding: identity";             NL200=$CPU_US
bench_run xizor-logged-304       "$LOGGED_PID" "$LURL" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $OURS_GZIP_ETAG"; OL304=$CPU_US
bench_run nginx-logged-304       "$NGINX_PID" "$NLURL" "$OUT" -H "Accept-Encoding: gzip" -H "If-None-Match: $NGINX_GZIP_ETAG";        NL304=$CPU_US
LINES=$(grep -c '"message":"request"' "$OUT/serve-logged.err" || true)
echo "access log: xizor wrote $LINES lines ($(wc -c < "$OUT/serve-logged.err") bytes); logs on ÷ off per request: 200 $(ratio "$OL200" "$O200"), 304 $(ratio "$OL304" "$O304") (target ≤ 1.10)"
echo "ratio nginx/xizor cpu per request, logs on for both: 200 identity $(ratio "$NL200" "$OL200"), 304 $(ratio "$NL304" "$OL304")"

# Events: 100-event batches, 16 connections, each 202 durable; the figure is rows counted in the
# database over the measured run (not requests × 100), so events the server refused (a stale
# timestamp, a duplicate id) cannot inflate it. Two loads (the `events_load` Lua functions):
#   ordered    ids that sort in sending order, one timestamp per second, subscribers s1…s100 in
#              every batch: the figure measured since group commit (comparable with earlier runs);
#   sdk-like   what XizorKit sends: random UUIDs, one subscriber per batch (a device's queue), and
#              timestamps spread over the 30 s before the send (the SDK flushes every 30 s).
PAYWALL=$(sed -E 's/.*"paywallId":"([^"]+)".*/\1/' "$OUT/www/paywall.json")
write_events_lua() {  # write_events_lua FILE ID SUBSCRIBER TIMESTAMP : Lua expressions of (counter, i)
  cat > "$1" <<LUA
counter = 0
prefix = tostring(os.time()) .. "-" .. tostring(math.random(1, 1000000000))
math.randomseed(os.time())
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $PK"
function uuid()
  return string.format("%08x-%04x-4%03x-%04x-%06x%06x", math.random(0, 0x7fffffff), math.random(0, 0xffff), math.random(0, 0xfff),
                       0x8000 + math.random(0, 0x3fff), math.random(0, 0xffffff), math.random(0, 0xffffff))
end
request = function()
  counter = counter + 1
  local parts = {}
  for i = 1, 100 do
    parts[i] = string.format('{"id":"%s","name":"paywall_open","timestamp":%d,"placement":"onboarding","paywallId":"$PAYWALL","version":1,"subscriberId":"%s"}', $2, $4, $3)
  end
  return wrk.format(nil, "/v1/sdk/events", nil, '{"events":[' .. table.concat(parts, ",") .. ']}')
end
LUA
}
write_events_lua "$OUT/events-ordered.lua" 'prefix .. "-" .. counter .. "-" .. i' '"s" .. i' 'os.time() * 1000'
write_events_lua "$OUT/events-sdk-like.lua" 'uuid()' '"s" .. prefix .. "-" .. counter' 'os.time() * 1000 - (100 - i) * 300 - math.random(0, 999)'
count_events() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from events').fetchone()[0])" "$OUT/data/xizor.sqlite"; }
for load in ordered sdk-like; do
  taskset -c 1 wrk -t1 -c16 -d2s -s "$OUT/events-$load.lua" "http://127.0.0.1:$PORT" >/dev/null 2>&1
  BEFORE=$(count_events); START=$(date +%s.%N); CPU_BEFORE=$(cpu_ticks "$OURS_PID")
  taskset -c 1 wrk -t1 -c16 -d"${SECONDS_PER_RUN}s" --latency -s "$OUT/events-$load.lua" "http://127.0.0.1:$PORT" > "$OUT/wrk-events-$load.txt"
  END=$(date +%s.%N); AFTER=$(count_events); CPU_AFTER=$(cpu_ticks "$OURS_PID")
  grep -q "Non-2xx" "$OUT/wrk-events-$load.txt" && { echo "events ($load): unexpected statuses: $(grep Non-2xx "$OUT/wrk-events-$load.txt")"; exit 1; }
  echo "events ($load): $(awk '/Requests\/sec/{print $2}' "$OUT/wrk-events-$load.txt") batches/s, p99 $(awk '$1=="99%"{print $2}' "$OUT/wrk-events-$load.txt"); durable events per second (rows stored ÷ seconds): $(awk -v n=$((AFTER - BEFORE)) -v a="$START" -v b="$END" 'BEGIN{printf "%.0f", n/(b-a)}') (target ≥ 100,000); server CPU per event $(awk -v t=$((CPU_AFTER - CPU_BEFORE)) -v us="$TICK_US" -v n=$((AFTER - BEFORE)) 'BEGIN{printf "%.2f", t*us/n}') µs; $AFTER events stored"
done
