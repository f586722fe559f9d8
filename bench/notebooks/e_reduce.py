# e_reduce: Detector event reduction
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cells 2, 3, 14);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Detector event reduction

# %%
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rng = np.random.default_rng(11)
n_events = 3_000_000

# %%
det_id = rng.integers(0, 512, size=n_events).astype(np.int64)
tof = rng.exponential(2000.0, size=n_events)
energy = rng.gamma(2.0, 15.0, size=n_events).astype(np.float32)
np.savez("s8_events.npz", det_id=det_id, tof=tof, energy=energy)

# %%
ev = np.load("s8_events.npz")
det_id = ev["det_id"]
tof = ev["tof"]
energy = ev["energy"]
print(len(det_id), det_id.dtype, tof.dtype, energy.dtype)

# %% [markdown]
# Masks and cuts

# %%
good = (energy > 5.0) & (energy < 200.0) & (tof < 10000)
print(f"kept {good.sum()} of {good.size} ({good.mean():.1%})")
det_g = det_id[good]
tof_g = tof[good]
en_g = energy[good]

# %% [markdown]
# Per-detector counts and sums

# %%
counts = np.bincount(det_g, minlength=512)
esum = np.bincount(det_g, weights=en_g, minlength=512)
emean = esum / np.maximum(counts, 1)
dead = np.flatnonzero(counts == 0)
print("dead pixels", dead.size)
emean[:5]

# %%
ids, inverse, cnt = np.unique(det_g, return_inverse=True, return_counts=True)
print(ids.size, cnt.max())

# %% [markdown]
# TOF binning

# %%
tof_edges = np.linspace(0, 10000, 201)
h, _ = np.histogram(tof_g, bins=tof_edges, weights=en_g)
bin_idx = np.digitize(tof_g, tof_edges) - 1
h2d, xe, ye = np.histogram2d(tof_g, en_g, bins=[100, 50])
print(h.sum(), h2d.sum())

# %%
order = np.argsort(tof_g, kind="stable")
tof_sorted = tof_g[order]
en_sorted = en_g[order]
cum = np.cumsum(en_sorted)
cuts = np.searchsorted(tof_sorted, [1000, 2000, 5000])
window_sums = np.diff(np.concatenate(([0.0], cum[cuts - 1])))
print(window_sums)

# %%
q = np.percentile(en_g, [5, 50, 95])
med = np.median(tof_g)
print(f"energy quantiles {q}, median tof {med:.1f}")

# %%
hot = np.argmax(counts)
n_hot = counts[hot]
if counts.max() > 2 * counts.mean():
    print("hot pixel", hot)
else:
    print(f"no hot pixel; max {n_hot}")

# %%
fig, ax = plt.subplots()
ax.stairs(h, tof_edges)
ax.bar(np.arange(512), counts)
fig.savefig("s8_ev.png"); plt.close(fig)

# %%
df = pd.DataFrame({"det": np.arange(512), "counts": counts, "emean": emean})
df = df.sort_values("counts", ascending=False)
df.head(10)
