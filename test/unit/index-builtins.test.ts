/**
 * Python code that takes a device value as an integer through `__index__` (`range(k.max())`):
 * NumPy's integer scalars have `__index__`, CuPy's 0-d arrays only `__int__`
 * (cupy/_core/core.pyx), so a rewrite handing them a 0-d device array is a TypeError on CuPy.
 * The cell's rewrite and the plan's host cells hand them `int(...)` of a device integer, NumPy's
 * scalar of any other dtype, and leave bounds made of Python integers (`len(k)`, `k.shape[0]`)
 * as written.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { rewriteNotebook as planNotebook, type PlanOptions, type ResidencyPlan } from '../../src/analysis/plan';
import type { CellInput } from '../../src/analysis/types';
import { cellsOf, parser } from './helpers';

const rewriteNotebook = (cells: CellInput[], opts: PlanOptions = {}): ResidencyPlan => planNotebook(cells, { session: 'warm', ...opts });

beforeAll(async () => {
  await parser();
});

const setup = 'import numpy as np\nk = np.random.default_rng(0).integers(0, 12, size=4_000_000)\nx = np.random.default_rng(1).random(4_000_000)';

/** The GPU101 candidate of the second cell (the first sets up host data). */
function candidate(cell: string): string {
  const result = analyzeNotebook(cellsOf(setup, cell));
  const mine = result.suggestions.filter(s => s.cellIndex === 1);
  expect(result.refusals.filter(r => r.cellIndex === 1)).toEqual([]);
  expect(mine).toHaveLength(1);
  return mine[0].candidate.replace(/^import cupy as cp\n/, '');
}

describe('the cell rewrite: device integers handed to range', () => {
  it('makes a device reduction a Python int where range takes it, in a loop header and inside list(...)', () => {
    const out = candidate('w = np.sqrt(k * 2.0)\nt = 0\nfor i in range(k.max()):\n    t += i\nr = list(range(1, k.min() + 3))\nprint(t, r, w.sum())');
    expect(out).toBe('k_gpu = cp.asarray(k)\nw = cp.sqrt(k_gpu * 2.0)\nt = 0\nfor i in range(int(k_gpu.max())):\n    t += i\nr = list(range(1, int(k_gpu.min() + 3)))\nprint(t, r, w.sum())');
  });

  it('takes a name bound to a device reduction in the cell the same way', () => {
    const out = candidate('w = np.sqrt(k * 2.0)\ntop = k.max()\nfor i in range(top):\n    print(i)\nprint(w.sum())');
    expect(out).toBe('k_gpu = cp.asarray(k)\nw = cp.sqrt(k_gpu * 2.0)\ntop = k_gpu.max()\nfor i in range(int(top)):\n    print(i)\nprint(w.sum())');
  });

  it('leaves Python integers as written (len, shape, a literal), and a range the notebook rebinds', () => {
    const out = candidate('w = np.sqrt(k * 2.0)\nb = [i for i in range(len(k) // 1_000_000)]\nc = [i for i in range(k.shape[0] // 1_000_000, 10)]\nprint(b, c, w.sum())');
    expect(out).toBe('k_gpu = cp.asarray(k)\nw = cp.sqrt(k_gpu * 2.0)\nb = [i for i in range(len(k_gpu) // 1_000_000)]\nc = [i for i in range(k_gpu.shape[0] // 1_000_000, 10)]\nprint(b, c, w.sum())');
    const own = candidate('def range(n):\n    return [n]\nw = np.sqrt(k * 2.0)\nprint(range(k.max()), w.sum())');
    expect(own).toContain('print(range(k_gpu.max()), w.sum())');
  });

  it("hands range NumPy's scalar of a float reduction, which range refuses as it did on the host", () => {
    const out = candidate('w = np.sqrt(x * 2.0)\nfor i in range(x.max()):\n    pass\nprint(w.sum())');
    expect(out).toContain('for i in range(cp.asnumpy(x_gpu.max())[()]):');
  });
});

describe("the plan's host cells: device integers range reads", () => {
  const gpu = 'w = np.sqrt(k * 2.0) + np.sin(x)\ntop = k.max()';
  const later = 'z = np.cos(w) * 2 + w + k';

  it('brings a 0-d value back as NumPy has it (it was left as a CuPy 0-d array, a TypeError in range)', () => {
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'm = 0\nfor j in range(top):\n    m += j\nprint(m)', later));
    expect(plan.gpuCells).toEqual([0, 1, 3]);
    expect(plan.cells[2].source).toBe('top = top.get()[()]\nm = 0\nfor j in range(top):\n    m += j\nprint(m)');
  });

  it('copies an element range reads as int(...), in a loop header and inside a host consumer; len(k) needs no copy', () => {
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'm = 0\nfor j in range(k[5]):\n    m += j\nprint(list(range(k[3])), list(range(len(k) // 1_000_000)), m)', later));
    expect(plan.gpuCells).toEqual([0, 1, 3]);
    expect(plan.cells[2].source).toBe('m = 0\nfor j in range(int(k[5])):\n    m += j\nprint(list(range(int(k[3]))), list(range(len(k) // 1_000_000)), m)');
    expect(plan.transfers.filter(t => t.cellIndex === 2).map(t => [t.name, t.direction, t.partial])).toEqual([
      ['k', 'to-host', true],
      ['k', 'to-host', true]
    ]);
  });
});
