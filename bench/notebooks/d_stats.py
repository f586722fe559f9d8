# d_stats: Regression, PCA and bootstrap
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cell 13);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Regression, PCA and bootstrap

# %%
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rng = np.random.default_rng(2024)
n, p = 200_000, 32

# %%
X = rng.standard_normal((n, p))
beta_true = rng.uniform(-2, 2, size=p)
y = X @ beta_true + 0.5 * rng.standard_normal(n)
print(X.shape, y.shape)

# %% [markdown]
# Least squares three ways

# %%
beta_lstsq, resid, rank, sv = np.linalg.lstsq(X, y, rcond=None)
XtX = X.T @ X
Xty = X.T @ y
beta_solve = np.linalg.solve(XtX, Xty)
print("rank", rank, "max diff", np.abs(beta_lstsq - beta_solve).max())

# %%
Q, R = np.linalg.qr(X)
beta_qr = np.linalg.solve(R, Q.T @ y)
err = np.linalg.norm(beta_qr - beta_true)
print(f"error vs truth {err:.5f}")

# %% [markdown]
# Covariance and PCA

# %%
Xc = X - X.mean(axis=0)
cov = np.cov(Xc, rowvar=False)
evals, evecs = np.linalg.eigh(cov)
order = np.argsort(evals)[::-1]
evals = evals[order]
evecs = evecs[:, order]
explained = evals / evals.sum()
explained[:5]

# %%
U, S, Vt = np.linalg.svd(Xc[:20000], full_matrices=False)
scores = U[:, :3] * S[:3]
print("singular values", np.round(S[:4], 3))

# %%
corr = np.corrcoef(X[:, :8], rowvar=False)
inv = np.linalg.inv(cov)
cond = np.linalg.cond(cov)
det_sign, logdet = np.linalg.slogdet(cov)
print(f"cond={cond:.3f} logdet={logdet:.3f}")

# %% [markdown]
# Bootstrap of the slope of feature 0

# %%
B = 200
boot = np.empty(B)
for b in range(B):
    idx = rng.integers(0, n, size=n // 10)
    xb = X[idx, 0]
    yb = y[idx]
    boot[b] = np.dot(xb - xb.mean(), yb - yb.mean()) / np.dot(xb - xb.mean(), xb - xb.mean())
lo, hi = np.percentile(boot, [2.5, 97.5])
print(f"slope CI [{lo:.3f}, {hi:.3f}]")

# %%
resid_v = y - X @ beta_solve
rmse = np.sqrt(np.mean(resid_v ** 2))
if rmse > 1.0:
    print("bad fit")
else:
    print(f"good fit rmse={rmse:.4f}")

# %%
fig, ax = plt.subplots()
ax.hist(boot, bins=30)
ax.plot(np.cumsum(explained))
fig.savefig("s8_stats.png"); plt.close(fig)

# %%
table = pd.DataFrame({"true": beta_true, "lstsq": beta_lstsq, "qr": beta_qr})
table["abs_err"] = np.abs(table["lstsq"] - table["true"])
table.head(8)
