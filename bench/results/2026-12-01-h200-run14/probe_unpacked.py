import time, numpy as np, cupy as cp
rng = np.random.default_rng(3)
m = rng.random((2000, 2000)); S = m @ m.T + 2000 * np.eye(2000)
x = rng.random(10_000_000); k = rng.integers(0, 1000, 10_000_000)
k_gpu = cp.asarray(k); S_gpu = cp.asarray(S); x_gpu = cp.asarray(x)
def t(label, f):
    for run in range(3):
        cp.cuda.Device().synchronize(); t0 = time.perf_counter(); f(); cp.cuda.Device().synchronize()
        print(f"{label:30s} run {run}: {(time.perf_counter()-t0)*1e3:9.2f} ms", flush=True)
t("unique(return_counts)", lambda: cp.unique(k_gpu, return_counts=True))
t("slogdet", lambda: cp.linalg.slogdet(S_gpu))
t("histogram bins=64", lambda: cp.histogram(x_gpu, bins=64))
t("numpy unique", lambda: np.unique(k, return_counts=True))
t("numpy histogram", lambda: np.histogram(x, bins=64))
t("numpy slogdet", lambda: np.linalg.slogdet(S))
