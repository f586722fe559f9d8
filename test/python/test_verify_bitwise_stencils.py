"""The GPU fixture checker (test/fixtures/rules/verify_on_gpu.py) holds generated slice-stencil
kernels to NumPy's results bit for bit, other candidates to a tolerance: a stencil kernel that
drifted by one ulp (an FMA contraction, a reordered sum, a step lost in the ping-pong) fails the
GPU batch instead of passing within 1e-3."""

from __future__ import annotations

import numpy as np
from conftest import RULES, fixture_checker

verify = fixture_checker()


def test_every_stencil_kernel_fixture_is_checked_bitwise() -> None:
    exact = {
        p.parent.name
        for p in RULES.glob("*/flag-*/expected.py")
        if verify.bitwise_stencil(p.read_text())
    }
    assert {
        "flag-slice-stencil-one-pass",
        "flag-stencil-1d",
        "flag-stencil-slices",
        "flag-stencil-loop-odd-steps-1d",
        "flag-stencil-loop-names-taken",
        "flag-stencil-loop-reads-other-array",
        "flag-stencil-loop-reads-other-array-shifted-1d",
        "flag-stencil-loop-reads-k-and-n-1d",
        "flag-stencil-loop-reads-p-q-r-2d",
        "flag-stencil-loop-other-array-float64",
        "flag-stencil-loop-other-array-float64-1d-weak-scalars",
        "flag-stencil-loop-float64-reads-float32-1d",
        "flag-stencil-loop-other-array-broadcast-row",
        "flag-stencil-loop-reads-row-and-column",
        "flag-stencil-loop-copy-border-and-host-read",
        "flag-stencil-loop-copy-border-two-values",
        "flag-stencil-loop-copy-odd-steps-1d",
        "flag-stencil-loop-roll-periodic",
        "flag-stencil-loop-roll-1d-one-statement",
    } <= exact
    # fallbacks (ElementwiseKernel + slice assignment) and reductions keep the tolerance
    fallbacks = {
        "flag-stencil-loop-other-array-written-not-a-kernel",
        "flag-stencil-loop-other-array-bound-alias-not-a-kernel",
        "flag-stencil-loop-copy-written-not-a-kernel",
    }
    assert not exact & (fallbacks | {"flag-elementwise", "flag-reduction"})


def test_bitwise_comparison_refuses_one_ulp() -> None:
    a = {"u": np.float32([1.0, 2.0]), "note": "same"}
    b = {"u": np.nextafter(np.float32([1.0, 2.0]), np.float32(3.0)), "note": "same"}
    assert verify.compare(a, b, statistical=False) == []  # within 1e-3
    assert verify.compare(a, b, statistical=False, exact=True) == ["u: values differ"]
    assert verify.compare(a, dict(a), statistical=False, exact=True) == []
    # a float64 result returned as float32 is not the same bits either
    assert verify.compare({"u": np.float64([1.0])}, {"u": np.float32([1.0])}, False, exact=True)


def test_bitwise_comparison_allows_only_flushed_float32_subnormals() -> None:
    """CuPy compiles kernels with -ftz=true (float32 subnormals become 0): the stencil check lets
    float32 values below FTZ_SHADOW differ, and nothing else; float64 keeps its subnormals."""
    tiny = np.finfo(np.float32).tiny
    numpy_side = np.float32([1.0, tiny / 4, tiny * 3, 0.25])
    flushed = np.float32([1.0, 0.0, tiny * 3 - tiny / 4, 0.25])  # a flush, and what it fed
    assert verify.compare({"u": numpy_side}, {"u": flushed}, False, exact=True) == []
    # a difference above the shadow still fails, even next to flushed values
    off = flushed.copy()
    off[3] = np.nextafter(np.float32(0.25), np.float32(1.0))
    assert verify.compare({"u": numpy_side}, {"u": off}, False, exact=True) == ["u: values differ"]
    # a flushed input can move a small normal result by one ulp (the H200 saw up to 7.5e-37):
    # allowed, since the absolute difference stays below the shadow ...
    small = np.float32([3e-29, 1e-31])
    up = np.float32(1.0)
    assert verify.compare({"u": small}, {"u": np.nextafter(small, up)}, False, exact=True) == []
    # ... but one ulp at 1e-20 or above is not a flush's doing
    big = np.float32([1e-20])
    moved = {"u": np.nextafter(big, up)}
    assert verify.compare({"u": big}, moved, False, exact=True) == ["u: values differ"]
    # float64 has no flush on the GPU: any difference fails
    t64 = np.finfo(np.float64).tiny
    sub64 = {"u": np.float64([t64 / 4])}
    flushed64 = {"u": np.float64([0.0])}
    assert verify.compare(sub64, flushed64, False, exact=True) == ["u: values differ"]
    assert "all subnormal" in verify.exact_mismatch(numpy_side[:2], flushed[:2])


def test_exactness_covers_the_stencil_outputs_only() -> None:
    """The names the stencil launchers write are held bit for bit; another chain of the same cell
    (an ElementwiseKernel calling expf: not NumPy's to the last bit) keeps the tolerance."""
    outputs = {
        p.parent.name: verify.stencil_outputs(p.read_text())
        for p in RULES.glob("GPU103/flag-*/expected.py")
    }
    assert outputs["flag-slice-stencil-one-pass"] == {"lap"}
    assert outputs["flag-stencil-1d"] == {"d2"}
    assert outputs["flag-stencil-slices"] == {"u"}  # updated in place by the loop
    assert outputs["flag-stencil-loop-odd-steps-1d"] == {"T"}
    # a float32 loop reading a float64 array: u stays float32, held bit for bit
    assert outputs["flag-stencil-loop-other-array-float64"] == {"u"}
    assert outputs["flag-stencil-loop-reads-row-and-column"] == {"u"}
    # the copy form: u names each step's buffer and ends as its own array again
    assert outputs["flag-stencil-loop-copy-border-and-host-read"] == {"u"}
    assert outputs["flag-stencil-loop-copy-odd-steps-1d"] == {"T"}
    # the periodic form: v rebound to the last step's array; v0 keeps the first, never written
    assert outputs["flag-stencil-loop-roll-periodic"] == {"v"}
    assert outputs["flag-elementwise"] == set()
    candidate = (
        "lap_stencil_kernel = cp.RawKernel(r'''...''', 'lap_stencil')\n"
        "lap = lap_stencil(u_gpu)\n"
        "y = y_kernel(x_gpu)\n"
        "lap = cp.asnumpy(lap)\n"
    )
    exact = verify.stencil_outputs(candidate)
    assert exact == {"lap"}
    one_ulp = np.nextafter(np.float32([1.0]), np.float32(2.0))
    a = {"lap": np.float32([1.0]), "y": np.float32([1.0])}
    assert verify.compare(a, {"lap": np.float32([1.0]), "y": one_ulp}, False, exact) == []
    assert verify.compare(a, {"lap": one_ulp, "y": np.float32([1.0])}, False, exact) == [
        "lap: values differ"
    ]
