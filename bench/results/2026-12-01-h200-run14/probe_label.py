# Probe run on the H200 right after run 14 (tree 474705a): SciPy's and cupyx's label and
# measurements over labels, timed one by one (first run, then the best of three).
import time, numpy as np, cupy as cp, scipy.ndimage as ndi, cupyx.scipy.ndimage as cndi
rng = np.random.default_rng(4)
img = ndi.gaussian_filter(rng.random((4096, 4096)), 4.0)
mask = img > img.mean()
g = cp.asarray(img); gm = cp.asarray(mask)
def t(label, f, sync=True):
    best = []
    for run in range(4):
        if sync: cp.cuda.Device().synchronize()
        t0 = time.perf_counter(); r = f()
        if sync: cp.cuda.Device().synchronize()
        best.append((time.perf_counter()-t0)*1e3)
    print(f"{label:40s} first {best[0]:9.2f} ms  best of rest {min(best[1:]):9.2f} ms", flush=True)
    return r
labels, n = t("scipy label", lambda: ndi.label(mask), False)
print("components", n)
t("scipy sum(mask, labels, range)", lambda: ndi.sum(mask, labels, range(1, n + 1)), False)
t("scipy mean(img, labels, range)", lambda: ndi.mean(img, labels, range(1, n + 1)), False)
gl, gn = t("cupyx label", lambda: cndi.label(gm))
idx = cp.arange(1, gn + 1)
t("cupyx sum(mask int32, labels, idx)", lambda: cndi.sum(gm.astype(cp.int32), gl, idx))
t("cupyx mean(img, labels, idx)", lambda: cndi.mean(g, gl, idx))
for size in (1024, 2048, 8192):
    m2 = cp.asarray(ndi.gaussian_filter(rng.random((size, size)), 4.0) > 0.5)
    t(f"cupyx label {size}^2", lambda: cndi.label(m2))
