# Sorting 50M float32 keys.
# %% setup
import numpy as np

rng = np.random.default_rng(2)
keys = rng.random(50_000_000, dtype=np.float32)
# %% cell
ordered = np.sort(keys)
