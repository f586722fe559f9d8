"""TEST DOUBLE: cupyx.scipy.interpolate is scipy.interpolate."""

from scipy.interpolate import *  # noqa: F401,F403
