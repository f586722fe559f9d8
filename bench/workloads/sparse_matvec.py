# Sparse matrix-vector products: 2M x 2M CSR with ~20M non-zeros.
# %% setup
import numpy as np
import scipy.sparse as sp

M = sp.random(2_000_000, 2_000_000, density=5e-6, format="csr", dtype=np.float64, random_state=7)
v = np.random.default_rng(7).random(2_000_000)
# %% cell
w = M @ v
