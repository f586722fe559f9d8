"""TEST DOUBLE: cupyx.scipy.spatial is scipy.spatial."""

from scipy.spatial import *  # noqa: F401,F403
