# g_register: Image registration by phase correlation
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cells 2, 12);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Image registration by phase correlation

# %%
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from scipy import ndimage as ndi

rng = np.random.default_rng(7)
N = 1024
n_frames = 6

# %%
yy, xx = np.mgrid[0:N, 0:N]
ref = np.zeros((N, N), dtype=np.float32)
blobs = rng.uniform([40, 40, 3], [N - 40, N - 40, 14], size=(80, 3))
for cy, cx, s in blobs:
    ref += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s)).astype(np.float32)
ref += 0.02 * rng.standard_normal((N, N)).astype(np.float32)
np.save("s8h2_ref.npy", ref)
print(ref.dtype, ref.shape, f"std={ref.std():.4f}")

# %%
true_shifts = rng.uniform(-40, 40, size=(n_frames, 2))
frames = np.stack([ndi.shift(ref, s, order=1, mode="wrap") for s in true_shifts])
frames += 0.05 * rng.standard_normal(frames.shape).astype(np.float32)
frames.shape, frames.dtype

# %% [markdown]
# Phase correlation against a windowed reference

# %%
win = np.outer(np.hanning(N), np.hanning(N)).astype(np.float32)
F_ref = np.fft.fft2(ref * win)
corr0 = np.fft.fft2(frames[0] * win) * np.conj(F_ref)
corr0 /= np.abs(corr0) + 1e-12
corr0 = np.fft.fftshift(np.real(np.fft.ifft2(corr0)))
peak = np.unravel_index(np.argmax(corr0), corr0.shape)
print("peak", peak, f"value {corr0[peak]:.4f}", "shift", np.array(peak) - N // 2)

# %%
def xcorr(img):
    R = np.fft.fft2(img * win) * np.conj(F_ref)
    R /= np.abs(R) + 1e-12
    return np.fft.fftshift(np.real(np.fft.ifft2(R)))


def subpixel(c, p):
    y, x = p
    cy = c[y - 1:y + 2, x]
    cx = c[y, x - 1:x + 2]
    dy = 0.5 * (cy[0] - cy[2]) / (cy[0] - 2 * cy[1] + cy[2])
    dx = 0.5 * (cx[0] - cx[2]) / (cx[0] - 2 * cx[1] + cx[2])
    return y + dy - N // 2, x + dx - N // 2


est = []
for k in range(n_frames):
    c = xcorr(frames[k])
    p = np.unravel_index(np.argmax(c), c.shape)
    est.append(subpixel(c, p))
est = np.array(est)
err = est - true_shifts
print(f"rms error {np.sqrt(np.mean(err ** 2)):.3f} px")

# %%
df = pd.DataFrame({"true_y": true_shifts[:, 0], "true_x": true_shifts[:, 1],
                   "est_y": est[:, 0], "est_x": est[:, 1]})
df["err"] = np.hypot(df["est_y"] - df["true_y"], df["est_x"] - df["true_x"])
df.round(3)

# %% [markdown]
# Align the stack and average

# %%
aligned = np.stack([ndi.shift(frames[k], -est[k], order=1, mode="wrap") for k in range(n_frames)])
mean_img = aligned.mean(axis=0)
resid = np.abs(mean_img - ref)[50:-50, 50:-50].mean()
resid

# %%
power = np.abs(np.fft.fftshift(np.fft.fft2(ref))) ** 2
r = np.hypot(yy - N // 2, xx - N // 2).astype(int)
radial = np.bincount(r.ravel(), weights=power.ravel()) / np.bincount(r.ravel())
print(f"radial power: {radial[:4].round(1)} ... {radial.size} bins")

# %%
snr = corr0.max() / corr0.std()
print(f"correlation SNR {snr:.1f}")
snr > 10

# %%
fig, axes = plt.subplots(1, 3, figsize=(12, 4))
axes[0].imshow(ref, cmap="gray")
axes[1].imshow(corr0[N // 2 - 64:N // 2 + 64, N // 2 - 64:N // 2 + 64])
axes[2].semilogy(radial[1:N // 2])
fig.savefig("s8h2_reg.png")
plt.close(fig)
