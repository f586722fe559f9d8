"""What NumPy's streamed passes cost on the GPU machine's host, and a few device-side terms.

The cost model (src/analysis/costmodel.ts) prices NumPy's elementwise work at one streaming
rate (`hostBandwidth`, 13.2 GB/s, fitted to the bench workloads' large arrays). Run 25's
notebooks disagree both ways on arrays of a few MB (c_heat: 2 MB float64 arrays, 16-21 GB/s)
and of tens of MB (i_denoise, m_pic). This probe times, on that host, in one process:

1. passes over arrays of 256 KiB to 512 MiB: `a + b` into a new array, `a * 2.0`, `a += b`,
   `a.copy()`, `np.roll(a, 1, 0)` of a 2-D array, and a sum of two 2-D interior slices
   (`a[1:-1, 1:-1] + a[2:, 1:-1]`), reported as GB/s of the bytes each reads and writes;
2. boolean-mask selection and assignment (`Z[m]`, `Z[m] = v`, `it[m] += 1`) per mask element;
3. c_heat's cells 4 and 7 as written (200 steps of a 512^2 float64 stencil);
4. the split of `import cupy`, the CUDA context and the first launch (fresh processes);
5. m_pic cell 12's device side in pieces (host draws, the copy, cumsum, the lag loop);
6. masks as cells make them (thresholds of a smooth field), NumPy Generator draws per value,
   and CuPy's mask selection and assignment per call;
7. `import cupy` after what notebooks import before it, and CuPy's einsum, batched solve and inv
   per call (l_kalman cell 5's shapes); a fresh process's first copies, kernels and reductions
   against its second ones; i_kmeans cell 5's steps on the host.

    python3 bench/host_probe.py --out DIR        (on the GPU machine)

Writes DIR/host_probe.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

# (every timed closure below runs inside `best` before its loop variables change)
# ruff: noqa: B023


def best(fn, repeats: int = 7, min_time: float = 0.05) -> float:
    """Median seconds of one call of `fn` (each sample loops until `min_time`)."""
    fn()
    samples = []
    for _ in range(repeats):
        n = 0
        t = time.perf_counter()
        while True:
            fn()
            n += 1
            el = time.perf_counter() - t
            if el >= min_time:
                break
        samples.append(el / n)
    return statistics.median(samples)


def passes(out: dict) -> None:
    rows = []
    for size in [
        256 << 10,
        1 << 20,
        2 << 20,
        4 << 20,
        8 << 20,
        16 << 20,
        32 << 20,
        64 << 20,
        256 << 20,
        512 << 20,
    ]:
        for dtype in (np.float64, np.float32):
            n = size // np.dtype(dtype).itemsize
            side = int(n**0.5)
            a = np.random.default_rng(0).random(n).astype(dtype)
            b = a[::-1].copy()
            a2 = a[: side * side].reshape(side, side)
            nb = a.nbytes
            row = {"bytes": nb, "dtype": np.dtype(dtype).name}
            row["add_new"] = 3 * nb / best(lambda: a + b)
            row["mul_scalar"] = 2 * nb / best(lambda: a * 2.0)

            def iadd():
                np.add(a, b, out=a)

            row["add_inplace"] = 3 * nb / best(iadd)
            row["copy"] = 2 * nb / best(lambda: a.copy())
            row["roll"] = 2 * a2.nbytes / best(lambda: np.roll(a2, 1, 0))
            row["roll_axis1"] = 2 * a2.nbytes / best(lambda: np.roll(a2, 1, 1))
            row["slice_add"] = (
                3 * a2[1:-1, 1:-1].nbytes / best(lambda: a2[1:-1, 1:-1] + a2[2:, 1:-1])
            )
            row["sqrt"] = 2 * nb / best(lambda: np.sqrt(a))
            row["sum"] = nb / best(lambda: a.sum())
            rows.append(row)
            print(
                f"{nb / 2**20:8.2f} MiB {row['dtype']:8s} "
                + " ".join(f"{k} {row[k] / 1e9:6.1f}" for k in row if k not in ("bytes", "dtype"))
                + "  GB/s",
                flush=True,
            )
    out["passes"] = rows


def masks(out: dict) -> None:
    rows = []
    rng = np.random.default_rng(1)
    for n in [60_000, 1 << 20, 4 << 20, 16 << 20]:
        for density in (0.1, 0.5, 0.9):
            for dtype in (np.complex128, np.float64, np.float32):
                Z = rng.random(n).astype(dtype)
                m = rng.random(n) < density
                it = np.zeros(n, np.int32)
                v = Z[m].copy()
                sel = best(lambda: Z[m], repeats=5)

                def assign():
                    Z[m] = v

                asg = best(assign, repeats=5)

                def inc():
                    it[m] += 1

                inc_t = best(inc, repeats=5)
                mk = best(lambda: np.abs(Z) <= 0.5, repeats=5)
                row = {
                    "n": n,
                    "density": density,
                    "dtype": np.dtype(dtype).name,
                    "select_ns": sel / n * 1e9,
                    "assign_ns": asg / n * 1e9,
                    "increment_ns": inc_t / n * 1e9,
                    "make_mask_ns": mk / n * 1e9,
                }
                rows.append(row)
                print(
                    f"mask n={n:>9} d={density} {row['dtype']:10s}",
                    " ".join(f"{k} {row[k]:.2f}" for k in row if k.endswith("_ns")),
                    "ns/element",
                    flush=True,
                )
    out["masks"] = rows


def coherent_masks(out: dict) -> None:
    """Masks as cells make them (a threshold of a smooth field: long runs of one value), not
    independent draws: NumPy's per-element branch is then predicted."""
    rows = []
    for n in [60_000, 1 << 20, 4 << 20, 16 << 20]:
        side = int(n**0.5)
        yy, xx = np.mgrid[0:side, 0:side]
        field = np.sin(xx / 37.0) * np.cos(yy / 23.0)
        for density in (0.1, 0.5, 0.9):
            thr = np.quantile(field, 1 - density)
            m = field > thr
            Z = (field + 1j * field).astype(np.complex128)
            F = field.astype(np.float64)
            it = np.zeros(m.shape, np.int32)
            v = F[m].copy()
            row = {"n": m.size, "density": density}
            row["select_c128_ns"] = best(lambda: Z[m], repeats=5) / m.size * 1e9
            row["select_f64_ns"] = best(lambda: F[m], repeats=5) / m.size * 1e9

            def assign():
                F[m] = v

            def inc():
                it[m] += 1

            row["assign_f64_ns"] = best(assign, repeats=5) / m.size * 1e9
            row["increment_i32_ns"] = best(inc, repeats=5) / m.size * 1e9
            rows.append(row)
            print(
                f"coherent mask n={m.size:>9} d={density}",
                " ".join(f"{k} {row[k]:.2f}" for k in row if k.endswith("_ns")),
                flush=True,
            )
    out["coherent_masks"] = rows


def draws(out: dict) -> None:
    """NumPy Generator draws on the host, ns per value (20M values, float64 unless named)."""
    rng = np.random.default_rng(2)
    n = 20_000_000
    cases = {
        "random": lambda: rng.random(n),
        "random_f32": lambda: rng.random(n, dtype=np.float32),
        "standard_normal": lambda: rng.standard_normal(n),
        "standard_normal_f32": lambda: rng.standard_normal(n, dtype=np.float32),
        "normal": lambda: rng.normal(0.0, 2.0, n),
        "uniform": lambda: rng.uniform(-1.0, 1.0, n),
        "integers": lambda: rng.integers(0, 12, n),
        "exponential": lambda: rng.exponential(1.0, n),
        "legacy_randn": lambda: np.random.randn(n),
        "legacy_rand": lambda: np.random.rand(n),
    }
    res = {k: best(f, repeats=3, min_time=0.0) / n * 1e9 for k, f in cases.items()}
    out["draws_ns"] = res
    print("draws ns/value", {k: round(v, 2) for k, v in res.items()}, flush=True)


def device_mask(out: dict) -> None:
    """CuPy's boolean-mask selection and assignment per call (scan, count read back, kernel)."""
    try:
        import cupy as cp
    except ImportError:
        out["device_mask"] = "no cupy"
        return
    res = {}
    for n in [60_000, 1 << 20, 16 << 20]:
        x = cp.random.random(n)
        m = x > 0.5
        v = x[m]

        def sel():
            x[m]
            cp.cuda.Device().synchronize()

        def asg():
            x[m] = v
            cp.cuda.Device().synchronize()

        def add():
            (x + x)
            cp.cuda.Device().synchronize()

        res[n] = {
            "select_us": best(sel) * 1e6,
            "assign_us": best(asg) * 1e6,
            "add_us": best(add) * 1e6,
        }
    out["device_mask"] = res
    print("device mask", res, flush=True)


ORDER_CHILD = r"""
import time, json, sys
mods = sys.argv[1].split(",")
t0 = time.perf_counter()
import numpy as np
for m in mods:
    if m:
        __import__(m)
if "matplotlib" in mods:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot
t1 = time.perf_counter()
import cupy as cp
t2 = time.perf_counter()
x = cp.asarray(np.ones(1 << 16))
cp.cuda.Device().synchronize()
t3 = time.perf_counter()
print(json.dumps({"before": t1 - t0, "cupy": t2 - t1, "context_copy": t3 - t2}))
"""


def import_orders(out: dict) -> None:
    """`import cupy` after what notebooks import first (fresh processes, 3 each)."""
    res = {}
    for before in ["", "pandas", "matplotlib,pandas", "scipy.ndimage", "scipy.signal,pandas"]:
        rows = []
        for _ in range(3):
            r = subprocess.run(
                [sys.executable, "-c", ORDER_CHILD, before],
                capture_output=True,
                text=True,
                timeout=120,
            )
            if r.returncode == 0:
                rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
        res[before or "numpy"] = rows
        cupy_s = sorted(x["cupy"] for x in rows)
        ctx_s = sorted(x["context_copy"] for x in rows)
        print(f"import cupy after numpy,{before}: cupy {cupy_s} context+copy {ctx_s}", flush=True)
    out["import_orders"] = res


FIRST_CHILD = r"""
import time, json
import numpy as np
import cupy as cp
cp.zeros(1)
cp.cuda.Device().synchronize()
sync = cp.cuda.Device().synchronize
res = {}
def timed(key, f):
    t = time.perf_counter()
    r = f()
    sync()
    res[key] = time.perf_counter() - t
    return r
h32 = np.ones(4 << 20)
h32b = np.ones(4 << 20) * 2
h256 = np.ones(32 << 20)
h256b = np.ones(32 << 20) * 2
a = timed("copy_32MiB_first", lambda: cp.asarray(h32))
timed("copy_32MiB_second", lambda: cp.asarray(h32b))
b = timed("copy_256MiB_first", lambda: cp.asarray(h256))
timed("copy_256MiB_second", lambda: cp.asarray(h256b))
timed("add_first", lambda: a + a)
timed("add_second", lambda: a + a)
timed("mul_first", lambda: a * 3.0)
timed("sum_first", lambda: a.sum())
timed("sum_second", lambda: a.sum())
timed("sum_axis_first", lambda: b.reshape(4096, -1).sum(axis=1))
timed("sum_axis_second", lambda: b.reshape(4096, -1).sum(axis=1))
timed("asnumpy_32MiB_first", lambda: cp.asnumpy(a))
timed("asnumpy_32MiB_second", lambda: cp.asnumpy(a))
print(json.dumps(res))
"""


def first_device_use(out: dict) -> None:
    """A fresh process, CUDA context made: first and second copies, kernels, reductions."""
    rows = []
    for _ in range(3):
        r = subprocess.run(
            [sys.executable, "-c", FIRST_CHILD], capture_output=True, text=True, timeout=120
        )
        if r.returncode == 0:
            rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
        else:
            rows.append({"error": r.stderr[-300:]})
    out["first_device_use"] = rows
    for r in rows:
        print("first use ms", {k: round(v * 1e3, 2) for k, v in r.items() if isinstance(v, float)})


def kmeans_pieces(out: dict) -> None:
    """i_kmeans cell 5's steps on the host, ms each (n, d, k = 200000, 8, 12; float32)."""
    rng = np.random.default_rng(3)
    n, d, k = 200_000, 8, 12
    X = rng.standard_normal((n, d)).astype(np.float32)
    C = X[:k].copy()
    diff = X[:, None, :] - C[None, :, :]
    sq = diff**2
    d2 = sq.sum(axis=2)
    lab = np.argmin(d2, axis=1)
    flat_a = np.ones(n * k * d, np.float32)

    def add_at():
        sums = np.zeros_like(C)
        np.add.at(sums, lab, X)

    cases = {
        "broadcast_sub": lambda: X[:, None, :] - C[None, :, :],
        "flat_sub_same_elements": lambda: flat_a - 1.0,
        "square": lambda: diff**2,
        "sum_axis2": lambda: sq.sum(axis=2),
        "flat_sum_same_elements": lambda: flat_a.sum(),
        "argmin_axis1": lambda: np.argmin(d2, axis=1),
        "add_at": add_at,
        "bincount": lambda: np.bincount(lab, minlength=k),
        "gather_arange_lab": lambda: d2[np.arange(n), lab],
        "whole_iteration": lambda: np.argmin(
            ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2), axis=1
        ),
    }
    res = {key: best(f, repeats=5) * 1e3 for key, f in cases.items()}
    out["kmeans_ms"] = res
    print("i_kmeans pieces ms", {key: round(v, 2) for key, v in res.items()}, flush=True)


def tiny_calls(out: dict) -> None:
    """Per call on tiny matrices (l_kalman cell 9's loop body), NumPy on the host and CuPy on
    resident data with a sync after each call, microseconds: the per-call overhead a Python loop
    of small array calls pays on each side."""
    rng = np.random.default_rng(4)
    F = rng.random((4, 4))
    P = rng.random((4, 4))
    S = rng.random((2, 2)) + 2 * np.eye(2)
    x = rng.random(4)
    row = np.zeros((100, 4))

    def setrow():
        row[3] = x

    cases = {
        "matmul_4x4": lambda: F @ P,
        "matvec_4": lambda: F @ x,
        "chain_F_P_FT": lambda: F @ P @ F.T,
        "inv_2x2": lambda: np.linalg.inv(S),
        "eye_4": lambda: np.eye(4),
        "add_4x4": lambda: P + F,
        "r_": lambda: np.r_[x[:2], 0, 0],
        "setitem_row": setrow,
    }
    res = {"numpy_us": {k: best(f) * 1e6 for k, f in cases.items()}}
    try:
        import cupy as cp
    except ImportError:
        res["cupy_us"] = "no cupy"
    else:
        sync = cp.cuda.Device().synchronize
        Fd, Pd, Sd, xd = cp.asarray(F), cp.asarray(P), cp.asarray(S), cp.asarray(x)
        rowd = cp.zeros((100, 4))

        def setrowd():
            rowd[3] = xd

        dcases = {
            "matmul_4x4": lambda: Fd @ Pd,
            "matvec_4": lambda: Fd @ xd,
            "chain_F_P_FT": lambda: Fd @ Pd @ Fd.T,
            "inv_2x2": lambda: cp.linalg.inv(Sd),
            "eye_4": lambda: cp.eye(4),
            "add_4x4": lambda: Pd + Fd,
            "setitem_row": setrowd,
            "scalar_readback": lambda: float(xd[0]),
        }
        d = {}
        for k, f in dcases.items():

            def call(f=f):
                f()
                sync()

            d[k] = best(call) * 1e6
        res["cupy_us"] = d
    out["tiny_calls"] = res
    print("tiny calls us", json.dumps(res), flush=True)


def cupy_calls(out: dict) -> None:
    """Per call on resident data: CuPy's einsum, batched solve and inv (l_kalman cell 5)."""
    try:
        import cupy as cp
    except ImportError:
        out["cupy_calls"] = "no cupy"
        return
    sync = cp.cuda.Device().synchronize
    n = 20_000
    rng = cp.random.default_rng(0)
    F = rng.random((4, 4))
    H = rng.random((2, 4))
    P = rng.random((n, 4, 4))
    S = rng.random((n, 2, 2)) + 2 * cp.eye(2)
    B = rng.random((n, 2, 4))
    y = rng.random((n, 2))
    x = rng.random((n, 4))
    cases = {
        "einsum_ij_njk_lk": lambda: cp.einsum("ij,njk,lk->nil", F, P, F),
        "einsum_nij_kj": lambda: cp.einsum("nij,kj->nik", P, H),
        "einsum_nij_nj": lambda: cp.einsum("nij,nj->ni", P, x),
        "einsum_ni_nij_nj": lambda: cp.einsum("ni,nij,nj->n", y, S, y),
        "solve_batched_2x2": lambda: cp.linalg.solve(S, B),
        "inv_batched_2x2": lambda: cp.linalg.inv(S),
        "matmul_small": lambda: x @ F.T,
        "add": lambda: x + x,
        "transpose_copy": lambda: B.transpose(0, 2, 1).copy(),
    }
    res = {}
    for k, f in cases.items():

        def call():
            f()
            sync()

        res[k] = best(call) * 1e6
    out["cupy_calls_us"] = res
    print("cupy calls us", {k: round(v, 1) for k, v in res.items()}, flush=True)


def c_heat(out: dict) -> None:
    NX = NY = 512
    steps, alpha = 200, 0.2
    u = np.zeros((NY, NX), dtype=np.float64)
    u[NY // 4 : 3 * NY // 4, NX // 4 : 3 * NX // 4] = 100.0
    u0 = u.copy()
    res = {}
    for _rep in range(3):
        uu = u0.copy()
        t = time.perf_counter()
        for _step in range(steps):
            un = uu.copy()
            uu[1:-1, 1:-1] = un[1:-1, 1:-1] + alpha * (
                un[2:, 1:-1] + un[:-2, 1:-1] + un[1:-1, 2:] + un[1:-1, :-2] - 4 * un[1:-1, 1:-1]
            )
            uu[0, :] = uu[-1, :] = uu[:, 0] = uu[:, -1] = 0.0
        res.setdefault("cell4", []).append(time.perf_counter() - t)
        v = u0.copy()
        t = time.perf_counter()
        for _ in range(steps):
            lap = (
                np.roll(v, 1, 0) + np.roll(v, -1, 0) + np.roll(v, 1, 1) + np.roll(v, -1, 1) - 4 * v
            )
            v = v + alpha * lap
        res.setdefault("cell7", []).append(time.perf_counter() - t)
        W, H, maxit = 300, 200, 50
        xs = np.linspace(-2.0, 1.0, W)
        ys = np.linspace(-1.0, 1.0, H)
        t = time.perf_counter()
        C = xs[None, :] + 1j * ys[:, None]
        Z = np.zeros_like(C)
        it = np.zeros(C.shape, dtype=np.int32)
        for _k in range(maxit):
            m = np.abs(Z) <= 2
            Z[m] = Z[m] ** 2 + C[m]
            it[m] += 1
        res.setdefault("cell10", []).append(time.perf_counter() - t)
    out["c_heat"] = res
    print("c_heat cells", {k: [round(x, 4) for x in v] for k, v in res.items()}, flush=True)


IMPORT_CHILD = r"""
import time, json
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import cupy as cp
t2 = time.perf_counter()
cp.cuda.runtime.getDeviceCount()
x = cp.empty(1 << 20, dtype=cp.float64)
cp.cuda.Device().synchronize()
t3 = time.perf_counter()
y = x + x
cp.cuda.Device().synchronize()
t4 = time.perf_counter()
h = np.ones((512, 512))
d = cp.asarray(h)
cp.cuda.Device().synchronize()
t5 = time.perf_counter()
print(json.dumps({"numpy": t1 - t0, "cupy": t2 - t1, "context": t3 - t2,
                  "first_launch": t4 - t3, "first_copy": t5 - t4}))
"""


def imports(out: dict) -> None:
    rows = []
    for _ in range(4):
        r = subprocess.run(
            [sys.executable, "-c", IMPORT_CHILD], capture_output=True, text=True, timeout=120
        )
        if r.returncode == 0:
            rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
        else:
            rows.append({"error": r.stderr[-400:]})
    out["imports"] = rows
    for r in rows:
        print(
            "import",
            {k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()},
            flush=True,
        )


def m_pic12(out: dict) -> None:
    try:
        import cupy as cp
    except ImportError:
        out["m_pic12"] = "no cupy"
        return
    sync = cp.cuda.Device().synchronize
    rng = np.random.default_rng(5)
    n_p, n_t = 5000, 2000
    D, dt_b = 0.5, 0.01
    lags = np.unique(np.logspace(0, np.log10(n_t // 2), 30).astype(int))
    res: dict = {}
    for _rep in range(3):
        t = time.perf_counter()
        h = rng.standard_normal((n_p, n_t, 2))
        t1 = time.perf_counter()
        g = cp.asarray(h)
        sync()
        t2 = time.perf_counter()
        s = np.sqrt(2 * D * dt_b) * g
        traj = cp.cumsum(s, axis=1)
        sync()
        t3 = time.perf_counter()
        msd = cp.array(
            [cp.mean(cp.sum((traj[:, lag:] - traj[:, :-lag]) ** 2, axis=2)) for lag in lags]
        )
        sync()
        t4 = time.perf_counter()
        cp.asnumpy(msd)
        t5 = time.perf_counter()
        hs = h * np.sqrt(2 * D * dt_b)
        t6 = time.perf_counter()
        np.cumsum(hs, axis=1)
        t7 = time.perf_counter()
        for k, v in {
            "host_draw": t1 - t,
            "copy_in": t2 - t1,
            "scale_cumsum": t3 - t2,
            "lags": t4 - t3,
            "copy_back": t5 - t4,
            "host_scale": t6 - t5,
            "host_cumsum": t7 - t6,
        }.items():
            res.setdefault(k, []).append(v)
        del g, s, traj
    out["m_pic12"] = res
    print("m_pic 12", {k: [round(x, 4) for x in v] for k, v in res.items()}, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--parts", default="imports,c_heat,masks,passes,m_pic12")
    args = ap.parse_args()
    out: dict = {"numpy": np.__version__, "cpus": os.cpu_count()}
    try:
        out["lscpu"] = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        print(
            "\n".join(
                line
                for line in out["lscpu"].splitlines()
                if any(w in line for w in ("Model name", "cache", "Thread", "Socket", "MHz"))
            ),
            flush=True,
        )
    except OSError:
        pass
    parts = {
        "imports": imports,
        "c_heat": c_heat,
        "masks": masks,
        "passes": passes,
        "m_pic12": m_pic12,
        "coherent_masks": coherent_masks,
        "draws": draws,
        "device_mask": device_mask,
        "import_orders": import_orders,
        "cupy_calls": cupy_calls,
        "first_device_use": first_device_use,
        "kmeans_pieces": kmeans_pieces,
        "tiny_calls": tiny_calls,
    }
    for name in args.parts.split(","):
        t = time.perf_counter()
        parts[name](out)
        print(f"[{name}: {time.perf_counter() - t:.1f} s]", flush=True)
        Path(args.out).mkdir(parents=True, exist_ok=True)
        Path(args.out, "host_probe.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
