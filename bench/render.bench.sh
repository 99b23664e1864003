#!/usr/bin/env bash
# HTML renderer: pages rendered per second per template (release build, one thread, production mode,
# dark scheme, context and timer starts empty) and each template's page size raw and gzipped (level 6 and 9,
# Python's gzip) without media. Budget: < 25 KB gzipped per page.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
SECONDS_PER_TEMPLATE="${RENDER_BENCH_SECONDS:-3}"

flock /tmp/xizor-build.lock swift build -c release --product xizor-render-bench >/dev/null
BIN=.build/release/xizor-render-bench
for t in cinematic clean lottie_delight; do
  for s in light dark; do "$BIN" page "$t" "$s" > "bench/out/render-$t-$s.html"; done
done
"$BIN" run "$SECONDS_PER_TEMPLATE" > bench/out/render-speed.jsonl
"$BIN" limits > bench/out/render-limits.json

python3 - <<'PYEOF'
import gzip, json
speed = {r["template"]: r for r in map(json.loads, open("bench/out/render-speed.jsonl"))}
print("| template | pages/s (release, 1 thread) | page raw (light / dark) | gzip -6 | gzip -9 | budget |")
print("| --- | ---: | ---: | ---: | ---: | --- |")
for t in ["cinematic", "clean", "lottie_delight"]:
    raw = {s: open(f"bench/out/render-{t}-{s}.html", "rb").read() for s in ["light", "dark"]}
    g6 = max(len(gzip.compress(b, 6, mtime=0)) for b in raw.values())
    g9 = max(len(gzip.compress(b, 9, mtime=0)) for b in raw.values())
    ok = "ok" if g6 < 25 * 1024 else "OVER 25 KB"
    print(f"| {t} | {speed[t]['pagesPerSecond']:,} | {len(raw['light']):,} / {len(raw['dark']):,} B | {g6:,} B | {g9:,} B | {ok} |")
limits = json.load(open("bench/out/render-limits.json"))
print()
print("| document at every limit (DocumentLimits.exampleAtEveryLimit) | figure | target |")
print("| --- | ---: | --- |")
print(f"| page forms rendered (each locale, light and dark; 3 rounds) | {limits['forms']} | |")
print(f"| render time per form, p50 / worst | {limits['p50Ms']:.1f} / {limits['maxMs']:.1f} ms | < 50 ms |")
print(f"| largest page | {limits['largestPageBytes']:,} B | < 4 MiB budget |")
print(f"| peak RSS growth while rendering every form | {limits['peakRSSGrowthKiB'] / 1024:.1f} MiB | < 8 MiB |")
print(f"| 5,000 slots × 5,000-node option: time to stop | {limits['amplificationStopMs']:.1f} ms ({limits['amplificationOutcome']}) | stops at the budget |")
PYEOF
