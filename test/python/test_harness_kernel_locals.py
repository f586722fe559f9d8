"""The A/B harness and GPU103's kernels for groups of statements: an intermediate the kernel
keeps in registers (`const double y = ...`; nothing reads it after the statements it fused) is
never bound by the candidate. The harness says so in a note instead of reporting the output
unverified ("only the baseline sets it"), and compares every output the candidate binds. The
candidate runs on the CuPy TEST DOUBLE (test/python/testdouble_cupy), whose ElementwiseKernel
evaluates the kernel's statements with NumPy."""

from __future__ import annotations

import pathlib
import re
from collections.abc import Iterator

import numpy as np
import pytest
from conftest import ROOT, Kernel, running_kernel

from gpuoptimize._cell import C_RESERVED, FusedKernel, analyze, c_spelling, kept_in_kernel
from gpuoptimize.harness import run_ab

GPU103 = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "rules" / "GPU103"
TESTDOUBLE = pathlib.Path(__file__).resolve().parent / "testdouble_cupy"


def _kernel(names: set[str], locals_: set[str]) -> FusedKernel:
    return FusedKernel(names=frozenset(names | locals_), locals=frozenset(locals_))


def _fixture(case: str) -> tuple[str, str, str]:
    """The setup cell, the target cell and the expected candidate of a GPU103 flag fixture."""
    parts = re.split(r"^# %%.*$", (GPU103 / case / "notebook.py").read_text(), flags=re.M)
    return parts[1], parts[2], (GPU103 / case / "expected.py").read_text()


def test_kernel_locals_are_the_registers_that_stand_for_names() -> None:
    _, _, local = _fixture("flag-group-intermediate-local")
    _, _, both = _fixture("flag-group-intermediate-read-later")
    [kernel] = analyze(local).fused_kernels
    assert kernel.locals == {"y"} and kernel.names == {"x", "z", "w", "y"}
    # `y_` is the output y's own register (`const double y_ = ...; y = y_`): y is bound by the call
    assert [k.locals for k in analyze(both).fused_kernels] == [frozenset()]


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
    # `_in` -> `a_in`, a name the kernel has taken -> `t2`; the harness must recognise them
    assert kept_in_kernel({"_t"}, [_kernel({"x"}, {"t"})]) == {"_t"}
    assert kept_in_kernel({"__tmp"}, [_kernel({"tmp"}, {"tmp2"})]) == {"__tmp"}
    assert kept_in_kernel({"tmp"}, [_kernel({"tmp", "tmp2"}, {"tmp3"})]) == {"tmp"}
    assert kept_in_kernel({"int"}, [_kernel({"x"}, {"int_"})]) == {"int"}
    assert kept_in_kernel({"_in"}, [_kernel({"x"}, {"a_in"})]) == {"_in"}
    assert kept_in_kernel({"y"}, [_kernel({"x"}, {"y"})]) == {"y"}
    assert c_spelling("é") == "a_" and c_spelling("_1") == "a_1" and c_spelling("i") == "i_"


def test_a_local_that_spells_another_name_keeps_nothing_else() -> None:
    # `x2` is the Python x2 where the kernel has no `x`; `x_` is the Python x_ (x is no C
    # keyword); a prefix or a spelling GPU103 would not write matches nothing
    assert kept_in_kernel({"x"}, [_kernel({"a", "w"}, {"x2"})]) == set()
    assert kept_in_kernel({"x"}, [_kernel({"a", "w"}, {"x_"})]) == set()
    assert kept_in_kernel({"x"}, [_kernel({"x"}, {"x3"})]) == set()  # x3 needs x2 taken too
    assert kept_in_kernel({"x"}, [_kernel({"a"}, {"a_x", "xx"})]) == set()
    assert kept_in_kernel({"_t"}, [_kernel({"a"}, {"tt"})]) == set()
    assert kept_in_kernel({"i"}, [_kernel({"a"}, {"i"})]) == set()  # i is reserved: `i_`
    # the kernel declares `x` (a parameter): `x2` may spell x or the Python x2: neither is claimed
    assert kept_in_kernel({"x", "x2"}, [_kernel({"x"}, {"x2"})]) == set()
    # a local of one kernel is no spelling for a name the other kernel has taken
    assert kept_in_kernel({"x"}, [_kernel({"x"}, set()), _kernel({"a"}, {"x2"})]) == set()


def test_an_output_register_stands_for_no_name() -> None:
    # `const double y_ = ...; y = y_` is output y's register: a baseline name `y_` the candidate
    # does not bind is not kept by it
    [kernel] = analyze(
        "k = cp.ElementwiseKernel('float64 x', 'float64 y, float64 w',"
        " 'const double y_ = x * 2.0; y = y_; const double v = y_ + 1.0; w = v * v', 'k')"
    ).fused_kernels
    assert kernel.locals == {"v"}
    assert kept_in_kernel({"y_", "v"}, [kernel]) == {"v"}


def test_the_reserved_names_are_fusion_ts_own() -> None:
    # the harness's copy of fusion.ts C_RESERVED: a name reserved on one side only would make the
    # harness look for the wrong spelling
    ts = (ROOT / "src" / "analysis" / "rules" / "arrays" / "fusion.ts").read_text()
    reserved = re.search(r"const C_RESERVED = new Set\(\[(.*?)\]\);", ts, flags=re.S)
    functions = re.search(r"const C_FUNCTIONS: [^=]+= new Map\(\[(.*?)\]\);", ts, flags=re.S)
    assert reserved and functions
    assert "...C_FUNCTIONS.values(), ...[...C_FUNCTIONS.values()].map(f => `${f}f`)" in reserved[1]
    math = set(re.findall(r"\['\w+', '(\w+)'\]", functions[1]))
    assert C_RESERVED == set(re.findall(r"'(\w+)'", reserved[1])) | math | {f"{f}f" for f in math}


@pytest.fixture(scope="module")
def double_kernel() -> Iterator[Kernel]:
    """A real ipykernel with the CuPy TEST DOUBLE importable as `cupy`."""
    with running_kernel(extra_path=(TESTDOUBLE,)) as k:
        k.ok("%load_ext gpuoptimize\nimport json, numpy as np")
        yield k


def test_in_the_kernel_a_lookalike_local_does_not_hide_a_missing_output(
    double_kernel: Kernel,
) -> None:
    # the candidate's kernel keeps the Python x2 in a register and forgets x: x must be reported
    # as not bound (a prefix match would take the local x2 for x)
    double_kernel.ok("kl_a = np.linspace(0.0, 1.0, 1000); kl_b = np.linspace(1.0, 2.0, 1000)")
    baseline = "x2 = np.sqrt(kl_a * kl_a + kl_b * kl_b)\nw = np.exp(-x2) * 2\nx = w + 1"
    candidate = (
        "import cupy as cp\n"
        "k = cp.ElementwiseKernel('float64 kl_a, float64 kl_b', 'float64 w',"
        " 'const double x2 = sqrt(kl_a * kl_a + kl_b * kl_b); w = exp(-x2) * 2.0', 'k',"
        " options=('--fmad=false',))\n"
        "w = cp.asnumpy(k(cp.asarray(kl_a), cp.asarray(kl_b)))"
    )
    code = (
        "from gpuoptimize.harness import run_ab as _run_ab\n"
        f"_r = _run_ab({baseline!r}, {candidate!r}, get_ipython().user_ns, budget_s=0.05)\n"
        "print(json.dumps(_r.to_json()))"
    )
    r = double_kernel.ok(code).json()
    assert r["candidate"]["status"] == "ok", r["candidate"]
    outputs = {o["name"]: o for o in r["match"]["outputs"]}
    assert outputs["w"]["status"] == "equal"
    assert outputs["x"]["status"] == "unverified"
    assert "only the baseline sets it" in outputs["x"]["detail"]
    assert "x2" not in outputs
    assert any(w.startswith("x2 is kept in the candidate's fused kernel") for w in r["warnings"])


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


def test_in_the_kernel_a_transform_is_compared_relative_to_its_largest_value(
    double_kernel: Kernel,
) -> None:
    # cuFFT rounds otherwise than pocketfft, by an amount set by the transform's norm: the
    # candidate's power spectrum (the test double's cupy.fft is NumPy's; the rounding is added)
    # differs on the sine's leakage bins far beyond their own size, yet within float64's rtol of
    # the peak. The harness calls it equal and says why, also for a value computed from it (R);
    # the same kind of difference in a value computed from no transform (Q: one large column, like
    # the sine's peak bin) still differs.
    double_kernel.ok(
        "tr_frames = np.sin(np.arange(64 * 1024) * 0.3).reshape(64, 1024)\ntr_w = np.hanning(1024)"
    )
    baseline = (
        "S = np.abs(np.fft.rfft(tr_frames * tr_w)) ** 2\nR = S.copy()\n"
        "Q = np.zeros((64, 513))\nQ[:, 10] = 1e6"
    )
    candidate = (
        "import cupy as cp\n"
        "S_gpu = cp.abs(cp.fft.rfft(cp.asarray(tr_frames) * cp.asarray(tr_w))) ** 2\n"
        "S_gpu[:, 200] += 2e-8 * S_gpu.max()\n"
        "S = cp.asnumpy(S_gpu)\nR = S.copy()\n"
        "Q = np.zeros((64, 513))\nQ[:, 10] = 1e6\nQ[:, 200] += 2e-8 * Q.max()"
    )
    code = (
        "from gpuoptimize.harness import run_ab as _run_ab\n"
        f"_r = _run_ab({baseline!r}, {candidate!r}, get_ipython().user_ns, budget_s=0.05)\n"
        "print(json.dumps(_r.to_json()))"
    )
    r = double_kernel.ok(code).json()
    assert r["candidate"]["status"] == "ok", r["candidate"]
    outputs = {o["name"]: o for o in r["match"]["outputs"]}
    assert outputs["S"]["status"] == "equal", outputs["S"]
    assert outputs["S"]["method"].startswith("relative to the largest value")
    assert "compared relative to the largest value (FFT rounding)" in outputs["S"]["detail"]
    assert outputs["R"]["status"] == "equal", outputs["R"]
    assert outputs["Q"]["status"] == "not_equal", outputs["Q"]
