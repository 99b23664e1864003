#!/usr/bin/env bash
# Hostile clients against a live server (issue 14's socket figures; docs/benchmarks.md "Hostile
# clients"). Server on CPU 0; wrk and the hostile clients (bench/hostile_clients.py) on CPU 1.
#   1. 500 clients without a key announcing 1 MiB bodies to POST /v1/sdk/events: peak RSS growth
#      (target < 32 MiB), then the same with the public key (the body budget bounds it).
#   2. One normal SDK client (wrk, one connection) revalidating its paywall while 2,000 slow
#      (1,000 slowloris heads, 1,000 CRLF preambles) and 500 anonymous body senders run: its p99
#      (target < 5 ms), beside the same client alone.
#   3. Noisy neighbour (issue 35): the same SDK client while another app (bench/noisy_tenant.py, its
#      own keys only) runs each of the costly things a tenant could once make the server do: its p99
#      beside each noisy tenant, against its p99 alone (target: within 5 ms).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=$(pwd)/bench/out/abuse
rm -rf "$OUT"; mkdir -p "$OUT"
bench_install wrk
flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
BIN=.build/release/xizor
ATTACK_SECONDS=${ABUSE_SECONDS:-15}

cleanup() {
  [ -n "${OURS_PID:-}" ] && kill "$OURS_PID" 2>/dev/null || true
  [ -n "${SAMPLER_PID:-}" ] && kill "$SAMPLER_PID" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

start_demo_server "$BIN" "$OUT"
ETAG=$(etag_of "$URL" -H "$AUTH" -H "Accept-Encoding: gzip")
[ -n "$ETAG" ] || { echo "no ETag from $URL"; exit 1; }

rss_kib() { awk '/^VmRSS/{print $2}' "/proc/$OURS_PID/status"; }
# sample_peak FILE : writes the largest VmRSS seen (KiB) to FILE every 50 ms until killed.
sample_peak() {
  local peak=0 now
  while true; do
    now=$(rss_kib); [ "$now" -gt "$peak" ] && peak=$now && echo "$peak" > "$1"
    sleep 0.05
  done
}
hostile() { taskset -c 1 python3 bench/hostile_clients.py 127.0.0.1 "$PORT" "$@"; }

# Warm the server's paths first, so the baseline is a server that has served.
taskset -c 1 wrk -t1 -c4 -d2s -H "$AUTH" -H "Accept-Encoding: gzip" "$URL" >/dev/null
curl -s -o /dev/null -X POST -H "Content-Type: application/json" "http://127.0.0.1:$PORT/v1/sdk/events" -d '{}' || true

memory_case() {  # memory_case NAME [--key KEY]
  local name=$1; shift
  local base; base=$(rss_kib)
  echo "$base" > "$OUT/peak-$name"
  sample_peak "$OUT/peak-$name" & SAMPLER_PID=$!
  local result; result=$(hostile "$ATTACK_SECONDS" --bodies 500 "$@")
  kill "$SAMPLER_PID"; wait "$SAMPLER_PID" 2>/dev/null || true; SAMPLER_PID=
  sleep 1
  local peak after; peak=$(cat "$OUT/peak-$name"); after=$(rss_kib)
  printf "%-30s %10s %10s %10s %12s   %s\n" "$name" "$((base / 1024))" "$((peak / 1024))" "$((after / 1024))" \
    "$(awk -v a="$peak" -v b="$base" 'BEGIN{printf "%.1f", (a-b)/1024}')" "$result"
  echo "$result" > "$OUT/clients-$name.json"
  GROWTH_MIB=$(awk -v a="$peak" -v b="$base" 'BEGIN{printf "%.1f", (a-b)/1024}')
}

echo "1. 500 clients announcing 1 MiB bodies for ${ATTACK_SECONDS}s (RSS in MiB)"
printf "%-30s %10s %10s %10s %12s   %s\n" "case" "before" "peak" "after" "peak growth" "clients"
memory_case anonymous-1MiB-bodies;                 ANON_GROWTH=$GROWTH_MIB
memory_case public-key-1MiB-bodies --key "$PK";    KEYED_GROWTH=$GROWTH_MIB

echo "2. one SDK client (wrk, 1 connection, If-None-Match → 304) alone, then under attack"
bench_header
CONNECTIONS=1 bench_run sdk-client-alone "$OURS_PID" "$URL" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $ETAG"
ALONE_P99=$P99
hostile $((SECONDS_PER_RUN + 8)) --slow 1000 --preamble 1000 --bodies 500 > "$OUT/clients-under-attack.json" &
HOSTILE_PID=$!
sleep 4  # let the 2,500 connections open
OPEN=$(ls /proc/$OURS_PID/fd | wc -l)
CONNECTIONS=1 bench_run sdk-client-under-attack "$OURS_PID" "$URL" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $ETAG"
ATTACK_P99=$P99
wait "$HOSTILE_PID"
echo "  server file descriptors while attacked: $OPEN; hostile clients: $(cat "$OUT/clients-under-attack.json")"

echo "3. noisy neighbour: the same SDK client beside another app doing each costly thing (target: p99 within 5 ms of alone)"
bench_header
NOISY_SUMMARY=""
for noisy in subscriber-rules caps-flood patch-bomb audience-fanout; do
  taskset -c 1 python3 bench/noisy_tenant.py "$PORT" "$XIZOR_ADMIN_TOKEN" "$noisy" $((SECONDS_PER_RUN + 4)) 8 > "$OUT/noisy-$noisy.json" &
  NOISY_PID=$!
  sleep 2  # the tenant set up and running
  CONNECTIONS=1 bench_run "beside-$noisy" "$OURS_PID" "$URL" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" -H "If-None-Match: $ETAG"
  wait "$NOISY_PID"
  echo "  $noisy: $(cat "$OUT/noisy-$noisy.json")"
  NOISY_SUMMARY="$NOISY_SUMMARY $noisy $P99;"
done
echo "summary: RSS growth with 500 anonymous 1 MiB bodies ${ANON_GROWTH} MiB (target < 32), with the public key ${KEYED_GROWTH} MiB;" \
     "SDK client p99 alone $ALONE_P99, under attack $ATTACK_P99 (target < 5 ms); beside noisy tenants:$NOISY_SUMMARY"
