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
# Alternate the two so neither always gets the warmer page cache; three rounds, best of each kept.
for round in 1 2 3; do
  "$FIXTURE" bench "$OUT" $QUICK >> "$RESULTS"
  python3 bench/storage_python.py "$OUT" $QUICK >> "$RESULTS"
done
rm -f "$OUT"/*.sqlite*

python3 - "$RESULTS" <<'PY'
import json, sys
best = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    key = (r["impl"], r["workload"])
    best[key] = max(best.get(key, 0), r["per_second"])
labels = {"single_insert": "single-row durable inserts/s",
          "batch_insert": "rows/s in 1,000-row transactions",
          "point_read": "point reads/s (prepared statement)"}
print("| workload | Xizor Storage | Python sqlite3 | ratio (ours ÷ Python) |")
print("| --- | ---: | ---: | ---: |")
failed = []
for w, label in labels.items():
    ours, py = best[("swift", w)], best[("python", w)]
    ratio = ours / py
    if ratio < 1.0:
        failed.append(w)
    print(f"| {label} | {ours:,.0f} | {py:,.0f} | {ratio:.2f} |")
print()
print("target (no slower than Python on any):", "met" if not failed else "MISSED on " + ", ".join(failed))
PY
