"""TEST DOUBLE: cupyx.scipy is scipy."""
