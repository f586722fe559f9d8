# f_nbody: Pairwise forces and Monte Carlo
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cell 13);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Pairwise forces and Monte Carlo

# %%
import numpy as np
import pandas as pd
import math
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from scipy.spatial.distance import cdist

rng = np.random.default_rng(3)
N = 2000

# %%
pos = rng.uniform(-1, 1, size=(N, 3))
vel = np.zeros_like(pos)
mass = rng.uniform(0.5, 1.5, size=N)
eps = 1e-3
dt = 1e-4

# %% [markdown]
# Broadcasting pairwise accelerations

# %%
def accel(pos, mass):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d ** 2).sum(-1) + eps ** 2
    inv_r3 = r2 ** -1.5
    np.fill_diagonal(inv_r3, 0.0)
    return (d * (inv_r3 * mass[None, :])[:, :, None]).sum(1)

a = accel(pos, mass)
print(a.shape, np.abs(a).max())

# %%
for step in range(10):
    vel += 0.5 * dt * a
    pos += dt * vel
    a = accel(pos, mass)
    vel += 0.5 * dt * a
ke = 0.5 * np.sum(mass * np.sum(vel ** 2, axis=1))
print(f"KE {ke:.6e}")

# %% [markdown]
# Potential energy with explicit loops

# %%
M = 300
pe = 0.0
for i in range(M):
    for j in range(i + 1, M):
        dx = pos[i, 0] - pos[j, 0]
        dy = pos[i, 1] - pos[j, 1]
        dz = pos[i, 2] - pos[j, 2]
        pe -= mass[i] * mass[j] / math.sqrt(dx * dx + dy * dy + dz * dz + eps * eps)
print(f"PE (subset) {pe:.4f}")

# %%
D = cdist(pos, pos)
nn = np.sort(D, axis=1)[:, 1]
rdf, rb = np.histogram(D[np.triu_indices(N, 1)], bins=100, range=(0, 3.5))
nn.mean()

# %% [markdown]
# Monte Carlo estimate of pi and of an integral

# %%
S = 5_000_000
pts = rng.random((S, 2))
inside = (pts ** 2).sum(axis=1) <= 1.0
pi_est = 4 * inside.mean()
print(f"pi ~ {pi_est:.5f}")

# %%
u = rng.random(S)
fvals = np.exp(-u ** 2) * np.cos(3 * u)
integral = fvals.mean()
stderr = fvals.std(ddof=1) / np.sqrt(S)
print(f"I = {integral:.6f} +- {stderr:.2e}")

# %%
walk = rng.choice([-1, 1], size=(1000, 1000))
paths = np.cumsum(walk, axis=1)
msd = (paths ** 2).mean(axis=0)
slope = np.polyfit(np.arange(1, 1001), msd, 1)[0]
print(f"diffusion slope {slope:.3f}")

# %%
fig, ax = plt.subplots()
ax.plot(rb[:-1], rdf)
ax.loglog(msd)
fig.savefig("s8_nb.png"); plt.close(fig)

# %%
res = pd.DataFrame({"quantity": ["KE", "pi", "I", "slope"], "value": [ke, pi_est, integral, slope]})
res
