"""EXPERT REFERENCE variants: hand-written by the bench, NOT produced by the engine.

They exist to show the ceiling a workload can reach (or a GPU path for workloads the engine
gives no candidate for). `bench/run_gpu.py` reports them in their own rows, labelled
"expert", never in the engine's column. Each variant may have `prelude`: code run once in the
namespace after the workload's setup (like an earlier notebook cell that defines a kernel),
so that compilation is not repeated on every timed run.
"""

# The hand-written one-pass stencil: each thread takes one column j and R consecutive rows; the
# row above and the row itself rotate through registers, so each output loads 3 values (below,
# left, right) instead of 5. bench/gpu_diagnostics.py --explore times it for several R, BX, BY.
LAP5_STRIP_KERNEL = r"""
extern "C" __global__ void __launch_bounds__(BX * BY) lap_strip(const float* __restrict__ u,
                                                                 float* __restrict__ out,
                                                                 int n, int m) {
    const int j = blockIdx.x * BX + threadIdx.x;
    if (j >= m) return;
    const bool edge = (j == 0) | (j == m - 1);
    for (int s = blockIdx.y * BY + threadIdx.y; (long long)s * R < n; s += gridDim.y * BY) {
        const int i0 = s * R;
        const int i1 = min(i0 + R, n);
        const ptrdiff_t k0 = (ptrdiff_t)i0 * m + j;
        if (!edge && i0 >= 1 && i1 <= n - 1) {
            // interior strip: fixed trip count, fully unrolled, all loads in flight together
            const float* p = u + k0;
            float* q = out + k0;
            float up = p[-(ptrdiff_t)m], mid = p[0];
#pragma unroll
            for (int r = 0; r < R; r++) {
                const ptrdiff_t o = (ptrdiff_t)r * m;
                const float down = p[o + m];
                q[o] = up + down + p[o - 1] + p[o + 1] - 4.0f * mid;
                up = mid;
                mid = down;
            }
        } else {
            for (int i = i0; i < i1; i++) {
                const ptrdiff_t k = (ptrdiff_t)i * m + j;
                float v = 0.0f;
                if (!edge && i > 0 && i < n - 1) {
                    v = u[k - m] + u[k + m] + u[k - 1] + u[k + 1] - 4.0f * u[k];
                }
                out[k] = v;
            }
        }
    }
}
"""

STENCIL_RAW_PRELUDE = """
import cupy as cp
from expert_reference import LAP5_STRIP_KERNEL
# The best variant of bench/gpu_diagnostics.py --explore (H200, 2026-11-30): 8 rows per thread,
# 256 threads per block along the contiguous axis (8192^2: 153 us of kernel, 85% of the copy
# ceiling).
_lap5_kernel = cp.RawKernel("#define R 8\\n#define BX 256\\n#define BY 1\\n" + LAP5_STRIP_KERNEL,
                            "lap_strip", options=("--fmad=false",))


def _lap5(u):
    if not (isinstance(u, cp.ndarray) and u.dtype == cp.float32 and u.flags.c_contiguous):
        u = cp.ascontiguousarray(cp.asarray(u), dtype=cp.float32)
    n, m = u.shape
    out = cp.empty((n, m), dtype=cp.float32)
    _lap5_kernel(((m + 255) // 256, min((n + 7) // 8, 65535)), (256, 1),
                 (u, out, cp.int32(n), cp.int32(m)))
    return out
"""

STENCIL_RAW = """
u_gpu = cp.asarray(u)
lap = _lap5(u_gpu)
"""

STENCIL_NUMBA_PRELUDE = """
import cupy as cp
from numba import cuda

@cuda.jit(fastmath=False)
def _lap5_nb(u, out):
    j, i = cuda.grid(2)          # x (fastest) -> column: coalesced loads
    n, m = u.shape
    if i < n and j < m:
        if 0 < i < n - 1 and 0 < j < m - 1:
            out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        else:
            out[i, j] = 0.0
"""

STENCIL_NUMBA = """
u_gpu = cp.asarray(u)
n, m = u_gpu.shape
lap = cp.empty_like(u_gpu)
_lap5_nb[((m + 31) // 32, (n + 7) // 8), (32, 8)](u_gpu, lap)
"""

NDIMAGE = """
import cupy as cp
import cupyx.scipy.ndimage as cndi
img_gpu = cp.asarray(img)
smooth = cndi.gaussian_filter(img_gpu, sigma=3.0)
denoised = cndi.median_filter(img_gpu, size=3)
"""

SPARSE = """
import cupy as cp
import cupyx.scipy.sparse as csp
M_gpu = csp.csr_matrix(M)
v_gpu = cp.asarray(v)
w = M_gpu @ v_gpu
"""

#: workload name -> variants
EXPERT = {
    "stencil_slices": [
        {
            "name": "expert: RawKernel, 8 rows/thread",
            "library": "cupy",
            "prelude": STENCIL_RAW_PRELUDE,
            "source": STENCIL_RAW,
        },
        {
            "name": "expert: one-pass Numba CUDA kernel",
            "library": "numba-cuda",
            "prelude": STENCIL_NUMBA_PRELUDE,
            "source": STENCIL_NUMBA,
            "needs": "numba.cuda",
        },
    ],
    "ndimage_filter": [
        {
            "name": "expert: cupyx.scipy.ndimage",
            "library": "cupy",
            "source": NDIMAGE,
        }
    ],
    "sparse_matvec": [
        {
            "name": "expert: cupyx.scipy.sparse CSR",
            "library": "cupy",
            "source": SPARSE,
        }
    ],
    "sparse_matvec_csr": [
        {
            "name": "expert: cupyx.scipy.sparse CSR",
            "library": "cupy",
            "source": SPARSE,
        }
    ],
}
