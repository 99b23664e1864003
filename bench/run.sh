#!/usr/bin/env bash
# Runs every benchmark in this folder (bench/*.bench.sh) in order; each prints its own table.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
for script in bench/*.bench.sh; do
  [ -e "$script" ] || continue
  echo "== $script"
  bash "$script"
done
