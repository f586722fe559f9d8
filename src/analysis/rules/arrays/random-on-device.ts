/**
 * GPU104 random-on-device: large random draws -> generated on the GPU with cuRAND.
 *
 * ## What it does
 * Flags a cell that draws large random arrays with NumPy (`np.random.rand`, `standard_normal`,
 * a `default_rng()` Generator...) and proposes drawing them on the device with `cupy.random`,
 * so the data is born where it will be used and never crosses PCIe. `rng.normal(loc, scale,
 * size)` becomes `loc + scale * rng.standard_normal(size)` (CuPy's Generator has no `normal`);
 * methods CuPy's Generator lacks are refused.
 *
 * ## Why
 * NumPy generates tens of millions of normals at a few ns each on one core; cuRAND fills
 * device memory at bandwidth speed. Copying a host-generated array to the device costs more
 * than generating it there.
 *
 * ## Knowingly different
 * cuRAND's streams are not NumPy's: the same seed gives different numbers. Results agree in
 * distribution, not bit for bit; the A/B run compares them by statistics and says so.
 *
 * ## Example
 * ```python
 * rng = np.random.default_rng(42)
 * noise = rng.normal(0.0, 0.1, size=(8000, 8000))
 * ```
 * ## Use instead
 * ```python
 * rng = cp.random.default_rng(42)
 * noise = (0.1 * rng.standard_normal(size=(8000, 8000)))
 * ```
 */
import type { Rule, RuleOutcome } from '../types';
import { arrayAnalysis } from './cupy-rewrite';
import { arrayOutcome, CUPY_REFERENCE, mayHaveArrayWork } from './shared';

export const randomOnDevice: Rule = {
  id: 'GPU104',
  title: 'Large random draws -> generated on the GPU (cuRAND)',
  family: 'arrays',
  library: 'cupy',
  reference: `${CUPY_REFERENCE}#random`,
  prefilter: mayHaveArrayWork,
  check(ctx): RuleOutcome | null {
    const a = arrayAnalysis(ctx);
    if (!a || a.randomCalls === 0 || a.numpyCompute > 0 || (a.scipyCompute > 0 || a.sparseOps > 0) || a.chains.length > 0) {
      return null;
    }
    return arrayOutcome(ctx, a, {
      what: 'This cell draws large random arrays on the host.',
      why: 'cuRAND generates them directly in device memory, at memory speed, so they never cross PCIe. The numbers differ from NumPy\'s (same distribution, different stream).',
      anchor: 'random',
      confidence: 0.7
    });
  }
};
