# n_seismic: Dense seismic array: band-pass, STA/LTA triggers, envelopes and a slowness scan
# Written in session 15 as a notebook the engine was not tuned on (fresh review of `fix`).
# Self-contained: it makes its own data (fixed seeds). Files go to the working directory,
# which bench/run_notebooks.py makes a fresh temporary one per run.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Dense seismic array: band-pass, STA/LTA triggers, envelopes and a slowness scan
#
# 256 vertical-component stations along a line, 20 minutes at 100 Hz, with 24 local events
# buried in coloured noise.

# %%
import numpy as np
import pandas as pd
from scipy import signal
from scipy import ndimage as ndi
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

fs = 100.0
n_traces, n_samples = 256, 120_000
rng = np.random.default_rng(1906)
dist_km = np.sort(rng.uniform(5.0, 120.0, n_traces))
vp = 6.0  # km/s

# %%
# coloured (1/f-ish) background noise plus Ricker wavelets at the moveout of each event
white = rng.standard_normal((n_traces, n_samples))
b_noise, a_noise = signal.butter(2, 0.2)
data = signal.lfilter(b_noise, a_noise, white, axis=1)
data += 0.3 * white
t_w = np.arange(-100, 100) / fs
f0 = 4.0
ricker = (1 - 2 * (np.pi * f0 * t_w) ** 2) * np.exp(-((np.pi * f0 * t_w) ** 2))
origins = np.sort(rng.uniform(30.0, 1150.0 - 120.0 / vp, 24))
mags = rng.uniform(1.5, 3.5, 24)
rows = np.arange(n_traces)[:, None]
for t0, m in zip(origins, mags):
    arrival = np.round((t0 + dist_km / vp) * fs).astype(np.int64)
    amp = 10 ** (m - 1.5) / np.sqrt(dist_km)
    data[rows, arrival[:, None] + np.arange(-100, 100)] += amp[:, None] * ricker[None, :]
print(data.shape, data.dtype, f"{data.nbytes / 1e6:.0f} MB, rms {data.std():.3f}")

# %% [markdown]
# Pre-processing: demean, taper, zero-phase Butterworth band-pass 1-10 Hz

# %%
data -= data.mean(axis=1, keepdims=True)
taper = signal.windows.tukey(n_samples, alpha=0.01)
data *= taper
sos = signal.butter(4, [1.0, 10.0], btype="bandpass", fs=fs, output="sos")
filt = signal.sosfiltfilt(sos, data, axis=1)
print(f"rms raw {np.sqrt(np.mean(data ** 2)):.4f}, band-passed {np.sqrt(np.mean(filt ** 2)):.4f}")

# %% [markdown]
# Classic STA/LTA with cumulative sums (0.5 s / 10 s windows), triggers on at 4, off at 1.5

# %%
nsta, nlta = int(0.5 * fs), int(10 * fs)
energy = filt ** 2
cs = np.cumsum(energy, axis=1)
cs = np.concatenate([np.zeros((n_traces, 1)), cs], axis=1)
sta = (cs[:, nsta:] - cs[:, :-nsta]) / nsta
lta = (cs[:, nlta:] - cs[:, :-nlta]) / nlta
ratio = np.zeros((n_traces, n_samples))
ratio[:, nlta - 1:] = sta[:, nlta - nsta:] / np.maximum(lta, 1e-12)
on = ratio > 4.0
onsets = np.diff(on.astype(np.int8), axis=1) == 1
tr_idx, smp_idx = np.nonzero(onsets)
pick_t = (smp_idx + 1) / fs
print(f"{len(pick_t)} triggers, max ratio {ratio.max():.1f}")

# %% [markdown]
# Envelope (analytic signal) and a smoothed version for amplitudes

# %%
env = np.abs(signal.hilbert(filt, axis=1))
env_s = ndi.uniform_filter1d(env, size=int(fs), axis=1)
noise_lvl = np.median(env_s, axis=1)
snr = env_s / noise_lvl[:, None]
print(f"median noise envelope {noise_lvl.mean():.4f}, peak SNR {snr.max():.1f}")

# %%
# amplitude of each pick: peak envelope in the 3 s after the trigger
win = np.arange(int(3 * fs))
cols = np.minimum(smp_idx[:, None] + win[None, :], n_samples - 1)
pick_amp = env[tr_idx[:, None], cols].max(axis=1)
pick_snr = pick_amp / noise_lvl[tr_idx]
ml = np.log10(pick_amp) + 1.11 * np.log10(dist_km[tr_idx]) + 0.00189 * dist_km[tr_idx] - 2.09
print(f"local magnitudes: median {np.median(ml):.2f}, 95th {np.percentile(ml, 95):.2f}")

# %% [markdown]
# Relative delays to the nearest station by FFT cross-correlation (41 s window on the largest event)

# %%
nwin = 4096
ev = int(np.argmax(mags))
seg_start = int(np.round((origins[ev] + dist_km[0] / vp - 2.0) * fs))
segs = filt[:, seg_start:seg_start + nwin] * signal.windows.tukey(nwin, 0.1)[None, :]
F = np.fft.rfft(segs, n=2 * nwin, axis=1)
xc = np.fft.irfft(F * np.conj(F[0])[None, :], n=2 * nwin, axis=1)
lags = np.argmax(xc, axis=1)
lags = np.where(lags > nwin, lags - 2 * nwin, lags) / fs
fit = np.polyfit(dist_km - dist_km[0], lags, 1)
print(f"apparent velocity from cross-correlation: {1 / fit[0]:.2f} km/s")

# %% [markdown]
# Delay-and-sum slowness scan of the decimated envelopes (phase shifts in frequency)

# %%
dec = env_s[:, ::5] - env_s[:, ::5].mean(axis=1, keepdims=True)
nd = dec.shape[1]
E = np.fft.rfft(dec, axis=1)
freqs = np.fft.rfftfreq(nd, d=5 / fs)
slowness = np.linspace(0.05, 0.35, 31)
beam_power = np.empty(len(slowness))
for k, s in enumerate(slowness):
    shift = np.exp(2j * np.pi * freqs[None, :] * (s * (dist_km - dist_km[0]))[:, None])
    beam = np.fft.irfft((E * shift).sum(axis=0), n=nd) / n_traces
    beam_power[k] = np.sum(beam ** 2)
best_s = slowness[np.argmax(beam_power)]
print(f"best slowness {best_s:.3f} s/km (velocity {1 / best_s:.2f} km/s)")

# %%
fig, ax = plt.subplots(1, 2, figsize=(12, 4))
ax[0].imshow(env_s[:, :30000:10], aspect="auto", cmap="magma")
ax[0].set_title("smoothed envelope")
ax[1].plot(slowness, beam_power)
ax[1].set_xlabel("slowness (s/km)")
fig.savefig("s15_seismic.png")
plt.close(fig)

# %%
picks = pd.DataFrame({"trace": tr_idx, "dist_km": dist_km[tr_idx], "t": pick_t,
                      "amp": pick_amp, "snr": pick_snr, "ml": ml})
per_station = picks.groupby("trace").agg(n=("t", "size"), ml=("ml", "median"), snr=("snr", "max"))
print(per_station.describe().round(3))
picks.sort_values("snr", ascending=False).head(10)
