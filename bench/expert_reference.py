"""EXPERT REFERENCE variants: hand-written by the bench, NOT produced by the engine.

They exist to show the ceiling a workload can reach (or a GPU path for workloads the engine
gives no candidate for). `bench/run_gpu.py` reports them in their own rows, labelled
"expert", never in the engine's column. Each variant may have `prelude`: code run once in the
namespace after the workload's setup (like an earlier notebook cell that defines a kernel),
so that compilation is not repeated on every timed run.
"""

STENCIL_RAW_PRELUDE = r'''
import cupy as cp
_lap5 = cp.RawKernel(r"""
extern "C" __global__ void lap5(const float* u, float* out, int n, int m) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // fastest index -> contiguous axis
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= m) return;
    float v = 0.0f;
    if (i > 0 && i < n - 1 && j > 0 && j < m - 1) {
        v = u[(size_t)(i - 1) * m + j] + u[(size_t)(i + 1) * m + j]
          + u[(size_t)i * m + j - 1] + u[(size_t)i * m + j + 1]
          - 4.0f * u[(size_t)i * m + j];
    }
    out[(size_t)i * m + j] = v;
}
""", "lap5", options=("--fmad=false",))
'''

STENCIL_RAW = '''
u_gpu = cp.asarray(u)
n, m = u_gpu.shape
lap = cp.empty_like(u_gpu)
_lap5(((m + 31) // 32, (n + 7) // 8), (32, 8), (u_gpu, lap, cp.int32(n), cp.int32(m)))
'''

STENCIL_NUMBA_PRELUDE = '''
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
'''

STENCIL_NUMBA = '''
u_gpu = cp.asarray(u)
n, m = u_gpu.shape
lap = cp.empty_like(u_gpu)
_lap5_nb[((m + 31) // 32, (n + 7) // 8), (32, 8)](u_gpu, lap)
'''

NDIMAGE = '''
import cupy as cp
import cupyx.scipy.ndimage as cndi
img_gpu = cp.asarray(img)
smooth = cndi.gaussian_filter(img_gpu, sigma=3.0)
denoised = cndi.median_filter(img_gpu, size=3)
'''

SPARSE = '''
import cupy as cp
import cupyx.scipy.sparse as csp
M_gpu = csp.csr_matrix(M)
v_gpu = cp.asarray(v)
w = M_gpu @ v_gpu
'''

#: workload name -> variants
EXPERT = {
    "stencil_slices": [
        {
            "name": "expert: one-pass CUDA kernel (cupy.RawKernel)",
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
