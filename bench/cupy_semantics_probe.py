"""What the rewrites assume of CuPy, checked on the GPU (references/cupy.md).

Run on the GPU machine: python3 bench/cupy_semantics_probe.py. Each check prints PASS/FAIL/INFO
and one line of evidence; the table at the end is what bench/RESULTS.md records.

1. A typed ElementwiseKernel compiled with options=('--fmad=false',) rounds `a * b + c` as NumPy
   does (no fused multiply-add), bit for bit; without the option NVRTC may contract it.
2. @cp.fuse() with Python scalars: `x * (a * b)` with two Python numbers combined inside the
   fused function, against the one precomputed argument the engine passes (value and dtype, vs
   NumPy); a Python scalar of a higher kind than the array; `a * b + c` (cp.fuse takes no
   compile options). ReductionKernels: the CUB path's renaming of the input, whether the
   kernel's options reach it, and cp.exp of a Python float.
3. ndarray.sort() on a non-C-contiguous array (a column slice, a Fortran-ordered array) raises;
   `v[...] = cp.sort(v)` sorts it through a contiguous copy, as NumPy's in-place sort would.
4. ndarray.get(out=...) writes into a Fortran-ordered host array and into a C-contiguous one
   (the write-back into the same host array).
5. cupyx.scipy.sparse's product sums duplicate entries of the matrix in place (its nnz drops),
   which is why a matrix read later is rebuilt on the host instead of copied back.
6. A 0-d result brought back with .get()[()] is a NumPy scalar of the result's dtype, as NumPy's
   own reduction returns.
7. cp.arange in float32 against np.arange, bit for bit: from 0 (any step, past 2**24) and from a
   start not 0 with a power-of-two step it must be NumPy's (the engine keeps cp.arange there);
   from a start not 0 with a fractional step, or integers past 2**24, the engine makes it with
   NumPy on the host, because CuPy's fused `start + i*step` differs: each case's count of
   differing values must be the one the CPU model here predicts (NumPy's separate roundings of
   `a0 + i*(a1 - a0)` against one rounding of `i*step + start`).
8. CuPy's float `%` is `x - floor(x/y)*y`: for x = float32 0..41M and y = 251, x/y rounds up to
   the next integer for some x and gives r - 251 where NumPy (fmod-based) gives r. The count
   must be the CPU model's (32,117 values; the cause of run 26's consumer-copy failures).
9. The engine's np_remainder / np_floor_divide (the definitions a rewrite of float `%` and `//`
   makes, taken from GPU101/flag-float32-remainder-past-2-24-exact's candidate) give NumPy's
   values bit for bit: check 8's case and float64 operands of both signs, zeros, infinities
   and NaN (references/cupy.md#float-mod).
"""

from __future__ import annotations

import cupy as cp
import cupyx.scipy.sparse as cusp
import numpy as np
import scipy.sparse as sp

rows: list[tuple[str, str, str]] = []


def record(check: str, verdict: str, evidence: str) -> None:
    rows.append((check, verdict, evidence))
    print(f"[{verdict}] {check}: {evidence}", flush=True)


def fma() -> None:
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(1 << 22).astype(np.float32) for _ in range(3))
    want = a * b + c
    body = "y = a * b + c"
    params = "float32 a, float32 b, float32 c"
    plain = cp.ElementwiseKernel(params, "float32 y", body, "fma_default")
    strict = cp.ElementwiseKernel(params, "float32 y", body, "fma_off", options=("--fmad=false",))
    da, db, dc = cp.asarray(a), cp.asarray(b), cp.asarray(c)
    n_plain = int(np.count_nonzero(plain(da, db, dc).get() != want))
    n_strict = int(np.count_nonzero(strict(da, db, dc).get() != want))
    record(
        "ElementwiseKernel --fmad=false is bitwise NumPy",
        "PASS" if n_strict == 0 else "FAIL",
        f"{n_strict} of {want.size} differ with the option, {n_plain} without",
    )


def _times_product(x, a, b):  # cp.fuse names its kernel after the function: no lambdas
    return x * (a * b)


def _times(x, s):
    return x * s


def _half(a):
    return a * 0.5


def _double(a):
    return a * 2


def _muladd(p, q, r):
    return p * q + r


def fuse_scalars() -> None:
    x = np.ones(3, np.float32)
    dx = cp.asarray(x)
    # two Python scalars combined inside a fused function (the old fallback's form), against the
    # form the engine now emits: the numbers-only piece computed by the cell, one argument
    for a, b in [(0.1, 7), (100.0, 999), (100, 3)]:
        want = x * (a * b)
        got = cp.fuse()(_times_product)(dx, a, b)
        one = cp.fuse()(_times)(dx, a * b)
        same = got.dtype == want.dtype and np.array_equal(got.get(), want)
        same_one = one.dtype == want.dtype and np.array_equal(one.get(), want)
        record(
            f"cp.fuse x * (a * b), a={a!r}, b={b!r}",
            "INFO" if not same else "PASS",
            f"two scalars inside: {got.dtype} {got.get()[0]!r}; one precomputed argument: "
            f"{one.dtype} {one.get()[0]!r} ({'PASS' if same_one else 'FAIL'}); NumPy "
            f"{want.dtype} {want[0]!r}",
        )
    # a Python scalar of a higher kind than the array inside cp.fuse (the engine keeps these op
    # by op)
    for label, fn, arr, want in [
        ("uint8 * 0.5", _half, np.ones(3, np.uint8), np.ones(3, np.uint8) * 0.5),
        ("bool * 2", _double, np.ones(3, bool), np.ones(3, bool) * 2),
    ]:
        got = cp.fuse()(fn)(cp.asarray(arr))
        record(
            f"cp.fuse {label}",
            "INFO",
            f"fused {got.dtype}, op by op "
            f"{(cp.asarray(arr) * (0.5 if fn is _half else 2)).dtype}, NumPy {want.dtype}",
        )
    # fused bodies take no compile options: a * b + c may be one FMA there
    rng = np.random.default_rng(1)
    a, b, c = (rng.random(1 << 20, dtype=np.float32) for _ in range(3))
    got = cp.fuse()(_muladd)(cp.asarray(a), cp.asarray(b), cp.asarray(c)).get()
    record(
        "cp.fuse a * b + c against NumPy",
        "INFO",
        f"{int((got != a * b + c).sum())} of {a.size} elements differ (no compile options in "
        "cp.fuse)",
    )


def reduction_kernels() -> None:
    # CuPy's CUB path for a one-input ReductionKernel renames the input by text replacement
    k = cp.ReductionKernel(
        "float32 d",
        "float32 r",
        "(double)(d * d)",
        "a + b",
        "r = (float)a",
        "0",
        "k_probe",
        reduce_type="double",
    )
    small = float(k(cp.ones(100, cp.float32)))
    try:
        big = f"{float(k(cp.ones(1000, cp.float32)))!r}"
    except Exception as e:  # the rename breaks `(double)` into `(in0ouble)`
        big = f"raised {type(e).__name__}"
    record(
        "ReductionKernel with an input named d (CUB from 128 elements)",
        "INFO",
        f"100 elements: {small!r}; 1000 elements: {big}",
    )
    # do the kernel's options reach the CUB path? (__fmul_rn/__fadd_rn are never contracted)
    a = cp.asarray(np.random.default_rng(0).random(1 << 20, dtype=np.float32))
    counts = []
    for opts in ((), ("--fmad=false",)):
        kk = cp.ReductionKernel(
            "float32 v",
            "int64 r",
            "((v * v + 1.0f) != __fadd_rn(__fmul_rn(v, v), 1.0f)) ? 1 : 0",
            "a + b",
            "r = a",
            "0",
            "fma_probe",
            options=opts,
        )
        counts.append(
            f"options={opts}: {int(kk(a))} contracted (CUB, 1M), {int(kk(a[:100]))} (no CUB, 100)"
        )
    record("ReductionKernel options on the CUB path", "INFO", "; ".join(counts))
    # a ufunc of a Python float gives a 0-d float64 array
    # (flag-elementwise-ufunc-of-scalars-not-typed)
    e = cp.exp(-0.5 * 2.0)
    record(
        "cp.exp(Python float)",
        "PASS" if getattr(e, "dtype", None) == np.float64 else "FAIL",
        f"{type(e).__name__} {getattr(e, 'dtype', None)} shape {getattr(e, 'shape', None)}",
    )


def sort_views() -> None:
    host = np.random.default_rng(1).random((64, 64))
    for label, make in [
        ("column slice u[:, :10]", lambda u: u[:, :10]),
        ("Fortran-ordered array", lambda u: u),
    ]:
        u = cp.asfortranarray(cp.asarray(host)) if label.startswith("Fortran") else cp.asarray(host)
        try:
            make(u).sort(axis=0)
            raised = "sorted in place"
        except NotImplementedError as e:
            raised = f"NotImplementedError: {e}"
        u = cp.asfortranarray(cp.asarray(host)) if label.startswith("Fortran") else cp.asarray(host)
        v = make(u)
        v[...] = cp.sort(v, axis=0)
        want = host.copy(order="F" if label.startswith("Fortran") else "C")
        make(want).sort(axis=0)
        ok = np.array_equal(u.get(), want)
        record(
            f"sort of a {label}",
            "PASS" if ok else "FAIL",
            f"ndarray.sort: {raised}; v[...] = cp.sort(v, axis=0) equals NumPy: {ok}",
        )


def get_out() -> None:
    for order in ("C", "F"):
        host = np.zeros((512, 256), order=order)
        dev = cp.asarray(np.arange(host.size, dtype=np.float64).reshape(host.shape, order=order))
        dev.get(out=host)
        ok = np.array_equal(host, dev.get())
        record(
            f"get(out=) into a {order}-ordered host array", "PASS" if ok else "FAIL", f"equal: {ok}"
        )


def sparse_duplicates() -> None:
    n = 1000
    indptr = np.arange(0, 2 * n + 1, 2, dtype=np.int32)
    indices = np.repeat(np.arange(n, dtype=np.int32), 2)  # every row: the same column twice
    data = np.ones(2 * n)
    host = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    dev = cusp.csr_matrix((cp.asarray(data), cp.asarray(indices), cp.asarray(indptr)), shape=(n, n))
    before = dev.nnz
    w = dev @ cp.ones(n)
    record(
        "cupyx product sums duplicates in place",
        "INFO",
        f"SciPy nnz {host.nnz}; device nnz {before} before the product, {dev.nnz} after; product "
        f"equal: {np.array_equal(w.get(), host @ np.ones(n))}",
    )


def scalar_back() -> None:
    x = np.random.default_rng(2).random(1000)
    for name, host, dev in [
        ("sum", x.sum(), cp.asarray(x).sum()),
        ("median", np.median(x), cp.median(cp.asarray(x))),
    ]:
        back = dev.get()[()]
        ok = type(back) is type(host) and back.dtype == host.dtype
        record(
            f"{name}: .get()[()] is NumPy's scalar type",
            "PASS" if ok else "FAIL",
            f"{type(back).__name__} vs NumPy's {type(host).__name__}",
        )


def _arange_model(start, stop, step):
    """Bit for bit what CuPy 14's float32 arange computes: fma(float32(i), T(step), T(start))."""
    n = max(0, int(np.ceil((stop - start) / step)))
    i = np.arange(n, dtype=np.int64).astype(np.float32)
    t, s = np.longdouble(np.float32(step)), np.longdouble(np.float32(start))
    exact = i.astype(np.longdouble) * t + s  # float32 products are exact in longdouble
    return exact.astype(np.float32)


def arange_exactness() -> None:
    cases = [
        ((0, 41_000_000, 1), True),
        ((0, 3e8, 7), True),
        ((0.0, 2e6, 0.1), True),
        ((3.0, 2**25, 0.5), True),
        ((1, 2**25, 1), True),
        ((1.0, 2e6, 0.1), False),
        ((0.5, 4e7, 1.5), False),
        ((5, 3e7, 3), False),
    ]
    for (start, stop, step), engine_keeps_cupy in cases:
        host = np.arange(start, stop, step, dtype=np.float32)
        dev = cp.arange(start, stop, step, dtype=cp.float32).get()
        differ = int(np.count_nonzero(host.view(np.uint32) != dev.view(np.uint32)))
        model = int(np.count_nonzero(host != _arange_model(start, stop, step)))
        ok = differ == model and (differ == 0) == engine_keeps_cupy
        record(
            f"float32 arange({start}, {stop}, {step})",
            "PASS" if ok else "FAIL",
            f"{differ} of {host.size} differ from NumPy (CPU model {model}; engine "
            f"{'keeps cp.arange' if engine_keeps_cupy else 'makes it on the host'})",
        )


def float_remainder() -> None:
    x = np.arange(20000 * 2048, dtype=np.float32)
    host = x % 251
    dev = (cp.asarray(x) % 251).get()
    q = np.floor(x / np.float32(251))
    model = (x.astype(np.float64) - q.astype(np.float64) * 251).astype(np.float32)
    differ = int(np.count_nonzero(host != dev))
    predicted = int(np.count_nonzero(host != model))
    record(
        "float32 % is x - floor(x/y)*y (fused)",
        "INFO" if differ == predicted else "FAIL",
        f"{differ} of {x.size} differ from NumPy's x % 251 (CPU model {predicted}); "
        f"min {float(dev.min())} (NumPy {float(host.min())})",
    )


_FLOAT_MOD_FIXTURE = "test/fixtures/rules/GPU101/flag-float32-remainder-past-2-24-exact/expected.py"


def engine_float_mod() -> None:
    """The engine's np_remainder / np_floor_divide (exec'd from the fixture's candidate) against
    NumPy, bit for bit (signed zeros included): float32 0..40.96M by 251 (check 8's case) and
    float64 operands of both signs, zeros and infinities among them."""
    import pathlib

    text = (pathlib.Path(__file__).resolve().parents[1] / _FLOAT_MOD_FIXTURE).read_text()
    start = text.index("np_remainder_kernel = ")
    end = text.index("\nr = np_remainder(")
    ns = {"cp": cp}
    exec(text[start:end], ns)  # noqa: S102  (the engine's own definitions, from the repository)
    rng = np.random.default_rng(8)
    a64 = rng.standard_normal(4_000_000) * 10.0 ** rng.integers(-8, 9, 4_000_000)
    b64 = rng.standard_normal(4_000_000) * 10.0 ** rng.integers(-8, 9, 4_000_000)
    special = np.array([0.0, -0.0, 1.5, -1.5, 7.5, -7.5, np.inf, -np.inf, np.nan])
    a64 = np.concatenate([a64, np.repeat(special, special.size)])
    b64 = np.concatenate([b64, np.tile(special, special.size)])
    x32 = np.arange(20000 * 2048, dtype=np.float32)
    cases = [("float32 0..40.96M by 251", x32, 251), ("float64 a, b", a64, b64)]
    with np.errstate(all="ignore"):
        for label, a, b in cases:
            db = cp.asarray(b) if isinstance(b, np.ndarray) else b
            for name, host_fn in (
                ("np_remainder", np.remainder),
                ("np_floor_divide", np.floor_divide),
            ):
                host = host_fn(a, b)
                dev = ns[name](cp.asarray(a), db).get()
                same = (host == dev) | (np.isnan(host) & np.isnan(dev))
                sign = (np.signbit(host) != np.signbit(dev)) & ~np.isnan(host)
                differ = int(np.count_nonzero(~same | sign))
                record(
                    f"engine {name}: {label}",
                    "PASS" if differ == 0 and dev.dtype == host.dtype else "FAIL",
                    f"{differ} of {host.size} differ from NumPy's (dtype {dev.dtype})",
                )


def main() -> None:
    print(
        f"CuPy {cp.__version__}, NumPy {np.__version__}, device "
        f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}",
        flush=True,
    )
    for check in (
        fma,
        fuse_scalars,
        reduction_kernels,
        sort_views,
        get_out,
        sparse_duplicates,
        scalar_back,
        arange_exactness,
        float_remainder,
        engine_float_mod,
    ):
        try:
            check()
        except Exception as e:  # a failing check is a finding, not the end of the probe
            record(check.__name__, "FAIL", f"{type(e).__name__}: {e}")
    print("\n| check | verdict | evidence |\n|---|---|---|")
    for check, verdict, evidence in rows:
        print(f"| {check} | {verdict} | {evidence} |")


if __name__ == "__main__":
    main()
