"""Where a rewritten notebook's GPU cells spend their time in a fresh process, statement by
statement: what the cost model's per-session figure misses (bench/RESULTS.md run 25/26: the
first GPU cell of l_kalman, d_stats, h_montecarlo, m_pic, j_advect and i_kmeans took 0.26-0.59 s
more than its steady work and first uses are priced at; g_climate cell 10 0.2 s more; the other
notebooks' first cells within 0.1 s).

Each notebook's rewrite (bench/notebooks/out/NAME.gpu.py, made by bench/notebooks_fix.sh) runs
top to bottom in a fresh Python process, every top-level statement of every cell timed with a
device synchronise after it; each cell that uses CuPy then runs again in the same process (its
steady time: what a re-run in the session costs). Two processes per notebook on one kernel
cache, emptied first: `cold` fills it (compiles), `warm` is what every later session pays.
A statement whose warm first run is well above its steady one pays a once-per-process cost
there (a library, a kernel load, a memory-pool growth, an import): the line says which.

    bash bench/notebooks_fix.sh NAME...                  (a machine with Node)
    python3 bench/line_probe.py --out DIR NAME...        (the GPU machine)

Writes DIR/line_probe.json and prints, per notebook, the warm statements of 10 ms or more with
their steady time. A cell's re-run may fail (it deletes a name, or reads what a later cell
makes): recorded as the cell's `rerun_error`, and the run goes on.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import nb_percent  # noqa: E402


def _sync() -> None:
    cp = sys.modules.get("cupy")
    if cp is not None:
        cp.cuda.Device().synchronize()


def _statements(src: str) -> list[tuple[int, str, object]]:
    """The cell's top-level statements: (line, first line's text, code); one whole-cell entry
    where the cell does not parse as Python (IPython syntax)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        sys.path.insert(0, str(ROOT / "python_shim"))
        from gpuoptimize import _cell

        return [(1, src.split("\n", 1)[0][:80], _cell.compile_cell(src, "<cell>"))]
    out = []
    for stmt in tree.body:
        mod = ast.Module(body=[stmt], type_ignores=[])
        text = (ast.get_source_segment(src, stmt) or "").split("\n", 1)[0][:80]
        out.append((stmt.lineno, text, compile(mod, "<cell>", "exec")))
    return out


def child(source: Path, out: Path) -> None:
    os.environ["MPLBACKEND"] = "Agg"
    cells = nb_percent.parse(source.read_text(encoding="utf-8"))
    ns: dict = {"__name__": "__main__", "__builtins__": __builtins__}
    with out.open("w", encoding="utf-8") as f:
        for index, (kind, src) in enumerate(cells):
            if kind != "code":
                continue
            rec: dict = {"cell": index, "lines": []}
            steps = _statements(src)
            t_cell = time.perf_counter()
            try:
                for line, text, code in steps:
                    t = time.perf_counter()
                    exec(code, ns)  # noqa: S102  (running the notebook is the point)
                    _sync()
                    rec["lines"].append({"line": line, "text": text, "s": time.perf_counter() - t})
            except Exception as e:  # noqa: BLE001
                rec["error"] = f"{type(e).__name__}: {str(e)[:200]}"
            rec["s"] = time.perf_counter() - t_cell
            if "cp." in src and "error" not in rec:
                steady = []
                try:
                    for _line, _text, code in steps:
                        t = time.perf_counter()
                        exec(code, ns)  # noqa: S102
                        _sync()
                        steady.append(time.perf_counter() - t)
                    for entry, s in zip(rec["lines"], steady, strict=False):
                        entry["steady_s"] = s
                except Exception as e:  # noqa: BLE001
                    rec["rerun_error"] = f"{type(e).__name__}: {str(e)[:200]}"
            f.write(json.dumps(rec) + "\n")
            f.flush()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--timeout-s", type=float, default=240)
    ap.add_argument("--child", nargs=2, metavar=("SOURCE", "OUT"))
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]))
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report: dict = {}
    for name in args.names:
        source = ROOT / "bench" / "notebooks" / "out" / f"{name}.gpu.py"
        cache = out / "cache" / name
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        env = dict(os.environ, CUPY_CACHE_DIR=str(cache))
        report[name] = {}
        for phase in ("cold", "warm"):
            lines = out / f"{name}.{phase}.jsonl"
            t = time.perf_counter()
            try:
                r = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--out",
                        str(out),
                        "--child",
                        str(source),
                        str(lines),
                    ],
                    env=env,
                    cwd=out,
                    capture_output=True,
                    text=True,
                    timeout=args.timeout_s,
                )
                rc = r.returncode
                tail = r.stderr[-400:]
            except subprocess.TimeoutExpired:
                rc, tail = "timeout", ""
            cells = (
                [json.loads(x) for x in lines.read_text().splitlines()] if lines.exists() else []
            )
            report[name][phase] = {
                "wall_s": time.perf_counter() - t,
                "rc": rc,
                "stderr": tail,
                "cells": cells,
            }
        (out / "line_probe.json").write_text(json.dumps(report, indent=1))
        print(f"== {name} (warm; rc {report[name]['warm']['rc']})", flush=True)
        for c in report[name]["warm"]["cells"]:
            for entry in c["lines"]:
                if entry["s"] >= 0.01:
                    steady = entry.get("steady_s")
                    st = f"{steady * 1e3:8.1f}" if steady is not None else "       -"
                    at = f"cell {c['cell']:2d} line {entry['line']:3d}"
                    print(f"  {at} {entry['s'] * 1e3:8.1f} ms  steady {st} ms  {entry['text']}")
            for key in ("error", "rerun_error"):
                if key in c:
                    print(f"  cell {c['cell']:2d} {key}: {c[key]}")


if __name__ == "__main__":
    main()
