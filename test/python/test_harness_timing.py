"""Harness timing and isolation logic on the CPU, with the clock sources abstracted:
fake CUDA event timers, the events-vs-wall check, once-per-side copies of read-only
arrays, how a scalar from random streams is compared, the transfer meter's constructors.
In-process (no kernel): nothing here is user-visible beyond what test_harness_kernel.py
checks."""

from __future__ import annotations

import time
import types
from typing import Any

import numpy as np
import pytest
import scipy.sparse

from gpuoptimize import _cell, harness
from gpuoptimize.harness import device_time_misses_work, run_ab


class _FakeEvent:
    def __init__(self) -> None:
        self.t: float | None = None

    def record(self) -> None:
        self.t = time.perf_counter()


class _FakeTimer:
    """CUDA events, faked: `elapsed_s` is the time between the two `record` calls (what
    events on a stream that orders with the cell's work see), or a fixed figure (what
    events on the default stream see when the cell's work runs on a non-blocking one)."""

    def __init__(self, fixed_s: float | None = None) -> None:
        self.start, self.end = _FakeEvent(), _FakeEvent()
        self.fixed_s = fixed_s

    def elapsed_s(self) -> float:
        if self.fixed_s is not None:
            return self.fixed_s
        assert self.start.t is not None and self.end.t is not None
        return self.end.t - self.start.t


def _with_timer(monkeypatch: pytest.MonkeyPatch, fixed_s: float | None) -> None:
    fake = staticmethod(lambda uses: _FakeTimer(fixed_s))
    monkeypatch.setattr(harness._EventTimer, "for_side", fake)


def test_device_time_check_logic() -> None:
    # a 22 ms matmul on a non-blocking stream: events 0.58 ms, synchronized wall 22.2 ms
    assert device_time_misses_work([22.2e-3] * 5, [0.58e-3] * 5, 12e-6, 3e-6)
    # events and wall agree (default stream): not flagged
    assert not device_time_misses_work([21.7e-3] * 5, [21.5e-3] * 5, 12e-6, 3e-6)
    # a tiny cell: wall is several times the events, but only by the synchronize's cost
    assert not device_time_misses_work([40e-6] * 5, [28e-6] * 5, 15e-6, 3e-6)
    # no events: nothing to check
    assert not device_time_misses_work([1.0], [], None, None)


def test_events_that_miss_work_report_the_wall_time_as_a_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _with_timer(monkeypatch, fixed_s=1e-4)
    cell = "import time\ntime.sleep(0.02)\ny = 1"
    r = run_ab("y = 1", cell, {}, budget_s=0.1, min_runs=3)
    c = r.candidate
    assert c.status == "ok" and c.device_time_from_wall
    assert c.device_times_s == c.times_s and c.device_s == c.median_s
    assert c.device_s is not None and c.device_s > 0.015
    w = [w for w in r.warnings if w.startswith("candidate: CUDA events")]
    assert w and "non_blocking=True" in w[0] and "upper bound" in w[0]
    assert "upper bound: wall time" in r.format()


def test_events_that_see_the_work_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_timer(monkeypatch, fixed_s=None)
    r = run_ab("y = 1", "import time\ntime.sleep(0.01)\ny = 1", {}, budget_s=0.1)
    c = r.candidate
    assert not c.device_time_from_wall and c.device_s is not None
    assert c.device_s <= c.median_s  # the events sit inside the clock reads
    assert not any("CUDA events" in w for w in r.warnings)
    # the fixed cost of the timing itself, measured on an empty cell, is reported
    assert c.timer_overhead_s is not None and 0 < c.timer_overhead_s < 1e-3
    assert c.device_timer_overhead_s is not None and c.device_timer_overhead_s < 1e-3
    j = r.to_json()["candidate"]
    assert j["timer_overhead_s"] == c.timer_overhead_s
    assert j["device_timer_overhead_s"] == c.device_timer_overhead_s


def test_cpu_side_reports_its_timer_overhead() -> None:
    r = run_ab("y = 1", "y = 1", {}, budget_s=0.05)
    b = r.baseline
    assert b.timer_overhead_s is not None and 0 < b.timer_overhead_s < 1e-3
    assert b.device_timer_overhead_s is None
    assert "timer overhead" in r.format()


def test_read_only_arrays_are_copied_once_per_side_and_never_shared() -> None:
    x, m, other = np.arange(10.0), np.arange(5.0), [1, 2]
    ns = {"np": np, "x": x, "m": m, "other": other}
    iso = harness._Isolation(ns, _cell.analyze("m += 1\ny = x.sum() + len(other)"))
    assert list(iso.snapshots) == ["x"] and set(iso.copied) == {"m", "other"}
    iso.take_snapshots()
    a, b = iso.fresh(), iso.fresh()
    assert a["x"] is b["x"] and a["x"] is not x  # one copy for the side
    assert a["m"] is not b["m"] and a["m"] is not m  # a fresh copy for every run
    assert iso.changed_snapshots() == []
    a["x"][0] = 99.0  # a change the source does not show
    assert iso.changed_snapshots() == ["x"] and x[0] == 0.0


def test_a_container_holding_a_read_only_array_keeps_the_alias() -> None:
    x = np.arange(4.0)
    ns = {"x": x, "box": [x]}
    iso = harness._Isolation(ns, _cell.analyze("y = x.sum() + box[0].sum()"))
    iso.take_snapshots()
    run = iso.fresh()
    assert run["box"][0] is run["x"] and run["x"] is not x


def test_hidden_in_place_change_is_measured_again_with_per_run_copies() -> None:
    def bump(a: Any) -> None:
        a[0] += 1  # the source `bump(hc)` does not show that hc changes

    hc = np.zeros(8)
    ns = {"np": np, "hc": hc, "bump": bump}
    cell = "bump(hc)\nhc_first = float(hc[0])"
    r = run_ab(cell, cell, ns, budget_s=0.05)
    assert r.baseline.status == "ok"
    assert any("changes hc in place" in w and "measured again" in w for w in r.warnings)
    # every run started from the user's array: the last run saw 0 and made it 1
    assert r.baseline_values["hc_first"] == 1.0 and r.candidate_values["hc_first"] == 1.0
    assert hc[0] == 0.0 and ns["hc"] is hc


# -- scalars from random streams -------------------------------------------------------


def _scalar_side(label: str, source: str, runs: list[float]) -> harness._Side:
    """A side that ran `source` once per value of `runs`, each run's `est` kept."""
    side = harness._Side(label, source, _cell.analyze(source))
    side.scalar_runs = {"est": [np.float64(v) for v in runs]}
    side.values = {"est": side.scalar_runs["est"][-1]}
    return side


def test_an_estimate_whose_last_runs_agree_by_chance_is_judged_by_its_repeats() -> None:
    """NumPy's global stream, restored before every run, gives the baseline one value; the
    candidate draws afresh, and its last run gives that same value (4 * hits / 5000 lies on
    a grid of 0.0008: about one pair of runs in a hundred agrees)."""
    b = _scalar_side("baseline", "est = np.random.random()", [3.1416] * 8)
    spread = [3.1384, 3.1448, 3.1400, 3.1432, 3.1408, 3.1424, 3.1392, 3.1416]
    c = _scalar_side("candidate", "est = rng.random()", spread)
    (o,), _ = harness._compare_outputs(b, c, None, None, random=True)
    assert o.status == "statistical" and "one draw vs repeats" in o.method
    assert o.detail is not None and o.detail.startswith("by statistics: baseline gave 3.1416")


def test_a_scalar_close_on_every_run_stays_equal() -> None:
    """The same value on every run of both sides (seeded alike), or runs that differ only
    within the tolerance (a GPU sum in another order): equal, not a matter of statistics."""
    b = _scalar_side("baseline", "est = np.random.random()", [0.5] * 8)
    for runs in ([0.5] * 8, [0.5 + k * 1e-12 for k in (3, -2, 1, 0, -1, 2, -3, 0)]):
        c = _scalar_side("candidate", "est = rng.random()", runs)
        (o,), _ = harness._compare_outputs(b, c, None, None, random=True)
        assert o.status == "equal", o


# -- transfer meter --------------------------------------------------------------------


class _FakeDeviceCsr:
    """Stands for cupyx.scipy.sparse.csr_matrix: a sparse matrix in device memory."""

    def __init__(self, host: Any) -> None:
        self.data, self.indices, self.indptr = host.data, host.indices, host.indptr

    def get(self) -> Any:
        return scipy.sparse.csr_matrix((self.data, self.indices, self.indptr))


_FakeDeviceCsr.__module__ = "cupyx.scipy.sparse._csr"


def test_meter_times_sparse_constructors_from_host_matrices() -> None:
    fake = types.ModuleType("cupyx.scipy.sparse")
    fake.csr_matrix = _FakeDeviceCsr  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    M = scipy.sparse.random(200, 300, density=0.05, format="csr", random_state=rng)
    expected = M.data.nbytes + M.indices.nbytes + M.indptr.nbytes
    for src in ("Md = csp.csr_matrix(M)", "Md = csr_matrix(M)"):
        assert _cell.has_transfer_calls(src)
        meter = harness._TransferMeter(lambda: None)
        ns = {"csp": fake, "csr_matrix": _FakeDeviceCsr, "M": M, _cell.TRANSFER_HOOK: meter}
        exec(_cell.compile_instrumented(src, "<t>"), ns)  # noqa: S102
        assert isinstance(ns["Md"], _FakeDeviceCsr)
        assert meter.calls == 1 and meter.bytes == expected and meter.seconds >= 0


def test_meter_ignores_host_to_host_constructors() -> None:
    import pandas as pd

    meter = harness._TransferMeter(lambda: None)
    ns = {"pd": pd, "np": np, _cell.TRANSFER_HOOK: meter}
    exec(_cell.compile_instrumented("df = pd.DataFrame({'a': np.arange(3)})", "<t>"), ns)  # noqa: S102
    assert meter.calls == 0 and list(ns["df"]["a"]) == [0, 1, 2]


def test_nbytes_of_frames_and_sparse() -> None:
    import pandas as pd

    assert harness._nbytes(np.zeros(4)) == 32
    assert harness._nbytes(pd.DataFrame({"a": np.zeros(4)})) >= 32
    M = scipy.sparse.eye(5, format="csr")
    assert harness._nbytes(M) == M.data.nbytes + M.indices.nbytes + M.indptr.nbytes
