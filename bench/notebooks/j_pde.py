# j_pde: Finite differences: boundary-value problems, diffusion and an RK4 ensemble
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cell 12);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Finite differences: boundary-value problems, diffusion and an RK4 ensemble

# %%
import time
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from scipy import sparse
from scipy.sparse.linalg import spsolve

N = 1500
M = 200
x = np.linspace(0.0, 1.0, N)
h = x[1] - x[0]

# %% [markdown]
# 1-D Poisson, dense tridiagonal matrix

# %%
main = -2.0 * np.ones(N - 2)
off = np.ones(N - 3)
A = (np.diag(main) + np.diag(off, 1) + np.diag(off, -1)) / h ** 2
f = -np.pi ** 2 * np.sin(np.pi * x[1:-1])
t0 = time.perf_counter()
u = np.linalg.solve(A, f)
t1 = time.perf_counter()
err = np.abs(u - np.sin(np.pi * x[1:-1])).max()
print(f"dense solve {t1 - t0:.3f} s, max error {err:.2e}")

# %%
u_full = np.concatenate(([0.0], u, [0.0]))
du = np.gradient(u_full, h)
d2u = np.gradient(du, h)
resid = np.abs(d2u[2:-2] + np.pi ** 2 * np.sin(np.pi * x[2:-2])).max()
print(f"gradient residual {resid:.3e}")

# %% [markdown]
# 2-D Poisson with a sparse Kronecker Laplacian

# %%
h2 = 1.0 / (M + 1)
T1 = sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(M, M))
I1 = sparse.identity(M)
A2 = ((sparse.kron(I1, T1) + sparse.kron(T1, I1)) / h2 ** 2).tocsr()
g = np.linspace(h2, 1 - h2, M)
GX, GY = np.meshgrid(g, g, indexing="ij")
rhs = 2 * np.pi ** 2 * np.sin(np.pi * GX) * np.sin(np.pi * GY)
u2 = spsolve(A2, rhs.ravel()).reshape(M, M)
err2 = np.abs(u2 - np.sin(np.pi * GX) * np.sin(np.pi * GY)).max()
print(f"2-D error {err2:.2e}, nnz {A2.nnz}")

# %% [markdown]
# Crank-Nicolson diffusion

# %%
nu, dt, steps = 1e-3, 1e-2, 100
lap = sparse.diags([1.0, -2.0, 1.0], [-1, 0, 1], shape=(N, N), format="csr") / h ** 2
Id = sparse.identity(N, format="csr")
Aim = (Id - 0.5 * dt * nu * lap).tocsr()
Bex = (Id + 0.5 * dt * nu * lap).tocsr()
c = np.exp(-((x - 0.5) ** 2) / 0.002)
mass0 = c.sum() * h
for _ in range(steps):
    c = spsolve(Aim, Bex @ c)
print(f"mass {mass0:.5f} -> {c.sum() * h:.5f}, peak {c.max():.4f}")

# %% [markdown]
# RK4 for an ensemble of damped pendulums (state vector of size 2P)

# %%
P = 200_000
rng = np.random.default_rng(5)
theta0 = rng.uniform(-np.pi / 2, np.pi / 2, size=P)
damp = rng.uniform(0.05, 0.3, size=P)
y = np.concatenate([theta0, np.zeros(P)])


def f_rhs(y):
    th, om = y[:P], y[P:]
    return np.concatenate([om, -np.sin(th) - damp * om])


dt_ode, n_ode = 0.02, 300
energy = np.empty(n_ode)
for i in range(n_ode):
    k1 = f_rhs(y)
    k2 = f_rhs(y + 0.5 * dt_ode * k1)
    k3 = f_rhs(y + 0.5 * dt_ode * k2)
    k4 = f_rhs(y + dt_ode * k3)
    y = y + dt_ode / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    energy[i] = np.mean(0.5 * y[P:] ** 2 + 1 - np.cos(y[:P]))
print(f"energy {energy[0]:.4f} -> {energy[-1]:.4f}")

# %%
theta_T = y[:P]
summary = pd.DataFrame({"damp": damp, "theta_T": theta_T})
summary["bin"] = pd.cut(summary["damp"], 5)
summary.groupby("bin", observed=True)["theta_T"].agg(["mean", "std"])

# %%
fig, ax = plt.subplots(1, 3, figsize=(12, 3))
ax[0].plot(x, u_full)
ax[1].imshow(u2)
ax[2].plot(energy)
fig.savefig("s8h2_pde.png")
plt.close(fig)
