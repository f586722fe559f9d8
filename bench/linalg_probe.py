"""cuSOLVER's and LAPACK's decompositions of one large matrix: the device rates the model lacks.

The cost model (src/analysis/costmodel.ts `MEASURED_H200.deviceDecompositionFlops`) prices every
decomposition of one matrix on the device at the one cuSOLVER rate measured so far, the SVD's
(~0.6 TFLOP/s, h_spectro cell 16): the low end for potrf, getrf and syevd. This probe times, on
the GPU machine, the calls the rewrites make (CuPy's `cp.linalg.*`, NumPy's `np.linalg.*` on the
same matrix) at n = 4096 and 8192, float64 and float32:

- `cholesky` (potrf), n^3 / 3 flops;
- `solve` with one right-hand side (getrf + getrs), 2 n^3 / 3 + 2 n^2;
- `eigvalsh` (syevd without vectors), 4 n^3 / 3;
- `eigh` (syevd with vectors), 14 n^3 / 3;
- `svd` without the full U (gesvd, for reference against the model's 0.6 TFLOP/s), 6 n^3 + 20 n^3,
  at n <= 4096 only (8192 would take ~25 s a call on the device at that rate);

the flop counts being the model's own (rules/arrays/loop-work.ts `SQUARE_FLOPS`,
`factorisationWork`), so that a rate printed here goes into the table as it is. Each device case:
the first call (its handle and workspace set-up) and the median of `--repeats` calls after it,
each synchronised;
each host case: one call (NumPy's LAPACK with all the host's threads), skipped where the model's
host rate (36 GFLOP/s) says it would take over `--host-cap-s` (recorded as skipped, with the
estimate). Every result is checked (a residual relative to the matrix's norm) so a fast wrong
answer cannot pass as a rate.

    python3 bench/linalg_probe.py --out DIR            (on the GPU machine; ~3-6 min)
    BENCH_ONLY=cholesky,solve python3 bench/linalg_probe.py --out DIR --sizes 4096

Env, as bench/run_gpu.py: BENCH_ONLY (comma list of cases: cholesky, solve, eigvalsh, eigh, svd),
BENCH_DEADLINE_S (stop starting cases after this many seconds, default 480). Writes
DIR/linalg_probe.json and prints a table; without CuPy or a GPU it runs the host side only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ONLY = [s for s in os.environ.get("BENCH_ONLY", "").split(",") if s]
DEADLINE_S = float(os.environ.get("BENCH_DEADLINE_S", "480"))
T_START = time.perf_counter()

#: LAPACK's flops for each case, as the cost model counts them (n x n, one right-hand side).
FLOPS: dict[str, Callable[[int], float]] = {
    "cholesky": lambda n: n**3 / 3,
    "solve": lambda n: 2 * n**3 / 3 + 2 * n * n,
    "eigvalsh": lambda n: 4 * n**3 / 3,
    "eigh": lambda n: 14 * n**3 / 3,
    "svd": lambda n: 6 * n**3 + 20 * n**3,
}
#: The model's host rate for square decompositions (`hostSquareFactorisationFlops`).
HOST_RATE = 36e9


def spd(xp: Any, n: int, dtype: Any, seed: int) -> tuple[Any, Any]:
    """A symmetric positive definite n x n matrix (well conditioned) and a right-hand side."""
    rng = xp.random.default_rng(seed)
    x = rng.standard_normal((n, n), dtype=xp.float64)
    a = (x @ x.T) / n + xp.eye(n)
    b = rng.standard_normal(n)
    return a.astype(dtype), b.astype(dtype)


def call(xp: Any, case: str, a: Any, b: Any) -> Any:
    """The decomposition the rewrite would make, with its result (for the residual check)."""
    la = xp.linalg
    if case == "cholesky":
        return la.cholesky(a)
    if case == "solve":
        return la.solve(a, b)
    if case == "eigvalsh":
        return la.eigvalsh(a)
    if case == "eigh":
        return la.eigh(a)
    if case == "svd":
        return la.svd(a, full_matrices=False)
    raise ValueError(case)


def residual(xp: Any, case: str, a: Any, b: Any, out: Any) -> float:
    """How far the result is from satisfying its definition, relative to the matrix's norm."""
    norm = float(xp.linalg.norm(a))
    if case == "cholesky":
        return float(xp.linalg.norm(out @ out.T - a)) / norm
    if case == "solve":
        return float(xp.linalg.norm(a @ out - b)) / (norm * float(xp.linalg.norm(out)))
    if case == "eigvalsh":
        # the eigenvalues sum to the trace
        return abs(float(out.sum()) - float(xp.trace(a))) / norm
    if case == "eigh":
        w, v = out
        return float(xp.linalg.norm(a @ v - v * w[None, :])) / norm
    u, s, vt = out
    return float(xp.linalg.norm((u * s[None, :]) @ vt - a)) / norm


def device_case(cp: Any, case: str, n: int, dtype: Any, repeats: int) -> dict[str, Any]:
    a, b = spd(cp, n, dtype, 7)
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    out = call(cp, case, a, b)
    cp.cuda.Device().synchronize()
    first = time.perf_counter() - t
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = call(cp, case, a, b)
        cp.cuda.Device().synchronize()
        samples.append(time.perf_counter() - t)
    s = statistics.median(samples)
    res = residual(cp, case, a, b, out)
    del a, b, out
    cp.get_default_memory_pool().free_all_blocks()
    return {
        "first_s": first,
        "s": s,
        "samples_s": samples,
        "flops_per_s": FLOPS[case](n) / s,
        "residual": res,
    }


def host_case(case: str, n: int, dtype: Any, cap_s: float) -> dict[str, Any]:
    estimate = FLOPS[case](n) / HOST_RATE
    if estimate > cap_s:
        why = f"the model's host rate gives {estimate:.0f} s (over --host-cap-s {cap_s:.0f})"
        return {"skipped": why}
    a, b = spd(np, n, dtype, 7)
    t = time.perf_counter()
    out = call(np, case, a, b)
    s = time.perf_counter() - t
    return {
        "s": s,
        "flops_per_s": FLOPS[case](n) / s,
        "residual": residual(np, case, a, b, out),
        "model_s": estimate,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=".")
    ap.add_argument("--sizes", default="4096,8192", help="comma list of n")
    ap.add_argument("--dtypes", default="float64,float32")
    ap.add_argument("--repeats", type=int, default=3, help="device calls after the first")
    ap.add_argument(
        "--host-cap-s", type=float, default=30.0, help="skip host cases the model prices over this"
    )
    ap.add_argument("--no-host", action="store_true")
    args = ap.parse_args()

    try:
        import cupy as cp

        have_gpu = cp.cuda.runtime.getDeviceCount() > 0
    except Exception as e:  # noqa: BLE001  (no CuPy, or no device: host only)
        print(f"no device side: {type(e).__name__}: {e}", file=sys.stderr)
        cp, have_gpu = None, False

    cases = [c for c in FLOPS if not ONLY or c in ONLY]
    out: dict[str, Any] = {
        "numpy": np.__version__,
        "cupy": getattr(cp, "__version__", None),
        "rows": [],
    }
    if have_gpu:
        props = cp.cuda.runtime.getDeviceProperties(0)
        out["device"] = (
            props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        )
        # one throwaway call per library so that the first case does not carry cuSOLVER's and
        # cuBLAS's handles (each row's first_s still holds its own workspace set-up)
        w = cp.eye(64)
        cp.linalg.cholesky(w)
        cp.linalg.eigh(w)
        cp.cuda.Device().synchronize()
    head = ("case", "n", "dtype", "device s", "TFLOP/s", "first s", "host s", "GFLOP/s")
    print("{:9s} {:>5s} {:8s} {:>9s} {:>8s} {:>8s} {:>8s} {:>8s}  residuals".format(*head))
    for n in (int(k) for k in args.sizes.split(",")):
        for dtype_name in args.dtypes.split(","):
            dtype = np.dtype(dtype_name)
            for case in cases:
                if case == "svd" and n > 4096:
                    continue
                row: dict[str, Any] = {
                    "case": case,
                    "n": n,
                    "dtype": dtype_name,
                    "flops": FLOPS[case](n),
                }
                if time.perf_counter() - T_START > DEADLINE_S:
                    row["skipped"] = f"BENCH_DEADLINE_S ({DEADLINE_S:.0f} s) passed"
                    out["rows"].append(row)
                    continue
                if have_gpu:
                    try:
                        row["device"] = device_case(cp, case, n, dtype, args.repeats)
                    except Exception as e:  # noqa: BLE001  (out of memory, a CuPy gap: recorded)
                        row["device"] = {"error": f"{type(e).__name__}: {e}"}
                if not args.no_host:
                    try:
                        row["host"] = host_case(case, n, dtype, args.host_cap_s)
                    except Exception as e:  # noqa: BLE001
                        row["host"] = {"error": f"{type(e).__name__}: {e}"}
                out["rows"].append(row)
                d, h = row.get("device", {}), row.get("host", {})
                nan = float("nan")
                dev = (d.get("s", nan), d.get("flops_per_s", nan) / 1e12, d.get("first_s", nan))
                hst = (h.get("s", nan), h.get("flops_per_s", nan) / 1e9)
                checks = (
                    d.get("residual", d.get("error", "-")),
                    h.get("residual", h.get("skipped", h.get("error", "-"))),
                )
                print(
                    f"{case:9s} {n:5d} {dtype_name:8s} {dev[0]:9.4f} {dev[1]:8.2f} {dev[2]:8.3f} "
                    f"{hst[0]:8.2f} {hst[1]:8.1f}  {checks[0]} {checks[1]}",
                    flush=True,
                )
                Path(args.out).mkdir(parents=True, exist_ok=True)
                Path(args.out, "linalg_probe.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
