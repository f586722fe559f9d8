# Shared by scripts/start.sh and scripts/test.sh: one place that knows how to bring a fresh
# machine to a built, installed extension. Sourced, not run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

need_node() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "Node.js >= 20 and npm are needed to build the extension from source." >&2
    exit 2
  fi
}

python_env() {
  if [ ! -x "$VENV/bin/python" ]; then
    log "creating $VENV"
    python3 -m venv "$VENV"
  fi
  export PATH="$VENV/bin:$PATH"
  log "installing Python requirements ($1)"
  python -m pip install -q --upgrade pip
  python -m pip install -q -r "requirements/$1"
}

build_and_install() {
  need_node
  log "installing npm packages (package-lock.json)"
  npm ci --no-audit --no-fund
  log "building the extension"
  npm run build:prod
  log "installing the extension and the kernel package (pip install .)"
  python -m pip install -q --force-reinstall --no-deps .
  jupyter labextension list 2>&1 | grep -q 'jupyterlab-gpuoptimize.*enabled.*OK' || {
    jupyter labextension list
    echo "the extension is not listed as enabled and OK" >&2
    exit 1
  }
}
