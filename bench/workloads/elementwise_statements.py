# Elementwise work over three statements on 50M float32, the intermediates r and g read by
# nothing after the cell (memory-bound: fusing across statements, the intermediates kept in
# registers, decides the speed).
# %% setup
import numpy as np

rng = np.random.default_rng(2)
x = rng.random(50_000_000, dtype=np.float32)
z = rng.random(50_000_000, dtype=np.float32)
# %% cell
r = np.sqrt(x * x + z * z)
g = np.exp(-r) * np.float32(0.5)
out = g * x + r * z
