"""GPU103's typed kernels that write an existing array, run on the CPU against NumPy (no GPU).

`x -= chain` becomes one ElementwiseKernel that reads `x` with the chain's inputs and writes
`x - (chain)` into `x` itself (`x_kernel(x, y, x)`), and a ufunc's `out=u` one kernel that writes
`u` (`u_kernel(x, y, u)`). The kernel's operation is compiled with g++ in one loop over the
elements (-ffp-contract=off, as the kernel is compiled with --fmad=false), each argument the host
array the candidate's call names (`x_gpu` is `x`), the written array passed as input and output
alike where the kernel reads it, as CuPy passes it: each element is read before it is written.
An element of `x` the chain reads is passed as its copy (`x[0].copy()`), taken before the kernel
runs. `x` may be of the other float dtype than the chain (float32 `x *= float64 chain`): NumPy
computes the update in float64 and casts it into `x`, C widens the float operand and the store
rounds. The result must be NumPy's, bit for bit, dtype included.
"""

from __future__ import annotations

import ctypes
import math
import pathlib
import re

import numpy as np
import pytest
from test_generated_kernels_cpu import (
    FIXTURES,
    _cells,
    _compile,
    _cxx20,
    _library_kernel_blocks,
    _ptr,
)

pytestmark = pytest.mark.skipif(not _cxx20(), reason="needs g++ with C++20")

CTYPE = {"float32": "float", "float64": "double"}


class _LibmNumPy:
    """NumPy whose float64 exp and power are libm's, as the emulated kernel's are (g++ links
    libm): NumPy's own are SVML's on AVX-512 machines, within an ulp of libm's, as CUDA's own
    are. What these tests check is the order and rounding of the chain and the update."""

    def __getattr__(self, name: str) -> object:
        return getattr(np, name)

    @staticmethod
    def _libm(ufunc: np.ufunc, f: object, *args: object) -> np.ndarray:
        if any(np.asarray(a).dtype != np.float64 for a in args):
            return ufunc(*args)
        return np.frompyfunc(f, len(args), 1)(*args).astype(np.float64)

    def exp(self, a: object) -> np.ndarray:
        return self._libm(np.exp, math.exp, a)

    def power(self, a: object, b: object) -> np.ndarray:
        return self._libm(np.power, math.pow, a, b)


def _run_elementwise(
    tmp_path: pathlib.Path,
    stem: str,
    in_params: str,
    out_params: str,
    operation: str,
    args: list[np.ndarray],
) -> None:
    """Runs the kernel's operation over the elements on the CPU: `args` are its inputs, then its
    output (the written array, which may be one of the inputs too, as CuPy passes it); an input of
    one element (a 0-d copy, `x[0].copy()`) is broadcast, as CuPy broadcasts it."""
    ins = [p.split() for p in in_params.split(",")]
    out_dtype, out_name = out_params.split()
    assert len(args) == len(ins) + 1, (args, ins)
    assert all(
        a.flags.c_contiguous and a.dtype == np.dtype(d)
        for a, (d, _) in zip(args, ins, strict=False)
    )
    loads = " ".join(
        f"const {CTYPE[d]} {n} = _in{k}[{'0' if args[k].size == 1 else '_k'}];"
        for k, (d, n) in enumerate(ins)
    )
    params = ", ".join(f"const {CTYPE[d]}* _in{k}" for k, (d, _) in enumerate(ins))
    code = f"""#include <math.h>
extern "C" void run({params}, {CTYPE[out_dtype]}* _out, long long _n) {{
    for (long long _k = 0; _k < _n; _k++) {{
        {loads} {CTYPE[out_dtype]} {out_name}; {operation}; _out[_k] = {out_name};
    }}
}}
"""
    lib = _compile(tmp_path, stem, code)
    assert args[-1].dtype == np.dtype(out_dtype)
    lib.run(*[_ptr(a) for a in args], ctypes.c_longlong(args[-1].size))


@pytest.mark.parametrize(
    ("case", "in_place"),
    [
        ("flag-inplace-update-one-kernel", True),
        ("flag-inplace-float64-chain-into-float32-one-kernel", True),
        ("flag-inplace-reads-own-element-one-kernel", True),
        ("flag-ufunc-out-one-kernel", False),
    ],
)
def test_kernel_writing_an_array_bitwise_equal_to_numpy(
    tmp_path: pathlib.Path, case: str, in_place: bool
) -> None:
    expected = (FIXTURES / case / "expected.py").read_text()
    (block,) = _library_kernel_blocks(expected, "Elementwise")
    in_params, out_params, operation, name, options = re.findall(r"'([^']*)'", block)
    assert options == "--fmad=false"  # as this emulation is compiled: -ffp-contract=off
    # the kernel's call is a statement (it writes), or binds the cell's displayed value before
    # the bring-back (`shown = u_kernel(...)`)
    call = re.search(rf"^(?:\w+ = )?{name}\((.*)\);?$", expected, re.M)
    assert call, expected
    # the written array is the kernel's output argument, after its inputs
    texts = [re.sub(r"\b(\w+)_gpu\b", r"\1", a.strip()) for a in call.group(1).split(",")]
    written = texts[-1]
    assert (written in texts[:-1]) is in_place, texts

    setup, target = _cells(FIXTURES / case / "notebook.py")
    env: dict = {}
    exec(setup.replace("20_000_000", "100_000"), env)  # noqa: S102
    # before NumPy updates them; each argument evaluated, in order, as Python does before the
    # kernel runs (`x[0].copy()` copies the element x has then: a NumPy scalar here, a 0-d array
    # in CuPy; the written array stays the same object)
    names = re.findall(r"[A-Za-z_]\w*", ",".join(texts))
    hosts = {n: np.array(env[n], copy=True) for n in names if n in env}
    args = [np.asarray(eval(t, {}, hosts)) for t in texts]  # noqa: S307
    env["np"] = _LibmNumPy()
    exec(target, env)  # noqa: S102
    _run_elementwise(tmp_path, case, in_params, out_params, operation, args)
    got, want = hosts[written], env[written]
    assert got.dtype == want.dtype
    assert np.array_equal(got, want), int(np.sum(got != want))


CHAIN64 = "exp(-y * y) + sin(y) * cos(y)"
CHAIN32 = "0.1f * y32 * y32 + y32 * 0.5f"


@pytest.mark.parametrize(
    ("op", "in_params", "out_params", "operation"),
    # the operations test/unit/fusion-writes.test.ts asserts GPU103 generates
    [
        ("+=", "float64 y, float32 x32", "float32 x32_new", f"x32_new = x32 + ({CHAIN64})"),
        ("-=", "float64 y, float32 x32", "float32 x32_new", f"x32_new = x32 - ({CHAIN64})"),
        ("*=", "float64 y, float32 x32", "float32 x32_new", f"x32_new = x32 * ({CHAIN64})"),
        ("/=", "float64 y, float32 x32", "float32 x32_new", f"x32_new = x32 / ({CHAIN64})"),
        (
            "**=",
            "float64 y, float32 x32",
            "float32 x32_new",
            f"x32_new = pow((double)x32, {CHAIN64})",
        ),
        ("+=", "float32 y32, float64 x", "float64 x_new", f"x_new = x + ({CHAIN32})"),
        ("-=", "float32 y32, float64 x", "float64 x_new", f"x_new = x - ({CHAIN32})"),
        ("*=", "float32 y32, float64 x", "float64 x_new", f"x_new = x * ({CHAIN32})"),
        ("/=", "float32 y32, float64 x", "float64 x_new", f"x_new = x / ({CHAIN32})"),
        ("**=", "float32 y32, float64 x", "float64 x_new", f"x_new = pow(x, (double)({CHAIN32}))"),
    ],
)
def test_update_of_another_float_dtype_bitwise_equal_to_numpy(
    tmp_path: pathlib.Path, op: str, in_params: str, out_params: str, operation: str
) -> None:
    """`x op= chain` where x and the chain differ in float dtype: NumPy computes the chain in its
    dtype, the update in float64 and casts it into x (same_kind); the kernel's C widens the float
    operand and the store rounds to x's dtype. Each operator and direction GPU103 generates.
    (exp and power are libm's in both: _LibmNumPy.)
    """
    npl = _LibmNumPy()
    rng = np.random.default_rng(3)
    # away from 0 and 1, where a wrong rounding would show in every operator
    y = rng.uniform(0.5, 4.0, 100_000)
    y32 = rng.uniform(0.5, 4.0, 100_000).astype(np.float32)
    written = out_params.split()[1].removesuffix("_new")
    x = {
        "x32": rng.uniform(0.5, 4.0, 100_000).astype(np.float32),
        "x": rng.uniform(0.5, 4.0, 100_000),
    }[written]
    chain = {
        "y": npl.exp(-y * y) + np.sin(y) * np.cos(y),
        "y32": np.float32(0.1) * y32 * y32 + y32 * np.float32(0.5),
    }
    read = in_params.split(",")[0].split()[1]
    want = x.copy()
    if op == "**=":
        # np.power(want, chain, out=want) with libm's pow: in float64, cast into x (same_kind)
        power = npl.power(x.astype(np.float64), chain[read].astype(np.float64))
        np.copyto(want, power, casting="same_kind")
    else:
        ufunc = {"+=": np.add, "-=": np.subtract, "*=": np.multiply, "/=": np.divide}[op]
        ufunc(want, chain[read], out=want, casting="same_kind")
    got = x.copy()
    _run_elementwise(
        tmp_path, "mixed", in_params, out_params, operation, [{"y": y, "y32": y32}[read], got, got]
    )
    assert got.dtype == want.dtype == x.dtype
    assert np.array_equal(got, want), int(np.sum(got != want))
