"""Probe: scipy.signal IIR filters vs cupyx.scipy.signal on the H200 (time, first call, accuracy)."""
import time
import numpy as np
import scipy.signal as ss
import cupy as cp
import cupyx.scipy.signal as cs

fs = 10_000.0
n = 2_000_000
rng = np.random.default_rng(7)
t = np.arange(n) / fs
x = np.sin(2 * np.pi * 50 * t) + 0.5 * np.sin(2 * np.pi * 1200 * t + 0.3) + 0.2 * rng.standard_normal(n)
xg = cp.asarray(x)
b, a = ss.butter(4, [30, 2000], btype="bandpass", fs=fs)
sos = ss.butter(6, 500, btype="lowpass", fs=fs, output="sos")
sos_bp = ss.butter(4, [30, 2000], btype="bandpass", fs=fs, output="sos")
bl, al = ss.butter(4, 500, btype="lowpass", fs=fs)
X2 = np.ascontiguousarray(np.tile(x[:200_000], (64, 1)))

def run(name, f_cpu, f_gpu):
    t0 = time.perf_counter(); r_cpu = f_cpu(); t_cpu = time.perf_counter() - t0
    t0 = time.perf_counter(); r_gpu = f_gpu(); cp.cuda.Device().synchronize(); t_first = time.perf_counter() - t0
    t0 = time.perf_counter(); r_gpu = f_gpu(); cp.cuda.Device().synchronize(); t_gpu = time.perf_counter() - t0
    g = cp.asnumpy(r_gpu)
    err = np.max(np.abs(g - r_cpu)) / np.max(np.abs(r_cpu))
    print(f"{name:36s} cpu {t_cpu*1e3:9.1f} ms  gpu first {t_first*1e3:9.1f} ms  again {t_gpu*1e3:9.1f} ms  max|d|/max {err:.2e}  rms cpu {np.sqrt(np.mean(r_cpu**2)):.4f} gpu {np.sqrt(np.mean(g**2)):.4f}", flush=True)

run("lfilter ba bandpass o4", lambda: ss.lfilter(b, a, x), lambda: cs.lfilter(cp.asarray(b), cp.asarray(a), xg))
run("filtfilt ba bandpass o4", lambda: ss.filtfilt(b, a, x), lambda: cs.filtfilt(cp.asarray(b), cp.asarray(a), xg))
run("lfilter ba lowpass o4", lambda: ss.lfilter(bl, al, x), lambda: cs.lfilter(cp.asarray(bl), cp.asarray(al), xg))
run("filtfilt ba lowpass o4", lambda: ss.filtfilt(bl, al, x), lambda: cs.filtfilt(cp.asarray(bl), cp.asarray(al), xg))
run("sosfilt lowpass o6", lambda: ss.sosfilt(sos, x), lambda: cs.sosfilt(cp.asarray(sos), xg))
run("sosfiltfilt lowpass o6", lambda: ss.sosfiltfilt(sos, x), lambda: cs.sosfiltfilt(cp.asarray(sos), xg))
run("sosfiltfilt bandpass o4", lambda: ss.sosfiltfilt(sos_bp, x), lambda: cs.sosfiltfilt(cp.asarray(sos_bp), xg))
run("sosfiltfilt 64x200k axis=-1", lambda: ss.sosfiltfilt(sos, X2, axis=-1), lambda: cs.sosfiltfilt(cp.asarray(sos), cp.asarray(X2), axis=-1))
run("filtfilt ba 64x200k lowpass", lambda: ss.filtfilt(bl, al, X2, axis=-1), lambda: cs.filtfilt(cp.asarray(bl), cp.asarray(al), cp.asarray(X2), axis=-1))
# cupyx butter itself
bg, ag = cs.butter(4, [30, 2000], btype="bandpass", fs=fs)
print("butter ba max|d| b", float(np.max(np.abs(cp.asnumpy(bg) - b))), "a", float(np.max(np.abs(cp.asnumpy(ag) - a))))
