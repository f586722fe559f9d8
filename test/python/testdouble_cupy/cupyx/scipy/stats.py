"""TEST DOUBLE: cupyx.scipy.stats is scipy.stats."""

from scipy.stats import *  # noqa: F401,F403
