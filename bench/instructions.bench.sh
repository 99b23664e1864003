#!/usr/bin/env bash
# User-space instructions per SDK request, counted by valgrind's callgrind: unlike CPU time on this
# shared VM (which moves by 2× between hours for nginx and us alike), the count is the same from run
# to run, so it shows what a change to the SDK path did. A release `xizor serve` runs under
# callgrind with instrumentation off; after a warm-up, `wrk -c4` sends each case for 4 s with
# counting on, and the count is divided by the requests wrk completed. Counts include the I/O
# loop's own work (epoll, Dispatch) shared by a batch of requests, not the kernel's.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=$(pwd)/bench/out/instructions
rm -rf "$OUT"; mkdir -p "$OUT"
bench_install wrk valgrind
# BENCH_BIN: another release build to count (an older commit's, for a before-and-after table).
if [ -z "${BENCH_BIN:-}" ]; then flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null; fi
BIN=${BENCH_BIN:-$(pwd)/.build/release/xizor}

export XIZOR_LOG_LEVEL=warning XIZOR_ACCESS_LOG=false XIZOR_ADMIN_TOKEN=xa_bench_admin_token_0123456789abcdef
"$BIN" demo --data-dir "$OUT/data" > "$OUT/demo.json"
PK=$(sed -E 's/.*"publicKey":"([^"]+)".*/\1/' "$OUT/demo.json")
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/callgrind.%p" \
  "$BIN" serve --port 0 --data-dir "$OUT/data" > "$OUT/serve.out" 2> "$OUT/serve.err" &
VPID=$!
trap 'kill $VPID 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for _ in $(seq 300); do [ -s "$OUT/serve.out" ] && break; sleep 0.2; done
PORT=$(listening_port "$OUT/serve.out")
URL="http://127.0.0.1:$PORT/v1/sdk/placements/onboarding/paywall"
AUTH="Authorization: Bearer $PK"
ETAG=$(etag_of "$URL" -H "$AUTH" -H "Accept-Encoding: gzip")

count() {  # count NAME [wrk header args…]: instructions per request of one case (URL: the case's, default the demo's)
  local name=$1; shift
  local URL=${CASE_URL:-$URL}
  wrk -t1 -c4 -d2s "$@" "$URL" >/dev/null
  callgrind_control -z "$VPID" >/dev/null 2>&1
  callgrind_control -i on "$VPID" >/dev/null 2>&1
  local out; out=$(wrk -t1 -c4 -d4s "$@" "$URL")
  callgrind_control -i off "$VPID" >/dev/null 2>&1
  if echo "$out" | grep -q "Non-2xx"; then echo "$name: unexpected statuses"; exit 1; fi
  local requests; requests=$(echo "$out" | awk '/requests in/{print $1}')
  rm -f "$OUT"/callgrind.*.*
  callgrind_control -d "$VPID" >/dev/null 2>&1
  local file; file=$(ls -t "$OUT"/callgrind.*.* | head -1)
  local total; total=$(callgrind_annotate "$file" 2>/dev/null | awk '/PROGRAM TOTALS/{gsub(",","",$1); print $1}')
  printf "%-14s %10d instructions per request (%d requests)\n" "$name" $((total / requests)) "$requests"
}
count 304 -H "$AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $ETAG"
# Issue 40: the cacheable path form's 304 (key in the path, subscriber in a header, signed answer):
# what a CDN's or a device's revalidation costs; target: no more than the authenticated 304.
EDGE_URL="http://127.0.0.1:$PORT/v1/sdk/apps/$PK/placements/onboarding/paywall"
EDGE_ETAG=$(etag_of "$EDGE_URL" -H "Accept-Encoding: gzip")
CASE_URL=$EDGE_URL count edge-304 -H "X-Xizor-Subscriber-Id: s-1" -H "Accept-Encoding: gzip" -H "If-None-Match: $EDGE_ETAG"
count 200-gzip -H "$AUTH" -H "Accept-Encoding: gzip"
count 200-identity -H "$AUTH" -H "Accept-Encoding: identity"

# Issue 35: a placement whose rule reads a stored subscriber attribute, revalidated for a subscriber
# who has it (target: within 1.5× of the plain 304 above).
SK=$(sed -E 's/.*"secretKey":"([^"]+)".*/\1/' "$OUT/demo.json")
BASE="http://127.0.0.1:$PORT"
PAYWALL=$(curl -s -H "$AUTH" "$URL" | sed -E 's/.*"paywallId":"([^"]+)".*/\1/')
curl -sf -X PUT -H "Authorization: Bearer $SK" -H "Content-Type: application/json" -d "{\"paywallId\":\"$PAYWALL\"}" "$BASE/v1/placements/attr" >/dev/null
curl -sf -X PUT -H "Authorization: Bearer $SK" -H "Content-Type: application/json" \
  -d "{\"rules\":[{\"when\":{\"key\":\"subscriber.plan\",\"op\":\"eq\",\"value\":\"pro\"},\"paywallId\":\"$PAYWALL\"}]}" "$BASE/v1/placements/attr/rules" >/dev/null
curl -sf -X PUT -H "$AUTH" -H "Content-Type: application/json" -d '{"attributes":{"plan":"pro"}}' "$BASE/v1/sdk/subscribers/u-1/attributes" >/dev/null
ATTR_URL="$BASE/v1/sdk/placements/attr/paywall?subscriberId=u-1"
ATTR_ETAG=$(etag_of "$ATTR_URL" -H "$AUTH" -H "Accept-Encoding: gzip")
CASE_URL=$ATTR_URL count 304-subscriber -H "$AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $ATTR_ETAG"
