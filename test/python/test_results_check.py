"""The results check of the A/B run (gpuoptimize.harness's output comparison over
gpuoptimize.compare), on the cases found by the review of session 10: names computed from an
FFT's output, device values inside host containers, large object arrays and values computed
from random draws. Every leniency has a case that must still fail."""

from __future__ import annotations

import numpy as np
import pandas as pd

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
