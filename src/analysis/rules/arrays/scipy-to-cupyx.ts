/**
 * GPU102 scipy-to-cupyx: SciPy call on large arrays -> `cupyx.scipy`.
 *
 * ## What it does
 * Flags a cell calling `scipy.{fft, ndimage, signal, sparse, sparse.linalg, linalg, special,
 * stats, spatial, interpolate}` on arrays the GPU can process faster, and proposes the same
 * call from `cupyx.scipy.<module>` (only functions cupyx really provides: an allow-list checked
 * against the installed CuPy), with the cell's NumPy code moved to CuPy as GPU101 does. Sparse
 * matrices move with `cupyx.scipy.sparse.csr_matrix(A)` and come back with `.get()`; products
 * with a scipy.sparse matrix (`M @ v`, `M.dot(v)`) are this rule's too (cuSPARSE on the device).
 * `scipy.stats.norm`'s `cdf`, `sf`, `logcdf`, `pdf`, `ppf` and `isf` of arrays (the Black-Scholes
 * `norm.cdf(d1)`) become what SciPy computes them with: `cupyx.scipy.special.ndtr`, `log_ndtr`,
 * `ndtri` and `exp(-z*z/2)/sqrt(2 pi)` of `z = (x - loc) / scale` in float64 (./scipy-norm.ts).
 *
 * ## Why
 * cupyx.scipy runs on cuFFT, cuSPARSE, cuSOLVER and hand-written CUDA kernels: image filters,
 * convolutions, FFT-based signal processing and sparse solvers are many times faster on large
 * inputs, with the SciPy signatures users already know.
 *
 * IIR filters in second-order sections (`sosfilt`, `sosfiltfilt`) are rewritten; their first
 * call compiles the filter kernels with NVRTC (measured on the H200, 2026-12-01, CuPy 14.2.0:
 * sosfilt 3.3 s, sosfiltfilt 0.8 s more, then 1.4 and 7.3 ms for 2M samples), once per machine
 * thanks to CuPy's kernel cache: a note says so and the first-run figure counts it.
 *
 * ## Refuses
 * Any scipy function cupyx lacks (e.g. `scipy.optimize`, `scipy.integrate`, most of
 * `scipy.stats`: every other distribution, `norm.rvs`, `norm.fit`; `norm.ppf`/`isf` of
 * probabilities that are not float64), plus GPU101's refusals. A cell calling a (b, a)
 * recursion (`signal.lfilter`, `filtfilt`, `lfiltic`, `lfilter_zi`) stays SciPy's, all of it:
 * cupyx's were wrong at high order on the H200 (2026-12-01, CuPy 14.2.0, 2M samples: an
 * 8th-order band-pass, `butter(4, [30, 2000], btype="bandpass")`, gave rms 1.53 by lfilter and
 * 1.24 by filtfilt against SciPy's 0.80; the sos forms matched to 1e-11). Refusing the cell,
 * not the call alone, keeps the call's inputs and results host arrays without copies around it;
 * the reason names `butter(..., output='sos')` with `sosfilt`/`sosfiltfilt`, which run on the
 * GPU.
 *
 * ## Example
 * ```python
 * from scipy import ndimage
 * smooth = ndimage.gaussian_filter(img, sigma=3)
 * ```
 * ## Use instead
 * ```python
 * import cupy as cp
 * import cupyx.scipy.ndimage
 * img_gpu = cp.asarray(img)
 * smooth = cupyx.scipy.ndimage.gaussian_filter(img_gpu, sigma=3)
 * ```
 */
import type { Rule, RuleOutcome } from '../types';
import { arrayAnalysis } from './cupy-rewrite';
import { arrayOutcome, CUPY_REFERENCE, mayHaveArrayWork } from './shared';

export const scipyToCupyx: Rule = {
  id: 'GPU102',
  title: 'SciPy call on large arrays -> cupyx.scipy',
  family: 'arrays',
  library: 'cupy',
  reference: `${CUPY_REFERENCE}#scipy-to-cupyx`,
  prefilter: mayHaveArrayWork,
  check(ctx): RuleOutcome | null {
    const a = arrayAnalysis(ctx);
    if (!a || (a.scipyCompute === 0 && a.sparseOps === 0)) {
      return null;
    }
    const modules = [...new Set(a.refs.filter(r => r.qualified.startsWith('scipy.') && r.action === 'cupy').map(r => r.qualified.split('.')[1]))];
    return arrayOutcome(ctx, a, {
      what:
        a.scipyCompute === 0
          ? 'This cell multiplies a SciPy sparse matrix: `cupyx.scipy.sparse` runs the product on the GPU (cuSPARSE).'
          : `This cell calls SciPy (${modules.map(m => `scipy.${m}`).join(', ') || 'scipy'}) on arrays the GPU can process much faster.`,
      why: '`cupyx.scipy` provides these functions with SciPy\'s signatures on cuFFT, cuSPARSE, cuSOLVER and CUDA kernels.',
      anchor: 'scipy-to-cupyx',
      confidence: 0.75
    });
  }
};
