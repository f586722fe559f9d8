"""GPU103's typed kernels that write an existing array, run on the CPU against NumPy (no GPU).

`x -= chain` becomes one ElementwiseKernel that reads `x` with the chain's inputs and writes
`x - (chain)` into `x` itself (`x_kernel(x, y, x)`), and a ufunc's `out=u` one kernel that writes
`u` (`u_kernel(x, y, u)`). The kernel's operation is compiled with g++ in one loop over the
elements (-ffp-contract=off, as the kernel is compiled with --fmad=false), each argument the host
array the candidate's call names (`x_gpu` is `x`), the written array passed as input and output
alike where the kernel reads it, as CuPy passes it: each element is read before it is written.
The result must be NumPy's, bit for bit, dtype included.
"""

from __future__ import annotations

import ctypes
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


@pytest.mark.parametrize(
    ("case", "in_place"),
    [("flag-inplace-update-one-kernel", True), ("flag-ufunc-out-one-kernel", False)],
)
def test_kernel_writing_an_array_bitwise_equal_to_numpy(
    tmp_path: pathlib.Path, case: str, in_place: bool
) -> None:
    expected = (FIXTURES / case / "expected.py").read_text()
    (block,) = _library_kernel_blocks(expected, "Elementwise")
    in_params, out_params, operation, name, options = re.findall(r"'([^']*)'", block)
    assert options == "--fmad=false"  # as this emulation is compiled: -ffp-contract=off
    call = re.search(rf"^{name}\((.*)\);?$", expected, re.M)
    assert call, expected  # the kernel's call is a statement: it writes, its result is not bound
    # the written array is the kernel's output argument, after its inputs
    hosts = [re.sub(r"_gpu$", "", a.strip()) for a in call.group(1).split(",")]
    ins = [p.split() for p in in_params.split(",")]
    out_dtype, out_name = out_params.split()
    assert len(hosts) == len(ins) + 1, (hosts, ins)
    written = hosts[-1]
    assert (written in hosts[:-1]) is in_place, hosts

    loads = " ".join(f"const {CTYPE[d]} {n} = _in{k}[_k];" for k, (d, n) in enumerate(ins))
    params = ", ".join(f"const {CTYPE[d]}* _in{k}" for k, (d, _) in enumerate(ins))
    code = f"""#include <math.h>
extern "C" void run({params}, {CTYPE[out_dtype]}* _out, long long _n) {{
    for (long long _k = 0; _k < _n; _k++) {{
        {loads} {CTYPE[out_dtype]} {out_name}; {operation}; _out[_k] = {out_name};
    }}
}}
"""
    lib = _compile(tmp_path, case, code)
    setup, target = _cells(FIXTURES / case / "notebook.py")
    env: dict = {}
    exec(setup.replace("20_000_000", "100_000"), env)  # noqa: S102
    arrays = {h: np.array(env[h], copy=True) for h in set(hosts)}  # before NumPy updates them
    exec(target, env)  # noqa: S102
    want = env[written]
    got = arrays[written]
    assert all(a.flags.c_contiguous for a in arrays.values())
    lib.run(*[_ptr(arrays[h]) for h in hosts], ctypes.c_longlong(got.size))
    assert got.dtype == want.dtype == np.dtype(out_dtype)
    assert np.array_equal(got, want), int(np.sum(got != want))
