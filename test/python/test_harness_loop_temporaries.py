"""The A/B harness and a loop's temporary that a rewrite does without: `un` of the tutorial
stencil `for _ in range(n): un = u.copy(); u[1:-1] = ... un ...` rewritten to a ping-pong
kernel is never bound by the candidate. The baseline's facts say it is one iteration's scratch
value (bound, then read, in each iteration; read nowhere after the loop), so the harness notes
it instead of reporting an output "only the baseline sets". A name the candidate binds, one the
cell reads after the loop, or a value carried between iterations stays a result to compare."""

from __future__ import annotations

import pathlib
import re

import numpy as np

from gpuoptimize._cell import analyze
from gpuoptimize.harness import run_ab

GPU103 = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "rules" / "GPU103"

BASELINE = """\
for _ in range(steps):
    un = u.copy()
    u[1:-1] = un[1:-1] + alpha * (un[2:] - 2 * un[1:-1] + un[:-2])
"""
#: The ping-pong form: two buffers swapped each step, no `un`.
PING_PONG = """\
u_dst = u.copy()
u_keep = u
for _ in range(steps):
    u_dst[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    u, u_dst = u_dst, u
if u is not u_keep:
    u_keep[...] = u
    u = u_keep
del u_keep, u_dst
"""


def _ns() -> dict:
    return {"np": np, "steps": 5, "alpha": 0.2, "u": np.sin(np.linspace(0.0, 3.0, 1000))}


def _target(case: str) -> str:
    return re.split(r"^# %%.*$", (GPU103 / case / "notebook.py").read_text(), flags=re.M)[2]


def test_the_stencil_copy_is_a_loop_temporary() -> None:
    assert analyze(_target("flag-stencil-loop-copy-border-and-host-read")).loop_temporaries == {
        "un"
    }
    assert analyze(BASELINE).loop_temporaries == {"un"}


def test_what_is_no_loop_temporary() -> None:
    # read after the loop, carried between iterations, read by a while test, never read
    assert analyze(BASELINE + "total = un.sum()\n").loop_temporaries == set()
    assert analyze("s = 0\nfor x in a:\n    s = s + x\n").loop_temporaries == set()
    assert analyze("err = 1.0\nwhile err > 1e-3:\n    err = err / 2\n").loop_temporaries == set()
    assert analyze("for i in range(3):\n    last = f(i)\n").loop_temporaries == set()
    # a temporary of the else branch's reading, or of a later loop
    assert analyze(BASELINE + "else:\n    print(un)\n").loop_temporaries == set()


def test_the_harness_notes_the_temporary_the_ping_pong_kernel_does_without() -> None:
    ns = _ns()
    r = run_ab(BASELINE, PING_PONG, ns, budget_s=0.02, min_runs=2)
    assert r.candidate.status == "ok", r.candidate.error
    statuses = {o.name: o.status for o in r.outputs}
    assert statuses["u"] == "equal" and "un" not in statuses
    assert r.match_status == "equal"
    note = next(w for w in r.warnings if w.startswith("un is a temporary of the cell's loop"))
    assert "does without: not compared" in note
    assert not any("only the baseline sets it" in (o.detail or "") for o in r.outputs)


def test_a_temporary_read_after_the_loop_is_still_missing() -> None:
    # the cell itself reads un after the loop: a candidate without it changes the cell
    r = run_ab(BASELINE + "edge = un[0]\n", PING_PONG + "edge = u[0]\n", _ns(), budget_s=0.02)
    un = next(o for o in r.outputs if o.name == "un")
    assert un.status == "unverified" and "only the baseline sets it" in (un.detail or "")
    assert r.match_status != "equal"


def test_a_candidate_that_binds_the_name_elsewhere_is_compared_as_usual() -> None:
    # the candidate's source binds un (here in a branch it never takes): no benefit of the doubt
    candidate = PING_PONG + "if steps < 0:\n    un = u\n"
    r = run_ab(BASELINE, candidate, _ns(), budget_s=0.02)
    un = next(o for o in r.outputs if o.name == "un")
    assert un.status == "unverified"
