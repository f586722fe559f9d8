# Monte Carlo estimate of pi from 200M points (random streams: compared by statistics).
# %% setup
import numpy as np
# %% cell
rng = np.random.default_rng(8)
px = rng.random(200_000_000)
py = rng.random(200_000_000)
pi_estimate = 4.0 * np.count_nonzero(px * px + py * py <= 1.0) / 200_000_000
