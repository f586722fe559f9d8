"""The whole-notebook bench's own logic (bench/nb_percent.py, bench/run_notebooks.py): cells
survive the py-percent <-> .ipynb conversion exactly (timings and comparisons are per cell), and
printed text is judged by form and by printed precision, not character by character."""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tarfile
import time

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import nb_percent  # noqa: E402
import run_notebooks  # noqa: E402

EDGE_CELLS = [
    ("markdown", "# Title\n\nSome *text*\n"),
    ("code", "import numpy as np"),
    ("code", ""),
    ("code", "x = 1\n\n\n"),
    ("code", "\n\ny = 2  # %% not a marker: not the whole line"),
    ("markdown", ""),
    ("code", "z = 3\n"),
]


def test_cells_survive_both_ways_exactly() -> None:
    text = nb_percent.render(EDGE_CELLS, "# header comment\n")
    assert nb_percent.parse(text) == EDGE_CELLS
    nb = nb_percent.to_notebook(EDGE_CELLS)
    assert nb_percent.from_notebook(json.loads(json.dumps(nb))) == EDGE_CELLS


def test_every_bench_notebook_round_trips() -> None:
    files = sorted((BENCH / "notebooks").glob("*.py"))
    assert len(files) >= 17
    for f in files:
        cells = nb_percent.parse(f.read_text())
        assert cells and cells[0][0] in ("code", "markdown"), f.name
        nb_percent.roundtrip(cells)


def test_refuses_what_it_cannot_keep_exact() -> None:
    with pytest.raises(ValueError, match="before the first"):
        nb_percent.parse("x = 1\n# %%\ny = 2\n")
    with pytest.raises(ValueError, match="marker"):
        nb_percent.render([("code", "a = 1\n# %%\nb = 2")])


@pytest.mark.parametrize(
    ("orig", "gpu", "kind"),
    [
        ("mean 0.123457\n", "mean 0.123456\n", None),  # one unit of the last printed digit
        ("mean 0.123457\n", "mean 0.123470\n", "numbers"),
        ("kept 1201 of 3000\n", "kept 1200 of 3000\n", "numbers"),  # integers exactly
        ("3.5\n", "array(3.5)\n", "form"),
        ("[1. 2.]\n", "<cupy.ndarray at 0x7f00>\n", "form"),
        ("<Artist at 0x7fa9a77b2810>\n", "<Artist at 0x7faf47e586d0>\n", None),
        ("energy 12345.678\n", "energy 12345.7\n", None),  # float32 rounding (rtol 1e-5)
        ("mean 0.5012\n", "mean 0.4987\n", "random"),
        ("dense solve 1.099 s\n", "dense solve 0.780 s\n", "clock"),  # a printed timing
    ],
)
def test_printed_text_is_compared_by_form_then_precision(orig: str, gpu: str, kind: str) -> None:
    got = run_notebooks.compare_text(orig, gpu, kind == "random", kind == "clock")
    assert (got[0] if got else None) == kind


def test_each_side_runs_twice_and_the_logs_come_back_in_one_archive(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both sides of a two-cell notebook, each run twice in fresh processes (no CuPy here:
    the "rewrite" is the original itself): run 1 is compared, run 2 only timed; DIR keeps
    table.txt, results.json and one archive holding them and every run's log and cells."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    cells = [("code", "import numpy as np\nx = np.arange(6.0)"), ("code", "s = x.sum()\nprint(s)")]
    (src / "tiny.py").write_text(nb_percent.render(cells))
    (src / "tiny.gpu.py").write_text(nb_percent.render(cells))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    argv = ["--out", str(out), "--src-dir", str(src), "--fixed-dir", str(src), "tiny"]
    assert run_notebooks.main(argv) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "notebooks.tar.gz",
        "results.json",
        "table.txt",
    ]
    (r,) = json.loads((out / "results.json").read_text())["notebooks"]
    assert set(r["second"]) == {"orig", "gpu"} and "skipped" not in r
    assert [x["status"] for x in r["values"]] == ["equal", "equal"]  # s, x: run 1 compared
    for c in r["cells"]:
        assert {"orig_s", "gpu_s", "orig2_s", "gpu2_s"} <= set(c)
    warm = {c["cell"]: c["gpu2_s"] for c in r["cells"]}
    assert [c["cell"] for c in r["slowest_cells"]] == sorted(warm, key=lambda k: -warm[k])
    assert r["slowest_cells"][0]["source"] in ("import numpy as np", "s = x.sum()")
    with tarfile.open(out / "notebooks.tar.gz") as tar:
        names = set(tar.getnames())
    runs = {
        f"logs/tiny.{v}.{n}.{ext}"
        for v in ("orig", "gpu")
        for n in (1, 2)
        for ext in ("log", "cells.jsonl")
    }
    assert names == {"results.json", "table.txt"} | runs
    head = (out / "table.txt").read_text().splitlines()[0].split()
    assert head[:8] == ["notebook", "cells", "orig", "1", "orig", "2", "gpu", "cold"]


def test_second_runs_are_skipped_first_when_time_is_short(tmp_path: pathlib.Path) -> None:
    """A notebook whose first runs took 100 s gets no second runs with 50 s left, and the
    table says why; its slowest cells then fall back to the cold-cache times."""
    side = {"wall_s": 50.0, "rc": 0, "timed_out": False, "limit_s": 240.0, "cells": []}
    r = {
        "name": "nb",
        "sides": {"orig": dict(side), "gpu": dict(side)},
        "cells": [
            {"cell": 1, "orig_s": 1.0, "gpu_s": 4.0},
            {"cell": 2, "orig_s": 30.0, "gpu_s": 3.0},
        ],
    }
    args = argparse.Namespace(src_dir=tmp_path, fixed_dir=tmp_path, cupy_double=False)
    run_notebooks.second_runs(r, args, tmp_path, tmp_path, time.perf_counter() + 50)
    assert "second" not in r
    assert any(s.startswith("second runs: no time left") for s in r["skipped"])
    assert [(c["cell"], c["gpu_warm_s"], c["orig_run"]) for c in r["slowest_cells"]] == [
        (1, None, 1),
        (2, None, 1),
    ]
    row = run_notebooks._summary(r)
    assert (row["speedup warm"], row["speedup cold"]) == ("-", "4.4x")
    assert "second runs: no time left" in row["errors"]
