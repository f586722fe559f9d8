# i_denoise: Total-variation and bilateral denoising of an X-ray projection
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cell 12);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Total-variation and bilateral denoising of an X-ray projection

# %%
import numpy as np
from scipy import ndimage as ndi
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

N = 2048
rng = np.random.default_rng(3)
yy, xx = np.mgrid[0:N, 0:N].astype(np.float32)
clean = ((xx - N/2)**2 + (yy - N/2)**2 < (N/3)**2).astype(np.float32)
clean += 0.5 * ((np.abs(xx - N/2) < N/8) & (np.abs(yy - N/3) < N/10))
clean = ndi.gaussian_filter(clean, 1.5)
noisy = clean + rng.normal(0, 0.15, size=(N, N)).astype(np.float32)
print(noisy.dtype, f"{noisy.nbytes/1e6:.1f} MB")

# %%
def psnr(a, ref):
    mse = np.mean((a - ref) ** 2)
    return 10 * np.log10(ref.max() ** 2 / mse)
print(f"noisy PSNR {psnr(noisy, clean):.2f} dB")

# %% [markdown]
# Chambolle's projection algorithm for TV denoising (periodic differences via roll)

# %%
lam = 0.12
tau = 0.248
px = np.zeros_like(noisy)
py = np.zeros_like(noisy)
for it in range(60):
    div = (px - np.roll(px, 1, axis=1)) + (py - np.roll(py, 1, axis=0))
    g = div - noisy / lam
    gx = np.roll(g, -1, axis=1) - g
    gy = np.roll(g, -1, axis=0) - g
    nrm = 1.0 + tau * np.sqrt(gx**2 + gy**2)
    px = (px + tau * gx) / nrm
    py = (py + tau * gy) / nrm
tv = noisy - lam * ((px - np.roll(px, 1, axis=1)) + (py - np.roll(py, 1, axis=0)))
print(f"TV PSNR {psnr(tv, clean):.2f} dB")

# %% [markdown]
# Gradient-descent TV with a smoothed norm (explicit, Neumann edges via np.diff/pad)

# %%
u = noisy.copy()
eps = 1e-3
dt = 0.1
for it in range(40):
    ux = np.diff(u, axis=1, append=u[:, -1:])
    uy = np.diff(u, axis=0, append=u[-1:, :])
    mag = np.sqrt(ux**2 + uy**2 + eps**2)
    nx, ny = ux / mag, uy / mag
    divn = np.diff(nx, axis=1, prepend=0 * nx[:, :1]) + np.diff(ny, axis=0, prepend=0 * ny[:1, :])
    u = u + dt * (divn - (u - noisy) / 0.2)
energy = np.sum(np.sqrt(np.diff(u, axis=1)[:-1, :]**2 + np.diff(u, axis=0)[:, :-1]**2))
print(f"gd-TV PSNR {psnr(u, clean):.2f} dB, TV energy {energy:.1f}")

# %% [markdown]
# Bilateral filter by shifting (5x5 window)

# %%
sigma_s, sigma_r = 2.0, 0.2
num = np.zeros_like(noisy)
den = np.zeros_like(noisy)
padded = np.pad(noisy, 2, mode="reflect")
for dy in range(-2, 3):
    for dx in range(-2, 3):
        shifted = padded[2 + dy:2 + dy + N, 2 + dx:2 + dx + N]
        wgt = np.exp(-(dx*dx + dy*dy) / (2 * sigma_s**2)) * np.exp(-((shifted - noisy)**2) / (2 * sigma_r**2))
        num += wgt * shifted
        den += wgt
bilat = num / den
print(f"bilateral PSNR {psnr(bilat, clean):.2f} dB")

# %% [markdown]
# Non-local-ish comparison: median and Gaussian baselines

# %%
med = ndi.median_filter(noisy, size=5)
gau = ndi.gaussian_filter(noisy, 1.2)
results = {"noisy": psnr(noisy, clean), "tv": psnr(tv, clean), "gd": psnr(u, clean),
           "bilateral": psnr(bilat, clean), "median": psnr(med, clean), "gauss": psnr(gau, clean)}
results

# %%
edge_mask = ndi.sobel(clean, 0)**2 + ndi.sobel(clean, 1)**2 > 0.01
edge_err = {k: float(np.abs(v - clean)[edge_mask].mean()) for k, v in [("tv", tv), ("bilat", bilat), ("med", med)]}
print(edge_err)

# %%
fig, ax = plt.subplots(1, 4, figsize=(16, 4))
for a_, im, t_ in zip(ax, [noisy, tv, bilat, med], ["noisy", "tv", "bilateral", "median"]):
    a_.imshow(im[N//2-200:N//2+200, N//2-200:N//2+200], cmap="gray")
    a_.set_title(t_)
fig.savefig("s9_denoise.png")
plt.close(fig)
