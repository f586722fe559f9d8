# Five-point Laplacian written with slices on a 8192 x 8192 float32 grid.
# %% setup
import numpy as np

rng = np.random.default_rng(5)
u = rng.random((8192, 8192), dtype=np.float32)
# %% cell
lap = np.zeros_like(u)
lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
