"""Why two FFT fixtures 'differ': error statistics of the original and of modified data."""
import numpy as np, cupy as cp, scipy.fft, cupyx.scipy.fft

def stats(name, a, b):
    a = np.asarray(a); b = cp.asnumpy(b)
    d = np.abs(a - b); ok = np.isclose(b, a, rtol=1e-6 if a.real.dtype == np.float64 else 1e-3, atol=1e-6 if a.real.dtype == np.float64 else 1e-3)
    print(f"{name:28s} {a.dtype} max|d|={d.max():.3g} max|a|={np.abs(a).max():.3g} rel-to-max={d.max()/np.abs(a).max():.3g} not-close={(~ok).sum()} of {a.size}; worst a={a.ravel()[np.argmax(d)]:.4g} b={b.ravel()[np.argmax(d)]:.4g}")

for label, x in [("sine", np.sin(np.arange(4_000_000) * 0.01)),
                 ("sine+noise", np.sin(np.arange(4_000_000) * 0.01) + 0.1 * np.random.default_rng(0).standard_normal(4_000_000))]:
    fr = np.lib.stride_tricks.sliding_window_view(x, 1024)[::256]
    S = np.abs(np.fft.rfft(fr * np.hanning(1024), axis=1)) ** 2
    g = cp.lib.stride_tricks.sliding_window_view(cp.asarray(x), 1024)[::256]
    Sg = cp.abs(cp.fft.rfft(g * cp.hanning(1024), axis=1)) ** 2
    stats(f"S {label}", S, Sg)

for label, x in [("uniform", np.random.default_rng(0).random(4_000_000).astype(np.float32)),
                 ("normal", np.random.default_rng(0).standard_normal(4_000_000).astype(np.float32))]:
    X = scipy.fft.fft(x); Xg = cupyx.scipy.fft.fft(cp.asarray(x))
    stats(f"X {label}", X, Xg)
    for form, f in [("sqrt", lambda X, m: m.sqrt(X * X + 1.0) * 0.5 - X), ("nosqrt", lambda X, m: (X * X + 1.0) * 0.5 - X)]:
        stats(f"p {label} {form}", f(X, np), cp.fuse()(lambda X: f(X, cp))(Xg))
