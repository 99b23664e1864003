#!/usr/bin/env bash
# What rule evaluation costs on the SDK path (issue 19). Every request is a 304 revalidation with 10
# attributes (5 request-attribute headers, 5 context parameters); 64 connections, servers on CPU 0,
# wrk on CPU 1; ROUNDS alternating rounds, median CPU per request.
#  - The target: 20 context rules that all fail (so each request evaluates every one), on this
#    server and on the server as it was before targeting (BASELINE, built once in a worktree under
#    bench/.baseline): within 5 %.
#  - This server alone: the same placement without rules, and 20 rules mixing every new kind
#    (device attributes, semantic versions, starts_with, between) — what 20 rules cost at all.
#  - A 21st rule that reads a stored subscriber attribute: answered from the subscriber attribute
#    cache on the I/O loop after the first request (issue 35: within 1.5× of the placement without rules).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=$(pwd)/bench/out/targeting
rm -rf "$OUT"; mkdir -p "$OUT"
ROUNDS=${ROUNDS:-5}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
BASELINE=${BASELINE:-edb7b5a}
bench_install wrk
flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
BIN=.build/release/xizor
BASE_SRC=$(pwd)/bench/.baseline/$BASELINE
if [ ! -x "$BASE_SRC/.build/release/xizor" ]; then
  echo "building the baseline ($BASELINE) once in $BASE_SRC (a few minutes)"
  [ -d "$BASE_SRC" ] || git worktree add -f --detach "$BASE_SRC" "$BASELINE" >/dev/null
  (cd "$BASE_SRC" && flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null)
fi
cleanup() {
  [ -n "${OURS_PID:-}" ] && kill "$OURS_PID" 2>/dev/null || true
  [ -n "${BASE_PID:-}" ] && kill "$BASE_PID" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
# The baseline's schema is older: its own demo data, its own server.
mkdir -p "$OUT/baseline"
start_demo_server "$BASE_SRC/.build/release/xizor" "$OUT/baseline"
BASE_PID=$OURS_PID; BASE_PORT=$PORT; BASE_PK=$PK
start_demo_server "$BIN" "$OUT"
SK=$(sed -E 's/.*"secretKey":"([^"]+)".*/\1/' "$OUT/demo.json")
BASE="http://127.0.0.1:$PORT"
PAYWALL=$(curl -sf -H "Authorization: Bearer $SK" "$BASE/v1/placements/onboarding" | sed -E 's/.*"paywallId":"([^"]+)".*/\1/')
OTHER=$(curl -sf -H "Authorization: Bearer $SK" "$BASE/v1/placements/upsell" | sed -E 's/.*"paywallId":"([^"]+)".*/\1/')
put() { curl -sf -X PUT -H "Authorization: Bearer $SK" -H "Content-Type: application/json" "$BASE$1" -d "$2" > /dev/null; }
# 20 rules of context comparisons the baseline knows too (eq, ne, in, not_in, gt, lte, exists).
context_rules() {
python3 - "$1" <<'PY'
import json, sys
ops = [
    {"key": "country", "op": "in", "value": ["BR", "MX", "AR", "CL"]},
    {"key": "sessions", "op": "gt", "value": 100},
    {"key": "plan", "op": "eq", "value": "enterprise"},
    {"key": "referrer", "op": "eq", "value": "partner"},
    {"key": "trial", "op": "eq", "value": True},
    {"key": "plan", "op": "not_in", "value": ["pro", "free"]},
    {"key": "sessions", "op": "lte", "value": 3},
    {"key": "campaign", "op": "exists"},
    {"key": "country", "op": "ne", "value": "DE"},
    {"key": "referrer", "op": "in", "value": ["ads", "partner", "email"]},
]
rules = []
for i in range(20):
    a, b = ops[i % 10], ops[(i + 3) % 10]
    rules.append({"when": {"all": [a, b]} if i % 2 else {"any": [a, b]}, "paywallId": sys.argv[1]})
print(json.dumps({"rules": rules}))
PY
}
python3 - "$OTHER" > "$OUT/rules.json" <<'PY'
import json, sys
other = sys.argv[1]
ops = [
    {"key": "device.appVersion", "op": "semver_lt", "value": "1.0.0"},
    {"key": "device.platform", "op": "eq", "value": "android"},
    {"key": "device.osVersion", "op": "semver_gte", "value": "99.0"},
    {"key": "device.locale", "op": "starts_with", "value": "ja"},
    {"key": "device.sdkVersion", "op": "in", "value": ["0.1.0", "0.2.0", "0.3.0"]},
    {"key": "context.country", "op": "in", "value": ["BR", "MX", "AR", "CL"]},
    {"key": "context.sessions", "op": "between", "value": [100, 200]},
    {"key": "context.plan", "op": "eq", "value": "enterprise"},
    {"key": "context.referrer", "op": "starts_with", "value": "partner-"},
    {"key": "context.trial", "op": "eq", "value": True},
]
rules = []
for i in range(20):
    a, b = ops[i % 10], ops[(i + 3) % 10]
    rules.append({"when": {"all": [a, b]} if i % 2 else {"any": [a, b]}, "paywallId": other})
print(json.dumps({"rules": rules}))
PY
put /v1/placements/targeted "{\"paywallId\":\"$PAYWALL\"}"
put /v1/placements/targeted/rules "@$OUT/rules.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['rules'].append({'when': {'key': 'subscriber.plan', 'op': 'eq', 'value': 'vip'}, 'paywallId': sys.argv[2]}); print(json.dumps(d))" "$OUT/rules.json" "$OTHER" > "$OUT/rules-subscriber.json"
put /v1/placements/subscribed "{\"paywallId\":\"$PAYWALL\"}"
put /v1/placements/subscribed/rules "@$OUT/rules-subscriber.json"
put /v1/placements/subscriber-only "{\"paywallId\":\"$PAYWALL\"}"
put /v1/placements/subscriber-only/rules "{\"rules\":[{\"when\":{\"key\":\"subscriber.plan\",\"op\":\"eq\",\"value\":\"vip\"},\"paywallId\":\"$OTHER\"}]}"
curl -sf -X PUT -H "$AUTH" -H "Content-Type: application/json" "$BASE/v1/sdk/subscribers/bench-user/attributes" -d '{"attributes":{"plan":"free"}}' > /dev/null

put /v1/placements/contextual "{\"paywallId\":\"$PAYWALL\"}"
context_rules "$OTHER" > "$OUT/context-rules.json"
put /v1/placements/contextual/rules "@$OUT/context-rules.json"
# The same on the baseline (its own demo app and paywall ids).
BASE_SK=$(sed -E 's/.*"secretKey":"([^"]+)".*/\1/' "$OUT/baseline/demo.json")
BASE_URL="http://127.0.0.1:$BASE_PORT"
BASE_PAYWALL=$(curl -sf -H "Authorization: Bearer $BASE_SK" "$BASE_URL/v1/placements/onboarding" | sed -E 's/.*"paywallId":"([^"]+)".*/\1/')
BASE_OTHER=$(curl -sf -H "Authorization: Bearer $BASE_SK" "$BASE_URL/v1/placements/upsell" | sed -E 's/.*"paywallId":"([^"]+)".*/\1/')
context_rules "$BASE_OTHER" > "$OUT/baseline/context-rules.json"
curl -sf -X PUT -H "Authorization: Bearer $BASE_SK" -H "Content-Type: application/json" "$BASE_URL/v1/placements/contextual" -d "{\"paywallId\":\"$BASE_PAYWALL\"}" > /dev/null
curl -sf -X PUT -H "Authorization: Bearer $BASE_SK" -H "Content-Type: application/json" "$BASE_URL/v1/placements/contextual/rules" -d "@$OUT/baseline/context-rules.json" > /dev/null

QUERY="context.country=DE&context.sessions=12&context.plan=pro&context.referrer=organic&context.trial=false"
DEVICE=(-H "X-Xizor-Platform: ios" -H "X-Xizor-App-Version: 2.4.1" -H "X-Xizor-SDK-Version: 1.0.0" -H "X-Xizor-OS-Version: 18.1" -H "X-Xizor-Device-Locale: de-DE")
PLAIN="$BASE/v1/sdk/placements/onboarding/paywall?$QUERY"
RULED="$BASE/v1/sdk/placements/targeted/paywall?$QUERY"
SUBSCRIBED="$BASE/v1/sdk/placements/subscribed/paywall?$QUERY&subscriberId=bench-user"
SUBSCRIBER_ONLY="$BASE/v1/sdk/placements/subscriber-only/paywall?$QUERY&subscriberId=bench-user"
CONTEXTUAL="$BASE/v1/sdk/placements/contextual/paywall?$QUERY"
BASE_CONTEXTUAL="$BASE_URL/v1/sdk/placements/contextual/paywall?$QUERY"
BASE_AUTH="Authorization: Bearer $BASE_PK"
etag() { etag_of "$1" -H "${2:-$AUTH}" -H "Accept-Encoding: gzip" "${DEVICE[@]}"; }
served() { curl -s -D- -o /dev/null -H "${2:-$AUTH}" "${DEVICE[@]}" "$1" | tr -d '\r' | awk -F': ' 'tolower($1)=="x-xizor-paywall"{print $2}'; }
[ "$(served "$RULED")" = "$PAYWALL" ] && [ "$(served "$SUBSCRIBED")" = "$PAYWALL" ] && [ "$(served "$CONTEXTUAL")" = "$PAYWALL" ] \
  || { echo "a rule matched: the bench must evaluate all of them"; exit 1; }
[ "$(curl -sf -H "Authorization: Bearer $BASE_SK" "$BASE_URL/v1/placements/contextual/resolve?$QUERY" | sed -E 's/.*"matchedRule":(null|[0-9]+).*/\1/')" = null ] \
  || { echo "a rule matched on the baseline"; exit 1; }
TRACE=$(curl -sf -H "Authorization: Bearer $SK" "$BASE/v1/placements/targeted/resolve?$QUERY&device.platform=ios&device.appVersion=2.4.1&device.sdkVersion=1.0.0&device.osVersion=18.1&device.locale=de-DE")
[ "$(echo "$TRACE" | grep -o '"not_matched"' | wc -l)" = 20 ] || { echo "expected 20 rules not matched: $TRACE"; exit 1; }
ETAG_PLAIN=$(etag "$PLAIN"); ETAG_RULED=$(etag "$RULED"); ETAG_SUB=$(etag "$SUBSCRIBED"); ETAG_SUB_ONLY=$(etag "$SUBSCRIBER_ONLY")
ETAG_CONTEXTUAL=$(etag "$CONTEXTUAL"); ETAG_BASE=$(etag "$BASE_CONTEXTUAL" "$BASE_AUTH")
BASE_PLAIN="$BASE_URL/v1/sdk/placements/onboarding/paywall?$QUERY"; ETAG_BASE_PLAIN=$(etag "$BASE_PLAIN" "$BASE_AUTH")

median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
bench_header
for round in $(seq "$ROUNDS"); do
  bench_run "baseline-20-ctx-$round" "$BASE_PID" "$BASE_CONTEXTUAL" "$OUT" -H "$BASE_AUTH" -H "Accept-Encoding: gzip" "${DEVICE[@]}" -H "If-None-Match: $ETAG_BASE"; echo "$CPU_US" >> "$OUT/baseline-ctx"
  bench_run "xizor-20-ctx-$round" "$OURS_PID" "$CONTEXTUAL" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" "${DEVICE[@]}" -H "If-None-Match: $ETAG_CONTEXTUAL"; echo "$CPU_US" >> "$OUT/ctx"
  bench_run "baseline-no-rules-$round" "$BASE_PID" "$BASE_PLAIN" "$OUT" -H "$BASE_AUTH" -H "Accept-Encoding: gzip" "${DEVICE[@]}" -H "If-None-Match: $ETAG_BASE_PLAIN"; echo "$CPU_US" >> "$OUT/baseline-plain"
  bench_run "no-rules-304-$round" "$OURS_PID" "$PLAIN" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" "${DEVICE[@]}" -H "If-None-Match: $ETAG_PLAIN"; echo "$CPU_US" >> "$OUT/plain"
  bench_run "20-rules-304-$round" "$OURS_PID" "$RULED" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" "${DEVICE[@]}" -H "If-None-Match: $ETAG_RULED"; echo "$CPU_US" >> "$OUT/ruled"
  bench_run "21-rules-subscriber-$round" "$OURS_PID" "$SUBSCRIBED" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" "${DEVICE[@]}" -H "If-None-Match: $ETAG_SUB"; echo "$CPU_US" >> "$OUT/subscribed"
  bench_run "1-subscriber-rule-$round" "$OURS_PID" "$SUBSCRIBER_ONLY" "$OUT" -H "$AUTH" -H "Accept-Encoding: gzip" "${DEVICE[@]}" -H "If-None-Match: $ETAG_SUB_ONLY"; echo "$CPU_US" >> "$OUT/subscriber-only"
done
SUB=$(median < "$OUT/subscribed"); SUB_ONLY=$(median < "$OUT/subscriber-only")
for f in no-rules 20-rules; do grep -q "Non-2xx" "$OUT"/wrk-$f-304-1.txt && { echo "$f: unexpected statuses"; exit 1; }; done
PLAIN_MEDIAN=$(median < "$OUT/plain"); RULED_MEDIAN=$(median < "$OUT/ruled")
BASE_MEDIAN=$(median < "$OUT/baseline-ctx"); CTX_MEDIAN=$(median < "$OUT/ctx"); BASE_PLAIN_MEDIAN=$(median < "$OUT/baseline-plain")
echo "median cpu_us/req (304, 10 attributes), 20 context rules evaluated: before targeting ($BASELINE) $BASE_MEDIAN, now $CTX_MEDIAN (now ÷ before $(ratio "$CTX_MEDIAN" "$BASE_MEDIAN"); target ≤ 1.05)"
echo "without rules: before targeting $BASE_PLAIN_MEDIAN, now $PLAIN_MEDIAN (now ÷ before $(ratio "$PLAIN_MEDIAN" "$BASE_PLAIN_MEDIAN"))"
echo "this server: no rules $PLAIN_MEDIAN, 20 rules of every new kind $RULED_MEDIAN (÷ no rules $(ratio "$RULED_MEDIAN" "$PLAIN_MEDIAN")), 20 context rules $CTX_MEDIAN (÷ no rules $(ratio "$CTX_MEDIAN" "$PLAIN_MEDIAN"))"
echo "20 rules + one reading a stored subscriber attribute (from the attribute cache, inline): $SUB cpu_us/req ($(ratio "$SUB" "$PLAIN_MEDIAN") × no rules, target ≤ 1.5; $(ratio "$SUB" "$RULED_MEDIAN") × the 20 rules alone)"
echo "one rule reading a stored subscriber attribute (from the cache, inline): $SUB_ONLY cpu_us/req ($(ratio "$SUB_ONLY" "$PLAIN_MEDIAN") × no rules; issue 35's target ≤ 1.5)"
