"""GPU103's kernels for groups of consecutive statements, run on the CPU against NumPy (no GPU).

`y = np.sqrt(x * x + z * z)` then `w = np.exp(-y) * 2` become one ElementwiseKernel with two
outputs (`y, w = y_w_kernel(x_gpu, z_gpu)`), or with `w` alone when nothing reads `y` after the
two statements: `y` is then a C local of the kernel (`const double y = ...`), never written. A
ufunc's `out=u` first writes `u` in place, and the kernel takes every output (`v` allocated with
`cp.empty`). Each fixture's candidate is executed as written on the CuPy test double, with
`cp.ElementwiseKernel` replaced by its operation compiled with g++ as CuPy builds it: each input
read into a `const` local, each output a reference to its element (`T &y = _raw_y[i]`), one
loop over the elements, no FMA contraction (-ffp-contract=off; the kernels are compiled with
--fmad=false). Every array the NumPy cell leaves (new or updated in place), the cell run with
libm's exp and power (float64) and expf and log1pf (float32) in place of NumPy's own SIMD ones
(_LibmNumPy32: the functions the compiled kernel calls), must equal the candidate's bit for bit,
dtype included: the members' order of operations and the rounding of every stored value are
NumPy's. A local must leave its name unbound. A float32 local must be a `float` (the value NumPy
stores): the same kernel with `double` locals differs from NumPy, which shows that the check sees
the difference. (NumPy's own float32 exp and log1p, and CUDA's, may differ from libm's in the
last bit: that is not what is compared here.)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import pathlib
import re
from collections.abc import Callable

import numpy as np
import pytest
from test_elementwise_kernel_writes_cpu import _LibmNumPy
from test_generated_kernels_cpu import (
    FIXTURES,
    _cells,
    _compile,
    _copied,
    _cxx20,
    _library_kernel_blocks,
    _outcome,
    _ptr,
    double_cupy,  # noqa: F401  (the fixture, by name)
    fixture_seed,
)

pytestmark = pytest.mark.skipif(not _cxx20(), reason="needs g++ with C++20")

CTYPE = {"float32": "float", "float64": "double"}

_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
for _f in ("expf", "log1pf"):
    getattr(_LIBM, _f).restype = ctypes.c_float
    getattr(_LIBM, _f).argtypes = [ctypes.c_float]


class _LibmNumPy32(_LibmNumPy):
    """_LibmNumPy whose float32 exp and log1p are libm's `expf` and `log1pf` too, as the emulated
    kernel's are: NumPy's float32 ones are its own SIMD code, within an ulp of libm's (and CUDA's
    within two). What these tests check is the order and rounding of the members' operations."""

    @staticmethod
    def _libm32(ufunc: np.ufunc, f: Callable[[float], float], a: object) -> np.ndarray:
        if np.asarray(a).dtype != np.float32:
            return ufunc(a)
        return np.frompyfunc(f, 1, 1)(a).astype(np.float32)

    def exp(self, a: object) -> np.ndarray:
        return self._libm32(super().exp, _LIBM.expf, a)

    def log1p(self, a: object) -> np.ndarray:
        return self._libm32(np.log1p, _LIBM.log1pf, a)


# case: the names NumPy binds that the candidate keeps in the kernel's registers
GROUPS = {
    "flag-group-intermediate-read-later": set(),
    "flag-group-intermediate-local": {"y"},
    "flag-group-three-statements": {"s"},
    "flag-ufunc-out-first-not-uploaded": set(),
    "flag-group-rebinding-pair": set(),
    "flag-group-rebinding-triple": set(),
    "flag-group-rebound-name-read-later": {"s"},
}

# case: the registers of a name's earlier bindings where a later member binds it again
# (`R = f(x)`, `R = g(R)`, `R = h(R)`: `R_`, `R_2`, and the output `R`)
REBOUND = {
    "flag-group-rebinding-pair": {"R_"},
    "flag-group-rebinding-triple": {"R_", "R_2"},
    "flag-group-rebound-name-read-later": {"R_", "R_2"},
}


def _emulated_elementwise_kernel(  # noqa: ANN202
    tmp: pathlib.Path, edit: Callable[[str], str] | None = None
):
    """`cp.ElementwiseKernel` for the double: the operation compiled with g++ as CuPy wraps it.
    `edit` rewrites the operation first, for the checks that a difference shows in the results
    (a float32 local kept in a double, a literal read as another value)."""

    class ElementwiseKernel:
        def __init__(
            self, in_params: str, out_params: str, operation: str, name: str, **kw: object
        ) -> None:
            assert kw.get("options") == ("--fmad=false",)  # as emulated: -ffp-contract=off
            self.ins = [p.split() for p in in_params.split(",")]
            self.outs = [p.split() for p in out_params.split(",")]
            if edit:
                operation = edit(operation)
            params = [f"const {CTYPE[d]}* _in_{n}" for d, n in self.ins]
            params += [f"{CTYPE[d]}* _out_{n}" for d, n in self.outs]
            # a one-element input (a scalar argument) is read at 0 by every element
            loads = " ".join(
                f"const {CTYPE[d]} {n} = _in_{n}[_one & (1u << {k}) ? 0 : _k];"
                for k, (d, n) in enumerate(self.ins)
            )
            refs = " ".join(f"{CTYPE[d]} &{n} = _out_{n}[_k];" for d, n in self.outs)
            code = f"""#include <math.h>
extern "C" void run({", ".join(params)}, unsigned _one, long long _n) {{
    for (long long _k = 0; _k < _n; _k++) {{
        {loads} {refs} {operation};
    }}
}}
"""
            self.run = _compile(tmp, f"{name}_{'edited' if edit else 'as_written'}", code).run

        def __call__(self, *args: object) -> object:
            import cupy as cp

            nin, nout = len(self.ins), len(self.outs)
            assert len(args) in (nin, nin + nout), (len(args), nin, nout)  # all outputs or none
            ins = [np.asarray(a) for a in args[:nin]]
            shape = np.broadcast_shapes(*(a.shape for a in ins))
            for a, (d, _) in zip(ins, self.ins, strict=True):
                # the candidate passes arrays of the kernel's dtype and the group's one shape
                assert a.shape in (shape, ()) and (a.shape == () or a.dtype == np.dtype(d)), a
            # (before ascontiguousarray, which makes a 0-d scalar 1-d)
            one = sum(1 << k for k, a in enumerate(ins) if a.shape == ())
            ins = [
                np.ascontiguousarray(a, dtype=d) for a, (d, _) in zip(ins, self.ins, strict=True)
            ]
            if len(args) == nin:
                outs = [cp.empty(shape, dtype=d) for d, _ in self.outs]
            else:
                outs = list(args[nin:])
            for o, (d, _) in zip(outs, self.outs, strict=True):
                assert isinstance(o, np.ndarray) and o.flags.c_contiguous
                assert o.shape == shape and o.dtype == np.dtype(d), (o.shape, o.dtype, shape, d)
            size = int(np.prod(shape))
            self.run(*[_ptr(a) for a in ins + outs], ctypes.c_uint(one), ctypes.c_longlong(size))
            return outs[0] if nout == 1 else tuple(outs)

    return ElementwiseKernel


def _run(
    case: str,
    cupy_double: object,
    monkeypatch: pytest.MonkeyPatch,
    tmp: pathlib.Path,
    edit: Callable[[str], str] | None = None,
) -> tuple[dict, dict, dict]:
    """The NumPy cell's namespace and the candidate's, from the same small inputs (`edit`: see
    _emulated_elementwise_kernel)."""
    monkeypatch.setattr(cupy_double, "ElementwiseKernel", _emulated_elementwise_kernel(tmp, edit))
    setup, target = _cells(FIXTURES / case / "notebook.py")
    expected = (FIXTURES / case / "expected.py").read_text()
    np.random.seed(fixture_seed(case))
    base: dict = {}
    exec(setup.replace("20_000_000", "100_003"), base)  # noqa: S102
    status, want = _outcome(target, {**_copied(base), "np": _LibmNumPy32()})
    assert status == "ok", status
    gpu_code = re.sub(r"^import cupy as cp\n", "", expected)
    status, got = _outcome(gpu_code, {**_copied(base), "cp": cupy_double})
    assert status == "ok", status
    return base, want, got


@pytest.mark.parametrize("case", sorted(GROUPS))
def test_grouped_kernel_bitwise_equal_to_cell_with_libm_functions(
    double_cupy,  # noqa: ANN001, F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: pathlib.Path,
    case: str,
) -> None:
    """The grouped kernel, compiled with g++, gives bit for bit what the NumPy cell gives with
    libm's exp/power/expf/log1pf (_LibmNumPy32), the functions the kernel calls: the same
    operations, in the same order, each value rounded to the dtype NumPy stores it in."""
    expected = (FIXTURES / case / "expected.py").read_text()
    (block,) = _library_kernel_blocks(expected, "Elementwise")
    _, out_params, operation, _, _ = re.findall(r"'([^']*)'", block)
    outputs = {p.split()[1] for p in out_params.split(",")}
    # the kernel's own locals: the group's intermediates (an output's register is `<name>_`),
    # and one register per earlier binding of a name bound again
    declared = set(re.findall(r"const (?:float|double) (\w+) = ", operation))
    rebound = REBOUND.get(case, set())
    assert declared - {f"{o}_" for o in outputs} - rebound == GROUPS[case], operation
    assert rebound <= declared, operation
    base, want, got = _run(case, double_cupy, monkeypatch, tmp_path)
    compared = 0
    for name, w in want.items():
        if not isinstance(w, np.ndarray) or name.startswith("_"):
            continue
        if name in GROUPS[case]:
            # never bound by the candidate: nothing after the group reads it
            assert name not in got and name not in base, name
            continue
        g = np.asarray(got[name])
        assert g.dtype == w.dtype and g.shape == w.shape, (name, g.dtype, w.dtype)
        assert np.array_equal(g, w), (name, int(np.sum(g != w)))
        compared += 1
    assert compared >= len(outputs)


def test_float32_local_rounded_as_numpy_stores_it(
    double_cupy,  # noqa: ANN001, F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: pathlib.Path,
) -> None:
    """`s = r * 2.0 + b` kept in a double would carry bits NumPy's float32 `s` does not have:
    `t = s * s - r` then differs from NumPy's in many elements."""
    _, want, got = _run(
        "flag-group-three-statements",
        double_cupy,
        monkeypatch,
        tmp_path,
        edit=lambda op: op.replace("const float ", "const double "),
    )
    assert np.mean(np.asarray(got["t"]) != want["t"]) > 0.05


def test_float32_rebound_register_rounded_as_numpy_stores_it(
    double_cupy,  # noqa: ANN001, F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: pathlib.Path,
) -> None:
    """The earlier `R`s of `R = np.sqrt(x) * 2.0`, `R = np.log1p(R) + R`, `R = R * R - 1.0` kept
    in doubles would carry bits NumPy's float32 `R`s do not have: the last `R` then differs."""
    _, want, got = _run(
        "flag-group-rebinding-triple",
        double_cupy,
        monkeypatch,
        tmp_path,
        edit=lambda op: op.replace("const float ", "const double "),
    )
    assert np.mean(np.asarray(got["R"]) != want["R"]) > 0.05
