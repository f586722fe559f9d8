"""Fixtures: a real ipykernel (started with jupyter_client) that has gpuoptimize on its path.

The kernel runs this interpreter (the .venv's python) with PYTHONPATH=python_shim, so the
package is tested from the source tree, and NUMBA_ENABLE_CUDASIM=1, so Numba CUDA
candidates run on Numba's CUDA simulator where there is no GPU.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import os
import sys
import tempfile
import time
import types
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIM = ROOT / "python_shim"
if str(SHIM) not in sys.path:
    sys.path.insert(0, str(SHIM))  # the unit tests import gpuoptimize from the tree

#: Budget per side in tests: long enough for several runs, short enough for a fast suite.
BUDGET = 0.2

#: The rules' fixtures (test/fixtures/rules): each rule's cases and the GPU fixture checker.
RULES = ROOT / "test" / "fixtures" / "rules"


@functools.cache
def fixture_checker() -> types.ModuleType:
    """The GPU fixture checker (test/fixtures/rules/verify_on_gpu.py), loaded by its path: it
    is a script the GPU batch runs, not a module of a package. Cached: the test files that
    check its rules on the CPU share one module."""
    spec = importlib.util.spec_from_file_location("verify_on_gpu", RULES / "verify_on_gpu.py")
    assert spec is not None and spec.loader is not None
    checker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checker)
    return checker


@dataclass
class Execution:
    """What one execute_request produced."""

    status: str
    stdout: str = ""
    stderr: str = ""
    displays: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    reply: dict[str, Any] | None = None

    def pager_text(self) -> str:
        """Text IPython sent to the pager (`obj?` help) in the execute_reply's payload."""
        payload = (self.reply or {}).get("payload", [])
        return "".join(p.get("data", {}).get("text/plain", "") for p in payload)

    def json(self) -> Any:
        """The last line of stdout, parsed as JSON."""
        lines = [ln for ln in self.stdout.strip().splitlines() if ln.strip()]
        assert lines, f"no output; stderr={self.stderr!r} error={self.error!r}"
        return json.loads(lines[-1])


class Kernel:
    def __init__(self, km: Any, kc: Any) -> None:
        self.km = km
        self.kc = kc

    def _collect(self, msg_id: str, timeout: float) -> list[dict[str, Any]]:
        out = []
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no idle status for {msg_id} within {timeout} s")
            try:
                msg = self.kc.get_iopub_msg(timeout=remaining)
            except Empty:
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            out.append(msg)
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return out

    def send_execute(self, code: str, metadata: dict[str, Any] | None = None) -> str:
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": False,
        }
        msg = self.kc.session.msg("execute_request", content, metadata=metadata or {})
        self.kc.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    def wait(self, msg_id: str, timeout: float = 120) -> Execution:
        msgs = self._collect(msg_id, timeout)
        ex = Execution(status="ok", messages=msgs)
        for m in msgs:
            t, c = m["msg_type"], m["content"]
            if t == "stream":
                if c["name"] == "stdout":
                    ex.stdout += c["text"]
                else:
                    ex.stderr += c["text"]
            elif t == "display_data":
                ex.displays.append(c["data"])
            elif t == "execute_result":
                ex.result = c["data"]
            elif t == "error":
                ex.status = "error"
                ex.error = {"ename": c["ename"], "evalue": c["evalue"]}
        deadline = time.monotonic() + timeout
        while ex.reply is None and time.monotonic() < deadline:
            with contextlib.suppress(Empty):
                m = self.kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
                if m["parent_header"].get("msg_id") == msg_id:
                    ex.reply = m["content"]
        return ex

    def execute(
        self, code: str, timeout: float = 120, metadata: dict[str, Any] | None = None
    ) -> Execution:
        return self.wait(self.send_execute(code, metadata), timeout)

    def ok(self, code: str, **kw: Any) -> Execution:
        ex = self.execute(code, **kw)
        assert ex.status == "ok", f"{ex.error}\n{ex.stderr}"
        return ex

    # -- comms ---------------------------------------------------------------------------
    def comm_open(self, target: str = "gpuoptimize") -> str:
        comm_id = uuid.uuid4().hex
        msg = self.kc.session.msg(
            "comm_open", {"comm_id": comm_id, "target_name": target, "data": {}}
        )
        self.kc.shell_channel.send(msg)
        self._collect(msg["header"]["msg_id"], 30)
        return comm_id

    def comm_request(self, comm_id: str, data: Any, timeout: float = 120) -> list[dict]:
        """Send one comm_msg; return the data of every comm_msg the kernel sent back."""
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.kc.shell_channel.send(msg)
        msgs = self._collect(msg["header"]["msg_id"], timeout)
        return [
            m["content"]["data"]
            for m in msgs
            if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == comm_id
        ]


@contextlib.contextmanager
def running_kernel(extra_path: tuple[Path, ...] = ()) -> Any:
    """A real ipykernel of this interpreter with gpuoptimize (and `extra_path`) importable."""
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as spec_root:
        spec_dir = Path(spec_root) / "gpuoptimize-test"
        spec_dir.mkdir()
        (spec_dir / "kernel.json").write_text(
            json.dumps(
                {
                    "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    "display_name": "gpuoptimize test",
                    "language": "python",
                }
            )
        )
        ksm = KernelSpecManager(kernel_dirs=[spec_root])
        km = KernelManager(kernel_name="gpuoptimize-test", kernel_spec_manager=ksm)
        env = dict(os.environ)
        paths = [str(SHIM), *map(str, extra_path), env.get("PYTHONPATH")]
        env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
        env["NUMBA_ENABLE_CUDASIM"] = "1"
        env.pop("JPY_PARENT_PID", None)
        km.start_kernel(env=env)
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        try:
            yield Kernel(km, kc)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)


@pytest.fixture(scope="session")
def kernel() -> Any:
    with running_kernel() as k:
        k.ok("%load_ext gpuoptimize\nimport json, numpy as np")
        yield k


@pytest.fixture
def cp(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """The CuPy TEST DOUBLE (NumPy underneath, test/python/testdouble_cupy), on sys.path for
    this test only (a module defining its own `cp` fixture overrides this one)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent / "testdouble_cupy"))
    for mod in [m for m in sys.modules if m == "cupy" or m.startswith("cupy.")]:
        monkeypatch.delitem(sys.modules, mod)
    import cupy

    assert cupy.IS_TEST_DOUBLE
    yield cupy
    for mod in [m for m in sys.modules if m == "cupy" or m.startswith("cupy.")]:
        del sys.modules[mod]
