"""The environment doctor (gpuoptimize.device): known conflicts, report, environment."""

from __future__ import annotations

import sys
import time
import types

import numpy as np
import pytest
from protocol_check import check_environment

from gpuoptimize import device


def test_numba_cuda_with_numpy_2_5() -> None:
    (p,) = device.find_problems(
        versions={"numpy": "2.5.2", "numba-cuda": "0.30.4"}, modules={}, distributions=[]
    )
    assert p["code"] == "numba-cuda-numpy-2.5"
    assert "row_stack" in p["message"]
    assert "numpy<2.5" in p["fix"] and "numba-cuda" in p["fix"]


def test_numba_cuda_fine_with_older_numpy() -> None:
    for versions in (
        {"numpy": "2.4.6", "numba-cuda": "0.30.4"},
        {"numpy": "2.5.2", "numba-cuda": None},
    ):
        assert device.find_problems(versions=versions, modules={}, distributions=[]) == []


def test_cudf_pandas_after_pandas() -> None:
    plain_pandas = types.SimpleNamespace(DataFrame=type("DataFrame", (), {}))
    plain_pandas.DataFrame.__module__ = "pandas.core.frame"
    problems = device.find_problems(
        versions={}, modules={"pandas": plain_pandas, "cudf.pandas": object()}, distributions=[]
    )
    assert [p["code"] for p in problems] == ["cudf-pandas-after-pandas"]
    assert "%load_ext cudf.pandas" in problems[0]["fix"]
    # pandas imported after cudf.pandas.install(): its DataFrame is cudf's proxy type
    proxied = types.SimpleNamespace(DataFrame=type("DataFrame", (), {}))
    proxied.DataFrame.__module__ = "cudf.pandas._wrappers.pandas"
    assert (
        device.find_problems(
            versions={}, modules={"pandas": proxied, "cudf.pandas": object()}, distributions=[]
        )
        == []
    )


def test_cuda_12_and_13_wheels_mixed() -> None:
    (p,) = device.find_problems(
        versions={},
        modules={},
        distributions=["cupy-cuda12x", "cupy-cuda13x", "numpy", "nvidia-cublas-cu12"],
    )
    assert p["code"] == "cuda-12-13-mixed"
    assert "cupy-cuda12x" in p["message"] and "cupy-cuda13x" in p["message"]
    assert "overwrite each other" in p["message"]
    assert "pip uninstall" in p["fix"]
    assert (
        device.find_problems(
            versions={}, modules={}, distributions=["cupy-cuda13x", "nvidia-cublas-cu13"]
        )
        == []
    )


def test_environment_matches_the_protocol() -> None:
    env = device.environment(calibrate_device=True)
    check_environment(env)
    libs = {lib["name"]: lib for lib in env["libraries"]}
    assert libs["numpy"]["available"] and libs["numpy"]["version"]
    assert env["calibration"]["host_bandwidth"] > 0


def test_report_lists_libraries_and_problems() -> None:
    env = device.environment()
    env["problems"] = device.find_problems(
        versions={"numpy": "2.5.0", "numba-cuda": "0.30.1"}, modules={}, distributions=[]
    )
    text = device.format_report(env)
    assert "Libraries:" in text and "cupy" in text
    assert "[numba-cuda-numpy-2.5]" in text and "fix:" in text


MiB = 1 << 20


def test_copy_sizes_exceed_the_caches() -> None:
    # the device copy: max(8 x L2, 256 MiB), its two buffers at most half the free memory
    assert device.device_copy_bytes(96_000_000, 40 << 30) == 768_000_000  # L40S, 96 MB L2
    assert device.device_copy_bytes(72 * MiB, 20 << 30) == 576 * MiB  # RTX 4090
    assert device.device_copy_bytes(4 * MiB, 20 << 30) == 256 * MiB  # small L2: the floor
    assert device.device_copy_bytes(None, None) == 256 * MiB
    assert device.device_copy_bytes(96_000_000, 1 << 30) == 256 * MiB  # bounded by free memory
    # the host copy: 512 MiB, bounded by available memory; 256 MiB when that is not known
    assert device.host_copy_bytes(64 << 30) == 512 * MiB
    assert device.host_copy_bytes(1 << 30) == 256 * MiB
    assert device.host_copy_bytes(None) == 256 * MiB


class _DeviceArray(np.ndarray):
    """A NumPy array with CuPy's `set` (host -> device copy)."""

    def set(self, a: np.ndarray) -> None:
        self[...] = a


def _fake_cupy(l2: int, free: int) -> types.SimpleNamespace:
    """Enough of CuPy's API for the calibration, on NumPy (not the project's test double)."""
    runtime = types.SimpleNamespace(
        getDeviceCount=lambda: 1,
        getDevice=lambda: 0,
        getDeviceProperties=lambda i: {"l2CacheSize": l2},  # noqa: ARG005
        memGetInfo=lambda: (free, 2 * free),
        deviceSynchronize=lambda: None,
    )

    class Event:
        def record(self) -> None:
            self.t = time.perf_counter()

        def synchronize(self) -> None:
            pass

    return types.SimpleNamespace(
        cuda=types.SimpleNamespace(
            runtime=runtime,
            Event=Event,
            get_elapsed_time=lambda a, b: (b.t - a.t) * 1e3 + 1e-6,
        ),
        ones=lambda n, dtype: np.ones(n, dtype=dtype).view(_DeviceArray),
        zeros=lambda n, dtype: np.zeros(n, dtype=dtype).view(_DeviceArray),
        empty_like=np.empty_like,
        copyto=np.copyto,
        float32=np.float32,
        get_default_memory_pool=lambda: types.SimpleNamespace(free_all_blocks=lambda: None),
    )


def test_calibration_records_the_copy_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(device, "_available_host_memory", lambda: 128 * MiB)
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    cal = device.calibrate()
    assert cal["host_copy_bytes"] == 32 * MiB  # a quarter of the available memory
    assert cal["host_bandwidth"] and cal["host_bandwidth"] > 0
    assert cal["device_copy_bytes"] is None and cal["device_bandwidth"] is None
    # with CuPy loaded: the device copy sized from L2 and free memory, host->device the smaller
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(l2=1 * MiB, free=64 * MiB))
    cal = device.calibrate()
    assert cal["device_copy_bytes"] == 16 * MiB  # 256 MiB wanted, a quarter of 64 MiB free
    assert cal["host_to_device_bytes"] == 16 * MiB
    assert cal["device_bandwidth"] and cal["host_to_device"] and cal["launch_overhead_s"]
    text = device.format_report({**device.environment(), "calibration": cal})
    assert "copies of          host 32 MiB, device 16 MiB, host->device 16 MiB" in text
