#!/usr/bin/env bash
# Publish cost as an app grows (10, 1,000, 2,000 and 10,000 paywalls, each with a published version), RSS
# per published version, start-up time with them all, and how soon a publish on one server is
# served by a second server on the same data directory (issue 15; docs/benchmarks.md "Publish
# and the change feed"). PUBLISH_BENCH_SIZES overrides the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(pwd)/bench/out/publish
rm -rf "$OUT"; mkdir -p "$OUT"
flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
.venv/bin/python bench/publish_bench.py .build/release/xizor "$OUT/data" ${PUBLISH_BENCH_SIZES:-10 1000 2000 10000}
