/**
 * Work inside a loop counts once per step (estimateWork multiplies it by the trip count), and so
 * do the savings of fusing it (a fused chain, a stencil kernel): the prediction for N steps is N
 * times one step's, the data on the device (rules/arrays/cupy-rewrite.ts).
 */
import { DEFAULT_DEVICE_PROFILE, predictResident, WorkEstimate } from '../../src/analysis/costmodel';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { analyseArrayCell } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const JACOBI = '0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])';
const launch = DEFAULT_DEVICE_PROFILE.launchOverhead;

/** The GPU103 analysis of the second cell, after a setup cell. */
function analyse(setup: string, target: string) {
  const cache = new CellCache(p);
  const model = new NotebookModel(cellsOf(setup, target).map(c => cache.get(c)));
  const a = analyseArrayCell(model.cells[1], model);
  if (!a) {
    throw new Error('no analysis');
  }
  return a;
}

function grid(n: number): string {
  return `import numpy as np\nu = np.zeros((${n}, ${n}), dtype=np.float32)\nu[0, :] = 1.0`;
}

const deviceSeconds = (work: WorkEstimate): number => predictResident(work).gpuSeconds;

describe('a slice stencil repeated by a loop', () => {
  const loop = (steps: number, n = 4096) => analyse(grid(n), `for step in range(${steps}):\n    u[1:-1, 1:-1] = ${JACOBI}`);

  it('is one kernel per step: 2/3 of a pass (one read, one write) and one launch each', () => {
    for (const steps of [1, 7, 200]) {
      const a = loop(steps);
      expect(a.stencil).not.toBeNull();
      expect(a.work.passes).toBeCloseTo((steps * 2) / 3, 9);
      expect(a.work.launches).toBe(steps);
      // NumPy runs the chain op by op every step, then copies its temporary into the slice (both
      // over the 4094x4094 interior: slices have their exact shape)
      expect(a.work.hostPasses).toBeCloseTo(steps * (4 + 2 / 3) * (4094 / 4096) ** 2, 9);
    }
  });

  it('predicts N times the single-step device time, within the launch overheads', () => {
    const one = deviceSeconds(loop(1).work);
    // the same step written once, into a new array
    const single = analyse(grid(4096), `v = np.zeros_like(u)\nv[1:-1, 1:-1] = ${JACOBI}`);
    expect(single.stencil).not.toBeNull();
    const once = deviceSeconds(single.work);
    for (const steps of [7, 50, 200]) {
      const many = deviceSeconds(loop(steps).work);
      expect(Math.abs(many - steps * one)).toBeLessThan(1e-12);
      expect(Math.abs(many - steps * once)).toBeLessThanOrEqual(steps * launch);
    }
  });

  it('subtracts only what it replaces: other work in the cell keeps its passes and launches', () => {
    const alone = analyse(grid(4096), `v = np.zeros_like(u)\nv[1:-1, 1:-1] = ${JACOBI}`).work;
    const withMore = analyse(grid(4096), `v = np.zeros_like(u)\nv[1:-1, 1:-1] = ${JACOBI}\nw = u * 2.0`).work;
    expect(withMore.passes).toBeCloseTo(alone.passes + 1, 9);
    expect(withMore.launches).toBe(alone.launches + 1);
    const loopMore = analyse(grid(4096), `for step in range(30):\n    u[1:-1, 1:-1] = ${JACOBI}\nw = u * 2.0`).work;
    expect(loopMore.passes).toBeCloseTo(30 * (2 / 3) + 1, 9);
    expect(loopMore.launches).toBe(31);
  });

  it('keeps the single-step speedup over N steps (CPU and GPU both scale with the steps)', () => {
    const one = predictResident(loop(1).work);
    const many = predictResident(loop(200).work);
    expect(many.speedup).toBeCloseTo(one.speedup, 6);
  });

  it('predicts a step at 8192^2 float32 no faster than measured (165 µs, 79% of the copy ceiling) and within 2x of it', () => {
    // bench/RESULTS.md, stencil_slices: GPU103's RawKernel at 8 rows a thread, H200
    const perStep = deviceSeconds(loop(20, 8192).work) / 20;
    expect(perStep).toBeGreaterThan(165e-6);
    expect(perStep).toBeLessThan(2 * 165e-6);
  });
});

describe('a fused chain inside a loop', () => {
  const setup = 'import numpy as np\nx = np.random.rand(20_000_000).astype(np.float32)';
  const loop = (steps: number) => analyse(setup, `for k in range(${steps}):\n    y = np.sqrt(x * x + 1.0) * np.exp(-x)`);

  it('saves its passes and launches once per step', () => {
    const one = loop(1);
    expect(one.chains).toHaveLength(1);
    for (const steps of [5, 30]) {
      const many = loop(steps);
      expect(many.work.passes).toBeCloseTo(steps * one.work.passes, 9);
      expect(many.work.launches).toBeCloseTo(steps * one.work.launches, 9);
      expect(Math.abs(deviceSeconds(many.work) - steps * deviceSeconds(one.work))).toBeLessThan(1e-12);
    }
  });
});

describe('why a loop storing one value per iteration is refused', () => {
  const setup = 'import numpy as np\nx = np.random.rand(10_000_000)\ny = np.random.rand(10_000_000)\nout = np.empty(1000)';
  it('element by element where it reads elements (an array\'s size is no array work)', () => {
    expect(analyse(setup, 'for i in range(1000):\n    out[i] = np.sin(y[i]) + y.shape[0]').refusal).toMatch(/element-by-element Python loop over `out`/);
  });
  it('array work per iteration where it reads slices or whole arrays', () => {
    expect(analyse(setup, 'for i in range(1000):\n    out[i] = x[i:i + 5000].mean()').refusal).toMatch(/stores one number per iteration in `out\[i\]`, each from array work/);
    expect(analyse(setup, 'for i in range(1000):\n    out[i] = np.dot(x, y) * i').refusal).toMatch(/stores one number per iteration/);
  });
});
