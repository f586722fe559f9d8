"""The whole-notebook bench's own logic (bench/nb_percent.py, bench/run_notebooks.py): cells
survive the py-percent <-> .ipynb conversion exactly (timings and comparisons are per cell), and
printed text is judged by form and by printed precision, not character by character."""

from __future__ import annotations

import json
import pathlib
import sys

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
