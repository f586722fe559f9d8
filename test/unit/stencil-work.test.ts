/**
 * What the device is charged for a loop stencil's step is what its kernel does: one read of the
 * grid and one write (2/3 of a pass) and one launch, whatever the step's statements made op by
 * op; NumPy still makes those (hostPasses). The copy form's `un = u.copy()` and the periodic
 * form's np.roll copies are gone with the operations (rules/arrays/stencil.ts SliceStencil.step,
 * cupy-rewrite.ts fuseWork).
 */
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { analyseArrayCell } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

/** The GPU103 analysis of the second cell, after a setup cell. */
function analyse(setup: string, target: string) {
  const cache = new CellCache(p);
  const model = new NotebookModel(cellsOf(setup, target).map(c => cache.get(c)));
  const a = analyseArrayCell(model.cells[1], model);
  if (!a?.stencil) {
    throw new Error('no stencil');
  }
  return a;
}

const GRID = 'import numpy as np\nu = np.random.rand(2048, 2048)\nalpha = 0.1';

describe('a loop stencil is charged one pass of its kernel per step', () => {
  it('the copy form: the copy, the operations and the slice assignment go', () => {
    for (const [copy, steps] of [['un = u.copy()', 9], ['un = np.copy(u)', 40]] as const) {
      const a = analyse(
        GRID,
        `for _ in range(${steps}):\n    ${copy}\n    u[1:-1, 1:-1] = un[1:-1, 1:-1] + alpha * (un[2:, 1:-1] + un[:-2, 1:-1] + un[1:-1, 2:] + un[1:-1, :-2] - 4 * un[1:-1, 1:-1])`
      );
      expect(a.work.passes).toBeCloseTo((steps * 2) / 3, 9);
      expect(a.work.stencilPasses).toBeCloseTo((steps * 2) / 3, 9);
      expect(a.work.launches).toBe(steps);
      // NumPy: the copy (a pass), 7 operations and the slice assignment's copy (2/3) per step,
      // the operations and the assignment over the 2046x2046 interior
      expect(a.work.hostPasses).toBeCloseTo(steps * (1 + (7 + 2 / 3) * (2046 / 2048) ** 2), 9);
    }
  });

  it('the periodic form: the four rolls and both statements\' operations go', () => {
    const steps = 25;
    const a = analyse(
      GRID.replace('u =', 'v ='),
      `for _ in range(${steps}):\n    lap = np.roll(v, 1, 0) + np.roll(v, -1, 0) + np.roll(v, 1, 1) + np.roll(v, -1, 1) - 4 * v\n    v = v + alpha * lap`
    );
    expect(a.work.passes).toBeCloseTo((steps * 2) / 3, 9);
    expect(a.work.launches).toBe(steps);
    // NumPy: 4 rolls, the Laplacian's 5 operations and the update's 2, each a pass, per step
    expect(a.work.hostPasses).toBeCloseTo(steps * 11, 9);
  });

  it('the periodic form in one statement, in 1-D', () => {
    const a = analyse(
      'import numpy as np\nc = np.random.rand(4_000_000)\nr = 0.2',
      'for it in range(7):\n    c = c + r * (np.roll(c, shift=1) - 2 * c + np.roll(c, shift=-1, axis=0))'
    );
    expect(a.work.passes).toBeCloseTo((7 * 2) / 3, 9);
    expect(a.work.launches).toBe(7);
    expect(a.work.hostPasses).toBeCloseTo(7 * 7, 9);
  });
});
