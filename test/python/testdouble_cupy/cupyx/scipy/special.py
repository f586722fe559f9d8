"""TEST DOUBLE: cupyx.scipy.special is scipy.special."""

from scipy.special import *  # noqa: F401,F403
