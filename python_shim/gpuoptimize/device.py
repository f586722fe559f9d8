"""The environment doctor: GPUs, GPU libraries, known conflicts, a quick calibration.

`environment()` returns the protocol's Environment dict; `format_report()` the same as
text. Libraries are looked up cheaply (`importlib.util.find_spec` and package metadata):
nothing is imported unless it already is or `deep=True` asks for an import check.
Plain Python, no IPython.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata as md
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: (import name, distributions that provide it) of the libraries the doctor reports.
LIBRARIES: list[tuple[str, tuple[str, ...]]] = [
    ("numpy", ("numpy",)),
    ("cupy", ("cupy-cuda13x", "cupy-cuda12x", "cupy-cuda11x", "cupy")),
    ("numba", ("numba",)),
    ("numba.cuda", ("numba-cuda",)),
    ("warp", ("warp-lang",)),
    ("cudf", ("cudf-cu13", "cudf-cu12", "cudf")),
    ("cuml", ("cuml-cu13", "cuml-cu12", "cuml")),
    ("nx_cugraph", ("nx-cugraph-cu13", "nx-cugraph-cu12", "nx-cugraph")),
    ("cuvs", ("cuvs-cu13", "cuvs-cu12", "cuvs")),
    ("cucim", ("cucim-cu13", "cucim-cu12", "cucim")),
    ("kvikio", ("kvikio-cu13", "kvikio-cu12", "kvikio")),
    ("dask_cuda", ("dask-cuda",)),
    ("torch", ("torch",)),
]


# ---------------------------------------------------------------------------------------
# Libraries


def _dist_version(names: tuple[str, ...]) -> tuple[str | None, str | None]:
    """(distribution, version) of the first installed distribution among `names`."""
    for n in names:
        with contextlib.suppress(md.PackageNotFoundError):
            return n, md.version(n)
    return None, None


def _find(module: str) -> bool:
    if "." in module:
        parent, _, child = module.partition(".")
        spec = importlib.util.find_spec(parent)
        if spec is None or not spec.submodule_search_locations:
            return False
        # Look for the subpackage on disk rather than importing its parent.
        return any((Path(p) / child).is_dir() for p in spec.submodule_search_locations)
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def library_status(name: str, dists: tuple[str, ...], deep: bool = False) -> dict[str, Any]:
    available = name in sys.modules or _find(name)
    _, version = _dist_version(dists)
    if version is None and name == "numba.cuda":
        _, version = _dist_version(("numba",))  # the CUDA target built into numba
    mod = sys.modules.get(name)
    if mod is not None and isinstance(getattr(mod, "__version__", None), str):
        version = mod.__version__
    error = None
    if deep and available:
        try:
            mod = importlib.import_module(name)
            error = _device_check(name, mod)
        except Exception as e:  # report, never fail the doctor
            error = f"{type(e).__name__}: {e}"[:300]
    return {"name": name, "available": available, "version": version, "error": error}


def _device_check(name: str, mod: Any) -> str | None:
    """After importing: can the library see a GPU?"""
    if name == "cupy":
        n = mod.cuda.runtime.getDeviceCount()
        return None if n > 0 else "no CUDA device visible"
    if name == "numba.cuda":
        return None if mod.is_available() else "numba.cuda.is_available() is False"
    if name == "torch":
        return None if mod.cuda.is_available() else "torch.cuda.is_available() is False"
    return None


# ---------------------------------------------------------------------------------------
# GPUs


def _nvidia_smi() -> tuple[list[dict[str, Any]], str | None]:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return [], None
    try:
        out = subprocess.run(
            [
                exe,
                "--query-gpu=index,name,memory.total,compute_cap,driver_version",
                "--format=csv,noheader,nounits",
            ],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return [], None
    gpus, driver = [], None
    for line in out.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 5:
            continue
        with contextlib.suppress(ValueError):
            gpus.append(
                {
                    "index": int(parts[0]),
                    "name": parts[1],
                    "memory_bytes": int(float(parts[2]) * 1024 * 1024),
                    "compute_capability": parts[3],
                }
            )
            driver = parts[4]
    return gpus, driver


def _cupy_gpus(cupy: Any) -> list[dict[str, Any]]:
    gpus = []
    for i in range(cupy.cuda.runtime.getDeviceCount()):
        p = cupy.cuda.runtime.getDeviceProperties(i)
        name = p["name"]
        gpus.append(
            {
                "index": i,
                "name": name.decode() if isinstance(name, bytes) else str(name),
                "memory_bytes": int(p["totalGlobalMem"]),
                "compute_capability": f"{p['major']}.{p['minor']}",
            }
        )
    return gpus


def _cuda_version(v: int) -> str:
    return f"{v // 1000}.{v % 1000 // 10}"


def gpus_and_versions(deep: bool = False) -> tuple[list[dict[str, Any]], str | None, str | None]:
    """(GPUs, driver version, CUDA runtime version), from CuPy when it is loaded (or
    `deep`), else from nvidia-smi, else from numba.cuda when it is loaded."""
    cupy = sys.modules.get("cupy")
    if cupy is None and deep and _find("cupy"):
        with contextlib.suppress(Exception):
            cupy = importlib.import_module("cupy")
    gpus: list[dict[str, Any]] = []
    driver = runtime = None
    if cupy is not None:
        with contextlib.suppress(Exception):
            gpus = _cupy_gpus(cupy)
            runtime = _cuda_version(cupy.cuda.runtime.runtimeGetVersion())
            driver = "CUDA " + _cuda_version(cupy.cuda.runtime.driverGetVersion())
    smi_gpus, smi_driver = _nvidia_smi()
    if smi_driver:
        driver = smi_driver  # the driver's own version number is the more useful one
    if not gpus:
        gpus = smi_gpus
    ncuda = sys.modules.get("numba.cuda")
    if not gpus and ncuda is not None and os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        with contextlib.suppress(Exception):
            for i, d in enumerate(ncuda.gpus):
                cc = d.compute_capability
                gpus.append(
                    {
                        "index": i,
                        "name": d.name.decode() if isinstance(d.name, bytes) else str(d.name),
                        "memory_bytes": 0,
                        "compute_capability": f"{cc[0]}.{cc[1]}",
                    }
                )
    return gpus, driver, runtime


def current_gpu() -> dict[str, Any] | None:
    """The GpuInfo of the device the process computes on now (for A/B results)."""
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        with contextlib.suppress(Exception):
            i = cupy.cuda.runtime.getDevice()
            return _cupy_gpus(cupy)[i]
    torch = sys.modules.get("torch")
    if torch is not None:
        with contextlib.suppress(Exception):
            if torch.cuda.is_initialized():
                i = torch.cuda.current_device()
                p = torch.cuda.get_device_properties(i)
                return {
                    "index": i,
                    "name": p.name,
                    "memory_bytes": int(p.total_memory),
                    "compute_capability": f"{p.major}.{p.minor}",
                }
    gpus, _, _ = gpus_and_versions()
    return gpus[0] if gpus else None


# ---------------------------------------------------------------------------------------
# Known conflicts


def _version_tuple(v: str | None) -> tuple[int, ...]:
    if not v:
        return ()
    return tuple(int(p) for p in re.findall(r"\d+", v)[:3])


def _installed_distributions() -> list[str]:
    names = set()
    for d in md.distributions():
        with contextlib.suppress(Exception):
            names.add(d.metadata["Name"].lower())
    return sorted(names)


def _numba_cuda_uses_row_stack() -> bool:
    """Does the installed numba-cuda still call np.row_stack (gone in NumPy 2.5)?"""
    spec = importlib.util.find_spec("numba_cuda")
    if spec is None or not spec.submodule_search_locations:
        return True  # cannot look: trust the version check
    for root in spec.submodule_search_locations:
        for p in Path(root).rglob("*.py"):
            with contextlib.suppress(OSError):
                if "row_stack" in p.read_text(errors="ignore"):
                    return True
    return False


def find_problems(
    versions: dict[str, str | None] | None = None,
    modules: dict[str, Any] | None = None,
    distributions: list[str] | None = None,
) -> list[dict[str, str]]:
    """Known conflicts with their fixes. Arguments default to this process's state; tests
    pass their own (distribution -> version, loaded modules, installed distributions)."""
    if versions is None:
        versions = {
            "numpy": _dist_version(("numpy",))[1],
            "numba-cuda": _dist_version(("numba-cuda",))[1],
        }
    modules = sys.modules if modules is None else modules
    dists = _installed_distributions() if distributions is None else distributions
    problems = []

    # (a) numba-cuda 0.30.x and older call np.row_stack, which NumPy 2.5 removed.
    nv, ncv = _version_tuple(versions.get("numpy")), _version_tuple(versions.get("numba-cuda"))
    if nv >= (2, 5) and ncv and ncv < (0, 31):
        check_files = distributions is None
        if not check_files or _numba_cuda_uses_row_stack():
            problems.append(
                {
                    "code": "numba-cuda-numpy-2.5",
                    "message": (
                        f"numba-cuda {versions['numba-cuda']} with numpy {versions['numpy']}: "
                        "compiling a CUDA kernel fails with AttributeError: module 'numpy' "
                        "has no attribute 'row_stack' (removed in NumPy 2.5)"
                    ),
                    "fix": (
                        "upgrade numba-cuda to a release that supports NumPy 2.5 "
                        '(pip install -U numba-cuda), or pip install "numpy<2.5"'
                    ),
                }
            )

    # (b) cudf.pandas only accelerates pandas imported after it was installed.
    if "cudf.pandas" in modules and "pandas" in modules:
        frame = getattr(modules["pandas"], "DataFrame", None)
        if not str(getattr(frame, "__module__", "")).startswith("cudf"):
            problems.append(
                {
                    "code": "cudf-pandas-after-pandas",
                    "message": (
                        "cudf.pandas was loaded after pandas had been imported: pandas "
                        "calls in this kernel are not accelerated"
                    ),
                    "fix": (
                        "restart the kernel and run %load_ext cudf.pandas (or "
                        "import cudf.pandas; cudf.pandas.install()) before import pandas"
                    ),
                }
            )

    # (c) CUDA 12 and CUDA 13 builds side by side.
    cu12 = [d for d in dists if re.search(r"(-cu12\b|cuda12x|-cuda-12|_cu12\b)", d)]
    cu13 = [d for d in dists if re.search(r"(-cu13\b|cuda13x|-cuda-13|_cu13\b)", d)]
    if cu12 and cu13:
        both_cupy = "cupy-cuda12x" in dists and "cupy-cuda13x" in dists
        problems.append(
            {
                "code": "cuda-12-13-mixed",
                "message": (
                    "packages built for CUDA 12 and CUDA 13 are installed together "
                    f"(CUDA 12: {', '.join(cu12[:6])}; CUDA 13: {', '.join(cu13[:6])})"
                    + (
                        "; cupy-cuda12x and cupy-cuda13x both install the cupy module "
                        "and overwrite each other"
                        if both_cupy
                        else ""
                    )
                ),
                "fix": (
                    "keep one CUDA major version: pip uninstall the packages of the other "
                    f"(e.g. pip uninstall {' '.join(cu12[:3])}), then reinstall the one "
                    "you keep so its files are complete"
                ),
            }
        )
    return problems


# ---------------------------------------------------------------------------------------
# Calibration


def _best(fn: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


#: The host copy: well above a typical L3 (tens of MB, a few hundred on large servers), so
#: NumPy's copy streams from memory as the cost model's host passes do.
HOST_COPY_BYTES = 512 << 20
#: The host copy when the available memory is not known.
HOST_COPY_FALLBACK_BYTES = 256 << 20
#: The device copy: at least this and at least `L2_MULTIPLE` x the GPU's L2 cache (L40S 96 MB,
#: RTX 4090 72 MB), so the copy streams from device memory rather than the L2.
DEVICE_COPY_MIN_BYTES = 256 << 20
L2_MULTIPLE = 8


def host_copy_bytes(available: int | None) -> int:
    """The host copy's size: `HOST_COPY_BYTES`, its two buffers at most half of the memory
    `available` (bytes; None when not known: `HOST_COPY_FALLBACK_BYTES`)."""
    size = HOST_COPY_FALLBACK_BYTES if available is None else min(HOST_COPY_BYTES, available // 4)
    return max(size // 8 * 8, 8)


def device_copy_bytes(l2_bytes: int | None, free_bytes: int | None) -> int:
    """The device copy's size: max(`L2_MULTIPLE` x L2, `DEVICE_COPY_MIN_BYTES`), its two
    buffers at most half of the device memory that is free (when known)."""
    size = max(L2_MULTIPLE * (l2_bytes or 0), DEVICE_COPY_MIN_BYTES)
    if free_bytes is not None:
        size = min(size, free_bytes // 4)
    return max(size // 8 * 8, 8)


def _available_host_memory() -> int | None:
    """MemAvailable of /proc/meminfo (Linux), else None."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return None


def calibrate(size_bytes: int | None = None) -> dict[str, float | None]:
    """Bandwidths (bytes per second, read + written for copies) and launch overhead
    (seconds per tiny kernel, launch rate with one synchronize at the end), with the bytes
    each copy moved (`host_copy_bytes`, `device_copy_bytes`, `host_to_device_bytes`). Uses
    NumPy and, when it is already loaded, CuPy; never imports a GPU library.

    The copies are larger than the caches: the host's `host_copy_bytes(MemAvailable)` (512
    MiB), the device's `device_copy_bytes(L2, free memory)` (max(8 x L2, 256 MiB)), the
    host->device copy the smaller of the two; `size_bytes` sets all three (tests). The H200
    figures the cost model scales a kernel's against (`MEASURED_H200.doctorCalibration` in
    costmodel.ts) are this function's own at these sizes (bench run 6, 2026-12-01: 3.82 TB/s
    device, 7.68 GB/s host->device, 13.9 us a launch, 22.3 GB/s host), so the ratios compare
    like with like; a change of sizes here needs a new H200 run."""
    out: dict[str, float | None] = {
        "host_bandwidth": None,
        "device_bandwidth": None,
        "host_to_device": None,
        "launch_overhead_s": None,
        "host_copy_bytes": None,
        "device_copy_bytes": None,
        "host_to_device_bytes": None,
    }
    np = sys.modules.get("numpy")
    if np is None:
        with contextlib.suppress(ImportError):
            import numpy as np  # noqa: PLC0415 (the doctor may import numpy)
    if np is None:
        return out
    size = size_bytes if size_bytes is not None else host_copy_bytes(_available_host_memory())
    host = np.ones(max(size // 8, 1))
    dst = np.empty_like(host)
    t = _best(lambda: np.copyto(dst, host), 5)
    out["host_bandwidth"] = 2 * host.nbytes / t
    out["host_copy_bytes"] = host.nbytes
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return out
    try:
        if cupy.cuda.runtime.getDeviceCount() > 0:
            _calibrate_cupy(cupy, host, out, size_bytes)
    except Exception:  # a calibration is best effort: the cost model has defaults
        pass
    finally:
        with contextlib.suppress(Exception):
            cupy.get_default_memory_pool().free_all_blocks()
    return out


def _device_copy_size(cupy: Any) -> int:
    """`device_copy_bytes` for the current device (L2 size and free memory from CuPy)."""
    runtime = cupy.cuda.runtime
    l2 = free = None
    with contextlib.suppress(Exception):
        l2 = int(runtime.getDeviceProperties(runtime.getDevice())["l2CacheSize"])
    with contextlib.suppress(Exception):
        free = int(runtime.memGetInfo()[0])
    return device_copy_bytes(l2, free)


def _calibrate_cupy(
    cupy: Any, host: Any, out: dict[str, float | None], size_bytes: int | None = None
) -> None:
    n = max((size_bytes if size_bytes is not None else _device_copy_size(cupy)) // 8, 1)
    d_src = cupy.ones(n, dtype=host.dtype)
    d_dst = cupy.empty_like(d_src)
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    best = float("inf")
    for _ in range(5):
        start.record()
        cupy.copyto(d_dst, d_src)
        end.record()
        end.synchronize()
        best = min(best, cupy.cuda.get_elapsed_time(start, end) / 1e3)
    out["device_bandwidth"] = 2 * d_src.nbytes / best
    out["device_copy_bytes"] = d_src.nbytes

    m = min(host.size, n)
    h_part, d_part = host[:m], d_dst[:m]

    def h2d() -> None:
        d_part.set(h_part)
        cupy.cuda.runtime.deviceSynchronize()

    out["host_to_device"] = h_part.nbytes / _best(h2d, 5)
    out["host_to_device_bytes"] = h_part.nbytes
    one = cupy.zeros(1, dtype=cupy.float32)
    one += 1  # compile the kernel once
    cupy.cuda.runtime.deviceSynchronize()
    n = 200
    t0 = time.perf_counter()
    for _ in range(n):
        one += 1
    cupy.cuda.runtime.deviceSynchronize()
    out["launch_overhead_s"] = (time.perf_counter() - t0) / n


# ---------------------------------------------------------------------------------------
# Entry points


def environment(calibrate_device: bool = False, deep: bool = False) -> dict[str, Any]:
    """The protocol's Environment."""
    gpus, driver, runtime = gpus_and_versions(deep=deep)
    return {
        "gpus": gpus,
        "driver_version": driver,
        "runtime_version": runtime,
        "libraries": [library_status(n, d, deep=deep) for n, d in LIBRARIES],
        "problems": find_problems(),
        "calibration": calibrate() if calibrate_device else None,
        "python": sys.version.split()[0],
    }


def format_report(env: dict[str, Any] | None = None) -> str:
    """The environment as text for people (`%gpuoptimize doctor`)."""
    env = environment() if env is None else env
    lines = [f"Python {env['python']}"]
    if env["gpus"]:
        for g in env["gpus"]:
            mem = g["memory_bytes"] / 2**30
            lines.append(
                f"GPU {g['index']}: {g['name']}, {mem:.1f} GiB, "
                f"compute capability {g['compute_capability']}"
            )
    else:
        lines.append("GPU: none found (no CuPy device, no nvidia-smi)")
    lines.append(
        f"Driver: {env['driver_version'] or '-'}   CUDA runtime: {env['runtime_version'] or '-'}"
    )
    lines.append("Libraries:")
    for lib in env["libraries"]:
        mark = "yes" if lib["available"] else "no "
        ver = lib["version"] or ""
        err = f"  ({lib['error']})" if lib["error"] else ""
        lines.append(f"  {mark} {lib['name']:<11} {ver}{err}")
    if env["problems"]:
        lines.append("Problems:")
        for p in env["problems"]:
            lines.append(f"  [{p['code']}] {p['message']}")
            lines.append(f"      fix: {p['fix']}")
    else:
        lines.append("Problems: none known")
    cal = env.get("calibration")
    if cal:
        lines.append("Calibration:")
        for key, unit, scale in (
            ("host_bandwidth", "GB/s", 1e9),
            ("device_bandwidth", "GB/s", 1e9),
            ("host_to_device", "GB/s", 1e9),
            ("launch_overhead_s", "us", 1e-6),
        ):
            v = cal.get(key)
            lines.append(f"  {key:<18} " + (f"{v / scale:.3g} {unit}" if v else "-"))
        sizes = [
            f"{label} {cal[key] / 2**20:.0f} MiB"
            for key, label in (
                ("host_copy_bytes", "host"),
                ("device_copy_bytes", "device"),
                ("host_to_device_bytes", "host->device"),
            )
            if cal.get(key)
        ]
        if sizes:
            lines.append(f"  {'copies of':<18} " + ", ".join(sizes))
    return "\n".join(lines)
