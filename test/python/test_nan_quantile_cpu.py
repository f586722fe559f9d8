"""The device nan-quantile GPU101 writes (src/analysis/rules/arrays/nan-quantile.ts), run on the
CPU against NumPy's own np.nanquantile / np.nanpercentile, bit for bit.

The definition is read from the flag fixtures' expected candidates, exactly as the engine writes
it, and executed with the CuPy TEST DOUBLE (test/python/testdouble_cupy: NumPy underneath, not
CuPy). That checks the algorithm (NaNs sorted last, NumPy's 'linear' virtual index and weights,
the weights rounded to the array's dtype, the all-NaN slice, infinities) on every axis of 1-D to
3-D float32 and float64 arrays. With GPUOPTIMIZE_REAL_CUPY=1 (the GPU machine) the same cases
run on CuPy itself: CuPy's sort and take_along_axis, bit for bit with NumPy (bench/RESULTS.md)."""

from __future__ import annotations

import os
import pathlib
import re
import sys
import zlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "test" / "fixtures" / "rules" / "GPU101"
DOUBLE = ROOT / "test" / "python" / "testdouble_cupy"
CASES = ["flag-nanpercentile-along-axis-float32", "flag-nanquantile-last-axis-float64"]


def _definition(case: str) -> str:
    text = (FIXTURES / case / "expected.py").read_text()
    m = re.search(r"^def nanquantile_linear\(a, q, axis\):\n(?:(?:    .*)?\n)+", text, re.M)
    assert m, f"{case}: no nanquantile_linear definition in its expected candidate"
    return m.group(0)


@pytest.fixture(scope="module")
def cp():
    if os.environ.get("GPUOPTIMIZE_REAL_CUPY") == "1":
        # on the GPU machine: the same cases on CuPy itself (bench/RESULTS.md records the run)
        cupy = pytest.importorskip("cupy")
        assert not getattr(cupy, "IS_TEST_DOUBLE", False), "real CuPy asked for, the double found"
        yield cupy
        return
    sys.path.insert(0, str(DOUBLE))
    try:
        import cupy

        assert getattr(cupy, "IS_TEST_DOUBLE", False), "the CuPy test double, not CuPy"
        yield cupy
    finally:
        sys.path.remove(str(DOUBLE))
        for name in [n for n in sys.modules if n == "cupy" or n.startswith("cupy.")]:
            del sys.modules[name]


def _field(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """Values with NaNs (about 30%), whole all-NaN and one-value slices along every axis,
    infinities of both signs and repeated values."""
    a = rng.standard_normal(shape).astype(dtype)
    a[rng.random(shape) < 0.3] = np.nan
    a[rng.random(shape) < 0.02] = np.inf
    a[rng.random(shape) < 0.02] = -np.inf
    a[rng.random(shape) < 0.1] = 1.5
    if a.ndim >= 2 and a.shape[0] > 1:
        a[0, ...] = np.nan  # all-NaN slices along the other axes
        a[..., 1] = np.nan
        a[-1, ..., 0] = 2.0  # one value, the rest NaN, where a[0] is all NaN
    return a


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(17,), (9, 13), (7, 6, 11), (1, 5, 3)])
def test_device_nan_quantile_is_numpys_bit_for_bit(cp, case: str, dtype: type, shape) -> None:
    scope: dict = {"cp": cp}
    exec(_definition(case), scope)  # noqa: S102  (the engine's generated text)
    f = scope["nanquantile_linear"]
    rng = np.random.default_rng(zlib.crc32(f"{case}{shape}{dtype}".encode()))
    a = _field(rng, shape, dtype)
    for axis in range(-a.ndim, a.ndim):
        for q in (0.0, 0.05, 0.25, 0.5, 0.95, 0.999, 1.0, 1 / 3):
            with np.errstate(invalid="ignore"), _quiet():
                want = np.nanquantile(a, q, axis=axis)
            # inf - inf where a slice holds both: NaN, as CuPy gives (NumPy warns)
            with np.errstate(invalid="ignore"):
                got = f(cp.asarray(a), q, axis=axis)
            got = got.get() if hasattr(got, "get") else np.asarray(got)
            assert got.dtype == want.dtype, (case, shape, axis, q)
            assert got.shape == want.shape, (case, shape, axis, q)
            where = f"{case} {shape} {dtype} axis={axis} q={q}"
            np.testing.assert_array_equal(got, want, err_msg=where)


class _quiet:
    """np.nanquantile warns on all-NaN slices ("All-NaN slice encountered"); the device form
    gives the same NaN without a warning."""

    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)
