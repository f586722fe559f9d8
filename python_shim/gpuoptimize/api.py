"""The JSON protocol the JupyterLab extension speaks (src/kernel/protocol.ts, version 1).

`handle_message(msg, namespace, send)` is the whole protocol as a pure function of a
message: it validates, dispatches and calls `send(reply)` (several times for a run: progress
events, then the result). It never raises: a bad message gets an `error` reply with a code.
`register_comm_target(ip)` wires it to a Jupyter comm with target `gpuoptimize`.
"""

from __future__ import annotations

import math
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import __version__, device, harness
from .compare import is_device_value

PROTOCOL_VERSION = 1
COMM_TARGET = "gpuoptimize"
AB_MIME = "application/vnd.gpuoptimize.ab+json"

#: Error codes of `error` replies.
BAD_MESSAGE = "bad_message"  # not an object, or no string id/type
BAD_VERSION = "bad_version"  # v is not PROTOCOL_VERSION
UNKNOWN_TYPE = "unknown_type"
BAD_FIELD = "bad_field"  # a field is missing or has the wrong type
INTERNAL = "internal"  # the handler failed: a bug, reported instead of raised

Send = Callable[[dict[str, Any]], None]

_MAGIC_LINE = re.compile(r"^\s*%%gpuoptimize\b[^\n]*\n?")


def normalize_source(src: str) -> str:
    """Cell text as registered and looked up: a leading %%gpuoptimize line removed."""
    return _MAGIC_LINE.sub("", src, count=1).strip()


# ---------------------------------------------------------------------------------------
# Candidates registered by the frontend


@dataclass
class Registration:
    cell_id: str
    baseline: str
    candidate: str
    rule: str | None

    @property
    def baseline_hash(self) -> str:
        return harness.source_hash(normalize_source(self.baseline))


class CandidateRegistry:
    """Candidates by cell id and by the hash of the baseline text they were made for."""

    def __init__(self) -> None:
        self.by_cell: dict[str, Registration] = {}
        self.by_hash: dict[str, Registration] = {}

    def register(self, reg: Registration) -> None:
        self.by_cell[reg.cell_id] = reg
        self.by_hash[reg.baseline_hash] = reg

    def lookup(self, cell_id: str | None, source: str) -> Registration | None:
        """The candidate for this cell: by cell id first, else by the text's hash."""
        if cell_id and cell_id in self.by_cell:
            return self.by_cell[cell_id]
        return self.by_hash.get(harness.source_hash(normalize_source(source)))


REGISTRY = CandidateRegistry()


# ---------------------------------------------------------------------------------------
# Validation


class _Invalid(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _str(msg: dict[str, Any], key: str, required: bool = True) -> str | None:
    v = msg.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str):
        raise _Invalid(BAD_FIELD, f"{key}: expected a string")
    return v


def _num(msg: dict[str, Any], key: str, lo: float, hi: float) -> float | None:
    v = msg.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise _Invalid(BAD_FIELD, f"{key}: expected a finite number")
    if not lo <= v <= hi:
        raise _Invalid(BAD_FIELD, f"{key}: {v} is outside [{lo:g}, {hi:g}]")
    return float(v)


def _bool(msg: dict[str, Any], key: str) -> bool:
    v = msg.get(key, False)
    if v is None:
        return False
    if not isinstance(v, bool):
        raise _Invalid(BAD_FIELD, f"{key}: expected a boolean")
    return v


# ---------------------------------------------------------------------------------------
# Handlers


def describe_value(v: Any) -> dict[str, Any]:
    """type / shape / dtype / bytes / device of one value, for `inspect`."""
    t = type(v)
    out: dict[str, Any] = {"type": f"{t.__module__}.{t.__qualname__}".removeprefix("builtins.")}
    shape = getattr(v, "shape", None)
    if isinstance(shape, tuple) and all(isinstance(s, int) for s in shape):
        out["shape"] = [int(s) for s in shape]
    elif isinstance(v, list | tuple | dict | set | str | bytes):
        out["shape"] = [len(v)]
    dtype = getattr(v, "dtype", None)
    if dtype is not None and not callable(dtype):
        out["dtype"] = str(dtype)
    elif hasattr(v, "dtypes") and hasattr(v.dtypes, "astype"):
        kinds = sorted({str(d) for d in v.dtypes})
        out["dtype"] = ",".join(kinds[:8])
    nbytes = getattr(v, "nbytes", None)
    if isinstance(nbytes, int):
        out["bytes"] = nbytes
    elif hasattr(v, "memory_usage") and callable(v.memory_usage):
        try:
            usage = v.memory_usage(index=True, deep=False)
            out["bytes"] = int(usage.sum() if hasattr(usage, "sum") else usage)
        except Exception:
            pass
    elif isinstance(v, bytes | bytearray):
        out["bytes"] = len(v)
    if is_device_value(v):
        out["device"] = "gpu"
    elif "shape" in out or "bytes" in out:
        out["device"] = "host"
    return out


def _hello(msg: dict[str, Any], namespace: dict[str, Any], reply: Send) -> None:
    _str(msg, "client_version")
    reply(
        {
            "type": "hello_reply",
            "protocol": PROTOCOL_VERSION,
            "shim_version": __version__,
            "environment": device.environment(),
        }
    )


def _inspect(msg: dict[str, Any], namespace: dict[str, Any], reply: Send) -> None:
    names = msg.get("names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _Invalid(BAD_FIELD, "names: expected a list of strings")
    values: dict[str, Any] = {}
    for n in names:
        if n.isidentifier() and n in namespace:
            try:
                values[n] = describe_value(namespace[n])
            except Exception as e:
                values[n] = {"type": f"unknown ({type(e).__name__})"}
        else:
            values[n] = None
    reply({"type": "inspect_reply", "values": values})


def _register(msg: dict[str, Any], namespace: dict[str, Any], reply: Send) -> None:
    reg = Registration(
        cell_id=_str(msg, "cell_id"),  # type: ignore[arg-type]
        baseline=_str(msg, "baseline"),  # type: ignore[arg-type]
        candidate=_str(msg, "candidate"),  # type: ignore[arg-type]
        rule=_str(msg, "rule", required=False),
    )
    REGISTRY.register(reg)
    reply({"type": "ok"})


def transform_cell(src: str) -> str:
    """IPython syntax (magics, !shell) to Python, when IPython is there."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return src
    return TransformerManager().transform_cell(src)


def _run_ab(msg: dict[str, Any], namespace: dict[str, Any], reply: Send) -> None:
    baseline = _str(msg, "baseline")
    candidate = _str(msg, "candidate")
    cell_id = _str(msg, "cell_id", required=False)
    source_hash = _str(msg, "source_hash", required=False)
    budget = _num(msg, "budget_s", 0.0, 3600.0)
    rtol = _num(msg, "rtol", 0.0, 1.0)
    atol = _num(msg, "atol", 0.0, math.inf)
    allow = _bool(msg, "allow_side_effects")
    budget = harness.DEFAULT_BUDGET_S if budget is None else budget
    run_hash = harness.source_hash(normalize_source(baseline))  # type: ignore[arg-type]

    def progress(phase: str, runs: int, elapsed: float, budget_s: float) -> None:
        reply(
            {
                "type": "progress",
                "phase": phase,
                "runs_done": runs,
                "elapsed_s": float(elapsed),
                "budget_s": float(budget_s),
            }
        )

    def is_stale() -> bool:
        # The kernel learns of edits only through registrations: if the latest one for
        # this cell is for other text than this run's (or than source_hash), it is stale.
        reg = REGISTRY.by_cell.get(cell_id) if cell_id else None
        if reg is None:
            return False
        return reg.baseline_hash not in (run_hash, source_hash)

    result = harness.run_ab(
        transform_cell(normalize_source(baseline)),  # type: ignore[arg-type]
        # A candidate made from the cell text may carry the magic line too: running it would
        # start an A/B run inside the A/B run.
        transform_cell(normalize_source(candidate)),  # type: ignore[arg-type]
        namespace,
        budget_s=budget,
        rtol=rtol,
        atol=atol,
        allow_side_effects=allow,
        progress=progress,
        is_stale=is_stale,
    )
    # protocol.ts ABResult; SideStats also carries timer_overhead_s and
    # device_timer_overhead_s (optional there: older kernels do not send them).
    reply({"type": "ab_result", "result": result.to_json()})


def _doctor(msg: dict[str, Any], namespace: dict[str, Any], reply: Send) -> None:
    calibrate = _bool(msg, "calibrate")
    reply({"type": "doctor_reply", "environment": device.environment(calibrate_device=calibrate)})


HANDLERS: dict[str, Callable[[dict[str, Any], dict[str, Any], Send], None]] = {
    "hello": _hello,
    "inspect": _inspect,
    "register_candidate": _register,
    "run_ab": _run_ab,
    "doctor": _doctor,
}


def handle_message(msg: Any, namespace: dict[str, Any], send: Send) -> None:
    """Validate one request and answer it through `send`. Never raises (except
    KeyboardInterrupt outside a run, which is the user's to see)."""
    msg_id = msg.get("id") if isinstance(msg, dict) else None
    msg_id = msg_id if isinstance(msg_id, str) else ""

    def reply(body: dict[str, Any]) -> None:
        send({"v": PROTOCOL_VERSION, "id": msg_id, **body})

    try:
        if not isinstance(msg, dict):
            raise _Invalid(BAD_MESSAGE, "a message must be a JSON object")
        if "v" not in msg:
            raise _Invalid(BAD_VERSION, "no protocol version (v)")
        if msg["v"] != PROTOCOL_VERSION or isinstance(msg["v"], bool):
            raise _Invalid(
                BAD_VERSION,
                f"protocol version {msg['v']!r}; this kernel's gpuoptimize {__version__} "
                f"speaks version {PROTOCOL_VERSION}: install matching versions of "
                "jupyterlab-gpuoptimize in the server and the kernel "
                "(pip install -U jupyterlab-gpuoptimize)",
            )
        if not isinstance(msg.get("id"), str):
            raise _Invalid(BAD_MESSAGE, "id: expected a string")
        kind = msg.get("type")
        if not isinstance(kind, str):
            raise _Invalid(BAD_MESSAGE, "type: expected a string")
        handler = HANDLERS.get(kind)
        if handler is None:
            raise _Invalid(UNKNOWN_TYPE, f"unknown message type {kind!r}")
        handler(msg, namespace, reply)
    except _Invalid as e:
        reply({"type": "error", "code": e.code, "message": str(e)})
    except Exception as e:
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        reply({"type": "error", "code": INTERNAL, "message": tb[:500]})


# ---------------------------------------------------------------------------------------
# Comm wiring


def register_comm_target(ip: Any) -> bool:
    """Register the `gpuoptimize` comm target on IPython `ip`'s kernel. False when the
    shell has no kernel (plain IPython)."""
    manager = None
    kernel = getattr(ip, "kernel", None)
    if kernel is not None:
        manager = getattr(kernel, "comm_manager", None)
    if manager is None:
        try:
            from comm import get_comm_manager

            manager = get_comm_manager()
        except Exception:
            return False
    if manager is None:
        return False

    def on_open(comm: Any, open_msg: dict[str, Any]) -> None:
        def send(body: dict[str, Any]) -> None:
            comm.send(data=body)

        def on_msg(msg: dict[str, Any]) -> None:
            data = msg.get("content", {}).get("data")
            handle_message(data, ip.user_ns, send)

        comm.on_msg(on_msg)
        data = open_msg.get("content", {}).get("data")
        if data:  # a request may ride on the open message
            handle_message(data, ip.user_ns, send)

    manager.register_target(COMM_TARGET, on_open)
    return True
