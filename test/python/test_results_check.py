"""The results check of the A/B run (gpuoptimize.harness's output comparison over
gpuoptimize.compare), on the cases found by the review of session 10: names computed from an
FFT's output, device values inside host containers, large object arrays and values computed
from random draws. Every leniency has a case that must still fail."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpuoptimize.compare import compare
from gpuoptimize.harness import run_ab


def _outputs(baseline: str, candidate: str, ns: dict) -> dict:
    r = run_ab(baseline, candidate, ns, budget_s=0.02, min_runs=2)
    assert r.candidate.status == "ok", r.candidate.error
    return {o.name: o for o in r.outputs}


# -- names computed from an FFT's output ----------------------------------------------------


def _sine_frames() -> dict:
    t = np.arange(64 * 1024)
    return {"np": np, "fr": np.sin(t * 0.3).reshape(64, 1024), "w": np.hanning(1024)}


def test_a_name_computed_from_a_transform_that_is_off_everywhere_differs() -> None:
    # D (the mean spectrum) is off by 0.9 x float64's rtol of its largest value in every bin:
    # no bin beyond the largest value's rounding, but a relative L2 error of 3.8e-6; an FFT's
    # rounding is bounded in norm, so this is a wrong value, not rounding
    ns = _sine_frames()
    baseline = "S = np.abs(np.fft.rfft(fr * w)) ** 2\nD = S.mean(axis=0)"
    candidate = baseline + " + 0.9e-7 * S.max()"
    d = _outputs(baseline, candidate, ns)["D"]
    assert d.status == "not_equal", d
    # the same rounding-sized difference spread as rounding is (3.5e-9 of the peak): equal
    rounded = baseline + " + 3.5e-9 * S.max() * np.cos(np.arange(513))"
    assert _outputs(baseline, rounded, ns)["D"].status == "equal"


def _audio() -> dict:
    # a gated sine in noise, in float32 frames: k_audio's spectral centroid in small
    rng = np.random.default_rng(3)
    t = np.arange(256 * 1024) / 22050
    gate = np.sin(2 * np.pi * 0.5 * t) > 0.3
    x = 0.3 * np.sin(2 * np.pi * 3000 * t) * gate + 0.05 * rng.standard_normal(t.size)
    frames = x.astype(np.float32).reshape(256, 1024) * np.hanning(1024).astype(np.float32)
    return {"np": np, "pd": pd, "fr": frames, "freqs": np.fft.rfftfreq(1024, 1 / 22050)}


_CENTROID = (
    "power = np.abs(np.fft.rfft(fr, axis=1)) ** 2\n"
    "centroid = (power * freqs).sum(axis=1) / (power.sum(axis=1) + 1e-12)\n"
    "feat = pd.DataFrame({'centroid': centroid, 'n': np.arange(256)})"
)
#: cuFFT's float32 rounding of the same spectrum: a few float32 ulps per bin
_ROUNDED = "** 2 * (1 + 5e-7 * np.cos(np.arange(513))).astype(np.float32)\n"


def test_a_float64_value_computed_from_a_float32_spectrum_has_float32s_rounding() -> None:
    # k_audio on the H200: the centroid (float64: float32 power times float64 freqs) differed by
    # 1.8e-3 Hz (2e-7 of ~6000 Hz), beyond float64's 1e-7, because the float32 power spectrum it
    # is computed from carries float32's rounding (cuFFT's, not pocketfft's). Judged at the
    # precision of the transform output it is computed from, in an array and in a frame
    ns = _audio()
    out = _outputs(_CENTROID, _CENTROID.replace("** 2\n", _ROUNDED, 1), ns)
    c = out["centroid"]
    assert c.status == "equal", c
    assert "at float32's tolerance: computed from power (float32)" in (c.detail or "")
    assert c.max_rel_err is not None and c.max_rel_err > 1e-7  # beyond float64's own rtol
    feat = out["feat"]
    assert feat.status == "equal" and "relative to the largest value" in feat.method, feat


def test_a_float64_value_from_a_float32_spectrum_that_is_wrong_still_differs() -> None:
    # a wrong frequency axis moves the centroid by 1e-4: beyond float32's rounding
    ns = _audio()
    wrong = _CENTROID.replace("(power * freqs)", "(power * freqs * (1 + 1e-4))")
    out = _outputs(_CENTROID, wrong, ns)
    assert out["centroid"].status == "not_equal", out["centroid"]
    assert out["feat"].status == "not_equal", out["feat"]


def test_a_float64_spectrum_keeps_float64s_tolerance() -> None:
    # a float32-sized difference from a float64 spectrum is not float64's rounding (the centroid
    # moves by 3e-7 of itself)
    ns = _audio()
    ns["fr"] = ns["fr"].astype(np.float64)
    rounded = _CENTROID.replace("** 2\n", "** 2 * (1 + 5e-6 * np.cos(np.arange(513)))\n", 1)
    out = _outputs(_CENTROID, rounded, ns)
    assert out["centroid"].status == "not_equal", out["centroid"]
    assert out["feat"].status == "not_equal", out["feat"]


def test_a_frame_column_that_flips_one_bin_still_differs_and_is_named() -> None:
    # k_audio on the H200 (run 25): feat['centroid'] passes at float32's tolerance, but the
    # rolloff column (a frequency chosen by a threshold on the cumulative power) moved by one
    # bin in one frame; the detail named the centroid (the first column beyond float64's
    # tolerance), not the column that differs. A bin off is a different value, not rounding
    ns = _audio()
    frame = (
        "cum = np.cumsum(power, axis=1)\n"
        "rolloff = freqs[np.argmax(cum >= 0.85 * cum[:, -1:], axis=1)]\n"
        "feat = pd.DataFrame({'centroid': centroid, 'rolloff': rolloff, 'n': np.arange(256)})"
    )
    baseline = _CENTROID.rsplit("\n", 1)[0] + "\n" + frame
    candidate = baseline.replace("** 2\n", _ROUNDED, 1).replace(
        "feat =", "rolloff[7] = freqs[np.argmax(cum[7] >= 0.85 * cum[7, -1]) + 1]\nfeat ="
    )
    feat = _outputs(baseline, candidate, ns)["feat"]
    assert feat.status == "not_equal", feat
    assert feat.detail.startswith("feat['rolloff']: "), feat.detail
    assert "1 of 256 element(s)" in feat.detail
    assert "fails relative to the largest value at float32's tolerance" in feat.detail
    # how the centroid passed, and at which precision
    assert "feat['centroid'] relative to the largest value (rtol=1e-05) at float32's tolerance" in (
        feat.detail
    )
    assert "computed from power (float32)" in feat.detail


def test_a_centroid_off_by_one_bin_still_differs() -> None:
    # the frequency axis shifted by one bin (a rewrite's off-by-one in rfftfreq): far beyond
    # float32's rounding, in the array and in the frame
    ns = _audio()
    wrong = _CENTROID.replace("(power * freqs)", "(power * (freqs + freqs[1]))")
    out = _outputs(_CENTROID, wrong.replace("** 2\n", _ROUNDED, 1), ns)
    assert out["centroid"].status == "not_equal", out["centroid"]
    assert out["feat"].status == "not_equal", out["feat"]


def _registration(dtype: type = np.float32) -> dict:
    """g_register in small: blobs, the frames shifted from them with noise (float32), and the
    Hann window of its phase correlation."""
    from scipy import ndimage as ndi

    rng = np.random.default_rng(7)
    n = 128
    yy, xx = np.mgrid[0:n, 0:n]
    ref = np.zeros((n, n), dtype=dtype)
    for cy, cx, s in rng.uniform([10, 10, 2], [n - 10, n - 10, 5], size=(20, 3)):
        ref += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s)).astype(dtype)
    true_shifts = rng.uniform(-12, 12, size=(6, 2))
    frames = np.stack([ndi.shift(ref, s, order=1, mode="wrap") for s in true_shifts])
    frames += 0.05 * rng.standard_normal(frames.shape).astype(dtype)
    win = np.outer(np.hanning(n), np.hanning(n)).astype(dtype)
    return {"np": np, "pd": pd, "ref": ref, "frames": frames, "win": win, "N": n} | {
        "true_shifts": true_shifts
    }


#: g_register's cells 5-7 as one: the FFTs run inside a function the cell defines, the
#: estimates are appended in a loop, then become an array, a frame, and a difference from the
#: true shifts (two values of about 10 whose difference is about 0.3)
_REGISTER = (
    "F_ref = np.fft.fft2(ref * win)\n"
    "def xcorr(img):\n"
    "    R = np.fft.fft2(img * win) * np.conj(F_ref)\n"
    "    R /= np.abs(R) + 1e-12\n"
    "    return np.fft.fftshift(np.real(np.fft.ifft2(R)))\n"
    "def subpixel(c, p):\n"
    "    y, x = p\n"
    "    cy, cx = c[y - 1:y + 2, x], c[y, x - 1:x + 2]\n"
    "    dy = 0.5 * (cy[0] - cy[2]) / (cy[0] - 2 * cy[1] + cy[2])\n"
    "    dx = 0.5 * (cx[0] - cx[2]) / (cx[0] - 2 * cx[1] + cx[2])\n"
    "    return y + dy - N // 2, x + dx - N // 2\n"
    "est = []\n"
    "for k in range(len(frames)):\n"
    "    c = xcorr(frames[k])\n"
    "    p = np.unravel_index(np.argmax(c), c.shape)\n"
    "    est.append(subpixel(c, p))\n"
    "est = np.array(est)\n"
    "err = est - true_shifts\n"
    "df = pd.DataFrame({'true_y': true_shifts[:, 0], 'true_x': true_shifts[:, 1],\n"
    "                   'est_y': est[:, 0], 'est_x': est[:, 1]})\n"
    "df['err'] = np.hypot(df['est_y'] - df['true_y'], df['est_x'] - df['true_x'])\n"
)
_XCORR = "    c = xcorr(frames[k])\n"
#: cuFFT's float32 correlation: the H200's differed from pocketfft's by 6e-6 of its peak
_XCORR_ROUNDED = (
    _XCORR
    + "    c = c + (6e-6 * c.max() * np.cos(np.arange(c.size))).astype(c.dtype).reshape(c.shape)\n"
)


def test_estimates_computed_through_a_function_and_a_loop_have_float32s_rounding() -> None:
    # g_register on the H200 (run 25): df['est_y'] (float64 sub-pixel shifts from a float32
    # phase correlation) differed by 2.8e-7 in relative L2, beyond float64's 1e-7: its FFTs ran
    # inside `xcorr`, and the estimates were appended to a list, so the check did not see them
    # as computed from a transform at all. Judged at the precision of what they are computed
    # from: the array, the difference from the true shifts and the frame's columns
    out = _outputs(_REGISTER, _REGISTER.replace(_XCORR, _XCORR_ROUNDED), _registration())
    est = out["est"]
    assert est.status == "equal", est
    assert est.max_rel_err is not None and est.max_rel_err > 1e-7  # beyond float64's rtol
    assert "at float32's tolerance: computed from F_ref (complex64), c (float32)" in est.detail
    # err = est - true_shifts: about 0.3 with est's rounding of values about 10 (cancellation)
    err = out["err"]
    assert err.status == "equal", err
    assert err.max_rel_err is not None and err.max_rel_err > 1e-5  # beyond float32's own rtol
    # only est carries that rounding: the exact true_shifts set no part of the scale
    assert "the largest |value| 11 of its operands computed from a transform (est;" in err.detail
    df = out["df"]
    assert df.status == "equal", df
    assert "df['est_y'] relative to the largest value (rtol=1e-05) at float32's tolerance" in (
        df.detail
    )
    assert "df['err'] relative to the largest value (rtol=1e-05) at float32's tolerance" in (
        df.detail
    )
    assert "of its operands computed from a transform (df['est_y'], df['est_x'])" in df.detail


def test_estimates_from_a_float32_correlation_that_are_wrong_still_differ() -> None:
    ns = _registration()
    rounded = _REGISTER.replace(_XCORR, _XCORR_ROUNDED)
    # every estimate 1e-3 too large (a scale error): the array, the difference and the frame
    scaled = rounded.replace("est = np.array(est)\n", "est = np.array(est) * (1 + 1e-3)\n")
    out = _outputs(_REGISTER, scaled, ns)
    assert {out[n].status for n in ("est", "err", "df")} == {"not_equal"}, out
    # the peak one pixel off in one frame (an off-by-one in the peak's index)
    off = rounded.replace(
        "    est.append(subpixel(c, p))\n",
        "    p = (p[0] + (k == 2), p[1])\n    est.append(subpixel(c, p))\n",
    )
    out = _outputs(_REGISTER, off, ns)
    assert {out[n].status for n in ("est", "err", "df")} == {"not_equal"}, out
    # the error alone 1% off: beyond the rounding of its operands too
    wrong_err = rounded.replace("df['err'] = np.hypot(", "df['err'] = 1.01 * np.hypot(").replace(
        "err = est - true_shifts", "err = 1.01 * (est - true_shifts)"
    )
    out = _outputs(_REGISTER, wrong_err, ns)
    assert out["est"].status == "equal"
    assert out["err"].status == "not_equal" and out["df"].status == "not_equal", out
    assert out["df"].detail.startswith("df['err']: "), out["df"].detail
    # a column computed from no transform keeps float64's tolerance, though the frame holds
    # columns computed from one: 1e-6 off is no rounding of true_shifts
    moved = rounded.replace(
        "{'true_y': true_shifts[:, 0],", "{'true_y': true_shifts[:, 0] * (1 + 1e-6),"
    )
    df = _outputs(_REGISTER, moved, ns)["df"]
    assert df.status == "not_equal", df
    assert df.detail.startswith("df['true_y']: ") and "computed from no transform's output" in (
        df.detail
    )


def test_estimates_from_a_float64_correlation_keep_float64s_tolerance() -> None:
    out = _outputs(_REGISTER, _REGISTER.replace(_XCORR, _XCORR_ROUNDED), _registration(np.float64))
    assert out["est"].status == "not_equal", out["est"]
    assert out["df"].status == "not_equal", out["df"]


def test_one_element_written_from_a_transform_leaves_the_others_at_their_precision() -> None:
    # summary[2] from a float32 spectrum does not make summary[1] (a float64 statistic of
    # float64 data) float32's rounding: 2% off is a wrong value (it passed as "equal at
    # float32's tolerance: computed from P")
    rng = np.random.default_rng(0)
    ns = {"np": np, "x": rng.standard_normal(4096).astype(np.float32)}
    ns["g"] = rng.standard_normal(4096)
    base = (
        "summary = np.zeros(3)\n"
        "summary[0] = g.mean()\n"
        "summary[1] = g.std()\n"
        "P = np.abs(np.fft.rfft(x)) ** 2\n"
        "summary[2] = P.max()\n"
    )
    out = _outputs(base, base.replace("g.std()", "g.std() * 1.02"), ns)
    s = out["summary"]
    assert s.status == "not_equal", s
    assert "computed from P" not in (s.detail or "") and "index (1,)" in (s.detail or ""), s
    # every element written from the transform in a loop over its index: float32's rounding
    loop = (
        "P = np.abs(np.fft.rfft(x.reshape(8, -1), axis=1)) ** 2\n"
        "peak = np.zeros(8)\n"
        "for k in range(8):\n"
        "    peak[k] = P[k].max()\n"
    )
    rounded = loop.replace("    peak[k] = P[k].max()", "    peak[k] = P[k].max() * (1 + 3e-6)")
    peak = _outputs(loop, rounded, ns)["peak"]
    assert peak.status == "equal" and "computed from P (float32)" in peak.detail, peak


def test_a_frame_column_written_from_a_transform_is_that_column_only() -> None:
    # df['pmax'] from a float32 spectrum does not make df['ratio'] (float64 data) float32's
    # rounding: 5e-6 off is a wrong value, and the detail says it is computed from no transform
    rng = np.random.default_rng(0)
    ns = {"np": np, "pd": pd, "frames": rng.standard_normal((256, 1024)).astype(np.float32)}
    ns["g"] = rng.standard_normal((256, 3))
    base = (
        "df = pd.DataFrame(g, columns=['a', 'b', 'c'])\n"
        "df['ratio'] = df['a'] / (df['b'].abs() + 1.0)\n"
        "P = np.abs(np.fft.rfft(frames, axis=1)) ** 2\n"
        "df['pmax'] = P.max(axis=1)\n"
    )
    df = _outputs(base, base.replace("+ 1.0)\n", "+ 1.0) * (1 + 5e-6)\n"), ns)["df"]
    assert df.status == "not_equal", df
    assert df.detail.startswith("df['ratio']: ") and "computed from no transform's output" in (
        df.detail
    )
    assert "computed from P" not in df.detail


def test_exact_operands_do_not_set_the_scale_of_a_sums_rounding() -> None:
    # drift = t1 - t0 + est: epoch times (1.7e9, exact float64) are operands of the sum, but
    # carry none of est's float32 rounding; they made its scale 1.7e9 (and its L2 limit 2.3e3),
    # so estimates 1% off passed
    ns = _registration() | {"t0": np.full(6, 1.7e9), "t1": np.full(6, 1.7e9) + np.arange(6.0)}
    base = _REGISTER + "drift = t1 - t0 + est[:, 0]\n"
    rounded = base.replace(_XCORR, _XCORR_ROUNDED)
    out = _outputs(base, rounded.replace("est[:, 0]\n", "est[:, 0] * 1.01\n"), ns)
    assert out["drift"].status == "not_equal", out["drift"]
    # the rounding of est alone still passes, judged by est's values
    drift = _outputs(base, rounded, ns)["drift"]
    assert drift.status == "equal", drift
    assert "of its operands computed from a transform (est;" in drift.detail


def test_a_large_exact_addend_does_not_loosen_a_transforms_tolerance() -> None:
    # stage positions: an origin of 1e6 (exact) plus the estimated shift; one frame's peak a
    # pixel off (|difference| 2.5) passed "relative to the largest value" 1e6. The sum's
    # transform part is no name whose size the check can look up: its dtype's tolerance
    funcs = _REGISTER.split("est = []\n")[0]
    loop = (
        "pos = []\n"
        "for k in range(len(frames)):\n"
        "    c = xcorr(frames[k])\n"
        "    p = np.unravel_index(np.argmax(c), c.shape)\n"
        "    pos.append(np.add(subpixel(c, p), origin))\n"
        "pos = np.array(pos)\n"
    )
    off = loop.replace("    pos.append(", "    p = (p[0] + (k == 2), p[1])\n    pos.append(")
    ns = _registration() | {"origin": 1.0e6}
    pos = _outputs(funcs + loop, funcs + off.replace(_XCORR, _XCORR_ROUNDED), ns)["pos"]
    assert pos.status == "not_equal", pos
    assert pos.method.startswith("elementwise"), pos


def test_estimates_returned_by_a_function_the_cell_defines_have_float32s_rounding() -> None:
    # g_register's loop inside `def register(frames)`: est is what it returns, computed from
    # xcorr's float32 correlation (which reads F_ref): float32's rounding, not float64's 1e-7
    funcs = _REGISTER.split("est = []\n")[0]
    reg = (
        "def register(frames):\n"
        "    est = []\n"
        "    for k in range(len(frames)):\n"
        "        c = xcorr(frames[k])\n"
        "        p = np.unravel_index(np.argmax(c), c.shape)\n"
        "        est.append(subpixel(c, p))\n"
        "    return np.array(est)\n"
        "est = register(frames)\n"
    )
    rounded = reg.replace(
        "        c = xcorr(frames[k])\n", "    " + _XCORR_ROUNDED.replace("\n    ", "\n        ")
    )
    ns = _registration()
    est = _outputs(funcs + reg, funcs + rounded, ns)["est"]
    assert est.status == "equal", est
    assert "computed from F_ref (complex64)" in est.detail
    # one frame's peak a pixel off still differs
    off = rounded.replace(
        "        est.append(", "        p = (p[0] + (k == 2), p[1])\n        est.append("
    )
    assert _outputs(funcs + reg, funcs + off, ns)["est"].status == "not_equal"


# -- device values inside host containers -------------------------------------------------


def test_a_device_array_inside_a_host_container_is_a_warning(cp) -> None:  # noqa: ANN001
    # later host code (np.stack(feats['x']), pd.DataFrame, matplotlib) refuses a CuPy array in
    # a list the original filled with NumPy arrays; the rewrite copies back what later cells
    # read, and a per-cell check cannot see them: equal by value, with a warning saying where
    ns = {"np": np, "rows": np.arange(12.0).reshape(4, 3)}
    baseline = "feats = {'x': [r * 2 for r in rows], 'n': len(rows)}"
    candidate = (
        "import cupy as cp\nfeats = {'x': [cp.asarray(r) * 2 for r in rows], 'n': len(rows)}"
    )
    r = run_ab(baseline, candidate, ns, budget_s=0.02, min_runs=2)
    f = next(o for o in r.outputs if o.name == "feats")
    assert f.status == "equal" and f.method == "by key", f
    held = (
        "held on the device: feats['x'][0] is a cupy.ndarray (float64, shape (3,)) where the"
        " original has numpy.ndarray (float64, shape (3,))"
    )
    assert (f.detail or "").startswith(held)
    assert r.match_status == "equal"
    assert any(w.startswith(held) for w in r.warnings), r.warnings
    # wrong values inside the container still differ
    wrong = candidate.replace("* 2", "* 3")
    r = run_ab(baseline, wrong, ns, budget_s=0.02, min_runs=2)
    assert r.verdict == "not_equal"
    # the same values as host arrays (the rewrite copied them back): no warning
    back = "import cupy as cp\nfeats = {'x': [cp.asnumpy(cp.asarray(r) * 2) for r in rows], 'n': 4}"
    r = run_ab(baseline, back, ns, budget_s=0.02, min_runs=2)
    assert r.match_status == "equal", r.outputs
    assert not any(w.startswith("held on the device") for w in r.warnings)


def test_a_top_level_device_array_is_compared_after_its_copy(cp) -> None:  # noqa: ANN001
    # a name the residency plan keeps on the device is a CuPy array by design: by its values
    x = np.linspace(0, 1, 64)
    assert compare("y", x, cp.asarray(x)).status == "equal"


def test_device_values_in_tuples_object_arrays_and_records_are_named(cp) -> None:  # noqa: ANN001
    import types

    x = np.linspace(0, 1, 8)
    r = compare("t", (x, 1.0), (cp.asarray(x), 1.0))
    assert r.status == "equal" and r.detail.startswith("held on the device: t[0] is a cupy.ndarray")
    # a reduction's 0-d device array in a dict where the original has a NumPy scalar
    r = compare("stats", {"mean": np.float64(0.5)}, {"mean": cp.asarray(x).mean()})
    assert r.status == "equal"
    assert (
        "stats['mean'] is a 0-d cupy.ndarray (float64) where the original has numpy.float64 "
        in (r.detail)
    )
    ragged = np.empty(2, dtype=object)
    ragged[:] = [x, x[:3]]
    dev = np.empty(2, dtype=object)
    dev[:] = [x, cp.asarray(x[:3])]
    r = compare("ragged", ragged, dev)
    assert r.status == "equal" and "ragged[1] is a cupy.ndarray" in r.detail
    dev[:] = [x, cp.asarray(x[:3]) + 1]
    assert compare("ragged", ragged, dev).status == "not_equal"
    rec = compare("rec", types.SimpleNamespace(v=x), types.SimpleNamespace(v=cp.asarray(x)))
    assert rec.status == "equal" and "rec.v is a cupy.ndarray" in rec.detail
    # the other way round: code that read it on the device gets a host array
    r = compare("d", [cp.asarray(x)], [x])
    assert r.status == "not_equal"
    assert "d[0] is a numpy.ndarray (float64, shape (8,)) where the original has cupy" in r.detail


# -- large object arrays ---------------------------------------------------------------------


def _ragged(n: int) -> np.ndarray:
    out = np.empty(n, dtype=object)
    out[:] = [np.arange(i % 5 + 1, dtype=np.float64) + i for i in range(n)]
    return out


def test_a_large_object_array_of_numbers_is_compared_value_by_value() -> None:
    # 20,000 Python floats (and strings): all compared by value, at float64's tolerance; the old
    # `==` over the whole array could only say "unverified", and `==` is exact
    a = np.array([float(i) for i in range(20_000)] + ["s"] * 10, dtype=object)
    b = a.copy()
    b[:20_000] = [float(i) * (1 + 1e-12) for i in range(20_000)]
    r = compare("col", a, b)
    assert r.status == "equal", r
    assert "20010 elements: every element's class compared" in r.detail
    b[12_345] = 12_345.5
    r = compare("col", a, b)
    assert r.status == "not_equal" and "first at index (12345,)" in r.detail, r
    c = a.copy()
    c[20_005] = "t"
    r = compare("col", a, c)
    assert r.status == "not_equal" and "first col[20005]" in r.detail, r
    d = a.copy()
    d[7] = np.float64(7.0)  # a NumPy scalar where the original has a Python float: NEP 50
    r = compare("col", a, d)
    assert r.status == "not_equal" and r.method == "type" and "col[7]" in r.detail, r


def test_a_large_object_array_of_arrays_is_compared_by_a_stated_sample() -> None:
    a = _ragged(30_000)
    r = compare("chunks", a, _ragged(30_000))
    # 10,000 of the 30,000 arrays compared, evenly spaced: all equal, the rest not seen
    assert r.status == "unverified", r
    assert "10000 of the 30000 others (evenly spaced, first and last included)" in r.detail
    assert "the other 20000 not compared" in r.detail
    b = _ragged(30_000)
    b[-1] = b[-1] + 1.0  # the last element is always in the sample
    r = compare("chunks", a, b)
    assert r.status == "not_equal" and "chunks[29999]" in r.detail, r
    b = _ragged(30_000)
    b[2] = list(b[2])  # not in the sample, but every element's class is compared
    r = compare("chunks", a, b)
    assert r.status == "not_equal" and "chunks[2]" in r.detail, r
    # a small one is compared element by element, as before
    assert compare("chunks", _ragged(100), _ragged(100)).status == "equal"


# -- values computed from random draws --------------------------------------------------------


def _noise_image(seed: int, sigma: float = 0.15, smooth: float = 4.0, scale: float = 1.0):
    """A disc under noise (i_denoise's X-ray projection in small), and that image smoothed:
    two draws of it share the disc; their smoothed pixels are correlated with their
    neighbours (an effective sample size about 1/200 of the pixel count)."""
    from scipy import ndimage as ndi

    yy, xx = np.mgrid[0:512, 0:512]
    disc = ((xx - 256) ** 2 + (yy - 256) ** 2 < 170**2).astype(np.float64)
    noisy = disc + np.random.default_rng(seed).normal(0, sigma, size=disc.shape)
    return noisy, ndi.gaussian_filter(noisy, smooth) * scale


def test_an_image_computed_from_noise_is_compared_at_its_effective_sample_size() -> None:
    # two draws of a smoothed noise image: a KS test at the pixel count (262,144 values taken
    # as independent) rejects them; at the effective sample size the statistics match
    _, a = _noise_image(1)
    _, b = _noise_image(2)
    r = compare("den", a, b, random=True)
    assert r.status == "statistical", r
    assert "correlated values (estimated from the difference's block means" in r.detail
    assert "effective sample size of" in r.detail


def test_an_image_computed_from_noise_that_is_wrong_still_differs() -> None:
    # each rewrite mistake a denoising cell can make still fails at the effective sample size:
    # another filter width, an offset, a gain, too much noise (the raw draw fails as well)
    noisy_a, a = _noise_image(1)
    wider = compare("den", a, _noise_image(2, smooth=6.0)[1], random=True)
    assert wider.status == "not_equal", wider
    assert compare("den", a, _noise_image(2)[1] + 0.02, random=True).status == "not_equal"
    assert compare("den", a, _noise_image(2, scale=1.03)[1], random=True).status == "not_equal"
    noisy_b, b = _noise_image(2, sigma=0.3)
    assert compare("den", a, b, random=True).status == "not_equal"
    assert compare("noisy", noisy_a, noisy_b, random=True).status == "not_equal"


def _edge_gradient(seed: int, gain: float = 1.0, edge_gain: float = 1.0) -> np.ndarray:
    # a denoised image's gradient (i_denoise's `gx`): small noise everywhere and large values
    # on a ring of edge pixels whose heights vary with the noise; kurtosis ~570
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:1024, 0:1024]
    ring = np.abs(np.hypot(xx - 512, yy - 512) - 1024 / 3) < 0.5
    edges = ring * (1.0 + 0.3 * rng.normal(size=ring.shape)) * edge_gain
    return (0.01 * rng.normal(size=ring.shape) + edges) * gain


def test_heavy_tailed_values_get_the_std_error_of_their_tails() -> None:
    # the spread of these values sits in ~6,400 edge pixels: two draws' std differ by more than
    # 5 normal-theory standard errors (the check before, run 24's false failure), and by fewer
    # than 5 of the standard errors their kurtosis gives
    a, b = _edge_gradient(1), _edge_gradient(2)
    assert abs(a.std() - b.std()) > 5 * a.std() * np.sqrt(1 / a.size)
    r = compare("gx", a, b, random=True)
    assert r.status == "statistical", r
    assert "heavy-tailed values" in r.detail
    # normal values keep the normal-theory tolerance (no widening said)
    n_a = np.random.default_rng(1).normal(size=100_000)
    n_b = np.random.default_rng(2).normal(size=100_000)
    assert "heavy-tailed" not in compare("x", n_a, n_b, random=True).detail


def test_heavy_tailed_values_that_are_wrong_still_differ() -> None:
    # a gain on everything moves the bulk (KS); an error on the tails alone (the edge pixels:
    # 0.6% of the values, outside every quantile compared) moves the std: 6% fails, where the
    # two draws' stds differ by 0.5% (sd over seeds); the kurtosis alone (edges counted as
    # sampling) let up to 20% through
    a = _edge_gradient(1)
    assert compare("gx", a, _edge_gradient(2, gain=1.01), random=True).status == "not_equal"
    tails = compare("gx", a, _edge_gradient(2, edge_gain=1.06), random=True)
    assert tails.status == "not_equal" and "; std " in tails.detail, tails
    assert "paired squared deviations" in tails.detail


def test_raw_draws_keep_the_independent_samples_test() -> None:
    # independent values show no correlation: no design effect, and a 1% gain fails
    a = np.random.default_rng(1).normal(size=(512, 512))
    b = np.random.default_rng(2).normal(size=(512, 512))
    r = compare("x", a, b, random=True)
    assert r.status == "statistical" and "correlated" not in r.detail, r
    assert compare("x", a, b * 1.02, random=True).status == "not_equal"
    # a candidate whose values are correlated where the baseline's are not cannot loosen its
    # own check: the baseline's estimate bounds it
    from scipy import ndimage as ndi

    smooth = ndi.gaussian_filter(b, 3.0)
    smooth = smooth / smooth.std()
    r = compare("x", a, smooth, random=True)
    assert r.status == "not_equal" and "correlated" not in r.detail, r


# -- random walks (running sums of draws) ----------------------------------------------------


def _walk(seed: int, scale: float = 0.1, axis: int = 1, offset: float = 0.0):
    """Brownian paths as a notebook makes them: np.cumsum of a (walkers, steps, 2) draw along
    the steps (the GPU101 lag-comprehension fixture's `traj` in small)."""
    steps = scale * np.random.default_rng(seed).standard_normal((500, 2000, 2))
    return np.cumsum(steps, axis=axis) + offset


def test_random_walks_from_two_streams_match_by_their_steps_and_start() -> None:
    # a walk's values are correlated over the whole axis: no effective sample size of the
    # values holds, and their own statistics reject most pairs of draws; its steps and start
    # are independent draws and are compared instead
    a = _walk(1)
    for seed in (2, 3, 4):
        r = compare("traj", a, _walk(seed), random=True)
        assert r.status == "statistical", r
        assert "random walk along axis 1" in r.detail
    # a walk that starts at the same values on both sides (zeros) compares its start exactly
    zeros = np.zeros((500, 1, 2))
    r = compare(
        "traj",
        np.concatenate([zeros, a], axis=1),
        np.concatenate([zeros, _walk(5)], axis=1),
        random=True,
    )
    assert r.status == "statistical" and "start: the same values" in r.detail, r


def test_a_wrong_random_walk_still_differs() -> None:
    # each mistake a rewrite of a walk can make fails: steps 2% too large, the running sum
    # along another axis, an offset of half a step, the walk reversed along its axis
    a = _walk(1)
    for b in (
        _walk(2, scale=0.102),
        _walk(2, axis=0),
        _walk(2, axis=2),
        _walk(2, offset=0.05),
        _walk(2)[:, ::-1],
    ):
        r = compare("traj", a, b, random=True)
        assert r.status == "not_equal", r


def test_draws_and_smoothed_images_are_not_taken_for_walks() -> None:
    # independent draws and a smoothed noise image are no walks (their steps are no
    # independent draws, or the values spread no more than the steps): a wrong one is still
    # judged by the values' own statistics
    _, img = _noise_image(1)
    r = compare("den", img, _noise_image(2, smooth=6.0)[1], random=True)
    assert r.status == "not_equal" and "random walk" not in r.detail, r
    x = np.random.default_rng(1).normal(size=(512, 512))
    y = np.random.default_rng(2).normal(size=(512, 512)) * 1.02
    r = compare("x", x, y, random=True)
    assert r.status == "not_equal" and "random walk" not in r.detail, r


def test_one_or_a_few_walks_and_sorted_draws_match_by_their_steps() -> None:
    # one path (1-D), four paths, a +-1 walk and sorted draws (their spacings are the steps):
    # too few starts for a distribution, so their means are held to the steps' spread; before,
    # a lone start was unverifiable and failed the comparison (g_climate's gmean in run 24)
    def rng(s: int) -> np.random.Generator:
        return np.random.default_rng(s)

    cases = [
        lambda s: np.cumsum(rng(s).normal(size=100_000)),
        lambda s: np.cumsum(rng(s).normal(size=(4, 100_000)), axis=1),
        lambda s: np.cumsum(rng(s).choice([-1, 1], 100_000)),
        lambda s: np.sort(rng(s).random(100_000)),
        lambda s: np.sort(rng(s).random((4, 100_000)), axis=1),
    ]
    for make in cases:
        for seed in (2, 3, 4):
            r = compare("w", make(1), make(seed), random=True)
            assert r.status == "statistical", r
    # a lone walk started 10 steps away, or with 3% larger steps, still fails
    a = np.cumsum(rng(1).normal(size=100_000))
    assert compare("w", a, np.cumsum(rng(2).normal(size=100_000)) + 10, random=True).status == (
        "not_equal"
    )
    b = np.cumsum(1.03 * rng(2).normal(size=100_000))
    assert compare("w", a, b, random=True).status == "not_equal"


# -- values derived from draws: atoms moved by rounding, strongly correlated fields -----------


def _blob_image(seed: int, n_blobs: int = 250, size: int = 1536) -> np.ndarray:
    """o_imaging's stack in 2-D: ~250 soft discs of random size and brightness under shot
    noise, smoothed (float32): values correlated over a disc's width, their distribution set by
    a few hundred random discs (a design effect of several hundred)."""
    from scipy import ndimage as ndi

    rng = np.random.default_rng(seed)
    img = np.zeros((size, size), dtype=np.float32)
    yy, xx = np.mgrid[-24:25, -24:25].astype(np.float32)
    for _ in range(n_blobs):
        c = rng.uniform(24, size - 25, 2)
        r, b = rng.uniform(6.0, 18.0), rng.lognormal(0.0, 0.35)
        i = c.astype(int)
        d = (c - i).astype(np.float32)
        disc = np.sqrt((yy - d[0]) ** 2 + (xx - d[1]) ** 2) - np.float32(r)
        img[i[0] - 24 : i[0] + 25, i[1] - 24 : i[1] + 25] += b / (1 + np.exp(disc))
    raw = rng.poisson(200 * (img + 0.15)).astype(np.float32)
    return ndi.gaussian_filter(raw, 1.0)


def _equalised(smooth: np.ndarray, nudge: int = 0) -> np.ndarray:
    """o_imaging's histogram equalisation (1024 bins over the 0.5-99.5 percentiles): the
    values clipped below the first edge are one atom (cdf[0], ~0.8% of them), those above the
    last another (1.0). `nudge` moves that many values from the second bin to the first, as a
    GPU's rounding of `smooth` does with a value on a bin edge: the low atom moves by a few
    1e-7."""
    lo, hi = np.percentile(smooth, [0.5, 99.5])
    hist, edges = np.histogram(smooth, bins=1024, range=(lo, hi))
    hist[0] += nudge
    hist[1] -= nudge
    cdf = np.cumsum(hist).astype(np.float64)
    cdf /= cdf[-1]
    return np.interp(smooth, edges[1:], cdf).astype(np.float32)


def _gpu_rounding(eq: np.ndarray) -> np.ndarray:
    """`eq` as a GPU's float32 rounding of the smoothed stack leaves it (run 29: within 7e-6):
    every 100th value moved by 2e-5 (beyond float32's elementwise tolerance where the CDF map
    is steep), so the values are compared by statistics, not one by one."""
    out = eq.copy()
    out.flat[::100] += np.float32(2e-5)
    return out


def test_an_equalised_image_whose_clipped_end_moves_by_rounding_matches() -> None:
    # o_imaging's `eq` (run 29): the same draws on both sides, a GPU's rounding of the smoothed
    # stack, one value more in the first bin: the low atom (0.8% of the values) moves by ~4e-7,
    # within float32's tolerance, and the plain KS distance is the atom's whole mass (the check
    # failed it: KS 0.0079 > 0.0013)
    from gpuoptimize.compare import _ks_distance

    smooth = _blob_image(1)
    a, b = _equalised(smooth), _gpu_rounding(_equalised(smooth, nudge=1))
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    assert np.mean(a == a.min()) > 0.005
    assert _ks_distance(fa, fb) > 0.005
    assert _ks_distance(fa, fb, (1e-5, 1e-6)) < 1e-4
    r = compare("eq", a, b, random=True)
    assert r.status == "statistical", r
    assert "(values within rtol=1e-05, atol=1e-06 of each other taken as equal)" in r.detail


def test_an_equalised_image_moved_beyond_rounding_still_differs() -> None:
    # an atom moved by more than the tolerance counts in full (1e-4: KS 0.008); a shift and a
    # gain of the whole image fail on their mean and KS
    smooth = _blob_image(1)
    a, b = _equalised(smooth), _gpu_rounding(_equalised(smooth, nudge=1))
    moved = compare("eq", a, b + np.float32(1e-4), random=True)
    assert moved.status == "not_equal" and "KS distance" in moved.detail, moved
    assert compare("eq", a, b + np.float32(0.01), random=True).status == "not_equal"
    assert compare("eq", a, b * np.float32(1.05), random=True).status == "not_equal"


def test_strongly_correlated_fields_from_two_seeds_match() -> None:
    # other discs, other noise: each field's distribution is set by its ~250 discs, far fewer
    # than its 2.4M values; the block means' design effect (~500) takes that in, for the
    # smoothed image and its equalised form (KS tolerance-aware or not, as they share no values)
    a = _blob_image(1)
    for seed in (2, 3):
        b = _blob_image(seed)
        r = compare("smooth", a, b, random=True)
        assert r.status == "statistical", r
        assert "effective sample size of" in r.detail
        assert compare("eq", _equalised(a), _equalised(b), random=True).status == "statistical"


def test_strongly_correlated_fields_that_are_wrong_still_differ() -> None:
    # at that effective sample size, a shift of a tenth of the spread, a 2% gain or half as
    # many discs again still fail
    a, b = _blob_image(1), _blob_image(2)
    assert compare("smooth", a, b + 0.1 * b.std(), random=True).status == "not_equal"
    assert compare("smooth", a, b * np.float32(1.02), random=True).status == "not_equal"
    more = compare("smooth", a, _blob_image(2, n_blobs=375), random=True)
    assert more.status == "not_equal", more
