"""Whole notebooks, original against the product's rewrite: time per cell, compare results.

The per-cell A/B harness measures one cell with its inputs shared; a user runs whole
notebooks, where what counts is the rewrite of every cell together (data kept on the device
across cells, copies at host boundaries, kernels compiled on first use). This runs each
bench/notebooks/NAME.py and its rewrite bench/notebooks/out/NAME.gpu.py (made on a machine
with Node by bench/notebooks_fix.sh) as a user would, top to bottom, and says:

- how long each cell takes by wall clock (the rewrite's cell ends with a device synchronize,
  so queued GPU work is charged to the cell that queued it), each run in a FRESH Python
  process (nothing shared but the files named below) whose working directory is a new
  temporary one (the files a notebook writes cannot collide or be read by the other side);
- each side TWICE. CuPy compiles every kernel (its elementwise and reduction kernels,
  cupyx.scipy's filters, RawKernels) with NVRTC on first use and keeps the binary in its
  on-disk cache (CUPY_CACHE_DIR, ~/.cupy/kernel_cache by default); a fresh machine's cache is
  empty, so a first run pays seconds of compiles (three ndimage filters: 7.4 s) that a user
  pays once per machine and never again. The rewrite's two runs share a CUPY_CACHE_DIR of the
  notebook's own, empty before run 1: run 1 is "cold" (compiles included), run 2 "warm" (what
  every later run costs). The original runs twice too, for symmetry (its run 2 has a warm OS
  file cache). Values and text are compared on run 1 of each side; speedup warm is orig run 2
  over rewrite run 2, speedup cold orig run 1 over rewrite run 1; the rewrite's three slowest
  cells (by warm time) are listed per notebook, with the original's time for the same cell;
- whether every global the original leaves (arrays, scalars, containers, frames) matches the
  rewrite's, judged as the product's results check judges a cell (gpuoptimize.harness's
  output comparison over gpuoptimize.compare: dtype-aware tolerances, up-to-sign vectors,
  FFT-derived names relative to their largest value, random-stream values by statistics);
- whether each cell prints the same text: numbers within the precision printed, any other
  change of form (`array(3.5)` for `3.5`, a `<cupy...>` repr) flagged;
- where a side stops: the cell and its exception's last line. Under `--cupy-double` an error
  that is the test double's own limit (RawKernel, ufunc methods such as `cp.add.at`, NumPy
  functions it forwards to and this NumPy lacks) is reported as "double cannot run", not as
  a defect of the rewrite.

`--cupy-double` puts test/python/testdouble_cupy first on the path: a TEST DOUBLE of CuPy
that runs CuPy calls on NumPy. Its results show that the rewrite runs and matches; its
timings mean nothing. Where real CuPy would raise and the double's arrays (NumPy arrays
underneath) pass, pandas' constructors and the matplotlib stand-in refuse them, and its
`ndarray(...)` reprs read as CuPy's `array(...)`. Real timings need the GPU machine:

    python3 bench/run_notebooks.py --out DIR [NAME...]

Per notebook the two first runs share --deadline-s (each side gets what the first left, at
least a third of it); BENCH_DEADLINE_S caps the whole call. Every notebook's first runs come
before any second run, so when time is short the second runs are what is skipped (the table
says so, and what else did not fit).

Under --out only three files, rewritten after every notebook (a run cut short keeps what it
did): table.txt (also printed), results.json, and notebooks.tar.gz holding both and, under
logs/, each run's NAME.{orig,gpu}.{1,2}.log (stdout and stderr) and .cells.jsonl (per cell,
written as it finishes). In results.json a notebook's "sides" are its first runs and
"second" its second runs; a cell's times are orig_s/gpu_s (run 1) and orig2_s/gpu2_s (run 2);
"slowest_cells" lists the rewrite's slowest. One archive rather than loose logs because the
GPU machine's tool returns only a few files from its output folder and drops the rest (6 of
about 40 came back).
Work files (each run's working directory, run 1's pickled globals: up to a few GB for the
largest notebooks, deleted as soon as read; the logs until archived; the kernel caches) go
under TMPDIR.

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

VARIANTS = ("orig", "gpu")
#: Least share of the per-notebook deadline left to the rewrite when the original ran long.
REWRITE_SHARE = 1 / 3
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
    variant: str,
    run: int,
    source: Path,
    paths: tuple[Path, Path, Path],
    limit_s: float,
    double: bool,
) -> dict[str, Any]:
    """One run of one side in a fresh subprocess; its cells' records and wall time, and on
    run 1 its values' pickle. `paths`: the logs folder, the work folder, and the
    CUPY_CACHE_DIR the rewrite's runs of this notebook share."""
    logs, work, cupy_cache = paths
    cells_out = logs / f"{name}.{variant}.{run}.cells.jsonl"
    dump = work / f"{name}.{variant}.pkl" if run == 1 else Path("-")
    cwd = Path(tempfile.mkdtemp(prefix=f"{name}.{variant}.{run}.", dir=work))
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    if variant == "gpu":
        env["CUPY_CACHE_DIR"] = str(cupy_cache)
    path = ([str(DOUBLE)] if double else []) + [str(SHIM), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in path if p)
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(source)]
    argv += [str(cells_out), str(dump)] + (["--cupy-double"] if double else [])
    t0 = time.perf_counter()
    timed_out = False
    with open(logs / f"{name}.{variant}.{run}.log", "w", encoding="utf-8") as log:
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
    if run == 1 and dump.exists():
        try:
            with open(dump, "rb") as f:
                side["values"] = {n: _unpickle(*tv) for n, tv in pickle.load(f).items()}
        except (OSError, pickle.UnpicklingError, EOFError) as exc:
            side["dump_error"] = f"{type(exc).__name__}: {exc}"  # see the side's log
        dump.unlink()
    shutil.rmtree(cwd, ignore_errors=True)  # what the notebook wrote (data files, figures)
    return side


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
        base = harness._Side("original", "", facts_a, values=part)
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


def predicted(analyze_json: Path) -> dict[int, float]:
    """Cell index -> the best predicted speedup `gpuoptimize analyze` gave it."""
    if not analyze_json.exists():
        return {}
    best: dict[int, float] = {}
    for f in json.loads(analyze_json.read_text()).get("files", []):
        for c in f.get("cells", []):
            speeds = [s.get("predicted_speedup") for s in c.get("suggestions", [])]
            speeds = [s for s in speeds if isinstance(s, int | float)]
            if speeds:
                best[c["index"]] = max(speeds)
    return best


def _cache_dir(work: Path, name: str) -> Path:
    """The notebook's own CuPy kernel cache, empty before its first rewrite run: that run
    pays every NVRTC compile (as a user does once per machine), the second loads them."""
    return work / "cupy_cache" / name


def bench_notebook(
    name: str, args: argparse.Namespace, logs: Path, work: Path, deadline: float
) -> dict[str, Any]:
    """Run 1 of both sides of one notebook (the rewrite's with a cold kernel cache), their
    per-cell timings, the value and text comparison."""
    src, fixed = args.src_dir / f"{name}.py", args.fixed_dir / f"{name}.gpu.py"
    cells = {"orig": nb_percent.parse(src.read_text()), "gpu": nb_percent.parse(fixed.read_text())}
    result: dict[str, Any] = {"name": name}
    start = time.perf_counter()
    sides = {}
    for variant, path in (("orig", src), ("gpu", fixed)):
        left = min(args.deadline_s - (time.perf_counter() - start), deadline - time.perf_counter())
        if variant == "gpu":
            left = max(left, min(args.deadline_s * REWRITE_SHARE, deadline - time.perf_counter()))
        if left < 5:
            result.setdefault("skipped", []).append(f"{variant}: no time left")
            continue
        print(f"  {name} {variant} (limit {left:.0f} s)", flush=True)
        paths = (logs, work, _cache_dir(work, name))
        sides[variant] = run_side(name, variant, 1, path, paths, left, args.cupy_double)
    result["sides"] = {v: {k: s[k] for k in s if k != "values"} for v, s in sides.items()}
    kinds = [[k for k, _ in c] for c in cells.values()]
    if kinds[0] != kinds[1]:
        result["cell_mismatch"] = "the rewrite's cells are not the original's one for one"
    speed = predicted(args.fixed_dir / f"{name}.analyze.json")
    random, random_cells = random_names(cells["orig"], cells["gpu"])
    per_cell: dict[int, dict[str, Any]] = {}
    for variant, side in sides.items():
        for r in side["cells"]:
            c = per_cell.setdefault(r["cell"], {"cell": r["cell"]})
            c[f"{variant}_s"] = r["seconds"]
            c[f"{variant}_stdout"] = r["stdout"]
            if "error" in r:
                c[f"{variant}_error"] = r["error"]
                c[f"{variant}_double_cannot_run"] = r["double_cannot_run"]
    from gpuoptimize import _cell

    for index, c in sorted(per_cell.items()):
        if index in speed:
            c["predicted_speedup"] = speed[index]
        if "orig_stdout" in c and "gpu_stdout" in c and "gpu_error" not in c:
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
    result["cells"] = [per_cell[k] for k in sorted(per_cell)]
    # values are compared only between two finished runs: a side that stopped early holds
    # the state of some cell in the middle, not the notebook's results
    finished = all(
        v in sides
        and sides[v]["values"] is not None
        and not any("error" in c for c in sides[v]["cells"])
        for v in VARIANTS
    )
    if finished and "cell_mismatch" not in result:
        values, notes = compare_values(
            sides["orig"]["values"],
            sides["gpu"]["values"],
            notebook_facts(cells["orig"]),
            notebook_facts(cells["gpu"]),
            random,
        )
        result["values"], result["value_notes"] = values, notes
    return result


#: Least time limit of a second run, and how much longer than its first run it may take.
SECOND_MIN_S, SECOND_FACTOR = 30.0, 2.0
#: Cells listed per notebook as the rewrite's slowest.
SLOWEST = 3


def second_runs(
    r: dict[str, Any], args: argparse.Namespace, logs: Path, work: Path, deadline: float
) -> None:
    """Run 2 of both sides, for timing only: the rewrite's with the kernel cache its run 1
    filled (what every later run of the notebook on that machine costs), the original's
    for symmetry (a warm OS file cache). Both or neither: skipped when the time left is less
    than the first runs took (plus a margin), and said so. Then the rewrite's slowest cells."""
    first = r.get("sides", {})
    if all(v in first and not first[v]["timed_out"] for v in VARIANTS):
        need = 1.2 * sum(first[v]["wall_s"] for v in VARIANTS) + 10
        if deadline - time.perf_counter() < need:
            r.setdefault("skipped", []).append(
                f"second runs: no time left (need ~{need:.0f} s, BENCH_DEADLINE_S)"
            )
        else:
            r["second"] = {}
            for variant in VARIANTS:
                source = (
                    args.src_dir / f"{r['name']}.py"
                    if variant == "orig"
                    else args.fixed_dir / f"{r['name']}.gpu.py"
                )
                left = deadline - time.perf_counter()
                limit = min(max(SECOND_FACTOR * first[variant]["wall_s"], SECOND_MIN_S), left)
                print(f"  {r['name']} {variant} run 2 (limit {limit:.0f} s)", flush=True)
                paths = (logs, work, _cache_dir(work, r["name"]))
                side = run_side(r["name"], variant, 2, source, paths, limit, args.cupy_double)
                del side["values"]
                r["second"][variant] = side
                by_cell = {c["cell"]: c for c in r.get("cells", [])}
                for rec in side["cells"]:
                    c = by_cell.setdefault(rec["cell"], {"cell": rec["cell"]})
                    c[f"{variant}2_s"] = rec["seconds"]
                    if "error" in rec:
                        c[f"{variant}2_error"] = rec["error"]
                r["cells"] = [by_cell[k] for k in sorted(by_cell)]
    r["slowest_cells"] = slowest_cells(r, args.fixed_dir / f"{r['name']}.gpu.py")


def slowest_cells(r: dict[str, Any], fixed: Path) -> list[dict[str, Any]]:
    """The rewrite's SLOWEST cells by warm-cache time (cold where no second run), with the
    original's time (run 2, else run 1) and the cell's first source line: where a notebook's
    time goes on the GPU."""
    key = "gpu2_s" if "second" in r else "gpu_s"
    okey = "orig2_s" if "second" in r else "orig_s"
    timed = sorted((c for c in r.get("cells", []) if key in c), key=lambda c: -c[key])
    sources = dict(enumerate(nb_percent.parse(fixed.read_text()))) if fixed.exists() else {}
    rows = []
    for c in timed[:SLOWEST]:
        src = sources.get(c["cell"], ("code", ""))[1]
        lines = [x.strip() for x in src.splitlines() if x.strip() and not x.startswith("#")]
        rows.append(
            {
                "cell": c["cell"],
                "gpu_warm_s": c.get("gpu2_s"),
                "gpu_cold_s": c.get("gpu_s"),
                "orig_s": c.get(okey),
                "orig_run": 2 if okey == "orig2_s" else 1,
                "source": lines[0][:70] if lines else "",
            }
        )
    return rows


def _summary(r: dict[str, Any]) -> dict[str, str]:
    """One table row."""
    sides = r.get("sides", {})
    row = {"notebook": r["name"]}
    cells = r.get("cells", [])
    row["cells"] = str(len(cells))
    second = r.get("second", {})
    for col, runs, v in (
        ("orig 1", sides, "orig"),
        ("orig 2", second, "orig"),
        ("gpu cold", sides, "gpu"),
        ("gpu warm", second, "gpu"),
    ):
        key = f"{v}_s" if runs is sides else f"{v}2_s"
        s = sum(c.get(key, 0.0) for c in cells)
        row[col] = f"{s:.2f} ({runs[v]['wall_s']:.1f})" if v in runs else "-"
    row["speedup warm"] = _speedup(cells, "orig2_s", "gpu2_s", second)
    row["speedup cold"] = _speedup(cells, "orig_s", "gpu_s", sides)
    if "values" in r:
        counts = {"equal": 0, "statistical": 0, "not_equal": 0, "unverified": 0}
        for x in r["values"]:
            counts[x["status"]] += 1
        row["values ok/stat/differ/n.c."] = "/".join(str(counts[k]) for k in counts)
    else:
        row["values ok/stat/differ/n.c."] = "not compared (a side stopped)"
    diffs = [c["stdout_diff"]["kind"] for c in cells if "stdout_diff" in c]
    row["stdout"] = ", ".join(f"{diffs.count(k)} {k}" for k in sorted(set(diffs))) or "same"
    errors = []
    for v in VARIANTS:
        for run, runs in ((1, sides), (2, second)):
            if v in runs and runs[v]["timed_out"]:
                errors.append(f"{v} run {run}: timed out at {runs[v]['limit_s']:.0f} s")
        for c in cells:
            if f"{v}_error" in c:
                what = "double cannot run" if c[f"{v}_double_cannot_run"] else "ERROR"
                errors.append(f"{v} cell {c['cell']}: {what}")
            elif f"{v}2_error" in c:  # run 2 stopped where run 1 did not
                errors.append(f"{v} run 2 cell {c['cell']}: ERROR")
    errors += [
        f"{v}: values not read back ({sides[v]['dump_error']})"
        for v in sides
        if "dump_error" in sides[v]
    ]
    errors += r.get("skipped", []) + ([r["cell_mismatch"]] if "cell_mismatch" in r else [])
    row["errors"] = "; ".join(errors) or "-"
    return row


def _speedup(cells: list[dict[str, Any]], okey: str, gkey: str, runs: dict[str, Any]) -> str:
    """Original over rewrite, summed over the cells both runs timed (* partial)."""
    common = [c for c in cells if okey in c and gkey in c]
    o, g = sum(c[okey] for c in common), sum(c[gkey] for c in common)
    if not common or g <= 0:
        return "-"
    partial = len(common) < len(cells) or any(s.get("timed_out") for s in runs.values())
    return f"{o / g:.1f}x" + ("*" if partial else "")


def _details(r: dict[str, Any]) -> list[str]:
    """The lines under the table that say what differs."""
    lines = []
    for c in r.get("cells", []):
        for v in VARIANTS:
            if f"{v}_error" in c:
                lines.append(f"{r['name']} {v} cell {c['cell']}: {c[f'{v}_error']}")
        if "stdout_diff" in c:
            d = c["stdout_diff"]
            lines.append(f"{r['name']} cell {c['cell']} stdout {d['kind']}: {d['detail']}")
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
        "orig 1/2, gpu cold/warm: sum of the cells' seconds (the run's process wall clock, "
        "imports and run 1's final pickle included); run 1 of each side is compared, the rewrite's "
        "with an empty CuPy kernel cache (every NVRTC compile paid), run 2 with the cache run 1 "
        "filled; speedup warm = orig 2 / gpu warm, cold = orig 1 / gpu cold, over the cells both "
        "runs timed (* partial)"
    )
    slow = [
        {
            "notebook": r["name"],
            "cell": str(c["cell"]),
            "gpu warm": _seconds(c["gpu_warm_s"]),
            "gpu cold": _seconds(c["gpu_cold_s"]),
            "orig": _seconds(c["orig_s"]) + ("" if c["orig_run"] == 2 else " (run 1)"),
            "source (rewrite)": c["source"],
        }
        for r in results
        for c in r.get("slowest_cells", [])
    ]
    if slow:
        text += ["", f"the rewrite's {SLOWEST} slowest cells per notebook (by warm time)"]
        text += _columns(slow)
    details = [x for r in results for x in _details(r)]
    return "\n".join(text + ([""] + details if details else [])) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="*", help="notebooks (default: every bench/notebooks/*.py)")
    p.add_argument("--out", type=Path, help="table.txt, results.json, notebooks.tar.gz")
    p.add_argument("--cupy-double", action="store_true", help="CuPy TEST DOUBLE (no speeds)")
    p.add_argument("--deadline-s", type=float, default=240.0, help="per notebook, both first runs")
    p.add_argument("--src-dir", type=Path, default=ROOT / "bench" / "notebooks")
    p.add_argument("--fixed-dir", type=Path, default=ROOT / "bench" / "notebooks" / "out")
    p.add_argument(
        "--child", nargs=3, metavar=("SOURCE", "CELLS_JSONL", "PICKLE"), help=argparse.SUPPRESS
    )
    args = p.parse_args(argv)
    if args.child:
        return run_child(*map(Path, args.child), double=args.cupy_double)
    if args.out is None:
        p.error("--out is required")
    deadline = time.perf_counter() + float(os.environ.get("BENCH_DEADLINE_S", "540"))
    names = args.names or sorted(f.stem for f in args.src_dir.glob("*.py"))
    missing = [n for n in names if not (args.fixed_dir / f"{n}.gpu.py").exists()]
    if missing:
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
        # every first run before any second run: when time is short, the second runs go first
        for name in names:
            if deadline - time.perf_counter() < 10:
                results.append({"name": name, "skipped": ["overall deadline (BENCH_DEADLINE_S)"]})
                continue
            print(f"{name}", flush=True)
            results.append(bench_notebook(name, args, logs, work, deadline))
            save(args, results, logs)
        for r in results:
            second_runs(r, args, logs, work, deadline)
            save(args, results, logs)
    print(table(results))
    return 0


def save(args: argparse.Namespace, results: list[dict[str, Any]], logs: Path) -> None:
    """DIR/results.json, DIR/table.txt and DIR/notebooks.tar.gz (both of them, and each run's
    log and per-cell jsonl), rewritten after every notebook so that a run cut short keeps what
    it did. The logs go into the archive only, not loose into DIR: the GPU machine's tool
    returns few files from its output folder (6 of about 40 came back) and leaves the rest."""
    report = {"cupy_test_double": args.cupy_double, "python": sys.version, "notebooks": results}
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
