"""Two per-session costs the cost model charges from indirect evidence, measured directly.

1. `import cupyx.scipy.S` in a process that has already imported `scipy.S`, CuPy, and made
   and reduced a first device array (the CUDA context is up): what a rewritten notebook's
   import cell adds for each cupyx submodule, beyond what first-use.ts charges for CuPy itself.
2. `cupyx.scipy.signal.find_peaks` on the notebooks' inputs (b_signal: 2,000,000 samples with
   height and distance; h_spectro: 2,048 with prominence): its first call in a fresh process
   (kernel cache filled by an earlier process) and its steady calls, against SciPy's.

Each figure is the median of fresh processes (`--repeats`), after one untimed process that
fills CuPy's kernel cache.

    python3 bench/submodule_probe.py --out DIR        (on the GPU machine)

Writes DIR/submodule_probe.json and prints a table.
"""

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

SUBMODULES = ["ndimage", "signal", "fft", "special", "linalg", "stats", "interpolate", "sparse"]

IMPORT_CHILD = """
import time, numpy as np, scipy.{s}
import cupy as cp
x = cp.arange(1 << 20, dtype=cp.float32); float(x.sum()); cp.cuda.Device().synchronize()
t = time.perf_counter()
import cupyx.scipy.{s}
print(time.perf_counter() - t)
"""

PEAKS_CHILD = """
import time, numpy as np, scipy.signal as ssig
import cupy as cp
import cupyx.scipy.signal as csig
def envelope():
    # b_signal's cells 2-8 as written: the band-passed signal's Hilbert envelope, smoothed
    n, fs = 2_000_000, 10_000.0
    rng = np.random.default_rng(7)
    t = np.arange(n) / fs
    x = (np.sin(2 * np.pi * 50 * t) + 0.5 * np.sin(2 * np.pi * 1200 * t + 0.3)
         + 0.2 * rng.standard_normal(n))
    b, a = ssig.butter(4, [30, 2000], btype="bandpass", fs=fs)
    filt = ssig.filtfilt(b, a, x)
    env = np.abs(ssig.hilbert(filt[:200_000]))
    win = ssig.get_window("hann", 101)
    return np.convolve(env, win / win.sum(), mode="same")
def spectrum():
    rng = np.random.default_rng(3)
    k = np.arange(2048)
    lines = sum(np.exp(-0.5 * ((k - c) / 4.0) ** 2) for c in (300, 700, 1100, 1500))
    return 0.02 * lines + 0.001 * rng.standard_normal(2048)
cases = {{
    "b_signal (2e5, height+distance)": (envelope, dict(height=0.5, distance=50)),
    "b_signal (2e5, height only)": (envelope, dict(height=0.5)),
    "h_spectro (2048, prominence)": (spectrum, dict(prominence=0.005)),
}}
name = {name!r}
make, kw = cases[name]
h = make()
d = cp.asarray(h); cp.cuda.Device().synchronize()
times = []
for i in range(4):
    t = time.perf_counter()
    p, props = csig.find_peaks(d, **kw)
    cp.cuda.Device().synchronize()
    times.append(time.perf_counter() - t)
cpu = []
for i in range(3):
    t = time.perf_counter()
    ph, _ = ssig.find_peaks(h, **kw)
    cpu.append(time.perf_counter() - t)
print(times[0], min(times[1:]), min(cpu), int(p.size), int(ph.size))
"""


def child(code: str, env: dict) -> list[float] | str:
    try:
        p = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=90
        )
    except subprocess.TimeoutExpired:
        return "over 90 s"
    if p.returncode != 0:
        return p.stderr[-600:]
    return [float(v) for v in p.stdout.split()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CUPY_CACHE_DIR=tempfile.mkdtemp(prefix="cupy-cache-"))
    result: dict = {"imports": {}, "find_peaks": {}}
    for s in SUBMODULES:
        code = IMPORT_CHILD.format(s=s)
        child(code, env)  # fills the kernel cache
        runs = [child(code, env) for _ in range(a.repeats)]
        ok = [r[0] for r in runs if isinstance(r, list)]
        result["imports"][s] = (
            {"median_s": statistics.median(ok), "runs": ok} if ok else {"error": runs[0]}
        )
    for name in (
        "b_signal (2e5, height+distance)",
        "b_signal (2e5, height only)",
        "h_spectro (2048, prominence)",
    ):
        code = PEAKS_CHILD.format(name=name)
        child(code, env)
        runs = [child(code, env) for _ in range(a.repeats)]
        ok = [r for r in runs if isinstance(r, list)]
        if not ok:
            result["find_peaks"][name] = {"error": runs[0]}
            continue
        result["find_peaks"][name] = {
            "first_s": statistics.median(r[0] for r in ok),
            "steady_s": statistics.median(r[1] for r in ok),
            "cpu_s": statistics.median(r[2] for r in ok),
            "peaks_gpu_cpu": ok[0][3:5],
        }
        print(name, result["find_peaks"][name], flush=True)
    import cupy

    result["meta"] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        "cupy": cupy.__version__,
        "python": sys.version.split()[0],
    }
    (a.out / "submodule_probe.json").write_text(json.dumps(result, indent=1))
    rows = ["import cupyx.scipy.S after scipy.S, CuPy and a first array (median s):"]
    rows += [
        f"  {s:12} {v.get('median_s', float('nan')) * 1e3:8.1f} ms  {v.get('error', '')}"
        for s, v in result["imports"].items()
    ]
    rows.append("find_peaks: first call in a fresh process / steady / SciPy (ms), peaks GPU/CPU")
    for name, v in result["find_peaks"].items():
        if "error" in v:
            rows.append(f"  {name}: error {v['error']}")
        else:
            rows.append(
                f"  {name:34} "
                + " ".join(f"{v[k] * 1e3:8.1f}" for k in ("first_s", "steady_s", "cpu_s"))
                + f"  {v['peaks_gpu_cpu']}"
            )
    rows.append(json.dumps(result["meta"]))
    print("\n".join(rows))


if __name__ == "__main__":
    main()
