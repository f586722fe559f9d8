"""The checks of src/kernel/protocol.ts (validateABResult, validateResponse), in Python.

Tests run every message the kernel sends through these, so the Python side keeps
producing what the frontend accepts. Keep in step with protocol.ts.
"""

from __future__ import annotations

import math
from typing import Any

SIDE_STATUSES = {"ok", "error", "timeout", "cancelled", "oom", "skipped"}
MATCH_STATUSES = {"equal", "not_equal", "unverified", "statistical"}
VERDICTS = {
    "gpu_faster",
    "gpu_slower",
    "not_equal",
    "error",
    "cancelled",
    "stale",
    "refused",
    "no_gpu",
}
PHASES = {"baseline", "candidate", "compare"}


def _num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _num_or_null(x: Any) -> bool:
    return x is None or _num(x)


def check_side(x: Any, where: str) -> None:
    assert isinstance(x, dict), where
    assert x["status"] in SIDE_STATUSES, f"{where}.status {x['status']}"
    for k in (
        "first_run_s",
        "median_s",
        "iqr_s",
        "min_s",
        "device_s",
        "transfer_s",
        "peak_device_bytes",
    ):
        assert _num_or_null(x[k]), f"{where}.{k} = {x[k]!r}"
    assert _num(x["runs"]) and isinstance(x["times_s"], list), where
    assert all(_num(t) for t in x["times_s"]), where
    assert x["runs"] == len(x["times_s"]), where
    assert x["error"] is None or isinstance(x["error"], str), where
    # Optional in protocol.ts (added later); the Python kernel always sends them.
    for k in ("timer_overhead_s", "device_timer_overhead_s"):
        assert _num_or_null(x[k]), f"{where}.{k} = {x[k]!r}"


def check_ab_result(x: Any) -> dict[str, Any]:
    assert isinstance(x, dict) and x["version"] == 1
    check_side(x["baseline"], "baseline")
    check_side(x["candidate"], "candidate")
    s = x["speedup"]
    assert _num_or_null(s["end_to_end"]) and _num_or_null(s["device"])
    assert s["ci95"] is None or (len(s["ci95"]) == 2 and all(map(_num, s["ci95"])))
    m = x["match"]
    assert m["status"] in MATCH_STATUSES and isinstance(m["outputs"], list)
    for o in m["outputs"]:
        assert isinstance(o["name"], str) and o["status"] in MATCH_STATUSES
        assert isinstance(o["method"], str)
        assert _num_or_null(o["max_abs_err"]) and _num_or_null(o["max_rel_err"])
    assert x["verdict"] in VERDICTS, x["verdict"]
    assert x["reason"] is None or isinstance(x["reason"], str)
    assert isinstance(x["warnings"], list) and isinstance(x["stale"], bool)
    assert x["device"] is None or {"index", "name", "memory_bytes", "compute_capability"} <= set(
        x["device"]
    )
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in x["versions"].items())
    return x


def check_environment(x: Any) -> None:
    assert isinstance(x, dict)
    assert isinstance(x["gpus"], list) and isinstance(x["libraries"], list)
    assert isinstance(x["problems"], list) and isinstance(x["python"], str)
    for lib in x["libraries"]:
        assert set(lib) == {"name", "available", "version", "error"}
    for p in x["problems"]:
        assert set(p) == {"code", "message", "fix"}
    cal = x["calibration"]
    assert cal is None or set(cal) == {
        "host_bandwidth",
        "device_bandwidth",
        "host_to_device",
        "launch_overhead_s",
        "host_copy_bytes",
        "device_copy_bytes",
        "host_to_device_bytes",
    }


def check_response(x: Any) -> dict[str, Any]:
    assert isinstance(x, dict) and x["v"] == 1
    assert isinstance(x["id"], str) and isinstance(x["type"], str)
    t = x["type"]
    if t == "hello_reply":
        assert isinstance(x["shim_version"], str) and _num(x["protocol"])
        check_environment(x["environment"])
    elif t == "doctor_reply":
        check_environment(x["environment"])
    elif t == "inspect_reply":
        assert isinstance(x["values"], dict)
    elif t == "ok":
        pass
    elif t == "progress":
        assert x["phase"] in PHASES
        assert _num(x["runs_done"]) and _num(x["elapsed_s"]) and _num(x["budget_s"])
    elif t == "ab_result":
        check_ab_result(x["result"])
    elif t == "error":
        assert isinstance(x["code"], str) and isinstance(x["message"], str)
    else:
        raise AssertionError(f"unknown message type {t}")
    return x
