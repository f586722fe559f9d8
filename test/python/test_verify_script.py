"""The GPU fixture checker's warm-up rule (test/fixtures/rules/verify_on_gpu.py): a target cell
runs once before it is timed unless running it twice would change what it computes. Both sides
of a fixture must get the same treatment, or the checker compares 400 Jacobi steps with 200
(H200 run 4, bench/RESULTS.md)."""

from __future__ import annotations

import pathlib

import pytest
from conftest import RULES, fixture_checker

verify = fixture_checker()


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("y = np.sqrt(x) * 2\n", False),
        ("x += 1\n", True),
        ("x -= 1\n", True),
        ("x *= 2\n", True),
        ("x = x * 2\n", True),
        # state the cell creates first is rebuilt by every run
        ("lap = np.zeros_like(u)\nlap[1:-1] = u[:-2] + u[2:]\n", False),
        ("total = 0.0\nfor k in range(9):\n    total += k\n", False),
        ("r = f(x)\nr = cp.asnumpy(r)\n", False),
        ("a[1:-1] = b[:-2] + b[2:]\n", True),
        ("for step in range(3):\n    u[1:-1] = 0.5 * (u[:-2] + u[2:])\n", True),
        ("for step in range(3):\n    total += step\n", True),
        # a launcher rebinding its own parameters changes nothing in the notebook
        (
            "def f(x, y):\n    x, y = (cp.asarray(a) for a in (x, y))\n"
            "    x *= 2\n    return x + y\n\nr = f(p, q)\n",
            False,
        ),
        ("g = lambda v: v + 1\nr = g(3)\n", False),
        # a continuation line belongs to the statement that opened the bracket
        ("out = kernel(\n    a,\n    b)\n", False),
        ("%%time\nx = 1\n", False),  # not Python: never warmed twice by accident of a parse error
        # calls that update an outside array in place (H200 run 8: the loop candidates' write-back
        # u_gpu.get(out=u) and the original np.add(u, 1.0, u) were warmed up, running twice)
        ("np.add(u, 1.0, u)\n", True),
        ("np.sqrt(u, u)\n", True),
        ("u_gpu = cp.asarray(u)\nu_gpu.get(out=u)\n", True),
        ("np.multiply(a, b, out=x)\n", True),
        ("ndimage.uniform_filter(src, 9, output=u)\n", True),
        ("u.sort()\n", True),
        ("rng.shuffle(u)\n", True),
        ("v = u.copy()\nv.sort()\n", False),
        ("u_gpu = cp.asarray(u)\ncp.add(u_gpu, 1.0, u_gpu)\n", False),
        ("x = rng.random(5)\n", False),
    ],
)
def test_updates_state_cases(src: str, expected: bool) -> None:
    assert verify.updates_state(src) is expected


def _target(notebook: pathlib.Path) -> str:
    cells, target = verify.cells_of(notebook.read_text())
    return cells[target]


@pytest.mark.parametrize(
    "fixture",
    sorted(p.parent for p in RULES.glob("*/flag-*/expected.py")),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_both_sides_of_a_fixture_get_the_same_warm_up(fixture: pathlib.Path) -> None:
    original = _target(fixture / "notebook.py")
    candidate = (fixture / "expected.py").read_text()
    # the candidate may add state updates of its own (u = cp.asarray(u)); what matters is that a
    # cell whose original updates state is never warmed up on the candidate side
    if verify.updates_state(original):
        assert verify.updates_state(candidate), (
            "the candidate would run twice where the original runs once"
        )


def test_kernel_locals_are_the_intermediates_a_grouped_kernel_never_binds() -> None:
    """A fused kernel of consecutive statements keeps an intermediate nothing reads later in a
    register: the candidate's run never binds it, and the checker must not call it missing. An
    output's own register (`y_` of output `y`) is no such name."""
    fixtures = RULES / "GPU103"
    local = (fixtures / "flag-group-intermediate-local" / "expected.py").read_text()
    both = (fixtures / "flag-group-intermediate-read-later" / "expected.py").read_text()
    baseline = {"x": 1, "z": 2, "y": 3, "w": 4}
    assert verify.kept_in_registers(baseline, {"x": 1, "z": 2, "w": 4}, [local]) == {"y"}
    assert verify.kept_in_registers(baseline, {"x": 1, "z": 2, "w": 4}, [both]) == set()
    # a cell that does not parse (IPython syntax) has no kernel the checker can read
    assert verify.kept_in_registers(baseline, {}, ["%time " + local]) == set()
