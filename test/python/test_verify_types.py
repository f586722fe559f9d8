"""The GPU fixture checker (test/fixtures/rules/verify_on_gpu.py) holds types as the product's
results check does: a changed dtype, a NumPy scalar turned into a Python number or a host 0-d
array, a sparse matrix stored differently (duplicates summed) fail; values it used to skip
(sparse matrices, containers) are compared. Device values come from the CuPy TEST DOUBLE
(testdouble_cupy: NumPy underneath); real CuPy/cupyx values are the GPU run's to show."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from conftest import fixture_checker

verify = fixture_checker()


def test_dtype_changes_fail() -> None:
    z = np.exp(1j * np.linspace(0, 1, 8))
    (p,) = verify.compare({"z": z}, {"z": z.astype(np.complex64)}, statistical=False)
    assert p == "z: dtype complex128 vs candidate complex64"
    (p,) = verify.compare({"m": np.float64(0.5)}, {"m": np.float32(0.5)}, statistical=False)
    assert p.startswith("m: dtype float64 vs candidate float32")
    # random outputs too: the statistics do not excuse another dtype
    r = np.random.default_rng(0).random(1000)
    assert verify.compare({"r": r}, {"r": r.astype(np.float32)}, statistical=True)


def test_numpy_scalar_to_python_number_fails() -> None:
    (p,) = verify.compare({"s": np.float64(2.0)}, {"s": 2.0}, statistical=False)
    assert p.startswith("s: numpy.float64 scalar vs candidate float: under NEP 50")
    (p,) = verify.compare({"s": np.float64(2.0)}, {"s": np.asarray(2.0)}, statistical=False)
    assert "0-d numpy.ndarray (float64)" in p
    assert verify.compare({"n": np.int64(3)}, {"n": 3}, statistical=False)
    # same kinds pass
    same = {"n": 3, "s": np.float64(2.0)}
    assert verify.compare(same, dict(same), statistical=False) == []


def test_device_values_compare_by_dtype(cp, capsys) -> None:  # noqa: ANN001
    x = np.linspace(0, 1, 8)
    assert verify.compare({"y": x}, {"y": cp.asarray(x)}, statistical=False) == []
    assert "y is left on the device" in capsys.readouterr().out
    (p,) = verify.compare({"y": x}, {"y": cp.asarray(x, dtype=cp.float32)}, statistical=False)
    assert p == "y: dtype float64 vs candidate float32"
    # a CuPy reduction's 0-d array for NumPy's scalar, same dtype: passes
    assert verify.compare({"s": np.float64(2.0)}, {"s": cp.asarray(2.0)}, False) == []
    (p,) = verify.compare({"s": np.float64(2.0)}, {"s": cp.asarray(2.5)}, False)
    assert p == "s: values differ"


def test_device_values_inside_containers_fail_where_a_later_cell_reads_them(cp, capsys) -> None:  # noqa: ANN001
    # host code reading the list refuses a CuPy array in it: a later cell that reads the
    # container fails; one no later cell reads (or the end of a whole notebook) is noted, as a
    # top-level array left on the device is (the product's per-cell check warns)
    x = np.linspace(0, 1, 8)
    a = {"feats": [x, x * 2], "pair": (np.float64(0.5), np.float64(1.0))}
    b = {"feats": [x, cp.asarray(x * 2)], "pair": (cp.asarray(0.5), cp.asarray(1.0))}
    problems = verify.compare(a, b, statistical=False, later={"feats", "pair"})
    assert len(problems) == 2
    assert problems[0] == (
        "feats: feats[1] is a cupy.ndarray (float64, shape (8,)) where the original has"
        " numpy.ndarray (float64, shape (8,)): host code that reads the container later (NumPy,"
        " pandas, matplotlib) must copy it (cp.asnumpy): CuPy does not copy to the host"
        " implicitly"
    )
    assert problems[1].startswith(
        "pair: pair[0] is a 0-d cupy.ndarray (float64) where the original has"
        " numpy.float64 scalar: host code that reads the container later"
    )
    assert verify.compare(a, b, statistical=False, later=set()) == []
    out = capsys.readouterr().out
    assert "note: pair held on the device: pair[0] is a 0-d cupy.ndarray" in out
    assert verify.compare(a, b, statistical=False) == []
    # wrong values inside the container fail wherever it is read
    b["pair"] = (cp.asarray(0.5), cp.asarray(1.5))
    (p,) = verify.compare(a, b, statistical=False, later=set())
    assert p.startswith("pair: ")


def _canonical_pair() -> tuple[sp.csr_matrix, sp.csr_matrix]:
    rng = np.random.default_rng(7)
    n = 500
    indices = np.sort(rng.integers(0, n, size=(n, 8)), axis=1).ravel().astype(np.int32)
    m = sp.csr_matrix((rng.random(8 * n), indices, np.arange(0, 8 * n + 1, 8)), shape=(n, n))
    summed = m.copy()
    summed.sum_duplicates()
    assert summed.nnz < m.nnz
    return m, summed


def test_sparse_matrices_are_compared_now() -> None:
    """GPU102/flag-sparse-built-canonical's bug: M.sum_duplicates() in the candidate."""
    m, summed = _canonical_pair()
    (p,) = verify.compare({"M": m}, {"M": summed}, statistical=False)
    assert p.startswith(f"M: nnz {m.nnz} vs candidate {summed.nnz}")
    assert "the same matrix stored differently" in p
    assert verify.compare({"M": m}, {"M": m.copy()}, statistical=False) == []
    near = m.copy()
    near.data = near.data * (1 + 1e-9)  # within the checker's 1e-6
    assert verify.compare({"M": m}, {"M": near}, statistical=False) == []
    assert verify.compare({"M": m}, {"M": sp.csr_array(m)}, statistical=False)


def test_containers_are_compared_now(capsys) -> None:  # noqa: ANN001
    a = {"centre": [0.5, 0.25], "stats": {"m": np.float32([1.0, 2.0])}}
    same = {"centre": [0.5, 0.25], "stats": {"m": np.float32([1.0, 2.0005])}}  # float32: 1e-3
    assert verify.compare(a, same, statistical=False) == []
    (p,) = verify.compare({"centre": [0.5]}, {"centre": [0.6]}, statistical=False)
    assert p.startswith("centre: centre[0]: 0.5 vs 0.6")
    (p,) = verify.compare({"centre": [0.5]}, {"centre": (0.5,)}, statistical=False)
    assert p == "centre: list vs candidate tuple: elements equal"

    class Opaque:
        pass

    assert verify.compare({"o": Opaque()}, {"o": Opaque()}, statistical=False) == []
    assert "o not compared (cannot compare" in capsys.readouterr().out


def test_random_generators_are_not_results() -> None:
    a = {"rng": np.random.default_rng(1)}
    assert verify.compare(a, {"rng": np.random.default_rng(2)}, statistical=True) == []


def test_objects_shared_by_both_runs_are_skipped(capsys) -> None:  # noqa: ANN001
    """`from numpy import *` binds np.s_, np.mgrid...: the same objects in both runs."""
    shared = {"s_": np.s_, "mgrid": np.mgrid}
    assert verify.compare(shared, dict(shared), statistical=False) == []
    assert "not compared" not in capsys.readouterr().out


def test_complex64_and_float16_get_the_float32_tolerance() -> None:
    # a complex64 FFT on the GPU differs from pocketfft's by ~1e-6 relative: within 1e-3, as a
    # float32 array's difference is (GPU102/flag-scipy-fft-complex-chain-not-float-kernel)
    z = np.exp(1j * np.linspace(0, 3, 64)).astype(np.complex64)
    h = np.linspace(1, 2, 64).astype(np.float16)
    near = {"z": z * np.complex64(1 + 5e-5), "h": h * np.float16(1.0005)}
    assert verify.compare({"z": z, "h": h}, near, statistical=False) == []
    far = {"z": z * np.complex64(1 + 5e-3), "h": h * np.float16(1.01)}
    assert verify.compare({"z": z, "h": h}, far, statistical=False) == [
        "z: values differ",
        "h: values differ",
    ]


def test_fft_outputs_are_compared_relative_to_their_largest_value(capsys) -> None:  # noqa: ANN001
    # a sine's power spectrum: the leakage bins far below the peak differ by rounding of the
    # peak (cuFFT vs pocketfft), far more than 1e-6 of themselves (GPU101/flag-sliding-window-
    # view-frames); a transform's output within 1e-6 of its largest value passes, others do not
    S = np.abs(np.fft.rfft(np.sin(np.arange(4096) * 0.3) * np.hanning(4096))) ** 2
    rounded = S + 3e-8 * S.max() * np.cos(np.arange(S.size))
    assert verify.compare({"S": S}, {"S": rounded}, statistical=False) == ["S: values differ"]
    assert verify.compare({"S": S}, {"S": rounded}, False, transforms={"S"}) == []
    assert "compared relative to the largest value (FFT rounding)" in capsys.readouterr().out
    wrong = S + 1e-5 * S.max() * np.cos(np.arange(S.size))
    assert verify.compare({"S": S}, {"S": wrong}, False, transforms={"S"}) == ["S: values differ"]
