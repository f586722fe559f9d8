"""Output equivalence (gpuoptimize.compare), directly, for each supported kind of value."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gpuoptimize.compare import (
    MIN_SCALAR_REPEATS,
    SCALAR_SE_LIMIT,
    compare,
    compare_random_scalar,
    default_tolerance,
)


def test_equal_float64_within_default_tolerance() -> None:
    a = np.linspace(0, 1, 100)
    r = compare("y", a, a * (1 + 1e-9))
    assert r.status == "equal"
    assert "rtol=1e-07" in r.method
    assert 0 < r.max_rel_err <= 1.1e-9


def test_float32_defaults_are_looser_than_float64() -> None:
    assert default_tolerance("float32", "float32") == (1e-5, 1e-6)
    assert default_tolerance("float64", "float64") == (1e-7, 1e-9)
    assert default_tolerance("float64", "float32") == (1e-5, 1e-6)  # lower precision wins
    a = np.ones(10, dtype=np.float64)
    assert compare("y", a, a + 1e-6).status == "not_equal"
    r = compare("y", a.astype(np.float32), (a + 1e-6).astype(np.float32))
    assert r.status == "equal"


def test_a_dtype_change_is_not_equal_whatever_the_values() -> None:
    a = np.arange(5, dtype=np.float64)
    r = compare("y", a, a.astype(np.float32))
    assert r.status == "not_equal" and r.method == "dtype"
    assert r.detail.startswith("dtype float64 vs candidate float32: lower precision")
    assert "values equal under elementwise allclose(rtol=1e-05" in r.detail
    assert r.max_abs_err == 0.0


def test_integers_are_exact() -> None:
    a = np.arange(10)
    r = compare("n", a, a + np.eye(1, 10, 3, dtype=int)[0])
    assert r.status == "not_equal"
    assert r.max_abs_err == 1
    assert "1 of 10 element(s) (10%) beyond the elementwise tolerance" in r.detail
    assert "first at index (3,)" in r.detail


def test_shape_mismatch() -> None:
    r = compare("m", np.zeros((3, 4)), np.zeros((4, 3)))
    assert r.status == "not_equal" and r.method == "shape"
    assert "(3, 4)" in r.detail and "(4, 3)" in r.detail


def test_nan_positions() -> None:
    a = np.array([1.0, np.nan, 3.0])
    assert compare("v", a, a.copy()).status == "equal"
    r = compare("v", a, np.array([np.nan, 2.0, 3.0]))
    assert r.status == "not_equal" and "NaN positions differ in 2" in r.detail


def test_infinities() -> None:
    a = np.array([1.0, np.inf])
    assert compare("v", a, a.copy()).status == "equal"
    assert compare("v", a, np.array([1.0, -np.inf])).status == "not_equal"


def test_user_tolerances_override_defaults() -> None:
    a = np.ones(4)
    assert compare("v", a, a + 0.01).status == "not_equal"
    r = compare("v", a, a + 0.01, atol=0.1)
    assert r.status == "equal" and "atol=0.1" in r.method
    assert compare("v", a, a * 1.01, rtol=0.05).status == "equal"


def test_scalars() -> None:
    assert compare("s", 3, 3).status == "equal"
    assert compare("s", 3, 4).status == "not_equal"
    assert compare("s", 0.1 + 0.2, 0.3).status == "equal"
    assert compare("s", 1.0, 1.001).status == "not_equal"
    assert compare("s", np.float32(2.0), np.float32(2.0)).status == "equal"
    assert compare("s", np.float32(2.0), 2.0).status == "not_equal"  # a type change
    assert compare("s", float("nan"), float("nan")).status == "equal"
    assert compare("s", 1 + 2j, 1 + 2j).status == "equal"
    r = compare("s", 1.0, 2.0)
    assert r.max_abs_err == 1.0 and r.max_rel_err == 1.0


def test_strings_and_none() -> None:
    assert compare("t", "abc", "abc").status == "equal"
    assert compare("t", "abc", "abd").status == "not_equal"
    assert compare("t", None, None).status == "equal"


def test_string_and_object_arrays() -> None:
    a = np.array(["a", "b"])
    assert compare("t", a, a.copy()).status == "equal"
    assert compare("t", a, np.array(["a", "c"])).status == "not_equal"
    # an object array's elements are compared as themselves (a dict by key)
    o = np.array([{"k": 1}], dtype=object)
    assert compare("o", o, o.copy()).status == "equal"
    assert compare("o", o, np.array([{"k": 2}], dtype=object)).status == "not_equal"


def test_containers_recursively() -> None:
    a = (np.arange(3.0), {"k": [1, 2.0]}, "x")
    b = (np.arange(3.0), {"k": [1, 2.0]}, "x")
    assert compare("c", a, b).status == "equal"
    r = compare("c", a, (np.arange(3.0), {"k": [1, 2.5]}, "x"))
    assert r.status == "not_equal"
    assert r.detail.startswith("c[1]['k'][1]")
    assert r.max_abs_err == 0.5
    assert compare("c", [1, 2], [1, 2, 3]).status == "not_equal"
    assert compare("c", {"a": 1}, {"b": 1}).status == "not_equal"
    r = compare("c", [1, 2], (1, 2))
    assert r.status == "not_equal" and r.method == "type"
    assert r.detail == "list vs candidate tuple: elements equal"


def test_dataframes() -> None:
    df = pd.DataFrame({"a": [1, 2, 3], "b": [0.1, 0.2, 0.3]})
    r = compare("df", df, df.copy())
    assert r.status == "equal" and r.method == "pandas.testing.assert_frame_equal"
    other = df.copy()
    other.loc[1, "b"] = 9.0
    r = compare("df", df, other)
    assert r.status == "not_equal" and "b" in r.detail


def test_dataframe_dtype_difference_is_not_equal() -> None:
    df = pd.DataFrame({"a": [1, 2, 3]})
    r = compare("df", df, df.astype("int32"))
    assert r.status == "not_equal" and r.method == "dtype"
    assert r.detail.startswith("dtypes differ:") and "int32" in r.detail
    assert "values equal under pandas.testing.assert_frame_equal(check_dtype=False)" in r.detail
    s = pd.Series([1.0, 2.0])
    assert compare("s", s, s.astype("float32")).status == "not_equal"


def test_dataframe_row_order() -> None:
    df = pd.DataFrame({"k": ["x", "y", "z"], "v": [3, 1, 2]})
    shuffled = df.iloc[[2, 0, 1]].reset_index(drop=True)
    r = compare("df", df, shuffled)
    assert r.status == "not_equal"
    assert r.detail == "same rows, different order"
    # a groupby whose index came back unsorted
    s = pd.Series([1.0, 2.0, 3.0], index=["a", "b", "c"])
    r = compare("s", s, s.iloc[::-1])
    assert r.status == "not_equal" and r.detail == "same rows, different order"


def test_series_and_index() -> None:
    s = pd.Series([1.0, 2.0], name="x")
    assert compare("s", s, s + 1e-12).status == "equal"
    assert compare("s", s, s + 1).status == "not_equal"
    assert compare("i", pd.Index([1, 2]), pd.Index([1, 2])).status == "equal"
    assert compare("s", s, s.to_numpy()).status == "not_equal"  # Series vs ndarray


def test_random_outputs_compared_by_statistics() -> None:
    a = np.random.default_rng(1).normal(size=5000)
    b = np.random.default_rng(2).normal(size=5000)
    assert compare("r", a, b).status == "not_equal"  # element by element they differ
    r = compare("r", a, b, random=True)
    assert r.status == "statistical"
    assert r.method.startswith("statistical")
    assert "KS=" in r.detail
    # a different distribution is caught
    r = compare("r", a, b * 1.5, random=True)
    assert r.status == "not_equal" and "std" in r.detail
    r = compare("r", a, b + 0.2, random=True)
    assert r.status == "not_equal" and "mean" in r.detail
    # the same stream (same seed) is still checked element by element
    assert compare("r", a, a.copy(), random=True).status == "equal"


def test_too_few_random_values_are_unverified() -> None:
    r = compare("r", np.array([0.1, 0.2]), np.array([0.3, 0.4]), random=True)
    assert r.status == "unverified" and "too few" in r.detail


def test_unknown_objects_are_unverified_never_equal() -> None:
    class Model:
        pass

    m = Model()
    r = compare("m", m, m)
    assert r.status == "unverified"
    assert "Model" in r.detail


def test_numba_device_arrays_are_copied_to_the_host(monkeypatch) -> None:
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    numba = pytest.importorskip("numba")
    from numba import cuda

    if not numba.config.ENABLE_CUDASIM:
        pytest.skip("numba.cuda was imported without the simulator in this process")
    d = cuda.to_device(np.arange(4.0))
    assert compare("d", np.arange(4.0), d).status == "equal"


def test_to_json_has_no_non_finite_numbers() -> None:
    r = compare("v", np.array([0.0, 0.0]), np.array([1.0, 0.0]))  # no relative error at 0
    assert math.isinf(r.max_rel_err)
    j = r.to_json()
    assert j["max_rel_err"] is None or math.isfinite(j["max_rel_err"])
    assert set(j) == {"name", "status", "method", "max_abs_err", "max_rel_err", "detail"}


# -- norm-wise comparison of transforms and products ---------------------------------


def _fft_pair() -> tuple[np.ndarray, np.ndarray]:
    """A float32 FFT two ways: computed in float64 and rounded, and in float32 (SciPy)."""
    import scipy.fft

    x = np.random.default_rng(0).random((256, 256), dtype=np.float32)
    return np.fft.fft2(x).astype(np.complex64), scipy.fft.fft2(x)


def test_fft_small_bins_pass_normwise_and_say_so() -> None:
    ref, got = _fft_pair()
    assert got.dtype == np.complex64
    r = compare("spec", ref, got)
    assert r.status == "equal"
    assert r.method == "normwise(rtol=1e-05)"
    assert "normwise: relative L2 error" in r.detail and "<= 1e-05" in r.detail
    # what was relaxed is in the detail: how many elements fail elementwise
    assert "beyond the elementwise tolerance allclose(rtol=1e-05, atol=1e-06)" in r.detail
    assert "%" in r.detail


def test_matmul_with_cancellation_passes_normwise() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((300, 400), dtype=np.float32)
    b = rng.standard_normal((400, 200), dtype=np.float32)
    ref = (a.astype(np.float64) @ b).astype(np.float32)
    r = compare("c", ref, a @ b)
    assert r.status == "equal" and r.method.startswith(("normwise", "elementwise"))


def test_elementwise_first_when_it_passes() -> None:
    a = np.linspace(1, 2, 50, dtype=np.float32)
    r = compare("y", a, a * np.float32(1 + 1e-7))
    assert r.status == "equal" and r.method.startswith("elementwise allclose(")


def test_one_wrong_bin_is_not_hidden_by_the_norm() -> None:
    ref, got = _fft_pair()
    bad = got.copy()
    bad[3, 5] *= 1.01  # a 1% error on one ordinary bin: a bug, not rounding
    r = compare("spec", ref, bad)
    assert r.status == "not_equal"
    assert "elementwise" in r.method


def test_local_error_under_a_dominant_entry_is_caught() -> None:
    ref = np.full(10_000, 1.0, dtype=np.float64)
    ref[0] = 1e8  # dominates the norm: RMS 1e6, so rtol * RMS = 0.1
    got = ref.copy()
    got[7] = 2.0  # 100% off; ||err|| / ||ref|| = 1e-8 < rtol
    r = compare("v", ref, got)
    assert r.status == "not_equal"
    assert "a local difference" in r.detail and "(7,)" in r.detail


def test_large_normwise_error_is_not_equal() -> None:
    ref = np.linspace(1, 2, 100)
    r = compare("v", ref, ref * (1 + 1e-4))
    assert r.status == "not_equal" and "normwise check failed too" in r.detail


def test_nan_positions_exact_even_when_the_norm_would_pass() -> None:
    ref, got = _fft_pair()
    got = got.copy()
    got[10, 10] = np.nan
    r = compare("spec", ref, got)
    assert r.status == "not_equal" and "NaN positions differ in 1" in r.detail


def test_integers_never_normwise() -> None:
    a = np.arange(1, 10_001, dtype=np.int64) * 1000
    b = a.copy()
    b[0] += 1
    r = compare("n", a, b)
    assert r.status == "not_equal" and "normwise" not in (r.detail or "")


def test_first_index_skips_nan_entries() -> None:
    a = np.array([np.nan, np.nan, 1.0, 2.0])
    b = np.array([np.nan, np.nan, 1.0, 3.0])
    r = compare("v", a, b, rtol=1e-12, atol=0)
    assert r.status == "not_equal" and "first at index (3,)" in r.detail


# -- random streams ------------------------------------------------------------------


def test_random_generators_are_state() -> None:
    import random

    from gpuoptimize.compare import is_random_state

    assert is_random_state(np.random.default_rng(0))
    assert is_random_state(np.random.RandomState(0))
    assert is_random_state(np.random.PCG64(0))
    assert is_random_state(random.Random(0))
    assert not is_random_state(np.zeros(3)) and not is_random_state(np.random)


def test_a_single_random_value_is_unverified_never_not_equal() -> None:
    r = compare("pi", 3.1412, 3.1419, random=True)
    assert r.status == "unverified" and "single value" in r.detail
    r = compare("pi", np.float64(3.1412), np.float64(3.1419), random=True)
    assert r.status == "unverified" and "single value" in r.detail
    assert compare("k", 7, 8, random=True).status == "unverified"
    assert compare("pi", 3.1412, 3.1412, random=True).status == "equal"
    assert compare("pi", 3.1412, 3.1419).status == "not_equal"  # not random: a difference


# ---------------------------------------------------------------------------------------
# A scalar from random streams, judged by the spread of each side's repeats


def _pi_runs(seed: int, runs: int, n: int = 20_000) -> list[float]:
    rng = np.random.default_rng(seed)
    return [
        4.0 * np.count_nonzero(rng.random(n) ** 2 + rng.random(n) ** 2 <= 1.0) / n
        for _ in range(runs)
    ]


def test_unseeded_random_scalar_matches_by_statistics_with_the_figures() -> None:
    r = compare_random_scalar("pi", _pi_runs(1, 12), _pi_runs(2, 9))
    assert r.status == "statistical"
    assert "5 standard errors" in r.method
    assert "baseline mean 3.14" in r.detail and "12 runs" in r.detail and "9 runs" in r.detail
    assert "within the limit of 5" in r.detail
    assert r.max_abs_err is not None and r.max_abs_err < 0.02


def test_random_scalar_with_a_shifted_mean_is_not_equal() -> None:
    shifted = [v + 0.05 for v in _pi_runs(2, 10)]  # ~5e-3 spread of a mean: 0.05 is far out
    r = compare_random_scalar("pi", _pi_runs(1, 10), shifted)
    assert r.status == "not_equal"
    assert "beyond the limit of 5" in r.detail


def test_the_limit_is_k_standard_errors_of_the_difference() -> None:
    a = [0.0, 1.0] * 5  # mean 0.5, stdev 0.527, se 0.167
    se = math.hypot(np.std(a, ddof=1) / math.sqrt(10), np.std(a, ddof=1) / math.sqrt(10))
    inside = [v + SCALAR_SE_LIMIT * se * 0.99 for v in a]
    outside = [v + SCALAR_SE_LIMIT * se * 1.01 for v in a]
    assert compare_random_scalar("s", a, inside).status == "statistical"
    assert compare_random_scalar("s", a, outside).status == "not_equal"


def test_seeded_random_scalar_is_one_draw_per_side_unverified() -> None:
    r = compare_random_scalar("pi", [3.1412] * 8, [3.1437] * 6)
    assert r.status == "unverified"
    assert r.detail.startswith("seeded: one draw per side")
    assert "3.1412 on all 8 runs" in r.detail and "3.1437 on all 6 runs" in r.detail
    # one side fixed but the other too short to give a spread: still one draw against too few
    short = compare_random_scalar("pi", [3.1412] * 8, _pi_runs(3, MIN_SCALAR_REPEATS - 1))
    assert short.status == "unverified" and "seeded: one draw on the baseline side" in short.detail


def test_one_fixed_draw_is_judged_against_the_other_sides_spread() -> None:
    # the common Monte Carlo case: NumPy's global stream is restored before every baseline run
    # (one value), CuPy's is not (the candidate's repeats spread)
    fixed = _pi_runs(7, 1)[0]
    r = compare_random_scalar("pi", [fixed] * 8, _pi_runs(3, 12))
    assert r.status == "statistical"
    assert "one draw vs repeats" in r.method
    assert "baseline gave" in r.detail and "candidate's 12 runs" in r.detail
    assert "the smallest bias this test detects" in r.detail
    # a single-draw standard deviation of pi from 20,000 points is ~0.0116: 0.2 off is caught,
    # on either side
    assert compare_random_scalar("pi", [fixed + 0.2] * 8, _pi_runs(3, 12)).status == "not_equal"
    assert compare_random_scalar("pi", _pi_runs(3, 12), [fixed - 0.2] * 8).status == "not_equal"


def test_one_fixed_draw_limit_is_k_single_draw_deviations() -> None:
    runs = [0.0, 1.0] * 5  # mean 0.5, stdev 0.527
    spread = np.std(runs, ddof=1) * math.sqrt(1 + 1 / 10)
    inside = 0.5 + SCALAR_SE_LIMIT * spread * 0.99
    outside = 0.5 + SCALAR_SE_LIMIT * spread * 1.01
    assert compare_random_scalar("s", [inside] * 6, runs).status == "statistical"
    assert compare_random_scalar("s", [outside] * 6, runs).status == "not_equal"


def test_random_scalar_needs_enough_repeats_a_side() -> None:
    r = compare_random_scalar("pi", _pi_runs(1, MIN_SCALAR_REPEATS - 1), _pi_runs(2, 10))
    assert r.status == "unverified"
    assert f"needs {MIN_SCALAR_REPEATS} a side" in r.detail


def test_random_scalar_that_is_not_a_real_number_stays_unverified() -> None:
    assert compare_random_scalar("z", [1 + 1j] * 6, [1 + 2j] * 6).status == "unverified"
    assert compare_random_scalar("z", None, [1.0] * 6).status == "unverified"
    assert compare_random_scalar("z", [float("nan")] * 6, [1.0] * 6).status == "unverified"


def test_vectors_equal_up_to_sign() -> None:
    import numpy as np

    from gpuoptimize.compare import EQUAL, compare_up_to_sign

    a = np.linalg.eigh(np.cov(np.random.default_rng(0).random((50, 6)), rowvar=False))[1]
    flips = np.array([1.0, -1.0, 1.0, -1.0, -1.0, 1.0])
    r = compare_up_to_sign("v", a, a * flips, None, None)
    assert r is not None and r.status == EQUAL and "3 column(s)" in (r.detail or "")
    # rows (an SVD's Vt)
    r = compare_up_to_sign("Vt", a.T, (a * flips).T, None, None)
    assert r is not None and r.status == EQUAL and "row(s)" in (r.detail or "")
    # other values are not made equal by flipping signs
    assert compare_up_to_sign("v", a, a * flips + 1e-3, None, None) is None
    assert compare_up_to_sign("v", a[:, 0], -a[:, 0], None, None) is None  # 1-D: not vectors


def test_complex64_gets_the_float32_tolerance() -> None:
    import numpy as np

    from gpuoptimize.compare import DEFAULT_TOLERANCES, EQUAL, NOT_EQUAL, compare

    assert DEFAULT_TOLERANCES["complex64"] == DEFAULT_TOLERANCES["float32"]
    z = np.exp(1j * np.linspace(0, 3, 64)).astype(np.complex64)
    assert compare("z", z, z * np.complex64(1 + 5e-6)).status == EQUAL
    assert compare("z", z, z * np.complex64(1 + 5e-4)).status == NOT_EQUAL


def test_transform_outputs_equal_relative_to_their_largest_value() -> None:
    import numpy as np

    from gpuoptimize.compare import EQUAL, NOT_EQUAL, compare, compare_relative_to_largest

    # a sine's power spectrum: cuFFT's rounding of the peak lands on leakage bins many orders
    # below it, so the elementwise and the normwise (local) checks both call it different
    # (3.5e-9 of the peak on every bin: relative L2 8.61e-8, within float64's 1e-7; a float32
    # FFT's own rounding of this spectrum is 1.3e-7 of the peak, and 1.4e-7 in L2)
    S = np.abs(np.fft.rfft(np.sin(np.arange(4096) * 0.3) * np.hanning(4096))) ** 2
    rounded = S + 3.5e-9 * S.max() * np.cos(np.arange(S.size))
    assert compare("S", S, rounded).status == NOT_EQUAL
    r = compare_relative_to_largest("S", S, rounded, None)  # float64's rtol 1e-7
    assert r is not None and r.status == EQUAL
    assert "compared relative to the largest value (FFT rounding)" in (r.detail or "")
    assert "relative L2 error 8.61e-08 <= 1e-07" in (r.detail or "")
    assert r.max_abs_err == pytest.approx(3.5e-9 * S.max(), rel=1e-3)
    # the user's rtol, and float32's default, decide too
    assert compare_relative_to_largest("S", S, rounded, 1e-8) is None
    S32 = S.astype(np.float32)
    r32 = (S + 3.5e-7 * S.max() * np.cos(np.arange(S.size))).astype(np.float32)
    r = compare_relative_to_largest("S", S32, r32, None)
    assert r is not None and r.status == EQUAL
    # more than rounding, NaNs moved, another dtype or shape: the difference stands
    assert compare_relative_to_largest("S", S, S + 1e-6 * S.max(), None) is None
    moved = rounded.copy()
    moved[3] = np.nan
    assert compare_relative_to_largest("S", S, moved, None) is None
    assert compare_relative_to_largest("S", S, rounded.astype(np.float32), None) is None
    assert compare_relative_to_largest("S", S, rounded[:-1], None) is None


def test_relative_to_largest_also_holds_the_norm() -> None:
    # every bin off by 0.9 of rtol * the peak: within the largest value's rounding bin by bin,
    # but wrong everywhere (relative L2 error 3.8e-6, 38 x float64's rtol): no transform rounds so
    import numpy as np

    from gpuoptimize.compare import compare_relative_to_largest

    S = np.abs(np.fft.rfft(np.sin(np.arange(4096) * 0.3) * np.hanning(4096))) ** 2
    assert compare_relative_to_largest("S", S, S + 0.9e-7 * S.max(), None) is None
    S32 = S.astype(np.float32)
    assert compare_relative_to_largest("S", S32, S32 + np.float32(9e-6 * S.max()), None) is None


def test_relative_to_largest_at_the_precision_the_values_were_computed_in() -> None:
    # a float64 result computed from a float32 spectrum carries float32's rounding: judged at
    # float32's tolerance when the caller says so (and the detail says why), at float64's when not
    import numpy as np

    from gpuoptimize.compare import compare_relative_to_largest

    c = 3000.0 + 1000.0 * np.sin(np.arange(500.0))
    rounded = c * (1 + 3e-7 * np.cos(np.arange(500.0)))
    assert compare_relative_to_largest("c", c, rounded, None) is None
    r = compare_relative_to_largest("c", c, rounded, None, ("float32", "power (float32)"))
    assert r is not None and r.status == "equal"
    assert "at float32's tolerance: computed from power (float32)" in (r.detail or "")
    # float32's tolerance still fails more than float32's rounding, and the user's rtol wins
    wrong = c * (1 + 3e-5 * np.cos(np.arange(500.0)))
    assert compare_relative_to_largest("c", c, wrong, None, ("float32", "power")) is None
    assert compare_relative_to_largest("c", c, rounded, 1e-8, ("float32", "power")) is None
    # a source of higher precision than the value changes nothing
    assert compare_relative_to_largest("c", c, rounded, None, ("float64", "power")) is None


def test_float32_series_and_frames_get_float32_tolerance() -> None:
    # the same float32 values summed in another order: equal as arrays, and as a Series or a
    # DataFrame column of them (not held to float64's 1e-7)
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    b = a * np.float32(1 + 3e-6)
    assert compare("x", a, b).status == "equal"
    assert compare("s", pd.Series(a), pd.Series(b)).status == "equal"
    frame_a = pd.DataFrame({"v": a, "n": [1, 2, 3]})
    assert compare("f", frame_a, pd.DataFrame({"v": b, "n": [1, 2, 3]})).status == "equal"
    # float64 columns keep float64's tolerance
    c = a.astype(np.float64)
    assert compare("d", pd.Series(c), pd.Series(c * (1 + 3e-6))).status == "not_equal"


def test_object_arrays_compare_their_elements() -> None:
    # plt.subplots(1, 2) gives an object array of Axes: two runs make different Axes objects,
    # which cannot be compared (not a difference); numbers inside object arrays are compared
    class Axes:
        pass

    a = np.empty(2, dtype=object)
    b = np.empty(2, dtype=object)
    a[:], b[:] = [Axes(), Axes()], [Axes(), Axes()]
    r = compare("axes", a, b)
    assert r.status == "unverified" and "cannot compare" in r.detail
    c = np.array([1.0, np.arange(3.0)], dtype=object)
    d = np.array([1.0, np.arange(3.0) * (1 + 1e-12)], dtype=object)
    assert compare("ragged", c, d).status == "equal"
    e = np.array([1.0, np.arange(3.0) + 1], dtype=object)
    assert compare("ragged", c, e).status == "not_equal"


def test_series_of_sums_near_cancellation_compared_as_arrays() -> None:
    # float32 anomalies summed in another order: entries near zero differ by more than their
    # own size; as an array that passes norm-wise, and so it does as a Series or a column
    rng = np.random.default_rng(0)
    g = rng.standard_normal(240).astype(np.float32)
    g[::7] = np.float32(1e-7)
    h = g.copy()
    h[::7] += np.float32(5e-6)
    assert compare("g", g, h).status == "equal"
    idx = pd.date_range("2000-01-01", periods=240, freq="MS")
    r = compare("gm", pd.Series(g, index=idx), pd.Series(h, index=idx))
    assert r.status == "equal" and r.method == "float columns as arrays"
    frame = compare("f", pd.DataFrame({"g": g, "n": 1}), pd.DataFrame({"g": h, "n": 1}))
    assert frame.status == "equal"
    # another index, or another integer column, is still a difference
    assert compare("gm", pd.Series(g, index=idx), pd.Series(h)).status == "not_equal"
    other = compare("f", pd.DataFrame({"g": g, "n": 1}), pd.DataFrame({"g": h, "n": 2}))
    assert other.status == "not_equal"
    # a real difference in the floats is one
    assert compare("gm", pd.Series(g), pd.Series(g + 0.1)).status == "not_equal"


def test_frames_not_lenient_where_arrays_would_not_be() -> None:
    # a float16 column does not loosen the frame's other columns; an index that differs only
    # in dtype or name is a difference
    a = pd.DataFrame({"h": np.ones(3, dtype=np.float16), "n": [5000, 1, 2], "d": [1.0, 2.0, 3.0]})
    ints = a.copy()
    ints.loc[0, "n"] = 5004
    assert compare("f", a, ints).status == "not_equal"
    floats = a.copy()
    floats.loc[0, "d"] = 1.0009
    assert compare("f", a, floats).status == "not_equal"
    s = pd.Series(np.arange(3.0), index=pd.Index([0, 1, 2], name="i"))
    t = pd.Series(np.arange(3.0) * (1 + 1e-12), index=pd.Index([0.0, 1.0, 2.0], name="j"))
    assert compare("s", s, t).status == "not_equal"
