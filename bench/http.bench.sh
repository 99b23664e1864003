#!/usr/bin/env bash
# HTTP core benchmark: the fixed 6 KB JSON with a strong ETag, served by xizor-http-fixture and by
# nginx (Debian's, one process, etag on) in the same run. Server pinned to CPU 0, wrk to CPU 1,
# 64 connections; plain GET and GET with a matching If-None-Match (304). Prints req/s, p50/p99 and
# server CPU time per request (utime+stime from /proc/PID/stat over the run / requests wrk counted),
# and the ratio nginx/ours (>= 0.8 is the target).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN="${BENCH_SECONDS:-10}"
CONNECTIONS="${BENCH_CONNECTIONS:-64}"
OUT=bench/out/http
mkdir -p "$OUT/www"

missing=""
command -v wrk >/dev/null || missing="$missing wrk"
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
if [ -n "$missing" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

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
for _ in $(seq 100); do [ -s "$OUT/fixture.out" ] && break; sleep 0.1; done
OURS_PORT=$(head -1 "$OUT/fixture.out" | sed -E 's/.*"port":([0-9]+).*/\1/')
curl -s "http://127.0.0.1:$OURS_PORT/bench" -o "$OUT/www/bench.json"

NGINX_PORT=$((OURS_PORT + 1))
while (exec 3<>/dev/tcp/127.0.0.1/$NGINX_PORT) 2>/dev/null; do NGINX_PORT=$((NGINX_PORT + 1)); done
WWW=$(cd "$OUT/www" && pwd)
cat > "$OUT/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
error_log $(pwd)/$OUT/nginx-error.log warn;
pid $(pwd)/$OUT/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nodelay on;
  etag on;
  keepalive_requests 1000;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location = /bench {
      default_type application/json;
      add_header Cache-Control no-cache;
      alias $WWW/bench.json;
    }
  }
}
CONF
taskset -c 0 "$NGINX" -c "$(pwd)/$OUT/nginx.conf" -e "$(pwd)/$OUT/nginx-error.log" &
NGINX_PID=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$NGINX_PORT/bench" -o /dev/null && break; sleep 0.1; done

cmp -s <(curl -s "http://127.0.0.1:$NGINX_PORT/bench") "$OUT/www/bench.json" || { echo "nginx serves different bytes"; exit 1; }
etag_of() { curl -sI "$1" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}'; }
OURS_ETAG=$(etag_of "http://127.0.0.1:$OURS_PORT/bench")
NGINX_ETAG=$(etag_of "http://127.0.0.1:$NGINX_PORT/bench")

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))

# run NAME PID URL [IF-NONE-MATCH] -> prints one table row, sets CPU_US
run() {
  local name=$1 pid=$2 url=$3 inm=${4:-}
  local header=()
  [ -n "$inm" ] && header=(-H "If-None-Match: $inm")
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s "${header[@]}" "$url" >/dev/null 2>&1   # warm-up
  local before after out requests rps p50 p99
  before=$(cpu_ticks "$pid")
  out=$(taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --latency "${header[@]}" "$url")
  after=$(cpu_ticks "$pid")
  echo "$out" > "$OUT/wrk-$name.txt"
  requests=$(echo "$out" | awk '/requests in/{print $1}')
  rps=$(echo "$out" | awk '/Requests\/sec/{print $2}')
  p50=$(echo "$out" | awk '$1=="50%"{print $2}')
  p99=$(echo "$out" | awk '$1=="99%"{print $2}')
  CPU_US=$(awk -v t=$((after - before)) -v us="$TICK_US" -v n="$requests" 'BEGIN{printf "%.2f", t*us/n}')
  local status
  status=$(echo "$out" | grep -c "Non-2xx" || true)
  printf "%-16s %12s %10s %10s %12s %10s\n" "$name" "$rps" "$p50" "$p99" "$CPU_US" "$requests"
}

printf "%-16s %12s %10s %10s %12s %10s\n" "case" "req/s" "p50" "p99" "cpu_us/req" "requests"
run xizor-200 "$OURS_PID" "http://127.0.0.1:$OURS_PORT/bench";                 OURS_200=$CPU_US
run nginx-200 "$NGINX_PID" "http://127.0.0.1:$NGINX_PORT/bench";               NGINX_200=$CPU_US
run xizor-304 "$OURS_PID" "http://127.0.0.1:$OURS_PORT/bench" "$OURS_ETAG";    OURS_304=$CPU_US
run nginx-304 "$NGINX_PID" "http://127.0.0.1:$NGINX_PORT/bench" "$NGINX_ETAG"; NGINX_304=$CPU_US
for case in xizor-304 nginx-304; do
  grep -q "Non-2xx or 3xx" "$OUT/wrk-$case.txt" && { echo "$case: unexpected statuses"; exit 1; }
done
awk -v n="$NGINX_200" -v o="$OURS_200" 'BEGIN{printf "ratio nginx/xizor cpu per request, 200: %.2f\n", n/o}'
awk -v n="$NGINX_304" -v o="$OURS_304" 'BEGIN{printf "ratio nginx/xizor cpu per request, 304: %.2f\n", n/o}'
