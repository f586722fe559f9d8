"""TEST DOUBLE: cupyx.scipy.linalg is scipy.linalg."""

from scipy.linalg import *  # noqa: F401,F403
