/**
 * The work estimate behind the plan's and the rules' predictions (estimateWork in
 * rules/arrays/cupy-rewrite.ts): NumPy's `u[1:-1, 1:-1] = <expression>` computes the expression
 * into a temporary and then copies it into the slice; the copy is counted (2/3 of a pass: one
 * read, one write), on the host always, on the device where the rewrite still makes it.
 */
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { analyseArrayCell, sliceAssignmentCopy } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const SETUP = 'import numpy as np\nx = np.random.rand(4000, 4000)\ny = np.zeros((4000, 4000))';

function analyse(setup: string, target: string) {
  const cache = new CellCache(p);
  const model = new NotebookModel(cellsOf(setup, target).map(c => cache.get(c)));
  const a = analyseArrayCell(model.cells[1], model);
  if (!a) {
    throw new Error('no analysis');
  }
  return { a, model };
}

describe('slice assignment: the copy NumPy makes into the slice', () => {
  it('is a copy of a computed array into a subscript, not a scalar fill, a plain copy or a name', () => {
    const { model } = analyse(SETUP, 'y[1:-1] = x[1:-1] * 2.0\ny[0, :] = 1.0\ny[1:] = x[:-1]\nz = x * 2.0');
    const cell = model.cells[1];
    const stmts = cell.tree!.rootNode.namedChildren.map(s => s.namedChildren[0]);
    const copies = stmts.map(s => sliceAssignmentCopy(s, model, cell));
    // the slice's exact size (y[1:-1] of a 4000x4000 array: 3998x4000)
    expect(copies[0]).toMatchObject({ kind: 'ndarray', shape: [3998, 4000], size: 3998 * 4000 });
    expect(copies.slice(1)).toEqual([null, null, null]);
  });

  it('adds 2/3 of a pass (of the slice) and a launch to an elementwise update, on both sides', () => {
    const whole = analyse(SETUP, 'y = x * 2.0').a.work;
    const slice = analyse(SETUP, 'y[1:-1] = x[1:-1] * 2.0').a.work;
    // the product over the slice, then its copy into y[1:-1] (both over the slice's 3998 rows)
    expect(slice.passes).toBeCloseTo((whole.passes + 2 / 3) * (3998 / 4000), 10);
    expect(slice.hostPasses).toBeCloseTo(slice.passes, 10);
    expect(slice.launches).toBe(whole.launches + 1);
  });

  it('counts the copy once per step on the host only for the loop stencil, whose kernel writes its output itself', () => {
    const setup = 'import numpy as np\nu = np.zeros((2048, 2048), dtype=np.float32)';
    const step = '0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])';
    const { a } = analyse(setup, `for k in range(10):\n    u[1:-1, 1:-1] = ${step}`);
    expect(a.stencil).not.toBeNull();
    // the device: one kernel per step reading the grid once and writing it once
    expect(a.work.passes).toBeCloseTo(10 * (2 / 3), 10);
    expect(a.work.launches).toBe(10);
    // NumPy: 4 operations (3 adds, 1 multiply) over the interior, then the copy into it, each step
    expect(a.work.hostPasses).toBeCloseTo(10 * (4 + 2 / 3) * (2046 / 2048) ** 2, 10);
  });
});

describe('sorting methods', () => {
  it('a.sort() and a.argsort() are priced as the sorts np.sort and np.argsort are', () => {
    const setup = 'import numpy as np\na = np.random.rand(10_000_000)';
    for (const [method, fn] of [['a.sort()', 'b = np.sort(a)'], ['c = a.argsort()', 'c = np.argsort(a)']]) {
      const m = analyse(setup, method).a.work;
      const f = analyse(setup, fn).a.work;
      // n log2 n comparisons' worth of work, as the function form; not one streaming pass
      expect(m.sortOps).toBeGreaterThan(4 * 1e7 * 23);
      expect(m.sortOps).toBeCloseTo(f.sortOps!, 0);
      expect(m.launches).toBe(f.launches);
    }
  });
});
