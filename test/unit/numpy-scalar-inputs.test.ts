/**
 * A NumPy scalar input (NumPy's reductions and arithmetic give scalars, which the model types as
 * 0-d arrays) is no array to copy: CuPy's operators and kernels take it as it is. The whole-notebook
 * rewrite never rebinds it to a 0-d device array (`dt = cp.asarray(dt)`), which later host code
 * would receive; a 0-d result the plan keeps on the device stays a device value.
 * Rule fixtures: GPU103/flag-numpy-scalar-input-stays-host, GPU103/flag-zero-d-array-input-copied.
 */
import { rewriteNotebook as planNotebook, type PlanOptions, type ResidencyPlan } from '../../src/analysis/plan';
import type { CellInput } from '../../src/analysis/types';
import { cellsOf, parser } from './helpers';

/** The plan judged by steady figures: these notebooks are small, and test data movement, not first-use costs. */
const rewriteNotebook = (cells: CellInput[], opts: PlanOptions = {}): ResidencyPlan => planNotebook(cells, { session: 'warm', ...opts });

beforeAll(async () => {
  await parser();
});

describe('NumPy scalar inputs in the whole-notebook rewrite', () => {
  it('passes a scalar brought back to the host to the next GPU cell as it is', () => {
    const plan = rewriteNotebook(
      cellsOf(
        'import numpy as np\nx = np.linspace(0, 1, 4_000_000)\nu = np.sin(x) * 2.0 + 1.0\ndt = 0.4 / np.max(np.abs(u))',
        'for k in range(3):\n    print(k, dt * 2)\nsteps = int(dt * 1000)',
        'q = u.copy()\nfor n in range(50):\n    q[:] = q - dt * (u * q + 0.5 * np.roll(q, 1))\nprint(q.sum())'
      )
    );
    expect(plan.gpuCells).toEqual([0, 2]);
    // the host cell reads dt as NumPy's scalar
    expect(plan.cells[1].source.split('\n')[0]).toBe('dt = dt.get()[()]');
    // and the GPU cell hands that scalar to its kernel: no `dt = cp.asarray(dt)`
    expect(plan.cells[2].source).not.toMatch(/asarray\(dt\)/);
    expect(plan.cells[2].source).toMatch(/q_kernel\(q, dt, u, cp\.roll\(q, 1\)\)/);
    expect(plan.transfers.filter(t => t.name === 'dt' && t.direction === 'to-device')).toEqual([]);
  });

  it('keeps arithmetic on a 0-d result the plan left on the device a device value', () => {
    const plan = rewriteNotebook(
      cellsOf(
        'import numpy as np\nx = np.linspace(0, 1, 8_000_000)\nm = np.max(np.sin(x) * 2.0 + 1.0)',
        't = m * 2.0\ny = np.sqrt(x) * np.cos(x) * t + np.exp(-x)',
        'print(repr(t), y.sum())'
      )
    );
    expect(plan.gpuCells).toEqual([0, 1]);
    // t = m * 2.0 is a CuPy 0-d array (m is resident): its repr gets NumPy's scalar
    expect(plan.cells[2].source).toBe('print(repr(cp.asnumpy(t)[()]), y.sum())');
  });
});
