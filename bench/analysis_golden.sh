#!/usr/bin/env bash
# Bundles bench/analysis_golden.ts with esbuild and writes the engine's outputs to $1.
set -euo pipefail
cd "$(dirname "$0")/.."
target="$(realpath -m "${1:-analysis_golden.txt}")"
out="$(mktemp -d)/analysis_golden.cjs"
node_modules/.bin/esbuild bench/analysis_golden.ts --bundle --platform=node --format=cjs \
  --external:web-tree-sitter --external:tree-sitter-python --outfile="$out" --log-level=warning
NODE_PATH="$PWD/node_modules" node "$out" "$target"
