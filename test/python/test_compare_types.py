"""The results check holds types and dtypes, and compares sparse matrices (gpuoptimize.compare).

A rewrite that changes a result's dtype (complex128 -> complex64), turns a NumPy scalar into a
Python number (`float(r)`: NEP 50 promotion changes in later cells) or a sparse matrix into
another stored form (duplicates summed) changes what later cells compute: not_equal, with the
reason in the detail, whatever the values. Device values are compared by dtype, not by array
type: the CuPy side runs on the project's CuPy TEST DOUBLE (test/python/testdouble_cupy, NumPy
underneath, `cupy.IS_TEST_DOUBLE`), which proves the host-side logic only; what a real CuPy /
cupyx value does is checked on the GPU (verify_on_gpu.py).
"""

from __future__ import annotations

import collections

import numpy as np
import pytest
import scipy.sparse as sp

from gpuoptimize.compare import compare
from gpuoptimize.harness import run_ab

# -- dtypes --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (np.complex128, np.complex64),
        (np.float64, np.float32),
        (np.float32, np.float64),  # a promotion is a change too
        (np.int64, np.int32),
        (np.int64, np.float64),
    ],
)
def test_array_dtype_change_is_not_equal(a: type, b: type) -> None:
    x = np.arange(6).astype(a)
    r = compare("y", x, x.astype(b))
    assert r.status == "not_equal" and r.method == "dtype"
    assert r.detail.startswith(f"dtype {np.dtype(a)} vs candidate {np.dtype(b)}")
    assert "values equal" in r.detail


def test_dtype_change_with_different_values_says_both() -> None:
    x = np.linspace(0, 1, 8)
    r = compare("y", x, (x + 1).astype(np.float32))
    assert r.status == "not_equal" and r.method == "dtype"
    assert "values differ too" in r.detail and r.max_abs_err == pytest.approx(1.0)


def test_numpy_scalar_dtype_change_is_not_equal() -> None:
    r = compare("s", np.float64(1.5), np.float32(1.5))
    assert r.status == "not_equal" and r.method == "dtype"
    r = compare("z", np.complex128(1 + 2j), np.complex64(1 + 2j))
    assert r.status == "not_equal" and "complex64" in r.detail


def test_user_tolerances_never_excuse_a_dtype_change() -> None:
    x = np.ones(4)
    assert compare("y", x, x.astype(np.float32), rtol=1.0, atol=1.0).status == "not_equal"


# -- Python numbers and NumPy scalars -----------------------------------------------------


def test_numpy_scalar_turned_into_a_python_number_is_not_equal() -> None:
    r = compare("s", np.float64(0.25), 0.25)  # float(r) / r.item()
    assert r.status == "not_equal" and r.method == "type"
    assert r.detail.startswith("numpy.float64 scalar vs candidate float: under NEP 50")
    assert "float32 array * np.float64(1.0) is float64" in r.detail
    # and back, and for ints, bools and complex numbers
    assert compare("s", 0.25, np.float64(0.25)).status == "not_equal"
    r = compare("n", np.int64(7), 7)
    assert r.status == "not_equal" and "int32 array * np.int64(1) is int64" in r.detail
    assert compare("b", np.bool_(True), True).status == "not_equal"
    assert compare("z", np.complex128(1j), 1j).status == "not_equal"


def test_python_number_types_must_match() -> None:
    r = compare("n", 3, 3.0)
    assert r.status == "not_equal" and r.detail.startswith("int vs candidate float")
    assert compare("n", True, 1).status == "not_equal"
    assert compare("n", 3, 3).status == "equal"
    assert compare("x", 0.1 + 0.2, 0.3).status == "equal"  # values keep their tolerance


def test_host_zero_d_array_for_a_scalar_is_not_equal() -> None:
    """`cp.asnumpy(r)` of a reduction: same dtype and promotion, but a mutable, unhashable
    array that json and isinstance(x, float) treat differently."""
    r = compare("s", np.float64(2.5), np.asarray(2.5))
    assert r.status == "not_equal" and r.method == "type"
    assert "0-d numpy.ndarray (float64)" in r.detail and "unhashable" in r.detail
    assert compare("s", np.asarray(2.5), np.float64(2.5)).status == "not_equal"
    assert compare("s", np.asarray(2.5), np.asarray(2.5)).status == "equal"


# -- device values (CuPy TEST DOUBLE) -----------------------------------------------------


def test_device_array_is_compared_by_dtype_not_array_type(cp) -> None:  # noqa: ANN001
    x = np.linspace(0, 1, 16)
    assert compare("y", x, cp.asarray(x)).status == "equal"
    r = compare("y", x, cp.asarray(x, dtype=cp.float32))
    assert r.status == "not_equal" and r.method == "dtype"
    r = compare("z", x.astype(np.complex128), cp.asarray(x, dtype=cp.complex64))
    assert r.status == "not_equal" and "complex128 vs candidate complex64" in r.detail


def test_device_zero_d_array_for_a_numpy_scalar_is_compared_by_value(cp) -> None:  # noqa: ANN001
    """CuPy's reductions return 0-d device arrays (a device has no scalars) where NumPy returns
    scalars; NumPy promotes both alike: same dtype and value is equal, and the detail says so."""
    dev = cp.asarray(np.float64(2.5))
    assert type(dev).__module__ == "cupy" and dev.ndim == 0
    r = compare("s", np.float64(2.5), dev)
    assert r.status == "equal"
    assert "the candidate holds a 0-d device array" in r.detail
    assert compare("s", np.float64(2.5), cp.asarray(2.75)).status == "not_equal"
    # but not another dtype, nor a Python number
    r = compare("s", np.float64(2.5), cp.asarray(2.5, dtype=cp.float32))
    assert r.status == "not_equal" and r.method == "dtype"
    r = compare("s", 2.5, cp.asarray(2.5))
    assert r.status == "not_equal" and r.method == "type"
    assert "0-d device array (float64)" in r.detail


# -- random streams keep their statistical comparison ---------------------------------------


def test_random_outputs_still_match_by_statistics_but_not_across_dtypes() -> None:
    a = np.random.default_rng(1).normal(size=5000)
    b = np.random.default_rng(2).normal(size=5000)
    assert compare("r", a, b, random=True).status == "statistical"
    r = compare("r", a, b.astype(np.float32), random=True)
    assert r.status == "not_equal" and r.method == "dtype"
    assert "values match by statistics" in r.detail


def test_random_scalar_type_change_is_not_hidden_as_unverified() -> None:
    assert compare("pi", 3.1412, 3.1419, random=True).status == "unverified"
    r = compare("pi", np.float64(3.1412), 3.1419, random=True)
    assert r.status == "not_equal" and r.method == "type"


# -- containers and other objects -----------------------------------------------------------


def test_container_type_changes_are_not_equal() -> None:
    pair = collections.namedtuple("pair", "lo hi")
    r = compare("t", pair(1, 2), (1, 2))
    assert r.status == "not_equal" and r.method == "type"
    assert r.detail.startswith("test_compare_types.pair vs candidate tuple")
    r = compare("d", {"k": 1.0}, collections.OrderedDict(k=1.0))
    assert r.status == "not_equal" and "OrderedDict" in r.detail
    r = compare("l", [1.0, 2.0], (1.0, 3.0))
    assert r.status == "not_equal" and "elements differ too" in r.detail
    # a type change inside a container is found
    r = compare("l", [np.float64(1.0)], [1.0])
    assert r.status == "not_equal" and r.detail.startswith("l[0]: numpy.float64 scalar")


def test_value_types_and_other_objects_of_another_class() -> None:
    r = compare("t", "abc", b"abc")
    assert r.status == "not_equal" and r.method == "type"

    class A:
        pass

    class B:
        pass

    r = compare("o", A(), B())
    assert r.status == "not_equal" and r.method == "type"
    assert compare("o", A(), A()).status == "unverified"  # same class: still not comparable


# -- sparse matrices -------------------------------------------------------------------------


def _with_duplicates(n: int = 2000) -> sp.csr_matrix:
    """GPU102/flag-sparse-built-canonical's matrix, smaller: sorted column draws with repeats,
    so some rows store one position twice (a valid, non-canonical CSR matrix)."""
    rng = np.random.default_rng(7)
    indices = np.sort(rng.integers(0, n, size=(n, 8)), axis=1).ravel().astype(np.int32)
    indptr = np.arange(0, 8 * n + 1, 8, dtype=np.int32)
    return sp.csr_matrix((rng.random(8 * n), indices, indptr), shape=(n, n))


def test_sparse_equal_and_values_within_tolerance() -> None:
    m = _with_duplicates()
    r = compare("M", m, m.copy())
    assert r.status == "equal"
    assert r.method.startswith("sparse csr: nnz and indptr, indices exact; data elementwise")
    near = m.copy()
    near.data *= 1 + 1e-10
    assert compare("M", m, near).status == "equal"
    off = m.copy()
    off.data[17] += 0.5
    r = compare("M", m, off)
    assert r.status == "not_equal" and "first at index (17,)" in r.detail


def test_sparse_duplicates_summed_is_not_equal() -> None:
    """The review's bug: the candidate called sum_duplicates() on the matrix the original
    leaves as built; every product agrees, M.nnz / M.data / M.indices do not."""
    m = _with_duplicates()
    canonical = m.copy()
    canonical.sum_duplicates()
    v = np.random.default_rng(0).random(m.shape[1])
    assert np.allclose(m @ v, canonical @ v) and canonical.nnz < m.nnz
    r = compare("M", m, canonical)
    assert r.status == "not_equal"
    assert r.detail.startswith(f"nnz {m.nnz} vs candidate {canonical.nnz}")
    assert "the same matrix stored differently" in r.detail
    assert f"the baseline's has {m.nnz - canonical.nnz} duplicate entries" in r.detail


def test_sparse_storage_differences_are_named() -> None:
    a = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]))
    unsorted = sp.csr_matrix(
        (np.array([2.0, 1.0, 3.0]), np.array([2, 0, 2]), np.array([0, 2, 3])), shape=(2, 3)
    )
    r = compare("M", a, unsorted)
    assert r.status == "not_equal" and "indices differ" in r.detail
    assert "the same matrix stored differently (the candidate's indices are unsorted)" in r.detail
    zeros = a.copy()
    zeros.data[0] = 0.0  # an explicit zero: stored, counted by nnz
    dropped = zeros.copy()
    dropped.eliminate_zeros()
    r = compare("M", zeros, dropped)
    assert r.status == "not_equal" and "nnz 3 vs candidate 2" in r.detail
    other = a.copy()
    other.indices = np.array([1, 2, 2], dtype=a.indices.dtype)
    r = compare("M", a, other)
    assert r.status == "not_equal" and "different matrices, also in canonical form" in r.detail


def test_sparse_class_format_shape_and_dtype() -> None:
    a = _with_duplicates(50)
    r = compare("M", a, sp.csr_array(a))
    assert r.status == "not_equal" and r.method == "type"
    assert "matrix products for one, elementwise for the other" in r.detail
    r = compare("M", a, a.tocsc())
    assert r.status == "not_equal" and "another storage format (csr vs csc)" in r.detail
    assert compare("M", a, a[:40]).method == "shape"
    r = compare("M", a, a.astype(np.float32))
    assert r.status == "not_equal" and "dtype float64 vs candidate float32" in r.detail
    c = a.copy()
    c.sum_duplicates()
    r = compare("M", c, c.astype(np.float32))
    assert r.status == "not_equal" and r.method == "dtype"
    r = compare("M", a, a.toarray())
    assert r.status == "not_equal" and "a sparse matrix and a dense value" in r.detail


def test_sparse_index_dtype_is_stated_not_a_difference() -> None:
    """SciPy picks int32 or int64 indices by size and operation; the values are what count."""
    a = sp.csr_matrix(np.eye(3))
    b = a.copy()
    b.indices = b.indices.astype(np.int64)
    b.indptr = b.indptr.astype(np.int64)
    r = compare("M", a, b)
    assert r.status == "equal" and "index dtypes differ" in r.detail


@pytest.mark.parametrize("fmt", ["coo", "csc", "bsr", "dia", "lil", "dok"])
def test_sparse_other_formats(fmt: str) -> None:
    dense = np.array([[1.0, 0, 2, 0], [0, 3, 0, 0], [4, 0, 5, 6], [0, 0, 0, 7]])
    a = sp.csr_matrix(dense).asformat(fmt)
    assert compare("M", a, a.copy()).status == "equal"
    changed = dense.copy()
    changed[1, 1] = 3.5
    assert compare("M", a, sp.csr_matrix(changed).asformat(fmt)).status == "not_equal"


def test_sparse_coo_duplicates() -> None:
    a = sp.coo_matrix((np.array([1.0, 2.0]), (np.array([0, 0]), np.array([1, 1]))), shape=(2, 2))
    b = a.copy()
    b.sum_duplicates()
    r = compare("M", a, b)
    assert r.status == "not_equal" and "the same matrix stored differently" in r.detail


# -- through the A/B harness ---------------------------------------------------------------


def test_harness_reports_a_summed_matrix_as_not_equal() -> None:
    m = _with_duplicates(500)
    ns = {"sp": sp, "np": np, "data": m.data, "indices": m.indices, "indptr": m.indptr, "n": 500}
    base = "M = sp.csr_matrix((data, indices, indptr), shape=(n, n))\n"
    r = run_ab(base, base + "M.sum_duplicates()\n", ns, budget_s=0.02, min_runs=2)
    assert r.verdict == "not_equal"
    assert r.reason.startswith("M differs: nnz 4000 vs candidate")


def test_harness_reports_float_of_a_numpy_scalar_as_not_equal() -> None:
    ns = {"np": np, "x": np.linspace(0, 1, 1000)}
    r = run_ab("s = x.sum()", "s = float(x.sum())", ns, budget_s=0.02, min_runs=2)
    assert r.verdict == "not_equal"
    assert "numpy.float64 scalar vs candidate float" in r.reason
    r = run_ab("s = x.sum()", "s = x.sum()", ns, budget_s=0.02, min_runs=2)
    assert r.verdict != "not_equal"


def test_a_gpu_librarys_own_class_is_unverified_not_a_type_change() -> None:
    """A cuML estimator for scikit-learn's (the rewrite's point): not comparable, never equal."""

    class LinearRegression:
        pass

    gpu_class = type("LinearRegression", (), {"__module__": "cuml.linear_model"})
    r = compare("model", LinearRegression(), gpu_class())
    assert r.status == "unverified"
    assert "(candidate: cuml.linear_model.LinearRegression)" in r.detail


def test_records_and_stdlib_values() -> None:
    import dataclasses
    import datetime
    import decimal
    import types

    @dataclasses.dataclass
    class Fit:
        slope: float
        coef: np.ndarray

    r = compare("fit", Fit(0.5, np.ones(3)), Fit(0.5, np.ones(3)))
    assert r.status == "equal" and r.method == "by field"
    r = compare("fit", Fit(0.5, np.ones(3)), Fit(0.5, np.ones(3, dtype=np.float32)))
    assert r.status == "not_equal" and r.detail.startswith("fit.coef: dtype float64")
    ns = types.SimpleNamespace(k=np.float64(1.0))
    assert compare("ns", ns, types.SimpleNamespace(k=1.0)).status == "not_equal"
    day = datetime.date(2026, 12, 1)
    assert compare("d", day, datetime.date(2026, 12, 1)).status == "equal"
    assert compare("d", datetime.datetime(2026, 12, 1), day).status == "not_equal"
    assert compare("q", decimal.Decimal("0.1"), decimal.Decimal("0.1")).status == "equal"
