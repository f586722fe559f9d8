#!/usr/bin/env bash
# Rewrites every bench/notebooks/*.py with the product's CLI, on this (CPU) machine: the GPU
# machine has no Node, so the rewrites it runs (bench/run_notebooks.py) are made here and
# carried there. For each NAME.py, into bench/notebooks/out/ (git-ignored):
#   NAME.ipynb          the notebook the CLI reads (bench/nb_percent.py, cells kept exactly)
#   NAME.gpu.ipynb      `gpuoptimize fix NAME.ipynb -o NAME.gpu.ipynb --force --even-if-slower`
#   NAME.gpu.py         the same rewrite as py-percent, which run_notebooks.py executes
#   NAME.analyze.json   `gpuoptimize analyze --format json` (the per-cell predicted speedups)
#   NAME.fix.log        what `fix` printed
#   TREE                the commit the rewrites were made at, and whether src/ had uncommitted
#                       changes; a line added per run on named notebooks (bench/run_notebooks.py
#                       copies it into its results.json)
# A notebook whose analyze or fix fails loses its old outputs (a stale rewrite or analysis
# would be run and reported as this tree's); bench/run_notebooks.py then skips it and says so.
# Usage: bash bench/notebooks_fix.sh [NAME...]   (no names: all)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
npm run --silent build:cli
cli=(node bin/gpuoptimize.js)
out=bench/notebooks/out
mkdir -p "$out"
if [ $# -gt 0 ]; then names=("$@"); else
  names=(); for f in bench/notebooks/*.py; do names+=("$(basename "$f" .py)"); done
fi
tree=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain -- src | wc -l)
if [ "$dirty" -gt 0 ]; then tree="$tree + uncommitted changes in $dirty src/ files"; fi
tree="$tree ($(date -u '+%F %H:%M UTC'))"
# all notebooks: TREE is this line; some: a line added for them
if [ $# -gt 0 ]; then echo "$tree: $*" >> "$out/TREE"; else echo "$tree" > "$out/TREE"; fi
status=0
for n in "${names[@]}"; do
  rm -f "$out/$n.analyze.json" "$out/$n.gpu.ipynb" "$out/$n.gpu.py"
  python3 bench/nb_percent.py to-ipynb "bench/notebooks/$n.py" "$out/$n.ipynb"
  # analyze exits 1 when it has findings: that is its normal answer here
  rc=0; "${cli[@]}" analyze "$out/$n.ipynb" --format json > "$out/$n.analyze.part" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "$n: analyze failed ($rc)"; rm -f "$out/$n.analyze.part"; status=1; continue
  fi
  mv "$out/$n.analyze.part" "$out/$n.analyze.json"
  rc=0; "${cli[@]}" fix "$out/$n.ipynb" -o "$out/$n.gpu.ipynb" --force --even-if-slower > "$out/$n.fix.log" 2>&1 || rc=$?
  if [ "$rc" -gt 1 ] || [ ! -s "$out/$n.gpu.ipynb" ]; then
    echo "$n: fix failed ($rc), see $out/$n.fix.log"; rm -f "$out/$n.gpu.ipynb"; status=1; continue
  fi
  python3 bench/nb_percent.py to-py "$out/$n.gpu.ipynb" "$out/$n.gpu.py" \
    "$n rewritten by \`gpuoptimize fix\` from bench/notebooks/$n.py (bench/notebooks_fix.sh)"
  echo "$n: $(grep -c '^# %%$' "$out/$n.gpu.py") code cells in the rewrite"
done
exit $status
