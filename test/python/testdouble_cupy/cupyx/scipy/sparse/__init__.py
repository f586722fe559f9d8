"""TEST DOUBLE: cupyx.scipy.sparse is scipy.sparse."""

from scipy.sparse import *  # noqa: F401,F403

from . import linalg  # noqa: F401
