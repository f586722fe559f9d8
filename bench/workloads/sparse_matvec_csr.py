# Sparse matrix-vector product: 2M x 2M CSR with 20M non-zeros (10 per row), built directly.
# (sparse_matvec.py's sp.random(..., random_state=7) takes SciPy's legacy RandomState path,
# which permutes all 4e12 positions: MemoryError at full size. This setup is the same cell
# with a matrix that can be built.)
# %% setup
import numpy as np
import scipy.sparse as sp

rng = np.random.default_rng(7)
n_rows = 2_000_000
per_row = 10
indices = np.sort(rng.integers(0, n_rows, size=(n_rows, per_row)), axis=1).ravel().astype(np.int32)
indptr = np.arange(0, n_rows * per_row + 1, per_row, dtype=np.int64)
M = sp.csr_matrix((rng.random(n_rows * per_row), indices, indptr), shape=(n_rows, n_rows))
v = rng.random(n_rows)
# %% cell
w = M @ v
