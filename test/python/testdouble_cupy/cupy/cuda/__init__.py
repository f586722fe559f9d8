"""TEST DOUBLE: cupy.cuda with no device work to wait for.

"Device" times are host clock readings (events) and mean nothing about a GPU; the runtime
reports one device so that callers exercise their device code paths (the bench's
BENCH_FAKE_CUPY=1 logic run, the harness's event timer and peak-memory hook).
"""

from __future__ import annotations

import time as _time

from . import memory_hook, runtime  # noqa: F401


class _NothingToWaitFor:
    """A context (device, stream) whose work is always done."""

    def synchronize(self):
        return None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Device(_NothingToWaitFor):
    def __init__(self, index=0):
        self.id = index


class Stream(_NothingToWaitFor):
    def __init__(self, null=False, non_blocking=False, ptds=False):  # noqa: ARG002
        self.non_blocking = non_blocking


def get_current_stream():
    return Stream()


class Event:
    """Records the host clock: `get_elapsed_time` gives host milliseconds, like CuPy's."""

    def __init__(self, block=False, disable_timing=False, interprocess=False):  # noqa: ARG002
        self.t: float | None = None

    def record(self, stream=None):  # noqa: ARG002
        self.t = _time.perf_counter()

    def synchronize(self):
        return None


def get_elapsed_time(start_event, end_event):
    return (end_event.t - start_event.t) * 1e3
