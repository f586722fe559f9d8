# Row statistics of a 20000 x 5000 float64 matrix.
# %% setup
import numpy as np

rng = np.random.default_rng(1)
a = rng.standard_normal((20_000, 5_000))
# %% cell
row_mean = a.mean(axis=1)
row_std = a.std(axis=1)
total = a.sum()
