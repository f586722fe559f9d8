# m_pic: 1D-2V electrostatic particle-in-cell and Brownian polymer statistics
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cell 8);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # 1D-2V electrostatic particle-in-cell and Brownian polymer statistics

# %%
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rng = np.random.default_rng(2024)
n_part = 4_000_000
ng = 4096
Lx = 2 * np.pi / 0.5
dxg = Lx / ng
xp = rng.uniform(0, Lx, n_part)
vp = rng.normal(0, 1, n_part) + 0.01 * np.sin(0.5 * xp)
qm = -1.0
wp = Lx / n_part
print(f"{n_part} particles, {xp.nbytes * 2 / 1e6:.0f} MB")

# %% [markdown]
# Charge deposition: nearest grid point with bincount, CIC with np.add.at

# %%
cell = (xp / dxg).astype(np.int64) % ng
rho_ngp = np.bincount(cell, minlength=ng) * wp / dxg
frac = xp / dxg - np.floor(xp / dxg)
j0 = np.floor(xp / dxg).astype(np.int64) % ng
j1 = (j0 + 1) % ng
rho = np.zeros(ng)
np.add.at(rho, j0, (1 - frac) * wp / dxg)
np.add.at(rho, j1, frac * wp / dxg)
print(f"total charge {rho.sum() * dxg:.6f}, ngp {rho_ngp.sum() * dxg:.6f}")

# %% [markdown]
# Field solve (FFT Poisson), gather and leapfrog push for a few steps

# %%
k = 2 * np.pi * np.fft.fftfreq(ng, d=dxg)
k[0] = 1.0
energy = []
for step in range(20):
    frac = xp / dxg - np.floor(xp / dxg)
    j0 = np.floor(xp / dxg).astype(np.int64) % ng
    j1 = (j0 + 1) % ng
    rho = np.bincount(j0, weights=(1 - frac), minlength=ng) + np.bincount(j1, weights=frac, minlength=ng)
    rho = rho * wp / dxg - 1.0
    phik = np.fft.fft(rho) / k**2
    phik[0] = 0
    E = np.real(np.fft.ifft(-1j * k * phik))
    Ep = (1 - frac) * E[j0] + frac * E[j1]
    vp = vp + qm * Ep * 0.1
    xp = (xp + vp * 0.1) % Lx
    energy.append(0.5 * np.sum(E**2) * dxg)
energy = np.array(energy)
print(np.round(energy[-5:], 8))

# %% [markdown]
# Phase-space histogram and velocity distribution

# %%
H2, xe, ve = np.histogram2d(xp, vp, bins=(256, 200), range=[[0, Lx], [-5, 5]])
fv, vedges = np.histogram(vp, bins=400, range=(-5, 5), density=True)
vmean, vstd = vp.mean(), vp.std()
kurt = np.mean(((vp - vmean) / vstd) ** 4) - 3
print(f"<v>={vmean:.4f}, sigma={vstd:.4f}, excess kurtosis {kurt:.4f}")

# %%
fig, ax = plt.subplots(1, 2, figsize=(10, 4))
ax[0].imshow(H2.T, origin="lower", aspect="auto")
ax[1].plot(0.5 * (vedges[1:] + vedges[:-1]), fv)
fig.savefig("s9_pic.png")
plt.close(fig)

# %% [markdown]
# Brownian polymers: freely jointed chains as random walks

# %%
n_chain, n_mono = 2000, 1000
steps = rng.normal(size=(n_chain, n_mono, 3))
steps /= np.linalg.norm(steps, axis=2, keepdims=True)
pos = np.cumsum(steps, axis=1)
Ree = np.linalg.norm(pos[:, -1], axis=1)
com = pos.mean(axis=1, keepdims=True)
Rg = np.sqrt(((pos - com) ** 2).sum(axis=2).mean(axis=1))
print(f"<Ree^2>/N = {np.mean(Ree**2)/n_mono:.3f}, <Rg^2>/N = {np.mean(Rg**2)/n_mono:.4f}")

# %% [markdown]
# Mean squared displacement of a 2-D Brownian particle ensemble vs lag

# %%
n_p, n_t = 5000, 2000
D, dt_b = 0.5, 0.01
traj = np.cumsum(np.sqrt(2 * D * dt_b) * rng.standard_normal((n_p, n_t, 2)), axis=1)
lags = np.unique(np.logspace(0, np.log10(n_t // 2), 30).astype(int))
msd = np.array([np.mean(np.sum((traj[:, lag:] - traj[:, :-lag]) ** 2, axis=2)) for lag in lags])
D_fit = np.polyfit(lags * dt_b, msd, 1)[0] / 4
print(f"fitted D = {D_fit:.4f} (true {D})")

# %% [markdown]
# Radial distribution of end points (histogram with weights) and a pandas summary

# %%
r_end = np.linalg.norm(traj[:, -1], axis=1)
hist_r, redges = np.histogram(r_end, bins=50, weights=np.ones_like(r_end) / n_p)
shells = 2 * np.pi * 0.5 * (redges[1:] + redges[:-1]) * np.diff(redges)
pdf_r = hist_r / shells
summary = pd.DataFrame({"Ree": Ree, "Rg": Rg}).agg(["mean", "std", "max"])
summary
