"""NumPy-backed stand-in for CuPy (bench logic tests only; see ../README.md)."""
import time as _time
import types as _types

import numpy as _np

__version__ = "0.0-fake"
FAKE = True
ndarray = _np.ndarray


def asarray(a, dtype=None):
    return _np.asarray(a, dtype=dtype)


def asnumpy(a):
    return _np.asarray(a)


def fuse(*args, **kwargs):
    if args and callable(args[0]):
        return args[0]
    return lambda f: f


class ElementwiseKernel:
    def __init__(self, *a, **k):
        raise NotImplementedError("fake cupy has no ElementwiseKernel")


def get_default_memory_pool():
    return _Pool()


def get_default_pinned_memory_pool():
    return _Pool()


class _Pool:
    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0

    def free_all_blocks(self):
        pass


class _Event:
    def __init__(self, *a, **k):
        self.t = None

    def record(self, stream=None):
        self.t = _time.perf_counter()

    def synchronize(self):
        pass


class _Stream:
    def __init__(self, *a, **k):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *e):
        return False

    def synchronize(self):
        pass


class _Runtime:
    @staticmethod
    def getDeviceCount():
        return 1

    @staticmethod
    def deviceSynchronize():
        pass

    @staticmethod
    def runtimeGetVersion():
        return 13000

    @staticmethod
    def driverGetVersion():
        return 13000

    @staticmethod
    def getDevice():
        return 0

    @staticmethod
    def getDeviceProperties(i):
        return {"name": b"FAKE (numpy)", "totalGlobalMem": 1 << 30, "major": 0, "minor": 0}


class _MemoryHook:
    name = "fake"

    def __enter__(self):
        return self

    def __exit__(self, *e):
        return False


cuda = _types.SimpleNamespace(
    Event=_Event,
    Stream=_Stream,
    runtime=_Runtime,
    get_elapsed_time=lambda a, b: (b.t - a.t) * 1e3,
    memory_hook=_types.SimpleNamespace(MemoryHook=_MemoryHook),
    Device=lambda *a: _types.SimpleNamespace(synchronize=lambda: None),
)
import sys as _sys  # noqa: E402

_sys.modules["cupy.cuda"] = cuda  # type: ignore[assignment]
_sys.modules["cupy.cuda.memory_hook"] = cuda.memory_hook  # type: ignore[assignment]
fft = _np.fft
random = _np.random
linalg = _np.linalg


def __getattr__(name):
    return getattr(_np, name)
