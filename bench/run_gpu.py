#!/usr/bin/env python3
"""The GPU bench: doctor, ceilings, harness self-checks, and every engine candidate A/B-timed.

Run on the GPU machine (repo root):

    set -o pipefail; PYTHONUNBUFFERED=1 PYTHONPATH=python_shim \
        python3 bench/run_gpu.py --out $OUT 2>&1 | tee $OUT/log.txt

Locally without a GPU (logic only, numbers meaningless):

    BENCH_SCALE=0.01 BENCH_FAKE_CUPY=1 PYTHONPATH=python_shim python3 bench/run_gpu.py --out /tmp/b

What it does, in order (the table is printed LAST):
  1. the environment doctor (`gpuoptimize.device`), BEFORE the numba-cuda/numpy-2.5 alias,
     plus a subprocess that shows the conflict for real; the doctor's calibration;
  2. ceilings: device-to-device copy of 1 GiB (bytes read + written), pageable H2D copy;
  3. issue-4 checks of the harness itself: device time vs cupyx.profiler.benchmark (5%),
     its overhead per repeat (< 50 us), an unsynchronised candidate;
  4. per workload of bench/candidates.json: setup, `harness.run_ab(baseline, engine
     candidate)`, the same candidate on device-resident inputs, achieved bandwidth for the
     memory-bound ones, and the expert reference variants (bench/expert_reference.py), each
     in its own row;
  5. results.json, doctor.txt under --out, and the table.

Env: BENCH_SCALE (sizes x this, default 1), BENCH_BUDGET_S (per side, default 2),
BENCH_FAKE_CUPY=1 (the CuPy test double in test/python/testdouble_cupy, logic tests only),
BENCH_ONLY (comma list of workloads),
BENCH_DEADLINE_S (skip remaining workloads after this many seconds, default 420).
"""

from __future__ import annotations

import argparse
import ast
import functools
import gc
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
import traceback
import types
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "python_shim"))
sys.path.insert(0, str(HERE))

SCALE = float(os.environ.get("BENCH_SCALE", "1"))
BUDGET_S = float(os.environ.get("BENCH_BUDGET_S", "2"))
FAKE = os.environ.get("BENCH_FAKE_CUPY") == "1"
DEADLINE_S = float(os.environ.get("BENCH_DEADLINE_S", "420"))
ONLY = [s for s in os.environ.get("BENCH_ONLY", "").split(",") if s]
T_START = time.perf_counter()

#: Extra size factor per workload on top of BENCH_SCALE (keeps the whole run inside its
#: time limit; the factor is recorded with each result).
WORKLOAD_SCALE = {
    # 200M float64 draws x2 cost ~3 s a CPU run, and the harness's statistical comparison
    # sorts both samples on the host (~5 s per 10M values): 20M keeps the run short and still
    # fills the GPU.
    "monte_carlo": 0.1,
}
#: Order: the fusion targets first, then the rest; the slow setups (sparse) last.
ORDER = [
    "elementwise_chain",
    "stencil_slices",
    "reduction",
    "matmul",
    "fft2",
    "sorting",
    "monte_carlo",
    "ndimage_filter",
    "sparse_matvec_csr",
    "sparse_matvec",
]
#: Memory-bound workloads: achieved bandwidth = (inputs read once + outputs written once)
#: / device time, against the measured D2D copy ceiling. GPU103 ones carry the 50% target.
MEMORY_BOUND = {
    "elementwise_chain",
    "stencil_slices",
    "reduction",
    "sparse_matvec",
    "sparse_matvec_csr",
}
FUSION_TARGET = 0.50
#: Workloads whose setup cannot run at full size (recorded as skipped, with the reason).
SKIP_AT_FULL_SIZE = {
    "sparse_matvec": (
        "setup calls sp.random(2_000_000, 2_000_000, density=5e-6, random_state=7): an int seed "
        "takes SciPy's legacy RandomState path, which permutes all 4e12 positions (29 TiB); the "
        "H200 host OOM-killed the bench there on 2026-11-30. sparse_matvec_csr.py is the same "
        "cell with a matrix that can be built."
    ),
}

if FAKE:  # the project's one CuPy TEST DOUBLE (NumPy underneath), shared with pytest
    sys.path.insert(0, str(ROOT / "test" / "python" / "testdouble_cupy"))

import numpy as np  # noqa: E402

from gpuoptimize import compare as gcompare  # noqa: E402
from gpuoptimize import device as gdevice  # noqa: E402
from gpuoptimize import harness  # noqa: E402

try:
    import cupy as cp  # noqa: E402
    import cupyx.profiler  # noqa: E402

    HAVE_CUPY = cp.cuda.runtime.getDeviceCount() > 0
    CUPY_ERROR = None
except Exception as e:  # no CuPy, or no device: the bench still checks its own logic
    cp = None  # type: ignore[assignment]
    HAVE_CUPY = False
    CUPY_ERROR = f"{type(e).__name__}: {e}"


def log(*a: Any) -> None:
    print(*a, flush=True)


def section(title: str) -> None:
    log("\n" + "=" * 100 + f"\n{title}  [t={time.perf_counter() - T_START:.1f}s]\n" + "=" * 100)


def fmt_s(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    if x >= 1:
        return f"{x:.3g} s"
    if x >= 1e-3:
        return f"{x * 1e3:.3g} ms"
    return f"{x * 1e6:.3g} us"


def fmt_x(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:.3g}x"


def sync() -> None:
    if HAVE_CUPY:
        cp.cuda.runtime.deviceSynchronize()


def free_device() -> None:
    gc.collect()
    if HAVE_CUPY:
        sync()
        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()


# ---------------------------------------------------------------------------------------
# Sizes


_INT = re.compile(r"(?<![\w.])(\d[\d_]*)(?![\w.]|e)")


def scale_source(src: str, factor: float) -> str:
    """Every integer literal >= 1000 (sizes) times `factor`; the same on every side, so
    baseline and candidate stay consistent. Factor 1 leaves the text untouched."""
    if factor == 1:
        return src

    def sub(m: re.Match[str]) -> str:
        v = int(m.group(1).replace("_", ""))
        if v < 1000:
            return m.group(0)
        return str(max(16, int(round(v * factor))))

    return _INT.sub(sub, src)


# ---------------------------------------------------------------------------------------
# Doctor and ceilings


def run_doctor(out: Path) -> dict[str, Any]:
    section("1. Environment doctor (before any bench workaround is applied)")
    env = gdevice.environment(calibrate_device=True, deep=False)
    report = gdevice.format_report(env)
    log(report)
    conflict = None
    have_numba_cuda = gdevice._find("numba_cuda") or gdevice._find("numba.cuda")
    if not FAKE and HAVE_CUPY and have_numba_cuda:
        log("\nnumba-cuda as a user meets it (a fresh process, no workaround): compile one kernel")
        code = (
            "import numpy as np\n"
            "from numba import cuda\n"
            "@cuda.jit\n"
            "def k(a):\n"
            "    a[0] = 1.0\n"
            "a = cuda.to_device(np.zeros(1))\n"
            "k[1, 1](a)\n"
            "cuda.synchronize()\n"
            "print('numba-cuda kernel compiled and ran')\n"
        )
        try:
            p = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, timeout=90
            )
            tail = (p.stdout + p.stderr).strip().splitlines()
            conflict = {"returncode": p.returncode, "last_line": tail[-1] if tail else ""}
        except Exception as e:
            conflict = {"returncode": None, "last_line": f"{type(e).__name__}: {e}"}
        log(f"  -> rc {conflict['returncode']}: {conflict['last_line']}")
    (out / "doctor.txt").write_text(
        report
        + ("\n\nnumba-cuda without workaround: " + json.dumps(conflict) if conflict else "")
        + "\n"
    )
    return {"environment": env, "report": report, "numba_cuda_without_workaround": conflict}


def h2d(d: Any, host: Any) -> None:
    if FAKE:
        d[...] = host
    else:
        d.set(host)


def measure_ceilings() -> dict[str, Any]:
    section("2. Ceilings measured here")
    res: dict[str, Any] = {}
    if not HAVE_CUPY:
        log("no CuPy device: no ceilings (" + str(CUPY_ERROR) + ")")
        return res
    n = max(1 << 20, int((1 << 30) * min(SCALE, 1.0)))  # 1 GiB at scale 1
    src = cp.random.default_rng(0).random(n // 4, dtype=cp.float32)
    dst = cp.empty_like(src)
    b = cupyx.profiler.benchmark(dst.__setitem__, (Ellipsis, src), n_repeat=50, n_warmup=5)
    t = float(np.median(b.gpu_times[0]))
    res["d2d_copy_bytes"] = int(2 * src.nbytes)
    res["d2d_copy_s"] = t
    res["d2d_bandwidth"] = 2 * src.nbytes / t
    log(
        f"D2D copy {src.nbytes / 2**30:.2f} GiB: {fmt_s(t)} -> {res['d2d_bandwidth'] / 1e9:,.0f} "
        "GB/s (read+written)"
    )
    del src, dst
    host = np.random.default_rng(0).random(
        max(1 << 17, int((1 << 25) * min(SCALE, 1.0)))
    )  # 256 MiB
    d = cp.empty(host.shape, host.dtype)
    times = []
    for _ in range(5):
        sync()
        t0 = time.perf_counter()
        h2d(d, host)
        sync()
        times.append(time.perf_counter() - t0)
    res["h2d_pageable_bandwidth"] = host.nbytes / min(times)
    times = []
    for _ in range(5):
        sync()
        t0 = time.perf_counter()
        cp.asnumpy(d)
        times.append(time.perf_counter() - t0)
    res["d2h_pageable_bandwidth"] = host.nbytes / min(times)
    log(
        f"H2D pageable {host.nbytes / 2**20:.0f} MiB: {res['h2d_pageable_bandwidth'] / 1e9:.1f} "
        "GB/s; "
        f"D2H pageable: {res['d2h_pageable_bandwidth'] / 1e9:.1f} GB/s"
    )
    del host, d
    free_device()
    return res


# ---------------------------------------------------------------------------------------
# Issue-4 checks of the harness


def _median_gpu(fn: Any, n_repeat: int) -> tuple[float, float]:
    # cupyx.profiler.benchmark names its report after fn.__name__, which a functools.partial
    # lacks (AttributeError in run 19): the name is given
    name = getattr(fn, "__name__", "cell")
    b = cupyx.profiler.benchmark(fn, n_repeat=n_repeat, n_warmup=5, name=name)
    return float(np.median(b.gpu_times[0])), float(np.median(b.cpu_times))


def harness_checks() -> dict[str, Any]:
    section("3. Harness self-checks (issue 4)")
    out: dict[str, Any] = {"agreement": [], "overhead": None, "unsynchronised": []}
    if not HAVE_CUPY:
        log("no CuPy device: harness checks skipped")
        return out
    s = min(SCALE, 1.0)
    rs = cp.random.default_rng(1)
    ns: dict[str, Any] = {"cp": cp}
    n_el = max(1 << 16, int(256_000_000 * s))
    side = max(64, int(8192 * math.sqrt(s)))
    ns["x"] = rs.random(n_el, dtype=cp.float32)  # 1 GiB at scale 1
    ns["a2"] = rs.random((max(64, int(16384 * math.sqrt(s))),) * 2, dtype=cp.float32)  # 1 GiB
    ns["A"] = rs.random((side, side), dtype=cp.float32)
    ns["B"] = rs.random((side, side), dtype=cp.float32)
    ns["F"] = (
        rs.random((side, side), dtype=cp.float32) + 1j * rs.random((side, side), dtype=cp.float32)
    ).astype(cp.complex64)
    ns["k"] = rs.random(max(1 << 16, int(100_000_000 * s)), dtype=cp.float32)
    cases = [
        ("elementwise", "y = cp.sqrt(x * x + 1.0)"),
        ("reduction", "y = a2.sum(axis=1)"),
        ("matmul", "y = A @ B"),
        ("fft", "y = cp.fft.fft2(F)"),
        ("sort", "y = cp.sort(k)"),
    ]
    for name, src in cases:
        try:
            r = harness.run_ab("pass", src, ns, budget_s=1.0)
            h = r.candidate.device_s
            h_wall = r.candidate.median_s
            code = compile(src, f"<check {name}>", "exec")
            g = dict(ns)
            n_rep = int(max(10, min(500, 1.0 / max(h or 1e-3, 1e-5))))
            c_gpu, c_cpu = _median_gpu(functools.partial(exec, code, g), n_rep)
            g.clear()
            ratio = h / c_gpu if h and c_gpu else None
            ok = ratio is not None and abs(ratio - 1) <= 0.05
            rec = {
                "case": name,
                "source": src,
                "harness_device_s": h,
                "harness_wall_s": h_wall,
                "harness_runs": r.candidate.runs,
                "cupyx_gpu_s": c_gpu,
                "cupyx_cpu_s": c_cpu,
                "cupyx_repeats": n_rep,
                "ratio": ratio,
                "pass": ok,
                "harness_verdict": r.verdict,
                "harness_error": r.candidate.error,
            }
        except Exception as e:
            rec = {
                "case": name,
                "source": src,
                "pass": False,
                "error": traceback.format_exc()[-800:],
            }
            log(f"  {name}: ERROR {e}")
        out["agreement"].append(rec)
        log(
            f"  {name:<12} harness device {fmt_s(rec.get('harness_device_s'))} "
            f"({rec.get('harness_runs')} runs), "
            f"cupyx.profiler.benchmark GPU {fmt_s(rec.get('cupyx_gpu_s'))} -> ratio "
            f"{rec['ratio']:.4f} {'PASS' if rec['pass'] else 'FAIL'} (target within 5%)"
            if rec.get("ratio")
            else f"  {name}: no ratio ({rec.get('harness_error') or rec.get('error')})"
        )
        free_device()

    # Unsynchronised candidates: a big matmul launched with no synchronize.
    for label, src in (
        ("default stream, no sync", "y = A @ B"),
        (
            "non-blocking stream, no sync",
            "s = cp.cuda.Stream(non_blocking=True)\nwith s:\n    y = A @ B",
        ),
    ):
        try:
            r = harness.run_ab("pass", src, ns, budget_s=1.0)
            code = compile(src, "<unsync>", "exec")
            g = dict(ns)
            exec(code, g)
            sync()
            naive = []
            for _ in range(5):  # what a timer without synchronisation would read
                sync()
                t0 = time.perf_counter()
                exec(code, g)
                naive.append(time.perf_counter() - t0)
                sync()
            true = []
            for _ in range(10):  # wall clock with synchronisation, outside the harness
                sync()
                t0 = time.perf_counter()
                exec(code, g)
                sync()
                true.append(time.perf_counter() - t0)
            c_gpu, _ = _median_gpu(functools.partial(exec, code, g), 20)
            g.clear()
            h_dev, h_wall = r.candidate.device_s, r.candidate.median_s
            true_s = statistics.median(true)
            rec = {
                "case": label,
                "source": src,
                "harness_device_s": h_dev,
                "harness_wall_s": h_wall,
                "cupyx_gpu_s": c_gpu,
                "synced_wall_s": true_s,
                "naive_unsynced_wall_s": statistics.median(naive),
                "device_ratio_vs_synced_wall": h_dev / true_s if h_dev else None,
                "wall_ratio_vs_synced_wall": h_wall / true_s if h_wall else None,
                "device_ratio_vs_cupyx": h_dev / c_gpu if h_dev and c_gpu else None,
            }
            # Timed correctly = the harness's figures are within 5% of the synchronised
            # wall clock (the work really done), not the launch time a naive timer sees.
            rec["wall_pass"] = bool(h_wall) and abs(rec["wall_ratio_vs_synced_wall"] - 1) <= 0.05
            rec["device_pass"] = bool(h_dev) and abs(rec["device_ratio_vs_synced_wall"] - 1) <= 0.05
            rec["pass"] = rec["wall_pass"] and rec["device_pass"]
        except Exception as e:
            rec = {
                "case": label,
                "source": src,
                "pass": False,
                "error": traceback.format_exc()[-800:],
            }
            log(f"  {label}: ERROR {e}")
        out["unsynchronised"].append(rec)
        if "error" not in rec:
            log(
                f"  unsynchronised ({label}): harness device {fmt_s(rec['harness_device_s'])}, "
                "wall "
                f"{fmt_s(rec['harness_wall_s'])}; synced wall {fmt_s(rec['synced_wall_s'])}; "
                "cupyx GPU "
                f"{fmt_s(rec['cupyx_gpu_s'])}; naive unsynced timer "
                f"{fmt_s(rec['naive_unsynced_wall_s'])} "
                f"-> {'PASS' if rec['pass'] else 'FAIL'} (device {rec['device_pass']}, wall "
                f"{rec['wall_pass']})"
            )
        free_device()
    for k in ("x", "a2", "A", "B", "F", "k"):
        ns.pop(k, None)
    free_device()

    # Overhead per repeat: a trivial GPU candidate (one tiny kernel) and an empty cell, timed
    # by the harness and by a bare loop doing the same synchronize/exec/synchronize.
    ns = {"cp": cp, "t": cp.zeros(1, dtype=cp.float32)}
    res: dict[str, Any] = {}
    for label, src in (("tiny kernel", "y = t + 1"), ("empty cell", "pass")):
        progress: list[tuple[str, int, float]] = []
        r = harness.run_ab(
            "pass",
            src,
            ns,
            budget_s=1.0,
            progress=lambda ph, n, el, b, seen=progress: seen.append((ph, n, el)),
        )
        cand = [p for p in progress if p[0] == "candidate"]
        per_repeat_wall = cand[-1][2] / cand[-1][1] if cand and cand[-1][1] else None
        code = compile(src, "<bare>", "exec")
        g = dict(ns)
        bare = []
        t_loop = time.perf_counter()
        for _ in range(2000):
            sync()
            t0 = time.perf_counter()
            exec(code, g)
            sync()
            bare.append(time.perf_counter() - t0)
        bare_per_iter = (time.perf_counter() - t_loop) / 2000
        gpu_c, _ = _median_gpu(functools.partial(exec, code, g), 2000)
        bare_med = statistics.median(bare)
        rec = {
            "source": src,
            "harness_median_s": r.candidate.median_s,
            "harness_device_s": r.candidate.device_s,
            "harness_runs": r.candidate.runs,
            "bare_loop_median_s": bare_med,
            "timer_overhead_s": (r.candidate.median_s or 0) - bare_med,
            "cupyx_gpu_s": gpu_c,
            "harness_wall_per_repeat_s": per_repeat_wall,
            "bare_wall_per_iter_s": bare_per_iter,
            "bookkeeping_per_repeat_s": (per_repeat_wall - bare_per_iter)
            if per_repeat_wall
            else None,
        }
        rec["pass"] = rec["timer_overhead_s"] < 50e-6
        res[label] = rec
        log(
            f"  overhead ({label}): harness per-run median {fmt_s(rec['harness_median_s'])} vs "
            "bare loop "
            f"{fmt_s(bare_med)} -> +{rec['timer_overhead_s'] * 1e6:.1f} us "
            f"{'PASS' if rec['pass'] else 'FAIL'} "
            f"(< 50 us); harness device {fmt_s(rec['harness_device_s'])} vs cupyx GPU "
            f"{fmt_s(gpu_c)}; "
            f"wall per repeat incl. namespace rebuild {fmt_s(per_repeat_wall)} vs bare "
            f"{fmt_s(bare_per_iter)}"
        )
    out["overhead"] = res
    free_device()
    return out


# ---------------------------------------------------------------------------------------
# Workloads


def to_device_ns(ns: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The setup's namespace with every NumPy array (and SciPy sparse matrix) converted once
    to the device: what a whole-notebook residency plan would give the cell."""
    out = dict(ns)
    moved = []
    for k, v in ns.items():
        if k.startswith("__"):
            continue
        if isinstance(v, np.ndarray):
            out[k] = cp.asarray(v)
            moved.append(k)
        else:
            with _suppress():
                import scipy.sparse as sps

                if sps.issparse(v):
                    import cupyx.scipy.sparse as csp

                    out[k] = csp.csr_matrix(v)
                    # canonical once, as the engine's plan does where it builds the matrix: the
                    # harness copies the matrix for every run, and a copy with duplicate entries
                    # is sorted and merged inside each product (gpu_diagnostics.py: 28 ms vs
                    # 0.22 ms)
                    out[k].sum_duplicates()
                    moved.append(k)
    sync()
    return out, moved


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *e: Any) -> bool:
        return True


def nbytes_of(v: Any) -> int:
    if hasattr(v, "nbytes"):
        return int(v.nbytes)
    if hasattr(v, "data") and hasattr(v, "indices") and hasattr(v, "indptr"):  # CSR
        return int(v.data.nbytes + v.indices.nbytes + v.indptr.nbytes)
    return 0


def ideal_bytes(ns: dict[str, Any], baseline: str, base_values: dict[str, Any]) -> int:
    """Bytes a one-pass version must move: every array the cell reads once, every array
    it writes once."""
    names = set(re.findall(r"[A-Za-z_]\w*", baseline))
    read = sum(
        nbytes_of(ns[n]) for n in names if n in ns and not n.startswith("__") and nbytes_of(ns[n])
    )
    written = sum(nbytes_of(v) for k, v in base_values.items() if not k.startswith("__"))
    return read + written


def summarize(r: Any) -> dict[str, Any]:
    j = r.to_json()
    worst_abs = [o.max_abs_err for o in r.outputs if o.max_abs_err is not None]
    worst_rel = [
        o.max_rel_err
        for o in r.outputs
        if o.max_rel_err is not None and math.isfinite(o.max_rel_err)
    ]
    return {
        "verdict": r.verdict,
        "reason": r.reason,
        "baseline_median_s": r.baseline.median_s,
        "baseline_runs": r.baseline.runs,
        "baseline_first_run_s": r.baseline.first_run_s,
        "candidate_median_s": r.candidate.median_s,
        "candidate_device_s": r.candidate.device_s,
        "candidate_runs": r.candidate.runs,
        "candidate_first_run_s": r.candidate.first_run_s,
        "candidate_transfer_s": r.candidate.transfer_s,
        "candidate_transfer_bytes": r.candidate.transfer_bytes,
        "candidate_peak_device_bytes": r.candidate.peak_device_bytes,
        "speedup_end_to_end": r.speedup_end_to_end,
        "speedup_device": r.speedup_device,
        "speedup_ci95": r.speedup_ci95,
        "match": r.match_status,
        "max_abs_err": max(worst_abs) if worst_abs else None,
        "max_rel_err": max(worst_rel) if worst_rel else None,
        "outputs": [o.to_json() for o in r.outputs],
        "warnings": r.warnings,
        "abresult": j,
    }


_NOT_DATA = (types.ModuleType, types.FunctionType, type)


def measure_alone(
    src: str, ns: dict[str, Any], ref_values: dict[str, Any], random: bool, budget: float
) -> dict[str, Any]:
    """Time `src` with the harness (against an empty baseline, so the CPU baseline is not
    rerun) and compare its outputs with the baseline's values from the real A/B run."""
    r = harness.run_ab("pass", src, ns, budget_s=budget)
    outs = []
    if r.candidate.status == "ok":
        for k, bv in ref_values.items():
            if isinstance(bv, _NOT_DATA) or (callable(bv) and not hasattr(bv, "__array__")):
                continue  # modules/functions/classes are code, not results (the harness's rule)
            if k in r.candidate_values:
                outs.append(gcompare.compare(k, bv, r.candidate_values[k], random=random))
            else:
                outs.append(
                    gcompare.OutputComparison(k, gcompare.UNVERIFIED, "presence", detail="not set")
                )
    status = gcompare.combine_status([o.status for o in outs]) if outs else "unverified"
    l2 = rel_l2(ref_values, r.candidate_values) if r.candidate.status == "ok" else {}
    worst_abs = [o.max_abs_err for o in outs if o.max_abs_err is not None]
    rec = {
        "status": r.candidate.status,
        "error": r.candidate.error,
        "median_s": r.candidate.median_s,
        "device_s": r.candidate.device_s,
        "runs": r.candidate.runs,
        "first_run_s": r.candidate.first_run_s,
        "transfer_s": r.candidate.transfer_s,
        "match": status,
        "max_abs_err": max(worst_abs) if worst_abs else None,
        "rel_l2": l2,
        "outputs": [o.to_json() for o in outs],
        "times_s": r.candidate.times_s,
        "device_times_s": r.candidate.device_times_s,
    }
    r.candidate_values.clear()
    return rec


def rel_l2(ref: dict[str, Any], got: dict[str, Any]) -> dict[str, float]:
    """||got - ref|| / ||ref|| per array output (METHOD.md's norm-wise error), on the host in
    float64/complex128: a second view beside the harness's element-wise tolerances."""
    out = {}
    for k, a in ref.items():
        if k.startswith("__") or k not in got:
            continue
        try:
            a = np.asarray(gcompare.to_host(a))
            b = np.asarray(gcompare.to_host(got[k]))
            if a.shape != b.shape or a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
                continue
            dt = np.complex128 if "c" in (a.dtype.kind + b.dtype.kind) else np.float64
            a = a.astype(dt, copy=False)
            b = b.astype(dt, copy=False)
            den = float(np.linalg.norm(a.ravel()))
            out[k] = (
                float(np.linalg.norm((b - a).ravel())) / den
                if den
                else float(np.linalg.norm(b.ravel()))
            )
        except Exception:
            continue
    return out


def pi_check(base_vals: dict[str, Any], cand_vals: dict[str, Any], n: int) -> dict[str, Any] | None:
    """Monte Carlo: the two estimates of pi agree within 5 standard errors (the bench's own
    statistical check of the scalar the harness cannot compare by statistics)."""
    if "pi_estimate" not in base_vals or "pi_estimate" not in cand_vals:
        return None
    a = float(gcompare.to_host(base_vals["pi_estimate"]))
    b = float(gcompare.to_host(cand_vals["pi_estimate"]))
    p = math.pi / 4
    se = 4 * math.sqrt(p * (1 - p) / n)
    tol = 5 * se * math.sqrt(2)
    return {
        "cpu": a,
        "gpu": b,
        "abs_diff": abs(a - b),
        "tolerance_5se": tol,
        "pass": abs(a - b) <= tol,
    }


def run_workload(w: dict[str, Any], ceil: dict[str, Any]) -> dict[str, Any]:
    name = w["name"]
    factor = SCALE * WORKLOAD_SCALE.get(name, 1.0)
    section(f"4. workload {name}  (size factor {factor:g})")
    rec: dict[str, Any] = {
        "name": name,
        "description": w.get("description"),
        "size_factor": factor,
        "rows": [],
    }
    setup = scale_source(w["setup"], factor)
    baseline = scale_source(w["baseline"], factor)
    rec["setup_run"] = setup
    rec["baseline_run"] = baseline
    ns: dict[str, Any] = {}
    t0 = time.perf_counter()
    exec(compile(setup, f"<setup {name}>", "exec"), ns)
    rec["setup_s"] = time.perf_counter() - t0
    log(f"setup {fmt_s(rec['setup_s'])}; baseline:\n{baseline.rstrip()}")
    random = "random" in baseline or "rng" in baseline
    base_vals: dict[str, Any] = {}
    base_time = None
    n_mc = None
    m = re.search(r"/\s*([\d_]+)\s*$", baseline.strip())
    if m:
        n_mc = int(m.group(1).replace("_", ""))

    suggestions = w.get("suggestions") or []
    if not suggestions:
        rec["engine"] = {
            "finding": "the engine gave no candidate for this cell",
            "refusals": w.get("refusals"),
            "diagnostics": w.get("diagnostics"),
        }
        log(
            f"ENGINE: no candidate (refusals {w.get('refusals')}, diagnostics "
            f"{w.get('diagnostics')})"
        )
    for s in suggestions:
        cand = scale_source(s["candidate"], factor)
        row: dict[str, Any] = {
            "variant": "engine",
            "rule": s["rule"],
            "predicted_speedup": s["predicted_speedup"],
            "candidate_run": cand,
        }
        log(f"\nENGINE {s['rule']} (predicted {s['predicted_speedup']}x):\n{cand.rstrip()}")
        try:
            r = harness.run_ab(baseline, cand, ns, budget_s=BUDGET_S)
            row.update(summarize(r))
            log(r.format())
            if not base_vals:
                base_vals = {k: v for k, v in r.baseline_values.items() if not k.startswith("__")}
                base_time = r.baseline.median_s
            row["rel_l2"] = rel_l2(r.baseline_values, r.candidate_values)
            log(f"norm-wise error ||gpu - cpu|| / ||cpu||: {row['rel_l2']}")
            if n_mc:
                row["pi_check"] = pi_check(r.baseline_values, r.candidate_values, n_mc)
                log(f"bench check of pi_estimate by statistics: {row['pi_check']}")
            r.candidate_values.clear()
        except Exception as e:
            row["error"] = traceback.format_exc()[-1500:]
            log(f"ERROR {e}\n{row['error']}")
        free_device()
        rec["rows"].append(row)

    experts = []
    try:
        from expert_reference import EXPERT

        experts = EXPERT.get(name, [])
    except Exception as e:
        log(f"expert variants unavailable: {e}")
    for ex in experts:
        row = {"variant": "expert", "rule": ex["name"], "candidate_run": ex["source"]}
        log(f"\nEXPERT REFERENCE (hand-written by the bench, not the engine): {ex['name']}")
        if not HAVE_CUPY:
            row["skipped"] = "no CuPy device"
            rec["rows"].append(row)
            continue
        try:
            if ex.get("needs") == "numba.cuda":
                from numba import cuda as _ncuda  # after the row_stack alias

                if not _ncuda.is_available():
                    raise RuntimeError("numba.cuda.is_available() is False")
            if ex.get("prelude"):
                exec(compile(ex["prelude"], f"<prelude {name}>", "exec"), ns)
            if base_vals:
                row.update({"baseline_median_s": base_time})
                row.update(
                    {
                        f"candidate_{k}"
                        if k not in ("match", "max_abs_err", "outputs", "rel_l2")
                        else k: v
                        for k, v in measure_alone(
                            ex["source"], ns, base_vals, random, BUDGET_S
                        ).items()
                    }
                )
                if base_time and row.get("candidate_median_s"):
                    row["speedup_end_to_end"] = base_time / row["candidate_median_s"]
                if base_time and row.get("candidate_device_s"):
                    row["speedup_device"] = base_time / row["candidate_device_s"]
            else:
                r = harness.run_ab(baseline, ex["source"], ns, budget_s=BUDGET_S)
                row.update(summarize(r))
                log(r.format())
                row["rel_l2"] = rel_l2(r.baseline_values, r.candidate_values)
                base_vals = {k: v for k, v in r.baseline_values.items() if not k.startswith("__")}
                base_time = r.baseline.median_s
                r.candidate_values.clear()
            log(
                f"  e2e {fmt_s(row.get('candidate_median_s'))}, device "
                f"{fmt_s(row.get('candidate_device_s'))}, "
                f"first {fmt_s(row.get('candidate_first_run_s'))}, match {row.get('match')} (max "
                f"abs err {row.get('max_abs_err')})"
            )
        except Exception as e:
            row["error"] = f"{type(e).__name__}: {e}"[:800]
            log(f"  ERROR {row['error']}")
        free_device()
        rec["rows"].append(row)

    # Device-resident variant: the setup's arrays converted once; the candidate's own
    # cp.asarray calls then receive device arrays and copy nothing.
    if HAVE_CUPY and base_vals and any(r.get("candidate_run") for r in rec["rows"]):
        ns_dev, moved = to_device_ns(ns)
        rec["resident_inputs"] = moved
        if not moved:
            log(
                "\nresident variant: the cell reads no setup arrays (nothing to move): same as "
                "above"
            )
        # The engine's residency plan imports CuPy in the notebook's import cell.
        ns_dev.setdefault("cp", cp)
        plan_cell = (w.get("plan") or {}).get("cell")
        # ...and makes the plan's imports there (`import cupyx.scipy.ndimage` moves from the
        # cell into the notebook's import cell): run the import statements of the plan's setup,
        # before the prelude, whose kernels may use them
        plan_setup = (w.get("plan") or {}).get("setup")
        if plan_cell and plan_setup:
            imports = [
                s for s in ast.parse(plan_setup).body if isinstance(s, (ast.Import, ast.ImportFrom))
            ]
            if imports:
                mod = ast.Module(body=imports, type_ignores=[])
                exec(compile(mod, f"<plan setup imports {name}>", "exec"), ns_dev)
        # ...and defines the plan's kernels there once (ElementwiseKernel, RawKernel, cp.fuse)
        plan_prelude = (w.get("plan") or {}).get("prelude")
        if plan_cell and plan_prelude:
            exec(compile(plan_prelude, f"<plan prelude {name}>", "exec"), ns_dev)
        for row in rec["rows"]:
            if not moved or row.get("error") or row.get("skipped") or not row.get("candidate_run"):
                continue
            if row["variant"] == "engine" and plan_cell:
                src = scale_source(plan_cell, factor)
                row["resident_form"] = (
                    "engine residency plan (src/analysis/plan.ts): the cell without edge "
                    "conversions"
                )
            else:
                src = row["candidate_run"]
                row["resident_form"] = (
                    "no residency form from the engine: the candidate as is; its cp.asarray "
                    "calls get device arrays and copy nothing"
                    if row["variant"] == "engine"
                    else "the expert variant as is; its cp.asarray calls get device arrays and "
                    "copy nothing"
                )
            row["resident_source"] = src
            log(
                f"\nRESIDENT ({row['variant']} {row['rule']}): inputs {moved} already on the "
                f"device; {row['resident_form']}:\n{src.rstrip()}"
            )
            try:
                res = measure_alone(src, ns_dev, base_vals, random, max(1.0, BUDGET_S / 2))
                row["resident"] = {
                    k: v for k, v in res.items() if k not in ("times_s", "device_times_s")
                }
                row["resident"]["times_s"] = res["times_s"]
                if base_time and res.get("median_s"):
                    row["resident"]["speedup_end_to_end"] = base_time / res["median_s"]
                if base_time and res.get("device_s"):
                    row["resident"]["speedup_device"] = base_time / res["device_s"]
                if name in MEMORY_BOUND and res.get("device_s") and ceil.get("d2d_bandwidth"):
                    ib = ideal_bytes(ns, baseline, base_vals)
                    bw = ib / res["device_s"]
                    row["resident"]["ideal_bytes"] = ib
                    row["resident"]["achieved_bandwidth"] = bw
                    row["resident"]["fraction_of_copy_ceiling"] = bw / ceil["d2d_bandwidth"]
                if res.get("status") != "ok":
                    log(
                        f"  ERROR the resident form failed ({res.get('status')}): "
                        f"{res.get('error')}"
                    )
                log(
                    f"  e2e {fmt_s(res.get('median_s'))}, device {fmt_s(res.get('device_s'))} "
                    f"({res.get('runs')} runs), match {res.get('match')}"
                    + (
                        f", {row['resident']['achieved_bandwidth'] / 1e9:,.0f} GB/s = "
                        f"{100 * row['resident']['fraction_of_copy_ceiling']:.0f}% of the copy "
                        "ceiling "
                        f"({row['resident']['ideal_bytes'] / 1e9:.2f} GB one-pass bytes)"
                        if "achieved_bandwidth" in row["resident"]
                        else ""
                    )
                )
            except Exception as e:
                row["resident"] = {"error": f"{type(e).__name__}: {e}"[:800]}
                log(f"  ERROR {row['resident']['error']}")
            free_device()
        del ns_dev
    base_vals.clear()
    ns.clear()
    free_device()
    return rec


# ---------------------------------------------------------------------------------------
# Table


def table(results: dict[str, Any]) -> str:
    lines = []
    hdr = (
        f"{'workload':<18} {'variant':<34} {'CPU base':>9} {'GPU e2e':>9} {'e2e x':>7} "
        f"{'dev x':>7} "
        f"{'res. dev':>9} {'res. x':>7} {'first':>8} {'xfer':>8} {'match':<12} {'max err':>8} "
        f"{'relL2':>8} {'%copy':>6}"
    )
    lines.append(hdr)
    lines.append("-" * len(hdr))
    for w in results["workloads"]:
        rows = w.get("rows") or []
        compared = {o["name"] for r in rows for o in (r.get("outputs") or [])}
        if w.get("skipped") or w.get("error"):
            why = (w.get("skipped") or w.get("error") or "").strip().splitlines()[-1]
            lines.append(
                f"{w['name']:<18} {'SKIPPED' if w.get('skipped') else 'ERROR'}: {why[:110]}"
            )
            continue
        if not any(r["variant"] == "engine" for r in rows):
            lines.append(f"{w['name']:<18} {'engine: NO CANDIDATE':<34}")
        for r in rows:
            label = (
                r["rule"] if r["variant"] == "engine" else r["rule"].replace("expert: ", "EXPERT ")
            )[:34]
            if r.get("error") or r.get("skipped"):
                lines.append(
                    f"{w['name']:<18} {label:<34} {'ERROR' if r.get('error') else 'skipped'}: "
                    f"{(r.get('error') or r.get('skipped') or '').splitlines()[-1][:60]}"
                )
                continue
            res = dict(r.get("resident") or {})
            if res.get("outputs") and compared:
                # The resident comparison covers the outputs the A/B compared (older results
                # also held module names such as `np` that the harness lists as outputs).
                res["match"] = gcompare.combine_status(
                    [o["status"] for o in res["outputs"] if o["name"] in compared]
                )
            err = r.get("max_abs_err")
            frac = res.get("fraction_of_copy_ceiling")
            share = (
                "-"
                if frac is None
                else f"{100 * frac:.0f}%"
                if frac >= 0.01
                else f"{100 * frac:.1f}%"
            )
            stat = {o["name"] for o in (r.get("outputs") or []) if o["status"] == "statistical"}
            l2 = max((v for k, v in (r.get("rel_l2") or {}).items() if k not in stat), default=None)
            match = r.get("match") or "-"
            if r.get("verdict") in ("error", "no_gpu", "refused"):
                match = r["verdict"]
            if res.get("match") and res["match"] != r.get("match"):
                match += f"/res:{res['match']}"
            if r.get("pi_check"):
                match += "+pi" + ("ok" if r["pi_check"]["pass"] else "BAD")
            lines.append(
                f"{w['name']:<18} {label:<34} {fmt_s(r.get('baseline_median_s')):>9} "
                f"{fmt_s(r.get('candidate_median_s')):>9} "
                f"{fmt_x(r.get('speedup_end_to_end')):>7} {fmt_x(r.get('speedup_device')):>7} "
                f"{fmt_s(res.get('device_s')):>9} {fmt_x(res.get('speedup_device')):>7} "
                f"{fmt_s(r.get('candidate_first_run_s')):>8} "
                f"{fmt_s(r.get('candidate_transfer_s')):>8} "
                f"{match[:12]:<12} {('-' if err is None else f'{err:.2g}'):>8} "
                f"{('-' if l2 is None else f'{l2:.1e}'):>8} "
                f"{share:>6}"
            )
    c = results.get("checks") or {}
    lines.append("")
    lines.append("Harness checks (issue 4):")
    for a in c.get("agreement", []):
        lines.append(
            f"  device time vs cupyx.profiler.benchmark, {a['case']:<12}: "
            + (
                f"ratio {a['ratio']:.4f} {'PASS' if a['pass'] else 'FAIL'}"
                if a.get("ratio")
                else "ERROR"
            )
        )
    for k, o in (c.get("overhead") or {}).items():
        lines.append(
            f"  overhead per repeat ({k}): +{o['timer_overhead_s'] * 1e6:.1f} us over a bare "
            f"loop {'PASS' if o['pass'] else 'FAIL'} (< 50 us)"
        )
    for u in c.get("unsynchronised", []):
        if "error" in u:
            lines.append(f"  unsynchronised ({u['case']}): ERROR")
        else:
            lines.append(
                f"  unsynchronised ({u['case']}): harness device/synced wall "
                f"{u['device_ratio_vs_synced_wall']:.3f}, "
                f"wall/synced wall {u['wall_ratio_vs_synced_wall']:.3f} "
                f"{'PASS' if u['pass'] else 'FAIL'}"
                if u.get("device_ratio_vs_synced_wall") and u.get("wall_ratio_vs_synced_wall")
                else f"  unsynchronised ({u['case']}): no device time"
            )
    fus = results.get("fusion_target") or []
    for f in fus:
        lines.append(
            f"  fused elementwise {f['workload']} ({f['rule']}): {100 * f['fraction']:.0f}% of "
            f"copy ceiling {'PASS' if f['pass'] else 'FAIL'} (>= 50%)"
        )
    ceil = results.get("ceilings") or {}
    if ceil.get("d2d_bandwidth"):
        lines.append(
            f"Ceilings: D2D copy {ceil['d2d_bandwidth'] / 1e9:,.0f} GB/s; H2D pageable "
            f"{ceil['h2d_pageable_bandwidth'] / 1e9:.1f} GB/s; "
            f"D2H pageable {ceil['d2h_pageable_bandwidth'] / 1e9:.1f} GB/s"
        )
    lines.append(
        "Columns: CPU base = baseline median; GPU e2e = candidate median with its in-cell H2D "
        "copies (outputs stay on the device); "
        "dev x = baseline / candidate device time (events around the whole cell, copies "
        "included); res. = same candidate with "
        "inputs already on the device; max err = harness's max abs error; relL2 = "
        "||gpu-cpu||/||cpu|| (worst output not compared by statistics); %copy = one-pass bytes / "
        "resident device time / D2D copy bandwidth."
    )
    return "\n".join(lines)


def fusion_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    fus = []
    for w in results["workloads"]:
        for r in w.get("rows", []):
            if r["variant"] == "engine" and r.get("rule") == "GPU103":
                frac = (r.get("resident") or {}).get("fraction_of_copy_ceiling")
                if frac is not None:
                    fus.append(
                        {
                            "workload": w["name"],
                            "rule": r["rule"],
                            "fraction": frac,
                            "pass": frac >= FUSION_TARGET,
                        }
                    )
    return fus


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/bench-out"))
    ap.add_argument("--candidates", default=str(HERE / "candidates.json"))
    ap.add_argument("--table-from", help="print the table of an earlier results.json and exit")
    args = ap.parse_args()
    if args.table_from:
        results = json.loads(Path(args.table_from).read_text())
        if "fusion_target" not in results:
            results["fusion_target"] = fusion_rows(results)
        log(table(results))
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log(
        f"bench/run_gpu.py: scale {SCALE}, budget {BUDGET_S} s/side, fake cupy {FAKE}, cupy "
        f"device {HAVE_CUPY} ({CUPY_ERROR or 'ok'})"
    )
    results: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "scale": SCALE,
        "budget_s": BUDGET_S,
        "fake_cupy": FAKE,
        "have_cupy_device": HAVE_CUPY,
        "cupy_error": CUPY_ERROR,
    }
    cands = json.loads(Path(args.candidates).read_text())
    results["engine"] = cands.get("engine")
    try:
        results["doctor"] = run_doctor(out)
    except Exception:
        results["doctor"] = {"error": traceback.format_exc()[-1500:]}
        log(results["doctor"]["error"])
    try:
        results["ceilings"] = measure_ceilings()
    except Exception:
        results["ceilings"] = {"error": traceback.format_exc()[-1500:]}
        log(results["ceilings"]["error"])

    # Bench-only workaround for numba-cuda 0.30.4 on NumPy 2.5 (never in product code),
    # applied AFTER the doctor has reported the conflict and BEFORE numba.cuda is imported.
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # type: ignore[attr-defined]
        results["bench_workaround"] = (
            "np.row_stack = np.vstack (bench only) before importing numba.cuda"
        )
        log("\nbench workaround applied: np.row_stack = np.vstack (before importing numba.cuda)")
    try:
        import numba
        from numba import cuda as _ncuda

        results["numba"] = {
            "numba": numba.__version__,
            "cuda_available": bool(_ncuda.is_available()),
        }
    except Exception as e:
        results["numba"] = {"error": f"{type(e).__name__}: {e}"[:300]}
    log(f"numba: {results['numba']}")

    try:
        results["checks"] = harness_checks()
    except Exception:
        results["checks"] = {"error": traceback.format_exc()[-1500:]}
        log(results["checks"]["error"])

    by_name = {w["name"]: w for w in cands["workloads"]}
    names = [n for n in ORDER if n in by_name] + sorted(set(by_name) - set(ORDER))
    if ONLY:
        names = [n for n in names if n in ONLY]
    results["workloads"] = []
    for n in names:
        if n in SKIP_AT_FULL_SIZE and SCALE * WORKLOAD_SCALE.get(n, 1.0) >= 0.5:
            log(f"\nSKIPPED {n}: {SKIP_AT_FULL_SIZE[n]}")
            results["workloads"].append({"name": n, "rows": [], "skipped": SKIP_AT_FULL_SIZE[n]})
            continue
        if time.perf_counter() - T_START > DEADLINE_S:
            log(f"\nSKIPPED {n}: past the bench deadline of {DEADLINE_S:g} s")
            results["workloads"].append({"name": n, "rows": [], "skipped": "deadline"})
            continue
        try:
            results["workloads"].append(run_workload(by_name[n], results.get("ceilings") or {}))
        except Exception:
            err = traceback.format_exc()[-2000:]
            log(f"workload {n} failed:\n{err}")
            results["workloads"].append({"name": n, "rows": [], "error": err})
        free_device()
        (out / "results.json").write_text(json.dumps(results, indent=1, default=str))

    results["fusion_target"] = fusion_rows(results)
    results["elapsed_s"] = time.perf_counter() - T_START
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    t = table(results)
    (out / "table.txt").write_text(t + "\n")
    section(
        f"5. Summary (elapsed {results['elapsed_s']:.0f} s; full results in {out}/results.json)"
    )
    log(t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
