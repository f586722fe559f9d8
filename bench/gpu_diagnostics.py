#!/usr/bin/env python3
"""GPU diagnostics behind three bench figures (run by bench/gpu_all.sh after run_gpu.py).

1. stencil: what bounds the one-pass stencil's figure. The engine's resident cell for
   bench/workloads/stencil_slices.py (from candidates.json: the plan's prelude + cell) timed
   three ways: as the harness does (CUDA events around one exec of the cell, Python launch
   included), by cupyx.profiler.benchmark, and back to back (events around 20 executions: the
   GPU never idles, so the figure is the kernel's own time), at 8192^2 and 16384^2.
   ``--explore`` adds hand-written kernel variants (tile shapes, rows per thread).
2. reduction: a reduction over an elementwise chain (monte_carlo's count of points inside the
   circle) as CuPy op by op, cp.fuse, the engine's candidate, a ReductionKernel and hand-written
   kernels; plus what float32 summation order does to the error.
3. spmv: why the resident CSR product of sparse_matvec_csr takes ~28 ms: canonical format,
   index dtypes, the cuSPARSE path cupyx takes, a fresh copy (as the harness makes per run)
   vs a canonical matrix, cupyx.cusparse.spmv directly, a hand-written CSR kernel.

Usage: PYTHONPATH=python_shim python3 bench/gpu_diagnostics.py --out DIR [--explore]
       [--only stencil,reduction,spmv]. Prints a short table last; DIR/diagnostics.json (its "table"
key holds the same lines). About 40 s on an H200 without --explore.
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from expert_reference import LAP5_STRIP_KERNEL  # noqa: E402  (the hand-written stencil, one source)

HERE = Path(__file__).resolve().parent
T0 = time.perf_counter()
SUMMARY: list[str] = []

try:
    import cupy as cp
    import cupyx
    import cupyx.profiler

    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception as e:  # pragma: no cover - CPU machine
    cp = None  # type: ignore[assignment]
    HAVE_GPU = False
    print(f"no CuPy device ({type(e).__name__}: {e}): nothing to diagnose")


def log(*a: Any) -> None:
    print(f"[{time.perf_counter() - T0:6.1f}s]", *a, flush=True)


def report(detail: str, line: str) -> None:
    """A detail line for the log now, a line for the summary table printed last."""
    log(detail)
    SUMMARY.append(line)


def us(x: float) -> str:
    return f"{x * 1e6:,.1f} us" if x < 1e-2 else f"{x * 1e3:,.2f} ms"


def sync() -> None:
    cp.cuda.runtime.deviceSynchronize()


def free() -> None:
    import gc

    gc.collect()
    sync()
    cp.get_default_memory_pool().free_all_blocks()


def copy_ceiling() -> float:
    a = cp.empty(1 << 28, dtype=cp.float32)  # 1 GiB
    b = cp.empty_like(a)
    t = float(
        np.median(
            cupyx.profiler.benchmark(
                b.__setitem__, (Ellipsis, a), n_repeat=20, n_warmup=3
            ).gpu_times[0]
        )
    )
    del a, b
    free()
    return 2 * (1 << 30) / t


def events_once(fn: Callable[[], Any], n: int = 30) -> float:
    """Median device time of one call between two events (what the harness measures)."""
    s, e = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(n):
        sync()
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(cp.cuda.get_elapsed_time(s, e) * 1e-3)
    return float(np.median(out))


def back_to_back(fn: Callable[[], Any], k: int = 20, reps: int = 5) -> float:
    """Device time per call with k calls queued between two events: the GPU does not wait
    for Python, so this is the kernel's own time when it exceeds the launch time."""
    s, e = cp.cuda.Event(), cp.cuda.Event()
    fn()
    out = []
    for _ in range(reps):
        sync()
        s.record()
        for _ in range(k):
            fn()
        e.record()
        e.synchronize()
        out.append(cp.cuda.get_elapsed_time(s, e) * 1e-3 / k)
    return float(np.median(out))


def host_launch(fn: Callable[[], Any], k: int = 200) -> float:
    """Host (Python) time per call, GPU queue not full (sync every 10 calls)."""
    sync()
    t = time.perf_counter()
    for i in range(k):
        fn()
        if i % 10 == 9:
            sync()
    sync()
    return (time.perf_counter() - t) / k


# ---------------------------------------------------------------------------------------
# 1. stencil

BASE_KERNEL = r"""
extern "C" __global__ void lap_base(const float* RESTRICT u, float* RESTRICT out, int n, int m) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= m) return;
    size_t k = (size_t)i * m + j;
    float v = 0.0f;
    if (i > 0 && i < n - 1 && j > 0 && j < m - 1) {
        v = u[k - m] + u[k + m] + u[k - 1] + u[k + 1] - 4.0f * u[k];
    }
    out[k] = v;
}
"""


def stencil_reference(u: Any) -> Any:
    """The workload's NumPy cell, on the host, back on the device for comparison."""
    h = cp.asnumpy(u)
    lap = np.zeros_like(h)
    lap[1:-1, 1:-1] = h[:-2, 1:-1] + h[2:, 1:-1] + h[1:-1, :-2] + h[1:-1, 2:] - 4.0 * h[1:-1, 1:-1]
    return cp.asarray(lap)


def strip_kernel(r: int, bx: int, by: int) -> Any:
    src = f"#define R {r}\n#define BX {bx}\n#define BY {by}\n" + LAP5_STRIP_KERNEL
    return cp.RawKernel(src, "lap_strip", options=("--fmad=false",))


def strip_launch(kern: Any, r: int, bx: int, by: int) -> Callable[[Any, Any], None]:
    def go(u: Any, out: Any) -> None:
        n, m = u.shape
        gy = min((n + r * by - 1) // (r * by), 65535)
        kern(((m + bx - 1) // bx, gy), (bx, by), (u, out, np.int32(n), np.int32(m)))

    return go


def engine_stencil_forms() -> dict[str, str] | None:
    cands = json.loads((HERE / "candidates.json").read_text())
    for w in cands["workloads"]:
        if w["name"] == "stencil_slices":
            plan = w.get("plan") or {}
            return {
                "prelude": plan.get("prelude") or "",
                "cell": plan.get("cell") or "",
                "candidate": (w.get("suggestions") or [{}])[0].get("candidate", ""),
            }
    return None


def diag_stencil(explore: bool, ceiling: float) -> dict[str, Any]:
    res: dict[str, Any] = {"sizes": {}}
    forms = engine_stencil_forms()
    res["engine_cell"] = forms and forms["cell"]
    base = cp.RawKernel(BASE_KERNEL.replace("RESTRICT", ""), "lap_base", options=("--fmad=false",))
    base_r = cp.RawKernel(
        BASE_KERNEL.replace("RESTRICT", "__restrict__"), "lap_base", options=("--fmad=false",)
    )

    def at_size(n: int) -> dict[str, Any]:
        """The figures at n x n; its arrays are freed when it returns."""
        rec: dict[str, Any] = {}
        u = cp.random.default_rng(5).random((n, n), dtype=cp.float32)
        ideal = 2 * u.nbytes
        ref = stencil_reference(u)
        out = cp.empty_like(u)

        def frac(t: float) -> str:
            return f"{ideal / t / 1e9:,.0f} GB/s = {100 * ideal / t / ceiling:.0f}% of copy"

        # the engine's resident cell, as the harness runs it
        if forms and forms["cell"]:
            ns: dict[str, Any] = {"cp": cp, "np": np, "u": u}
            exec(forms["prelude"], ns)
            code = compile(forms["cell"], "<engine cell>", "exec")
            run = lambda: exec(code, ns)  # noqa: E731
            run()
            sync()
            ok = bool(cp.array_equal(ns["lap"], ref))
            t_ev = events_once(run)
            b = cupyx.profiler.benchmark(run, n_repeat=30, n_warmup=3)
            t_cupyx = float(np.median(b.gpu_times[0]))
            t_cpu = float(np.median(b.cpu_times))
            t_b2b = back_to_back(run)
            t_host = host_launch(run)
            rec["engine"] = {
                "bitwise_equal": ok,
                "events_one_exec_s": t_ev,
                "cupyx_gpu_s": t_cupyx,
                "cupyx_cpu_s": t_cpu,
                "back_to_back_s": t_b2b,
                "host_per_call_s": t_host,
            }
            report(
                f"stencil {n}^2 ENGINE cell: equal={ok}; one exec (harness events) {us(t_ev)} "
                f"[{frac(t_ev)}]; cupyx gpu {us(t_cupyx)} cpu {us(t_cpu)}; back-to-back "
                f"{us(t_b2b)} [{frac(t_b2b)}]; host per call {us(t_host)}",
                f"stencil {n:>5}^2 engine cell    : exec {us(t_ev):>10} "
                f"({100 * ideal / t_ev / ceiling:3.0f}%)  kernel(b2b) {us(t_b2b):>10} "
                f"({100 * ideal / t_b2b / ceiling:3.0f}%)  host/call {us(t_host)}  equal={ok}",
            )
            ns.clear()  # the cell's arrays
        variants: list[tuple[str, Callable[[Any, Any], None]]] = [
            (
                "base 32x8",
                lambda a, o: base(
                    ((a.shape[1] + 31) // 32, (a.shape[0] + 7) // 8),
                    (32, 8),
                    (a, o, np.int32(a.shape[0]), np.int32(a.shape[1])),
                ),
            ),
            (
                "base 32x8 restrict",
                lambda a, o: base_r(
                    ((a.shape[1] + 31) // 32, (a.shape[0] + 7) // 8),
                    (32, 8),
                    (a, o, np.int32(a.shape[0]), np.int32(a.shape[1])),
                ),
            ),
        ]
        if explore:
            for r, bx, by in [
                (4, 128, 1),
                (8, 128, 1),
                (16, 128, 1),
                (8, 32, 4),
                (8, 64, 2),
                (8, 256, 1),
                (16, 256, 1),
                (16, 64, 2),
                (32, 128, 1),
                (4, 256, 1),
                (4, 32, 8),
                (2, 128, 1),
                (1, 128, 1),
            ]:
                variants.append(
                    (f"strip R={r} {bx}x{by}", strip_launch(strip_kernel(r, bx, by), r, bx, by))
                )
        rec["variants"] = {}
        for name, fn in variants:
            try:
                out.fill(7)
                fn(u, out)
                sync()
                ok = bool(cp.array_equal(out, ref))
                t_b2b = back_to_back(functools.partial(fn, u, out))
                t_ev = events_once(functools.partial(fn, u, out), n=10)
                rec["variants"][name] = {
                    "bitwise_equal": ok,
                    "back_to_back_s": t_b2b,
                    "events_one_call_s": t_ev,
                }
                report(
                    f"stencil {n}^2 {name:<22}: equal={ok} kernel {us(t_b2b)} [{frac(t_b2b)}]; "
                    f"one call with launch {us(t_ev)}",
                    f"stencil {n:>5}^2 {name:<18}: kernel {us(t_b2b):>10} "
                    f"({100 * ideal / t_b2b / ceiling:3.0f}%)  one call {us(t_ev):>10}  "
                    f"equal={ok}",
                )
            except Exception as e:
                rec["variants"][name] = {"error": f"{type(e).__name__}: {e}"[:400]}
                log(f"stencil {n}^2 {name}: ERROR {e}")
        # odd shapes: correctness only (tile remainders, tiny grids)
        if explore and n == 8192:
            bad = []
            for shape in [
                (1, 1),
                (2, 3),
                (3, 2),
                (3, 3),
                (17, 33),
                (1000, 129),
                (129, 1000),
                (4099, 77),
            ]:
                a = cp.random.default_rng(1).random(shape, dtype=cp.float32)
                o = cp.full(shape, 7, cp.float32)
                ref_a = stencil_reference(a)
                for r, bx, by in [(8, 128, 1), (16, 64, 2)]:
                    strip_launch(strip_kernel(r, bx, by), r, bx, by)(a, o)
                    if not bool(cp.array_equal(o, ref_a)):
                        bad.append(f"{shape} R={r} {bx}x{by}")
            rec["odd_shapes_bad"] = bad
            log(f"stencil odd shapes: {'all equal' if not bad else bad}")
            SUMMARY.append(
                f"stencil odd shapes strip kernels: {'all bitwise equal' if not bad else bad}"
            )
        return rec

    for n in (8192, 16384):
        res["sizes"][n] = at_size(n)
        free()
    return res


# ---------------------------------------------------------------------------------------
# 2. reduction over an elementwise chain

RAW_COUNT = r"""
extern "C" __global__ void inside_count(const double* __restrict__ px,
                                        const double* __restrict__ py, long long n,
                                        unsigned long long* __restrict__ out) {
    unsigned long long acc = 0;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (long long)gridDim.x * blockDim.x) {
        const double x = px[k], y = py[k];
        acc += (x * x + y * y <= 1.0) ? 1 : 0;
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    __shared__ unsigned long long warp_acc[32];
    if ((threadIdx.x & 31) == 0) warp_acc[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < (blockDim.x >> 5) ? warp_acc[threadIdx.x] : 0;
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (threadIdx.x == 0) ATOMIC_OR_PARTIAL;
    }
}
"""


def diag_reduction(ceiling: float, explore: bool) -> dict[str, Any]:
    res: dict[str, Any] = {}
    rk2 = cp.ReductionKernel(
        "float64 px, float64 py",
        "int64 inside",
        "(px * px + py * py <= 1.0) ? 1 : 0",
        "a + b",
        "inside = a",
        "0",
        "inside_rk2",
    )
    rk1 = cp.ReductionKernel(
        "float64 px",
        "int64 inside",
        "(px * px + 0.25 <= 1.0) ? 1 : 0",
        "a + b",
        "inside = a",
        "0",
        "inside_rk1",
    )
    ek = cp.ElementwiseKernel(
        "float64 px, float64 py", "bool inside", "inside = px * px + py * py <= 1.0", "inside_ek"
    )
    raw_atomic = cp.RawKernel(
        RAW_COUNT.replace("ATOMIC_OR_PARTIAL", "atomicAdd(out, acc)"), "inside_count"
    )
    raw_part = cp.RawKernel(
        RAW_COUNT.replace("ATOMIC_OR_PARTIAL", "out[blockIdx.x] = acc"), "inside_count"
    )

    @cp.fuse()
    def fused(px: Any, py: Any) -> Any:
        return cp.sum((px * px + py * py) <= 1.0)

    def at_size(n: int) -> dict[str, Any]:
        """The forms' figures for n points; its arrays are freed when it returns."""
        g = cp.random.default_rng(8)
        px = g.random(n)
        py = g.random(n)
        ideal = px.nbytes + py.nbytes
        acc = cp.zeros(1, cp.uint64)
        part = cp.empty(1024, cp.uint64)
        L = 1 << 16
        head = n - n % L

        def rk2_partials() -> Any:
            s = rk2(px[:head].reshape(-1, L), py[:head].reshape(-1, L), axis=1).sum()
            return s + rk2(px[head:], py[head:]) if head < n else s

        def atomic() -> Any:
            acc.fill(0)
            raw_atomic((1024,), (256,), (px, py, np.int64(n), acc))
            return acc[0]

        def partials() -> Any:
            raw_part((1024,), (256,), (px, py, np.int64(n), part))
            return part.sum()

        forms: list[tuple[str, Callable[[], Any]]] = [
            ("cp.count_nonzero op by op", lambda: cp.count_nonzero(px * px + py * py <= 1.0)),
            ("cp.fuse cp.sum(chain)", lambda: fused(px, py)),
            ("ReductionKernel 2 inputs", lambda: rk2(px, py)),
            ("ReductionKernel 2 in, rows of 64Ki + sum", rk2_partials),
            ("ElementwiseKernel->bool + count_nonzero", lambda: cp.count_nonzero(ek(px, py))),
            ("RawKernel grid-stride + atomicAdd", atomic),
            ("RawKernel partials + sum", partials),
            ("ReductionKernel 1 input (CUB path?)", lambda: rk1(px)),
            ("cp.count_nonzero 1 input op by op", lambda: cp.count_nonzero(px * px + 0.25 <= 1.0)),
        ]
        rec: dict[str, Any] = {}
        want = int(cp.count_nonzero(px * px + py * py <= 1.0))
        want1 = int(cp.count_nonzero(px * px + 0.25 <= 1.0))
        for name, fn in forms:
            if (
                n > 1e8
                and not explore
                and name in ("cp.fuse cp.sum(chain)", "ReductionKernel 2 inputs")
            ):
                continue  # one block: ~173 ms a call at this size (20M shows the same)
            try:
                got = int(fn())
                ok = got == (want1 if "1 input" in name else want)
                t_ev = events_once(fn, n=10 if n > 1e8 else 20)
                t_b2b = back_to_back(fn, k=5 if n > 1e8 else 10, reps=3)
                rec[name] = {"equal": ok, "events_s": t_ev, "back_to_back_s": t_b2b}
                b = px.nbytes if "1 input" in name else ideal
                report(
                    f"reduction n={n:,} {name:<42}: equal={ok} one call {us(t_ev)}  b2b "
                    f"{us(t_b2b)}  [{100 * b / t_b2b / ceiling:.0f}% of copy]",
                    f"reduce n={n:>11,} {name:<40}: {us(t_ev):>10} "
                    f"({100 * b / t_ev / ceiling:3.0f}%) equal={ok}",
                )
            except Exception as e:
                rec[name] = {"error": f"{type(e).__name__}: {e}"[:400]}
                log(f"reduction {name}: ERROR {traceback.format_exc()[-600:]}")
        return rec

    for n in (20_000_000, 200_000_000):
        res[n] = at_size(n)
        free()
    # float32 sums: NumPy pairwise (float32 accumulation) vs GPU orders, against float64
    n = 20_000_000
    hx = np.random.default_rng(3).random(n, dtype=np.float32)
    hy = np.random.default_rng(4).random(n, dtype=np.float32)
    exact = float(np.sum(hx.astype(np.float64) * hx + hy.astype(np.float64) * hy))
    t = hx * hx + hy * hy  # float32 elementwise, as NumPy computes it
    exact_f32_terms = float(np.sum(t.astype(np.float64)))
    x, y = cp.asarray(hx), cp.asarray(hy)
    rkf = cp.ReductionKernel(
        "float32 x, float32 y",
        "float32 s",
        "x * x + y * y",
        "a + b",
        "s = a",
        "0",
        "sum_f32",
        reduce_type="float",
    )
    rkd = cp.ReductionKernel(
        "float32 x, float32 y",
        "float32 s",
        "(double)(x * x + y * y)",
        "a + b",
        "s = (float)a",
        "0",
        "sum_f32_dacc",
        reduce_type="double",
    )
    vals = {
        "numpy np.sum (float32, pairwise)": float(np.sum(t)),
        "cupy cp.sum op by op (float32)": float(cp.sum(x * x + y * y)),
        "ReductionKernel float accumulation": float(rkf(x, y)),
        "ReductionKernel double accumulation": float(rkd(x, y)),
    }
    res["float32_sum"] = {
        "n": n,
        "exact_of_float32_terms": exact_f32_terms,
        "exact_float64": exact,
        "values": vals,
    }
    for k, v in vals.items():
        rel = abs(v - exact_f32_terms) / abs(exact_f32_terms)
        log(f"float32 sum {k:<40}: {v!r} rel err vs exact sum of the float32 terms {rel:.2e}")
        SUMMARY.append(f"float32 sum of 20M terms {k:<36}: rel err {rel:.1e}")
    free()
    return res


# ---------------------------------------------------------------------------------------
# 3. sparse CSR product

CSR_KERNEL = r"""
extern "C" __global__ void csr_vector(const double* __restrict__ data,
                                      const int* __restrict__ indices,
                                      const INDPTR* __restrict__ indptr,
                                      const double* __restrict__ x, double* __restrict__ y,
                                      int n_rows) {
    // LANES threads per row: each takes every LANES-th non-zero, then a shuffle sum
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int row = (int)(t / LANES);
    const int lane = threadIdx.x % LANES;
    double s = 0.0;
    if (row < n_rows) {
        for (INDPTR k = indptr[row] + lane; k < indptr[row + 1]; k += LANES)
            s += data[k] * x[indices[k]];
    }
    for (int o = LANES / 2; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o, LANES);
    if (lane == 0 && row < n_rows) y[row] = s;
}
"""


def diag_spmv(ceiling: float) -> dict[str, Any]:
    import cupyx.scipy.sparse as csp
    import scipy.sparse as sp
    from cupyx import cusparse

    res: dict[str, Any] = {}
    rng = np.random.default_rng(7)
    n_rows, per_row = 2_000_000, 10
    indices = (
        np.sort(rng.integers(0, n_rows, size=(n_rows, per_row)), axis=1).ravel().astype(np.int32)
    )
    indptr = np.arange(0, n_rows * per_row + 1, per_row, dtype=np.int64)
    M = sp.csr_matrix((rng.random(n_rows * per_row), indices, indptr), shape=(n_rows, n_rows))
    v = rng.random(n_rows)
    dup = int(np.count_nonzero(np.diff(indices.reshape(n_rows, per_row), axis=1) == 0))
    res["host"] = {
        "indices_dtype": str(M.indices.dtype),
        "indptr_dtype": str(M.indptr.dtype),
        "duplicate_entries": dup,
        "scipy_has_canonical_format": bool(M.has_canonical_format),
    }
    log(
        f"spmv host matrix: indices {M.indices.dtype}, indptr {M.indptr.dtype}, duplicate "
        f"entries {dup}, scipy canonical {M.has_canonical_format}"
    )
    A = csp.csr_matrix(M)
    x = cp.asarray(v)
    sync()
    res["device"] = {
        "indices_dtype": str(A.indices.dtype),
        "indptr_dtype": str(A.indptr.dtype),
        "data_dtype": str(A.data.dtype),
        "check_availability": {k: bool(cusparse.check_availability(k)) for k in ("csrmv", "spmv")},
        "cached_flags_after_conversion": {
            k: getattr(A, k, None) for k in ("_has_canonical_format", "_has_sorted_indices")
        },
    }
    log(f"spmv device: {res['device']}")
    t = time.perf_counter()
    canon = bool(A.has_canonical_format)
    res["device"]["has_canonical_format"] = canon
    res["device"]["has_canonical_format_check_s"] = time.perf_counter() - t
    res["device"]["has_sorted_indices"] = bool(A.has_sorted_indices)
    ideal = M.data.nbytes + M.indices.nbytes + M.indptr.nbytes + 2 * v.nbytes
    ref = M @ v

    def fresh_product() -> float:
        B = copy.deepcopy(A_fresh)  # what the harness does to a non-ndarray input every run
        sync()
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        B @ x
        e.record()
        e.synchronize()
        return cp.cuda.get_elapsed_time(s, e) * 1e-3

    A_fresh = csp.csr_matrix(M)
    times = [fresh_product() for _ in range(4)]
    res["fresh_copy_product_s"] = float(np.median(times))
    E = copy.deepcopy(A_fresh)
    res["same_object_first_second_s"] = [
        events_once(lambda: E @ x, n=1),
        events_once(lambda: E @ x, n=5),
    ]
    log(
        f"spmv fresh copy per product {us(res['fresh_copy_product_s'])}; same object: first "
        f"{us(res['same_object_first_second_s'][0])}, then "
        f"{us(res['same_object_first_second_s'][1])}"
    )
    C = csp.csr_matrix(M)
    t = time.perf_counter()
    C.sum_duplicates()
    sync()
    res["sum_duplicates_s"] = time.perf_counter() - t
    res["canonical_nnz"] = int(C.nnz)
    D = copy.deepcopy(C)
    res["deepcopy_keeps_flag"] = getattr(D, "_has_canonical_format", None)
    forms: list[tuple[str, Callable[[], Any]]] = [
        ("A @ x, canonical matrix", lambda: C @ x),
        ("deepcopy(canonical) @ x", lambda: D @ x),
        ("cupyx.cusparse.spmv(A, x), non-canonical", lambda: cusparse.spmv(A_fresh, x)),
        ("cupyx.cusparse.spmv(A, x), canonical", lambda: cusparse.spmv(C, x)),
    ]
    for lanes in (1, 4, 8):
        src = CSR_KERNEL.replace("LANES", str(lanes)).replace(
            "INDPTR", "int" if C.indptr.dtype == np.int32 else "long long"
        )
        k = cp.RawKernel(src, "csr_vector")
        y = cp.empty(n_rows, cp.float64)

        def hand(k: Any = k, lanes: int = lanes, y: Any = y) -> Any:
            k(
                ((n_rows * lanes + 255) // 256,),
                (256,),
                (A_fresh.data, A_fresh.indices, A_fresh.indptr, x, y, np.int32(n_rows)),
            )
            return y

        forms.append((f"hand-written CSR kernel, {lanes} thread(s)/row", hand))
    res["forms"] = {}
    for name, fn in forms:
        try:
            got = cp.asnumpy(fn())
            err = float(np.max(np.abs(got - ref)))
            t_ev = events_once(fn, n=20)
            res["forms"][name] = {"max_abs_err": err, "events_s": t_ev}
            report(
                f"spmv {name:<44}: {us(t_ev)} ({100 * ideal / t_ev / ceiling:.1f}% of copy) max "
                f"abs err {err:.1e}",
                f"spmv {name:<44}: {us(t_ev):>10} ({100 * ideal / t_ev / ceiling:4.1f}%) err "
                f"{err:.0e}",
            )
        except Exception as e:
            res["forms"][name] = {"error": f"{type(e).__name__}: {e}"[:400]}
            log(f"spmv {name}: ERROR {traceback.format_exc()[-600:]}")
    SUMMARY.append(
        f"spmv fresh deepcopy @ x (harness per run): {us(res['fresh_copy_product_s'])}; "
        f"sum_duplicates {us(res['sum_duplicates_s'])}; canonical={canon}; dups={dup}; deepcopy "
        f"keeps flag={res['deepcopy_keeps_flag']}; avail {res['device']['check_availability']}"
    )
    free()
    return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/gpu-diag"))
    ap.add_argument("--explore", action="store_true")
    ap.add_argument("--only", default="stencil,reduction,spmv")
    args = ap.parse_args()
    if not HAVE_GPU:
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "cupy": cp.__version__,
        "numpy": np.__version__,
        "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
    }
    ceiling = copy_ceiling()
    results["copy_ceiling_bytes_per_s"] = ceiling
    log(f"D2D copy ceiling {ceiling / 1e9:,.0f} GB/s")
    SUMMARY.append(f"D2D copy ceiling {ceiling / 1e9:,.0f} GB/s")
    for part in args.only.split(","):
        try:
            if part == "stencil":
                results["stencil"] = diag_stencil(args.explore, ceiling)
            elif part == "reduction":
                results["reduction"] = diag_reduction(ceiling, args.explore)
            elif part == "spmv":
                results["spmv"] = diag_spmv(ceiling)
        except Exception:
            results[part] = {"error": traceback.format_exc()[-2000:]}
            log(results[part]["error"])
        free()
        results["table"] = SUMMARY
        (out / "diagnostics.json").write_text(json.dumps(results, indent=1, default=str))
    log("summary:\n" + "\n".join(SUMMARY))
    return 0


if __name__ == "__main__":
    sys.exit(main())
