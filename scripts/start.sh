#!/usr/bin/env bash
# Sets everything up on a fresh machine and starts JupyterLab on examples/demo.ipynb.
# Usage: scripts/start.sh [extra jupyter lab options]
source "$(dirname "$0")/common.sh"
python_env lab.txt
build_and_install
PORT="${PORT:-8888}"
log "starting JupyterLab: open the URL printed below (http://localhost:$PORT/lab/tree/examples/demo.ipynb)"
extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-root)
exec jupyter lab --no-browser --port="$PORT" --ServerApp.root_dir="$ROOT" "${extra[@]}" "$@" examples/demo.ipynb
