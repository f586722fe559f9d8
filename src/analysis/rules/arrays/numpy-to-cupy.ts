/**
 * GPU101 numpy-to-cupy: NumPy array expression on a large array -> CuPy.
 *
 * ## What it does
 * Flags a cell that computes with NumPy on arrays large enough for the GPU to win, and proposes
 * the same computation with CuPy: `np.<f>` becomes `cp.<f>` for every function CuPy really
 * provides (an explicit allow-list checked against CuPy's comparison table and the installed
 * CuPy), host inputs are copied to the device once at the top of the cell (`x_gpu =
 * cp.asarray(x)`), and results go back to the host only where something on the host needs
 * them: a later cell, matplotlib, pandas, a file write, a Python builtin that iterates.
 *
 * ## Why
 * Elementwise math, reductions, linear algebra and FFTs on millions of elements are memory- or
 * arithmetic-bound; an H200 streams ~4 TB/s against a host's ~15 GB/s, and CuPy calls cuBLAS,
 * cuFFT and cuSOLVER underneath. The copies are the catch: pageable host-to-device copies run
 * near 9 GB/s, so the rewrite moves each input once and keeps results on the device.
 *
 * ## Refuses
 * Object, string and structured dtypes; `np.vectorize`, `np.frompyfunc`, `np.matrix`; any
 * function missing from CuPy; element-by-element Python loops and sequential recurrences
 * (`x[i] = x[i-1] + ...`); Python run once per element (`[f(v) for v in arr]`, `map(f, arr)`,
 * `np.fromiter`, a loop over `range(len(arr))`: rules/arrays/per-element.ts), even when the rest of
 * the cell is array code; arrays too small to pay for kernel launches (the cost model says by
 * how much).
 *
 * ## Example
 * ```python
 * x = np.random.rand(20_000_000)
 * y = np.sqrt(x * x + 1.0) * np.exp(-x)
 * ```
 * ## Use instead
 * ```python
 * import cupy as cp
 * x_gpu = cp.asarray(x)
 * y = cp.sqrt(x_gpu * x_gpu + 1.0) * cp.exp(-x_gpu)
 * ```
 * (A chain like this one is better fused into one kernel: GPU103.)
 */
import type { Rule, RuleOutcome } from '../types';
import { arrayAnalysis } from './cupy-rewrite';
import { arrayOutcome, CUPY_REFERENCE, mayHaveArrayWork } from './shared';

export const numpyToCupy: Rule = {
  id: 'GPU101',
  title: 'NumPy array expression on a large array -> CuPy',
  family: 'arrays',
  library: 'cupy',
  reference: `${CUPY_REFERENCE}#numpy-to-cupy`,
  prefilter: mayHaveArrayWork,
  check(ctx): RuleOutcome | null {
    const a = arrayAnalysis(ctx);
    if (a?.perElement) {
      // per-element Python is never a CuPy rewrite, whatever else the cell does
      return { kind: 'refuse', reason: a.refusal ?? a.perElement };
    }
    if (!a || !a.applicable || a.scipyCompute > 0 || a.sparseOps > 0) {
      return null;
    }
    if (a.numpyCompute === 0 && a.arrayOperators === 0 && a.arrayMethods === 0 && a.work.flops === 0 && a.work.passes === 0) {
      // nothing to run on the device; but a cell the analysis recognised and must refuse says why
      return a.refusal ? { kind: 'refuse', reason: a.refusal } : null;
    }
    // GPU103 claims cells with fusable chains first; when it is switched off, this rule
    // proposes the same rewrite without fusion
    const plain = { ...a, edits: a.unfused.edits, candidate: a.unfused.candidate, work: a.unfused.work, chains: [] };
    return arrayOutcome(ctx, plain, {
      what: 'This cell computes with NumPy on arrays the GPU can process much faster.',
      why: 'CuPy mirrors the NumPy API on the GPU (cuBLAS, cuFFT, cuSOLVER underneath): every call below exists in CuPy with the same semantics.',
      anchor: 'numpy-to-cupy'
    });
  }
};
