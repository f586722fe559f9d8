# o_imaging: Light-sheet volume: 3-D filtering, segmentation and per-cell measurements
# Written in session 15 as a notebook the engine was not tuned on (fresh review of `fix`).
# Self-contained: it makes its own data (fixed seeds). Files go to the working directory,
# which bench/run_notebooks.py makes a fresh temporary one per run.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Light-sheet volume: 3-D filtering, segmentation and per-cell measurements
#
# A synthetic 160 x 256 x 256 stack of stained nuclei with uneven illumination along z,
# shot noise and a few hot pixels.

# %%
import numpy as np
import pandas as pd
from scipy import ndimage as ndi
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

nz, ny, nx = 160, 256, 256
rng = np.random.default_rng(20151)
n_cells = 300
centers = np.column_stack([rng.uniform(8, nz - 8, n_cells), rng.uniform(10, ny - 10, n_cells),
                           rng.uniform(10, nx - 10, n_cells)])
radii = rng.uniform(3.0, 7.0, n_cells)
brightness = rng.lognormal(0.0, 0.35, n_cells)

# %%
vol = np.zeros((nz, ny, nx), dtype=np.float32)
zz, yy, xx = np.mgrid[-12:13, -12:13, -12:13].astype(np.float32)
for (cz, cy, cx), r, b in zip(centers, radii, brightness):
    iz, iy, ix = int(cz), int(cy), int(cx)
    z0, y0, x0 = max(iz - 12, 0), max(iy - 12, 0), max(ix - 12, 0)
    z1, y1, x1 = min(iz + 13, nz), min(iy + 13, ny), min(ix + 13, nx)
    blob = b / (1 + np.exp(4.0 * (np.sqrt((zz - (cz - iz)) ** 2 + (yy - (cy - iy)) ** 2 + (xx - (cx - ix)) ** 2) - r)))
    vol[z0:z1, y0:y1, x0:x1] += blob[z0 - iz + 12:z1 - iz + 12, y0 - iy + 12:y1 - iy + 12, x0 - ix + 12:x1 - ix + 12]
illum = np.exp(-np.linspace(0, 1.2, nz, dtype=np.float32))[:, None, None]
raw = rng.poisson(200 * (vol * illum + 0.15)).astype(np.float32)
hot = rng.integers(0, raw.size, 2000)
raw.flat[hot] = 4000.0
print(raw.shape, raw.dtype, f"{raw.nbytes / 1e6:.0f} MB, mean {raw.mean():.2f}, max {raw.max():.0f}")

# %% [markdown]
# Denoise: 3x3x3 median (hot pixels), then Gaussian; flatten illumination with a wide background

# %%
med = ndi.median_filter(raw, size=3)
smooth = ndi.gaussian_filter(med, sigma=(0.7, 1.0, 1.0))
bg = ndi.uniform_filter(ndi.grey_opening(smooth[:, ::4, ::4], size=(1, 9, 9)), size=(9, 5, 5))
bg = ndi.zoom(bg, (1, 4, 4), order=1)
flat = (smooth - bg) / np.maximum(bg, 1.0)
print(f"flattened: mean {flat.mean():.4f}, p99 {np.percentile(flat, 99):.3f}")

# %% [markdown]
# Edges: 3-D Sobel gradient magnitude

# %%
gz = ndi.sobel(smooth, axis=0)
gy = ndi.sobel(smooth, axis=1)
gx = ndi.sobel(smooth, axis=2)
grad = np.sqrt(gz ** 2 + gy ** 2 + gx ** 2)
print(f"gradient: median {np.median(grad):.2f}, max {grad.max():.1f}")

# %% [markdown]
# Threshold at median + 5 MAD of the flattened volume, clean up, label

# %%
m = np.median(flat)
mad = np.median(np.abs(flat - m))
thr = m + 5 * 1.4826 * mad
mask = flat > thr
mask = ndi.binary_opening(mask, structure=ndi.generate_binary_structure(3, 1))
labels, n = ndi.label(mask)
sizes = np.bincount(labels.ravel())
keep = sizes >= 40
keep[0] = False
labels, n = ndi.label(keep[labels])
print(f"threshold {thr:.3f}: {n} objects kept, {mask.mean():.3%} foreground")

# %% [markdown]
# Per-object measurements (regionprops-style with ndimage)

# %%
idx = np.arange(1, n + 1)
voxels = ndi.sum(np.ones_like(raw), labels, idx)
mean_int = ndi.mean(med, labels, idx)
total_int = ndi.sum(med - bg, labels, idx)
peak = ndi.maximum(smooth, labels, idx)
edge_mean = ndi.mean(grad, labels, idx)
com = np.array(ndi.center_of_mass(med, labels, idx))
extent = np.array([[s.stop - s.start for s in sl] for sl in ndi.find_objects(labels)])
eq_radius = np.cbrt(3 * voxels / (4 * np.pi))
print(f"median volume {np.median(voxels):.0f} voxels, median radius {np.median(eq_radius):.2f}")

# %% [markdown]
# Histogram equalisation for display (1024 bins over the 0.5-99.5 percentile range)

# %%
lo, hi = np.percentile(smooth, [0.5, 99.5])
hist, edges = np.histogram(smooth, bins=1024, range=(lo, hi))
cdf = np.cumsum(hist).astype(np.float64)
cdf /= cdf[-1]
eq = np.interp(smooth, edges[1:], cdf).astype(np.float32)
mip = eq.max(axis=0)
print(f"equalised: mean {eq.mean():.3f}, std {eq.std():.3f}")

# %%
fig, ax = plt.subplots(1, 3, figsize=(15, 5))
ax[0].imshow(raw.max(axis=0), cmap="gray")
ax[1].imshow(mip, cmap="gray")
ax[2].imshow(labels[nz // 2], cmap="nipy_spectral")
fig.savefig("s15_volume.png")
plt.close(fig)

# %%
cells = pd.DataFrame({"label": idx, "voxels": voxels, "radius": eq_radius, "mean": mean_int,
                      "total": total_int, "peak": peak, "edge": edge_mean,
                      "z": com[:, 0], "y": com[:, 1], "x": com[:, 2],
                      "dz": extent[:, 0], "dy": extent[:, 1], "dx": extent[:, 2]})
cells["depth_bin"] = pd.cut(cells["z"], bins=4, labels=["top", "upper", "lower", "bottom"])
print(cells.groupby("depth_bin", observed=True)[["mean", "total", "radius"]].median().round(2))
cells.describe().round(2)
