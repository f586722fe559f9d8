#!/usr/bin/env bash
# Installs what the tests need (Chromium, Python and npm packages) and runs every test:
# jest (analysis, protocol), pytest (the kernel shim in a real ipykernel), Galata (the
# extension in a real `jupyter lab` with a real kernel, in headless Chromium).
source "$(dirname "$0")/common.sh"
if [ ! -x /usr/bin/chromium ]; then
  log "installing Debian's chromium for the UI tests"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
python_env test.txt
build_and_install
export CI="${CI:-1}"
log "lint and types (ruff, tsc over src, unit and UI tests)"
ruff check python_shim test/python test/fixtures/rules/verify_on_gpu.py bench
npx tsc --noEmit -p tsconfig.test.json
npx tsc --noEmit -p test/ui/tsconfig.json   # the Galata specs, strict
log "jest"
npx jest --ci
log "pytest (real ipykernel via jupyter_client)"
python -m pytest -q test/python
log "Galata (headless Chromium, real jupyter lab)"
(cd test/ui && npx playwright test)
log "all tests passed"
