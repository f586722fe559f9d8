"""TEST DOUBLE: cupyx.scipy.fft is scipy.fft."""

from scipy.fft import *  # noqa: F401,F403
