/**
 * The cost model on whole cells: the sizes the notebook model infers (notebook.ts) and the work
 * the rules count from them (estimateWork in rules/arrays/cupy-rewrite.ts) give figures of the
 * right order for the bytes the cell really streams.
 */
import { predict, predictResident } from '../../src/analysis/costmodel';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { analyseArrayCell } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

/** The GPU101 analysis of the last cell, after the others. */
function analyse(...sources: string[]) {
  const cache = new CellCache(p);
  const model = new NotebookModel(cellsOf(...sources).map(c => cache.get(c)));
  const a = analyseArrayCell(model.cells[model.cells.length - 1], model);
  if (!a) {
    throw new Error('no analysis');
  }
  return { a, model };
}

/** Seconds NumPy takes at least to read `bytes` once at the host's measured bandwidth. */
const readOnce = (bytes: number): number => bytes / 13.2e9;

describe('a scan over data a batched matmul made (second notebook review: "CPU 24.2 ns" for a cumsum)', () => {
  // the review's Monte Carlo portfolio: (50000, 20, 8) draws times an 8x8 factor, weighted over
  // the 8 assets; the matmul's stack of 50000 was lost, and with it the cumsum's 8 MB
  const SETUP = [
    'import numpy as np',
    'rng = np.random.default_rng(11)',
    'n_assets, n_sims, horizon = 8, 50_000, 20',
    'L = np.linalg.cholesky(np.eye(n_assets))',
    'w = np.full(n_assets, 1.0 / n_assets)',
    'daily = rng.standard_normal((n_sims, horizon, n_assets)) @ L.T',
    'port = daily @ w'
  ].join('\n');

  it('knows the sizes: the stack of matrices and the weighted sum', () => {
    const { model } = analyse(SETUP, 'c = np.cumsum(port, axis=1)');
    expect(model.valueAfter('daily', model.cells[0])).toMatchObject({ shape: [50_000, 20, 8], size: 8_000_000 });
    expect(model.valueAfter('port', model.cells[0])).toMatchObject({ shape: [50_000, 20], size: 1_000_000 });
    expect(model.valueAfter('c', model.cells[1])).toMatchObject({ shape: [50_000, 20], size: 1_000_000 });
  });

  it('prices the cumsum of 8 MB as reading them at least once on the host', () => {
    const { a } = analyse(SETUP, 'c = np.cumsum(port, axis=1)');
    expect(a.work.elements).toBe(1_000_000);
    const resident = predictResident(a.work);
    expect(resident.cpuSeconds).toBeGreaterThanOrEqual(readOnce(8e6));
    expect(resident.cpuSeconds).toBeLessThan(100 * readOnce(8e6));
  });

  it('prices a cumsum of 50M float32 drawn in the cell over its 200 MB', () => {
    const { a } = analyse('import numpy as np', 'c = np.cumsum(np.random.rand(50_000_000).astype(np.float32))');
    expect(a.work.elements).toBe(50_000_000);
    // NumPy draws them in float64 (400 MB) before the cast: the widest array as large as any
    expect(a.work.itemBytes).toBe(8);
    expect(predict(a.work).cpuSeconds).toBeGreaterThan(readOnce(200e6));
  });

  it.each([
    ['x.cumsum()', 'a method scan flattens: the same elements'],
    ['np.cumsum(x)', 'a function scan flattens: the same elements'],
    ['x.cumprod(axis=0)', 'along an axis it keeps the shape']
  ])('prices %s as a pass over the data (%s), not over one element', expr => {
    const { a, model } = analyse('import numpy as np\nx = np.random.rand(5000, 10_000)', `c = ${expr}\nd = c * 2.0`);
    expect(model.valueAfter('c', model.cells[1]).size).toBe(50_000_000);
    // the product of the scan's result is a full pass too (it was one element when the scan
    // without an axis was modelled as a number)
    expect(a.work.passes).toBeGreaterThanOrEqual(1 + 1 / 3 - 1e-9);
    expect(predictResident(a.work).cpuSeconds).toBeGreaterThan(readOnce(400e6));
  });

  it('prices work on a reduction over an axis at the reduced size, not the input size', () => {
    const { a } = analyse('import numpy as np\nsamples = np.random.standard_normal((8000, 8000))', 'col_means = samples.mean(axis=0)\nspread = np.std(col_means)');
    // the mean reads the 512 MB once (1/3 of a pass); the std of its 8000 results costs next to nothing
    expect(a.work.passes).toBeCloseTo(1 / 3 + (8000 / 64e6) * (1 / 3 + 2), 9);
  });
});

describe("a function the cell defines is priced at each of its calls, not once at its definition", () => {
  const SETUP = 'import numpy as np\ny = np.random.rand(10_000_000)\ndt = 0.01';
  const RHS = 'def rhs(y):\n    return np.sin(y)\n';
  /** The passes and transcendentals of one call of RHS: np.sin over the state. */
  const body = { passes: 1, transcendentalOps: 1 };

  it('counts the body as often as a loop of known count calls it (an ODE stepped 20 times)', () => {
    const { a } = analyse(SETUP, `${RHS}\nfor _ in range(20):\n    y = y + dt * rhs(y)`);
    // 20 calls, and the loop's own `dt * ...` and `y + ...` 20 times each (rhs returns an array
    // shaped like y, so scaling it is a pass too)
    expect(a.work.transcendentalOps).toBe(20 * body.transcendentalOps);
    expect(a.work.hostPasses).toBeCloseTo(20 * body.passes + 2 * 20, 9);
  });

  it('counts the body once for each call of a straight-line RK4 step (k1..k4)', () => {
    const { a } = analyse(SETUP, `${RHS}\nk1 = rhs(y)\nk2 = rhs(y + 0.5 * dt * k1)\nk3 = rhs(y + 0.5 * dt * k2)\nk4 = rhs(y + dt * k3)`);
    expect(a.work.transcendentalOps).toBe(4 * body.transcendentalOps);
  });

  it('multiplies the calls through the functions that make them (a step calling rhs twice, 20 steps)', () => {
    const { a } = analyse(SETUP, `${RHS}\ndef step(y):\n    k1 = rhs(y)\n    return rhs(y + dt * k1)\n\nfor _ in range(20):\n    y = step(y)`);
    expect(a.work.transcendentalOps).toBe(40 * body.transcendentalOps);
  });

  it('prices N steps about N times one step, on the CPU and on the device', () => {
    const one = predictResident(analyse(SETUP, `${RHS}\nfor _ in range(1):\n    y = y + dt * rhs(y)`).a.work);
    const many = predictResident(analyse(SETUP, `${RHS}\nfor _ in range(20):\n    y = y + dt * rhs(y)`).a.work);
    expect(many.cpuSeconds).toBeCloseTo(20 * one.cpuSeconds, 9);
    expect(many.gpuSeconds).toBeCloseTo(20 * one.gpuSeconds, 9);
  });

  it.each([
    ['defined for later cells', RHS, 1],
    // np.sin in again's body once, and rhs (not called) once
    ['called only by itself (the depth is not known)', `${RHS}\ndef again(y, n):\n    return again(np.sin(y), n - 1) if n else y`, 2],
    ['decorated (the decorator decides what a call runs)', `import functools\n@functools.lru_cache\n${RHS}\nfor _ in range(20):\n    z = rhs(y)`, 1]
  ])('counts the body once where the cell does not call it, or its runs are not known: %s', (_, target, transcendentals) => {
    expect(analyse(SETUP, target).a.work.transcendentalOps).toBe(transcendentals);
  });
});

describe("the passes' item size: the widest of the arrays as large as any in the cell", () => {
  // g_climate cell 7 (run 22: 1.11-1.21 s on the H200's host): `valid = ~np.isnan(anom)` met
  // first priced every pass over the grid at 1 byte an element (predicted 0.38 s, now 0.87 s)
  const SETUP = 'import numpy as np\nanom = np.random.default_rng(0).random((480, 90, 180), dtype=np.float32)\nw = np.cos(np.linspace(-1.5, 1.5, 90))';
  it('a bool mask met before the float32 data it masks does not set it', () => {
    const { a } = analyse(SETUP, 'valid = ~np.isnan(anom)\nn = valid.sum()\nm = np.nansum(anom)');
    expect(a.work.elements).toBe(480 * 90 * 180);
    expect(a.work.itemBytes).toBe(4);
  });
  it("g_climate's cell: the float64 weights broadcast over the grid (w is float64) set it", () => {
    const { a } = analyse(SETUP, 'valid = ~np.isnan(anom)\nwgrid = np.broadcast_to(w[None, :, None], anom.shape) * valid\ns = wgrid.sum(axis=(1, 2))');
    expect(a.work.itemBytes).toBe(8);
  });
  it('a smaller wider array does not', () => {
    const { a } = analyse(SETUP, 'valid = ~np.isnan(anom)\nn = valid.sum()\nm = np.nansum(anom)\nwm = np.repeat(w, 10)');
    expect(a.work.itemBytes).toBe(4);
  });
});
