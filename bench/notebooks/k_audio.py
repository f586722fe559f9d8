# k_audio: Bird-song recordings: STFT, mel spectrogram and frame features
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# Unchanged.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Bird-song recordings: STFT, mel spectrogram and frame features

# %%
import numpy as np
from scipy import signal
from scipy.fft import dct
import pandas as pd

sr = 22050
dur = 300.0                       # five minutes of audio
n = int(sr * dur)
t = np.arange(n) / sr
rng = np.random.default_rng(11)
chirp = signal.chirp(t % 2.0, f0=2000, f1=6000, t1=2.0) * (np.sin(2 * np.pi * 0.5 * t) > 0.3)
audio = (0.3 * chirp + 0.05 * rng.standard_normal(n)).astype(np.float32)
print(audio.shape, f"{audio.nbytes/1e6:.1f} MB")

# %% [markdown]
# Pre-emphasis and framing

# %%
emph = np.append(audio[0], audio[1:] - 0.97 * audio[:-1])
n_fft, hop = 1024, 256
n_frames = 1 + (len(emph) - n_fft) // hop
idx = np.arange(n_fft)[None, :] + hop * np.arange(n_frames)[:, None]
frames = emph[idx] * np.hanning(n_fft).astype(np.float32)
frames.shape

# %% [markdown]
# Power spectrogram

# %%
spec = np.fft.rfft(frames, axis=1)
power = (np.abs(spec) ** 2) / n_fft
freqs = np.fft.rfftfreq(n_fft, 1 / sr)
print(power.shape, power.dtype)

# %% [markdown]
# Mel filterbank (triangular) and log-mel

# %%
def hz2mel(f):
    return 2595 * np.log10(1 + f / 700)
def mel2hz(m):
    return 700 * (10 ** (m / 2595) - 1)
n_mels = 64
mpts = np.linspace(hz2mel(0), hz2mel(sr / 2), n_mels + 2)
bins = np.floor((n_fft + 1) * mel2hz(mpts) / sr).astype(int)
fb = np.zeros((n_mels, n_fft // 2 + 1))
for m in range(1, n_mels + 1):
    l, c, r = bins[m - 1], bins[m], bins[m + 1]
    for k in range(l, c):
        fb[m - 1, k] = (k - l) / (c - l)
    for k in range(c, r):
        fb[m - 1, k] = (r - k) / (r - c)
mel = power @ fb.T
logmel = 10 * np.log10(np.maximum(mel, 1e-10))
mfcc = dct(logmel, type=2, axis=1, norm="ortho")[:, :13]
print(logmel.shape, mfcc.shape)

# %% [markdown]
# Spectral features per frame

# %%
centroid = (power * freqs).sum(axis=1) / (power.sum(axis=1) + 1e-12)
cum = np.cumsum(power, axis=1)
rolloff = freqs[np.argmax(cum >= 0.85 * cum[:, -1:], axis=1)]
flatness = np.exp(np.mean(np.log(power + 1e-12), axis=1)) / (np.mean(power, axis=1) + 1e-12)
flux = np.r_[0, np.sqrt((np.diff(np.sqrt(power), axis=0) ** 2).sum(axis=1))]
zcr = (np.abs(np.diff(np.sign(frames), axis=1)) > 0).mean(axis=1)
rms = np.sqrt((frames ** 2).mean(axis=1))
feat = pd.DataFrame({"centroid": centroid, "rolloff": rolloff, "flatness": flatness,
                     "flux": flux, "zcr": zcr, "rms": rms})
feat.describe().round(3)

# %% [markdown]
# Onset detection from spectral flux

# %%
thresh = np.median(flux) + 3 * np.std(flux)
onsets = np.flatnonzero((flux[1:-1] > flux[:-2]) & (flux[1:-1] > flux[2:]) & (flux[1:-1] > thresh)) + 1
onset_times = onsets * hop / sr
print(f"{len(onsets)} onsets, first {onset_times[:5]}")

# %% [markdown]
# Per-second summaries and CMVN

# %%
frames_per_sec = sr // hop
nsec = n_frames // frames_per_sec
persec = logmel[: nsec * frames_per_sec].reshape(nsec, frames_per_sec, n_mels).mean(axis=1)
cmvn = (mfcc - mfcc.mean(axis=0)) / (mfcc.std(axis=0) + 1e-8)
delta = np.gradient(cmvn, axis=0)
stats = {"mean_db": float(logmel.mean()), "max_db": float(logmel.max()), "persec": persec.shape}
stats

# %% [markdown]
# Welch PSD per 10 s chunk

# %%
chunks = audio[: (n // (10 * sr)) * 10 * sr].reshape(-1, 10 * sr)
f_w, pxx = signal.welch(chunks, fs=sr, nperseg=2048, axis=1)
band = (f_w > 1500) & (f_w < 7000)
band_power = pxx[:, band].sum(axis=1) * (f_w[1] - f_w[0])
print(np.round(band_power[:6], 5))
