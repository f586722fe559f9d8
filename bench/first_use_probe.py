"""What CuPy costs the first time, per machine and per process: the figures the cost model
charges for a notebook's first run and for every later session.

A rewritten notebook pays, beyond the steady per-call times the A/B harness measures:

- once per machine (CuPy's on-disk kernel cache, CUPY_CACHE_DIR, empty): an NVRTC compile of
  every kernel at its first use: each built-in elementwise/reduction kernel per dtype, each
  cupyx.scipy function's kernels (specialised by filter size, mode, dtype), each kernel the
  rewrite defines;
- once per process (every kernel restart, the cache filled): `import cupy` and the cupyx
  submodules, the CUDA context, library handles (cuBLAS, cuSOLVER, cuFFT plans, cuRAND), and
  a module load of every kernel at its first call.

This measures both. For every case (one call on small inputs, so the steady time is small
next to what the first call adds) it times the first call, then the same call twice more, in
three fresh processes: `cold` with an empty CUPY_CACHE_DIR (the compiles), then `warm1` and
`warm2` with the cache `cold` filled (per-process costs). Cases run in a fixed order in one
process per phase, so a kernel two cases share is charged to the first: the order is
built-in operations first, then libraries, then cupyx functions, as a notebook meets them.
Imports are timed separately, each in fresh processes (`imports`).

    python3 bench/first_use_probe.py --out DIR        (on the GPU machine)

Writes DIR/probe.json (every figure) and DIR/table.txt (also printed): per case, cold first
call minus steady (compile + load), warm first minus steady (load), steady.
"""

# ruff: noqa: E501  (the case table is code in strings, one case per line)
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IMPORTS = {
    "numpy": "import numpy",
    "scipy.ndimage": "import numpy, scipy.ndimage",
    "cupy": "import numpy, cupy",
    "cupy+context": "import numpy, cupy; cupy.zeros(1); cupy.cuda.Device().synchronize()",
    "cupyx.scipy.ndimage": "import numpy, cupy, cupyx.scipy.ndimage",
    "cupyx.scipy.signal": "import numpy, cupy, cupyx.scipy.signal",
    "cupyx.scipy.special": "import numpy, cupy, cupyx.scipy.special",
    "cupyx.scipy.fft": "import numpy, cupy, cupyx.scipy.fft",
    "cupyx.scipy.sparse": "import numpy, cupy, cupyx.scipy.sparse, cupyx.scipy.sparse.linalg",
    "cupyx.scipy.linalg": "import numpy, cupy, cupyx.scipy.linalg",
    "cupyx.scipy.stats": "import numpy, cupy, cupyx.scipy.stats",
    "cupyx.scipy.interpolate": "import numpy, cupy, cupyx.scipy.interpolate",
}

# (name, group, setup, call): setup runs untimed before the call; `cp`, `np`, `nd`, `sg`, `sp`,
# `ss` are bound in the child. Inputs are small: the first call's extra is what is measured.
SETUP_IMG = "img = cp.asarray(np.random.default_rng(0).random((512, 512), dtype=np.float32))"
SETUP_VEC = "vec = cp.asarray(np.random.default_rng(1).random(1 << 16))"
SETUP_MASK = "mask = img > 0.6"
SETUP_SOS = "import scipy.signal as ssig; sos = cp.asarray(ssig.butter(4, [0.05, 0.2], btype='bandpass', output='sos'))"
CASES: list[tuple[str, str, str, str]] = [
    ("context: first array", "context", "", "cp.zeros(1)"),
    ("asarray 1 MiB", "copy", "a = np.ones((512, 512), np.float32)", "cp.asarray(a)"),
    ("asnumpy 1 MiB", "copy", SETUP_IMG, "cp.asnumpy(img)"),
    ("img + img (f32)", "elementwise", SETUP_IMG, "img + img"),
    ("img * 2.0 (f32)", "elementwise", SETUP_IMG, "img * 2.0"),
    ("img - img (f32)", "elementwise", SETUP_IMG, "img - img"),
    ("img / 3.0 (f32)", "elementwise", SETUP_IMG, "img / 3.0"),
    ("img ** 2 (f32)", "elementwise", SETUP_IMG, "img ** 2"),
    ("cp.exp (f32)", "elementwise", SETUP_IMG, "cp.exp(img)"),
    ("cp.exp (f64)", "elementwise", SETUP_VEC, "cp.exp(vec)"),
    ("cp.sqrt (f64)", "elementwise", SETUP_VEC, "cp.sqrt(vec)"),
    ("cp.sin (f64)", "elementwise", SETUP_VEC, "cp.sin(vec)"),
    ("cp.abs (f32)", "elementwise", SETUP_IMG, "cp.abs(img)"),
    ("img > 0.5", "elementwise", SETUP_IMG, "img > 0.5"),
    ("cp.where", "elementwise", SETUP_IMG, "cp.where(img > 0.5, img, 0.0)"),
    ("cp.clip", "elementwise", SETUP_IMG, "cp.clip(img, 0.2, 0.8)"),
    ("astype f64", "elementwise", SETUP_IMG, "img.astype(cp.float64)"),
    ("sum (f32, all)", "reduction", SETUP_IMG, "img.sum()"),
    ("sum axis=0 (f32)", "reduction", SETUP_IMG, "img.sum(axis=0)"),
    ("mean (f32)", "reduction", SETUP_IMG, "img.mean()"),
    ("std (f32)", "reduction", SETUP_IMG, "img.std()"),
    ("max (f32)", "reduction", SETUP_IMG, "img.max()"),
    ("argmax (f32)", "reduction", SETUP_IMG, "img.argmax()"),
    ("sum (f64)", "reduction", SETUP_VEC, "vec.sum()"),
    ("count bool sum", "reduction", SETUP_IMG + "; " + SETUP_MASK, "mask.sum()"),
    ("float(x.sum()) (sync + item)", "reduction", SETUP_IMG, "float(img.sum())"),
    ("cumsum (f64)", "scan", SETUP_VEC, "cp.cumsum(vec)"),
    ("sort (f64)", "sort", SETUP_VEC, "cp.sort(vec)"),
    ("argsort (f64)", "sort", SETUP_VEC, "cp.argsort(vec)"),
    ("unique (int)", "sort", "iv = cp.arange(1 << 16) % 97", "cp.unique(iv)"),
    ("percentile (f64)", "sort", SETUP_VEC, "cp.percentile(vec, 95)"),
    ("median (f64)", "sort", SETUP_VEC, "cp.median(vec)"),
    ("bincount", "histogram", "iv = cp.arange(1 << 16) % 97", "cp.bincount(iv)"),
    ("histogram", "histogram", SETUP_VEC, "cp.histogram(vec, bins=64)"),
    ("boolean mask index", "indexing", SETUP_IMG + "; " + SETUP_MASK, "img[mask]"),
    ("fancy index take", "indexing", SETUP_VEC + "; idx = cp.arange(0, 1 << 16, 7)", "vec[idx]"),
    ("cp.roll", "indexing", SETUP_IMG, "cp.roll(img, 1, axis=0)"),
    ("concatenate", "indexing", SETUP_IMG, "cp.concatenate([img, img])"),
    ("matmul f32 (cuBLAS)", "blas", SETUP_IMG, "img @ img"),
    ("matmul f64", "blas", "m = cp.asarray(np.random.default_rng(2).random((256, 256)))", "m @ m"),
    (
        "einsum 3 operands",
        "blas",
        "F = cp.eye(4); P = cp.ones((20000, 4, 4))",
        "cp.einsum('ij,njk,lk->nil', F, P, F)",
    ),
    (
        "linalg.solve (cuSOLVER)",
        "solver",
        "m = cp.asarray(np.random.default_rng(2).random((256, 256))) + 256 * cp.eye(256); b = cp.ones(256)",
        "cp.linalg.solve(m, b)",
    ),
    (
        "linalg.solve batched 20000x4x4",
        "solver",
        "S = cp.tile(cp.eye(4) * 3, (20000, 1, 1)); B = cp.ones((20000, 4, 2))",
        "cp.linalg.solve(S, B)",
    ),
    (
        "linalg.inv batched 20000x2x2",
        "solver",
        "S = cp.tile(cp.eye(2) * 3, (20000, 1, 1))",
        "cp.linalg.inv(S)",
    ),
    (
        "linalg.eigh",
        "solver",
        "m = cp.asarray(np.random.default_rng(2).random((256, 256))); m = m + m.T",
        "cp.linalg.eigh(m)",
    ),
    (
        "linalg.svd",
        "solver",
        "m = cp.asarray(np.random.default_rng(2).random((256, 128)))",
        "cp.linalg.svd(m, full_matrices=False)",
    ),
    ("fft.fft (cuFFT plan)", "fft", SETUP_VEC, "cp.fft.fft(vec)"),
    ("fft.rfft", "fft", SETUP_VEC, "cp.fft.rfft(vec)"),
    ("fft.fft2 (f32)", "fft", SETUP_IMG, "cp.fft.fft2(img)"),
    ("fft.ifft2 (c64)", "fft", SETUP_IMG + "; F2 = cp.fft.fft2(img)", "cp.fft.ifft2(F2)"),
    ("random default_rng()", "random", "", "cp.random.default_rng(0)"),
    ("rng.random 1M", "random", "g = cp.random.default_rng(0)", "g.random(1 << 20)"),
    (
        "rng.standard_normal 1M",
        "random",
        "g = cp.random.default_rng(0)",
        "g.standard_normal(1 << 20)",
    ),
    ("cp.random.rand (legacy)", "random", "", "cp.random.rand(1 << 20)"),
    (
        "ElementwiseKernel 5-op chain",
        "generated",
        "k = cp.ElementwiseKernel('float32 x, float32 y', 'float32 z', 'z = sqrtf(x * x + y * y) * expf(-x) + 1.0f', 'probe_chain', options=('--fmad=false',))"
        + "; "
        + SETUP_IMG,
        "k(img, img)",
    ),
    (
        "ReductionKernel",
        "generated",
        "k = cp.ReductionKernel('float32 x', 'float32 y', 'x * x', 'a + b', 'y = sqrtf(a)', '0', 'probe_norm')"
        + "; "
        + SETUP_IMG,
        "k(img)",
    ),
    (
        "RawKernel stencil",
        "generated",
        "src = r'''extern \"C\" __global__ void probe_st(const float* a, float* b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; int j = blockIdx.y; if (i > 0 && i < n - 1 && j > 0 && j < n - 1) b[j * n + i] = 0.25f * (a[j * n + i - 1] + a[j * n + i + 1] + a[(j - 1) * n + i] + a[(j + 1) * n + i]); }'''; k = cp.RawKernel(src, 'probe_st', options=('--fmad=false',)); "
        + SETUP_IMG
        + "; out = cp.zeros_like(img)",
        "k(((512 + 127) // 128, 512), (128,), (img, out, cp.int32(512)))",
    ),
    # (a lambda cannot be fused: its name '<lambda>' is not a C identifier, CompileException)
    (
        "cp.fuse 4-op",
        "generated",
        "def probe_fused(x, y):\n    return cp.sqrt(x * x + y * y) - 1.0\nf = cp.fuse(probe_fused)\n"
        + SETUP_IMG,
        "f(img, img)",
    ),
    ("nd.gaussian_filter sigma=2", "ndimage", SETUP_IMG, "nd.gaussian_filter(img, 2)"),
    ("nd.gaussian_filter sigma=3", "ndimage", SETUP_IMG, "nd.gaussian_filter(img, 3)"),
    ("nd.uniform_filter 3", "ndimage", SETUP_IMG, "nd.uniform_filter(img, 3)"),
    ("nd.uniform_filter 5", "ndimage", SETUP_IMG, "nd.uniform_filter(img, 5)"),
    ("nd.median_filter 3", "ndimage", SETUP_IMG, "nd.median_filter(img, 3)"),
    ("nd.median_filter 5", "ndimage", SETUP_IMG, "nd.median_filter(img, 5)"),
    ("nd.maximum_filter 3", "ndimage", SETUP_IMG, "nd.maximum_filter(img, 3)"),
    ("nd.minimum_filter 3", "ndimage", SETUP_IMG, "nd.minimum_filter(img, 3)"),
    ("nd.sobel", "ndimage", SETUP_IMG, "nd.sobel(img, axis=0)"),
    ("nd.laplace", "ndimage", SETUP_IMG, "nd.laplace(img)"),
    ("nd.gaussian_laplace", "ndimage", SETUP_IMG, "nd.gaussian_laplace(img, 2)"),
    (
        "nd.convolve 3x3",
        "ndimage",
        SETUP_IMG + "; w = cp.ones((3, 3), cp.float32) / 9",
        "nd.convolve(img, w)",
    ),
    (
        "nd.correlate 3x3",
        "ndimage",
        SETUP_IMG + "; w = cp.ones((3, 3), cp.float32) / 9",
        "nd.correlate(img, w)",
    ),
    ("nd.gaussian_filter1d", "ndimage", SETUP_VEC, "nd.gaussian_filter1d(vec, 4)"),
    ("nd.uniform_filter1d", "ndimage", SETUP_VEC, "nd.uniform_filter1d(vec, 9)"),
    ("nd.label", "ndimage", SETUP_IMG + "; " + SETUP_MASK, "nd.label(mask)"),
    (
        "nd.sum_labels",
        "ndimage",
        SETUP_IMG + "; " + SETUP_MASK + "; lab, n = nd.label(mask)",
        "nd.sum_labels(img, lab, cp.arange(1, n + 1))",
    ),
    (
        "nd.mean labels",
        "ndimage",
        SETUP_IMG + "; " + SETUP_MASK + "; lab, n = nd.label(mask)",
        "nd.mean(img, lab, cp.arange(1, n + 1))",
    ),
    ("nd.center_of_mass", "ndimage", SETUP_IMG, "nd.center_of_mass(img)"),
    ("nd.binary_erosion", "ndimage", SETUP_IMG + "; " + SETUP_MASK, "nd.binary_erosion(mask)"),
    ("nd.binary_dilation", "ndimage", SETUP_IMG + "; " + SETUP_MASK, "nd.binary_dilation(mask)"),
    ("nd.binary_opening", "ndimage", SETUP_IMG + "; " + SETUP_MASK, "nd.binary_opening(mask)"),
    (
        "nd.binary_fill_holes",
        "ndimage",
        SETUP_IMG + "; " + SETUP_MASK,
        "nd.binary_fill_holes(mask)",
    ),
    (
        "nd.distance_transform_edt",
        "ndimage",
        SETUP_IMG + "; " + SETUP_MASK,
        "nd.distance_transform_edt(mask)",
    ),
    ("nd.grey_erosion 3", "ndimage", SETUP_IMG, "nd.grey_erosion(img, size=3)"),
    ("nd.zoom 0.5", "ndimage", SETUP_IMG, "nd.zoom(img, 0.5)"),
    ("nd.rotate 30", "ndimage", SETUP_IMG, "nd.rotate(img, 30, reshape=False)"),
    ("nd.shift", "ndimage", SETUP_IMG, "nd.shift(img, (1.5, 2.5))"),
    (
        "nd.map_coordinates",
        "ndimage",
        SETUP_IMG
        + "; c = cp.stack(cp.meshgrid(cp.arange(512.0) * 0.9, cp.arange(512.0) * 0.9, indexing='ij'))",
        "nd.map_coordinates(img, c, order=1)",
    ),
    ("nd.affine_transform", "ndimage", SETUP_IMG, "nd.affine_transform(img, cp.eye(2) * 0.9)"),
    ("sg.sosfilt", "signal", SETUP_VEC + "; " + SETUP_SOS, "sg.sosfilt(sos, vec)"),
    ("sg.sosfiltfilt", "signal", SETUP_VEC + "; " + SETUP_SOS, "sg.sosfiltfilt(sos, vec)"),
    (
        "sg.fftconvolve",
        "signal",
        SETUP_VEC + "; h = cp.ones(129) / 129",
        "sg.fftconvolve(vec, h, mode='same')",
    ),
    (
        "sg.convolve",
        "signal",
        SETUP_VEC + "; h = cp.ones(129) / 129",
        "sg.convolve(vec, h, mode='same')",
    ),
    (
        "sg.correlate",
        "signal",
        SETUP_VEC + "; h = cp.ones(129) / 129",
        "sg.correlate(vec, h, mode='same')",
    ),
    (
        "sg.convolve2d",
        "signal",
        SETUP_IMG + "; w = cp.ones((5, 5), cp.float32) / 25",
        "sg.convolve2d(img, w, mode='same')",
    ),
    ("sg.welch", "signal", SETUP_VEC, "sg.welch(vec, fs=1000.0, nperseg=1024)"),
    ("sg.periodogram", "signal", SETUP_VEC, "sg.periodogram(vec, fs=1000.0)"),
    ("sg.spectrogram", "signal", SETUP_VEC, "sg.spectrogram(vec, fs=1000.0, nperseg=256)"),
    ("sg.stft", "signal", SETUP_VEC, "sg.stft(vec, fs=1000.0, nperseg=256)"),
    ("sg.hilbert", "signal", SETUP_VEC, "sg.hilbert(vec)"),
    ("sg.find_peaks", "signal", SETUP_VEC, "sg.find_peaks(vec, height=0.9)"),
    ("sg.savgol_filter", "signal", SETUP_VEC, "sg.savgol_filter(vec, 31, 3)"),
    ("sg.medfilt", "signal", SETUP_VEC, "sg.medfilt(vec, 5)"),
    ("sg.detrend", "signal", SETUP_VEC, "sg.detrend(vec)"),
    ("sg.resample_poly", "signal", SETUP_VEC, "sg.resample_poly(vec, 2, 3)"),
    ("sg.decimate", "signal", SETUP_VEC, "sg.decimate(vec, 4)"),
    ("sp.erf", "special", SETUP_VEC, "sp.erf(vec)"),
    ("sp.gammaln", "special", SETUP_VEC, "sp.gammaln(vec + 1)"),
    ("sp.ndtr", "special", SETUP_VEC, "sp.ndtr(vec)"),
    ("sp.ndtri", "special", SETUP_VEC, "sp.ndtri(vec * 0.98 + 0.01)"),
    ("sp.expit", "special", SETUP_VEC, "sp.expit(vec)"),
    ("sp.logsumexp", "special", SETUP_VEC, "sp.logsumexp(vec)"),
    ("sp.softmax", "special", SETUP_VEC, "sp.softmax(vec)"),
    ("sp.j0", "special", SETUP_VEC, "sp.j0(vec)"),
    (
        "sparse csr from scipy",
        "sparse",
        "import scipy.sparse as hsp; A = hsp.random(4096, 4096, density=0.001, format='csr', random_state=0)",
        "ss.csr_matrix(A)",
    ),
    (
        "sparse csr @ vec",
        "sparse",
        "import scipy.sparse as hsp; A = ss.csr_matrix(hsp.random(4096, 4096, density=0.001, format='csr', random_state=0)); x = cp.ones(4096)",
        "A @ x",
    ),
]


def child(phase: str, out: Path) -> None:
    """Runs every case in this process, appending one JSON line per case to `out`."""
    t0 = time.perf_counter()
    import numpy as np

    t_np = time.perf_counter()
    import cupy as cp

    t_cp = time.perf_counter()
    import cupyx.scipy.ndimage as nd
    import cupyx.scipy.signal as sg
    import cupyx.scipy.sparse as ss
    import cupyx.scipy.special as sp

    t_x = time.perf_counter()
    sync = cp.cuda.Device().synchronize
    with out.open("a") as f:
        f.write(
            json.dumps(
                {
                    "phase": phase,
                    "imports": {"numpy": t_np - t0, "cupy": t_cp - t_np, "cupyx4": t_x - t_cp},
                }
            )
            + "\n"
        )
        for name, group, setup, call in CASES:
            env = {"np": np, "cp": cp, "nd": nd, "sg": sg, "ss": ss, "sp": sp}
            rec: dict = {"phase": phase, "case": name, "group": group}
            try:
                if setup:
                    exec(setup, env)
                sync()
                code = compile(call, "<case>", "eval")
                times = []
                for _ in range(3):
                    t = time.perf_counter()
                    eval(code, env)
                    sync()
                    times.append(time.perf_counter() - t)
                rec.update(first=times[0], second=times[1], third=times[2])
            except Exception as e:  # a case CuPy refuses is a finding, not a stop
                rec["error"] = (
                    f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
                )
            f.write(json.dumps(rec) + "\n")
            f.flush()


def time_imports(repeats: int) -> dict[str, dict[str, float]]:
    """Each import statement in fresh processes: median and min seconds."""
    result = {}
    for name, stmt in IMPORTS.items():
        code = f"import time; t = time.perf_counter(); {stmt}; print(time.perf_counter() - t)"
        runs = []
        for _ in range(repeats):
            p = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
            )
            if p.returncode == 0:
                runs.append(float(p.stdout.strip().splitlines()[-1]))
        result[name] = (
            {"median": statistics.median(runs), "min": min(runs), "n": len(runs)}
            if runs
            else {"error": p.stderr[-300:]}
        )
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--lines", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--import-repeats", type=int, default=3)
    ap.add_argument(
        "--budget-s", type=float, default=540, help="the call's time (warm2 is skipped past 60%%)"
    )
    a = ap.parse_args()
    if a.child:
        child(a.child, a.lines)
        return
    a.out.mkdir(parents=True, exist_ok=True)
    lines = a.out / "cases.jsonl"
    lines.unlink(missing_ok=True)
    cache = Path(tempfile.mkdtemp(prefix="cupy-cache-"))
    env = dict(os.environ, CUPY_CACHE_DIR=str(cache))
    wall = {}
    start = time.perf_counter()
    for phase in ("cold", "warm1", "warm2"):
        if phase == "warm2" and time.perf_counter() - start > a.budget_s * 0.6:
            print("warm2 skipped: over 60% of --budget-s spent")
            continue
        t = time.perf_counter()
        p = subprocess.run(
            [
                sys.executable,
                __file__,
                "--out",
                str(a.out),
                "--child",
                phase,
                "--lines",
                str(lines),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=480,
        )
        wall[phase] = time.perf_counter() - t
        if p.returncode != 0:
            print(f"{phase}: exit {p.returncode}\n{p.stderr[-2000:]}")
    repeats = a.import_repeats if time.perf_counter() - start < a.budget_s * 0.75 else 1
    imports = time_imports(repeats)

    recs = [json.loads(x) for x in lines.read_text().splitlines()]
    by: dict[str, dict[str, dict]] = {}
    for r in recs:
        if "case" in r:
            by.setdefault(r["case"], {"group": r["group"]})[r["phase"]] = r
    import cupy

    meta = {
        "python": sys.version.split()[0],
        "cupy": cupy.__version__,
        "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "phase_wall_s": wall,
    }
    (a.out / "probe.json").write_text(
        json.dumps(
            {
                "meta": meta,
                "imports": imports,
                "child_imports": [r for r in recs if "imports" in r],
                "cases": by,
            },
            indent=1,
        )
    )

    def ms(x: float | None) -> str:
        return "-" if x is None else f"{x * 1e3:9.1f}"

    rows = [
        f"{'case':34} {'group':11} {'cold 1st-steady':>15} {'warm 1st-steady':>15} {'warm2 1st-st':>12} {'steady ms':>10}"
    ]
    for name, _, _, _ in CASES:
        d = by.get(name, {})
        c, w1, w2 = d.get("cold", {}), d.get("warm1", {}), d.get("warm2", {})
        err = c.get("error") or w1.get("error")
        if err:
            rows.append(f"{name:34} {d.get('group', ''):11} error: {err}")
            continue
        steady = (
            min(x for x in (c.get("third"), w1.get("third"), w2.get("third")) if x is not None)
            if c
            else None
        )
        extra = lambda r: None if "first" not in r else r["first"] - min(r["second"], r["third"])  # noqa: E731
        rows.append(
            f"{name:34} {d.get('group', ''):11} {ms(extra(c)):>15} {ms(extra(w1)):>15} {ms(extra(w2)):>12} {ms(steady):>10}"
        )
    rows.append("")
    rows.append(
        f"imports (fresh process, seconds, median of {repeats}): "
        + ", ".join(f"{k} {v.get('median', float('nan')):.3f}" for k, v in imports.items())
    )
    rows.append("phase wall (s): " + ", ".join(f"{k} {v:.1f}" for k, v in wall.items()))
    rows.append(json.dumps(meta))
    text = "\n".join(rows)
    (a.out / "table.txt").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
