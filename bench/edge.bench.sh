#!/usr/bin/env bash
# Edge delivery (docs/scaling.md "Edge delivery"; docs/benchmarks.md "Edge delivery"): 100,000 distinct
# subscribers across 20 placements (70 % plain, 20 % experiments, 10 % subscriber rules) through
# Varnish with Config/varnish/xizor.vcl: origin requests ÷ client requests per class, p50/p99 through
# the cache, the origin's and Varnish's CPU; then a baseline straight to the origin, and the cacheable
# share alone through a fresh cache. EDGE_BENCH_SUBSCRIBERS (100,000), EDGE_BENCH_CLIENTS (8),
# EDGE_BENCH_DIRECT_SUBSCRIBERS (20,000) and EDGE_BENCH_CACHEABLE_SUBSCRIBERS (30,000; 0 skips either)
# change the size; XIZOR_BENCH_BIN runs a given binary instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
OUT=$(pwd)/bench/out/edge
if ! command -v varnishd >/dev/null && [ ! -x /usr/sbin/varnishd ]; then  # Debian's package is `varnish`
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq varnish >/dev/null
fi
if [ -n "${XIZOR_BENCH_BIN:-}" ]; then
  BIN=$XIZOR_BENCH_BIN
else
  flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
  BIN=.build/release/xizor
fi
.venv/bin/python bench/edge_bench.py "$BIN" "$OUT" "${EDGE_BENCH_SUBSCRIBERS:-100000}" "${EDGE_BENCH_CLIENTS:-8}" \
  "${EDGE_BENCH_DIRECT_SUBSCRIBERS:-20000}" "${EDGE_BENCH_CACHEABLE_SUBSCRIBERS:-30000}"
