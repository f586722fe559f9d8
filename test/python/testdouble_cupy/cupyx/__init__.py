"""TEST DOUBLE of cupyx for CPU-only CI: SciPy underneath. Not cupyx."""

from . import scipy  # noqa: F401

IS_TEST_DOUBLE = True
