# g_climate: Surface temperature anomalies on a 0.5 degree grid
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cell 8);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Surface temperature anomalies on a 0.5 degree grid

# %%
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

nt, nlat, nlon = 240, 360, 720          # 20 years monthly, 0.5 deg
lat = np.linspace(-89.75, 89.75, nlat)
lon = np.linspace(0.25, 359.75, nlon)
time = pd.date_range("2000-01-01", periods=nt, freq="MS")
rng = np.random.default_rng(0)

# %% [markdown]
# Synthetic field: seasonal cycle + trend + noise, float32 like a netCDF would give

# %%
month = np.arange(nt) % 12
seasonal = 15 * np.cos(np.deg2rad(lat))[None, :, None] - 10 * np.sin(2 * np.pi * month / 12)[:, None, None] * np.sin(np.deg2rad(lat))[None, :, None]
trend = 0.02 / 12 * np.arange(nt)[:, None, None]
tas = (seasonal + trend + rng.normal(0, 1.5, size=(nt, nlat, nlon))).astype(np.float32)
# a few missing values as in real station-gridded data
tas[rng.random(tas.shape) < 0.01] = np.nan
print(tas.shape, tas.dtype, f"{tas.nbytes/1e6:.1f} MB")

# %% [markdown]
# Monthly climatology and anomalies

# %%
clim = np.nanmean(tas.reshape(nt // 12, 12, nlat, nlon), axis=0)
anom = tas - np.tile(clim, (nt // 12, 1, 1))
anom_std = np.nanstd(anom, axis=0)
print(f"mean anomaly std {np.nanmean(anom_std):.3f} K")

# %% [markdown]
# Area-weighted global mean and zonal means

# %%
w = np.cos(np.deg2rad(lat))
valid = ~np.isnan(anom)
wgrid = np.broadcast_to(w[None, :, None], anom.shape) * valid
gmean = np.nansum(anom * w[None, :, None], axis=(1, 2)) / wgrid.sum(axis=(1, 2))
zonal = np.nanmean(anom, axis=2)
gm = pd.Series(gmean, index=time)
gm.rolling(12).mean().tail()

# %%
fig, ax = plt.subplots(1, 2, figsize=(12, 4))
ax[0].plot(time, gmean)
ax[1].pcolormesh(time, lat, zonal.T, cmap="RdBu_r")
fig.savefig("s9_clim.png")
plt.close(fig)

# %% [markdown]
# Linear trend per grid point (least squares on the time axis)

# %%
t = np.arange(nt, dtype=np.float64) / 12.0
tc = t - t.mean()
a = np.where(np.isnan(anom), 0.0, anom)
n_ok = valid.sum(axis=0)
slope = (tc[:, None, None] * a).sum(axis=0) / (tc ** 2).sum()
slope_decade = slope * 10
print(f"max warming {slope_decade.max():.3f} K/decade, min {slope_decade.min():.3f}")

# %% [markdown]
# Extremes: 95th percentile of anomaly per grid cell and exceedance counts

# %%
p95 = np.nanpercentile(anom, 95, axis=0)
exceed = (anom > p95[None]).sum(axis=0)
frac_hot = exceed / n_ok
frac_hot.mean()

# %% [markdown]
# Regional box means (Niño 3.4: 5S-5N, 190-240E)

# %%
box = (np.abs(lat) <= 5)[:, None] & ((lon >= 190) & (lon <= 240))[None, :]
nino34 = np.array([np.nanmean(anom[k][box]) for k in range(nt)])
nino = pd.Series(nino34, index=time)
el_nino_months = (nino.rolling(3, center=True).mean() > 0.5).sum()
print("El Nino months:", el_nino_months)

# %% [markdown]
# Regrid to 2 degrees by block averaging

# %%
coarse = np.nanmean(anom.reshape(nt, nlat // 4, 4, nlon // 4, 4), axis=(2, 4))
coarse_var = coarse.var(axis=0)
print(coarse.shape, float(coarse_var.max()))

# %%
hemis = {"NH": np.nanmean(zonal[:, lat > 0]), "SH": np.nanmean(zonal[:, lat < 0])}
hemis
