#!/usr/bin/env bash
# Everything the GPU machine proves, in one call (device time is scarce):
#   1. bench/run_gpu.py: doctor, ceilings, harness self-checks, every engine candidate A/B-timed
#   2. the GPU-only harness tests (test/python/test_harness_gpu.py)
#   3. every flag-* rule fixture run with its expected candidate (test/fixtures/rules/verify_on_gpu.py)
#   (between 1 and 2: bench/gpu_diagnostics.py, what bounds the stencil, reduction and SpMV figures;
#   its printout is in the command's output, its numbers in $OUT/diag/diagnostics.json)
# Usage there: bash bench/gpu_all.sh   (writes under $OUT)
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 PYTHONPATH=python_shim
OUT="${OUT:-/tmp/gpu-all}"
mkdir -p "$OUT/bench"
nvidia-smi > "$OUT/bench/nvidia-smi.txt" 2>&1
BENCH_DEADLINE_S="${BENCH_DEADLINE_S:-330}" timeout 450 python3 bench/run_gpu.py --out "$OUT/bench" 2>&1 | tee "$OUT/bench/log.txt"
echo "== diagnostics: stencil launch vs kernel time, reductions over a chain, CSR SpMV (bench/gpu_diagnostics.py)"
timeout 100 python3 bench/gpu_diagnostics.py --out "$OUT/diag" 2>&1
echo "== GPU-only harness tests"
timeout 90 python3 -m pytest -q -s -p no:cacheprovider test/python/test_harness_gpu.py 2>&1 | tee "$OUT/pytest_gpu.txt"
echo "== rule fixtures on the GPU"
timeout 150 python3 test/fixtures/rules/verify_on_gpu.py 2>&1 | tee "$OUT/verify_fixtures.txt"
echo "== table"
cat "$OUT/bench/table.txt" 2>/dev/null
echo "== diagnostics table"
python3 -c "import json, sys; print('\n'.join(json.load(open(sys.argv[1]))['table']))" "$OUT/diag/diagnostics.json" 2>/dev/null
