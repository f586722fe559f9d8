"""The A/B engine: run a cell and its GPU rewrite side by side, honestly timed.

Plain Python (no IPython import), so it can be used and tested alone:

    >>> r = run_ab("y = np.sort(x)", "y = cp.asnumpy(cp.sort(cp.asarray(x)))", globals())
    >>> r.verdict, r.speedup_end_to_end, r.candidate.median_s
    >>> r.to_json()      # the protocol's ABResult

What one side's run looks like (the same for baseline and candidate):

1. A fresh namespace: a shallow copy of the user's, with every input the cell reads that
   could be changed in place (arrays, lists, dicts, frames, objects...) deep-copied, and
   the user's plain functions re-homed onto the copy, so nothing the user owns changes.
   NumPy/CuPy arrays the cell only reads are copied once per side, not per run; if the
   runs changed one after all (through a call), the side is measured again with per-run
   copies and a warning.
2. Device synchronize (CuPy, Numba CUDA, PyTorch, Warp: only those already imported),
   clock read, [CUDA start event], exec of the once-compiled code, [end event],
   device-wide synchronize, clock read; the garbage collector is paused in between.
   Nothing is printed inside; the cell's own output is captured. When the synchronized
   wall time is far above the events' time (work on streams that do not order with the
   default stream), the wall time is reported as the device time, an upper bound.
3. The first run is timed apart (`first_run_s`: JIT compile, plan creation, caches); then
   an empty cell is timed the same way (`timer_overhead_s`, `device_timer_overhead_s`:
   the fixed cost in every run, reported, not subtracted); then runs repeat until the
   time budget (between `min_runs` and `max_runs`).
4. One extra instrumented run (never among the timed runs) for sides that use a GPU
   library: every call that may move data between host and device (`x.get()`,
   `cp.asarray(a)`, `t.cuda()`, `cupyx.scipy.sparse.csr_matrix(M)`, `cudf.DataFrame(df)`,
   ...) is timed with synchronizes around it (`transfer_s`),
   and CuPy's pool allocations are tracked for the peak (`peak_device_bytes`).
5. Outputs are compared on the host (`compare.py`). In a cell that draws from random
   streams, each run's scalar outputs are kept (outside the timing): a single value such as
   a Monte Carlo estimate is judged by the spread of its repeats on each side, also when the
   two last runs agree by chance (`compare_random_scalar`: means within 5 standard errors,
   at least 5 runs a side), or reported unverified when every run of each side gives the
   same value and the two differ (seeded: one draw per side).

The result is data first (`ABResult`, raw times kept), text second (`repr`, `format()`).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import gc
import hashlib
import io
import math
import os
import random as _random
import signal
import statistics
import sys
import threading
import time
import types
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import _cell
from .compare import (
    DEFAULT_TOLERANCES,
    EQUAL,
    HELD_ON_DEVICE,
    NOT_EQUAL,
    RANDOM_SCALAR_DETAIL,
    STATISTICAL,
    UNVERIFIED,
    OperandScale,
    OutputComparison,
    _rms,
    combine_status,
    compare,
    compare_frame_relative_to_largest,
    compare_random_scalar,
    compare_relative_to_largest,
    compare_up_to_sign,
    is_device_value,
    is_random_state,
    to_host,
)

__all__ = ["ABResult", "SideStats", "run_ab", "run_for_real", "source_hash"]

RESULT_VERSION = 1
DEFAULT_BUDGET_S = 3.0
MIN_RUNS = 3
MAX_RUNS = 2000
#: Below this baseline time the GPU rarely wins: launches and copies cost more.
TOO_SMALL_S = 100e-6
_BOOTSTRAP_RESAMPLES = 1000
_STDOUT_KEEP = 20_000

Progress = Callable[[str, int, float, float], None]
"""progress(phase, runs_done, elapsed_s, budget_s); phase is baseline|candidate|compare."""


def source_hash(source: str) -> str:
    """The id of a cell's text: first 16 hex digits of SHA-256 of its stripped UTF-8."""
    return hashlib.sha256(source.strip().encode("utf-8")).hexdigest()[:16]


# ---------------------------------------------------------------------------------------
# Result data


@dataclass
class SideStats:
    """Timings of one side. Times are seconds; `times_s` excludes the first run."""

    status: str = "skipped"  # ok | error | timeout | cancelled | oom | skipped
    first_run_s: float | None = None
    times_s: list[float] = field(default_factory=list)
    device_times_s: list[float] = field(default_factory=list)
    transfer_s: float | None = None
    transfer_bytes: int | None = None
    peak_device_bytes: int | None = None
    error: str | None = None
    ran_on_gpu: bool = False
    stdout: str = field(default="", repr=False)
    #: Median time of an empty cell under the same timing (synchronize, clock, events,
    #: exec): the fixed cost inside every timed run. Reported, never subtracted.
    timer_overhead_s: float | None = None
    #: The same for the CUDA events (device time of an empty cell), where there are events.
    device_timer_overhead_s: float | None = None
    #: True when the events missed work (streams that do not order with the default
    #: stream) and `device_times_s` holds the synchronized wall times instead: an upper
    #: bound of the device time.
    device_time_from_wall: bool = False

    @property
    def runs(self) -> int:
        return len(self.times_s)

    @property
    def median_s(self) -> float | None:
        return statistics.median(self.times_s) if self.times_s else None

    @property
    def min_s(self) -> float | None:
        return min(self.times_s) if self.times_s else None

    @property
    def iqr_s(self) -> float | None:
        if len(self.times_s) < 2:
            return None
        q1, _, q3 = statistics.quantiles(self.times_s, n=4, method="inclusive")
        return q3 - q1

    @property
    def device_s(self) -> float | None:
        """Median GPU time between CUDA events bracketing each run (GPU idle gaps while
        the host launches work are included, as in cupyx.profiler.benchmark)."""
        return statistics.median(self.device_times_s) if self.device_times_s else None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "first_run_s": _finite(self.first_run_s),
            "median_s": _finite(self.median_s),
            "iqr_s": _finite(self.iqr_s),
            "min_s": _finite(self.min_s),
            "runs": self.runs,
            "times_s": [float(t) for t in self.times_s],
            "device_s": _finite(self.device_s),
            "transfer_s": _finite(self.transfer_s),
            "peak_device_bytes": self.peak_device_bytes,
            "error": self.error,
            "timer_overhead_s": _finite(self.timer_overhead_s),
            "device_timer_overhead_s": _finite(self.device_timer_overhead_s),
        }

    def summary(self) -> str:
        if self.status != "ok" and not self.times_s:
            return f"{self.status}" + (f": {self.error}" if self.error else "")
        parts = [
            f"median {_fmt_s(self.median_s)}",
            f"IQR {_fmt_s(self.iqr_s)}",
            f"min {_fmt_s(self.min_s)}",
            f"first {_fmt_s(self.first_run_s)}",
            f"{self.runs} runs",
        ]
        if self.device_s is not None:
            bound = " (upper bound: wall time)" if self.device_time_from_wall else ""
            parts.append(f"device {_fmt_s(self.device_s)}{bound}")
        if self.transfer_s is not None:
            parts.append(f"transfers {_fmt_s(self.transfer_s)}")
        if self.peak_device_bytes is not None:
            parts.append(f"peak {_fmt_bytes(self.peak_device_bytes)}")
        if self.timer_overhead_s is not None:
            ovh = f"timer overhead {_fmt_s(self.timer_overhead_s)}"
            if self.device_timer_overhead_s is not None:
                ovh += f" ({_fmt_s(self.device_timer_overhead_s)} device)"
            parts.append(ovh)
        if self.status != "ok":
            parts.append(self.status)
        return ", ".join(parts)


@dataclass
class ABResult:
    """The outcome of one A/B run. `to_json()` is the protocol's ABResult."""

    baseline: SideStats
    candidate: SideStats
    verdict: str
    reason: str | None = None
    outputs: list[OutputComparison] = field(default_factory=list)
    speedup_ci95: tuple[float, float] | None = None
    device: dict[str, Any] | None = None
    versions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    stale: bool = False
    #: Names each side bound in its last run, with their values (not part of the JSON):
    #: the magic binds one of them into the user's namespace.
    baseline_values: dict[str, Any] = field(default_factory=dict, repr=False)
    candidate_values: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def speedup_end_to_end(self) -> float | None:
        b, c = self.baseline.median_s, self.candidate.median_s
        return b / c if b and c else None

    @property
    def speedup_device(self) -> float | None:
        """Baseline time (its device time when it ran on a GPU) over the candidate's
        device time."""
        c = self.candidate.device_s
        b = self.baseline.device_s if self.baseline.device_s is not None else self.baseline.median_s
        return b / c if b and c else None

    @property
    def match_status(self) -> str:
        return combine_status([o.status for o in self.outputs])

    def to_json(self) -> dict[str, Any]:
        ci = self.speedup_ci95
        return {
            "version": RESULT_VERSION,
            "baseline": self.baseline.to_json(),
            "candidate": self.candidate.to_json(),
            "speedup": {
                "end_to_end": _finite(self.speedup_end_to_end),
                "device": _finite(self.speedup_device),
                "ci95": [float(ci[0]), float(ci[1])]
                if ci and all(map(math.isfinite, ci))
                else None,
            },
            "match": {
                "status": self.match_status,
                "outputs": [o.to_json() for o in self.outputs],
            },
            "device": self.device,
            "versions": dict(self.versions),
            "verdict": self.verdict,
            "reason": self.reason,
            "warnings": list(self.warnings),
            "stale": self.stale,
        }

    def format(self) -> str:
        """A small readable table."""
        lines = [f"gpuoptimize A/B: {self.verdict}" + (f" ({self.reason})" if self.reason else "")]
        lines.append(f"  baseline : {self.baseline.summary()}")
        lines.append(f"  candidate: {self.candidate.summary()}")
        if self.speedup_end_to_end is not None:
            s = f"  speedup  : {self.speedup_end_to_end:.3g}x end-to-end"
            if self.speedup_ci95:
                s += f" (95% CI {self.speedup_ci95[0]:.3g}-{self.speedup_ci95[1]:.3g})"
            if self.speedup_device is not None:
                s += f", {self.speedup_device:.3g}x device-only"
            lines.append(s)
        if self.outputs:
            lines.append(f"  outputs  : {self.match_status}")
            for o in self.outputs:
                err = ""
                if o.max_abs_err is not None:
                    err = f" max abs err {o.max_abs_err:.3g}"
                    if o.max_rel_err is not None and math.isfinite(o.max_rel_err):
                        err += f", rel {o.max_rel_err:.3g}"
                detail = f" - {o.detail}" if o.detail else ""
                lines.append(f"    {o.name}: {o.status} [{o.method}]{err}{detail}")
        if self.device:
            lines.append(f"  device   : {self.device.get('name')}")
        if self.stale:
            lines.append("  stale    : the cell changed while it was measured")
        for w in self.warnings:
            lines.append(f"  warning  : {w}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        e2e = self.speedup_end_to_end
        return (
            f"<ABResult {self.verdict}: baseline {_fmt_s(self.baseline.median_s)}, "
            f"candidate {_fmt_s(self.candidate.median_s)}"
            + (f", {e2e:.3g}x" if e2e is not None else "")
            + f", outputs {self.match_status}>"
        )


def _finite(x: float | None) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


def _fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if x >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x / 1e-9:.3g} ns"


def _fmt_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{n:.4g} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n:.4g} TiB"


# ---------------------------------------------------------------------------------------
# Devices: synchronize, events, memory, pools. Only libraries already imported are used.


def _cuda_sim() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def _synchronizers() -> list[Callable[[], None]]:
    """Device-wide synchronize of every GPU library the process has loaded."""
    m = sys.modules
    fns: list[Callable[[], None]] = []
    cupy = m.get("cupy")
    if cupy is not None:
        with contextlib.suppress(Exception):
            if cupy.cuda.runtime.getDeviceCount() > 0:
                fns.append(cupy.cuda.runtime.deviceSynchronize)
    torch = m.get("torch")
    if torch is not None:
        with contextlib.suppress(Exception):
            if torch.cuda.is_initialized():
                fns.append(torch.cuda.synchronize)
    ncuda = m.get("numba.cuda")
    if ncuda is not None and not _cuda_sim():
        with contextlib.suppress(Exception):
            if ncuda.is_available():
                fns.append(ncuda.synchronize)
    warp = m.get("warp")
    if warp is not None:
        with contextlib.suppress(Exception):
            ctx = getattr(warp, "context", None)
            if ctx is not None and getattr(ctx, "runtime", None) is not None:
                fns.append(warp.synchronize)
    return fns


class _EventTimer:
    """CUDA events around a run, from the first GPU library the side uses."""

    def __init__(self, lib: str) -> None:
        self.lib = lib
        m = sys.modules
        if lib == "cupy":
            cupy = m["cupy"]
            self._new = lambda: cupy.cuda.Event()
            self._elapsed = lambda a, b: cupy.cuda.get_elapsed_time(a, b) / 1e3
        elif lib == "torch":
            torch = m["torch"]
            self._new = lambda: torch.cuda.Event(enable_timing=True)
            self._elapsed = lambda a, b: a.elapsed_time(b) / 1e3
        else:
            ncuda = m["numba.cuda"]
            self._new = ncuda.event
            self._elapsed = lambda a, b: ncuda.event_elapsed_time(a, b) / 1e3
        self.start, self.end = self._new(), self._new()

    def elapsed_s(self) -> float:
        return float(self._elapsed(self.start, self.end))

    @staticmethod
    def for_side(uses: set[str]) -> _EventTimer | None:
        m = sys.modules
        with contextlib.suppress(Exception):
            if uses & _CUPY_BASED and "cupy" in m:
                if m["cupy"].cuda.runtime.getDeviceCount() > 0:
                    return _EventTimer("cupy")
            if "torch" in uses and "torch" in m and m["torch"].cuda.is_initialized():
                return _EventTimer("torch")
            if "numba" in uses and "numba.cuda" in m and not _cuda_sim():
                if m["numba.cuda"].is_available():
                    return _EventTimer("numba")
            if uses & _cell.GPU_MODULES and "cupy" in m:
                if m["cupy"].cuda.runtime.getDeviceCount() > 0:
                    return _EventTimer("cupy")
        return None


_CUPY_BASED = frozenset(
    {
        "cupy",
        "cupyx",
        "cudf",
        "cuml",
        "cugraph",
        "nx_cugraph",
        "cuvs",
        "cucim",
        "pylibraft",
        "rmm",
        "kvikio",
    }
)


def _is_oom(e: BaseException) -> bool:
    if isinstance(e, MemoryError):
        return True
    name = type(e).__name__
    text = str(e)
    return (
        name == "OutOfMemoryError"
        or "CUDA_ERROR_OUT_OF_MEMORY" in text
        or "cudaErrorMemoryAllocation" in text
        or "out of memory" in text.lower()
        and name in ("CudaAPIError", "CUDARuntimeError", "RuntimeError")
    )


def free_device_pools() -> None:
    """Return cached device memory to the driver (after an OOM or a run)."""
    gc.collect()
    m = sys.modules
    with contextlib.suppress(Exception):
        if "cupy" in m:
            m["cupy"].get_default_memory_pool().free_all_blocks()
            m["cupy"].get_default_pinned_memory_pool().free_all_blocks()
    with contextlib.suppress(Exception):
        if "torch" in m and m["torch"].cuda.is_initialized():
            m["torch"].cuda.empty_cache()


def _no_gpu_reason(e: BaseException) -> str | None:
    """Why the candidate could not reach a GPU, if that is what `e` says."""
    if isinstance(e, ModuleNotFoundError):
        mod = (e.name or "").split(".")[0]
        if mod in _cell.GPU_MODULES:
            hint = {
                "cupy": " (pip install cupy-cuda12x or cupy-cuda13x, matching the driver)",
                "numba": " (pip install numba numba-cuda)",
                "cudf": " (RAPIDS: pip install cudf-cu12)",
                "warp": " (pip install warp-lang)",
            }.get(mod, "")
            return f"the candidate imports {mod}, which is not installed in this kernel{hint}"
    text = f"{type(e).__name__}: {e}"
    for marker in (
        "cudaErrorNoDevice",
        "cudaErrorInsufficientDriver",
        "CUDA driver",
        "no CUDA-capable device",
        "CudaSupportError",
        "libcuda",
        "Torch not compiled with CUDA",
    ):
        if marker in text:
            return f"no usable GPU: {text[:200]}"
    return None


# ---------------------------------------------------------------------------------------
# Per-run isolation

_NEVER_COPY = (
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    type,
    int,
    float,
    complex,
    bool,
    str,
    bytes,
    type(None),
    range,
    frozenset,
)


class _Isolation:
    """Builds one fresh namespace per run; keeps the user's objects out of reach.

    Inputs the cell may change are deep-copied for every run. Plain NumPy/CuPy arrays the
    cell only reads (as far as its source shows, and not globals of a function it calls)
    are copied once per side instead (`snapshots`): a per-run copy of a large array costs
    memory bandwidth, and on a GPU leaves the cache full of dirty lines that the timed run
    then writes back. `changed_snapshots()` checks afterwards that the runs left them as
    they were; if not, the side is measured again with per-run copies (`per_run_only`).
    """

    def __init__(
        self,
        namespace: dict[str, Any],
        facts: _cell.CellFacts,
        allow_sharing: bool = False,
        per_run_only: bool = False,
    ) -> None:
        self.namespace = namespace
        self.allow_sharing = allow_sharing
        self.copied: list[str] = []
        self.shared: list[str] = []
        self.functions: list[str] = []
        self.problems: list[str] = []
        self.snapshots: dict[str, Any] = {}
        names = [n for n in facts.inputs if n in namespace]
        seen = set(names)
        direct = set(names)
        # A user function called by the cell reads globals of the user's namespace:
        # re-home it onto the run's namespace and treat the globals it reads as inputs.
        i = 0
        while i < len(names):
            v = namespace[names[i]]
            if isinstance(v, types.FunctionType) and v.__globals__ is namespace:
                self.functions.append(names[i])
                for g in _code_globals(v.__code__):
                    if g in namespace and g not in seen:
                        seen.add(g)
                        names.append(g)
            i += 1
        self.mutated = set(facts.mutated)
        for n in names:
            v = namespace[n]
            if isinstance(v, _NEVER_COPY) or callable(v) and not hasattr(v, "__array__"):
                continue
            if n in self.functions:
                continue
            if hasattr(v, "__next__"):
                self.problems.append(
                    f"reads the iterator {n!r}; repeating the cell would use it up"
                )
                continue
            if not per_run_only and n in direct and n not in self.mutated and _plain_array(v):
                self.snapshots[n] = None  # copied in take_snapshots(), once per side
                continue
            self.copied.append(n)

    def take_snapshots(self) -> None:
        """Copy the read-only arrays once (outside every timed run)."""
        for n in list(self.snapshots):
            self.snapshots[n] = copy.deepcopy(self.namespace[n])

    def changed_snapshots(self) -> list[str]:
        """Names of read-only arrays the runs changed after all (their copy no longer
        equals the user's array)."""
        return [
            n
            for n, snap in self.snapshots.items()
            if snap is not None and not _same_array(snap, self.namespace[n])
        ]

    def fresh(self) -> dict[str, Any]:
        ns = dict(self.namespace)
        # One memo per run keeps aliasing between inputs; a container holding a
        # snapshotted array gets the snapshot, as the cell's name for it does.
        memo: dict[int, Any] = {}
        for n, snap in self.snapshots.items():
            if snap is not None:
                ns[n] = snap
                memo[id(self.namespace[n])] = snap
        for n in list(self.copied):
            try:
                ns[n] = copy.deepcopy(self.namespace[n], memo)
            except Exception as e:
                if n in self.mutated and not self.allow_sharing:
                    raise _Uncopyable(
                        f"the cell changes {n!r}, which cannot be copied ({type(e).__name__})"
                    ) from None
                # Shared from now on: the cell only reads it (as far as can be seen).
                self.copied.remove(n)
                self.shared.append(n)
        for n in self.functions:
            f = self.namespace[n]
            g = types.FunctionType(f.__code__, ns, f.__name__, f.__defaults__, f.__closure__)
            g.__kwdefaults__ = f.__kwdefaults__
            g.__dict__.update(f.__dict__)
            ns[n] = g
        return ns


def _plain_array(v: Any) -> bool:
    """A NumPy or CuPy ndarray itself (not a subclass such as a memmap or a matrix)."""
    t = type(v)
    return t.__name__ == "ndarray" and t.__module__ in ("numpy", "cupy", "cupy._core.core")


def _same_array(a: Any, b: Any) -> bool:
    """Same shape, dtype and values (NaNs in the same places), on the array's own device."""
    if type(a) is not type(b) or a.shape != b.shape or a.dtype != b.dtype:
        return False
    xp = sys.modules.get("cupy") if type(a).__module__.startswith("cupy") else None
    xp = xp if xp is not None else sys.modules["numpy"]
    try:
        return bool(xp.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    except Exception:
        return False


def _code_globals(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_globals(c)
    return names


class _RandomState:
    """Saves the global random streams so each run (and the user) starts from the same."""

    def __init__(self) -> None:
        self.py = _random.getstate()
        np = sys.modules.get("numpy")
        self.np = np.random.get_state() if np is not None else None

    def restore(self) -> None:
        _random.setstate(self.py)
        np = sys.modules.get("numpy")
        if np is not None and self.np is not None:
            np.random.set_state(self.np)


class _Uncopyable(Exception):
    """An input the cell changes cannot be copied, so repeating the cell would change it."""


class _Timeout(BaseException):
    """Raised by the alarm when a side runs past its time limit."""


@contextlib.contextmanager
def _alarm(seconds: float):
    """SIGALRM after `seconds`, in the main thread only (elsewhere the run loop checks the
    elapsed time between runs instead)."""
    use = (
        seconds > 0
        and threading.current_thread() is threading.main_thread()
        and hasattr(signal, "setitimer")
    )
    if not use:
        yield False
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _TransferMeter:
    """The hook the instrumented run routes possible transfer calls through."""

    def __init__(self, sync: Callable[[], None]) -> None:
        self.sync = sync
        self.seconds = 0.0
        self.bytes = 0
        self.calls = 0

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """A bare-name call, `csr_matrix(M)`: its first argument is the source."""
        return self._timed(fn, args[0] if args else None, "", args, kwargs)

    def __call__(self, obj: Any, attr: str, *args: Any, **kwargs: Any) -> Any:
        fn = getattr(obj, attr)
        source = args[0] if isinstance(obj, types.ModuleType) and args else obj
        return self._timed(fn, source, attr, args, kwargs)

    def _timed(
        self, fn: Any, source: Any, attr: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        self.sync()
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        self.sync()
        t1 = time.perf_counter()
        src_dev, out_dev = is_device_value(source), is_device_value(out)
        if attr == "set" and src_dev:  # cupy: dev.set(host) copies the argument in
            src_dev = not (args and is_device_value(args[0]))
            out_dev = True
        if src_dev != out_dev:
            self.seconds += t1 - t0
            self.calls += 1
            self.bytes += _nbytes(out if out_dev else source)
        return out


def _nbytes(x: Any) -> int:
    """Bytes of an array, a sparse matrix (its data and index arrays) or a frame."""
    n = getattr(x, "nbytes", None)
    if isinstance(n, int) and not isinstance(n, bool):
        return n
    parts = [getattr(x, a, None) for a in ("data", "indices", "indptr", "row", "col", "offsets")]
    sizes = [getattr(p, "nbytes", None) for p in parts if p is not None]
    if any(isinstance(v, int) for v in sizes):
        return sum(v for v in sizes if isinstance(v, int))
    usage = getattr(x, "memory_usage", None)
    if callable(usage):
        with contextlib.suppress(Exception):
            u = usage(deep=False)
            return int(u.sum() if hasattr(u, "sum") else u)
    return 0


class _PeakMemory:
    """Peak of CuPy pool bytes in use during a run, above the level at its start."""

    def __init__(self) -> None:
        self.hook: Any = None
        self.peak: int | None = None
        cupy = sys.modules.get("cupy")
        if cupy is None:
            return
        with contextlib.suppress(Exception):
            if cupy.cuda.runtime.getDeviceCount() == 0:
                return
            pool = cupy.get_default_memory_pool()
            from cupy.cuda import memory_hook

            outer = self

            class Hook(memory_hook.MemoryHook):
                name = "gpuoptimize-peak"

                start = 0

                def malloc_postprocess(self, **kw: Any) -> None:
                    used = pool.used_bytes() - self.start
                    outer.peak = max(outer.peak or 0, used)

            self.hook = Hook()
            self.peak = 0

    def __enter__(self) -> _PeakMemory:
        if self.hook is not None:
            self.hook.start = sys.modules["cupy"].get_default_memory_pool().used_bytes()
            self.hook.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.hook is not None:
            self.hook.__exit__(*exc)


# ---------------------------------------------------------------------------------------
# One side


class _Cancelled(Exception):
    pass


@dataclass
class _Side:
    label: str
    source: str
    facts: _cell.CellFacts
    stats: SideStats = field(default_factory=SideStats)
    values: dict[str, Any] = field(default_factory=dict)
    last_ns: dict[str, Any] | None = None
    exception: BaseException | None = None
    warnings: list[str] = field(default_factory=list)
    #: Each run's value of the scalar outputs (random-stream cells only), on the host.
    scalar_runs: dict[str, list[Any]] = field(default_factory=dict)

    @property
    def uses(self) -> set[str]:
        return self.facts.imports | {
            n for n in self.facts.referenced_modules if n in _cell.GPU_MODULES
        }


def _module_roots(ns: dict[str, Any], names: list[str]) -> set[str]:
    """Top-level packages of modules and device values the side reads from `ns`."""
    roots = set()
    for n in names:
        v = ns.get(n)
        if isinstance(v, types.ModuleType):
            roots.add(v.__name__.split(".")[0])
        elif v is not None and is_device_value(v):
            roots.add(type(v).__module__.split(".")[0])
    return roots


@dataclass(frozen=True)
class _RunSettings:
    """How each side is run; the same for the baseline and the candidate."""

    budget_s: float
    min_runs: int
    max_runs: int
    timeout_s: float
    progress: Progress | None
    rng_state: _RandomState
    allow_sharing: bool
    #: Keep every run's scalar outputs (a cell drawing from random streams).
    sample_scalars: bool = False


def _run_side(side: _Side, namespace: dict[str, Any], run: _RunSettings) -> None:
    iso = _Isolation(namespace, side.facts, run.allow_sharing)
    _measure_side(side, namespace, iso, run)
    changed = iso.changed_snapshots() if iso.snapshots else []
    if changed:
        # The cell changes an array in place in a way its source does not show (a call):
        # runs after the first saw the changed array. Measure again, copying every run.
        _reset(side)
        iso = _Isolation(namespace, side.facts, run.allow_sharing, per_run_only=True)
        side.warnings.append(
            f"{side.label}: the cell changes {', '.join(changed)} in place (not visible in "
            "its source); it was measured again with a fresh copy for every run"
        )
        _measure_side(side, namespace, iso, run)
    uses = side.uses | _module_roots(namespace, side.facts.inputs)
    if side.stats.status == "ok" and uses & _cell.GPU_MODULES:
        _instrumented_run(side, iso, run.rng_state, run.timeout_s)
    iso.snapshots.clear()


def _reset(side: _Side) -> None:
    fresh = SideStats()
    for f in dataclasses.fields(SideStats):
        setattr(side.stats, f.name, getattr(fresh, f.name))
    side.values = {}
    side.last_ns = None
    side.exception = None
    side.scalar_runs = {}


_EMPTY_CELL = compile("pass", "<gpuoptimize empty cell>", "exec")
#: Empty runs timed to measure the fixed cost of the timing itself.
_OVERHEAD_RUNS = 15


class _Timing:
    """One timed run: synchronize, clock, [start event], exec, [end event], synchronize,
    clock. Nothing else sits between the clock reads: namespaces are built and inputs
    copied before, and the garbage collector is paused inside (as `timeit` does), so a
    collection of earlier garbage is not charged to the cell."""

    def __init__(
        self,
        out: io.StringIO,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.out = out
        self.clock = clock
        self.syncs: list[Callable[[], None]] = []

    def refresh_syncs(self) -> None:
        """The device synchronizers of the libraries loaded now (the first run may have
        imported one)."""
        self.syncs = _synchronizers()

    def run(
        self, code: Any, ns: dict[str, Any], timer: _EventTimer | None
    ) -> tuple[float, float | None]:
        """(wall seconds, event seconds or None) of one exec of `code` in `ns`."""
        syncs, clock = self.syncs, self.clock
        self.out.seek(0)
        self.out.truncate()
        gc_was_on = gc.isenabled()
        with contextlib.redirect_stdout(self.out), contextlib.redirect_stderr(self.out):
            for sync in syncs:
                sync()
            if gc_was_on:
                gc.disable()
            try:
                if timer is None:
                    t0 = clock()
                    exec(code, ns)
                    for sync in syncs:
                        sync()
                    t1 = clock()
                else:
                    record_start, record_end = timer.start.record, timer.end.record
                    t0 = clock()
                    record_start()
                    exec(code, ns)
                    record_end()
                    for sync in syncs:  # device-wide: every stream, not only the default
                        sync()
                    t1 = clock()
            finally:
                if gc_was_on:
                    gc.enable()
        return t1 - t0, (timer.elapsed_s() if timer is not None else None)

    def overhead(self, timer: _EventTimer | None) -> tuple[float, float | None]:
        """Median (wall, device) time of an empty cell under this timing."""
        walls: list[float] = []
        devs: list[float] = []
        for _ in range(_OVERHEAD_RUNS):
            w, d = self.run(_EMPTY_CELL, {}, timer)
            walls.append(w)
            if d is not None:
                devs.append(d)
        return statistics.median(walls), statistics.median(devs) if devs else None


def device_time_misses_work(
    walls: list[float],
    device_times: list[float],
    empty_wall: float | None = None,
    empty_device: float | None = None,
) -> bool:
    """True when the CUDA events clearly missed work that the device-wide synchronize
    waited for: the median synchronized wall time exceeds the median event time by more
    than half of it, and by more than twice the gap an empty cell shows plus 50 us (the
    synchronize's own latency). Work on a stream that does not order with the default
    stream (`Stream(non_blocking=True)`, another library's stream) does that."""
    if not walls or not device_times:
        return False
    wall = statistics.median(walls)
    dev = statistics.median(device_times)
    empty_gap = max(0.0, (empty_wall or 0.0) - (empty_device or 0.0))
    gap = wall - dev
    return gap > 0.5 * dev and gap > 2 * empty_gap + 50e-6


def _measure_side(
    side: _Side, namespace: dict[str, Any], iso: _Isolation, run: _RunSettings
) -> None:
    st = side.stats
    code = _cell.compile_cell(side.source, f"<gpuoptimize {side.label}>")
    uses = side.uses | _module_roots(namespace, side.facts.inputs)
    started = time.perf_counter()
    last_report = started
    out_buf = io.StringIO()
    timing = _Timing(out_buf)
    ns: dict[str, Any] | None = None

    def one_run(timer: _EventTimer | None) -> tuple[float, float | None]:
        nonlocal ns
        if ns is not None:
            ns.clear()  # free the previous run's objects (device memory) first
        run.rng_state.restore()
        ns = iso.fresh()
        timed = timing.run(code, ns, timer)
        if run.sample_scalars:
            _keep_scalars(side, ns)  # after the clock stopped
        return timed

    try:
        with _alarm(run.timeout_s), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            iso.take_snapshots()
            timing.refresh_syncs()
            st.first_run_s = one_run(None)[0]
            st.stdout = out_buf.getvalue()[:_STDOUT_KEEP]
            seen = set()
            for w in caught:
                text = f"{side.label}: {w.category.__name__}: {w.message}"
                if text not in seen and len(seen) < 3:
                    seen.add(text)
                    side.warnings.append(text[:300])
            warnings.simplefilter("ignore")
            # The first run may have imported the GPU library: choose the timer now.
            timing.refresh_syncs()
            timer = _EventTimer.for_side(uses)
            st.ran_on_gpu = timer is not None
            st.timer_overhead_s, st.device_timer_overhead_s = timing.overhead(timer)
            if run.progress:
                run.progress(side.label, 0, time.perf_counter() - started, run.budget_s)
            t_loop = time.perf_counter()
            while st.runs < run.max_runs:
                elapsed = time.perf_counter() - t_loop
                if st.runs >= run.min_runs and elapsed >= run.budget_s:
                    break
                if time.perf_counter() - started > run.timeout_s:
                    raise _Timeout()
                wall, dev = one_run(timer)
                st.times_s.append(wall)
                if dev is not None:
                    st.device_times_s.append(dev)
                now = time.perf_counter()
                if run.progress and now - last_report > 0.2:
                    last_report = now
                    run.progress(side.label, st.runs, now - started, run.budget_s)
            if run.progress:
                run.progress(side.label, st.runs, time.perf_counter() - started, run.budget_s)
        st.status = "ok"
        st.stdout = out_buf.getvalue()[:_STDOUT_KEEP]
        if iso.shared:
            side.warnings.append(
                f"{side.label}: {', '.join(iso.shared)} could not be copied and was shared"
            )
        _check_device_times(side)
    except _Timeout:
        st.status = "timeout"
        st.error = f"stopped after {run.timeout_s:g} s (time limit of a side)"
    except KeyboardInterrupt:
        st.status = "cancelled"
        st.error = "interrupted"
        raise _Cancelled() from None
    except _Uncopyable:
        raise
    except BaseException as e:  # the cell's own error: report, never raise
        side.exception = e
        if _is_oom(e):
            st.status = "oom"
            free_device_pools()
        else:
            st.status = "error"
        st.error = _describe_error(e, side.label)
        ns = None
    if ns is not None:
        side.values = {k: ns[k] for k in side.facts.outputs if k in ns}
        if _cell.LAST_VALUE in ns:
            side.values[_cell.LAST_VALUE] = ns[_cell.LAST_VALUE]
        side.last_ns = ns


#: Runs of a scalar output kept for its comparison by statistics.
_MAX_SCALAR_RUNS = 10_000


def _keep_scalars(side: _Side, ns: dict[str, Any]) -> None:
    """Appends this run's scalar outputs (numbers, 0-d arrays, on the host) to the side's
    runs: a value from random streams is compared by the spread of its repeats."""
    for name in [*side.facts.outputs, _cell.LAST_VALUE]:
        v = ns.get(name)
        if (
            v is None
            or isinstance(v, bool)
            or not (isinstance(v, int | float) or getattr(v, "ndim", None) == 0)
        ):
            continue
        runs = side.scalar_runs.setdefault(name, [])
        if len(runs) < _MAX_SCALAR_RUNS:
            with contextlib.suppress(Exception):
                runs.append(to_host(v))


def _check_device_times(side: _Side) -> None:
    """Events that missed work: report the synchronized wall time as the device time
    (an upper bound) and say why."""
    st = side.stats
    if not device_time_misses_work(
        st.times_s, st.device_times_s, st.timer_overhead_s, st.device_timer_overhead_s
    ):
        return
    events = statistics.median(st.device_times_s)
    st.device_times_s = list(st.times_s)
    st.device_time_from_wall = True
    side.warnings.append(
        f"{side.label}: CUDA events on the default stream measured {_fmt_s(events)}, but the "
        f"device-wide synchronize took the run to {_fmt_s(st.median_s)}: the cell runs work "
        "on streams that do not wait for the default stream (e.g. "
        "Stream(non_blocking=True)); its device time is reported as the synchronized wall "
        "time, an upper bound"
    )


def _instrumented_run(
    side: _Side, iso: _Isolation, rng_state: _RandomState, timeout_s: float
) -> None:
    """One extra run measuring transfers and peak device memory (not a timed run)."""
    try:
        has_transfers = _cell.has_transfer_calls(side.source)
    except SyntaxError:
        return
    peak = _PeakMemory()
    if not has_transfers and peak.hook is None:
        return
    syncs = _synchronizers()

    def sync() -> None:
        for s in syncs:
            s()

    meter = _TransferMeter(sync)
    code = _cell.compile_instrumented(side.source, f"<gpuoptimize {side.label}>")
    rng_state.restore()
    ns = iso.fresh()
    ns[_cell.TRANSFER_HOOK] = meter
    try:
        with (
            _alarm(timeout_s),
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
            warnings.catch_warnings(),
            peak,
        ):
            warnings.simplefilter("ignore")
            exec(code, ns)
            sync()
    except KeyboardInterrupt:
        raise _Cancelled() from None
    except BaseException as e:  # the timed runs passed: note it, keep the timings
        side.warnings.append(
            f"{side.label}: the instrumented run for transfers failed ({type(e).__name__})"
        )
        if _is_oom(e):
            free_device_pools()
        return
    finally:
        ns.clear()
    if has_transfers:
        side.stats.transfer_s = meter.seconds
        side.stats.transfer_bytes = meter.bytes
    side.stats.peak_device_bytes = peak.peak


def _describe_error(e: BaseException, label: str) -> str:
    line = None
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == f"<gpuoptimize {label}>":
            line = tb.tb_lineno
        tb = tb.tb_next
    where = f" (line {line})" if line else ""
    return f"{type(e).__name__}: {e}{where}"[:500]


# ---------------------------------------------------------------------------------------
# Statistics


def bootstrap_speedup_ci(
    baseline: list[float],
    candidate: list[float],
    *,
    resamples: int = _BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> tuple[float, float] | None:
    """95% CI of median(baseline) / median(candidate), by a seeded bootstrap."""
    if len(baseline) < 3 or len(candidate) < 3:
        return None
    np = sys.modules.get("numpy")
    if np is not None:
        rng = np.random.default_rng(seed)
        b = np.asarray(baseline)
        c = np.asarray(candidate)
        mb = np.median(b[rng.integers(0, b.size, (resamples, b.size))], axis=1)
        mc = np.median(c[rng.integers(0, c.size, (resamples, c.size))], axis=1)
        ratios = mb / mc
        lo, hi = np.quantile(ratios, [0.025, 0.975])
        return float(lo), float(hi)
    rng = _random.Random(seed)
    resamples = min(resamples, 200)
    ratios = []
    for _ in range(resamples):
        mb = statistics.median(rng.choices(baseline, k=len(baseline)))
        mc = statistics.median(rng.choices(candidate, k=len(candidate)))
        ratios.append(mb / mc)
    ratios.sort()
    return ratios[int(0.025 * (resamples - 1))], ratios[int(0.975 * (resamples - 1))]


def _versions() -> dict[str, str]:
    out = {"python": sys.version.split()[0]}
    try:
        from . import __version__

        out["gpuoptimize"] = __version__
    except ImportError:
        pass
    for mod in (
        "numpy",
        "scipy",
        "pandas",
        "cupy",
        "numba",
        "numba_cuda",
        "torch",
        "warp",
        "cudf",
        "cuml",
        "sklearn",
        "networkx",
    ):
        m = sys.modules.get(mod)
        v = getattr(m, "__version__", None) if m is not None else None
        if isinstance(v, str):
            out[mod] = v
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        with contextlib.suppress(Exception):
            rt = cupy.cuda.runtime.runtimeGetVersion()
            out["cuda_runtime"] = f"{rt // 1000}.{rt % 1000 // 10}"
    if _cuda_sim():
        out["numba_cudasim"] = "1"
    return out


def run_for_real(source: str, namespace: dict[str, Any]) -> Any:
    """Run a cell once in `namespace` itself, untimed, and return its last expression's
    value: what the cell does without the A/B (used to give a magic cell its effect)."""
    code = _cell.compile_cell(source, "<gpuoptimize cell>")
    try:
        exec(code, namespace)
        return namespace.get(_cell.LAST_VALUE)
    finally:
        namespace.pop(_cell.LAST_VALUE, None)


# ---------------------------------------------------------------------------------------
# The A/B run


def run_ab(
    baseline_src: str,
    candidate_src: str,
    namespace: dict[str, Any],
    *,
    budget_s: float = DEFAULT_BUDGET_S,
    rtol: float | None = None,
    atol: float | None = None,
    allow_side_effects: bool = False,
    timeout_s: float | None = None,
    min_runs: int = MIN_RUNS,
    max_runs: int = MAX_RUNS,
    progress: Progress | None = None,
    is_stale: Callable[[], bool] | None = None,
) -> ABResult:
    """Run both sides in copies of `namespace`, time them and compare their outputs.

    `budget_s` is the time each side repeats for after its first run; `timeout_s` (default
    max(60, 20 x budget)) stops a side that runs past it. `namespace` and the objects in it
    are left as they were, whatever the cell does. Never raises for errors in the cells;
    a KeyboardInterrupt ends the run with verdict "cancelled".
    """
    if timeout_s is None:
        timeout_s = max(60.0, 20.0 * budget_s)
    base = SideStats()
    cand = SideStats()
    result = ABResult(baseline=base, candidate=cand, verdict="error")
    try:
        try:
            bf = _cell.analyze(baseline_src)
        except SyntaxError as e:
            result.reason = f"the baseline has a syntax error: {e.msg} (line {e.lineno})"
            return result
        try:
            cf = _cell.analyze(candidate_src)
        except SyntaxError as e:
            result.reason = f"the candidate has a syntax error: {e.msg} (line {e.lineno})"
            return result
        effects = [f"baseline {s}" for s in bf.side_effects]
        effects += [f"candidate {s}" for s in cf.side_effects]
        if effects and not allow_side_effects:
            result.verdict = "refused"
            result.reason = (
                f"not repeated: the cell has side effects ({effects[0]}"
                + (f", and {len(effects) - 1} more" if len(effects) > 1 else "")
                + "); allow with --allow-side-effects"
            )
            result.warnings = effects
            return result
        if effects:
            result.warnings.append("side effects allowed: " + "; ".join(effects))
        for label, facts in (("baseline", bf), ("candidate", cf)):
            problems = _Isolation(namespace, facts).problems
            if problems and not allow_side_effects:
                result.verdict = "refused"
                result.reason = f"not repeated: the {label} {problems[0]}"
                return result
        return _run(
            result,
            namespace,
            bf,
            cf,
            baseline_src,
            candidate_src,
            budget_s,
            rtol,
            atol,
            timeout_s,
            min_runs,
            max_runs,
            progress,
            is_stale,
            allow_side_effects,
        )
    except (KeyboardInterrupt, _Cancelled):
        result.verdict = "cancelled"
        result.reason = "interrupted; nothing in the namespace was changed"
        result.baseline_values = {}
        result.candidate_values = {}
        return result
    except _Uncopyable as e:
        result.verdict = "refused"
        result.reason = f"not repeated: {e}"
        return result


def _run(
    result: ABResult,
    namespace: dict[str, Any],
    bf: _cell.CellFacts,
    cf: _cell.CellFacts,
    baseline_src: str,
    candidate_src: str,
    budget_s: float,
    rtol: float | None,
    atol: float | None,
    timeout_s: float,
    min_runs: int,
    max_runs: int,
    progress: Progress | None,
    is_stale: Callable[[], bool] | None,
    allow_side_effects: bool,
) -> ABResult:
    rng_state = _RandomState()
    user_bindings = dict(namespace)
    b = _Side("baseline", baseline_src, bf, result.baseline)
    c = _Side("candidate", candidate_src, cf, result.candidate)
    run = _RunSettings(
        budget_s=budget_s,
        min_runs=min_runs,
        max_runs=max_runs,
        timeout_s=timeout_s,
        progress=progress,
        rng_state=rng_state,
        allow_sharing=allow_side_effects,
        sample_scalars=bf.uses_random or cf.uses_random,
    )
    try:
        _run_side(b, namespace, run)
        _run_side(c, namespace, run)
    finally:
        rng_state.restore()
        _restore_bindings(namespace, user_bindings, result)
    result.warnings += b.warnings + c.warnings
    result.baseline_values = b.values
    result.candidate_values = c.values

    if progress:
        progress("compare", 0, 0.0, budget_s)
    if b.stats.status == "ok" and c.stats.status == "ok":
        random = bf.uses_random or cf.uses_random
        result.outputs, notes = _compare_outputs(b, c, rtol, atol, random)
        result.warnings += notes
        result.speedup_ci95 = bootstrap_speedup_ci(b.stats.times_s, c.stats.times_s)
    result.versions = _versions()
    if c.stats.ran_on_gpu:
        from . import device

        result.device = device.current_gpu()
    elif _cuda_sim() and "numba" in c.uses:
        result.warnings.append(
            "the candidate ran on Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1): "
            "its times are CPU times, not GPU times"
        )
    elif c.stats.status == "ok":
        result.warnings.append("the candidate did not run on a GPU")
    if result.match_status == UNVERIFIED and result.outputs:
        result.warnings.append(_unverified_summary(result.outputs))
    _decide(result, b, c)
    b.last_ns = c.last_ns = None
    if is_stale is not None and result.verdict != "cancelled":
        try:
            stale = bool(is_stale())
        except Exception:
            stale = False
        if stale:
            result.stale = True
            result.verdict = "stale"
            result.reason = "the cell changed while it was measured; run it again"
    return result


def _restore_bindings(namespace: dict[str, Any], before: dict[str, Any], result: ABResult) -> None:
    """Undo rebinding of the user's globals by functions the cell called (`global x`)."""
    changed = [k for k in before if k not in namespace or namespace[k] is not before[k]]
    added = [k for k in namespace if k not in before]
    if changed or added:
        for k in added:
            del namespace[k]
        namespace.update({k: before[k] for k in changed})
        result.warnings.append(
            "a function called by the cell rebinds globals of the notebook ("
            + ", ".join(sorted(changed + added)[:5])
            + "); they were restored"
        )


def _unverified_summary(outputs: list[OutputComparison]) -> str:
    """Which outputs could not be verified, and which matched by statistics."""
    names = [o.name for o in outputs if o.status == UNVERIFIED]
    text = "some outputs could not be verified: " + ", ".join(names)
    scalars = [o.name for o in outputs if o.status == UNVERIFIED and _is_random_scalar(o)]
    if scalars:
        text += f" ({', '.join(scalars)}: a single value from random streams)"
    stat = [o.name for o in outputs if o.status == STATISTICAL]
    if stat:
        text += "; matched by statistics: " + ", ".join(stat)
    same = [o.name for o in outputs if o.status == EQUAL]
    if same:
        text += "; equal: " + ", ".join(same)
    return text


def _is_random_scalar(o: OutputComparison) -> bool:
    return bool(o.detail and RANDOM_SCALAR_DETAIL in o.detail)


def _compare_outputs(
    b: _Side, c: _Side, rtol: float | None, atol: float | None, random: bool
) -> tuple[list[OutputComparison], list[str]]:
    """The comparisons, and notes for the result's warnings."""
    out: list[OutputComparison] = []
    notes: list[str] = []
    states: list[str] = []
    names = [n for n in b.values if n != _cell.LAST_VALUE]
    in_registers = _cell.kept_in_kernel(
        (n for n in names if n not in c.values), c.facts.fused_kernels
    )
    timings: list[str] = []
    for n in names:
        bv = b.values[n]
        if isinstance(bv, _NOT_DATA) or (callable(bv) and not hasattr(bv, "__array__")):
            continue  # functions, modules, classes: code, not results
        if n in b.facts.clocks:
            timings.append(n)  # a clock's reading: how long the run took, not a result
            continue
        if is_random_state(bv) or is_random_state(c.values.get(n)):
            states.append(n)  # a generator's state is how results were drawn, not one
            continue
        if n not in c.values:
            if n in b.facts.loop_vars:
                continue  # a loop counter the rewrite has no need for
            if n in in_registers:
                notes.append(
                    f"{n} is kept in the candidate's fused kernel (registers, never written):"
                    " the analysis found nothing that reads it later, so it is not bound"
                )
                continue
            if n in b.facts.loop_temporaries and n not in c.facts.outputs:
                notes.append(
                    f"{n} is a temporary of the cell's loop (each iteration binds it, then reads"
                    " it; nothing after the loop in the cell reads it) that the candidate does"
                    " without: not compared, and not bound after the candidate runs"
                )
                continue
            out.append(
                OutputComparison(
                    n,
                    UNVERIFIED,
                    "presence",
                    detail="only the baseline sets it: later cells that read it would fail",
                )
            )
            continue
        r = compare(n, bv, c.values[n], rtol=rtol, atol=atol, random=random)
        values_differ = r.method == "exact" or r.method.startswith("elementwise allclose")
        if r.status == NOT_EQUAL and values_differ and n in b.facts.vectors:
            r = compare_up_to_sign(n, bv, c.values[n], rtol, atol) or r
        # a transform's output from random streams that is as close as its rounding allows
        # (the bench calls everything computed after a draw random): equal, not statistical
        by_statistics = random and r.method.startswith("statistical")
        if (r.status == NOT_EQUAL or by_statistics) and n in b.facts.transforms:
            computed_in = _computed_in(b.facts.transform_sources.get(n, ()), b)
            if values_differ or by_statistics:
                operands = _operand_scale(b.facts.transform_operands.get((n, None)), b)
                r = (
                    compare_relative_to_largest(n, bv, c.values[n], rtol, computed_in, operands)
                    or r
                )
            elif r.method == "float columns as arrays":
                columns = b.facts.transform_columns.get(n)
                by_column = None
                if columns is not None:
                    by_column = {
                        k: (
                            _computed_in(v, b),
                            _operand_scale(b.facts.transform_operands.get((n, k)), b),
                        )
                        for k, v in columns.items()
                        if v is not None
                    }
                r = (
                    compare_frame_relative_to_largest(
                        n, bv, c.values[n], rtol, computed_in, by_column
                    )
                    or r
                )
        out.append(r)
    if _cell.LAST_VALUE in b.values:
        bv = b.values[_cell.LAST_VALUE]
        if _cell.LAST_VALUE not in c.values:
            out.append(
                OutputComparison(
                    "(last expression)",
                    NOT_EQUAL,
                    "presence",
                    detail="the candidate does not end with an expression",
                )
            )
        else:
            out.append(
                compare(
                    "(last expression)",
                    bv,
                    c.values[_cell.LAST_VALUE],
                    rtol=rtol,
                    atol=atol,
                    random=random,
                )
            )
    if states:
        notes.append(f"random generator state not compared: {', '.join(states)}")
    if timings:
        notes.append(f"clock readings not compared (timings, not results): {', '.join(timings)}")
    # a single value from random streams: judged by the spread of each side's repeats, also
    # when the two last runs agree by chance
    for i, o in enumerate(out):
        key = _cell.LAST_VALUE if o.name == "(last expression)" else o.name
        if key not in b.scalar_runs or key not in c.scalar_runs:
            continue
        b_runs, c_runs = b.scalar_runs[key], c.scalar_runs[key]
        if _is_random_scalar(o) or (
            o.status == EQUAL and _runs_disagree(o.name, b_runs, c_runs, rtol, atol)
        ):
            out[i] = compare_random_scalar(o.name, b_runs, c_runs)
    # a device value left inside a host container: equal by value, but later host code must
    # copy it (compare._element)
    notes += [
        o.detail
        for o in out
        if o.status != NOT_EQUAL and (o.detail or "").startswith(HELD_ON_DEVICE)
    ]
    return out, notes


def _computed_in(sources: Iterable[str], b: _Side) -> tuple[Any, str] | None:
    """The lowest float precision among the transform outputs `sources` (what a name, or a
    frame's column, is computed from: `_cell.transform_sources`, `_cell.transform_columns`), as
    (dtype, "power (float32)"), found among the baseline's values or in its last run's
    namespace (the bench passes a notebook's values in parts); None when none is known. A
    float64 result computed from a float32 spectrum carries float32's rounding, which its own
    dtype hides."""
    found: list[tuple[str, str]] = []
    ns = b.last_ns or {}
    for src in sorted(sources):
        v = b.values[src] if src in b.values else ns.get(src)
        dtype = getattr(v, "dtype", None)
        if getattr(dtype, "kind", None) in ("f", "c") and str(dtype) in DEFAULT_TOLERANCES:
            found.append((src, str(dtype)))
    if not found:
        return None
    low = max(DEFAULT_TOLERANCES[dt][0] for _, dt in found)
    lowest = [(src, dt) for src, dt in found if DEFAULT_TOLERANCES[dt][0] == low]
    # named by a real dtype where one has it (complex64's tolerance is float32's)
    dtype = min((dt for _, dt in lowest), key=lambda dt: dt.startswith("complex"))
    return dtype, ", ".join(f"{src} ({dt})" for src, dt in lowest)


def _operand_scale(operands: list[_cell.Operand] | None, b: _Side) -> OperandScale | None:
    """The scale of the rounding a name (or a frame's column) bound from a sum or difference
    carries (`_cell.transform_operands`): the largest |value| and the root mean square of its
    operands computed from a transform (names, frames' columns), in the baseline's values or
    its last run's namespace, with their names, and whether another operand is exact (a
    number, a name computed from no transform: `drift = t1 - t0 + est`, whose epoch times
    carry no float32 rounding and must not set its scale). None when it was bound from none,
    no operand is computed from a transform, or such an operand's values are not all known
    numbers."""
    import numpy as np

    if not operands:
        return None
    ns = b.last_ns or {}
    largest = rms = 0.0
    names: list[str] = []
    exact = False
    for op in operands:
        if isinstance(op, float):
            exact = True
            continue
        name, column = op
        derived = (
            name in b.facts.transforms
            if column is None
            else b.facts.transform_columns.get(name, {}).get(column) is not None
        )
        if not derived:
            exact = True
            continue
        v = b.values[name] if name in b.values else ns.get(name)
        if column is not None:
            try:
                v = v[column]  # type: ignore[index]
            except Exception:
                return None
            names.append(f"{name}[{column!r}]")
        else:
            names.append(name)
        try:
            x = np.asarray(to_host(v))
        except Exception:
            return None
        if x.dtype.kind not in "iufc" or x.size == 0:
            return None
        finite = np.abs(x[np.isfinite(x)]) if x.dtype.kind in "fc" else np.abs(x)
        largest = max(largest, float(finite.max(initial=0)))
        rms = max(rms, _rms(finite))
    if not names:
        return None
    return OperandScale(largest, rms, ", ".join(dict.fromkeys(names)), exact)


def _runs_disagree(
    name: str, b_runs: list[Any], c_runs: list[Any], rtol: float | None, atol: float | None
) -> bool:
    """True when some run of either side is not close to the baseline's last value: the
    scalar is drawn afresh on each run and the two last runs agreed by chance (an estimate
    on a coarse grid, such as 4 * hits / 5000, repeats about once in a hundred pairs of
    runs), which says nothing about the rewrite. Runs equal to the reference need no
    tolerance check; a value both sides give on every run stays "equal"."""
    ref = b_runs[-1]
    return any(
        compare(name, ref, v, rtol=rtol, atol=atol).status != EQUAL
        for v in (*b_runs, *c_runs)
        if v != ref
    )


_NOT_DATA = (types.ModuleType, types.FunctionType, type)


def _decide(r: ABResult, b: _Side, c: _Side) -> None:
    bs, cs = b.stats, c.stats
    if bs.status != "ok":
        r.verdict = "error"
        r.reason = f"the baseline itself failed ({bs.status}): {bs.error}"
        return
    if cs.status != "ok":
        no_gpu = _no_gpu_reason(c.exception) if c.exception is not None else None
        if no_gpu:
            r.verdict = "no_gpu"
            r.reason = no_gpu
        elif cs.status == "oom":
            r.verdict = "error"
            r.reason = f"the candidate ran out of memory; pools were freed ({cs.error})"
        else:
            r.verdict = "error"
            r.reason = f"the candidate failed ({cs.status}): {cs.error}"
        return
    if r.match_status == NOT_EQUAL:
        bad = next(o for o in r.outputs if o.status == NOT_EQUAL)
        r.verdict = "not_equal"
        r.reason = f"{bad.name} differs: {bad.detail or bad.method}"
        return
    e2e = r.speedup_end_to_end
    ci = r.speedup_ci95
    if e2e is not None and e2e > 1 and (ci is None or ci[0] > 1):
        r.verdict = "gpu_faster"
        t, cm = cs.transfer_s, cs.median_s
        if t is not None and cm and t > 0.5 * cm:
            r.warnings.append(
                f"host<->device copies take {_fmt_s(t)} of the candidate's {_fmt_s(cm)}: "
                "keeping the data on the device across cells would gain more"
            )
        return
    r.verdict = "gpu_slower"
    bm, cm = bs.median_s or 0.0, cs.median_s or 0.0
    dev = r.speedup_device
    if e2e is not None and ci is not None and ci[0] <= 1 <= ci[1]:
        r.reason = f"no significant difference: {e2e:.3g}x, 95% CI {ci[0]:.3g}-{ci[1]:.3g}"
    elif cs.transfer_s is not None and cm and cs.transfer_s > 0.5 * cm:
        r.reason = (
            f"transfer dominated: host<->device copies take {_fmt_s(cs.transfer_s)} of "
            f"{_fmt_s(cm)}; keep the data on the device across cells"
        )
    elif bm < TOO_SMALL_S:
        r.reason = (
            f"too small: the baseline takes only {_fmt_s(bm)}; launch and transfer "
            "overheads cost more"
        )
    elif dev is not None and dev > 1:
        r.reason = (
            f"the device part is {dev:.3g}x faster, but host-side overhead makes the "
            f"whole {1 / e2e:.3g}x slower"
            if e2e
            else "host-side overhead dominates"
        )
    elif e2e is not None:
        r.reason = f"the candidate is {1 / e2e:.3g}x slower"
    else:
        r.reason = "no timed runs"
