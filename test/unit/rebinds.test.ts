/**
 * Where a later cell lets go of the array a name held (rules/arrays/rebinds.ts): a first use that
 * binds the name to a new array ends what an earlier cell shared through it; anything that may
 * keep the old array, or may not run, does not.
 */
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { rebindsFreshFirst, startsOverNext, updatedInPlaceAfter } from '../../src/analysis/rules/arrays/rebinds';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

function modelOf(...sources: string[]): NotebookModel {
  const cache = new CellCache(p);
  return new NotebookModel(cellsOf(...sources).map(c => cache.get(c)));
}

const SETUP = 'import numpy as np\nq0 = np.ones((1024, 1024))\nw = q0 * 2.0';

/** Does the last cell of SETUP + `later` bind `q` to a new array before any other use? */
function startsOver(later: string): boolean {
  const model = modelOf(SETUP, later);
  const cell = model.cells[1];
  return rebindsFreshFirst(cell.tree!.rootNode, 'q', model);
}

describe('rebindsFreshFirst', () => {
  it('a copy, a NumPy constructor or an operator expression as the first use is a new array', () => {
    expect(startsOver('q = q0.copy()\nq[:] = 0.0')).toBe(true);
    expect(startsOver('def f(a):\n    return a\n\nq = np.zeros_like(q0)\nq[0] = 1.0')).toBe(true);
    expect(startsOver('mass = []\nq = q0 * 0.5\nq += 1.0')).toBe(true);
  });

  it('what may hand back the old array, may not run, or comes after another use is not', () => {
    expect(startsOver('q = w\nq[:] = 0.0')).toBe(false);
    expect(startsOver('q = w[1:]\nq[:] = 0.0')).toBe(false);
    expect(startsOver('q = np.asarray(w)\nq[:] = 0.0')).toBe(false);
    expect(startsOver('q = np.array(w, copy=False)\nq[:] = 0.0')).toBe(false);
    expect(startsOver('if w[0, 0] > 1:\n    q = q0.copy()\nq[:] = 0.0')).toBe(false);
    expect(startsOver('q[0] = 1.0\nq = q0.copy()')).toBe(false);
    expect(startsOver('v = q\nq = q0.copy()')).toBe(false);
    expect(startsOver('q = q + 1.0')).toBe(false);
  });
});

describe('updatedInPlaceAfter', () => {
  const target = 'q = q0.copy()\nfor k in range(3):\n    q = step(q)\nq_last = q';
  const defs = 'def step(a):\n    return 0.5 * a';

  it('a later cell that starts over updates its own array, not the one shared here', () => {
    const model = modelOf(SETUP, defs, target, 'q = q0.copy()\nq[:] = 0.0', 'print(q_last.max())');
    expect(updatedInPlaceAfter(['q', 'q_last'], model.cells[2], model)).toBe(false);
    // and nothing later reads the q this cell leaves: no copy back for it
    expect(startsOverNext('q', model.cells[2], model)).toBe(true);
    expect(startsOverNext('q_last', model.cells[2], model)).toBe(false);
  });

  it('an update through a holder before a cell starts over, or through an alias after it, counts', () => {
    const before = modelOf(SETUP, defs, target, 'q[0] = 1.0', 'q = q0.copy()\nq[:] = 0.0');
    expect(updatedInPlaceAfter(['q'], before.cells[2], before)).toBe(true);
    const alias = modelOf(SETUP, defs, target, 'q = q_last\nq[:] = 0.0');
    expect(updatedInPlaceAfter(['q', 'q_last'], alias.cells[2], alias)).toBe(true);
  });
});
