#!/usr/bin/env bash
# Bundles bench/analysis_speed.ts with esbuild (the repo's own) and runs it in Node.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d)/analysis_speed.cjs"
node_modules/.bin/esbuild bench/analysis_speed.ts --bundle --platform=node --format=cjs \
  --external:web-tree-sitter --external:tree-sitter-python --outfile="$out" --log-level=warning
# Run from the repo so the parser finds the wasm files in node_modules.
NODE_PATH="$PWD/node_modules" node "$out"
