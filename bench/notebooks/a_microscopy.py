# a_microscopy: Nuclei segmentation in a synthetic fluorescence image
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cells 3, 5, 14);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Nuclei segmentation in a synthetic fluorescence image

# %%
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from scipy import ndimage as ndi
import pandas as pd

N = 1024
rng = np.random.default_rng(42)

# %% [markdown]
# Make a synthetic image: blobs + background + noise

# %%
yy, xx = np.mgrid[0:N, 0:N]
img = np.zeros((N, N), dtype=np.float32)
centers = rng.uniform(20, N - 20, size=(150, 2))
radii = rng.uniform(4, 12, size=150)
for (cy, cx), r in zip(centers, radii):
    img += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r ** 2)).astype(np.float32)
img += 0.05 * rng.standard_normal((N, N)).astype(np.float32)
np.save("s8_micro_raw.npy", img)
print(img.dtype, img.shape, f"{img.mean():.4f}")

# %% [markdown]
# Load and denoise

# %%
raw = np.load("s8_micro_raw.npy")
smooth = ndi.gaussian_filter(raw, sigma=2)
med = ndi.median_filter(smooth, size=3)
bg = ndi.uniform_filter(med, size=51)
flat = med - bg
flat

# %% [markdown]
# Otsu-like threshold by histogram

# %%
hist, edges = np.histogram(flat, bins=256)
centers_h = (edges[:-1] + edges[1:]) / 2
w0 = np.cumsum(hist)
w1 = w0[-1] - w0
m0 = np.cumsum(hist * centers_h) / np.maximum(w0, 1)
m1 = (np.sum(hist * centers_h) - np.cumsum(hist * centers_h)) / np.maximum(w1, 1)
between = w0 * w1 * (m0 - m1) ** 2
thr = centers_h[np.argmax(between)]
print(f"threshold = {thr:.4f}")

# %%
mask = flat > thr
mask = ndi.binary_opening(mask, iterations=2)
mask = ndi.binary_fill_holes(mask)
print("foreground fraction", mask.mean())

# %% [markdown]
# Label and measure

# %%
labels, n = ndi.label(mask)
print(f"found {n} objects")

# %%
idx = np.arange(1, n + 1)
areas = ndi.sum(np.ones_like(raw), labels, idx)
means = ndi.mean(raw, labels, idx)
maxes = ndi.maximum(raw, labels, idx)
coms = ndi.center_of_mass(raw, labels, idx)

# %%
dist = ndi.distance_transform_edt(mask)
peak_dist = ndi.maximum(dist, labels, idx)
print("max inscribed radius", peak_dist.max())

# %%
edges_s = np.hypot(ndi.sobel(smooth, axis=0), ndi.sobel(smooth, axis=1))
edges_s.max()

# %%
fig, axes = plt.subplots(1, 3, figsize=(12, 4))
axes[0].imshow(raw, cmap="gray")
axes[1].imshow(labels, cmap="nipy_spectral")
axes[2].imshow(dist)
fig.savefig("s8_micro.png")
plt.close(fig)

# %%
df = pd.DataFrame({"label": idx, "area": areas, "mean": means, "max": maxes,
                   "cy": [c[0] for c in coms], "cx": [c[1] for c in coms], "r": peak_dist})
big = df[df.area > 50]
print(big.describe().round(3))
big.head()
