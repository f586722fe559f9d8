"""TEST DOUBLE: cupy.random is numpy.random (different streams, as on a real GPU)."""

import numpy as _np


def _device(x):
    return x.view(__import__("cupy").ndarray) if isinstance(x, _np.ndarray) else x


class Generator:
    def __init__(self, seed=None):
        self._rng = _np.random.default_rng(seed)

    def __getattr__(self, name):
        f = getattr(self._rng, name)
        return lambda *a, **k: _device(f(*a, **k))


def default_rng(seed=None):
    return Generator(seed)


def __getattr__(name):
    f = getattr(_np.random, name)
    if isinstance(f, type) or not callable(f):
        return f
    return lambda *a, **k: _device(f(*a, **k))


def _with_dtype(name):
    """CuPy's legacy draws take `dtype=` (float32/float64); NumPy's do not: draw, then cast."""
    f = getattr(_np.random, name)

    def draw(size=None, dtype=float):
        return _device(_np.asarray(f(size)).astype(dtype, copy=False))

    draw.__name__ = name
    return draw


random = random_sample = _with_dtype("random_sample")
standard_normal = _with_dtype("standard_normal")
