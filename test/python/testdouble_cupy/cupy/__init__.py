"""TEST DOUBLE of CuPy for CPU-only CI: NumPy underneath. Not CuPy. See ../README.md."""

from __future__ import annotations

import numpy as _np

from . import cuda, fft, linalg, random  # noqa: F401

IS_TEST_DOUBLE = True
__version__ = "0.0.0+testdouble"


class ndarray(_np.ndarray):  # noqa: N801  (CuPy's name)
    """A NumPy array that answers `.get()` like a CuPy device array."""

    def get(self, stream=None, order="C", out=None):  # noqa: ARG002
        return _np.array(self, order=order)


def _device(x):
    if isinstance(x, _np.ndarray):
        return x.view(ndarray)
    return x


def asarray(a, dtype=None, order=None):
    return _device(_np.array(a, dtype=dtype, order=order, copy=True))


array = asarray


def asnumpy(a, stream=None, order="C", out=None):  # noqa: ARG001
    return _np.array(a, order=order)


def get_array_module(*args):  # noqa: ARG001
    import cupy

    return cupy


def fuse(*dargs, **dkwargs):  # noqa: ARG001
    """`@cp.fuse()` or `@cp.fuse`: the double runs the Python function as is."""

    def wrap(f):
        def fused(*args, **kwargs):
            return _device(_np.asarray(f(*args, **kwargs)))

        fused.__wrapped__ = f
        return fused

    if len(dargs) == 1 and callable(dargs[0]) and not dkwargs:
        return wrap(dargs[0])
    return wrap


class _Pool:
    def free_all_blocks(self):
        return None

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0


_pool = _Pool()


def get_default_memory_pool():
    return _pool


def get_default_pinned_memory_pool():
    return _pool


def _wrap(f):
    def on_device(*args, **kwargs):
        return _device(f(*args, **kwargs))

    on_device.__name__ = getattr(f, "__name__", "function")
    on_device.__wrapped__ = f
    return on_device


def __getattr__(name):
    """Everything else is NumPy's, with array results returned as double device arrays."""
    attr = getattr(_np, name)
    if isinstance(attr, type):  # dtypes and classes stay as they are (dtype=cp.float32)
        return attr
    if callable(attr):
        return _wrap(attr)
    return attr
