"""TEST DOUBLE: cupy.linalg is numpy.linalg returning double arrays (a norm or a determinant as a
0-d array, as CuPy returns them)."""

import numpy as _np


def __getattr__(name):
    attr = getattr(_np.linalg, name)
    if isinstance(attr, type) or not callable(attr):  # LinAlgError
        return attr
    return __import__("cupy")._wrap(attr)
