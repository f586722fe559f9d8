# l_kalman: Tracking many targets: batched constant-velocity Kalman filter
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# Unchanged.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Tracking many targets: batched constant-velocity Kalman filter

# %%
import numpy as np
import pandas as pd

n_trk, n_steps = 20000, 100
dt = 0.1
rng = np.random.default_rng(5)
F = np.array([[1, 0, dt, 0], [0, 1, 0, dt], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=np.float64)
H = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], dtype=np.float64)
q = 0.5
G = np.array([[dt**2 / 2, 0], [0, dt**2 / 2], [dt, 0], [0, dt]])
Q = q**2 * G @ G.T
R = np.diag([0.3**2, 0.3**2])

# %% [markdown]
# Simulate truth and measurements

# %%
truth = np.zeros((n_steps, n_trk, 4))
truth[0] = np.c_[rng.uniform(-100, 100, (n_trk, 2)), rng.normal(0, 2, (n_trk, 2))]
for k in range(1, n_steps):
    w = rng.normal(0, q, (n_trk, 2)) @ G.T
    truth[k] = truth[k - 1] @ F.T + w
meas = truth[:, :, :2] + rng.normal(0, 0.3, (n_steps, n_trk, 2))
print(truth.shape, f"{truth.nbytes/1e6:.0f} MB")

# %% [markdown]
# Batched filter: every track at once with einsum / batched solve

# %%
x = np.zeros((n_trk, 4))
x[:, :2] = meas[0]
P = np.tile(np.diag([1.0, 1.0, 10.0, 10.0]), (n_trk, 1, 1))
est = np.zeros((n_steps, n_trk, 4))
nis = np.zeros((n_steps, n_trk))
est[0] = x
for k in range(1, n_steps):
    x = x @ F.T
    P = np.einsum("ij,njk,lk->nil", F, P, F) + Q
    y = meas[k] - x @ H.T
    S = np.einsum("ij,njk,lk->nil", H, P, H) + R
    PHt = np.einsum("nij,kj->nik", P, H)
    K = np.linalg.solve(S, PHt.transpose(0, 2, 1)).transpose(0, 2, 1)
    x = x + np.einsum("nij,nj->ni", K, y)
    P = P - np.einsum("nij,jk,nkl->nil", K, H, P)
    nis[k] = np.einsum("ni,nij,nj->n", y, np.linalg.inv(S), y)
    est[k] = x
rmse_pos = np.sqrt(np.mean((est[:, :, :2] - truth[:, :, :2]) ** 2))
print(f"position RMSE {rmse_pos:.4f} (meas noise 0.3)")

# %% [markdown]
# Consistency: normalised innovation squared should average 2

# %%
nis_mean = nis[10:].mean()
frac_out = (nis[10:] > 5.99).mean()
print(f"NIS mean {nis_mean:.3f}, fraction above chi2_0.95 {frac_out:.4f}")

# %% [markdown]
# RTS smoother for a subset of tracks (per-track loop as usually written)

# %%
sub = 200
xs_all = []
for i in range(sub):
    xf = np.zeros((n_steps, 4)); Pf = np.zeros((n_steps, 4, 4))
    xp = np.zeros((n_steps, 4)); Pp = np.zeros((n_steps, 4, 4))
    xk = np.r_[meas[0, i], 0, 0]; Pk = np.diag([1.0, 1.0, 10.0, 10.0])
    for k in range(n_steps):
        if k > 0:
            xk = F @ xk; Pk = F @ Pk @ F.T + Q
        xp[k], Pp[k] = xk, Pk
        Sk = H @ Pk @ H.T + R
        Kk = Pk @ H.T @ np.linalg.inv(Sk)
        xk = xk + Kk @ (meas[k, i] - H @ xk)
        Pk = (np.eye(4) - Kk @ H) @ Pk
        xf[k], Pf[k] = xk, Pk
    xs = xf.copy()
    for k in range(n_steps - 2, -1, -1):
        C = Pf[k] @ F.T @ np.linalg.inv(Pp[k + 1])
        xs[k] = xf[k] + C @ (xs[k + 1] - xp[k + 1])
    xs_all.append(xs)
xs_all = np.stack(xs_all, axis=1)
rmse_s = np.sqrt(np.mean((xs_all[:, :, :2] - truth[:, :sub, :2]) ** 2))
print(f"smoothed RMSE {rmse_s:.4f}")

# %% [markdown]
# Track statistics table

# %%
speed = np.linalg.norm(est[:, :, 2:], axis=2)
df = pd.DataFrame({"mean_speed": speed.mean(axis=0), "max_speed": speed.max(axis=0),
                   "final_err": np.linalg.norm(est[-1, :, :2] - truth[-1, :, :2], axis=1)})
df.describe().round(3)

# %% [markdown]
# Covariance eigen-analysis (error ellipses) at the last step

# %%
evals, evecs = np.linalg.eigh(P[:, :2, :2])
axes_len = 2.4477 * np.sqrt(evals)
angle = np.degrees(np.arctan2(evecs[:, 1, 1], evecs[:, 0, 1]))
print(axes_len.mean(axis=0), angle[:3])

# %%
det_P = np.linalg.det(P)
cond = np.linalg.cond(P)
print(f"log det P median {np.median(np.log(det_P)):.3f}, cond max {cond.max():.1f}")
