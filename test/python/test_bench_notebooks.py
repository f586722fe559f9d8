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


def _tiny(tmp_path: pathlib.Path) -> tuple[pathlib.Path, list[tuple[str, str]]]:
    """A two-cell notebook and a "rewrite" (no CuPy here) that changes its second cell only,
    with an analysis that predicts 4x for that cell and refuses the first at 0.9x."""
    src = tmp_path / "src"
    src.mkdir()
    cells = [("code", "import numpy as np\nx = np.arange(6.0)"), ("code", "s = x.sum()\nprint(s)")]
    (src / "tiny.py").write_text(nb_percent.render(cells))
    rewrite = [cells[0], ("code", "s = x.sum()  # the rewrite's cell\nprint(s)")]
    (src / "tiny.gpu.py").write_text(nb_percent.render(rewrite))
    analysis = {
        "files": [
            {
                "cells": [
                    {
                        "index": 0,
                        "suggestions": [],
                        "refusals": [
                            {"rule": "GPU101", "reason": "6 B: predicted 0.9x (CPU 1 us)"}
                        ],
                    },
                    {
                        "index": 1,
                        "suggestions": [
                            {"rule": "GPU101", "predicted_speedup": 2.0},
                            {
                                "rule": "GPU105",
                                "predicted_speedup": 4.0,
                                "predicted_first_run_s": 1.5,
                            },
                        ],
                        "refusals": [],
                    },
                ]
            }
        ]
    }
    (src / "tiny.analyze.json").write_text(json.dumps(analysis))
    return src, cells


def test_runs_cold_warm_then_orig_beside_the_predictions(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Default runs of one notebook, each in a fresh process: the rewrite cold (its kernel
    cache emptied first), warm (same cache), the original once; the first rewrite run and the
    original are compared; each cell's times sit beside its prediction; DIR keeps table.txt,
    results.json and one archive of every run's log and cells."""
    src, _ = _tiny(tmp_path)
    out, cache = tmp_path / "out", tmp_path / "cache"
    (cache / "tiny").mkdir(parents=True)
    (cache / "tiny" / "stale.cubin").write_text("left by an earlier call")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    argv = ["--out", str(out), "--src-dir", str(src), "--fixed-dir", str(src)]
    assert run_notebooks.main([*argv, "--cache-dir", str(cache), "tiny"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "notebooks.tar.gz",
        "results.json",
        "table.txt",
    ]
    (r,) = json.loads((out / "results.json").read_text())["notebooks"]
    assert list(r["runs"]) == ["cold", "warm", "orig"] and r["compared"] == "cold"
    assert r["runs"]["cold"]["cache_files_before"] == 0  # emptied: a cold run compiles all
    assert not (cache / "tiny" / "stale.cubin").exists()
    assert [x["status"] for x in r["values"]] == ["equal", "equal"]  # s, x
    for c in r["cells"]:
        assert {"orig_s", "cold_s", "warm_s"} <= set(c) and "orig2_s" not in c
    first, second = r["cells"]
    assert first["predicted"] == {"speedup": 0.9, "rule": "GPU101", "refused": True}
    assert second["predicted"] == {"speedup": 4.0, "rule": "GPU105", "first_run_s": 1.5}
    assert second["source"] == "s = x.sum()  # the rewrite's cell"
    assert (first["changed"], second["changed"]) == (False, True)
    with tarfile.open(out / "notebooks.tar.gz") as tar:
        names = set(tar.getnames())
    logs = {
        f"logs/tiny.{run}.{ext}"
        for run in ("cold", "warm", "orig")
        for ext in ("log", "cells.jsonl")
    }
    assert names == {"results.json", "table.txt"} | logs
    lines = (out / "table.txt").read_text().splitlines()
    assert lines[0].split()[:8] == [
        "notebook",
        "cells",
        "orig",
        "gpu",
        "warm",
        "gpu",
        "cold",
        "warm",
    ]
    head = next(x for x in lines if "cold-warm" in x)
    assert "pred x" in head and "pred cold s" in head and "pred warm s" not in head
    summary = run_notebooks._summary(r)
    assert (
        summary["pred cold s"] == f"{first['orig_s'] + 1.5:.2f}" and summary["pred warm s"] == "-"
    )
    rows = [x.split() for x in lines if x.startswith("tiny ")]
    assert rows[1][7:9] == ["(0.9x)", "-"]  # not changed: the plan column is empty
    assert rows[2][7:10] == ["changed", "4x", "1.500"]


def test_a_notebook_that_does_not_fit_is_skipped_whole(tmp_path: pathlib.Path) -> None:
    """With 50 s left, a notebook estimated at 100 s a run is not started (no run cut
    halfway), and the table says how long it needs; one that fits still runs."""
    src, _ = _tiny(tmp_path)
    args = argparse.Namespace(
        src_dir=src,
        fixed_dir=src,
        cache_dir=tmp_path / "cache",
        warm_only=False,
        orig_twice=False,
        deadline_s=240.0,
        cupy_double=False,
    )
    walls = {"tiny": {"orig": 100.0, "cold": 100.0, "warm": 10.0}}
    logs = tmp_path / "logs"
    logs.mkdir()
    r = run_notebooks.bench_notebook(
        "tiny", args, (logs, tmp_path), time.perf_counter() + 50, walls
    )
    assert "runs" not in r and not list(logs.iterdir())
    assert r["skipped"] == ["not run: needs ~278 s, 50 s left (BENCH_DEADLINE_S)"]
    assert "needs ~278 s" in run_notebooks._summary(r)["errors"]
    walls = {"tiny": {"orig": 1.0, "cold": 1.0, "warm": 1.0, "overhead": 1.0}}
    r = run_notebooks.bench_notebook(
        "tiny", args, (logs, tmp_path), time.perf_counter() + 50, walls
    )
    assert list(r["runs"]) == ["cold", "warm", "orig"] and "skipped" not in r


def test_warm_only_skips_the_cold_run_only_where_the_cache_holds_kernels(
    tmp_path: pathlib.Path,
) -> None:
    args = argparse.Namespace(warm_only=True, orig_twice=True)
    assert run_notebooks._planned_runs(args, tmp_path / "none") == ["cold", "warm", "orig", "orig2"]
    (tmp_path / "filled" / "kernels").mkdir(parents=True)
    (tmp_path / "filled" / "kernels" / "k.cubin").write_bytes(b"\0")
    assert run_notebooks._planned_runs(args, tmp_path / "filled") == ["warm", "orig", "orig2"]
    args.warm_only = False
    assert run_notebooks._planned_runs(args, tmp_path / "filled")[:2] == ["cold", "warm"]


def test_groups_are_balanced_and_keep_the_given_order() -> None:
    need = {"a": 100.0, "b": 90.0, "c": 60.0, "d": 50.0, "e": 40.0, "f": 10.0}
    groups = run_notebooks.plan_groups(list(need), need, 3)
    assert sorted(x for g in groups for x in g) == sorted(need)
    assert all(g == sorted(g) for g in groups)
    loads = sorted(sum(need[x] for x in g) for g in groups)
    assert loads == [110.0, 110.0, 130.0]


def test_run20_figures_are_read_back_from_its_results() -> None:
    """Run 20's results.json (sides/second) give the estimates: b_signal's cold and warm run
    of call 5 replace the built-in figures, a notebook without a second run keeps WARM_SHARE."""
    run20 = BENCH / "results" / "2026-12-01-h200-run20"
    walls = run_notebooks.measured_walls([run20 / "notebooks_3.results.json"])
    assert (
        round(walls["b_signal"]["cold"], 1) == 18.6 and round(walls["b_signal"]["warm"], 1) == 3.5
    )
    est = run_notebooks.run_estimates("i_denoise", walls, ["cold", "warm", "orig"])
    assert est["warm"] == run_notebooks.WARM_SHARE * est["cold"]


def test_merge_joins_calls_and_adds_a_later_warm_run(tmp_path: pathlib.Path) -> None:
    side = {"wall_s": 2.0, "rc": 0, "timed_out": False, "limit_s": 60.0, "cells": []}
    call1 = {
        "cupy_test_double": False,
        "notebooks": [
            {
                "name": "b",
                "runs": {"cold": side, "orig": side},
                "cells": [
                    {
                        "cell": 1,
                        "changed": True,
                        "cold_s": 3.0,
                        "orig_s": 2.0,
                        "predicted": {"speedup": 2.0},
                    }
                ],
            },
            {"name": "a", "skipped": ["not run: needs ~90 s, 20 s left (BENCH_DEADLINE_S)"]},
        ],
    }
    call2 = {
        "cupy_test_double": False,
        "notebooks": [
            {"name": "a", "runs": {"cold": side, "warm": side, "orig": side}, "cells": []},
            {
                "name": "b",
                "runs": {"warm": side, "orig": side},
                "cells": [{"cell": 1, "warm_s": 0.5, "orig_s": 9.0}],
            },
        ],
    }
    files = []
    for k, report in enumerate((call1, call2)):
        files.append(tmp_path / f"call{k}.json")
        files[-1].write_text(json.dumps(report))
    out = tmp_path / "merged"
    assert run_notebooks.main(["--merge", str(out), *map(str, files)]) == 0
    a, b = json.loads((out / "results.json").read_text())["notebooks"]
    assert a["name"] == "a" and "skipped" not in a and list(a["runs"]) == ["cold", "warm", "orig"]
    assert list(b["runs"]) == ["cold", "orig", "warm"]
    assert b["cells"] == [
        {
            "cell": 1,
            "changed": True,
            "cold_s": 3.0,
            "orig_s": 2.0,
            "predicted": {"speedup": 2.0},
            "warm_s": 0.5,
        }
    ]
    row = run_notebooks._summary(b)
    assert (row["warm x"], row["cold x"], row["compile s"], row["pred x"]) == (
        "4.0x",
        "0.7x",
        "2.50",
        "2.0x",
    )


def test_fix_whole_notebook_figure_is_read_from_its_log(tmp_path: pathlib.Path) -> None:
    """`gpuoptimize fix` prints its whole-notebook figure in words and what it did per cell:
    the seconds are read back (µs, ms, s, min), and each cell's part (the GPU cells are what
    the figure is held against)."""
    log = tmp_path / "nb.fix.log"
    log.write_text(
        "nb.gpu.ipynb: 3 change(s) from nb.ipynb\n"
        "  cell 1: imports CuPy (import cupy as cp)\n"
        "      + import cupy as cp\n"
        "  cell 5: GPU101 runs on the GPU; moves tas to the device once\n"
        "  cell 7: stays on the host: 9.59 ms on the GPU in a fresh kernel against 51.6 ms\n"
        "  cell 9: stays on the host: scipy.signal.lfilter: ... the sos form runs on the GPU\n"
        "  cell 8: brings gmean back to the host (used in host code)\n"
        "  warning: the whole-notebook rewrite is not predicted to pay for this notebook: its GPU "
        "cells' work is not faster on the GPU by enough; the cells it moves to the GPU take "
        "~1.28 s on the CPU and ~2 min 5 s on the GPU per session (import cupy ~700 ms, first "
        "uses of libraries and kernels ~30 ms included; 161 µs re-run in the same session), "
        "0.01x; this machine's first run adds ~2.07 s of kernel compiles (then kept); "
        "cells 6, 12 not counted (array sizes unknown)\n"
    )
    f = run_notebooks.fix_prediction(log)
    assert f is not None and not f["pays"] and f["text"].startswith("warning: the whole")
    assert (f["cpu_s"], f["session_s"]) == (1.28, 125.0)
    assert f["rerun_s"] == pytest.approx(161e-6) and f["first_run_s"] == pytest.approx(127.07)
    assert f["unpriced"] == [6, 12]
    assert run_notebooks.fix_plan(log) == {1: "import", 5: "gpu", 7: "host", 8: "copies", 9: "host"}
    log.write_text("nb.gpu.ipynb: 3 change(s) from nb.ipynb\n")
    assert run_notebooks.fix_prediction(log) is None


def test_a_suggestion_without_array_sizes_is_no_prediction(tmp_path: pathlib.Path) -> None:
    """The analysis gives 1x when it could not size a cell's arrays (data read from files):
    shown as ?, and left out of the notebook's implied figure; a priced suggestion of the
    same cell is used instead."""
    unsized = {"rule": "GPU102", "predicted_speedup": 1, "reason": "array sizes unknown: run it"}
    priced = {"rule": "GPU101", "predicted_speedup": 0.8, "reason": "1.2 MB: launches"}
    analysis = {
        "files": [
            {
                "cells": [
                    {"index": 1, "suggestions": [unsized]},
                    {"index": 2, "suggestions": [unsized, priced]},
                ]
            }
        ]
    }
    path = tmp_path / "nb.analyze.json"
    path.write_text(json.dumps(analysis))
    got = run_notebooks.predictions(path)
    assert got == {1: {"unknown": True, "rule": "GPU102"}, 2: {"speedup": 0.8, "rule": "GPU101"}}
    cells = [
        {"cell": 1, "changed": True, "orig_s": 1.0, "predicted": got[1]},
        {"cell": 2, "changed": True, "orig_s": 0.8, "predicted": got[2]},
    ]
    assert run_notebooks.implied_speedup(cells) == pytest.approx(1.8 / 2.0)
    r = {"name": "nb", "runs": {}, "cells": cells}
    assert run_notebooks._summary(r)["pred x"] == "0.9x (1 ?)"
    assert [row["pred x"] for row in run_notebooks._cell_rows([r])] == ["?", "0.8x"]


def test_values_from_random_streams_are_judged_at_the_precision_they_were_computed_in() -> None:
    # k_audio: everything computed after the draw is compared as random, in its own part of the
    # values; the float32 spectrum a centroid is computed from may sit in the other part. A
    # centroid as close as float32's rounding allows is equal (said so, with the precision),
    # not merely matched by statistics
    import numpy as np

    cells = [
        ("code", "power = (np.abs(np.fft.rfft(frames, axis=1)) ** 2).astype(np.float32)"),
        ("code", "centroid = (power * freqs).sum(axis=1) / power.sum(axis=1)"),
    ]
    facts = run_notebooks.notebook_facts(cells)
    rng = np.random.default_rng(0)
    power = rng.random((400, 513)).astype(np.float32)
    freqs = np.linspace(0, 11025, 513)
    rounded = power * (1 + 5e-7 * np.cos(np.arange(513))).astype(np.float32)

    def centroid(p: np.ndarray) -> np.ndarray:
        return (p * freqs).sum(axis=1) / p.sum(axis=1)

    a = {"power": power, "freqs": freqs, "centroid": centroid(power)}
    b = {"power": rounded, "freqs": freqs, "centroid": centroid(rounded)}
    values, _ = run_notebooks.compare_values(a, b, facts, facts, {"centroid"})
    c = next(v for v in values if v["name"] == "centroid")
    assert c["status"] == "equal", c
    assert "at float32's tolerance: computed from power (float32)" in c["detail"]
