"""TEST DOUBLE: cupy.linalg is numpy.linalg."""

from numpy.linalg import *  # noqa: F401,F403
