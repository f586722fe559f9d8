# i_kmeans: k-means clustering with NumPy broadcasting
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cell 14);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # k-means clustering with NumPy broadcasting

# %%
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rng = np.random.default_rng(3)
n, d, k = 200_000, 8, 12
tol = 1e-4
max_iter = 50

# %%
true_c = rng.uniform(-10, 10, size=(k, d))
labels_true = rng.integers(0, k, size=n)
X = (true_c[labels_true] + rng.standard_normal((n, d))).astype(np.float32)
print(X.shape, X.dtype, f"{X.mean():.4f}")

# %%
idx = rng.choice(n, size=k, replace=False)
C = X[idx].copy()
C.shape

# %% [markdown]
# Lloyd iterations: assign by argmin over broadcast distances, update with np.add.at

# %%
it = 0
shift = np.inf
history = []
while shift > tol and it < max_iter:
    d2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    lab = np.argmin(d2, axis=1)
    sums = np.zeros_like(C)
    np.add.at(sums, lab, X)
    counts = np.bincount(lab, minlength=k)
    C_new = sums / np.maximum(counts, 1)[:, None]
    shift = np.sqrt(((C_new - C) ** 2).sum(axis=1)).max()
    C = C_new
    history.append(float(d2[np.arange(n), lab].sum()))
    it += 1
print(f"{it} iterations, final shift {shift:.2e}, inertia {history[-1]:.1f}")

# %%
C.dtype, counts.min(), counts.max()

# %% [markdown]
# Same assignment with the ||x||^2 - 2 x.c + ||c||^2 expansion

# %%
x2 = (X ** 2).sum(axis=1, keepdims=True)
c2 = (C ** 2).sum(axis=1)
D = x2 - 2.0 * X @ C.T + c2
lab2 = D.argmin(axis=1)
agree = (lab2 == lab).mean()
print(f"assignments agree: {agree:.5f}")

# %%
per_cluster = np.bincount(lab, weights=np.sqrt(D[np.arange(n), lab].clip(0)), minlength=k) / counts
spread = pd.Series(per_cluster, name="mean_dist")
spread.describe()

# %%
ct = pd.crosstab(labels_true, lab)
purity = ct.max(axis=1).sum() / n
print(f"purity {purity:.4f}")

# %% [markdown]
# Nearest-centroid classification of new points

# %%
n_test = 50_000
t_lab = rng.integers(0, k, size=n_test)
X_test = (true_c[t_lab] + 1.5 * rng.standard_normal((n_test, d))).astype(np.float32)
dist = np.linalg.norm(X_test[:, None, :] - C[None, :, :], axis=2)
pred = dist.argmin(axis=1)
margin = np.sort(dist, axis=1)[:, 1] - dist.min(axis=1)
print(f"low-margin points: {(margin < 0.5).sum()} of {n_test}")

# %%
med = np.median(margin)
q = np.quantile(margin, [0.1, 0.9])
med, q

# %%
fig, ax = plt.subplots(1, 2, figsize=(10, 4))
ax[0].scatter(X[:5000, 0], X[:5000, 1], c=lab[:5000], s=2)
ax[0].scatter(C[:, 0], C[:, 1], c="k", marker="x")
ax[1].plot(history)
fig.savefig("s8h2_km.png")
plt.close(fig)
