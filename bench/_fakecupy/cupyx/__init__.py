"""Stand-in for cupyx (bench logic tests only)."""
