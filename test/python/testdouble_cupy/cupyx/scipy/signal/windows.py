"""TEST DOUBLE: cupyx.scipy.signal.windows is scipy.signal.windows."""

from scipy.signal.windows import *  # noqa: F401,F403
