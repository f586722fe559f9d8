#!/usr/bin/env bash
# The whole-notebook rewrites of every bench notebook in one text file, for before/after diffs
# of engine changes (bench/analysis_golden.sh covers the per-cell suggestions of the fixtures and
# the demo, not the residency plan of the bench notebooks). For each bench/notebooks/NAME.py:
# what `gpuoptimize fix --force --even-if-slower` prints (decisions, copies, predicted figures)
# and the rewritten cells. Usage: bash bench/notebooks_golden.sh OUT.txt
set -euo pipefail
cd "$(dirname "$0")/.."
target="$(realpath -m "${1:-notebooks_golden.txt}")"
npm run --silent build:cli
tmp="$(mktemp -d)"
: > "$target"
for f in bench/notebooks/*.py; do
  n="$(basename "$f" .py)"
  rc=0
  node bin/gpuoptimize.js fix "$f" -o "$tmp/$n.gpu.py" --force --even-if-slower > "$tmp/$n.log" 2>&1 || rc=$?
  {
    echo "=================== $n (fix exit $rc)"
    sed "s#$tmp/##g" "$tmp/$n.log"
    echo "------------------- $n rewritten"
    if [ -f "$tmp/$n.gpu.py" ]; then cat "$tmp/$n.gpu.py"; fi
  } >> "$target"
done
rm -rf "$tmp"
echo "$(ls bench/notebooks/*.py | wc -l) notebooks -> $target"
