#!/usr/bin/env bash
# Console: from a committed edit to the repainted canvas (docs/console.md "Speed"; target p95 < 300 ms),
# in headless Chromium against the release build: the end-to-end test of the edits
# (Tests/e2e/test_console_editor.py), run alone with CONSOLE_BENCH_EDITS edits (30), writing the
# durations the console marks with the User Timing API (`xizor-repaint`) to bench/out/console-repaint.json.
# XIZOR_BENCH_BIN runs a given binary instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
if [ -n "${XIZOR_BENCH_BIN:-}" ]; then
  BIN=$XIZOR_BENCH_BIN
else
  flock /tmp/xizor-build.lock swift build -c release --product xizor --static-swift-stdlib >/dev/null
  BIN=$PWD/.build/release/xizor
fi
OUT=$PWD/bench/out/console-repaint.json
rm -f "$OUT"
XIZOR_REPAINT_SAMPLES="$OUT" XIZOR_REPAINT_EDITS="${CONSOLE_BENCH_EDITS:-30}" XIZOR_E2E_DRIVER=sqlite \
  XIZOR_BIN="$BIN" XIZOR_ROOT="$PWD" .venv/bin/python -m pytest -q -p no:cacheprovider \
  Tests/e2e/test_console_editor.py -k test_each_committed_edit_repaints_the_canvas >/dev/null
python3 - "$OUT" <<'PYEOF'
import json, statistics, sys
samples = json.load(open(sys.argv[1]))
p95 = statistics.quantiles(samples, n=20, method="inclusive")[-1]
print("| edits | p50 | p95 | max | p95 < 300 ms |")
print("| ---: | ---: | ---: | ---: | --- |")
print(f"| {len(samples)} | {statistics.median(samples):.0f} ms | {p95:.0f} ms | {max(samples):.0f} ms | "
      f"{'met' if p95 < 300 else 'NOT MET'} |")
PYEOF
