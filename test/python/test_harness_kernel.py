"""The A/B harness inside a real ipykernel: isolation, safety, verdicts."""

from __future__ import annotations

import json
import time

import pytest
from conftest import BUDGET, Kernel
from protocol_check import check_ab_result


def run_ab_code(baseline: str, candidate: str, **kw: object) -> str:
    args = "".join(f", {k}={v!r}" for k, v in kw.items())
    return (
        "from gpuoptimize.harness import run_ab as _run_ab\n"
        f"_r = _run_ab({baseline!r}, {candidate!r}, get_ipython().user_ns, "
        f"budget_s={BUDGET}{args})\n"
        "print(json.dumps(_r.to_json()))"
    )


def ab(kernel: Kernel, baseline: str, candidate: str, **kw: object) -> dict:
    return check_ab_result(kernel.ok(run_ab_code(baseline, candidate, **kw)).json())


def state(kernel: Kernel, expr: str) -> object:
    return kernel.ok(f"print(json.dumps({expr}))").json()


def test_namespace_and_inputs_untouched(kernel: Kernel) -> None:
    kernel.ok(
        "iso_a = np.arange(5.0); iso_l = [3, 1, 2]; iso_d = {'k': 1}\n"
        "iso_ids = [id(iso_a), id(iso_l), id(iso_d)]"
    )
    cell = "iso_l.sort()\niso_a += 1\niso_d['k'] = 2\niso_out = iso_a.sum()\niso_out"
    r = ab(kernel, cell, cell)
    assert r["baseline"]["status"] == r["candidate"]["status"] == "ok"
    assert r["match"]["status"] == "equal"
    names = {o["name"] for o in r["match"]["outputs"]}
    assert {"iso_a", "iso_l", "iso_d", "iso_out", "(last expression)"} <= names
    after = state(
        kernel,
        "[iso_a.tolist(), iso_l, iso_d, 'iso_out' in dir(), "
        "iso_ids == [id(iso_a), id(iso_l), id(iso_d)]]",
    )
    assert after == [[0.0, 1.0, 2.0, 3.0, 4.0], [3, 1, 2], {"k": 1}, False, True]


def test_timing_fields(kernel: Kernel) -> None:
    kernel.ok("tf_x = np.random.default_rng(0).random(20000)")
    r = ab(kernel, "tf_y = np.sort(tf_x)", "tf_y = np.sort(tf_x, kind='stable')")
    for side in ("baseline", "candidate"):
        s = r[side]
        assert s["first_run_s"] > 0
        assert s["runs"] >= 3 and len(s["times_s"]) == s["runs"]
        assert s["min_s"] <= s["median_s"]
        assert s["iqr_s"] >= 0
        # a CPU side has no device time
        assert s["device_s"] is None and s["peak_device_bytes"] is None
    lo, hi = r["speedup"]["ci95"]
    assert lo <= r["speedup"]["end_to_end"] <= hi
    assert r["verdict"] in ("gpu_faster", "gpu_slower")
    assert r["versions"]["numpy"] == state(kernel, "np.__version__")


def test_functions_called_by_the_cell_are_isolated(kernel: Kernel) -> None:
    kernel.ok(
        "fn_store = []\nfn_count = 0\n"
        "def fn_add(v):\n    global fn_count\n    fn_store.append(v)\n    fn_count += 1\n"
    )
    r = ab(kernel, "fn_add(1)", "fn_add(1)")
    assert r["baseline"]["status"] == "ok"
    assert state(kernel, "[fn_store, fn_count]") == [[], 0]


def test_user_random_state_untouched_and_random_outputs_compared_by_statistics(
    kernel: Kernel,
) -> None:
    kernel.ok("np.random.seed(123); rs_before = np.random.get_state()[1][:4].tolist()")
    r = ab(
        kernel,
        "rs_x = np.random.rand(4000)",
        "rs_x = np.random.default_rng(7).random(4000)",
    )
    out = {o["name"]: o for o in r["match"]["outputs"]}
    assert out["rs_x"]["status"] == "statistical"
    assert "statistical" in out["rs_x"]["method"]
    assert r["match"]["status"] == "statistical"
    assert state(kernel, "np.random.get_state()[1][:4].tolist() == rs_before") is True


def test_side_effects_refused_unless_allowed(kernel: Kernel, tmp_path) -> None:
    target = tmp_path / "out.npy"
    kernel.ok(f"se_a = np.arange(3)\nse_path = {str(target)!r}")
    cell = "np.save(se_path, se_a)"
    r = ab(kernel, cell, cell)
    assert r["verdict"] == "refused"
    assert "side effects" in r["reason"] and "np.save" in r["reason"]
    assert r["baseline"]["status"] == r["candidate"]["status"] == "skipped"
    assert not target.exists()

    r = ab(kernel, cell, cell, allow_side_effects=True)
    assert r["verdict"] != "refused"
    assert r["baseline"]["status"] == "ok"
    assert target.exists()
    assert any("side effects allowed" in w for w in r["warnings"])


@pytest.mark.parametrize(
    "cell, what",
    [
        ("with open('se.txt', 'w') as f:\n    f.write('x')", "open"),
        ("for i in range(3):\n    print(i)", "prints inside a loop"),
        ("import matplotlib.pyplot as plt\nplt.plot([1, 2])", "plot"),
        ("import requests\nrequests.get('http://example.com')", "network"),
        ("import os\nos.remove('nothing')", "os.remove"),
        ("import subprocess\nsubprocess.run(['true'])", "subprocess"),
        ("x = input('?')", "input"),
        ("df.to_csv('out.csv')", "to_csv"),
    ],
)
def test_side_effect_kinds(kernel: Kernel, cell: str, what: str) -> None:
    r = ab(kernel, cell, "pass")
    assert r["verdict"] == "refused"
    assert what in r["reason"]


def test_outputs_that_differ(kernel: Kernel) -> None:
    kernel.ok("ne_x = np.linspace(0, 1, 1000, dtype=np.float32)")
    r = ab(kernel, "ne_y = np.sqrt(ne_x)", "ne_y = np.sqrt(ne_x) + 1e-3")
    assert r["verdict"] == "not_equal"
    assert r["reason"].startswith("ne_y differs")
    (o,) = r["match"]["outputs"]
    assert o["status"] == "not_equal"
    assert o["max_abs_err"] == pytest.approx(1e-3, rel=1e-3)
    assert "rtol=1e-05" in o["method"]  # float32 defaults

    r = ab(kernel, "ne_y = np.sqrt(ne_x)", "ne_y = np.sqrt(ne_x) + 1e-3", atol=1e-2)
    assert r["match"]["status"] == "equal"


def test_unverified_outputs_are_never_equal(kernel: Kernel) -> None:
    kernel.ok("class UvBox:\n    def __init__(self, v):\n        self.v = v")
    r = ab(kernel, "uv = UvBox(1)", "uv = UvBox(1)")
    (o,) = r["match"]["outputs"]
    assert o["status"] == "unverified"
    assert "cannot compare" in o["detail"]
    assert r["match"]["status"] == "unverified"
    assert any("could not be verified" in w for w in r["warnings"])


def test_candidate_error(kernel: Kernel) -> None:
    r = ab(kernel, "ce = 1", "ce = 1\nce = ce / 0")
    assert r["verdict"] == "error"
    assert r["candidate"]["status"] == "error"
    assert "ZeroDivisionError" in r["candidate"]["error"]
    assert "line 2" in r["candidate"]["error"]
    assert "ce" not in state(kernel, "list(get_ipython().user_ns)")


def test_syntax_error(kernel: Kernel) -> None:
    r = ab(kernel, "x = 1", "x = (")
    assert r["verdict"] == "error"
    assert "syntax error" in r["reason"]


def test_timeout(kernel: Kernel) -> None:
    kernel.ok("to_v = 5")
    t0 = time.monotonic()
    r = ab(kernel, "import time\ntime.sleep(30)\nto_v = 6", "to_v = 6", timeout_s=1.0)
    assert time.monotonic() - t0 < 15
    assert r["baseline"]["status"] == "timeout"
    assert r["verdict"] == "error"
    assert "timeout" in r["reason"]
    assert state(kernel, "to_v") == 5


def test_stale(kernel: Kernel) -> None:
    code = run_ab_code("st = 1", "st = 1", is_stale=None).replace(
        "is_stale=None", "is_stale=lambda: True"
    )
    r = check_ab_result(kernel.ok(code).json())
    assert r["stale"] is True
    assert r["verdict"] == "stale"
    assert "changed" in r["reason"]


def test_no_gpu_when_cupy_is_missing(kernel: Kernel) -> None:
    if state(kernel, "__import__('importlib').util.find_spec('cupy') is not None"):
        pytest.skip("cupy is installed here")
    r = ab(kernel, "ng = 1", "import cupy as cp\nng = int(cp.ones(1)[0])")
    assert r["verdict"] == "no_gpu"
    assert "cupy" in r["reason"] and "not installed" in r["reason"]
    assert r["baseline"]["status"] == "ok"  # the baseline still ran


def test_numba_cuda_candidate_on_the_simulator(kernel: Kernel) -> None:
    """A real Numba CUDA kernel, run by Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)."""
    kernel.ok("nb_x = np.arange(256, dtype=np.float64)")
    baseline = (
        "nb_y = np.empty_like(nb_x)\nfor i in range(nb_x.size):\n    nb_y[i] = 2 * nb_x[i] + 1"
    )
    candidate = (
        "from numba import cuda\n"
        "@cuda.jit\n"
        "def nb_kernel(x, y):\n"
        "    i = cuda.grid(1)\n"
        "    if i < x.size:\n"
        "        y[i] = 2 * x[i] + 1\n"
        "d_x = cuda.to_device(nb_x)\n"
        "d_y = cuda.device_array_like(d_x)\n"
        "nb_kernel[2, 128](d_x, d_y)\n"
        "nb_y = d_y.copy_to_host()"
    )
    r = ab(kernel, baseline, candidate)
    assert r["candidate"]["status"] == "ok", r["candidate"]["error"]
    out = {o["name"]: o for o in r["match"]["outputs"]}
    assert out["nb_y"]["status"] == "equal"
    assert r["match"]["status"] == "equal"
    assert any("CUDA simulator" in w for w in r["warnings"])
    assert r["versions"].get("numba_cudasim") == "1"
    # to_device and copy_to_host were timed in the instrumented run
    assert r["candidate"]["transfer_s"] is not None and r["candidate"]["transfer_s"] > 0
    assert r["verdict"] in ("gpu_faster", "gpu_slower")
    assert "nb_y" not in state(kernel, "list(get_ipython().user_ns)")


def test_interrupt_cancels_and_keeps_the_kernel(kernel: Kernel) -> None:
    kernel.ok("ir_a = [1, 2, 3]")
    code = run_ab_code(
        "import time\nir_a.append(4)\ntime.sleep(0.05)\nir_b = 1",
        "ir_b = 1",
    ).replace(f"budget_s={BUDGET}", "budget_s=60")
    msg_id = kernel.send_execute(code)
    time.sleep(2.0)
    kernel.km.interrupt_kernel()
    ex = kernel.wait(msg_id, timeout=60)
    assert ex.status == "ok", ex.error  # the harness caught the interrupt
    r = check_ab_result(ex.json())
    assert r["verdict"] == "cancelled"
    assert r["baseline"]["status"] == "cancelled"
    assert r["candidate"]["status"] == "skipped"
    assert state(kernel, "[ir_a, 'ir_b' in dir()]") == [[1, 2, 3], False]
    assert state(kernel, "1 + 1") == 2  # alive


def test_result_object_repr_and_table(kernel: Kernel) -> None:
    ex = kernel.ok(
        "from gpuoptimize.harness import run_ab as _run_ab\n"
        f"_r = _run_ab('rp = sum(range(1000))', 'rp = 499500', {{}}, budget_s={BUDGET})\n"
        "print(repr(_r)); print(_r.format()); print(json.dumps(len(_r.baseline.times_s)))"
    )
    assert ex.stdout.startswith("<ABResult ")
    assert "baseline :" in ex.stdout and "candidate:" in ex.stdout and "rp: equal" in ex.stdout
    assert json.loads(ex.stdout.strip().splitlines()[-1]) >= 3


def test_random_generator_is_state_and_a_random_scalar_is_named_unverified(
    kernel: Kernel,
) -> None:
    """The bench's Monte Carlo cell: a generator is state, not a result; the samples match
    by statistics; the single estimate is reported unverified, by name."""
    cell = (
        "rng = np.random.default_rng({seed})\n"
        "mc_x = rng.random(20000)\nmc_y = rng.random(20000)\n"
        "mc_pi = 4.0 * np.count_nonzero(mc_x * mc_x + mc_y * mc_y <= 1.0) / 20000"
    )
    r = ab(kernel, cell.format(seed=8), cell.format(seed=9))
    out = {o["name"]: o for o in r["match"]["outputs"]}
    assert "rng" not in out and "np" not in out
    assert out["mc_x"]["status"] == out["mc_y"]["status"] == "statistical"
    assert out["mc_pi"]["status"] == "unverified" and "single value" in out["mc_pi"]["detail"]
    # seeded in the cell: every repeat of a side gives the same value
    assert out["mc_pi"]["detail"].startswith("seeded: one draw per side")
    assert r["match"]["status"] == "unverified"
    assert "random generator state not compared: rng" in r["warnings"]
    (summary,) = [w for w in r["warnings"] if w.startswith("some outputs could not be verified")]
    assert "mc_pi" in summary and "matched by statistics: mc_x, mc_y" in summary


def test_unseeded_random_scalar_is_compared_by_the_spread_of_its_repeats(kernel: Kernel) -> None:
    """Not seeded: each repeat draws afresh on both sides, so the estimate's repeats give
    each side a mean and a standard error; the two means agree within 5 standard errors."""
    cell = (
        "ur_rng = np.random.default_rng()\n"
        "ur_x = ur_rng.random(5000)\nur_y = ur_rng.random(5000)\n"
        "ur_pi = 4.0 * np.count_nonzero(ur_x * ur_x + ur_y * ur_y <= 1.0) / 5000"
    )
    other_stream = cell.replace("default_rng()", "Generator(np.random.Philox())")
    r = ab(kernel, cell, other_stream, min_runs=8)
    out = {o["name"]: o for o in r["match"]["outputs"]}
    pi = out["ur_pi"]
    assert pi["status"] == "statistical", pi
    assert "standard errors" in pi["method"]
    assert "by statistics over the repeats: baseline mean 3.1" in pi["detail"]
    assert "within the limit of 5" in pi["detail"]
    assert r["match"]["status"] == "statistical"
    assert not any(w.startswith("some outputs could not be verified") for w in r["warnings"])
    # draws in another dtype are another result, however alike their statistics
    r = ab(kernel, cell, other_stream.replace("5000)", "5000, dtype=np.float32)"), min_runs=5)
    out = {o["name"]: o for o in r["match"]["outputs"]}
    assert out["ur_x"]["status"] == "not_equal" and out["ur_x"]["method"] == "dtype"
    assert "values match by statistics" in out["ur_x"]["detail"]
    assert r["verdict"] == "not_equal"


def test_global_stream_baseline_is_one_draw_against_the_candidates_spread(kernel: Kernel) -> None:
    """The common Monte Carlo case: the baseline draws from NumPy's global stream, which the
    harness restores before every run (one value on every run); the candidate draws afresh
    (its repeats spread). The one draw is judged against the spread of a single draw."""
    base = (
        "gs_x = np.random.random(5000)\ngs_y = np.random.random(5000)\n"
        "gs_pi = 4.0 * np.count_nonzero(gs_x * gs_x + gs_y * gs_y <= 1.0) / 5000"
    )
    cand = (
        "gs_rng = np.random.default_rng()\n"
        "gs_x = gs_rng.random(5000)\ngs_y = gs_rng.random(5000)\n"
        "gs_pi = 4.0 * np.count_nonzero(gs_x * gs_x + gs_y * gs_y <= 1.0) / 5000"
    )
    r = ab(kernel, base, cand, min_runs=8)
    pi = {o["name"]: o for o in r["match"]["outputs"]}["gs_pi"]
    assert pi["status"] == "statistical", pi
    assert "one draw vs repeats" in pi["method"]
    assert pi["detail"].startswith("by statistics: baseline gave")
    assert "the smallest bias this test detects" in pi["detail"]


def test_module_is_not_an_output(kernel: Kernel) -> None:
    kernel.ok("mo_keys = np.random.default_rng(0).random(1000)")
    r = ab(kernel, "mo_sorted = np.sort(mo_keys)", "mo_sorted = np.sort(mo_keys, kind='stable')")
    assert [o["name"] for o in r["match"]["outputs"]] == ["mo_sorted"]
    assert r["match"]["status"] == "equal"


def test_fft_compared_normwise_in_the_result(kernel: Kernel) -> None:
    kernel.ok("fw_x = np.random.default_rng(0).random((256, 256), dtype=np.float32)")
    r = ab(
        kernel,
        "fw_s = np.fft.fft2(fw_x).astype(np.complex64)",
        "import scipy.fft\nfw_s = scipy.fft.fft2(fw_x)",
    )
    (o,) = r["match"]["outputs"]
    assert o["status"] == "equal" and o["method"] == "normwise(rtol=1e-05)"
    assert "relative L2 error" in o["detail"] and "beyond the elementwise tolerance" in o["detail"]
    assert r["verdict"] in ("gpu_faster", "gpu_slower")


def test_timer_overhead_is_reported(kernel: Kernel) -> None:
    r = ab(kernel, "to_a = 1", "to_a = 2 - 1")
    for side in ("baseline", "candidate"):
        s = r[side]
        assert 0 < s["timer_overhead_s"] < 1e-3
        assert s["device_timer_overhead_s"] is None  # no GPU side here


def test_float32_estimates_in_a_float64_frame_are_judged_at_float32(kernel: Kernel) -> None:
    # g_register in small, in the kernel: shift estimates from a float32 phase correlation run
    # inside a function, appended in a loop, stored in a float64 frame: equal at float32's
    # tolerance, saying so; the same frame 1e-3 off still differs
    import inspect

    from test_results_check import _REGISTER, _XCORR, _XCORR_ROUNDED, _registration

    setup = "import pandas as pd\n" + inspect.getsource(_registration)
    kernel.ok(setup + "globals().update(_registration())")
    rounded = _REGISTER.replace(_XCORR, _XCORR_ROUNDED)
    try:
        r = ab(kernel, _REGISTER, rounded)
        out = {o["name"]: o for o in r["match"]["outputs"]}
        assert out["df"]["status"] == "equal", out["df"]
        assert (
            "df['est_y'] relative to the largest value (rtol=1e-05) at float32's tolerance"
            in (out["df"]["detail"])
        )
        assert "computed from F_ref (complex64), c (float32)" in out["df"]["detail"]
        assert out["est"]["status"] == "equal" and out["err"]["status"] == "equal"
        wrong = rounded.replace("est = np.array(est)\n", "est = np.array(est) * (1 + 1e-3)\n")
        r = ab(kernel, _REGISTER, wrong)
        assert r["verdict"] == "not_equal"
        out = {o["name"]: o for o in r["match"]["outputs"]}
        assert out["df"]["status"] == "not_equal" and out["est"]["status"] == "not_equal"
    finally:
        kernel.ok("del ref, frames, win, N, true_shifts, _registration")


def test_one_element_or_column_from_a_transform_leaves_the_rest_at_float64(
    kernel: Kernel,
) -> None:
    # in the kernel: summary[2] and df['pmax'] from a float32 spectrum do not make summary[1]
    # or df['ratio'] (float64 statistics of float64 data) float32's rounding: 2% and 5e-6 off
    # are wrong values, named as computed from no transform
    kernel.ok(
        "import pandas as pd\n_rng = np.random.default_rng(0)\n"
        "x32 = _rng.standard_normal((64, 256)).astype(np.float32)\n"
        "g = _rng.standard_normal((64, 3))"
    )
    base = (
        "summary = np.zeros(3)\nsummary[0] = g.mean()\nsummary[1] = g.std()\n"
        "P = np.abs(np.fft.rfft(x32, axis=1)) ** 2\nsummary[2] = P.max()\n"
        "df = pd.DataFrame(g, columns=['a', 'b', 'c'])\n"
        "df['ratio'] = df['a'] / (df['b'].abs() + 1.0)\n"
        "df['pmax'] = P.max(axis=1)\n"
    )
    wrong = base.replace("g.std()", "g.std() * 1.02").replace("+ 1.0)\n", "+ 1.0) * (1 + 5e-6)\n")
    try:
        r = ab(kernel, base, wrong)
        assert r["verdict"] == "not_equal"
        out = {o["name"]: o for o in r["match"]["outputs"]}
        assert out["summary"]["status"] == "not_equal", out["summary"]
        assert "computed from P" not in (out["summary"]["detail"] or "")
        assert out["df"]["status"] == "not_equal", out["df"]
        assert out["df"]["detail"].startswith("df['ratio']: ")
        assert "computed from no transform's output" in out["df"]["detail"]
    finally:
        kernel.ok("del x32, g, _rng")
