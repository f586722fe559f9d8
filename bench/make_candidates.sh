#!/usr/bin/env bash
# Regenerates bench/candidates.json from the analysis engine (no npm scripts needed).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${TMPDIR:-/tmp}/gpuoptimize-make-candidates.cjs"
node_modules/.bin/esbuild bench/make_candidates.ts --bundle --platform=node --format=cjs \
  --external:web-tree-sitter --external:tree-sitter-python --log-level=error --outfile="$out"
NODE_PATH="$PWD/node_modules" node "$out" "$PWD"
