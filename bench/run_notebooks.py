"""Whole notebooks, original against the product's rewrite: time per cell, compare results.

The per-cell A/B harness measures one cell with its inputs shared; a user runs whole
notebooks, where what counts is the rewrite of every cell together (data kept on the device
across cells, copies at host boundaries, kernels compiled on first use). This runs each
bench/notebooks/NAME.py and its rewrite bench/notebooks/out/NAME.gpu.py (made on a machine
with Node by bench/notebooks_fix.sh) as a user would, top to bottom, each run in a FRESH
Python process whose working directory is a new temporary one, and says:

- how long each cell takes by wall clock (the rewrite's cell ends with a device synchronize,
  so queued GPU work is charged to the cell that queued it). Per notebook, in this order:
  `cold`, the rewrite with an empty CuPy kernel cache (CUPY_CACHE_DIR: every NVRTC compile of
  its elementwise and reduction kernels, cupyx.scipy's filters and RawKernels paid, as on a
  user's first session on a machine; it fills the cache); `warm`, the rewrite again in a fresh
  process with that cache (every later session: the figure that matters most); `orig`, the
  original once (`--orig-twice` adds `orig2`, a second run with a warm OS file cache, for
  symmetry; it has shown nothing so far). Speedup warm = orig / warm, cold = orig / cold;
- beside each cell's times, the product's predictions from bench/notebooks/out/NAME.analyze.json
  (`gpuoptimize analyze --format json`): the cell's best predicted speedup, a refusal's
  predicted figure, and, when the analysis gives them, its predicted first-run and
  fresh-session seconds. Per notebook, "pred" is the speedup those per-cell predictions imply
  for the measured original (each predicted cell's orig time divided by its prediction, the
  other cells unchanged), to hold against the measured warm speedup;
- whether every global the original leaves (arrays, scalars, containers, frames) matches the
  rewrite's first run in this call (cold, or warm under --warm-only), judged as the product's
  results check judges a cell (gpuoptimize.harness's output comparison over
  gpuoptimize.compare: dtype-aware tolerances, up-to-sign vectors, FFT-derived names relative
  to their largest value, random-stream values by statistics);
- whether each cell prints the same text: numbers within the precision printed, any other
  change of form (`array(3.5)` for `3.5`, a `<cupy...>` repr) flagged;
- where a run stops: the cell and its exception's last line. Under `--cupy-double` an error
  that is the test double's own limit (RawKernel, ufunc methods such as `cp.add.at`, NumPy
  functions it forwards to and this NumPy lacks) is reported as "double cannot run", not as
  a defect of the rewrite.

`--cupy-double` puts test/python/testdouble_cupy first on the path: a TEST DOUBLE of CuPy
that runs CuPy calls on NumPy. Its results show that the rewrite runs and matches; its
timings mean nothing. Where real CuPy would raise and the double's arrays (NumPy arrays
underneath) pass, pandas' constructors and the matplotlib stand-in refuse them, and its
`ndarray(...)` reprs read as CuPy's `array(...)`. Real timings need the GPU machine:

    python3 bench/run_notebooks.py --out DIR [NAME...]

Time. The GPU machine's tool runs a command for at most 10 minutes, so a call is capped by
BENCH_DEADLINE_S (default 540) and each notebook by --deadline-s (all its runs together).
A notebook is run whole or not at all: before it starts, its runs' time is estimated from
the H200's run 20 figures (RUN20_WALL_S, or --estimates RESULTS.json of a later call), and a
notebook that would not fit in the time left is skipped, the table saying how long it needs;
the next ones are still tried. A run's own time limit (RUN_FACTOR times its estimate, at
least RUN_MIN_S) only stops a run that hangs. `--plan-groups N` prints the notebooks in N
groups of about equal estimated time, one device call each, and runs nothing.

Before the first notebook (not under --cupy-double) one throwaway process imports NumPy, SciPy,
pandas and CuPy and runs one kernel (WARM_UP), so that what a machine pays once whatever the
notebook (libraries read into the OS file cache, the driver's set-up) is not charged to the
first notebook's cold run.

Kernel cache. Each notebook has its own cache folder, --cache-dir DIR/NAME (default: under
TMPDIR, gone after the call), emptied before its cold run. With `--warm-only` a notebook
whose folder already holds kernels (an earlier call on the same machine filled it) runs warm
and orig only; one whose folder is empty still gets its cold run first, and says so.

Output. Under --out only three files, rewritten after every notebook (a call cut short keeps
what it did): table.txt (also printed: the notebooks, then one line per cell), results.json,
and notebooks.tar.gz holding both and, under logs/, each run's NAME.RUN.log (stdout and
stderr) and NAME.RUN.cells.jsonl (per cell, written as it finishes). One archive rather than
loose logs because the GPU machine's tool returns only a few files from its output folder.
In results.json a notebook's "runs" are keyed cold/warm/orig/orig2 and each cell holds
RUN_s, RUN_error, the source's first line and "predicted". `--merge OUT A.json B.json ...`
joins several calls' results.json into OUT/table.txt and OUT/results.json (a notebook in
more than one file: its first file's runs, then runs only a later file has, such as a
--warm-only call's). Work files (each run's working directory, the first runs' pickled
globals: up to a few GB for the largest notebooks, deleted as soon as read; the logs until
archived; the default kernel caches) go under TMPDIR.

The child side (`--child`) is this same script, so the values it pickles are of classes this
module defines, which the parent unpickles.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import pickle
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOUBLE = ROOT / "test" / "python" / "testdouble_cupy"
SHIM = ROOT / "python_shim"
sys.path.insert(0, str(SHIM))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import nb_percent  # noqa: E402  (bench/nb_percent.py, beside this script)

#: A notebook's runs, in the order they run (see the module doc): the rewrite with an empty
#: kernel cache, the rewrite with the cache that run filled, the original, the original again.
RUNS = ("cold", "warm", "orig", "orig2")
#: Which file each run executes.
SIDE = {"cold": "gpu", "warm": "gpu", "orig": "orig", "orig2": "orig"}

#: Exceptions of the test double that are its limits, not the rewrite's defects.
_DOUBLE_ATTR = re.compile(
    r"'function' object has no attribute '(at|reduce|outer|accumulate|reduceat)'"
    r"|module 'numpy' has no attribute"
)


# ---------------------------------------------------------------------------------------
# Child side: run one notebook's cells in this (fresh) process


class OnDevice:
    """A host copy of a value that was on the device (CuPy...) at the end of the run: the
    results check treats a device 0-d array like a NumPy scalar (CuPy has no device scalars),
    so where a value lived must survive the pickle."""

    def __init__(self, host: Any) -> None:
        self.host = host


class NotPickled:
    """A global whose host copy could not be pickled: reported as not compared."""

    def __init__(self, type_name: str, why: str) -> None:
        self.type_name, self.why = type_name, why


def _host_tree(v: Any, to_host: Any, depth: int = 0) -> Any:
    """`v` with every device value (also inside lists, tuples and dicts) copied to the host
    and wrapped in OnDevice: the parent needs neither CuPy nor a GPU to compare."""
    h = to_host(v)
    if h is not v:
        return OnDevice(h)
    if depth < 8 and type(v) in (list, tuple):
        return type(v)(_host_tree(x, to_host, depth + 1) for x in v)
    if depth < 8 and type(v) is dict:
        return {k: _host_tree(x, to_host, depth + 1) for k, x in v.items()}
    return v


def _is_device_module(v: Any) -> bool:
    return type(v).__module__.split(".")[0] in ("cupy", "cupyx")


def _stub_matplotlib() -> None:
    """Matplotlib with the Agg backend; where it is missing, a stand-in that, like the real
    one, refuses device arrays (it also refuses the test double's, which NumPy would take)."""
    os.environ["MPLBACKEND"] = "Agg"
    try:
        import matplotlib

        matplotlib.use("Agg")
        return
    except ImportError:
        pass

    def host_only(*args: Any, **kwargs: Any) -> Artist:
        for a in (*args, *kwargs.values()):
            for x in a if isinstance(a, list | tuple) else (a,):
                if _is_device_module(x):
                    raise TypeError(
                        "matplotlib stand-in: implicit conversion to a NumPy array is not "
                        f"allowed ({type(x).__module__}.{type(x).__name__})"
                    )
        return Artist()

    class Artist:
        """A figure, axes or anything they return: every method checks its arguments."""

        def __getattr__(self, name: str) -> Any:
            return host_only

        def __getitem__(self, key: Any) -> Artist:
            return Artist()

    def subplots(nrows: int = 1, ncols: int = 1, **kwargs: Any) -> tuple[Artist, Any]:
        import numpy as np

        if nrows * ncols == 1:
            return Artist(), Artist()
        axes = np.empty((nrows, ncols), dtype=object)
        for i in np.ndindex(axes.shape):
            axes[i] = Artist()
        return Artist(), axes.squeeze()

    mpl = types.ModuleType("matplotlib")
    plt = types.ModuleType("matplotlib.pyplot")
    mpl.use = lambda *a, **k: None  # type: ignore[attr-defined]
    mpl.pyplot = plt  # type: ignore[attr-defined]
    plt.subplots = subplots  # type: ignore[attr-defined]
    plt.__getattr__ = lambda name: host_only  # type: ignore[attr-defined]
    sys.modules["matplotlib"] = mpl
    sys.modules["matplotlib.pyplot"] = plt


def _holds_device_array(x: Any, depth: int = 0) -> bool:
    if _is_device_module(x) and hasattr(x, "shape"):
        return True
    if depth < 4 and isinstance(x, dict):
        return any(_holds_device_array(v, depth + 1) for v in x.values())
    if depth < 4 and isinstance(x, list | tuple):
        return any(_holds_device_array(v, depth + 1) for v in x[:50])
    return False


def _pandas_refuses_device_arrays() -> None:
    """Under the test double: pandas' constructors raise on a CuPy array (also inside a dict
    or list), as they do with real CuPy, which refuses implicit conversion to NumPy; the
    double's arrays, NumPy arrays underneath, would pass silently (a crash on the GPU that
    the double hides, as in h_spectro's `pd.DataFrame({name: cp.trapz(...)})`)."""
    try:
        import pandas as pd
    except ImportError:
        return
    for cls in (pd.DataFrame, pd.Series):
        init = cls.__init__

        def strict(self: Any, *args: Any, _init: Any = init, _name: str = cls.__name__, **kw: Any):
            if any(_holds_device_array(a) for a in (*args, *kw.values())):
                raise TypeError(
                    f"pd.{_name} given a CuPy array: real CuPy refuses the implicit conversion "
                    "to NumPy (check added by bench/run_notebooks.py under --cupy-double)"
                )
            _init(self, *args, **kw)

        cls.__init__ = strict


class _Tee(io.TextIOBase):
    """The cell's stdout, kept and also passed on to the side's log."""

    def __init__(self, log: Any) -> None:
        self.buf = io.StringIO()
        self.log = log

    def write(self, s: str) -> int:
        self.buf.write(s)
        self.log.write(s)
        return len(s)

    def flush(self) -> None:
        self.log.flush()


def _error_record(exc: BaseException, double: bool) -> dict[str, Any]:
    """The exception's last traceback line, and whether it is the test double's limit."""
    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
    limit = double and (
        "TEST DOUBLE" in str(exc)
        or (isinstance(exc, AttributeError) and bool(_DOUBLE_ATTR.search(str(exc))))
    )
    return {"error": last, "double_cannot_run": limit}


def _synchronize() -> None:
    """Wait for the device's queued work, when the cell's side has imported CuPy."""
    cp = sys.modules.get("cupy")
    if cp is not None:
        cp.cuda.Device().synchronize()


def run_child(source: Path, cells_out: Path, dump: Path, double: bool) -> int:
    """Run the notebook's code cells in order; one JSON line per cell; then the globals
    (unless `dump` is `-`: a second, timing-only run)."""
    _stub_matplotlib()
    if double:
        _pandas_refuses_device_arrays()
    from gpuoptimize import _cell
    from gpuoptimize.compare import to_host

    cells = nb_percent.parse(source.read_text(encoding="utf-8"))
    ns: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
    log = sys.stdout
    with open(cells_out, "w", encoding="utf-8") as out:
        for index, (kind, src) in enumerate(cells):
            if kind != "code":
                continue
            print(f"----- cell {index}", flush=True)
            tee = _Tee(log)
            record: dict[str, Any] = {"cell": index}
            t0 = time.perf_counter()
            try:
                code = _cell.compile_cell(src, f"<cell {index}>")
                with contextlib.redirect_stdout(tee):
                    exec(code, ns)  # noqa: S102  (running the notebook is the point)
                    value = ns.pop(_cell.LAST_VALUE, None)
                    # Jupyter shows a cell's last value unless the cell ends with `;`
                    if value is not None and not src.rstrip().endswith(";"):
                        print(repr(value))
                    _synchronize()
            except Exception as exc:  # noqa: BLE001  (a notebook cell may raise anything)
                traceback.print_exc()
                record.update(_error_record(exc, double))
            record["seconds"] = time.perf_counter() - t0
            record["stdout"] = tee.buf.getvalue()
            out.write(json.dumps(record) + "\n")
            out.flush()
            if "error" in record:
                break
    if str(dump) == "-":
        return 0
    # each global pickled on its own: one the parent cannot unpickle (an object of a CuPy
    # class, and the parent runs without CuPy) costs that name only
    values: dict[str, tuple[str, bytes]] = {}
    for name, v in list(ns.items()):
        if name.startswith("_") or isinstance(v, types.ModuleType | type) or callable(v):
            continue
        type_name = f"{type(v).__module__}.{type(v).__qualname__}"
        try:
            values[name] = (type_name, pickle.dumps(_host_tree(v, to_host)))
        except Exception as exc:  # noqa: BLE001  (any object may refuse the copy or pickle)
            values[name] = (type_name, pickle.dumps(NotPickled(type_name, repr(exc))))
    with open(dump, "wb") as f:
        pickle.dump(values, f)
    return 0


# ---------------------------------------------------------------------------------------
# Parent side: run both sides, compare


class _DeviceCopy:
    """What gpuoptimize.compare.to_host takes for a device array (its class's top module is
    `cupy` and it has `.get()`): an OnDevice copy is compared as the device value it was."""

    def __init__(self, host: Any) -> None:
        self._host = host

    def get(self) -> Any:
        return self._host


_DeviceCopy.__module__ = "cupy.bench_host_copy"


def _as_device_copies(v: Any) -> Any:
    if isinstance(v, OnDevice):
        return _DeviceCopy(v.host)
    if type(v) in (list, tuple):
        return type(v)(_as_device_copies(x) for x in v)
    if type(v) is dict:
        return {k: _as_device_copies(x) for k, x in v.items()}
    return v


def _unpickle(type_name: str, data: bytes) -> Any:
    try:
        return pickle.loads(data)
    except Exception as exc:  # noqa: BLE001  (a class this process cannot import)
        return NotPickled(type_name, f"not unpickled here: {type(exc).__name__}: {exc}")


def run_side(
    name: str,
    run: str,
    source: Path,
    dirs: tuple[Path, Path, Path | None],
    limit_s: float,
    dump: bool,
    double: bool,
) -> dict[str, Any]:
    """One run of one notebook in a fresh subprocess: its cells' records and wall time, and
    when `dump` its globals (the run whose values are compared). `dirs`: the logs folder, the
    work folder, and the rewrite's CUPY_CACHE_DIR (None for the original)."""
    logs, work, cupy_cache = dirs
    cells_out = logs / f"{name}.{run}.cells.jsonl"
    pkl = work / f"{name}.{run}.pkl"
    cwd = Path(tempfile.mkdtemp(prefix=f"{name}.{run}.", dir=work))
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    if cupy_cache is not None:
        env["CUPY_CACHE_DIR"] = str(cupy_cache)
    path = ([str(DOUBLE)] if double else []) + [str(SHIM), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in path if p)
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(source)]
    argv += [str(cells_out), str(pkl) if dump else "-"] + (["--cupy-double"] if double else [])
    t0 = time.perf_counter()
    timed_out = False
    with open(logs / f"{name}.{run}.log", "w", encoding="utf-8") as log:
        try:
            rc = subprocess.run(
                argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=limit_s
            ).returncode
        except subprocess.TimeoutExpired:
            rc, timed_out = None, True
    wall = time.perf_counter() - t0
    records = []
    if cells_out.exists():
        records = [json.loads(x) for x in cells_out.read_text().splitlines() if x.strip()]
    side = {"wall_s": wall, "rc": rc, "timed_out": timed_out, "limit_s": limit_s}
    side["cells"] = records
    side["values"] = None
    if dump and pkl.exists():
        try:
            with open(pkl, "rb") as f:
                side["values"] = {n: _unpickle(*tv) for n, tv in pickle.load(f).items()}
        except (OSError, pickle.UnpicklingError, EOFError) as exc:
            side["dump_error"] = f"{type(exc).__name__}: {exc}"  # see the run's log
        pkl.unlink()
    shutil.rmtree(cwd, ignore_errors=True)  # what the notebook wrote (data files, figures)
    return side


def _stopped(side: dict[str, Any]) -> bool:
    """Whether a run did not finish the notebook (timed out, or a cell raised)."""
    return side["timed_out"] or any("error" in c for c in side["cells"])


def notebook_facts(cells: list[tuple[str, str]]) -> Any:
    """The product's facts about the whole notebook's source as one program: which names
    are clock readings, vector decompositions, FFT-derived (followed through every cell's
    assignments: `F = fft2(x)` in one cell, `power = abs(F)**2` in a later one), loop
    variables and temporaries."""
    from gpuoptimize import _cell

    code = "\n".join(src for kind, src in cells if kind == "code")
    try:
        return _cell.analyze(code)
    except SyntaxError:
        return _cell.CellFacts()


def random_names(
    orig: list[tuple[str, str]], gpu: list[tuple[str, str]]
) -> tuple[set[str], set[int]]:
    """Names whose values come from random streams: bound by a cell that draws (the product's
    own test, `_cell.analyze(...).uses_random`, on either side's cell), or computed in a later
    cell from such a name. The product's A/B run feeds both sides one cell's same inputs, so
    only the cell's own draws differ; in whole notebooks a draw on the device (or an unseeded
    one) changes everything computed from it, hence the forward closure. Also the cells
    that draw or read such a name when they run (their printed numbers may differ)."""
    from gpuoptimize import _cell

    tainted: set[str] = set()
    cells: set[int] = set()
    by_index = dict(enumerate(gpu))
    for k, (kind, src) in enumerate(orig):
        if kind != "code":
            continue
        facts = []
        for s in (src, by_index.get(k, ("code", ""))[1]):
            try:
                facts.append(_cell.analyze(s))
            except SyntaxError:
                continue
        draws = any(f.uses_random for f in facts)
        if draws or any(set(f.inputs) & tainted for f in facts):
            cells.add(k)
            for f in facts:
                tainted |= set(f.outputs)
    return tainted, cells


def compare_values(
    a: dict[str, Any], b: dict[str, Any], facts_a: Any, facts_b: Any, random: set[str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every global of the original against the rewrite's, by the product's results check
    (gpuoptimize.harness's output comparison, run on the notebook's facts), random-stream
    names with random=True, the others with False."""
    from gpuoptimize import harness

    skipped = [
        f"{n}: not pickled ({v.type_name})" for n, v in a.items() if isinstance(v, NotPickled)
    ]
    a = {n: _as_device_copies(v) for n, v in a.items() if not isinstance(v, NotPickled)}
    b = {n: _as_device_copies(v) for n, v in b.items() if not isinstance(v, NotPickled)}
    results: list[dict[str, Any]] = []
    notes: list[str] = []
    for is_random in (False, True):
        part = {n: v for n, v in a.items() if (n in random) == is_random}
        if not part:
            continue
        # its other values too: what a name of this part is computed from may be in the other
        # (the precision of a transform output, harness._computed_in)
        base = harness._Side("original", "", facts_a, values=part, last_ns=a)
        cand = harness._Side("rewrite", "", facts_b, values=b)
        out, side_notes = harness._compare_outputs(base, cand, None, None, is_random)
        results += [o.to_json() for o in out]
        notes += side_notes
    return sorted(results, key=lambda r: r["name"]), skipped + notes


_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _unit(token: str) -> float:
    """One unit of the last digit a number was printed with (`0.125` -> 0.001)."""
    mantissa, _, exp = token.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (int(exp or 0) - decimals)


def compare_text(a: str, b: str, random: bool, clocks: bool = False) -> tuple[str, str] | None:
    """(kind, detail) of how the rewrite's printed text differs from the original's, or None.
    kind "form": other words or layout (a device repr, `array(...)` for a scalar); "numbers":
    a number beyond what its printed precision and float32 rounding (rtol 1e-5) allow
    (integers exactly); "clock": the same, in a cell that reads a clock (it may print a
    timing); "random": in a cell that reads random-stream values."""
    a, b = _ADDRESS.sub("0x?", a), _ADDRESS.sub("0x?", b)
    if a == b:
        return None
    if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
        for la, lb in zip(a.splitlines() + [""], b.splitlines() + [""], strict=False):
            if _NUMBER.sub("#", la) != _NUMBER.sub("#", lb):
                return "form", f"original {la[:160]!r} vs rewrite {lb[:160]!r}"
    for ta, tb in zip(_NUMBER.findall(a), _NUMBER.findall(b), strict=True):
        x, y = float(ta), float(tb)
        integers = not re.search(r"[.eE]", ta + tb)
        tol = 0.0 if integers else max(_unit(ta), _unit(tb), 1e-5 * max(abs(x), abs(y)))
        if not (abs(x - y) <= tol or (math.isnan(x) and math.isnan(y))):
            kind = "clock" if clocks else "random" if random else "numbers"
            return kind, f"original {ta} vs rewrite {tb}"
    return None


#: A refusal's reason that carries the figure it was refused on ("... predicted 0.94x (CPU...").
_REFUSED_AT = re.compile(r"\bpredicted (\d+(?:\.\d+)?)x")


#: How a suggestion's reason starts when the analysis had no array sizes for the cell (data
#: read from files it cannot size statically): its predicted_speedup is then a placeholder 1.
_NO_SIZES = "array sizes unknown"


def predictions(analyze_json: Path) -> dict[int, dict[str, Any]]:
    """Cell index -> what `gpuoptimize analyze --format json` predicted for it: the best
    priced suggestion's speedup and rule, with its optional figures (PREDICTED_EXTRA); where
    every suggestion lacked array sizes, `unknown` (their 1x is no prediction); or, where the
    cell was only refused, the speedup a refusal names (`refused`: the rewrite leaves such a
    cell on the host). Empty without the file (a rewrite made by hand, or
    bench/notebooks_fix.sh not run); ValueError when it is not the analysis's JSON."""
    if not analyze_json.exists():
        return {}
    found: dict[int, dict[str, Any]] = {}
    for f in json.loads(analyze_json.read_text()).get("files", []):
        for c in f.get("cells", []):
            priced = [s for s in c.get("suggestions", []) if _number(s.get("predicted_speedup"))]
            unknown = [s for s in priced if str(s.get("reason", "")).startswith(_NO_SIZES)]
            best = max(
                (s for s in priced if s not in unknown),
                key=lambda s: s["predicted_speedup"],
                default=None,
            )
            if best is None and unknown:
                found[c["index"]] = {"unknown": True, "rule": unknown[0].get("rule")}
                continue
            if best is not None:
                found[c["index"]] = {
                    "speedup": best["predicted_speedup"],
                    "rule": best.get("rule"),
                } | _extra_figures(best)
                continue
            for x in c.get("refusals", []):
                m = _REFUSED_AT.search(x.get("reason", ""))
                if m:
                    found[c["index"]] = {
                        "speedup": float(m.group(1)),
                        "rule": x.get("rule"),
                        "refused": True,
                    }
                    break
    return found


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


#: Optional figures of a suggestion in the analysis JSON, read where present (the analysis
#: adds them over time; matched by a word of their JSON name and its unit, see _extra_figures):
#: our key, the word, the per-cell table's column. first_run_s: the cell's predicted GPU
#: seconds with an empty kernel cache (against "cold s"); session_s: in a fresh process with
#: the cache filled (against "warm s"); resident_x: the speedup with the data kept on the device.
PREDICTED_EXTRA = (
    ("first_run_s", "first_run", "pred cold s"),
    ("session_s", "session", "pred warm s"),
    ("resident_x", "resident", "pred resident x"),
)


def _extra_figures(suggestion: dict[str, Any]) -> dict[str, Any]:
    """PREDICTED_EXTRA's figures of one suggestion: a seconds figure only from a name that
    says seconds (`_s`, `_ms`, `second`), a speedup only from one that says `speedup`."""
    out: dict[str, Any] = {}
    for key, word, _ in PREDICTED_EXTRA:
        for name, value in suggestion.items():
            unit_ok = (
                "speedup" in name
                if key.endswith("_x")
                else name.endswith(("_s", "_ms")) or "second" in name
            )
            if word in name and unit_ok and _number(value):
                out[key] = value / 1000 if name.endswith("_ms") else value
                break
    return out


#: A duration as the analysis prints it (costmodel.ts formatSeconds): "161 µs", "2 min 5 s".
_DURATION = r"(\d+ min \d+ s|-?[\d.]+ (?:ns|µs|ms|s))"
_UNIT_S = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


def _duration_s(text: str) -> float:
    if "min" in text:
        minutes, _, rest = text.partition(" min ")
        return 60 * int(minutes) + int(rest.split()[0])
    value, unit = text.split()
    return float(value) * _UNIT_S[unit]


def fix_prediction(fix_log: Path) -> dict[str, Any] | None:
    """The whole-notebook figure `gpuoptimize fix` printed (NAME.fix.log, bench/notebooks_fix.sh)
    over the cells its rewrite moves to the GPU: `text` as printed, `pays`, and the seconds it
    names where found: cpu_s (those cells on the CPU), session_s (on the GPU in a fresh process,
    kernel cache filled), first_run_s (session_s plus the compiles of a machine's first run),
    rerun_s (re-run in the same process), unpriced (GPU cells it could not size, not counted).
    None when the log has no such line (an older CLI)."""
    if not fix_log.exists():
        return None
    line = next(
        (
            x.strip()
            for x in fix_log.read_text(encoding="utf-8", errors="replace").splitlines()
            if x.strip().startswith(("predicted: ", "warning: the whole-notebook"))
        ),
        None,
    )
    if line is None:
        return None
    out: dict[str, Any] = {"pays": line.startswith("predicted: "), "text": line}
    found = re.search(
        rf"take ~{_DURATION} on the CPU and ~{_DURATION} on the GPU per session", line
    )
    if found:
        out["cpu_s"], out["session_s"] = map(_duration_s, found.groups())
    found = re.search(rf"{_DURATION} re-run in the same session", line)
    if found:
        out["rerun_s"] = _duration_s(found.group(1))
    found = re.search(rf"first run adds ~{_DURATION} of kernel compiles", line)
    if found and "session_s" in out:
        out["first_run_s"] = out["session_s"] + _duration_s(found.group(1))
    found = re.search(r"cells? ([\d, ]+) not counted", line)
    if found:
        out["unpriced"] = [int(x) for x in found.group(1).split(",")]
    return out


def fix_plan(fix_log: Path) -> dict[int, str]:
    """Cell index -> what `gpuoptimize fix` did with it, from NAME.fix.log's `cell N: ...`
    lines: "gpu" (runs on the GPU: what its whole-notebook figure counts), "import" (the cell
    it adds `import cupy` to), "host" (kept on the host, and why), "copies" (a host cell given
    conversions). Empty for a log without such lines."""
    if not fix_log.exists():
        return {}
    plan = {}
    for line in fix_log.read_text(encoding="utf-8", errors="replace").splitlines():
        found = re.match(r"  cell (\d+): (.*)", line)
        if not found:
            continue
        what = found.group(2)
        # "stays on the host" first: a host cell's reason may quote "runs on the GPU" (n_seismic's
        # lfilter line: "the sos form ... runs on the GPU and matches")
        plan[int(found.group(1))] = (
            "host"
            if what.startswith("stays on the host")
            else "gpu"
            if "runs on the GPU" in what
            else "import"
            if what.startswith("imports CuPy")
            else "copies"
        )
    return plan


def _on_gpu(c: dict[str, Any]) -> bool:
    """Whether the rewrite runs a cell on the GPU: fix's own word where its log has one, else
    whether it changed the cell."""
    return c["plan"] == "gpu" if "plan" in c else bool(c.get("changed"))


def changed_cells(cells: dict[str, list[tuple[str, str]]]) -> list[int]:
    """The code cells whose source the rewrite changed (those it moves to the GPU, and host
    cells it only gives a conversion)."""
    return [
        k
        for k, ((kind, a), (_, b)) in enumerate(zip(cells["orig"], cells["gpu"], strict=False))
        if kind == "code" and a != b
    ]


def implied_seconds(cells: list[dict[str, Any]], key: str) -> float | None:
    """The notebook's predicted seconds by the per-cell figure `key` (first_run_s,
    session_s): each cell the rewrite runs on the GPU that has it counts it, every other its
    measured orig_s (the rewrite leaves it on the host, or only converts). None without the
    original's times or any such figure."""
    timed = [c for c in cells if "orig_s" in c]
    figure = {
        c["cell"]: c["predicted"][key]
        for c in timed
        if _on_gpu(c) and key in c.get("predicted", {})
    }
    if not figure:
        return None
    return sum(figure.get(c["cell"], c["orig_s"]) for c in timed)


def implied_speedup(cells: list[dict[str, Any]]) -> float | None:
    """The whole-notebook speedup the per-cell predictions imply for the measured original:
    each cell the rewrite runs on the GPU with a (not refused) predicted speedup p takes
    orig_s / p,
    every other cell its orig_s (the rewrite leaves it on the host, or only converts: the
    analysis's per-cell suggestion is not always what the whole-notebook plan does). None
    without the original's times or any such prediction."""
    timed = [c for c in cells if "orig_s" in c]
    speed = {
        c["cell"]: c["predicted"]["speedup"]
        for c in timed
        if _on_gpu(c)
        and c.get("predicted", {}).get("speedup", 0) > 0
        and not c["predicted"].get("refused")
    }
    if not speed:
        return None
    gpu = sum(c["orig_s"] / speed.get(c["cell"], 1.0) for c in timed)
    return sum(c["orig_s"] for c in timed) / gpu if gpu > 0 else None


# ---------------------------------------------------------------------------------------
# Time: estimates, skipping, groups

#: Process wall seconds of each run on the H200 in run 20 (bench/results/2026-12-01-h200-run20,
#: notebooks_1.txt and notebooks_{2,3}: the larger figure where a notebook ran in two calls):
#: orig, gpu cold, gpu warm (None: not measured; WARM_SHARE of cold is assumed).
RUN20_WALL_S: dict[str, tuple[float, float, float | None]] = {
    "a_microscopy": (5.9, 27.9, None),
    "b_signal": (4.0, 33.3, 3.5),
    "c_heat": (3.3, 10.5, None),
    "d_stats": (3.2, 5.1, None),
    "e_reduce": (3.4, 22.2, None),
    "f_nbody": (7.0, 6.9, None),
    "g_climate": (23.6, 48.3, None),
    "g_register": (4.2, 10.2, 3.1),
    "h_montecarlo": (5.6, 9.0, None),
    "h_spectro": (9.6, 32.6, None),
    "i_denoise": (15.1, 17.3, None),
    "i_kmeans": (16.8, 24.7, None),
    "j_advect": (25.9, 30.1, None),
    "j_pde": (10.1, 18.1, None),
    "k_audio": (5.0, 12.5, 5.8),
    "l_kalman": (10.6, 11.0, None),
    "m_pic": (15.8, 18.1, None),
}
#: The warm run's share of the cold run's time where no warm run was measured (run 20's three:
#: 0.19-0.46).
WARM_SHARE = 0.5
#: Seconds assumed per run of a notebook with no figures.
UNKNOWN_RUN_S = 60.0
#: The parent's own time per notebook (reading the pickled globals back, comparing them):
#: OVERHEAD_S plus OVERHEAD_SHARE of the original's run (bigger data, longer comparison).
#: Run 20's call 4 spent ~150 s of 540 outside its runs for 9 notebooks; results.json records
#: each notebook's `overhead_s`, which --estimates reads back.
OVERHEAD_S, OVERHEAD_SHARE = 8.0, 0.6
#: A run's own time limit: RUN_FACTOR times its estimate, at least RUN_MIN_S (it stops a hang,
#: the skip decision is made on the estimates).
RUN_FACTOR, RUN_MIN_S = 3.0, 60.0


Walls = dict[str, dict[str, float]]


#: Where run 20's results.json kept each run: (part, our run, side).
_OLD_FORM = (
    ("sides", "orig", "orig"),
    ("sides", "cold", "gpu"),
    ("second", "orig2", "orig"),
    ("second", "warm", "gpu"),
)


def measured_walls(paths: list[Path]) -> Walls:
    """Notebook -> run -> wall seconds (and `overhead`): RUN20_WALL_S, then each results.json
    in `paths` (this script's, or run 20's older form with `sides` and `second`), later ones
    replacing earlier figures."""
    walls: Walls = {}
    for name, (orig, cold, warm) in RUN20_WALL_S.items():
        walls[name] = {"orig": orig, "cold": cold} | ({"warm": warm} if warm else {})
    for path in paths:
        for r in json.loads(path.read_text()).get("notebooks", []):
            w = walls.setdefault(r["name"], {})
            runs = dict(r.get("runs", {}))
            for part, run, side_name in _OLD_FORM:
                if side_name in r.get(part, {}):
                    runs[run] = r[part][side_name]
            for run, side in runs.items():
                if not side.get("timed_out"):
                    w[run] = side["wall_s"]
            if "overhead_s" in r:
                w["overhead"] = r["overhead_s"]
    return walls


def run_estimates(name: str, walls: Walls, runs: list[str]) -> dict[str, float]:
    """Estimated seconds of each of `runs` and of the parent's `overhead`."""
    w = walls.get(name, {})
    est = {
        "orig": w.get("orig", UNKNOWN_RUN_S),
        "cold": w.get("cold", UNKNOWN_RUN_S),
    }
    est["warm"] = w.get("warm", WARM_SHARE * est["cold"])
    est["orig2"] = w.get("orig2", est["orig"])
    out = {r: est[r] for r in runs}
    out["overhead"] = w.get("overhead", OVERHEAD_S + OVERHEAD_SHARE * est["orig"])
    return out


def plan_groups(names: list[str], need: dict[str, float], n: int) -> list[list[str]]:
    """`names` in `n` groups of about equal total `need`: longest first, each into the group
    with the least so far (within 4/3 of the best split); each group keeps the names' order."""
    groups: list[list[str]] = [[] for _ in range(n)]
    load = [0.0] * n
    for name in sorted(names, key=lambda x: -need[x]):
        k = load.index(min(load))
        groups[k].append(name)
        load[k] += need[name]
    order = {x: i for i, x in enumerate(names)}
    return [sorted(g, key=order.__getitem__) for g in groups]


def _planned_runs(args: argparse.Namespace, cache: Path | None) -> list[str]:
    """The runs of one notebook: under --warm-only no cold run when its kernel cache holds
    files (an earlier call filled it; `cache` None: assume so, for planning)."""
    filled = cache is None or _files_in(cache) > 0
    runs = ["warm"] if args.warm_only and filled else ["cold", "warm"]
    return runs + ["orig"] + (["orig2"] if args.orig_twice else [])


def _files_in(folder: Path) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0


# ---------------------------------------------------------------------------------------
# One notebook


def bench_notebook(
    name: str, args: argparse.Namespace, dirs: tuple[Path, Path], deadline: float, walls: Walls
) -> dict[str, Any]:
    """All runs of one notebook when their estimate fits the time left (else none, and why),
    its per-cell timings beside the predictions, the value and text comparison."""
    logs, work = dirs
    t_start = time.perf_counter()
    src, fixed = args.src_dir / f"{name}.py", args.fixed_dir / f"{name}.gpu.py"
    cache = (args.cache_dir or work / "cupy_cache") / name
    runs = _planned_runs(args, cache)
    est = run_estimates(name, walls, runs)
    need = sum(est.values())
    left = min(deadline - t_start, args.deadline_s)
    result: dict[str, Any] = {"name": name, "estimate_s": {k: round(v, 1) for k, v in est.items()}}
    if need > left:
        which = "BENCH_DEADLINE_S" if deadline - t_start < args.deadline_s else "--deadline-s"
        result["skipped"] = [f"not run: needs ~{need:.0f} s, {left:.0f} s left ({which})"]
        return result
    if args.warm_only and "cold" in runs:
        result["notes"] = ["--warm-only, but its kernel cache was empty: ran cold first"]
    if "cold" in runs:
        shutil.rmtree(cache, ignore_errors=True)  # a cold run starts from no kernels
    cache.mkdir(parents=True, exist_ok=True)
    cells = {"orig": nb_percent.parse(src.read_text()), "gpu": nb_percent.parse(fixed.read_text())}
    sides: dict[str, dict[str, Any]] = {}
    dumped: dict[str, str] = {}  # side -> the run whose globals are compared
    for run in runs:
        if run == "warm" and "cold" in sides and _stopped(sides["cold"]):
            result.setdefault("skipped", []).append("warm: not run, the cold run stopped")
            continue
        time_left = min(t_start + args.deadline_s, deadline) - time.perf_counter()
        limit = min(max(RUN_FACTOR * est[run], RUN_MIN_S), time_left)
        if limit < 5:
            result.setdefault("skipped", []).append(f"{run}: no time left")
            continue
        side = SIDE[run]
        print(f"  {name} {run} (limit {limit:.0f} s)", flush=True)
        before = _files_in(cache) if side == "gpu" else None
        dump = side not in dumped
        record = run_side(
            name,
            run,
            fixed if side == "gpu" else src,
            (logs, work, cache if side == "gpu" else None),
            limit,
            dump,
            args.cupy_double,
        )
        if before is not None:
            record["cache_files_before"] = before
            if run == "warm" and before == 0 and not args.cupy_double:
                result.setdefault("notes", []).append(
                    "warm: its kernel cache held no files (nothing compiled, or CUPY_CACHE_DIR "
                    "not honoured)"
                )
        if dump:
            dumped[side] = run
        sides[run] = record
    result["runs"] = {
        run: {k: v for k, v in s.items() if k != "values"} for run, s in sides.items()
    }
    result["compared"] = dumped.get("gpu")
    if [k for k, _ in cells["orig"]] != [k for k, _ in cells["gpu"]]:
        result["cell_mismatch"] = "the rewrite's cells are not the original's one for one"
    try:
        speed = predictions(args.fixed_dir / f"{name}.analyze.json")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        speed = {}
        result.setdefault("notes", []).append(f"{name}.analyze.json not read: {exc!r}"[:200])
    random, random_cells = random_names(cells["orig"], cells["gpu"])
    fix_log = args.fixed_dir / f"{name}.fix.log"
    facts = (speed, random_cells, fix_plan(fix_log))
    result["cells"] = _cells(cells, sides, dumped, facts, args)
    result["changed_cells"] = changed_cells(cells)
    result["fix_prediction"] = fix_prediction(fix_log)
    orig, gpu = sides.get(dumped.get("orig", "")), sides.get(dumped.get("gpu", ""))
    # values are compared only between two finished runs: a run that stopped early holds
    # the state of some cell in the middle, not the notebook's results
    finished = [s for s in (orig, gpu) if s and s["values"] is not None and not _stopped(s)]
    if len(finished) == 2 and "cell_mismatch" not in result:
        values, notes = compare_values(
            orig["values"],  # type: ignore[index]
            gpu["values"],  # type: ignore[index]
            notebook_facts(cells["orig"]),
            notebook_facts(cells["gpu"]),
            random,
        )
        result["values"], result["value_notes"] = values, notes
    result["overhead_s"] = round(
        time.perf_counter() - t_start - sum(s["wall_s"] for s in sides.values()), 1
    )
    return result


def _cells(
    cells: dict[str, list[tuple[str, str]]],
    sides: dict[str, dict[str, Any]],
    dumped: dict[str, str],
    facts: tuple[dict[int, dict[str, Any]], set[int], dict[int, str]],
    args: argparse.Namespace,
) -> list[dict[str, Any]]:
    """Per code cell: each run's seconds and error, the rewrite's first source line, the
    product's prediction, and how the compared runs' printed text differs. `facts`: the
    predictions by cell, the cells that read random-stream values, fix's plan by cell."""
    from gpuoptimize import _cell

    speed, random_cells, plan = facts
    per_cell: dict[int, dict[str, Any]] = {}
    for run, side in sides.items():
        for r in side["cells"]:
            c = per_cell.setdefault(r["cell"], {"cell": r["cell"]})
            c[f"{run}_s"] = r["seconds"]
            if run in dumped.values():
                c[f"{SIDE[run]}_stdout"] = r["stdout"]
            if "error" in r:
                c[f"{run}_error"] = r["error"]
                c[f"{run}_double_cannot_run"] = r["double_cannot_run"]
    gpu_run = dumped.get("gpu")
    changed = set(changed_cells(cells))
    for index, c in per_cell.items():
        c["changed"] = index in changed
        if index in plan:
            c["plan"] = plan[index]
        c["source"] = _first_line(cells["gpu"][index][1] if index < len(cells["gpu"]) else "")
        if index in speed:
            c["predicted"] = speed[index]
        if "orig_stdout" in c and "gpu_stdout" in c and f"{gpu_run}_error" not in c:
            try:
                clocks = bool(_cell.analyze(cells["orig"][index][1]).clocks)
            except SyntaxError:
                clocks = False
            gpu_text = c["gpu_stdout"]
            if args.cupy_double:  # the double's arrays print as ndarray(...), CuPy's as array(...)
                gpu_text = re.sub(r"\bndarray\(", "array(", gpu_text)
            diff = compare_text(c["orig_stdout"], gpu_text, index in random_cells, clocks)
            if diff:
                c["stdout_diff"] = {"kind": diff[0], "detail": diff[1]}
    return [per_cell[k] for k in sorted(per_cell)]


def _first_line(source: str) -> str:
    """The line that names a cell in the table: its first statement past the imports the
    rewrite puts on top (`import cupyx.scipy.ndimage`), else its first line."""
    lines = [x.strip() for x in source.splitlines() if x.strip() and not x.startswith("#")]
    body = [x for x in lines if not x.startswith(("import ", "from "))]
    return (body or lines or [""])[0][:70]


# ---------------------------------------------------------------------------------------
# The table


def _summary(r: dict[str, Any]) -> dict[str, str]:
    """One notebook's row."""
    runs = r.get("runs", {})
    cells = r.get("cells", [])
    row = {"notebook": r["name"], "cells": str(len(cells))}
    for col, run in (("orig", "orig"), ("gpu warm", "warm"), ("gpu cold", "cold")):
        s = sum(c.get(f"{run}_s", 0.0) for c in cells)
        row[col] = f"{s:.2f} ({runs[run]['wall_s']:.1f})" if run in runs else "-"
    row["warm x"] = _speedup(cells, "orig", "warm", runs)
    row["cold x"] = _speedup(cells, "orig", "cold", runs)
    both = [c for c in cells if "cold_s" in c and "warm_s" in c]
    row["compile s"] = f"{sum(c['cold_s'] - c['warm_s'] for c in both):.2f}" if both else "-"
    implied = implied_speedup(cells)
    unknown = sum(1 for c in cells if _on_gpu(c) and c.get("predicted", {}).get("unknown"))
    row["pred x"] = ("-" if implied is None else f"{implied:.1f}x") + (
        f" ({unknown} ?)" if unknown else ""
    )
    for col, key in (("pred warm s", "session_s"), ("pred cold s", "first_run_s")):
        s = implied_seconds(cells, key)
        row[col] = "-" if s is None else f"{s:.2f}"
    if "values" in r:
        counts = {"equal": 0, "statistical": 0, "not_equal": 0, "unverified": 0}
        for x in r["values"]:
            counts[x["status"]] += 1
        row["values ok/stat/differ/n.c."] = "/".join(str(counts[k]) for k in counts)
    elif runs:
        row["values ok/stat/differ/n.c."] = "not compared (a run stopped)"
    else:
        row["values ok/stat/differ/n.c."] = "-"
    diffs = [c["stdout_diff"]["kind"] for c in cells if "stdout_diff" in c]
    counts = ", ".join(f"{diffs.count(k)} {k}" for k in sorted(set(diffs)))
    row["stdout"] = counts or ("same" if runs else "-")
    errors = [
        f"{run}: timed out at {s['limit_s']:.0f} s" for run, s in runs.items() if s["timed_out"]
    ]
    for run in RUNS:
        for c in cells:
            if f"{run}_error" in c:
                what = "double cannot run" if c[f"{run}_double_cannot_run"] else "ERROR"
                errors.append(f"{run} cell {c['cell']}: {what}")
    errors += [
        f"{run}: values not read back ({s['dump_error']})"
        for run, s in runs.items()
        if "dump_error" in s
    ]
    errors += r.get("skipped", []) + r.get("notes", [])
    errors += [r["cell_mismatch"]] if "cell_mismatch" in r else []
    row["errors"] = "; ".join(errors) or "-"
    return row


def _speedup(cells: list[dict[str, Any]], base: str, new: str, runs: dict[str, Any]) -> str:
    """`base` run over `new` run, summed over the cells both timed (* partial)."""
    common = [c for c in cells if f"{base}_s" in c and f"{new}_s" in c]
    o, g = sum(c[f"{base}_s"] for c in common), sum(c[f"{new}_s"] for c in common)
    if not common or g <= 0:
        return "-"
    partial = len(common) < len(cells) or any(
        runs[x]["timed_out"] for x in (base, new) if x in runs
    )
    return f"{o / g:.1f}x" + ("*" if partial else "")


def _cell_rows(results: list[dict[str, Any]]) -> list[dict[str, str]]:
    """One row per code cell: measured times and speedup beside the prediction. The
    predicted seconds columns appear only when the analysis gave such figures."""
    extra = [
        (key, col)
        for key, _, col in PREDICTED_EXTRA
        if any(key in c.get("predicted", {}) for r in results for c in r.get("cells", []))
    ]
    rows = []
    for r in results:
        for c in r.get("cells", []):
            p = c.get("predicted", {})
            warm, cold, orig = c.get("warm_s"), c.get("cold_s"), c.get("orig_s")
            row = {
                "notebook": r["name"],
                "cell": str(c["cell"]),
                "orig s": _seconds(orig),
                "warm s": _seconds(warm),
                "cold s": _seconds(cold),
                "cold-warm": _seconds(None if cold is None or warm is None else cold - warm),
                "warm x": "-" if not orig or not warm else f"{orig / warm:.2f}x",
                "plan": c.get("plan", "changed" if c.get("changed") else ""),
                "pred x": _predicted_speedup(p),
            }
            for key, col in extra:
                x = p.get(key)
                row[col] = f"{x:g}x" if key.endswith("_x") and x is not None else _seconds(x)
            row["source (rewrite)"] = c.get("source", "")
            rows.append(row)
    return rows


def _fix_rows(results: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Per notebook, `gpuoptimize fix`'s whole-notebook figure beside what the cells it runs
    on the GPU (and the one it adds `import cupy` to, which the figure counts) measured: CPU
    seconds against orig, per-session against warm, first run against cold."""
    rows = []
    for r in results:
        f = r.get("fix_prediction")
        if not f or not r.get("runs"):
            continue
        cells = [c for c in r.get("cells", []) if _on_gpu(c) or c.get("plan") == "import"]

        def measured(run: str, cells: list[dict[str, Any]] = cells) -> float | None:
            have = [c[f"{run}_s"] for c in cells if f"{run}_s" in c]
            return sum(have) if have and len(have) == len(cells) else None

        orig, warm, cold = measured("orig"), measured("warm"), measured("cold")
        rows.append(
            {
                "notebook": r["name"],
                "gpu cells": str(len(cells)),
                "orig s": _seconds(orig),
                "pred cpu s": _seconds(f.get("cpu_s")),
                "warm s": _seconds(warm),
                "pred session s": _seconds(f.get("session_s")),
                "cold s": _seconds(cold),
                "pred 1st run s": _seconds(f.get("first_run_s")),
                "warm x": "-" if not orig or not warm else f"{orig / warm:.2f}x",
                "pred x": (f"{f['cpu_s'] / f['session_s']:.2f}x" if f.get("session_s") else "-"),
                "pays": "yes" if f["pays"] else "no",
                "unpriced cells": ",".join(map(str, f.get("unpriced", []))) or "-",
            }
        )
    return rows


def _predicted_speedup(p: dict[str, Any]) -> str:
    """A cell's predicted speedup; in brackets when a refusal named it, ? when unsized."""
    if p.get("unknown"):
        return "?"
    if "speedup" not in p:
        return "-"
    return f"({p['speedup']:g}x)" if p.get("refused") else f"{p['speedup']:g}x"


def _details(r: dict[str, Any]) -> list[str]:
    """The lines under the tables that say what differs."""
    lines = []
    for c in r.get("cells", []):
        for run in RUNS:
            if f"{run}_error" in c:
                lines.append(f"{r['name']} {run} cell {c['cell']}: {c[f'{run}_error']}")
        if "stdout_diff" in c:
            d = c["stdout_diff"]
            lines.append(f"{r['name']} cell {c['cell']} stdout {d['kind']}: {d['detail']}")
    if r.get("runs") and r.get("fix_prediction"):
        lines.append(f"{r['name']} fix {r['fix_prediction']['text']}")
    for x in r.get("values", []):
        if x["status"] in ("not_equal", "unverified"):
            lines.append(f"{r['name']} {x['name']}: {x['status']} ({x['method']}) {x['detail']}")
    return lines


def _columns(rows: list[dict[str, str]]) -> list[str]:
    cols = list(rows[0])
    width = {k: max(len(k), *(len(r[k]) for r in rows)) for k in cols}
    text = ["  ".join(k.ljust(width[k]) for k in cols).rstrip()]
    return text + ["  ".join(r[k].ljust(width[k]) for k in cols).rstrip() for r in rows]


def _seconds(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def table(results: list[dict[str, Any]]) -> str:
    rows = [_summary(r) for r in results]
    if not rows:
        return "(no notebooks run)\n"
    text = _columns(rows)
    text.append(
        "orig, gpu warm, gpu cold: sum of the cells' seconds (the run's process wall clock, "
        "imports and the compared run's final pickle included); gpu cold: the rewrite with an "
        "empty CuPy kernel cache (every NVRTC compile paid), gpu warm: a fresh process with the "
        "cache cold filled (every later session); warm x = orig / gpu warm, cold x = orig / gpu "
        "cold, over the cells both runs timed (* partial); compile s = cold - warm summed over "
        "the cells; pred x: the speedup the per-cell predictions imply for the measured "
        "original (predicted cells at orig / predicted, the others unchanged; (k ?): k changed "
        "cells without a figure, array sizes unknown); pred warm s, "
        "pred cold s: the per-cell predicted fresh-session and first-run seconds where the "
        "analysis gives them, the other cells at their orig time"
    )
    cell_rows = _cell_rows(results)
    if cell_rows:
        text += ["", "per cell: measured (orig, gpu warm, gpu cold) and predicted"]
        text += _columns(cell_rows)
        text.append(
            "plan: what fix did with the cell (its log): gpu, import (adds import cupy), host "
            "(kept there), copies (conversions only), changed (no word in the log); pred x: the "
            "analysis's best predicted speedup for the cell on its own (the whole-notebook plan "
            "may still keep it on the host); (in brackets): the figure a refusal names; ?: no "
            "figure, the analysis had no array sizes (data read from files)"
        )
    fix_rows = _fix_rows(results)
    if fix_rows:
        text += [
            "",
            "gpuoptimize fix's whole-notebook figure against the cells it runs on the GPU",
        ]
        text += _columns(fix_rows)
        text.append(
            "pred cpu s / session s / 1st run s: the cells fix moves to the GPU on the CPU, on the "
            "GPU in a fresh process with the kernel cache filled, and on a machine's first run "
            "(NAME.fix.log); measured: those cells and the one given `import cupy` (gpu "
            "cells: their count; without fix's per-cell lines, every changed cell)"
        )
    details = [x for r in results for x in _details(r)]
    return "\n".join(text + ([""] + details if details else [])) + "\n"


# ---------------------------------------------------------------------------------------
# Merging several calls


def merge(files: list[Path]) -> dict[str, Any]:
    """Several calls' results.json as one report, notebooks by name. A notebook in more than
    one file: the first file that ran it, then each run (and its cells' figures) that only a
    later file has (a --warm-only call after a cold one); a skip is kept only where no file
    ran the notebook."""
    merged: dict[str, dict[str, Any]] = {}
    double, trees = False, []
    for path in files:
        report = json.loads(path.read_text())
        double = double or bool(report.get("cupy_test_double"))
        if report.get("rewrites_made_at") not in trees:
            trees.append(report.get("rewrites_made_at"))
        for r in report.get("notebooks", []):
            have = merged.get(r["name"])
            if have is None or (not have.get("runs") and r.get("runs")):
                merged[r["name"]] = dict(r, merged_from=str(path))
                continue
            for run, side in r.get("runs", {}).items():
                if run in have.get("runs", {}):
                    continue
                have["runs"][run] = dict(side, merged_from=str(path))
                by_cell = {c["cell"]: c for c in have.get("cells", [])}
                for c in r.get("cells", []):
                    into = by_cell.setdefault(c["cell"], {"cell": c["cell"]})
                    into.update({k: v for k, v in c.items() if k.startswith(f"{run}_")})
                have["cells"] = [by_cell[k] for k in sorted(by_cell)]
    return {
        "cupy_test_double": double,
        "merged_from": [str(f) for f in files],
        "rewrites_made_at": trees,
        "notebooks": [merged[k] for k in sorted(merged)],
    }


# ---------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="*", help="notebooks (default: every bench/notebooks/*.py)")
    p.add_argument("--out", type=Path, help="table.txt, results.json, notebooks.tar.gz")
    p.add_argument("--cupy-double", action="store_true", help="CuPy TEST DOUBLE (no speeds)")
    p.add_argument("--deadline-s", type=float, default=240.0, help="per notebook, all its runs")
    p.add_argument(
        "--cache-dir", type=Path, help="kernel caches, DIR/NAME (default: TMPDIR, dropped)"
    )
    p.add_argument(
        "--warm-only", action="store_true", help="no cold run where DIR/NAME holds kernels"
    )
    p.add_argument("--orig-twice", action="store_true", help="run the original a second time")
    p.add_argument(
        "--estimates",
        type=Path,
        action="append",
        default=[],
        help="a results.json with newer figures (repeatable)",
    )
    p.add_argument("--plan-groups", type=int, metavar="N", help="print N groups, run nothing")
    p.add_argument(
        "--merge", type=Path, nargs="+", metavar="PATH", help="OUT A.json B.json ...: join calls"
    )
    p.add_argument("--src-dir", type=Path, default=ROOT / "bench" / "notebooks")
    p.add_argument("--fixed-dir", type=Path, default=ROOT / "bench" / "notebooks" / "out")
    p.add_argument(
        "--child", nargs=3, metavar=("SOURCE", "CELLS_JSONL", "PICKLE"), help=argparse.SUPPRESS
    )
    args = p.parse_args(argv)
    if args.child:
        return run_child(*map(Path, args.child), double=args.cupy_double)
    names = args.names or sorted(f.stem for f in args.src_dir.glob("*.py"))
    walls = measured_walls(args.estimates)
    if args.plan_groups:
        print(plan_text(names, walls, args))
        return 0
    if args.merge:
        if len(args.merge) < 2:
            p.error("--merge OUT RESULTS.json [RESULTS.json ...]")
        out, files = args.merge[0], args.merge[1:]
        out.mkdir(parents=True, exist_ok=True)
        report = merge(files)
        (out / "results.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
        (out / "table.txt").write_text(table(report["notebooks"]))
        print(table(report["notebooks"]))
        return 0
    if args.out is None:
        p.error("--out is required")
    deadline = time.perf_counter() + float(os.environ.get("BENCH_DEADLINE_S", "540"))
    missing = [n for n in names if not (args.fixed_dir / f"{n}.gpu.py").exists()]
    if len(missing) == len(names):
        p.error(f"no rewrite for {', '.join(missing)}: run bench/notebooks_fix.sh (needs Node)")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.cupy_double:
        print(
            "CuPy TEST DOUBLE (NumPy on the CPU): results show the rewrite runs and matches; "
            "its timings are NOT GPU timings",
            flush=True,
        )
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="run_notebooks.") as tmp:
        work, logs = Path(tmp), Path(tmp) / "logs"
        logs.mkdir()
        if not args.cupy_double:
            args.warm_up = warm_up(work)
            print(f"machine warm-up: {args.warm_up}", flush=True)
        for name in names:
            print(f"{name}", flush=True)
            if name in missing:  # its fix failed: the others still run
                results.append({"name": name, "skipped": ["no rewrite (see notebooks_fix.sh)"]})
                continue
            results.append(bench_notebook(name, args, (logs, work), deadline, walls))
            save(args, results, logs)
        save(args, results, logs)  # also when every notebook was skipped
    print(table(results))
    return 0


#: What the machine's first CuPy process pays once, whatever the notebook (the libraries read
#: from disk into the OS file cache, the driver's set-up): run before the first notebook so
#: that its cold run is not charged for it. Its kernel cache is a throwaway one.
WARM_UP = """
import importlib
for m in ("numpy", "scipy.signal", "scipy.ndimage", "pandas", "matplotlib.pyplot",
          "cupyx.scipy.ndimage", "cupyx.scipy.signal", "cupyx.scipy.sparse"):
    try:
        importlib.import_module(m)
    except ImportError:
        pass
import cupy
cupy.ones(4).sum()
cupy.cuda.Device().synchronize()
"""
#: The warm-up's usual seconds, for planning (it may take up to 8 times that).
WARM_UP_S = 15.0


def warm_up(work: Path) -> dict[str, Any]:
    """Run WARM_UP in a fresh process: its wall seconds and exit status."""
    env = dict(os.environ, MPLBACKEND="Agg", CUPY_CACHE_DIR=str(work / "warm_up_cache"))
    t0 = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", WARM_UP],
            env=env,
            capture_output=True,
            text=True,
            timeout=8 * WARM_UP_S,
        )
        rc, tail = done.returncode, done.stderr.strip().splitlines()[-1:]
    except subprocess.TimeoutExpired:
        rc, tail = None, ["timed out"]
    shutil.rmtree(work / "warm_up_cache", ignore_errors=True)
    return {
        "wall_s": round(time.perf_counter() - t0, 1),
        "rc": rc,
        "error": tail[0] if tail else "",
    }


def plan_text(names: list[str], walls: Walls, args: argparse.Namespace) -> str:
    """The groups of --plan-groups, each with its estimated seconds, and each notebook's."""
    runs = _planned_runs(args, None)
    need = {n: sum(run_estimates(n, walls, runs).values()) for n in names}
    lines = [
        f"runs per notebook: {', '.join(runs)} (+ the parent's comparison); estimated s "
        f"(a call adds ~{WARM_UP_S:.0f} s of machine warm-up):"
    ]
    lines.append("  " + ", ".join(f"{n} {need[n]:.0f}" for n in names))
    for k, group in enumerate(plan_groups(names, need, args.plan_groups), 1):
        lines.append(f"group {k} (~{sum(need[n] for n in group):.0f} s): {' '.join(group)}")
    return "\n".join(lines)


def save(args: argparse.Namespace, results: list[dict[str, Any]], logs: Path) -> None:
    """DIR/results.json, DIR/table.txt and DIR/notebooks.tar.gz (both of them, and each run's
    log and per-cell jsonl), rewritten after every notebook so that a call cut short keeps what
    it did. The logs go into the archive only, not loose into DIR: the GPU machine's tool
    returns few files from its output folder (6 of about 40 came back) and leaves the rest."""
    tree = args.fixed_dir / "TREE"  # written by bench/notebooks_fix.sh
    report = {
        "cupy_test_double": args.cupy_double,
        "python": sys.version,
        "rewrites_made_at": tree.read_text().strip() if tree.exists() else None,
        "machine_warm_up": getattr(args, "warm_up", None),
        "notebooks": results,
    }
    (args.out / "results.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    (args.out / "table.txt").write_text(table(results))
    partial = args.out / "notebooks.tar.gz.part"
    with tarfile.open(partial, "w:gz") as tar:
        for name in ("results.json", "table.txt"):
            tar.add(args.out / name, arcname=name)
        for f in sorted(logs.iterdir()):
            tar.add(f, arcname=f"logs/{f.name}")
    partial.replace(args.out / "notebooks.tar.gz")


if __name__ == "__main__":
    sys.exit(main())
