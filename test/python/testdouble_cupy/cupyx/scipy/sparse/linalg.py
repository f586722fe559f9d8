"""TEST DOUBLE: cupyx.scipy.sparse.linalg is scipy.sparse.linalg."""

from scipy.sparse.linalg import *  # noqa: F401,F403
