# Dense float32 matrix product, 8192 x 8192.
# %% setup
import numpy as np

rng = np.random.default_rng(4)
A = rng.random((8192, 8192), dtype=np.float32)
B = rng.random((8192, 8192), dtype=np.float32)
# %% cell
C = A @ B
