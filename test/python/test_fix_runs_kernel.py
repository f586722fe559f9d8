"""`gpuoptimize fix` output runs and gives the original notebook's results.

CI has no GPU, so the rewritten notebook runs in a real ipykernel against the CuPy TEST
DOUBLE in test/python/testdouble_cupy (NumPy underneath; `cupy.IS_TEST_DOUBLE`). This
checks that the rewrite is runnable Python with the original's meaning, and that the
residency plan converts at the host boundaries (print, int(), float()). GPU behaviour is
shown on the GPU machine (bench/RESULTS.md), not here.
"""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, running_kernel

TESTDOUBLE = Path(__file__).parent / "testdouble_cupy"
BUNDLE = ROOT / "python_shim" / "gpuoptimize" / "cli_bundle" / "gpuoptimize.cjs"
FIXTURES = ROOT / "test" / "fixtures" / "cli"


def _code_cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text())
    return [
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in nb["cells"]
        if c["cell_type"] == "code"
    ]


def _run_cells(cells: list[str], names: list[str]) -> tuple[str, dict[str, object]]:
    """Runs the cells in a fresh kernel; returns stdout and the named values, on the host."""
    with running_kernel(extra_path=(TESTDOUBLE,)) as k:
        out = ""
        for src in cells:
            out += k.ok(src, timeout=300).stdout
        k.ok("import pickle, gpuoptimize.compare as _c")
        values = {}
        for n in names:
            ex = k.ok(f"print(pickle.dumps(_c.to_host({n})).hex())")
            values[n] = pickle.loads(bytes.fromhex(ex.stdout.strip().splitlines()[-1]))
        # the double, not a real CuPy, ran the candidate
        assert k.ok("import cupy; print(cupy.IS_TEST_DOUBLE)").stdout.strip() == "True"
        return out, values


@pytest.mark.skipif(shutil.which("node") is None, reason="the CLI needs Node.js")
def test_fixed_notebook_runs_and_matches(tmp_path: Path) -> None:
    subprocess.run(["node", str(ROOT / "scripts" / "build-cli.js")], check=True, cwd=ROOT)
    src = tmp_path / "pipeline.ipynb"
    shutil.copy(FIXTURES / "deterministic_pipeline.ipynb", src)
    # a small notebook: `fix` may predict that the rewrite does not pay (import cupy and first
    # uses cost more than its work saves) and then writes nothing without --even-if-slower; this
    # test is about the rewrite's meaning, so it is written either way, and the figure is printed
    r = subprocess.run(
        ["node", str(BUNDLE), "fix", str(src), "--even-if-slower"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert "on the GPU per session" in r.stdout + r.stderr
    fixed = tmp_path / "pipeline.gpu.ipynb"
    fixed_cells = _code_cells(fixed)
    joined = "\n".join(fixed_cells)
    # the rewrite really moved the work (otherwise this test would prove nothing)
    assert "cp.ElementwiseKernel" in joined and "cupyx.scipy.ndimage" in joined
    # the whole-notebook rewrite keeps arrays on the device: no copy back between cells
    assert "asnumpy" not in joined and ".get()" not in joined

    from gpuoptimize.compare import compare

    names = ["signal", "energy", "spectrum", "peak", "smooth"]
    base_out, base = _run_cells(_code_cells(src), names)
    cand_out, cand = _run_cells(fixed_cells, names)
    assert base_out == cand_out
    for n in names:
        c = compare(n, base[n], cand[n])
        assert c.status == "equal", c
