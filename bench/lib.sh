# Shared pieces of the benchmarks: tools, nginx, and a wrk run that measures server CPU per request.
# Source it from a bench/*.bench.sh script after `cd` to the repository root.

SECONDS_PER_RUN="${BENCH_SECONDS:-10}"
CONNECTIONS="${BENCH_CONNECTIONS:-64}"
TICK_US=$((1000000 / $(getconf CLK_TCK)))

bench_install() {  # bench_install CMD... : installs Debian packages named like the missing commands
  local missing=""
  for cmd in "$@"; do command -v "$cmd" >/dev/null || [ -x "/usr/sbin/$cmd" ] || missing="$missing $cmd"; done
  if [ -n "$missing" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  fi
}

# free_port START : the first port from START no socket uses. A client's ephemeral port counts too:
# the server's own port came from the ephemeral range, so a curl's next to it could be in use, and
# bind() refuses a port a connected socket holds even with SO_REUSEADDR.
free_port() {
  local port=$1
  while [ -n "$(ss -Htan "( sport = :$port )")" ]; do port=$((port + 1)); done
  echo "$port"
}

wait_for_line() {  # wait_for_line FILE : waits until FILE has a line (the server's listening event)
  for _ in $(seq 200); do [ -s "$1" ] && return 0; sleep 0.1; done
  echo "no listening line in $1" >&2; return 1
}

listening_port() { head -1 "$1" | sed -E 's/.*"port":([0-9]+).*/\1/'; }

# start_nginx DIR PORT LOCATIONS : one worker pinned to CPU 0, etag on, access log off; LOCATIONS is
# the text of the server block's locations. Sets NGINX_PID.
start_nginx() {
  local dir=$1 port=$2 locations=$3
  local nginx; nginx=$(command -v nginx || echo /usr/sbin/nginx)
  cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
error_log $dir/nginx-error.log warn;
pid $dir/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nodelay on;
  etag on;
  keepalive_requests 1000;
  server {
    listen 127.0.0.1:$port;
$locations
  }
}
CONF
  taskset -c 0 "$nginx" -c "$dir/nginx.conf" -e "$dir/nginx-error.log" &
  NGINX_PID=$!
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
user_ticks() { awk '{print $14}' "/proc/$1/stat"; }

bench_header() { printf "%-26s %12s %10s %10s %12s %12s %10s\n" "case" "req/s" "p50" "p99" "cpu_us/req" "user_us/req" "requests"; }

# bench_run NAME PID URL OUTDIR [wrk args…] : wrk on CPU 1 (2 s warm-up, then the measured run);
# prints a row (CPU and its user-space part per request); sets CPU_US, RPS, P99, REQUESTS. Fails when wrk saw errors or unexpected statuses.
bench_run() {
  local name=$1 pid=$2 url=$3 outdir=$4; shift 4
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s "$@" "$url" >/dev/null 2>&1
  local before after user_before user_after out
  before=$(cpu_ticks "$pid"); user_before=$(user_ticks "$pid")
  out=$(taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --latency "$@" "$url")
  after=$(cpu_ticks "$pid"); user_after=$(user_ticks "$pid")
  echo "$out" > "$outdir/wrk-$name.txt"
  REQUESTS=$(echo "$out" | awk '/requests in/{print $1}')
  RPS=$(echo "$out" | awk '/Requests\/sec/{print $2}')
  local p50; p50=$(echo "$out" | awk '$1=="50%"{print $2}')
  P99=$(echo "$out" | awk '$1=="99%"{print $2}')
  CPU_US=$(awk -v t=$((after - before)) -v us="$TICK_US" -v n="$REQUESTS" 'BEGIN{printf "%.2f", t*us/n}')
  local user_us; user_us=$(awk -v t=$((user_after - user_before)) -v us="$TICK_US" -v n="$REQUESTS" 'BEGIN{printf "%.2f", t*us/n}')
  printf "%-26s %12s %10s %10s %12s %12s %10s\n" "$name" "$RPS" "$p50" "$P99" "$CPU_US" "$user_us" "$REQUESTS"
  if echo "$out" | grep -q "Socket errors"; then echo "  ($name: $(echo "$out" | grep "Socket errors" | sed 's/^ *//'))"; fi
  if echo "$out" | grep -q "Non-2xx or 3xx"; then echo "$name: unexpected statuses: $(echo "$out" | grep "Non-2xx")"; return 1; fi
}

ratio() { awk -v n="$1" -v o="$2" 'BEGIN{printf "%.2f", n/o}'; }
# The same to three places: where a figure is judged against 1.00, a median of ratios rounded to two
# places can read 1.00 for 0.995.
ratio3() { awk -v n="$1" -v o="$2" 'BEGIN{printf "%.3f", n/o}'; }
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }  # median of the numbers on stdin
# header_of NAME URL [curl args…] : the value of the response's field NAME (any case) to a GET of URL
header_of() {
  curl -s -D - -o /dev/null "${@:3}" "$2" | tr -d '\r' |
    awk -v f="$1" 'BEGIN{f=tolower(f)} {n=index($0, ": ")} n && tolower(substr($0, 1, n - 1))==f{print substr($0, n + 2)}'
}
etag_of() { header_of ETag "$@"; }  # etag_of URL [curl args…]

# start_demo_server BIN OUT : the demo app in OUT/data and `xizor serve` on it pinned to CPU 0 (logs
# quiet, access log off). Sets OURS_PID, PORT, PK (the demo's public key), URL (the onboarding
# placement's SDK paywall) and AUTH (its Authorization header).
start_demo_server() {
  local bin=$1 out=$2
  export XIZOR_LOG_LEVEL=warning XIZOR_ACCESS_LOG=false XIZOR_ADMIN_TOKEN=xa_bench_admin_token_0123456789abcdef
  "$bin" demo --data-dir "$out/data" > "$out/demo.json"
  PK=$(sed -E 's/.*"publicKey":"([^"]+)".*/\1/' "$out/demo.json")
  taskset -c 0 "$bin" serve --port 0 --data-dir "$out/data" > "$out/serve.out" 2> "$out/serve.err" &
  OURS_PID=$!
  wait_for_line "$out/serve.out"
  PORT=$(listening_port "$out/serve.out")
  URL="http://127.0.0.1:$PORT/v1/sdk/placements/onboarding/paywall"
  AUTH="Authorization: Bearer $PK"
}

# events_lua PUBLIC_KEY PAYWALL FILE : a wrk script posting 100-event batches to /v1/sdk/events (ids
# unique per run, one paywall, subscribers s1…s100), as bench/postgres.bench.sh and
# bench/ingest.bench.sh send them.
events_lua() {
  cat > "$3" <<LUA
counter = 0
prefix = tostring(os.time()) .. "-" .. tostring(math.random(1, 1000000000))
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $1"
request = function()
  counter = counter + 1
  local parts = {}
  for i = 1, 100 do
    parts[i] = string.format('{"id":"%s-%d-%d","name":"paywall_open","timestamp":%d000,"placement":"onboarding","paywallId":"$2","version":1,"subscriberId":"s%d"}', prefix, counter, i, os.time(), i)
  end
  return wrk.format(nil, "/v1/sdk/events", nil, '{"events":[' .. table.concat(parts, ",") .. ']}')
end
LUA
}
# paywall_of URL AUTH_HEADER : the paywall id an SDK answer names.
paywall_of() { curl -sf -H "$2" "$1" | sed -E 's/.*"paywallId":"([^"]+)".*/\1/'; }
