"""The environment doctor (gpuoptimize.device): known conflicts, report, environment."""

from __future__ import annotations

import types

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
