"""The frontend protocol through a real comm: comm_open to target `gpuoptimize`, then
comm_msg requests from a jupyter_client, replies read from iopub."""

from __future__ import annotations

import pytest
from conftest import BUDGET, Kernel
from protocol_check import check_response


@pytest.fixture(scope="module")
def comm(kernel: Kernel) -> str:
    return kernel.comm_open("gpuoptimize")


def request(kernel: Kernel, comm: str, data: object) -> list[dict]:
    replies = kernel.comm_request(comm, data)
    assert replies, "no reply on the comm"
    return [check_response(r) for r in replies]


def one(kernel: Kernel, comm: str, data: object) -> dict:
    (reply,) = request(kernel, comm, data)
    return reply


def test_hello(kernel: Kernel, comm: str) -> None:
    r = one(kernel, comm, {"v": 1, "id": "h1", "type": "hello", "client_version": "0.1.0"})
    assert r["type"] == "hello_reply" and r["id"] == "h1"
    assert r["protocol"] == 1
    assert r["shim_version"] == "0.1.0"
    names = {lib["name"] for lib in r["environment"]["libraries"]}
    assert {"cupy", "numba.cuda", "cudf", "warp"} <= names


def test_inspect(kernel: Kernel, comm: str) -> None:
    kernel.ok(
        "import pandas as pd\n"
        "in_arr = np.zeros((3, 4), dtype=np.float32)\n"
        "in_df = pd.DataFrame({'a': [1, 2], 'b': [0.5, 1.5]})\n"
        "in_list = [1, 2, 3]"
    )
    r = one(
        kernel,
        comm,
        {"v": 1, "id": "i1", "type": "inspect", "names": ["in_arr", "in_df", "in_list", "nope"]},
    )
    v = r["values"]
    assert v["in_arr"] == {
        "type": "numpy.ndarray",
        "shape": [3, 4],
        "dtype": "float32",
        "bytes": 48,
        "device": "host",
    }
    assert v["in_df"]["type"] == "pandas.DataFrame"
    assert v["in_df"]["shape"] == [2, 2] and v["in_df"]["device"] == "host"
    assert v["in_df"]["bytes"] > 0
    assert v["in_list"]["shape"] == [3]
    assert v["nope"] is None


def test_run_ab_with_progress(kernel: Kernel, comm: str) -> None:
    kernel.ok("pr_x = np.arange(1000.0)")
    replies = request(
        kernel,
        comm,
        {
            "v": 1,
            "id": "r1",
            "type": "run_ab",
            "baseline": "pr_y = np.cumsum(pr_x)",
            "candidate": "pr_y = np.add.accumulate(pr_x)",
            "budget_s": BUDGET,
        },
    )
    assert all(r["id"] == "r1" for r in replies)
    kinds = [r["type"] for r in replies]
    assert kinds[-1] == "ab_result" and set(kinds[:-1]) == {"progress"}
    phases = [r["phase"] for r in replies[:-1]]
    assert phases.index("baseline") < phases.index("candidate") < phases.index("compare")
    result = replies[-1]["result"]
    assert result["match"]["status"] == "equal"
    assert result["verdict"] in ("gpu_faster", "gpu_slower")
    assert kernel.ok("print(json.dumps('pr_y' in dir()))").json() is False


def test_run_ab_candidate_with_the_magic_line_does_not_recurse(kernel: Kernel, comm: str) -> None:
    kernel.ok("mg_x = np.arange(1000.0)")
    replies = request(
        kernel,
        comm,
        {
            "v": 1,
            "id": "r-magic",
            "type": "run_ab",
            "baseline": "%%gpuoptimize\nmg_y = np.cumsum(mg_x)",
            "candidate": "%%gpuoptimize --budget 1\nmg_y = np.add.accumulate(mg_x)",
            "budget_s": BUDGET,
        },
    )
    result = replies[-1]["result"]
    # one A/B result, measured on the code itself (a nested magic would print its own
    # result cards and leave no output to compare)
    assert [r["type"] for r in replies].count("ab_result") == 1
    assert result["candidate"]["status"] == "ok"
    assert result["match"]["status"] == "equal"
    assert not result["stale"]


def test_run_ab_refuses_side_effects_and_accepts_consent(kernel: Kernel, comm: str) -> None:
    msg = {
        "v": 1,
        "id": "r2",
        "type": "run_ab",
        "baseline": "for i in range(2):\n    print(i)",
        "candidate": "print(0)\nprint(1)",
        "budget_s": BUDGET,
    }
    r = request(kernel, comm, msg)[-1]
    assert r["result"]["verdict"] == "refused"
    r = request(kernel, comm, {**msg, "allow_side_effects": True})[-1]
    assert r["result"]["baseline"]["status"] == "ok"


def test_run_ab_accepts_ipython_syntax(kernel: Kernel, comm: str) -> None:
    r = request(
        kernel,
        comm,
        {
            "v": 1,
            "id": "r3",
            "type": "run_ab",
            "baseline": "%%gpuoptimize --budget 1\nip_v = %time 2 + 2",
            "candidate": "ip_v = 4",
            "budget_s": BUDGET,
            "allow_side_effects": True,
        },
    )[-1]
    assert r["result"]["baseline"]["status"] == "ok", r["result"]["baseline"]["error"]
    assert r["result"]["match"]["status"] == "equal"


def test_register_candidate_then_stale_run(kernel: Kernel, comm: str) -> None:
    r = one(
        kernel,
        comm,
        {
            "v": 1,
            "id": "g1",
            "type": "register_candidate",
            "cell_id": "cell-stale",
            "baseline": "sr = 2",
            "candidate": "sr = 1 + 1",
            "rule": "GPU101",
        },
    )
    assert r == {"v": 1, "id": "g1", "type": "ok"}
    # The frontend runs a request made from older text of that cell: the kernel knows the
    # cell has since been registered with other text, so the result is stale.
    r = request(
        kernel,
        comm,
        {
            "v": 1,
            "id": "g2",
            "type": "run_ab",
            "cell_id": "cell-stale",
            "baseline": "sr = 3",
            "candidate": "sr = 1 + 2",
            "budget_s": BUDGET,
        },
    )[-1]
    assert r["result"]["stale"] is True and r["result"]["verdict"] == "stale"
    r = request(
        kernel,
        comm,
        {
            "v": 1,
            "id": "g3",
            "type": "run_ab",
            "cell_id": "cell-stale",
            "baseline": "sr = 2",
            "candidate": "sr = 1 + 1",
            "budget_s": BUDGET,
        },
    )[-1]
    assert r["result"]["stale"] is False


def test_doctor(kernel: Kernel, comm: str) -> None:
    r = one(kernel, comm, {"v": 1, "id": "d1", "type": "doctor", "calibrate": True})
    env = r["environment"]
    assert env["calibration"]["host_bandwidth"] > 0
    assert env["python"].count(".") == 2


@pytest.mark.parametrize(
    "data, code",
    [
        ([1, 2], "bad_message"),
        ("hello", "bad_message"),
        ({"id": "x", "type": "hello", "client_version": "1"}, "bad_version"),
        ({"v": 2, "id": "x", "type": "hello", "client_version": "1"}, "bad_version"),
        ({"v": True, "id": "x", "type": "hello", "client_version": "1"}, "bad_version"),
        ({"v": 1, "type": "hello", "client_version": "1"}, "bad_message"),
        ({"v": 1, "id": 7, "type": "hello", "client_version": "1"}, "bad_message"),
        ({"v": 1, "id": "x"}, "bad_message"),
        ({"v": 1, "id": "x", "type": "launch_missiles"}, "unknown_type"),
        ({"v": 1, "id": "x", "type": "hello"}, "bad_field"),
        ({"v": 1, "id": "x", "type": "inspect", "names": "a"}, "bad_field"),
        ({"v": 1, "id": "x", "type": "inspect", "names": [1]}, "bad_field"),
        ({"v": 1, "id": "x", "type": "register_candidate", "cell_id": "c"}, "bad_field"),
        ({"v": 1, "id": "x", "type": "run_ab", "baseline": "a=1"}, "bad_field"),
        (
            {
                "v": 1,
                "id": "x",
                "type": "run_ab",
                "baseline": "a=1",
                "candidate": "a=1",
                "budget_s": "3",
            },
            "bad_field",
        ),
        (
            {
                "v": 1,
                "id": "x",
                "type": "run_ab",
                "baseline": "a=1",
                "candidate": "a=1",
                "budget_s": -1,
            },
            "bad_field",
        ),
        (
            {
                "v": 1,
                "id": "x",
                "type": "run_ab",
                "baseline": "a=1",
                "candidate": "a=1",
                "allow_side_effects": "yes",
            },
            "bad_field",
        ),
        ({"v": 1, "id": "x", "type": "doctor", "calibrate": 1}, "bad_field"),
    ],
)
def test_bad_messages_get_error_replies(kernel: Kernel, comm: str, data: object, code: str) -> None:
    r = one(kernel, comm, data)
    assert r["type"] == "error"
    assert r["code"] == code, r["message"]
    assert r["message"]
    expected_id = data.get("id") if isinstance(data, dict) else None
    assert r["id"] == (expected_id if isinstance(expected_id, str) else "")


def test_kernel_keeps_working_after_bad_messages(kernel: Kernel, comm: str) -> None:
    one(kernel, comm, None)
    r = one(kernel, comm, {"v": 1, "id": "ok", "type": "inspect", "names": []})
    assert r["type"] == "inspect_reply" and r["values"] == {}
