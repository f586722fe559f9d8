"""TEST DOUBLE: cupy.fft is numpy.fft returning double arrays."""

import numpy as _np


def __getattr__(name):
    f = getattr(_np.fft, name)

    def wrapped(*args, **kwargs):
        return _np.asarray(f(*args, **kwargs)).view(__import__("cupy").ndarray)

    return wrapped
