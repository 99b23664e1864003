#!/usr/bin/env bash
# make fuzz: builds xizor-fuzz with libFuzzer and AddressSanitizer, then runs each target for
# FUZZ_SECONDS (default 60) on a working corpus that starts from Tests/fuzz/corpus and grows across
# runs. FUZZ_TARGETS picks targets; FUZZ_PARALLEL=1 runs them at once (nice'd) instead of in turn.
# A finding stops that target and leaves its input in .build/fuzz-work/artifacts/TARGET/
# (docs/fuzzing.md: how to replay it and turn it into a regression input).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-"http-parser json document render condition"}
WORK=.build/fuzz-work
BIN=.build/fuzz/release/xizor-fuzz

# lld: gold cannot link libFuzzer's runtime next to SwiftPM's `--defsym main=...`.
swift build -c release --product xizor-fuzz --scratch-path .build/fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld

run_target() {
    local target=$1
    mkdir -p "$WORK/corpus/$target" "$WORK/artifacts/$target"
    cp -n Tests/fuzz/corpus/"$target"/* "$WORK/corpus/$target/" 2>/dev/null || true
    local dict=Tests/fuzz/json.dict
    [ "$target" = http-parser ] && dict=Tests/fuzz/http-parser.dict
    # detect_leaks=0: Swift's lazily initialised globals (schema tables, templates) are allocated
    # once and never freed, which LeakSanitizer reports as leaks on the first input that uses them.
    ASAN_OPTIONS=detect_leaks=0 nice -n "${FUZZ_NICE:-0}" "$BIN" "$target" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -detect_leaks=0 -print_final_stats=1 -dict="$dict" -artifact_prefix="$WORK/artifacts/$target/" \
        "$WORK/corpus/$target" > "$WORK/$target.log" 2>&1
}

summary() {
    local target=$1 log="$WORK/$1.log"
    local runs cov corpus crashes
    runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo '?')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
    corpus=$(ls "$WORK/corpus/$target" | wc -l)
    crashes=$(ls "$WORK/artifacts/$target" | wc -l)
    printf '%-12s %12s executions  coverage %6s  corpus %6s  findings %s\n' "$target" "$runs" "$cov" "$corpus" "$crashes"
}

mkdir -p "$WORK"
status=0
if [ "${FUZZ_PARALLEL:-0}" = 1 ]; then
    pids=()
    for t in $TARGETS; do FUZZ_NICE=${FUZZ_NICE:-10} run_target "$t" & pids+=($!); done
    for p in "${pids[@]}"; do wait "$p" || status=1; done
else
    for t in $TARGETS; do run_target "$t" || status=1; done
fi
echo "fuzzed each target for ${SECONDS_EACH}s (logs in $WORK):"
for t in $TARGETS; do summary "$t"; done
if [ $status -ne 0 ]; then
    echo "a target found something: replay with .build/debug/xizor-fuzz replay TARGET $WORK/artifacts/TARGET" >&2
fi
exit $status
