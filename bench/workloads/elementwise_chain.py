# Elementwise chain on 100M float32 (memory-bound: fusion decides the speed).
# %% setup
import numpy as np

rng = np.random.default_rng(0)
x = rng.random(100_000_000, dtype=np.float32)
z = rng.random(100_000_000, dtype=np.float32)
# %% cell
y = np.sqrt(x * x + z * z) * np.exp(-x)
