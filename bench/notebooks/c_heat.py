# c_heat: 2-D heat diffusion with an explicit scheme, then a Mandelbrot escape-time map
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (deterministic, no random draws).
# The one change: files it writes and reads went to /tmp/ (cell 11);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # 2-D heat diffusion with an explicit scheme, then a Mandelbrot escape-time map

# %%
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import time

NX = NY = 512
steps = 200
alpha = 0.2

# %%
u = np.zeros((NY, NX), dtype=np.float64)
u[NY // 4: 3 * NY // 4, NX // 4: 3 * NX // 4] = 100.0
u0 = u.copy()

# %% [markdown]
# Time loop with slicing (5-point stencil)

# %%
t0 = time.perf_counter()
history = []
for step in range(steps):
    un = u.copy()
    u[1:-1, 1:-1] = un[1:-1, 1:-1] + alpha * (
        un[2:, 1:-1] + un[:-2, 1:-1] + un[1:-1, 2:] + un[1:-1, :-2] - 4 * un[1:-1, 1:-1])
    u[0, :] = u[-1, :] = u[:, 0] = u[:, -1] = 0.0
    if step % 50 == 0:
        history.append(u.sum())
print(f"elapsed {time.perf_counter() - t0:.2f}s, total heat {u.sum():.3f}")

# %%
energy = np.array(history)
energy

# %% [markdown]
# Same with np.roll (periodic)

# %%
v = u0.copy()
for _ in range(steps):
    lap = np.roll(v, 1, 0) + np.roll(v, -1, 0) + np.roll(v, 1, 1) + np.roll(v, -1, 1) - 4 * v
    v = v + alpha * lap
print("max", v.max(), "min", v.min())

# %% [markdown]
# Escape-time fractal, per-element loop

# %%
W, H, maxit = 300, 200, 50
xs = np.linspace(-2.0, 1.0, W)
ys = np.linspace(-1.0, 1.0, H)
counts = np.zeros((H, W), dtype=np.int32)
for i in range(H):
    for j in range(W):
        c = complex(xs[j], ys[i])
        z = 0j
        k = 0
        while abs(z) <= 2.0 and k < maxit:
            z = z * z + c
            k += 1
        counts[i, j] = k
counts.mean()

# %%
C = xs[None, :] + 1j * ys[:, None]
Z = np.zeros_like(C)
it = np.zeros(C.shape, dtype=np.int32)
for k in range(maxit):
    m = np.abs(Z) <= 2
    Z[m] = Z[m] ** 2 + C[m]
    it[m] += 1
print("agree", np.array_equal(it, counts))

# %%
fig, ax = plt.subplots(1, 2)
ax[0].imshow(u); ax[1].imshow(counts)
fig.savefig("s8_heat.png"); plt.close(fig)

# %%
summary = pd.DataFrame({"field": ["u", "v"], "mean": [u.mean(), v.mean()], "max": [u.max(), v.max()]})
summary
