# j_advect: 2-D finite-volume advection on a periodic domain
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (deterministic, no random draws).
# The one change: files it writes and reads went to /tmp/ (cell 10);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # 2-D finite-volume advection on a periodic domain

# %%
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

nx = ny = 1024
L = 1.0
dx = L / nx
x = (np.arange(nx) + 0.5) * dx
X, Y = np.meshgrid(x, x, indexing="ij")
# solid-body rotation velocity at cell faces
u = -(Y - 0.5) * 2 * np.pi
v = (X - 0.5) * 2 * np.pi
cfl = 0.4
dt = cfl * dx / np.max(np.abs(u) + np.abs(v))
q0 = np.exp(-((X - 0.5)**2 + (Y - 0.75)**2) / (2 * 0.05**2))
q0 += ((np.abs(X - 0.3) < 0.08) & (np.abs(Y - 0.4) < 0.08)).astype(float)
print(f"dt={dt:.3e}, mass0={q0.sum()*dx*dx:.6f}")

# %% [markdown]
# First-order upwind with np.roll (periodic)

# %%
q = q0.copy()
nsteps = 200
for n in range(nsteps):
    fxp = np.where(u > 0, u * q, u * np.roll(q, -1, axis=0))
    fyp = np.where(v > 0, v * q, v * np.roll(q, -1, axis=1))
    q = q - dt / dx * (fxp - np.roll(fxp, 1, axis=0)) - dt / dx * (fyp - np.roll(fyp, 1, axis=1))
q_upwind = q
print(f"upwind mass {q_upwind.sum()*dx*dx:.6f}, max {q_upwind.max():.4f}")

# %% [markdown]
# Second order: minmod-limited MUSCL, dimensionally split

# %%
def minmod(a, b):
    return np.where(a * b > 0, np.sign(a) * np.minimum(np.abs(a), np.abs(b)), 0.0)

def sweep(q, vel, axis):
    dqm = q - np.roll(q, 1, axis=axis)
    dqp = np.roll(q, -1, axis=axis) - q
    s = minmod(dqm, dqp)
    qL = q + 0.5 * s
    qR = np.roll(q - 0.5 * s, -1, axis=axis)
    flux = np.where(vel > 0, vel * qL, vel * qR)
    return q - dt / dx * (flux - np.roll(flux, 1, axis=axis))

q = q0.copy()
for n in range(nsteps):
    q = sweep(q, u, 0)
    q = sweep(q, v, 1)
q_muscl = q
print(f"MUSCL mass {q_muscl.sum()*dx*dx:.6f}, min {q_muscl.min():.2e}, max {q_muscl.max():.4f}")

# %% [markdown]
# Error norms and total variation

# %%
err = {name: np.sqrt(np.mean((qq - q0)**2)) for name, qq in [("upwind", q_upwind), ("muscl", q_muscl)]}
tv0 = np.abs(np.diff(q0, axis=0)).sum() + np.abs(np.diff(q0, axis=1)).sum()
tvm = np.abs(np.diff(q_muscl, axis=0)).sum() + np.abs(np.diff(q_muscl, axis=1)).sum()
print(err, f"TV ratio {tvm/tv0:.3f}")

# %% [markdown]
# Conservation diagnostics per step with an in-place update (Lax-Friedrichs)

# %%
q = q0.copy()
mass = []
for n in range(100):
    qe = np.roll(q, -1, 0); qw = np.roll(q, 1, 0); qn = np.roll(q, -1, 1); qs = np.roll(q, 1, 1)
    q[:] = 0.25 * (qe + qw + qn + qs) - dt / (2 * dx) * (u * (qe - qw) + v * (qn - qs))
    mass.append(q.sum() * dx * dx)
mass = np.array(mass)
drift = mass.max() - mass.min()
print(f"LF mass drift {drift:.3e}")

# %%
fig, ax = plt.subplots(1, 3, figsize=(12, 4))
for a_, qq, t_ in zip(ax, [q0, q_upwind, q_muscl], ["initial", "upwind", "MUSCL"]):
    a_.imshow(qq.T, origin="lower")
    a_.set_title(t_)
fig.savefig("s9_adv.png")
plt.close(fig)
