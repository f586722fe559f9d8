"""The A/B harness and GPU103's kernels for groups of statements: an intermediate the kernel
keeps in registers (`const double y = ...`; nothing reads it after the statements it fused) is
never bound by the candidate. The harness says so in a note instead of reporting the output
unverified ("only the baseline sets it"), and compares every output the candidate binds. The
candidate runs on the CuPy TEST DOUBLE (test/python/testdouble_cupy), whose ElementwiseKernel
evaluates the kernel's statements with NumPy."""

from __future__ import annotations

import pathlib
import re

import numpy as np

from gpuoptimize._cell import analyze, kept_in_kernel
from gpuoptimize.harness import run_ab

GPU103 = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "rules" / "GPU103"


def _fixture(case: str) -> tuple[str, str, str]:
    """The setup cell, the target cell and the expected candidate of a GPU103 flag fixture."""
    parts = re.split(r"^# %%.*$", (GPU103 / case / "notebook.py").read_text(), flags=re.M)
    return parts[1], parts[2], (GPU103 / case / "expected.py").read_text()


def test_kernel_locals_are_the_registers_that_stand_for_names() -> None:
    _, _, local = _fixture("flag-group-intermediate-local")
    _, _, both = _fixture("flag-group-intermediate-read-later")
    assert analyze(local).kernel_locals == {"y"}
    # `y_` is the output y's own register: y is bound by the call
    assert analyze(both).kernel_locals == set()


def test_harness_compares_the_outputs_and_notes_the_kept_intermediate(cp) -> None:  # noqa: ANN001
    setup, target, candidate = _fixture("flag-group-intermediate-local")
    ns: dict = {}
    exec(setup.replace("20_000_000", "10_000"), ns)  # noqa: S102
    r = run_ab(target, candidate, ns, budget_s=0.02, min_runs=2)
    assert r.candidate.status == "ok", r.candidate.error
    assert [o.name for o in r.outputs] == ["w"]
    assert r.match_status == "equal" and r.outputs[0].status == "equal"
    assert any(w.startswith("y is kept in the candidate's fused kernel") for w in r.warnings)
    assert isinstance(ns["x"], np.ndarray)  # the user's namespace untouched


def test_a_renamed_kernel_local_is_still_the_python_name() -> None:
    # GPU103's C names for Python names (fusion.ts cName): `_t` -> `t`, `int` -> `int_`,
    # a clash -> `t2`; the harness must recognise them as the baseline's names
    assert kept_in_kernel("_t", {"t"})
    assert kept_in_kernel("__tmp", {"tmp2"})
    assert kept_in_kernel("int", {"int_"})
    assert kept_in_kernel("y", {"y"})
    assert not kept_in_kernel("y", {"yy", "x"})
    assert not kept_in_kernel("_t", {"tt"})


def test_eigenvectors_of_other_signs_are_equal_up_to_sign() -> None:
    # cuSOLVER may pick other signs than LAPACK: the harness calls such vectors equal, and says why
    ns: dict = {"np": np, "A": np.cov(np.random.default_rng(1).random((200, 8)), rowvar=False)}
    baseline = "w, v = np.linalg.eigh(A)"
    candidate = "w, v = np.linalg.eigh(A)\nv = v * np.where(np.arange(8) % 3 == 0, -1.0, 1.0)"
    r = run_ab(baseline, candidate, ns, budget_s=0.02, min_runs=2)
    v = next(o for o in r.outputs if o.name == "v")
    assert v.status == "equal" and "up to sign" in v.method, v
    assert r.match_status == "equal"
    # a cell without a vector decomposition gets no such benefit of the doubt
    r = run_ab("v = -A", "v = A", ns, budget_s=0.02, min_runs=2)
    assert r.match_status == "not_equal"


def test_only_outputs_bound_from_a_decomposition_are_compared_up_to_sign() -> None:
    # another matrix of the same cell with a column negated is a real difference
    ns: dict = {"np": np, "A": np.cov(np.random.default_rng(2).random((200, 6)), rowvar=False)}
    baseline = "w, v = np.linalg.eigh(A)\nM = A.copy()"
    candidate = "w, v = np.linalg.eigh(A)\nM = A * np.where(np.arange(6) == 2, -1.0, 1.0)"
    r = run_ab(baseline, candidate, ns, budget_s=0.02, min_runs=2)
    m = next(o for o in r.outputs if o.name == "M")
    assert m.status == "not_equal", m


def test_clock_readings_are_timings_not_results() -> None:
    import time

    ns: dict = {"np": np, "time": time, "x": np.arange(1000.0)}
    cell = "t0 = time.perf_counter()\ny = x * 2\nelapsed = time.perf_counter() - t0"
    r = run_ab(cell, cell.replace("x * 2", "2 * x"), ns, budget_s=0.02, min_runs=2)
    assert [o.name for o in r.outputs] == ["y"]
    assert r.match_status == "equal"
    assert any("clock readings not compared" in w and "elapsed" in w for w in r.warnings)
