"""The CUDA kernels GPU103 generates, run on the CPU against NumPy (CI has no GPU).

Each `cp.RawKernel` source in a GPU103 flag fixture's expected candidate is compiled with g++
under a small SIMT emulation: one std::thread per CUDA thread of a block, `__syncthreads` a
block barrier, `__shfl_down_sync` an exchange through per-warp slots. Small grids force the
grid-stride loops and partial tiles. The stencil kernels must match NumPy bit for bit (the
emulation is built with -ffp-contract=off, as the kernels are with --fmad=false), both forms: a
new array with a zero border, and one step of an in-place loop (border copied through); the
reductions must give NumPy's count/extremum exactly and its float32 mean within 1e-6.
Skipped where g++ with C++20 <barrier> is missing.

`test_kernels_name_math_functions_of_their_precision` reads every kernel of every GPU10x flag
fixture (RawKernel, ElementwiseKernel, ReductionKernel): a float32 kernel calls sqrtf, expf...
and writes float literals (`0.5f`), a float64 kernel the double names and literals, so neither
nvcc nor this emulation (which declares no float overloads of the double names) can compute a
float32 kernel in double.

`test_generated_launcher_matches_numpy` (below) executes each fixture's generated launcher text
as written (CuPy test double, RawKernel bound to the compiled emulation) against the fixture's
own NumPy cell, for n in {0, 1, 31, 33, ...} and an all-False any(); the earlier tests keep
hand-written references because they force small grids (grid-stride loops, partial tiles).
`test_reduction_reads_broadcast_inputs_where_they_are` runs a reduction's launcher on rows,
columns and other broadcast patterns with a grid of 3 blocks (its stepped index wraps within
each thread). Random inputs are reproducible: before each run of a fixture's setup cell, NumPy's
global RandomState and every unseeded `np.random.default_rng()` are seeded from the fixture's
name (`fixture_seed`, a CRC-32); the seed is printed (shown with a failure) and in every
assertion message. `test_stencil_loop_updates_the_array_in_place` runs the loop stencils'
ping-pong code for 0 to 3 steps on a contiguous array and on a strided view: the user's name
keeps the same array object, updated in place, as with NumPy's slice assignment; the arrays a
step reads besides it (same shape, broadcast rows and columns, the other float dtype) are
random, of the dtype and shape the launcher checks, and
`test_2d_loop_stencil_reads_on_a_grid_stride_grid` runs those kernels on one block row (every
block walks all strips) against NumPy's step."""

from __future__ import annotations

import ctypes
import itertools
import pathlib
import re
import shutil
import subprocess
import zlib

import numpy as np
import pytest

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "rules" / "GPU103"

STUB = r"""
#include <cmath>
#include <cstddef>
#include <cstring>
#include <algorithm>
#include <barrier>
#include <memory>
#include <thread>
#include <vector>
#include <math.h>
// CUDA's integer min/max device functions (the stencil's strip bounds). The math functions need
// no such help: a float32 kernel calls sqrtf, fabsf... and a float64 one sqrt, fabs... (C's own
// names, checked by test_kernels_name_math_functions_of_their_precision), so g++ computes each
// in the kernel's precision as CUDA does
using std::min; using std::max;
struct dim3_ { unsigned x = 0, y = 0, z = 0; };
static thread_local dim3_ threadIdx, blockIdx;
static dim3_ blockDim, gridDim;
#define __global__
#define __launch_bounds__(x)
#define __restrict__ __restrict
struct Block {
  std::unique_ptr<std::barrier<>> all;
  std::vector<std::unique_ptr<std::barrier<>>> warp;
  std::vector<std::vector<unsigned long long>> slot;
};
static Block* g_block;
static inline void __syncthreads() { g_block->all->arrive_and_wait(); }
template <class T> static inline T __shfl_down_sync(unsigned, T v, int o, int width = 32) {
  unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  g_block->slot[w][lane] = bits;
  g_block->warp[w]->arrive_and_wait();
  T out = v;
  if ((int)((lane % width) + o) < width) {
    unsigned long long b = g_block->slot[w][lane + o];
    std::memcpy(&out, &b, sizeof(T));
  }
  g_block->warp[w]->arrive_and_wait();
  return out;
}
static inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline double __longlong_as_double(long long i) {
  double f; std::memcpy(&f, &i, 8); return f;
}
"""


def _kernel_source(case: str) -> tuple[str, str]:
    src = (FIXTURES / case / "expected.py").read_text()
    code = re.search(r"cp\.RawKernel\(r'''\n(.*?)\n'''", src, re.S).group(1)  # type: ignore[union-attr]
    name = re.search(r"void (?:__launch_bounds__\(\d+\) )?(\w+)\(", code).group(1)  # type: ignore[union-attr]
    # the emulation runs one block at a time: a static array serves as the block's shared memory
    return code.replace("__shared__", "static"), name


def _compile(tmp: pathlib.Path, stem: str, source: str) -> ctypes.CDLL:
    """The emulated kernel as a shared library (no FMA contraction: NumPy rounds each step)."""
    cpp = tmp / f"{stem}.cpp"
    cpp.write_text(source)
    lib = tmp / f"{stem}.so"
    r = subprocess.run(
        ["g++", "-std=c++20", "-O1", "-ffp-contract=off", "-shared", "-fPIC", "-pthread"]
        + ["-o", str(lib), str(cpp)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return ctypes.CDLL(str(lib))


def _build(tmp: pathlib.Path, case: str, driver: str) -> ctypes.CDLL:
    code, _ = _kernel_source(case)
    return _compile(tmp, case, STUB + code + driver)


def _cxx20() -> bool:
    if not shutil.which("g++"):
        return False
    r = subprocess.run(
        ["g++", "-std=c++20", "-x", "c++", "-fsyntax-only", "-"],
        input="#include <barrier>\n",
        capture_output=True,
        text=True,
    )
    return r.returncode == 0


pytestmark = pytest.mark.skipif(not _cxx20(), reason="needs g++ with C++20 <barrier>")


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    return a.ctypes.data_as(ctypes.c_void_p)


def _laplacian(u: np.ndarray) -> np.ndarray:
    """flag-slice-stencil-one-pass: a new array, zero border."""
    out = np.zeros_like(u)
    out[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    return out


def _jacobi_step(u: np.ndarray) -> np.ndarray:
    """flag-stencil-slices: one step of the loop (the right-hand side reads the old values; the
    border keeps u's own)."""
    out = u.copy()
    out[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return out


def _source_step(u: np.ndarray, f: np.ndarray) -> np.ndarray:
    """flag-stencil-loop-reads-other-array: one step of the loop reading a second array (f, a
    kernel input beside the two buffers) at the centre; the border keeps u's own."""
    out = u.copy()
    out[1:-1, 1:-1] = 0.25 * (
        u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] + f[1:-1, 1:-1]
    )
    return out


def _second_difference(f: np.ndarray) -> np.ndarray:
    """flag-stencil-1d: a new array, zero border."""
    out = np.zeros_like(f)
    out[1:-1] = (f[:-2] - 2 * f[1:-1] + f[2:]) / 0.01
    return out


def _heat_step(t: np.ndarray) -> np.ndarray:
    """flag-stencil-loop-odd-steps-1d: one step of the loop, border kept."""
    out = t.copy()
    out[1:-1] = t[1:-1] + 0.25 * (t[:-2] - 2.0 * t[1:-1] + t[2:])
    return out


def _conduction_step(t: np.ndarray, k: np.ndarray) -> np.ndarray:
    """flag-stencil-loop-reads-other-array-shifted-1d: one step reading k at both neighbours."""
    out = t.copy()
    out[1:-1] = t[1:-1] + 0.2 * (k[2:] * (t[2:] - t[1:-1]) - k[:-2] * (t[1:-1] - t[:-2]))
    return out


def _read_inputs(code: str) -> int:
    """How many arrays a stencil kernel reads besides its input (a loop step's other arrays:
    `const T* __restrict__` parameters between the input and the output, named as the cell's)."""
    signature = code.split("{", 1)[0]
    return (
        signature.count("const float* __restrict__")
        + signature.count("const double* __restrict__")
        - 1
    )


@pytest.mark.parametrize(
    ("case", "numpy_fn"),
    [
        ("flag-slice-stencil-one-pass", _laplacian),
        ("flag-stencil-slices", _jacobi_step),
        ("flag-stencil-loop-reads-other-array", _source_step),
    ],
)
def test_2d_stencil_bitwise_equal_to_numpy_on_any_shape(
    tmp_path: pathlib.Path, case: str, numpy_fn
) -> None:  # noqa: ANN001
    """Every element written (the output starts as 7s), border included: zero for a new array,
    the input's own value for a step of an in-place loop (other arrays it reads: random, of u's
    shape)."""
    code, name = _kernel_source(case)
    reads = [f"r{k}" for k in range(_read_inputs(code))]
    params = "".join(f"const float* {r}, " for r in reads)
    args = "".join(f"{r}, " for r in reads)
    driver = f"""
extern "C" void run(const float* u, {params}float* out, int n, int m, int gy) {{
    gridDim.x = (m + 127) / 128; gridDim.y = gy; blockDim.x = 128; blockDim.y = 1;
    for (unsigned by = 0; by < gridDim.y; by++) for (unsigned bx = 0; bx < gridDim.x; bx++)
        for (unsigned tx = 0; tx < 128; tx++) {{
            blockIdx.x = bx; blockIdx.y = by; threadIdx.x = tx; {name}(u, {args}out, n, m);
        }}
}}
"""
    lib = _build(tmp_path, case, driver)
    for shape in [
        (1, 1),
        (1, 5),
        (5, 1),
        (2, 3),
        (3, 3),
        (9, 9),
        (17, 33),
        (129, 1000),
        (4099, 77),
    ]:
        for gy in (
            min((shape[0] + 7) // 8, 65535),
            3,
        ):  # the launcher's grid, and a grid-stride one
            rng = np.random.default_rng(1)
            u = rng.random(shape, dtype=np.float32)
            others = [rng.random(shape, dtype=np.float32) for _ in reads]
            out = np.full(shape, 7, np.float32)
            lib.run(_ptr(u), *map(_ptr, others), _ptr(out), shape[0], shape[1], gy)
            assert np.array_equal(out, numpy_fn(u, *others)), (shape, gy)


@pytest.mark.parametrize(
    ("case", "numpy_fn"),
    [
        ("flag-stencil-1d", _second_difference),
        ("flag-stencil-loop-odd-steps-1d", _heat_step),
        ("flag-stencil-loop-reads-other-array-shifted-1d", _conduction_step),
    ],
)
def test_1d_stencil_equal_to_numpy(tmp_path: pathlib.Path, case: str, numpy_fn) -> None:  # noqa: ANN001
    code, name = _kernel_source(case)
    reads = [f"r{k}" for k in range(_read_inputs(code))]
    params = "".join(f"const double* {r}, " for r in reads)
    args = "".join(f"{r}, " for r in reads)
    driver = f"""
extern "C" void run(const double* u, {params}double* out, long long n) {{
    blockDim.x = 256; gridDim.x = (n + 255) / 256;
    for (unsigned bx = 0; bx < gridDim.x; bx++) for (unsigned tx = 0; tx < 256; tx++) {{
        blockIdx.x = bx; threadIdx.x = tx; {name}(u, {args}out, n);
    }}
}}
"""
    lib = _build(tmp_path, case, driver)
    for n in (1, 2, 3, 1000, 4097):
        f = np.linspace(0.0, 1.0, n) ** 2
        # the other arrays it reads: not symmetric, so a neighbour read at the wrong side shows
        others = [np.random.default_rng(k).random(n) for k in range(len(reads))]
        out = np.full(n, 7.0)
        lib.run(_ptr(f), *map(_ptr, others), _ptr(out), ctypes.c_longlong(n))
        assert np.array_equal(out, numpy_fn(f, *others)), n


REDUCTIONS = {
    # case: (element type, accumulator type, NumPy, how the launcher folds the partials)
    "flag-reduction": ("double", "long long", lambda a, b: np.sum((a * a + b * b) <= 1.0), np.sum),
    "flag-count-nonzero-in-expression": (
        "double",
        "long long",
        lambda a, b: np.count_nonzero(a * a + b * b <= 1.0),
        np.sum,
    ),
    "flag-max-relative-error": (
        "float",
        "float",
        lambda a, b: np.max(np.abs(a - b) / (np.abs(b) + np.float32(1e-6))),
        np.max,
    ),
    "flag-any-comparison": ("double", "bool", lambda a, b: np.any(a * a + b * b > 1.9999), np.any),
    "flag-mean-float32": (
        "float",
        "double",
        lambda a, b: np.mean(a * b - np.float32(0.25) * a + np.float32(1.0)),
        None,
    ),
}


@pytest.mark.parametrize("case", sorted(REDUCTIONS))
def test_reduction_kernel_matches_numpy(tmp_path: pathlib.Path, case: str) -> None:
    ct, acc, numpy_fn, fold = REDUCTIONS[case]
    _, name = _kernel_source(case)
    driver = f"""
extern "C" void run(const {ct}* a, const {ct}* b, long long n, {acc}* partial, int blocks) {{
    gridDim.x = blocks; blockDim.x = 256;
    for (int bx = 0; bx < blocks; bx++) {{
        Block blk;
        blk.all = std::make_unique<std::barrier<>>(256);
        for (int w = 0; w < 8; w++) {{
            blk.warp.push_back(std::make_unique<std::barrier<>>(32));
            blk.slot.emplace_back(32);
        }}
        g_block = &blk;
        std::vector<std::thread> ts;
        for (int t = 0; t < 256; t++)
            ts.emplace_back([=] {{ threadIdx.x = t; blockIdx.x = bx; {name}(a, b, n, partial); }});
        for (auto& t : ts) t.join();
    }}
}}
"""
    lib = _build(tmp_path, case, driver)
    dt = np.float64 if ct == "double" else np.float32
    pdt = {"long long": np.int64, "double": np.float64, "float": np.float32, "bool": np.bool_}[acc]
    rng = np.random.default_rng(3)
    for n in (1, 5, 1000, 70_001):
        a = rng.random(n).astype(dt) * dt(1.414)
        b = rng.random(n).astype(dt)
        if case == "flag-max-relative-error" and n > 5:
            a[n // 2] = np.nan  # NumPy's max propagates NaN; so must the kernel
        blocks = max(1, min((n + 255) // 256, 7))  # few blocks: the grid-stride loop runs
        partial = np.zeros(blocks, pdt)
        lib.run(_ptr(a), _ptr(b), ctypes.c_longlong(n), _ptr(partial), blocks)
        want = numpy_fn(a, b)
        if fold is None:  # mean: the launcher divides the double sum and rounds to float32
            assert np.isclose(np.float32(partial.sum() / n), want, rtol=1e-6), n
        else:
            got = fold(partial)
            assert (np.isnan(got) and np.isnan(want)) or got == want, (n, got, want)


# --- The generated launchers, executed as written -------------------------------------------
# Each case's expected.py target cell (launcher definitions and the call) runs under the CuPy
# TEST DOUBLE (testdouble_cupy: NumPy underneath) with `cp.RawKernel` bound to the kernel
# compiled here under the SIMT emulation, against the fixture's notebook.py target cell run with
# NumPy on the same inputs: the setup cell with every integer literal >= 1000 replaced by the
# size under test. What stays untested here: the one-input cp.ReductionKernel form (the double
# has no ReductionKernel), and anything about real GPU behaviour (verify_on_gpu.py does that).

DOUBLE = pathlib.Path(__file__).resolve().parent / "testdouble_cupy"
_CTYPES = {
    "double": ctypes.c_double,
    "float": ctypes.c_float,
    "long long": ctypes.c_longlong,
    "int": ctypes.c_int,
}


def _cells(path: pathlib.Path) -> tuple[str, str]:
    parts = re.split(r"^# %%.*$", path.read_text(), flags=re.M)
    return parts[1], parts[2]


def _emulated_raw_kernel(tmp: pathlib.Path):  # noqa: ANN202
    compiled: dict[tuple[str, str], object] = {}  # a cell run again defines the same kernel

    class RawKernel:
        """`cp.RawKernel` for the double: the CUDA C compiled with g++ under the emulation."""

        def __init__(self, code: str, name: str, **_kw: object) -> None:
            m = re.search(r"void (?:__launch_bounds__\(\d+\) )?(\w+)\((.*?)\) \{", code)
            assert m and m.group(1) == name
            params = [p.strip() for p in m.group(2).split(",")]
            self.kinds = []
            for p in params:
                ptr = "*" in p
                ctype = p.replace("const ", "").replace("__restrict__", "").split("*")[0].strip()
                if not ptr:
                    ctype = " ".join(ctype.split()[:-1])
                self.kinds.append((ptr, ctype))
            names = [f"p{k}" for k in range(len(params))]
            decl = ", ".join(
                f"{'void*' if ptr else ct} {nm}"
                for (ptr, ct), nm in zip(self.kinds, names, strict=True)
            )
            call = ", ".join(
                f"({ct}*){nm}" if ptr else nm
                for (ptr, ct), nm in zip(self.kinds, names, strict=True)
            )
            driver = f"""
extern "C" void run({decl}, int gx, int gy, int bx) {{
    gridDim.x = gx; gridDim.y = gy; blockDim.x = bx; blockDim.y = 1;
    for (int by = 0; by < gy; by++) for (int b = 0; b < gx; b++) {{
        Block blk;
        blk.all = std::make_unique<std::barrier<>>(bx);
        for (int w = 0; w < (bx + 31) / 32; w++) {{
            blk.warp.push_back(std::make_unique<std::barrier<>>(32));
            blk.slot.emplace_back(32);
        }}
        g_block = &blk;
        std::vector<std::thread> ts;
        for (int t = 0; t < bx; t++)
            ts.emplace_back([=] {{
                threadIdx.x = t; blockIdx.x = b; blockIdx.y = by; {name}({call});
            }});
        for (auto& t : ts) t.join();
    }}
}}
"""
            key = (code, name)
            if key not in compiled:
                stem = f"{name}_{len(compiled)}"
                source = STUB + code.replace("__shared__", "static") + driver
                compiled[key] = _compile(tmp, stem, source).run
            self.run = compiled[key]

        def __call__(self, grid: tuple, block: tuple, args: tuple) -> None:
            assert len(args) == len(self.kinds)
            grid = tuple(grid) + (1,) * (2 - len(grid))
            assert all(g > 0 for g in grid), grid  # CUDA refuses a zero grid
            cargs = []
            for (ptr, ct), a in zip(self.kinds, args, strict=True):
                if ptr:
                    assert isinstance(a, np.ndarray) and a.flags.c_contiguous
                    cargs.append(_ptr(a))
                else:
                    cargs.append(_CTYPES[ct](a.item() if hasattr(a, "item") else a))
            self.run(*cargs, int(grid[0]), int(grid[1]), int(block[0]))

    return RawKernel


@pytest.fixture
def double_cupy(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    import importlib
    import sys

    monkeypatch.syspath_prepend(str(DOUBLE))
    for mod in [m for m in sys.modules if m == "cupy" or m.startswith("cupy.")]:
        monkeypatch.delitem(sys.modules, mod)
    cp = importlib.import_module("cupy")
    assert cp.IS_TEST_DOUBLE
    monkeypatch.setattr(cp, "RawKernel", _emulated_raw_kernel(tmp_path))

    def ascontiguousarray(a, dtype=None):  # noqa: ANN001, ANN202
        """CuPy's: the array itself when it is a C-contiguous device array of that dtype (the
        loop stencils rely on it to run in the user's array), else a contiguous copy."""
        if isinstance(a, cp.ndarray) and a.flags.c_contiguous and dtype in (None, a.dtype):
            return a
        return cp.asarray(np.ascontiguousarray(a, dtype=dtype))

    monkeypatch.setattr(cp, "ascontiguousarray", ascontiguousarray)
    yield cp
    for mod in [m for m in sys.modules if m == "cupy" or m.startswith("cupy.")]:
        del sys.modules[mod]


def _outcome(code: str, env: dict) -> tuple[str, dict]:
    import contextlib
    import io
    import warnings

    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(code, "<cell>", "exec"), env)  # noqa: S102
        except Exception as e:  # noqa: BLE001  (the same exception is the expected outcome)
            return type(e).__name__, env
    return "ok", env


LAUNCHED = {
    # case: (sizes, result names, an all-False/zero variant)
    "flag-reduction": ((0, 1, 31, 33, 1000), ["inside"], False),
    "flag-count-nonzero-in-expression": ((0, 31, 33, 1000), ["pi_estimate"], False),
    "flag-max-relative-error": ((0, 1, 31, 33, 1000), ["worst"], False),
    "flag-any-comparison": ((0, 31, 33, 1000), ["outside"], True),
    "flag-mean-float32": ((0, 31, 33, 1000), ["m"], False),
    "flag-reduction-underscore-names": ((0, 31, 33, 1000), ["hits"], False),
    "flag-stencil-1d": ((0, 1, 2, 31, 33, 1000), ["d2"], False),
    "flag-stencil-double-negation": ((0, 1, 31, 33), ["g"], False),
    "flag-slice-stencil-one-pass": ((0, 1, 2, 31, 33, 130), ["lap"], False),
    # loops: an even step count (200, the result back in u's own buffer), odd ones (25, 51: the
    # result copied back), fresh buffer names beside the notebook's u_src
    "flag-stencil-slices": ((1, 2, 3, 31, 33), ["u"], False),
    "flag-stencil-loop-odd-steps-1d": ((0, 1, 2, 3, 1000), ["T"], False),
    "flag-stencil-loop-names-taken": ((1, 3, 33), ["u", "u_src"], False),
    "flag-max-abs-float64-math": ((0, 1, 31, 33, 1000), ["worst"], False),
    # literal-only pieces folded as Python computes them (0.1 * 0.1 in double, then float32)
    "flag-stencil-folded-literals": ((0, 1, 2, 31, 33, 130), ["lap"], False),
    "flag-stencil-loop-folded-literals": ((1, 2, 3, 1000), ["T"], False),
    # scalar pieces (dt * 0.3, alpha * dt / dx ** 2, decay * dt) computed by Python in double and
    # cast once to float32 (NEP 50), as one kernel argument; a grid name taken in the notebook
    "flag-elementwise-scalar-variables": ((0, 1, 31, 1000), ["v"], False),
    "flag-reduction-scalar-piece": ((1, 31, 33, 1000), ["worst"], False),
    "flag-stencil-scalar-coefficient": ((0, 1, 2, 31, 33, 130), ["du"], False),
    "flag-stencil-loop-scalar-coefficient": ((1, 2, 3, 33), ["u"], False),
    # a float sum of one input whose name CuPy's CUB path would corrupt (`d` in `(double)`): the
    # RawKernel form
    "flag-sum-input-name-inside-token": ((0, 1, 31, 33, 1000), ["energy"], False),
    # a row (m,) and a column (n, 1) broadcast against a (n, m): read where they are, by index
    "flag-reduction-broadcast-row-and-column": ((0, 1, 31, 33), ["r"], False),
    "flag-stencil-loop-grid-names-taken": ((1, 3, 33), ["u", "u_grid"], False),
    "flag-stencil-loop-scalar-1d-float64": ((1, 2, 3, 1000), ["T"], False),
    # a NumPy float32 piece (np.float32(0.2) * 0.5: float32 under NEP 50) with float32 arrays
    "flag-elementwise-numpy-float32-call": ((0, 1, 31, 1000), ["v"], False),
    # the same, s = np.float32(0.2) bound in the setup cell (a NumPy float32 scalar to the model)
    "flag-elementwise-numpy-float32-name-typed": ((0, 1, 31, 1000), ["v"], False),
    # u a view of padded's interior (its shape inferred from the slice): the loop's result written
    # back into the host view, so padded sees it too (sizes are padded's: u is 2 smaller)
    "flag-stencil-loop-view-written-back": ((3, 4, 5, 35), ["u", "padded"], False),
    # the loop's step reads another array (f at the centre; k at both neighbours, in 1-D): a
    # read-only kernel input beside the two buffers
    "flag-stencil-loop-reads-other-array": ((0, 1, 2, 3, 31, 33), ["u"], False),
    "flag-stencil-loop-reads-other-array-shifted-1d": ((0, 1, 2, 3, 1000), ["T"], False),
    # arrays named like the kernel's own index and size (k, n): the kernel keeps their names
    "flag-stencil-loop-reads-k-and-n-1d": ((0, 1, 2, 3, 1000), ["T"], False),
    "flag-stencil-loop-reads-p-q-r-2d": ((1, 2, 3, 31, 33), ["u"], False),
    # a float64 array read by a float32 loop: each operation in NumPy's type, stored as float
    "flag-stencil-loop-other-array-float64": ((0, 1, 2, 3, 31, 33), ["u"], False),
    "flag-stencil-loop-other-array-float64-1d-weak-scalars": ((0, 1, 2, 3, 1000), ["T"], False),
    "flag-stencil-loop-float64-reads-float32-1d": ((0, 1, 2, 3, 1000), ["T"], False),
    # rows and columns broadcast against u's interior: (3, m), (m,), (n, 1), (1, m)
    "flag-stencil-loop-other-array-broadcast-row": ((0, 1, 2, 3, 31, 33), ["u"], False),
    "flag-stencil-loop-reads-row-and-column": ((1, 2, 3, 31, 33), ["u"], False),
    # the copy form (un = u.copy() then the update from un): u names each step's buffer, so the
    # host reads in the loop (history, frames) see the step's result; the border constant folded
    # into the kernel (one value; an empty array raises IndexError as the assignments do), or two
    # values kept as statements; an odd step count in 1-D
    "flag-stencil-loop-copy-border-and-host-read": ((0, 1, 2, 3, 31, 33), ["u", "history"], False),
    "flag-stencil-loop-copy-border-two-values": ((1, 2, 3, 31, 33), ["u", "frames"], False),
    "flag-stencil-loop-copy-odd-steps-1d": ((0, 1, 2, 3, 1000), ["T"], False),
    # the periodic form (np.roll): neighbours across the opposite edge; v's own array, which v0
    # holds too, never written (each step makes a new array)
    "flag-stencil-loop-roll-periodic": ((1, 2, 3, 9, 31, 33), ["v", "v0"], False),
    "flag-stencil-loop-roll-1d-one-statement": ((0, 1, 2, 3, 1000), ["c"], False),
    # rolls by 2: rows and columns two away, wrapped by a modulo (axes of 1 to 3 shorter than or
    # as long as the reach; 19 rows run the unrolled strip 8-15, 2 rows from either edge)
    "flag-stencil-loop-roll-shift-two": ((1, 2, 3, 5, 19, 33), ["w"], False),
    "flag-stencil-loop-roll-whole-slice-1d": ((0, 1, 2, 3, 5, 1000), ["h"], False),
    # the in-place forms (u += ..., q -= ...): the array another name holds too ends with the result
    "flag-stencil-loop-roll-in-place-2d": ((1, 2, 3, 9, 19, 33), ["u", "u0"], False),
    "flag-stencil-loop-roll-upwind-1d-in-place": ((0, 1, 2, 3, 1000), ["q", "q_start"], False),
    # outside a loop: a new array (lap), and an update in place (q -= ..., q_start holds q's array)
    "flag-stencil-roll-new-array": ((0, 1, 2, 3, 9, 19, 33), ["lap"], False),
    "flag-stencil-roll-in-place-once-1d": ((0, 1, 2, 3, 1000), ["q", "q_start"], False),
}


# the cases whose float result is a sum or a mean (not bit for bit NumPy's)
FLOAT_SUMS = (
    "flag-mean-float32",
    "flag-sum-input-name-inside-token",
    "flag-reduction-broadcast-row-and-column",
)

_DEFAULT_RNG = np.random.default_rng


def _copied(env: dict) -> dict:
    """The namespace with its own copy of every array; a view of another array of the namespace
    (`u = padded[1:-1, 1:-1]`) stays a view of that array's copy, so a write through one is seen
    through the other, as in the notebook."""
    owners = {id(v): v.copy() for v in env.values() if isinstance(v, np.ndarray) and v.base is None}
    out = {}
    for k, v in env.items():
        if not isinstance(v, np.ndarray):
            out[k] = v
        elif id(v) in owners:
            out[k] = owners[id(v)]
        elif isinstance(v.base, np.ndarray) and id(v.base) in owners:
            base = v.base
            offset = v.__array_interface__["data"][0] - base.__array_interface__["data"][0]
            out[k] = np.ndarray(
                v.shape, v.dtype, buffer=owners[id(base)], offset=offset, strides=v.strides
            )
        else:
            out[k] = v.copy()
    return out


def fixture_seed(case: str) -> int:
    """The seed of a fixture's inputs: fixed by its name, so a failure reruns with the same data."""
    return zlib.crc32(case.encode())


def _seed_numpy(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Seeds what a fixture's setup cell may draw from unseeded: NumPy's global RandomState
    (`np.random.rand`) and `np.random.default_rng()` (the k-th such call gets [seed, k]); a
    setup's own seed (`default_rng(5)`) is kept."""
    np.random.seed(seed)
    calls = itertools.count()
    monkeypatch.setattr(
        np.random,
        "default_rng",
        lambda s=None: _DEFAULT_RNG([seed, next(calls)] if s is None else s),
    )


@pytest.mark.parametrize("case", sorted(LAUNCHED))
def test_generated_launcher_matches_numpy(
    double_cupy, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:  # noqa: ANN001
    sizes, results, zeros_variant = LAUNCHED[case]
    seed = fixture_seed(case)
    print(f"{case}: setup inputs seeded with {seed} (fixture_seed)")
    setup, target = _cells(FIXTURES / case / "notebook.py")
    expected = (FIXTURES / case / "expected.py").read_text()
    gpu_code = re.sub(r"^import cupy as cp\n", "", expected)
    for size in sizes:
        for zeroed in (False, True) if zeros_variant else (False,):
            small = re.sub(
                r"\b\d[\d_]{3,}\b",
                lambda m, size=size: (
                    str(size) if int(m.group().replace("_", "")) >= 1000 else m.group()
                ),
                setup,
            )
            base: dict = {}
            _seed_numpy(monkeypatch, seed)
            exec(small, base)  # noqa: S102
            if zeroed:  # e.g. any() over an all-False mask
                for k, v in list(base.items()):
                    if isinstance(v, np.ndarray):
                        base[k] = np.zeros_like(v)
            # each side gets its own copy of the arrays: a loop stencil updates its input in place
            want_status, want = _outcome(target, _copied(base))
            got_status, got = _outcome(gpu_code, {**_copied(base), "cp": double_cupy})
            assert got_status == want_status, (case, seed, size, zeroed, got_status, want_status)
            if want_status != "ok":
                continue
            for name in results:
                g, w = np.asarray(got[name]), np.asarray(want[name])
                assert g.dtype == w.dtype and g.shape == w.shape, (
                    case,
                    seed,
                    size,
                    name,
                    g.dtype,
                    w.dtype,
                )
                # a float sum or mean: accumulated in double in the kernel's order (and a float32
                # one rounded once), against NumPy's pairwise sum: an ulp or so apart
                if w.dtype.kind == "f" and case in FLOAT_SUMS:
                    rtol = 1e-6 if w.dtype == np.float32 else 1e-12
                    assert np.allclose(g, w, rtol=rtol, equal_nan=True), (case, seed, size, g, w)
                else:
                    assert np.array_equal(g, w, equal_nan=w.dtype.kind == "f"), (
                        case,
                        seed,
                        size,
                        g,
                        w,
                    )


def _launcher(expected: str, cp) -> object:  # noqa: ANN001
    """The first kernel and launcher function of a candidate, defined in a namespace of `cp`."""
    env: dict = {"cp": cp}
    lines = expected.splitlines()
    start = next(k for k, t in enumerate(lines) if "= cp.RawKernel(" in t)
    end = next(k for k, t in enumerate(lines) if t.startswith("def ")) + 1
    while end < len(lines) and (not lines[end] or lines[end].startswith(" ")):
        end += 1
    defs = "\n".join(lines[start:end]) + "\n"
    exec(defs, env)  # noqa: S102
    return env[re.search(r"^def (\w+)\(", defs, re.M).group(1)]  # type: ignore[union-attr]


@pytest.mark.parametrize("case", ["flag-max-relative-error", "flag-stencil-1d"])
def test_generated_launcher_never_casts(double_cupy, case: str) -> None:  # noqa: ANN001
    """Another dtype than the inferred one raises TypeError; a host view is copied, not cast."""
    expected = (FIXTURES / case / "expected.py").read_text()
    launcher = _launcher(expected, double_cupy)
    kdt = np.float32 if "!= cp.float32" in expected else np.float64
    other = np.float64 if kdt == np.float32 else np.float32
    args = 2 if case == "flag-max-relative-error" else 1
    wrong = [np.random.default_rng(1).random(40).astype(other) for _ in range(args)]
    with pytest.raises(TypeError, match="was generated for .* got"):
        launcher(*wrong)
    view = [np.random.default_rng(2).random((40, 2)).astype(kdt)[:, 0] for _ in range(args)]
    assert not view[0].flags.c_contiguous
    got = launcher(*view)
    assert np.asarray(got).dtype == kdt


@pytest.mark.parametrize(
    ("a", "w", "c", "copies"),
    [
        ((37, 53), (53,), (37, 1), 0),  # a row and a column: the fixture's shapes
        ((37, 53), (1, 53), (1, 1), 0),
        ((37, 53), (37, 53), (), 0),  # a broadcast input of the result's shape, a 0-d one
        ((5, 37, 11), (37, 1), (5, 1, 11), 1),  # a run in the middle; no run: copied
        ((0, 53), (53,), (0, 1), 0),  # empty: NumPy's nan
    ],
)
def test_reduction_reads_broadcast_inputs_where_they_are(
    double_cupy, monkeypatch: pytest.MonkeyPatch, a: tuple, w: tuple, c: tuple, copies: int
) -> None:  # noqa: ANN001
    """`np.sqrt(a * w + c).mean()` with w and c broadcast: the kernel reads them where they are
    through its stepped index ((k / inner) % size), on a grid of 3 blocks so that every thread
    steps it several times, and matches NumPy's mean; only a pattern that is no run of the
    result's dimensions is copied (cp.broadcast_to). An `a` that arrives with another shape than
    the result's (the kernel reads it at the result's index) is copied to that shape: NumPy's
    mean still, with one copy more."""
    expected = (FIXTURES / "flag-reduction-broadcast-row-and-column" / "expected.py").read_text()
    kernel_class = double_cupy.RawKernel

    class FewBlocks(kernel_class):  # type: ignore[misc, valid-type]
        def __call__(self, grid: tuple, block: tuple, args: tuple) -> None:
            args[-1][...] = 0  # the partials of the blocks not run add nothing
            super().__call__((min(grid[0], 3),), block, args)

    monkeypatch.setattr(double_cupy, "RawKernel", FewBlocks)
    broadcast_to = double_cupy.broadcast_to
    made: list = []
    monkeypatch.setattr(
        double_cupy, "broadcast_to", lambda x, s: made.append(s) or broadcast_to(x, s)
    )
    launcher = _launcher(expected, double_cupy)
    rng = np.random.default_rng(fixture_seed(str((a, w, c))))
    xs = [double_cupy.asarray(rng.random(s)) for s in (a, w, c)]
    want = np.sqrt(xs[0] * xs[1] + xs[2]).mean() if np.prod(a) else np.nan
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = launcher(*xs)
    assert np.asarray(got).dtype == np.float64
    assert np.allclose(got, want, rtol=1e-12, equal_nan=True), (got, want)
    assert len(made) == copies
    if len(a) == 2 and a[0] > 1 and w != a:
        # a arrives as the row, w as the full array: w's stepped index reads it at inner 1
        made.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = launcher(xs[1], xs[0], xs[2])
        assert np.allclose(got, want, rtol=1e-12), (got, want)
        assert made == [a]


@pytest.mark.parametrize(("xs", "ys"), [((33, 40), (40,)), ((33, 1), (33, 40)), ((40,), (40,))])
def test_reduction_reads_an_input_inferred_full_that_arrives_broadcast(
    double_cupy, monkeypatch: pytest.MonkeyPatch, xs: tuple, ys: tuple
) -> None:  # noqa: ANN001
    """flag-reduction's `np.sum(xs * xs + ys * ys <= 1.0)`: both inputs inferred to have one
    shape, read at the result's index with no index to step. One that arrives broadcast (a row,
    a column) is copied to the result's shape, and the count is NumPy's; inputs of the inferred
    shape are read as they are (no copy)."""
    expected = (FIXTURES / "flag-reduction" / "expected.py").read_text()
    broadcast_to = double_cupy.broadcast_to
    made: list = []
    monkeypatch.setattr(
        double_cupy, "broadcast_to", lambda x, s: made.append(s) or broadcast_to(x, s)
    )
    launcher = _launcher(expected, double_cupy)
    rng = np.random.default_rng(fixture_seed(str((xs, ys))))
    x, y = (double_cupy.asarray(rng.random(s)) for s in (xs, ys))
    got = launcher(x, y)
    assert np.asarray(got).dtype == np.int64
    assert got == np.sum((x * x + y * y) <= 1.0)
    assert len(made) == (xs != ys)


# --- Single or double precision, by name ----------------------------------------------------
_DOUBLE_MATH = (
    "sqrt cbrt exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan atan2 hypot sinh "
    "cosh tanh asinh acosh atanh floor ceil trunc rint fabs copysign fmax fmin pow"
).split()
_CALL_DOUBLE = re.compile(rf"\b({'|'.join(_DOUBLE_MATH)})\s*\(")
_CALL_FLOAT = re.compile(rf"\b({'|'.join(f'{f}f' for f in _DOUBLE_MATH)})\s*\(")
# decimal literals with a point or an exponent, and their suffix (integers are not checked)
_FLOAT_LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*|\.\d+|\d+(?=[eE]))([eE][+-]?\d+)?(f?)")


def _kernels(expected: str) -> list[tuple[str, str]]:
    """(element dtype, C text) of every kernel in a candidate; "mixed" for a stencil whose loop
    step also reads an array of the other float dtype (a literal takes the type of what it meets,
    float or double: such kernels are held bit for bit by the emulation instead), and for a
    kernel typed `T`."""
    out = []
    for code in re.findall(r"cp\.RawKernel\(r'''\n(.*?)\n'''", expected, re.S):
        sig = code.split("{", 1)[0]
        code = re.sub(r"//[^\n]*", "", code)  # comments are prose ("instead of 5.")
        floats, doubles = "float*" in sig, "double*" in sig
        out.append(("mixed" if floats and doubles else "float32" if floats else "float64", code))
    for block in _library_kernel_blocks(expected):
        # (the compile options are no C: `--fmad=false`)
        strings = [t for t in re.findall(r"'([^']*)'", block) if not t.startswith("--")]
        # the element dtype: the first float parameter's (a bool mask parameter is not one; a
        # complex one, read as `abs(z)`, stands for the float dtype of its parts)
        types = [p.split()[0] for part in strings[:2] for p in part.split(",")]
        magnitude = {"complex64": "float32", "complex128": "float64"}
        first = next(t for t in types if t != "bool")
        dtype = magnitude.get(first, first)
        # a `T` kernel is a definition's for both precisions (np_remainder: float-remainder.ts,
        # its preamble overloads float and double): "mixed" here
        out.append(("mixed" if dtype == "T" else dtype, "\n".join(strings[1:])))
    return out


def _library_kernel_blocks(expected: str, kind: str = "(?:Elementwise|Reduction)") -> list[str]:
    """The arguments' text of every cp.ElementwiseKernel / cp.ReductionKernel call in a candidate
    (up to its closing parenthesis, before a trailing comment)."""
    return re.findall(rf"cp\.{kind}Kernel\((.*?)\)(?:[ \t]*#[^\n]*)?\n", expected, re.S)


def test_library_kernels_compile_options() -> None:
    """Every typed cp.ElementwiseKernel is compiled with --fmad=false: CuPy passes a kernel's
    options to NVRTC (`_get_elementwise_kernel` in _kernel.pyx), whose default --fmad=true would
    contract `a * b + c` into one FMA, 1 ulp from NumPy's separately rounded product and sum. No
    cp.ReductionKernel claims that option: CuPy 14 runs a one-input ReductionKernel through CUB
    and compiles that path without the kernel's options (`_launch_cub` in _cub_reduction.pyx), so
    the candidate says so in a comment instead. And the CUB path renames the input to `in0` by
    plain text replacement in the map expression: the input's name must occur there only as a
    whole token (`d` would turn `(double)` into `(in0ouble)`)."""
    elementwise = reductions = 0
    for path in sorted(FIXTURES.parent.glob("GPU10*/flag-*/expected.py")):
        text = path.read_text()
        where = f"{path.parent.parent.name}/{path.parent.name}"
        for block in _library_kernel_blocks(text, "Elementwise"):
            elementwise += 1
            assert block.rstrip().endswith("options=('--fmad=false',)"), (where, block)
        for block in _library_kernel_blocks(text, "Reduction"):
            reductions += 1
            assert "options=" not in block, (where, block)
            strings = re.findall(r"'([^']*)'", block)
            name = strings[0].split()[1]
            map_expr = strings[2]
            # CuPy's renaming (`map_expr.replace(old_in0, 'in0')`) against a renaming of tokens
            tokens = re.sub(rf"\b{name}\b", "in0", map_expr)
            assert map_expr.replace(name, "in0") == tokens, (where, name)
            assert name not in ("a", "b", "r"), (where, name)
        if "cp.ReductionKernel(" in text:
            assert "through CUB, compiled without this kernel's options" in text, where
    assert elementwise >= 10 and reductions >= 3, (elementwise, reductions)


def test_kernels_name_math_functions_of_their_precision() -> None:
    found = {"float32": 0, "float64": 0}
    calls = set()
    for path in sorted(FIXTURES.parent.glob("GPU10*/flag-*/expected.py")):
        for dtype, text in _kernels(path.read_text()):
            if dtype == "mixed":
                continue
            found[dtype] += 1
            where = f"{path.parent.parent.name}/{path.parent.name}"
            literals = _FLOAT_LITERAL.findall(text)
            if dtype == "float32":
                assert not _CALL_DOUBLE.search(text), (where, _CALL_DOUBLE.findall(text))
                assert all(suffix == "f" for *_, suffix in literals), (where, literals)
                calls.update(_CALL_FLOAT.findall(text))
            else:
                assert not _CALL_FLOAT.search(text), (where, _CALL_FLOAT.findall(text))
                assert not any(suffix for *_, suffix in literals), (where, literals)
                calls.update(_CALL_DOUBLE.findall(text))
    # the fixtures do exercise both precisions, with math functions in each
    assert found["float32"] >= 3 and found["float64"] >= 3, found
    assert {"sqrtf", "expf", "fabsf", "powf", "sinf"} <= calls, calls
    assert {"sqrt", "fabs", "sin"} <= calls, calls


# --- The loop stencils' ping-pong, in place -------------------------------------------------
@pytest.mark.parametrize(
    "case",
    [
        "flag-stencil-slices",
        "flag-stencil-loop-odd-steps-1d",
        "flag-stencil-loop-reads-other-array",
        "flag-stencil-loop-reads-other-array-shifted-1d",
        "flag-stencil-loop-reads-k-and-n-1d",
        "flag-stencil-loop-reads-p-q-r-2d",
        "flag-stencil-loop-other-array-float64",
        "flag-stencil-loop-other-array-float64-1d-weak-scalars",
        "flag-stencil-loop-float64-reads-float32-1d",
        "flag-stencil-loop-other-array-broadcast-row",
        "flag-stencil-loop-reads-row-and-column",
        # the periodic in-place forms (u += ..., h[:] = ...): np.roll's wrap-around
        "flag-stencil-loop-roll-in-place-2d",
        "flag-stencil-loop-roll-upwind-1d-in-place",
        "flag-stencil-loop-roll-whole-slice-1d",
    ],
)
def test_stencil_loop_updates_the_array_in_place(double_cupy, case: str) -> None:  # noqa: ANN001
    """The candidate's definitions and its loop (the lines from the first buffer to `del`), run
    on a device array of random values for 0 to 3 steps: the name is bound to the same array
    object afterwards, with NumPy's values bit for bit; a strided view is written through (its
    base's other elements kept). Another array the step reads is a random device array of the
    dtype and shape the launcher checks (u's, or a broadcast row or column's; a strided view
    too, made contiguous once): a float64 one read by a float32 loop holds values float32 cannot,
    so a step computed in float32 (or stored without NumPy's cast) shows."""
    setup, target = _cells(FIXTURES / case / "notebook.py")
    # the setup's Python scalars (`alpha = 0.1`), which the loop's scalar pieces read
    made: dict = {}
    exec(re.sub(r"\b\d[\d_]{3,}\b", "8", setup), made)  # noqa: S102  (small arrays)
    scalars = {k: v for k, v in made.items() if type(v) in (int, float)}
    text = (FIXTURES / case / "expected.py").read_text()
    lines = text.splitlines()
    start = next(k for k, t in enumerate(lines) if "= cp.RawKernel(" in t)
    first = next(k for k, t in enumerate(lines) if "= cp.ascontiguousarray(" in t)
    last = next(k for k, t in enumerate(lines) if t.startswith("del "))
    # the kernel and its launcher, to the launcher's last line (the cell's own statements before
    # the loop, `u0 = u`, are not run: the test binds the name itself)
    end = next(k for k, t in enumerate(lines) if t.startswith("def ")) + 1
    while end < first and (not lines[end] or lines[end].startswith(" ")):
        end += 1
    definitions = "\n".join(lines[start:end]) + "\n"
    loop = "\n".join(lines[first : last + 1]) + "\n"
    name = re.match(r"\w+ = cp\.ascontiguousarray\((\w+)\)", lines[first]).group(1)  # type: ignore[union-attr]
    # the other arrays the loop reads: their device names (made contiguous before the loop) and
    # the host names the prologue uploads them from (`f_gpu = cp.asarray(f)`)
    uploaded = dict(re.findall(r"^(\w+) = cp\.asarray\((\w+)\)$", text, re.M))
    read_devices = re.findall(r"^\w+ = cp\.ascontiguousarray\((\w+)\)", loop, re.M)[1:]
    reads = {dev: uploaded[dev] for dev in read_devices}
    assert bool(reads) == ("reads-" in case or "other-array" in case), reads
    env: dict = {"cp": double_cupy}
    exec(definitions, env)  # noqa: S102
    # the launcher checks the two buffers once, before the loop; every step launches the kernel
    launcher = re.search(r"^def (\w+)\(", definitions, re.M).group(1)  # type: ignore[union-attr]
    checks = []
    checked = env[launcher]
    env[launcher] = lambda *a: checks.append(1) or checked(*a)
    rng = np.random.default_rng(fixture_seed(case))
    two_d = re.search(r"^    if \w+\.ndim != 2:$", definitions, re.M) is not None
    dtype = np.dtype(re.search(r"\.dtype != cp\.(\w+) or ", definitions).group(1))  # type: ignore[union-attr]
    # each other array's launcher parameter, and the dtype and shape (of u's) it checks
    params = re.search(rf"^def {launcher}\((.*?)\):", definitions, re.M).group(1).split(", ")  # type: ignore[union-attr]
    read_params = dict(zip(read_devices, params[1 : 1 + len(read_devices)], strict=True))
    shape_of = dict(re.findall(r"^    if (\w+)\.shape != (.+):$", definitions, re.M))
    dtype_of = dict(re.findall(r"^    if (\w+)\.dtype != cp\.(\w+):$", definitions, re.M))

    def view(a: np.ndarray, offset: int = 0) -> np.ndarray:
        return a[:, offset::2] if two_d else a[offset::2]

    def read_view(a: np.ndarray) -> np.ndarray:
        return a[..., ::2]

    for steps in range(4):
        for strided in (False, True):
            # 19 rows: the 2-D kernel's unrolled interior strip (rows 8-15) runs, not only the
            # checked border path
            big = rng.random((19, 22) if two_d else (74,)).astype(dtype)
            host = view(big).copy() if strided else big.copy()
            read_bigs = {}
            for dev in reads:
                param = read_params[dev]
                shape = eval(shape_of[param], {params[0]: host})  # noqa: S307  (the launcher's text)
                wide = shape[:-1] + (2 * shape[-1],) if strided else shape
                read_bigs[dev] = rng.standard_normal(wide).astype(dtype_of[param])
            read_hosts = {
                reads[d]: (read_view(b) if strided else b).copy() for d, b in read_bigs.items()
            }
            want: dict = {"np": np, **scalars, name: host, **read_hosts}
            exec(re.sub(r"range\(\d+\)", f"range({steps})", target), want)  # noqa: S102
            big_dev = double_cupy.asarray(big)
            arr = view(big_dev) if strided else big_dev
            assert arr.flags.c_contiguous is not strided
            read_devs = {
                d: read_view(double_cupy.asarray(b)) if strided else double_cupy.asarray(b)
                for d, b in read_bigs.items()
            }
            got = {**env, **scalars, name: arr, **read_devs}
            checks.clear()
            exec(re.sub(r"range\(\d+\)", f"range({steps})", loop), got)  # noqa: S102
            assert len(checks) == 1, (case, steps, len(checks))
            assert got[name] is arr, (case, steps, strided)
            assert np.array_equal(np.asarray(arr), want[name]), (case, steps, strided)
            if strided:  # the elements between the view's were not touched
                assert np.array_equal(np.asarray(view(big_dev, 1)), view(big, 1)), (case, steps)
            for d, b in read_bigs.items():  # read, never written
                assert np.array_equal(np.asarray(got[d]), read_view(b) if strided else b), (case, d)
            suffixes = ("_src", "_dst", "_grid", "_rows", "_cols", "_size")
            suffixes += tuple(f"_{host_name}" for host_name in reads.values())
            leaked = {k for k in got if k.endswith(suffixes)}
            assert not leaked, leaked  # the buffers' and the launch's names are deleted after it


# --- ElementwiseKernels: literals as NumPy casts them -----------------------------------------
@pytest.mark.parametrize("case", ["flag-elementwise-folded-literals"])
def test_elementwise_kernel_bitwise_equal_to_numpy(tmp_path: pathlib.Path, case: str) -> None:
    """The typed ElementwiseKernel's operation compiled with g++ (one loop over the elements, no
    FMA contraction, as the kernel is compiled with --fmad=false) against the fixture's NumPy
    cell, bit for bit. `0.1 * 0.1 * x` must be
    float32(0.1 * 0.1) * x (Python folds the literals in double; NEP 50 casts the result once),
    which differs from 0.1f * 0.1f * x in most elements; `x ** (-1)` and `x ** +2` are NumPy's
    reciprocal and square."""
    expected = (FIXTURES / case / "expected.py").read_text()
    (block,) = _library_kernel_blocks(expected, "Elementwise")
    in_params, out_params, operation, _, options = re.findall(r"'([^']*)'", block)
    assert options == "--fmad=false"  # as this emulation is compiled: -ffp-contract=off
    ctype = {"float32": "float", "float64": "double"}
    ins = [p.split() for p in in_params.split(",")]
    (out_dt, out_name) = out_params.split()
    args = ", ".join(f"const {ctype[d]}* _in_{n}" for d, n in ins)
    loads = " ".join(f"const {ctype[d]} {n} = _in_{n}[_k];" for d, n in ins)
    code = f"""#include <math.h>
extern "C" void run({args}, {ctype[out_dt]}* _out, long long _n) {{
    for (long long _k = 0; _k < _n; _k++) {{
        {loads} {ctype[out_dt]} {out_name}; {operation}; _out[_k] = {out_name};
    }}
}}
"""
    lib = _compile(tmp_path, case, code)
    setup, target = _cells(FIXTURES / case / "notebook.py")
    env: dict = {}
    exec(setup.replace("20_000_000", "100_000"), env)  # noqa: S102
    want: dict = dict(env)
    exec(target, want)  # noqa: S102
    inputs = [np.ascontiguousarray(env[n]) for _, n in ins]
    out = np.empty_like(want[out_name])
    lib.run(*[_ptr(a) for a in inputs], _ptr(out), ctypes.c_longlong(out.size))
    assert out.dtype == want[out_name].dtype
    assert np.array_equal(out, want[out_name]), int(np.sum(out != want[out_name]))
    x = env["x"]
    unfolded = np.float32(0.1) * np.float32(0.1) * x
    assert np.mean(unfolded != np.float32(0.1 * 0.1) * x) > 0.5  # the fold is what makes it NumPy's


# --- Launchers check the rank their kernel assumes ------------------------------------------
def stencil_launcher(case: str, cupy_double):  # noqa: ANN001, ANN201
    """The fixture's RawKernel and its launcher function, as the candidate defines them, run
    against the CuPy test double: (their source text, the launcher)."""
    lines = (FIXTURES / case / "expected.py").read_text().splitlines()
    start = next(k for k, t in enumerate(lines) if "= cp.RawKernel(" in t)
    end = next(k for k, t in enumerate(lines) if t.startswith("def ")) + 1
    while end < len(lines) and (not lines[end] or lines[end].startswith(" ")):
        end += 1
    defs = "\n".join(lines[start:end]) + "\n"
    env: dict = {"cp": cupy_double}
    exec(defs, env)  # noqa: S102
    return defs, env[re.search(r"^def (\w+)\(", defs, re.M).group(1)]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("case", "wrong"),
    [
        ("flag-stencil-1d", [(40, 3)]),  # a 2-D array would run over its flattened data
        ("flag-slice-stencil-one-pass", [(40,)]),
        ("flag-stencil-slices", [(40,), (40,)]),  # the loop's check of its two buffers
        ("flag-stencil-loop-odd-steps-1d", [(4, 10), (4, 10)]),
    ],
)
def test_stencil_launcher_refuses_another_rank(double_cupy, case: str, wrong: list) -> None:  # noqa: ANN001
    defs, launcher = stencil_launcher(case, double_cupy)
    dtype = np.float32 if "!= cp.float32" in defs else np.float64
    args = [double_cupy.asarray(np.zeros(shape, dtype)) for shape in wrong]
    rank = r"generated for \d-D arrays .* got \d-D: rerun the analysis"
    with pytest.raises(TypeError, match=rank):
        launcher(*args)


# --- The arrays a loop step reads besides its buffers are checked once ----------------------
@pytest.mark.parametrize(
    "case",
    ["flag-stencil-loop-reads-other-array", "flag-stencil-loop-reads-other-array-shifted-1d"],
)
def test_stencil_loop_launcher_checks_the_arrays_it_reads(double_cupy, case: str) -> None:  # noqa: ANN001
    """The loop's launcher refuses another array of the wrong dtype, shape or kind with an error
    that names it (the kernel reads it at the buffers' flat offsets, never casting)."""
    defs, launcher = stencil_launcher(case, double_cupy)
    other = re.search(r"reads (\w+) as a C-contiguous", defs).group(1)  # type: ignore[union-attr]
    dtype = np.float32 if "!= cp.float32" in defs else np.float64
    shape = (6, 40) if "u.ndim != 2" in defs else (40,)

    def device(a: np.ndarray):  # noqa: ANN202
        return double_cupy.asarray(a)

    u, out = device(np.zeros(shape, dtype)), device(np.zeros(shape, dtype))
    grid, *_ = launcher(u, device(np.ones(shape, dtype)), out)
    assert all(g >= 1 for g in grid)
    wrong_dtype = np.float64 if dtype == np.float32 else np.float32
    with pytest.raises(
        TypeError, match=rf"generated for {np.dtype(dtype)} arrays .* got {other} of"
    ):
        launcher(u, device(np.ones(shape, wrong_dtype)), out)
    with pytest.raises(
        ValueError, match=rf"reads {other} at the indices of \w+: it needs the shape"
    ):
        launcher(u, device(np.ones(shape[:-1] + (shape[-1] + 1,), dtype)), out)
    with pytest.raises(TypeError, match=rf"reads {other} as a C-contiguous CuPy array"):
        launcher(u, np.ones(shape, dtype), out)  # a host array
    strided = device(np.ones(shape[:-1] + (2 * shape[-1],), dtype))[..., ::2]
    with pytest.raises(TypeError, match=rf"reads {other} as a C-contiguous CuPy array"):
        launcher(u, strided, out)


def test_stencil_loop_launcher_checks_a_read_of_another_dtype_or_a_broadcast_shape(
    double_cupy,  # noqa: ANN001
) -> None:
    """A float64 array read by a float32 loop is checked as float64 (never cast: the kernel
    reads doubles); a broadcast row as the (3, m) array the kernel indexes, not u's shape."""

    def device(shape: tuple, dtype: type) -> object:
        return double_cupy.asarray(np.ones(shape, dtype))

    u, out = device((6, 40), np.float32), device((6, 40), np.float32)
    _, launcher = stencil_launcher("flag-stencil-loop-other-array-float64", double_cupy)
    grid, *_ = launcher(u, device((6, 40), np.float64), out)
    assert all(g >= 1 for g in grid)
    with pytest.raises(TypeError, match=r"generated for float64 arrays .* got f of float32"):
        launcher(u, device((6, 40), np.float32), out)
    _, launcher = stencil_launcher("flag-stencil-loop-other-array-broadcast-row", double_cupy)
    grid, *_ = launcher(u, device((3, 40), np.float32), out)
    assert all(g >= 1 for g in grid)
    needs = r"reads f broadcast against the interior of u: it needs the shape \(3, 40\)"
    with pytest.raises(ValueError, match=rf"{needs}, got \(6, 40\)"):
        launcher(u, device((6, 40), np.float32), out)


@pytest.mark.parametrize(
    "case",
    [
        "flag-stencil-loop-other-array-float64",
        "flag-stencil-loop-other-array-broadcast-row",
        "flag-stencil-loop-reads-row-and-column",
        "flag-stencil-loop-reads-p-q-r-2d",
    ],
)
def test_2d_loop_stencil_reads_on_a_grid_stride_grid(double_cupy, case: str) -> None:  # noqa: ANN001
    """One step of the 2-D kernels that read other arrays (another dtype, broadcast rows and
    columns, names the kernel had to move its own out of the way of) on a grid of one block row,
    so each block walks every strip (the grid-stride loop), partial last strips included, against
    NumPy's step bit for bit (random values; the output starts as 7s: every element written)."""
    defs, launcher = stencil_launcher(case, double_cupy)
    kernel = launcher.__globals__[f"{launcher.__name__}_kernel"]
    setup, target = _cells(FIXTURES / case / "notebook.py")
    made: dict = {}
    exec(re.sub(r"\b\d[\d_]{3,}\b", "8", setup), made)  # noqa: S102  (small arrays)
    scalars = {k: v for k, v in made.items() if type(v) in (int, float)}
    name = re.search(r"^    (\w+)\[1:-1, 1:-1\] = ", target, re.M).group(1)  # type: ignore[union-attr]
    params = re.search(r"^def \w+\((.*?)\):", defs, re.M).group(1).split(", ")  # type: ignore[union-attr]
    # the buffer the step writes: `if u_new.shape != u.shape or u_new is u:` (whole names: `w is`
    # is inside `u_new is u`)
    out_at = params.index(
        next(p for p in params if re.search(rf"\b{p}\.shape != .* or {p} is ", defs))
    )
    shape_of = dict(re.findall(r"^    if (\w+)\.shape != (.+):$", defs, re.M))
    dtype_of = dict(re.findall(r"^    if (\w+)\.dtype != cp\.(\w+):$", defs, re.M))
    dtype = np.dtype(re.search(r"\.dtype != cp\.(\w+) or ", defs).group(1))  # type: ignore[union-attr]
    # the host names of the arrays read, in the launcher's order (the notebook's own names), and
    # the scalar pieces the cell passes it after the buffers, computed as the cell computes them
    read_names = re.findall(r"raise TypeError\('\w+ reads (\w+) as a C-contiguous", defs)
    expected = (FIXTURES / case / "expected.py").read_text()
    call = re.search(rf"^\w+(?:, \w+)* = {launcher.__name__}\((.*)\)  # checks", expected, re.M)
    passed = call.group(1).split(", ")  # type: ignore[union-attr]
    pieces = [eval(t, dict(scalars)) for t in passed[out_at + 1 :]]  # noqa: S307
    rng = np.random.default_rng(fixture_seed(case))
    for shape in [(3, 3), (9, 9), (17, 33), (26, 130)]:
        u = rng.random(shape).astype(dtype)
        reads = [
            rng.standard_normal(eval(shape_of[p], {params[0]: u})).astype(dtype_of[p])  # noqa: S307
            for p in params[1:out_at]
        ]
        out = double_cupy.asarray(np.full(shape, 7, dtype))
        grid, *ints = launcher(
            double_cupy.asarray(u), *map(double_cupy.asarray, reads), out, *pieces
        )
        args = (double_cupy.asarray(u), *map(double_cupy.asarray, reads), out, *ints)
        kernel((grid[0], 1), (128,), args)  # one block row: every block loops over all strips
        want: dict = {"np": np, **scalars, name: u.copy()}
        want.update(zip(read_names, reads, strict=True))
        exec(re.sub(r"range\(\d+\)", "range(1)", target), want)  # noqa: S102
        assert np.array_equal(np.asarray(out), want[name]), (case, shape)


# --- np.round as rint, np.where as a C ternary, masks as bool locals and outputs -------------
# case: the names the NumPy cell binds that the candidate keeps in the kernel's registers
ROUND_AND_WHERE = {
    "flag-round-minimum-image-in-place": set(),
    "flag-round-forms-float32": set(),
    "flag-where-mask-group-one-kernel": {"m", "inv2", "inv6"},
    # the mask made in another cell, a bool parameter of the group's kernel
    "flag-where-mask-from-earlier-cell": {"inv2", "inv6"},
    "flag-where-mask-output-float32": {"w"},
}


@pytest.mark.parametrize("case", sorted(ROUND_AND_WHERE))
def test_round_and_where_kernels_bitwise_equal_to_numpy(
    double_cupy,  # noqa: ANN001
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: pathlib.Path,
    case: str,
) -> None:
    """Each fixture's candidate run as written, its ElementwiseKernel compiled with g++ as CuPy
    wraps it (test_elementwise_kernel_groups_cpu, with C++ `bool` for a mask), against the NumPy
    cell: every array bit for bit, dtype included (the bool mask output too). `np.round(x)`,
    `np.around(x, 0)` and `x.round(decimals=0)` are C's rint, half to even: the inputs hold exact
    halves, and the same kernel with C's round (half away from zero) differs. `np.where(m, a, b)`
    as `m ? a : b`: elements the mask rejects (r2 == 0, where NumPy divides by zero in the branch
    it discards) get NumPy's value."""
    import test_elementwise_kernel_groups_cpu as groups

    monkeypatch.setitem(groups.CTYPE, "bool", "bool")
    base, want, got = groups._run(case, double_cupy, monkeypatch, tmp_path)
    compared = 0
    for name, w in want.items():
        if not isinstance(w, np.ndarray) or name.startswith("_"):
            continue
        if name in ROUND_AND_WHERE[case]:
            assert name not in got and name not in base, name  # a local: never bound
            continue
        g = np.asarray(got[name])
        assert g.dtype == w.dtype and g.shape == w.shape, (name, g.dtype, w.dtype)
        assert np.array_equal(g, w), (name, int(np.sum(g != w)))
        compared += 1
    assert compared >= 1, compared
    if case == "flag-round-forms-float32":
        assert np.any(np.asarray(base["x"]) % 1 == 0.5)  # ties, which rint sends to even
        _, want, got = groups._run(
            case, double_cupy, monkeypatch, tmp_path, edit=lambda op: op.replace("rintf", "roundf")
        )
        assert not np.array_equal(np.asarray(got["y"]), want["y"])
    if case.startswith("flag-where"):
        assert np.any(np.asarray(base["r2"]) == 0.0)  # rejected by the mask


# --- NumPy's float % and // definitions (float-remainder.ts), `x %= y` rebinding -----------
def _floor_definitions(cp) -> dict:  # noqa: ANN001
    """np_remainder and np_floor_divide as flag-function-augmented-remainder-number-or-array's
    candidate defines them (its lines before the first `def wrap_phase`), in a namespace of `cp`."""
    case = FIXTURES.parent / "GPU101" / "flag-function-augmented-remainder-number-or-array"
    expected = (case / "expected.py").read_text()
    head = expected[expected.index("np_remainder_kernel = ") : expected.index("def wrap_phase")]
    env: dict = {"cp": cp, "np": np}
    exec(compile(head, "<definitions>", "exec"), env)  # noqa: S102  (the fixture's own text)
    return env


def test_augmented_remainder_rebinds_numbers_and_updates_arrays(double_cupy) -> None:  # noqa: ANN001
    """`u = np_remainder(u, c, out=u)` (the rewrite of `u %= c`): Python numbers and NumPy
    scalars, which `out=` cannot take, get Python's and NumPy's own values and types, as
    `u %= c` rebinds them; a device or host array is updated in place and returned itself."""
    env = _floor_definitions(double_cupy)
    rem, fdiv = env["np_remainder"], env["np_floor_divide"]
    for u, c in [(1234.5, 251.0), (-8.0, 2.5), (7.25, -2.0), (5, 3)]:
        r = rem(u, c, out=u)
        assert type(r) is type(u % c) and r == u % c
        q = fdiv(u, c, out=u)
        assert type(q) is type(u // c) and q == u // c
    s = np.float32(-7.5)
    r = rem(s, 2.0, out=s)
    assert r.dtype == np.float32 and r == np.float32(0.5)
    host = np.array([-7.5, 7.5, 251.0], dtype=np.float32)
    assert rem(host, 2.0, out=host) is host
    np.testing.assert_array_equal(host, np.array([0.5, 1.5, 1.0], dtype=np.float32))
    dev = double_cupy.asarray(np.array([-7.5, 7.5, 1.0e9], dtype=np.float64))
    view = dev[1:]
    assert rem(dev, 2.5, out=dev) is dev
    np.testing.assert_array_equal(np.asarray(view), np.array([0.0, 0.0]))
    assert fdiv(dev, 0.5, out=dev) is dev
    np.testing.assert_array_equal(np.asarray(dev), np.array([0.0, 0.0, 0.0]))
    # a number meeting a device array: rebound to a device array, as NumPy's `u %= a` gives
    # an array
    got = rem(-7.5, double_cupy.asarray(np.array([2.0, -2.0])), out=-7.5)
    assert isinstance(got, double_cupy.ndarray)
    np.testing.assert_array_equal(np.asarray(got), np.array([0.5, -1.5]))
