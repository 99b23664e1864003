#!/usr/bin/env bash
# Storage benchmark: durable single-row inserts, 1,000-row transactions and prepared point reads,
# through our Storage layer (release build of xizor-storage-fixture) and through Python's sqlite3
# with the same PRAGMAs (WAL, synchronous=FULL) in the same directory, in the same run.
# Usage: bash bench/storage.bench.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK="${1:-}"
OUT=bench/out/storage
mkdir -p "$OUT"
rm -f "$OUT"/*.sqlite*

flock /tmp/xizor-build.lock swift build -c release --product xizor-storage-fixture >/dev/null
FIXTURE="$(swift build -c release --show-bin-path)/xizor-storage-fixture"

RESULTS="$OUT/results.jsonl"
: > "$RESULTS"
# CPU-bound workloads: alternate the two, five rounds, median of each kept.
ROUNDS="${STORAGE_BENCH_ROUNDS:-5}"
for round in $(seq "$ROUNDS"); do
  "$FIXTURE" bench "$OUT" --no-durable $QUICK >> "$RESULTS"
  python3 bench/storage_python.py "$OUT" --no-durable $QUICK >> "$RESULTS"
done
# Durable inserts are bound by fsync latency, which drifts on a shared VM: many short runs
# (500 commits each), strictly alternating, median of each kept.
DURABLE_RUNS="${STORAGE_BENCH_DURABLE_RUNS:-21}"
[ "$QUICK" = "--quick" ] && DURABLE_RUNS=3
for run in $(seq "$DURABLE_RUNS"); do
  "$FIXTURE" bench "$OUT" --durable-only 500 >> "$RESULTS"
  python3 bench/storage_python.py "$OUT" --durable-only 500 >> "$RESULTS"
done
rm -f "$OUT"/*.sqlite*

python3 - "$RESULTS" <<'PY'
import json, sys
import statistics
runs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs.setdefault((r["impl"], r["workload"]), []).append(r["per_second"])
best = {key: statistics.median(values) for key, values in runs.items()}
labels = {"single_insert": "single-row durable inserts/s",
          "batch_insert": "rows/s in 1,000-row transactions",
          "point_read": "point reads/s (prepared statement)",
          "single_insert_nosync": "single-row inserts/s, synchronous=OFF (layer cost, informative)"}
print("| workload (median of runs) | Xizor Storage | Python sqlite3 | ratio (ours ÷ Python) |")
print("| --- | ---: | ---: | ---: |")
failed = []
for w, label in labels.items():
    ours, py = best[("swift", w)], best[("python", w)]
    ratio = ours / py
    if ratio < 1.0 and w != "single_insert_nosync":
        failed.append(w)
    print(f"| {label} | {ours:,.0f} | {py:,.0f} | {ratio:.2f} |")
print()
print("target (no slower than Python on any):", "met" if not failed else "MISSED on " + ", ".join(failed))
PY
