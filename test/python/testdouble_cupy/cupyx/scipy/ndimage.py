"""TEST DOUBLE: cupyx.scipy.ndimage is scipy.ndimage."""

from scipy.ndimage import *  # noqa: F401,F403
