# h_spectro: Raman spectra: baseline removal and peak fitting
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# Unchanged.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Raman spectra: baseline removal and peak fitting

# %%
import numpy as np
from scipy import signal, ndimage
from scipy.optimize import curve_fit
import pandas as pd

n_spec, n_ch = 4000, 2048
wn = np.linspace(200, 3200, n_ch)                       # wavenumber axis, cm^-1
rng = np.random.default_rng(7)

# %%
def lorentz(x, a, x0, g):
    return a * g**2 / ((x - x0)**2 + g**2)

peaks_true = np.array([520.0, 1001.0, 1450.0, 1655.0, 2930.0])
amps = rng.uniform(50, 200, size=(n_spec, peaks_true.size))
spectra = np.zeros((n_spec, n_ch))
for j, p in enumerate(peaks_true):
    spectra += amps[:, j:j+1] * 12.0**2 / ((wn[None, :] - p)**2 + 12.0**2)
baseline_true = 300 + 0.05 * wn[None, :] + 80 * np.sin(wn[None, :] / 600 + rng.uniform(0, 6, (n_spec, 1)))
spectra = spectra + baseline_true + rng.normal(0, 3, size=(n_spec, n_ch))
print(spectra.shape, f"{spectra.nbytes/1e6:.0f} MB")

# %% [markdown]
# Cosmic-ray spike removal: median filter along the spectral axis, replace outliers

# %%
med = ndimage.median_filter(spectra, size=(1, 5))
resid = spectra - med
mad = np.median(np.abs(resid), axis=1, keepdims=True)
spikes = np.abs(resid) > 8 * 1.4826 * mad
clean = np.where(spikes, med, spectra)
print("spikes removed:", spikes.sum())

# %% [markdown]
# Polynomial baseline by iterative clipping (modified polyfit)

# %%
x = (wn - wn.mean()) / wn.std()
V = np.vander(x, 6)
work = clean.copy()
for it in range(20):
    coef, *_ = np.linalg.lstsq(V, work.T, rcond=None)
    base = (V @ coef).T
    work = np.minimum(work, base)
corrected = clean - base
corrected.mean()

# %% [markdown]
# Smoothing and second derivative (Savitzky-Golay)

# %%
smooth = signal.savgol_filter(corrected, 11, 3, axis=1)
d2 = signal.savgol_filter(corrected, 11, 3, deriv=2, axis=1)
snr = smooth.max(axis=1) / corrected[:, :100].std(axis=1)
print(f"median SNR {np.median(snr):.1f}")

# %% [markdown]
# Normalise (vector norm) and mean spectrum

# %%
norm = corrected / np.linalg.norm(corrected, axis=1, keepdims=True)
mean_spec = norm.mean(axis=0)
std_spec = norm.std(axis=0)
ratio = norm[:, np.argmin(np.abs(wn - 1655))] / norm[:, np.argmin(np.abs(wn - 1450))]
pd.Series(ratio).describe()

# %% [markdown]
# Peak detection on the mean spectrum, then fit each peak on each spectrum (subset)

# %%
pk, props = signal.find_peaks(mean_spec, prominence=0.005)
print("peaks at", np.round(wn[pk], 1))
fits = []
for i in range(50):
    y = smooth[i]
    row = []
    for p in pk:
        sl = slice(max(p - 30, 0), min(p + 30, n_ch))
        popt, _ = curve_fit(lorentz, wn[sl], y[sl], p0=(y[p], wn[p], 10.0))
        row.append(popt[0])
    fits.append(row)
fits = np.array(fits)
fits.shape

# %% [markdown]
# Band integrals for every spectrum (trapezoid over windows)

# %%
bands = {"phe": (990, 1012), "ch2": (1430, 1470), "amide1": (1630, 1680)}
areas = {}
for name, (lo, hi) in bands.items():
    m = (wn >= lo) & (wn <= hi)
    areas[name] = np.trapezoid(corrected[:, m], wn[m], axis=1)
df = pd.DataFrame(areas)
df["ratio"] = df["amide1"] / df["ch2"]
print(df.describe().round(2))

# %% [markdown]
# PCA of the normalised spectra

# %%
Xc = norm - mean_spec
U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
explained = S**2 / (S**2).sum()
scores = U[:, :3] * S[:3]
print("explained", np.round(explained[:5], 4))
