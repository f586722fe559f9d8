"""TEST DOUBLE: cupyx.scipy.signal is scipy.signal."""

from scipy.signal import *  # noqa: F401,F403
