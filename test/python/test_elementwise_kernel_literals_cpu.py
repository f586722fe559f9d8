"""GPU103's typed kernels write a NumPy scalar of a number (`np.float32(0.1)`, `np.int32(3)`) as
a C literal instead of taking it as an argument, run on the CPU against NumPy (no GPU).

The literal must hold the value NumPy's scalar holds: np.float32 rounds the double Python reads,
which is not always what a compiler makes of the decimal read straight into a float. Each
fixture's candidate runs as written on the CuPy test double, its ElementwiseKernel compiled with
g++ (test_elementwise_kernel_groups_cpu.py), and every array must equal NumPy's bit for bit,
dtype included; the same kernel with the source's decimal read by the compiler differs, which
shows that the check sees the difference.
"""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest
from test_elementwise_kernel_groups_cpu import _run
from test_generated_kernels_cpu import (
    FIXTURES,
    _cxx20,
    _library_kernel_blocks,
    double_cupy,  # noqa: F401  (the fixture, by name)
)

pytestmark = pytest.mark.skipif(not _cxx20(), reason="needs g++ with C++20")

# case: (the kernel's inputs, the literals its operation writes)
INLINED = {
    "flag-elementwise-numpy-scalar-literals-inlined": (
        "float32 u, float32 c",
        ["0.1f", "-2.5f", "1.0f"],
    ),
    "flag-elementwise-numpy-scalar-literals-inlined-float64": (
        "float64 x",
        ["0.10000000149011612", "3.0", "-0.0025"],
    ),
    # np.float32(dt) reads a name: still an argument, np.float32(0.5) beside it a literal
    "flag-elementwise-numpy-scalar-of-name-passed": ("float32 arg0, float32 u", ["0.5f"]),
}


@pytest.mark.parametrize("case", sorted(INLINED))
def test_inlined_literals_bitwise_equal_to_numpy(
    double_cupy,  # noqa: ANN001, F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: pathlib.Path,
    case: str,
) -> None:
    expected = (FIXTURES / case / "expected.py").read_text()
    (block,) = _library_kernel_blocks(expected, "Elementwise")
    in_params, _, operation, _, _ = re.findall(r"'([^']*)'", block)
    params, literals = INLINED[case]
    assert in_params == params
    assert all(re.search(rf"(?<![\w.]){re.escape(lit)}(?![\w.])", operation) for lit in literals)
    _, want, got = _run(case, double_cupy, monkeypatch, tmp_path)
    compared = 0
    for name, w in want.items():
        if isinstance(w, np.ndarray) and not name.startswith("_"):
            g = np.asarray(got[name])
            assert g.dtype == w.dtype and g.shape == w.shape, (name, g.dtype, w.dtype)
            assert np.array_equal(g, w), (name, int(np.sum(g != w)))
            compared += 1
    assert compared >= 1


def test_literal_is_numpys_value_not_the_decimal(
    double_cupy,  # noqa: ANN001, F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: pathlib.Path,
) -> None:
    """np.float32(1.0000000596046447753906250000000001) is 1.0 (the double 1 + 2**-24, a tie,
    rounded to even); the compiler reads the decimal `...0001f` as the float above: the kernel
    written with the source's digits differs from NumPy in many elements (about a third)."""
    decimal = "1.0000000596046447753906250000000001f"
    case = "flag-elementwise-numpy-scalar-literals-inlined"
    _, want, got = _run(
        case,
        double_cupy,
        monkeypatch,
        tmp_path,
        edit=lambda op: op.replace("+ 1.0f * u", f"+ {decimal} * u"),
    )
    assert np.mean(np.asarray(got["v"]) != want["v"]) > 0.1
