"""Does the GPU keep float32 subnormals? (references/cupy.md#subnormals)

Run on the GPU machine: python3 bench/subnormal_probe.py. Prints what a RawKernel (with and
without -ftz=false in its options), an ElementwiseKernel and CuPy's own multiply give for inputs
and results below float32's smallest normal number (1.18e-38), next to NumPy's host results.
Measured on the H200 (CuPy 14.2.0, 2026-11-30): every GPU path flushes them to 0, NumPy keeps
them: CuPy appends -ftz=true to every compilation.
"""

from __future__ import annotations

import cupy as cp
import numpy as np

SRC = r"""extern "C" __global__ void f(const float* x, float* y, float* z, int n) {
  int i = threadIdx.x;
  if (i < n) { y[i] = 0.25f * (x[i] + x[i] + x[i] + x[i]); z[i] = x[i] * 0.5f; }
}"""


def main() -> None:
    x = np.array([1e-39, 3e-39, 4.2e-45, 1e-38, 2e-38, 1.0], dtype=np.float32)
    xd = cp.asarray(x)
    for opts in [("--fmad=false",), ("--fmad=false", "-ftz=false"), ()]:
        kernel = cp.RawKernel(SRC, "f", options=opts)
        y, z = cp.empty_like(xd), cp.empty_like(xd)
        kernel((1,), (32,), (xd, y, z, cp.int32(x.size)))
        print("RawKernel", opts, "0.25*(4x):", y.get(), "x*0.5:", z.get())
    half = cp.ElementwiseKernel("float32 a", "float32 b", "b = a * 0.5f", "half")
    print("ElementwiseKernel x*0.5:", half(xd).get())
    print("cupy multiply x*0.5:   ", (xd * cp.float32(0.5)).get())
    print("NumPy 0.25*(4x):", np.float32(0.25) * (x + x + x + x), "x*0.5:", x * np.float32(0.5))


if __name__ == "__main__":
    main()
