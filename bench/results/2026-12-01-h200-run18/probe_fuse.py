"""Probe (not committed as a script; its output is): CuPy semantics the rewrites rely on."""
import numpy as np, cupy as cp


@cp.fuse()
def f(a, x):
    return a * x * x + x


x = cp.random.random(1000, dtype=cp.float32)
hx = cp.asnumpy(x)
print("fuse np.float64 scalar, float32 array ->", f(np.float64(0.5), x).dtype, "| NumPy:", (np.float64(0.5) * hx * hx + hx).dtype)
print("fuse np.exp(-1.0) ->", f(np.exp(-1.0), x).dtype, "| NumPy:", (np.exp(-1.0) * hx * hx + hx).dtype)
print("fuse python float ->", f(0.5, x).dtype, "| NumPy:", (0.5 * hx * hx + hx).dtype)
got = f(np.float64(0.5), x)
print("values equal to NumPy's:", bool(cp.allclose(got, cp.asarray(np.float64(0.5) * hx * hx + hx), rtol=1e-12, atol=0)))
print("lstsq signature default rcond:", __import__("inspect").signature(cp.linalg.lstsq))
