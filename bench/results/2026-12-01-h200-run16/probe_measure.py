"""Probe (not committed): cupyx.scipy.ndimage measurements vs cp.bincount forms on the H200."""
import sys, time
import numpy as np, cupy as cp
import cupyx.scipy.ndimage as cndi
import scipy.ndimage as ndi
from cupyx.profiler import benchmark

def ms(f):
    r = benchmark(f, n_repeat=20, n_warmup=3)
    return float(np.median(r.gpu_times)) * 1e3

rng = np.random.default_rng(4)
img = ndi.gaussian_filter(rng.random((4096, 4096)), 4.0)
d = cp.asarray(img)
for thr_name, mask in [("many", d > d.mean()), ("few", d > d.mean() + 3 * d.std())]:
    labels, n = cndi.label(mask)
    n = int(n)
    idx = cp.arange(1, n + 1)
    m32 = mask.astype(cp.int32)
    rows = []
    a = cndi.sum(m32, labels, idx); b = cp.bincount(labels.ravel(), minlength=n + 1)[1:]
    rows.append(("sum(mask)", ms(lambda: cndi.sum(m32, labels, idx)), ms(lambda: cp.bincount(labels.ravel(), minlength=n + 1)[1:]), bool(cp.array_equal(a, b))))
    a = cndi.sum(d, labels, idx); b = cp.bincount(labels.ravel(), weights=d.ravel(), minlength=n + 1)[1:]
    rows.append(("sum(img)", ms(lambda: cndi.sum(d, labels, idx)), ms(lambda: cp.bincount(labels.ravel(), weights=d.ravel(), minlength=n + 1)[1:]), float(cp.max(cp.abs(a - b) / cp.abs(a)))))
    def mean_bc():
        s = cp.bincount(labels.ravel(), weights=d.ravel(), minlength=n + 1)[1:]
        c = cp.bincount(labels.ravel(), minlength=n + 1)[1:]
        return s / c
    a = cndi.mean(d, labels, idx); b = mean_bc()
    rows.append(("mean(img)", ms(lambda: cndi.mean(d, labels, idx)), ms(mean_bc), float(cp.max(cp.abs(a - b) / cp.abs(a)))))
    bright = d > d.mean() + 0.5 * d.std()
    b32 = bright.astype(cp.int32)
    a = cndi.sum(b32, labels, idx); b = cp.bincount(cp.where(bright, labels, 0).ravel(), minlength=n + 1)[1:]
    rows.append(("sum(bright)", ms(lambda: cndi.sum(b32, labels, idx)), ms(lambda: cp.bincount(cp.where(bright, labels, 0).ravel(), minlength=n + 1)[1:].astype(cp.float64)), bool(cp.array_equal(a, b))))
    rows.append(("label", ms(lambda: cndi.label(mask)), 0.0, True))
    print(f"--- {thr_name}: n={n}")
    for r in rows:
        print(f"{r[0]:10s} cupyx {r[1]:8.3f} ms  bincount {r[2]:8.3f} ms  match/relerr {r[3]}")
print(cp.__version__, np.__version__)
