#!/usr/bin/env bash
# Paywall format library: validations/s and canonical serializations/s of the `cinematic` template
# (release build), beside Python's jsonschema validating the same document against the generated schema.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
SECONDS_PER_CASE="${FORMAT_BENCH_SECONDS:-3}"

flock /tmp/xizor-build.lock swift build -c release --product xizor-format-bench >/dev/null
BIN=.build/release/xizor-format-bench
"$BIN" template cinematic > bench/out/format-cinematic.json
"$BIN" schema 2 > bench/out/format-schema-v2.json

# Python with jsonschema: the repo's venv when it has it, else a throwaway one.
PY=""
if [ -x .venv/bin/python ] && .venv/bin/python -c "import jsonschema" 2>/dev/null; then
  PY=.venv/bin/python
else
  VENV_DIR="$(mktemp -d)"
  trap 'rm -rf "$VENV_DIR"' EXIT
  python3 -m venv "$VENV_DIR"
  "$VENV_DIR/bin/pip" install -q --disable-pip-version-check jsonschema==4.23.0
  PY="$VENV_DIR/bin/python"
fi

SWIFT_JSON="$("$BIN" run "$SECONDS_PER_CASE")"
PY_JSON="$("$PY" - "$SECONDS_PER_CASE" <<'PYEOF'
import importlib.metadata, json, sys, time
import jsonschema
seconds = float(sys.argv[1])
doc = json.load(open("bench/out/format-cinematic.json"))
schema = json.load(open("bench/out/format-schema-v2.json"))
validator = jsonschema.Draft202012Validator(schema)
assert validator.is_valid(doc)
def measure(fn):
    for _ in range(5): fn()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn(); n += 1
    return n / (time.perf_counter() - start)
text = open("bench/out/format-cinematic.json").read()
print(json.dumps({
    "jsonschemaValidationsPerSecond": round(measure(lambda: validator.is_valid(doc))),
    "jsonLoadsPlusValidationPerSecond": round(measure(lambda: validator.is_valid(json.loads(text)))),
    "jsonDumpsSortedPerSecond": round(measure(lambda: json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False))),
    "python": sys.version.split()[0], "jsonschema": importlib.metadata.version("jsonschema"),
}))
PYEOF
)"

python3 - "$SWIFT_JSON" "$PY_JSON" <<'PYEOF'
import json, sys
s, p = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"cinematic template, {s['documentBytes']} bytes canonical")
print("| operation | Swift (PaywallFormat, release) | Python |")
print("| --- | ---: | ---: |")
print(f"| validate (structure + cross-checks + warnings) vs jsonschema (structure only) | {s['validationsPerSecond']:,.0f}/s | {p['jsonschemaValidationsPerSecond']:,.0f}/s |")
print(f"| parse + validate | {s['parseAndValidatePerSecond']:,.0f}/s | {p['jsonLoadsPlusValidationPerSecond']:,.0f}/s |")
print(f"| canonical serialization vs json.dumps(sort_keys) | {s['canonicalSerializationsPerSecond']:,.0f}/s | {p['jsonDumpsSortedPerSecond']:,.0f}/s |")
print(f"| parse | {s['parsesPerSecond']:,.0f}/s | |")
print(f"| tolerant read | {s['tolerantReadsPerSecond']:,.0f}/s | |")
print(f"(Python {p['python']}, jsonschema {p['jsonschema']})")
PYEOF
