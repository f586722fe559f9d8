"""`%%gpuoptimize` and `%gpuoptimize` in a real ipykernel."""

from __future__ import annotations

import json

from conftest import BUDGET, Kernel
from protocol_check import check_ab_result

AB_MIME = "application/vnd.gpuoptimize.ab+json"


def magic_result(ex) -> dict:
    (bundle,) = [d for d in ex.displays if AB_MIME in d]
    assert set(bundle) >= {AB_MIME, "text/plain", "image/svg+xml"}
    assert bundle["image/svg+xml"].startswith("<svg")
    return check_ab_result(bundle[AB_MIME])


def names(kernel: Kernel) -> set[str]:
    return set(kernel.ok("print(json.dumps(list(get_ipython().user_ns)))").json())


def test_cell_magic_help(kernel: Kernel) -> None:
    for query in ("%%gpuoptimize?", "%gpuoptimize?"):
        text = kernel.ok(query).pager_text()
        for option in ("--budget", "--rtol", "--atol", "--apply", "--json", "--allow-side-effects"):
            assert option in text, (query, text[:500])
        assert "# %% gpu" in text
        assert "baseline" in text and "candidate" in text


def test_split_cell_binds_baseline_outputs(kernel: Kernel) -> None:
    kernel.ok("sp_x = np.arange(6.0)")
    ex = kernel.ok(
        f"%%gpuoptimize --budget {BUDGET}\n"
        "sp_y = sp_x * 2\n"
        "sp_y.sum()\n"
        "# %% gpu\n"
        "sp_y = np.multiply(sp_x, 2.0)\n"
        "sp_y.sum()"
    )
    r = magic_result(ex)
    assert r["match"]["status"] == "equal"
    assert ex.result is not None and ex.result["text/plain"] == "np.float64(30.0)"
    assert "sp_y" in names(kernel)
    assert "gpuoptimize A/B" in [d for d in ex.displays if AB_MIME in d][0]["text/plain"]


def test_apply_binds_the_candidate(kernel: Kernel) -> None:
    kernel.ok(
        f"%%gpuoptimize --budget {BUDGET} --apply --atol 0.5\nap_v = 1.0\n# %% gpu\nap_v = 1.25"
    )
    assert kernel.ok("print(json.dumps(ap_v))").json() == 1.25
    kernel.ok(f"%%gpuoptimize --budget {BUDGET} --atol 0.5\nap_v = 1.0\n# %% gpu\nap_v = 1.25")
    assert kernel.ok("print(json.dumps(ap_v))").json() == 1.0


def test_json_flag_prints_the_result(kernel: Kernel) -> None:
    ex = kernel.ok(f"%%gpuoptimize --budget {BUDGET} --json\njs = 1\n# %% gpu\njs = 1")
    assert not [d for d in ex.displays if AB_MIME in d]
    r = check_ab_result(json.loads(ex.stdout))
    assert r["match"]["status"] == "equal"


def test_registered_candidate_by_cell_id(kernel: Kernel) -> None:
    comm = kernel.comm_open()
    (ok,) = kernel.comm_request(
        comm,
        {
            "v": 1,
            "id": "reg",
            "type": "register_candidate",
            "cell_id": "cell-42",
            "baseline": "%%gpuoptimize\nrg = sorted([3, 1, 2])",
            "candidate": "rg = [1, 2, 3]",
        },
    )
    assert ok["type"] == "ok"
    # JupyterLab sends the cell id in the execute request's metadata.
    ex = kernel.ok(
        f"%%gpuoptimize --budget {BUDGET}\nrg = sorted([3, 1, 2])",
        metadata={"cellId": "cell-42"},
    )
    r = magic_result(ex)
    assert r["match"]["status"] == "equal" and r["stale"] is False
    # The same text in another cell (or a frontend without cell ids): found by its hash.
    ex = kernel.ok(f"%%gpuoptimize --budget {BUDGET}\nrg = sorted([3, 1, 2])")
    assert magic_result(ex)["match"]["status"] == "equal"
    # The cell was edited after the candidate was made for it: the result says so.
    ex = kernel.ok(
        f"%%gpuoptimize --budget {BUDGET}\nrg = sorted([3, 1, 2, 0])",
        metadata={"cellId": "cell-42"},
    )
    r = magic_result(ex)
    assert r["stale"] is True and r["verdict"] == "stale"


def test_no_candidate_says_how_to_get_one(kernel: Kernel) -> None:
    ex = kernel.ok("%%gpuoptimize\nnc_v = 123")
    assert "no GPU candidate" in ex.stdout
    assert "# %% gpu" in ex.stdout and "GPU Optimizer panel" in ex.stdout
    assert "nc_v" not in names(kernel)


def test_refused_cell_is_not_run(kernel: Kernel) -> None:
    ex = kernel.ok(
        f"%%gpuoptimize --budget {BUDGET}\n"
        "for i in range(3):\n    print('loop', i)\nrf_v = 1\n# %% gpu\nrf_v = 1"
    )
    r = magic_result(ex)
    assert r["verdict"] == "refused"
    assert "--allow-side-effects" in r["reason"]
    assert "loop" not in ex.stdout
    assert "rf_v" not in names(kernel)

    ex = kernel.ok(
        f"%%gpuoptimize --budget {BUDGET} --allow-side-effects\n"
        "for i in range(3):\n    print('loop', i)\nrf_v = 1\n# %% gpu\nrf_v = 1"
    )
    assert magic_result(ex)["baseline"]["status"] == "ok"
    assert ex.stdout.count("loop") == 3  # the bound side's output, once
    assert "rf_v" in names(kernel)


def test_line_magic_doctor(kernel: Kernel) -> None:
    ex = kernel.ok("%gpuoptimize doctor")
    assert "Libraries:" in ex.stdout and "numba" in ex.stdout
    assert "Problems:" in ex.stdout
    ex = kernel.ok("%gpuoptimize doctor --json")
    env = json.loads(ex.stdout)
    assert {"gpus", "libraries", "problems", "python"} <= set(env)


def test_line_magic_usage(kernel: Kernel) -> None:
    ex = kernel.ok("%gpuoptimize")
    assert "usage" in ex.stdout


def test_magic_cell_has_its_normal_effect(kernel: Kernel) -> None:
    """Functions the cell defines see the notebook's globals; in-place changes reach the
    user's own object (the chosen side runs once for real after the A/B)."""
    kernel.ok("ne_scale = 2\nne_list = [3, 1, 2]\nne_id = id(ne_list)")
    kernel.ok(
        f"%%gpuoptimize --budget {BUDGET}\n"
        "def ne_f(v):\n    return v * ne_scale\n"
        "ne_list.sort()\n"
        "# %% gpu\n"
        "def ne_f(v):\n    return ne_scale * v\n"
        "ne_list.sort()"
    )
    kernel.ok("ne_scale = 10")
    got = kernel.ok("print(json.dumps([ne_f(3), ne_list, id(ne_list) == ne_id]))").json()
    assert got == [30, [1, 2, 3], True]
