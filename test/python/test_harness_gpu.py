"""The harness on a real GPU with CuPy: device time, transfers, peak memory, OOM.

Skipped where CuPy or a device is missing (CI). Run on the GPU machine with
`python -m pytest test/python/test_harness_gpu.py`; these call the harness in-process,
since that machine has no ipykernel.
"""

from __future__ import annotations

import numpy as np
import pytest
from protocol_check import check_ab_result, check_environment

cp = pytest.importorskip("cupy")
try:
    if cp.cuda.runtime.getDeviceCount() == 0:
        pytest.skip("no CUDA device", allow_module_level=True)
except cp.cuda.runtime.CUDARuntimeError:
    pytest.skip("no CUDA device", allow_module_level=True)

from gpuoptimize import device  # noqa: E402
from gpuoptimize.harness import run_ab  # noqa: E402

N = 20_000_000
BASELINE = "y = np.sqrt(x * x + z * z) * np.exp(-x)"


@pytest.fixture(scope="module")
def ns() -> dict:
    rng = np.random.default_rng(0)
    x = rng.random(N, dtype=np.float32)
    z = rng.random(N, dtype=np.float32)
    return {"np": np, "cp": cp, "x": x, "z": z, "x_d": cp.asarray(x), "z_d": cp.asarray(z)}


def test_round_trip_candidate_reports_device_transfer_and_peak(ns: dict) -> None:
    cand = (
        "xd = cp.asarray(x)\nzd = cp.asarray(z)\n"
        "y = cp.asnumpy(cp.sqrt(xd * xd + zd * zd) * cp.exp(-xd))"
    )
    r = run_ab(BASELINE, cand, ns, budget_s=1.0)
    j = check_ab_result(r.to_json())
    c = j["candidate"]
    assert c["status"] == "ok", c["error"]
    assert j["match"]["status"] == "equal", j["match"]
    assert c["device_s"] is not None and c["device_s"] <= c["median_s"] * 1.05
    # two H2D copies of 80 MB and one D2H copy: a large share of the candidate's time
    assert c["transfer_s"] is not None and 0 < c["transfer_s"] <= c["median_s"] * 1.5
    assert r.candidate.transfer_bytes == 3 * N * 4
    assert c["peak_device_bytes"] >= 2 * N * 4
    assert j["device"]["name"] and j["device"]["memory_bytes"] > 0
    assert "cupy" in j["versions"] and "cuda_runtime" in j["versions"]
    assert j["baseline"]["device_s"] is None  # the NumPy side has no device time
    print("\n" + r.format())


def test_device_resident_candidate_is_faster_and_inputs_stay_intact(ns: dict) -> None:
    before = float(ns["x_d"][:10].sum())
    cand = "x_d *= 1.0\ny = cp.sqrt(x_d * x_d + z_d * z_d) * cp.exp(-x_d)"
    base = "y = np.sqrt(x * x + z * z) * np.exp(-x)"
    r = run_ab(base, cand, ns, budget_s=1.0)
    j = check_ab_result(r.to_json())
    assert j["match"]["status"] == "equal", j["match"]
    assert j["verdict"] == "gpu_faster", j["reason"]
    assert j["speedup"]["end_to_end"] > 5
    assert j["candidate"]["transfer_s"] is None  # no transfer calls in the source
    assert float(ns["x_d"][:10].sum()) == before
    assert "y" not in ns
    print("\n" + r.format())


def test_out_of_memory_frees_the_pool(ns: dict) -> None:
    free, total = cp.cuda.runtime.memGetInfo()
    cand = f"big = cp.empty({2 * total}, dtype=cp.uint8)\ny = 1"
    r = run_ab("y = 1", cand, ns, budget_s=0.2)
    j = check_ab_result(r.to_json())
    assert j["candidate"]["status"] == "oom"
    assert j["verdict"] == "error" and "out of memory" in j["reason"]
    assert cp.get_default_memory_pool().total_bytes() <= 2 * N * 4 + (1 << 20)


def test_small_cell_loses_with_a_reason(ns: dict) -> None:
    ns["small"] = np.arange(100.0)
    r = run_ab("s = small.sum()", "s = float(cp.asarray(small).sum())", ns, budget_s=0.3)
    j = check_ab_result(r.to_json())
    assert j["verdict"] == "gpu_slower"
    assert j["reason"].startswith(("too small", "transfer dominated")), j["reason"]


def test_doctor_sees_the_gpu() -> None:
    env = device.environment(calibrate_device=True)
    check_environment(env)
    assert env["gpus"] and env["gpus"][0]["memory_bytes"] > 0
    assert env["runtime_version"]
    cal = env["calibration"]
    assert cal["device_bandwidth"] > cal["host_to_device"] > 0
    assert 0 < cal["launch_overhead_s"] < 1e-3
    print("\n" + device.format_report(env))
