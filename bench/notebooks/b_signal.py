# b_signal: Vibration sensor: filtering, spectra and peaks
# A review notebook of the project's sessions 8-9 (written to show GPU speedups at these sizes),
# copied cell for cell from its .ipynb. Self-contained: it makes its own data (fixed seeds).
# The one change: files it writes and reads went to /tmp/ (cells 2, 4, 14);
# here they go to the working directory, which bench/run_notebooks.py makes a fresh temporary
# one per run, so runs cannot read each other's files.
# ruff: noqa  (a notebook as users write it, the engine's input: lint does not reshape it)
# Bench: bench/notebooks_fix.sh (rewrite), bench/run_notebooks.py (run both, compare).

# %% [markdown]
# # Vibration sensor: filtering, spectra and peaks

# %%
import numpy as np
from scipy import signal
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

fs = 10_000.0
n = 2_000_000
rng = np.random.default_rng(7)

# %%
t = np.arange(n) / fs
x = (np.sin(2 * np.pi * 50 * t) + 0.5 * np.sin(2 * np.pi * 1200 * t + 0.3)
     + 0.2 * rng.standard_normal(n))
x = x.astype(np.float64)
np.save("s8_sig.npy", x)

# %% [markdown]
# Band-pass filter (Butterworth, zero phase)

# %%
sig = np.load("s8_sig.npy")
b, a = signal.butter(4, [30, 2000], btype="bandpass", fs=fs)
filt = signal.filtfilt(b, a, sig)
sos = signal.butter(6, 500, btype="lowpass", fs=fs, output="sos")
low = signal.sosfiltfilt(sos, sig)
print(f"rms raw {np.sqrt(np.mean(sig**2)):.4f}, filtered {np.sqrt(np.mean(filt**2)):.4f}")

# %% [markdown]
# Power spectral density

# %%
f, pxx = signal.welch(filt, fs=fs, nperseg=4096)
f_peak = f[np.argmax(pxx)]
print(f"dominant frequency {f_peak:.1f} Hz")

# %%
fs_, ts_, sxx = signal.spectrogram(sig, fs=fs, nperseg=1024, noverlap=512)
sxx_db = 10 * np.log10(sxx + 1e-12)
sxx_db.shape

# %% [markdown]
# FFT by hand

# %%
X = np.fft.rfft(sig)
freqs = np.fft.rfftfreq(n, d=1 / fs)
mag = np.abs(X) / n
top = np.argsort(mag)[-5:][::-1]
for i in top:
    print(f"{freqs[i]:9.2f} Hz  {mag[i]:.4f}")

# %%
env = np.abs(signal.hilbert(filt[:200_000]))
win = signal.get_window("hann", 101)
env_s = np.convolve(env, win / win.sum(), mode="same")
env_s.mean()

# %% [markdown]
# Peak picking on the envelope

# %%
peaks, props = signal.find_peaks(env_s, height=0.5, distance=50)
print(len(peaks), "peaks")
heights = props["peak_heights"]

# %%
dec = signal.decimate(low, 10)
corr = np.correlate(dec[:20000], dec[:2000], mode="valid")
lag = int(np.argmax(corr))
print("lag", lag)

# %%
fig, ax = plt.subplots(2, 1)
ax[0].semilogy(f, pxx)
ax[1].plot(env_s[:5000])
fig.savefig("s8_sig.png"); plt.close(fig)

# %%
res = pd.DataFrame({"freq": freqs[top], "mag": mag[top]})
res["db"] = 20 * np.log10(res["mag"])
res
