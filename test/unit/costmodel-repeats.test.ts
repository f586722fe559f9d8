/**
 * Work that runs other than once per run of the cell, as estimateWork counts it
 * (rules/arrays/cupy-rewrite.ts `runsPerParentRun`) and the cost model prices it (costmodel.ts):
 * a comprehension's element once per item, the body of `if step % K == 0:` once every K steps,
 * a value copied back one item at a time a wait for the device per item.
 */
import { DEFAULT_DEVICE_PROFILE, ITEM_COPY_LAUNCHES, predict } from '../../src/analysis/costmodel';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { analyseArrayCell } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

/** The array analysis of the last cell, after the others. */
function analyse(...sources: string[]) {
  const cache = new CellCache(p);
  const model = new NotebookModel(cellsOf(...sources).map(c => cache.get(c)));
  const a = analyseArrayCell(model.cells[model.cells.length - 1], model);
  if (!a) {
    throw new Error('no analysis');
  }
  return a;
}

const launch = DEFAULT_DEVICE_PROFILE.launchOverhead;
const CUBE = 'import numpy as np\nanom = np.random.default_rng(0).random((240, 360, 720), dtype=np.float32) - 0.5';

describe("a comprehension's element runs once per item", () => {
  it('over range(240): 240 reductions of a row, a launch each', () => {
    // (left a comprehension: a list of 0-d values, no np.array around it to vectorise)
    const a = analyse(CUBE, 'sds = [np.std(anom[k]) for k in range(240)]');
    expect(a.refusal).toBeUndefined();
    // a row is 1/240 of the cube; std reads it and makes two passes more (before: 1/240 of that)
    expect(a.work.passes).toBeCloseTo(1 / 3 + 2, 9);
    expect(a.work.launches).toBe(240);
    // NumPy streams the whole cube's bytes 7/3 times over: ~130 ms, not ~0.5 ms
    expect(predict(a.work).cpuSeconds).toBeGreaterThan(0.1);
  });

  it('multiplies nested clauses', () => {
    const a = analyse(CUBE, 'ms = [anom[k].max() for j in range(3) for k in range(80)]');
    expect(a.work.passes).toBeCloseTo(240 * (1 / 240) * (1 / 3), 9);
    expect(a.work.launches).toBe(240);
  });

  it.each([
    ['a tuple of values', 'for s in (0.5, 1.0, 2.0)', 's'],
    ['a small array', 'for s in sigmas', 's'],
    ['range(len(X)) of a small array', 'for k in range(len(sigmas))', 'sigmas[k]'],
    ['range(X.shape[0]) of a small array', 'for k in range(sigmas.shape[0])', 'sigmas[k]']
  ])('counts the items of %s', (_what, clause, sigma) => {
    const setup = 'import numpy as np\nx = np.random.rand(4_000_000)\nsigmas = np.array([0.5, 1.0, 2.0])';
    const once = analyse(setup, 'y = np.exp(-x / 0.5).sum()').work;
    const items = analyse(setup, `ys = [np.exp(-x / ${sigma}).sum() ${clause}]`).work;
    // NumPy's passes (the device's fuse the chain)
    expect(items.hostPasses).toBeCloseTo(3 * (once.hostPasses ?? once.passes), 9);
  });

  it('prices a per-row reduction made one reduction (GPU101/flag-row-reductions-comprehension-vectorised) near the measured CPU time', () => {
    // H200 run 19 (bench/results/2026-12-01-h200-run19/verify_fixtures_2.txt): CPU 23.3 ms, GPU
    // 35.8 ms (the 249 MB copy), 0.65x; before, the element was counted once: CPU 315 us, 0.01x
    const a = analyse(
      `${CUBE}\nlat = np.linspace(-89.75, 89.75, 360)\nlon = np.linspace(0.25, 359.75, 720)`,
      'box = (np.abs(lat) <= 5)[:, None] & ((lon >= 190) & (lon <= 240))[None, :]\nnino34 = np.array([np.nanmean(anom[k][box]) for k in range(240)])'
    );
    expect(a.candidate).toContain('cp.nanmean(anom_gpu[:, box], axis=1)');
    const prediction = predict(a.work);
    expect(prediction.cpuSeconds).toBeGreaterThan(23.3e-3 / 2);
    expect(prediction.cpuSeconds).toBeLessThan(23.3e-3 * 2);
    expect(prediction.speedup).toBeGreaterThan(0.65 / 2);
    expect(prediction.speedup).toBeLessThan(0.65 * 2);
    // one reduction over all the rows on the device: a few launches, not one per row
    expect(a.work.launches).toBeLessThan(10);
  });
});

describe('work under `if step % K == 0:` in a time-step loop', () => {
  const SETUP = 'import numpy as np\nu = np.random.rand(2048, 2048)';
  const loop = (branch: string) => analyse(SETUP, `history = []\nfor step in range(200):\n    u = u * 0.5 + 1.0\n${branch}`).work;

  it('is charged once every K steps', () => {
    const plain = loop('');
    const every = loop('    history.append(np.sqrt(u).sum())');
    const tenth = loop('    if step % 10 == 0:\n        history.append(np.sqrt(u).sum())');
    const shifted = loop('    if (step + 1) % 10 == 0:\n        history.append(np.sqrt(u).sum())');
    const perStep = every.passes - plain.passes;
    expect(perStep).toBeGreaterThan(0);
    expect(tenth.passes - plain.passes).toBeCloseTo(perStep / 10, 9);
    expect(shifted.passes - plain.passes).toBeCloseTo(perStep / 10, 9);
    expect(tenth.launches - plain.launches).toBeCloseTo((every.launches - plain.launches) / 10, 9);
  });

  it('is charged every step under any other condition (how often it holds is not known)', () => {
    const plain = loop('');
    const every = loop('    history.append(np.sqrt(u).sum())');
    for (const condition of ['step > 100', 'step % 10 != 0', 'len(history) % 10 == 0', 'step % n == 0']) {
      const other = loop(`    if ${condition}:\n        history.append(np.sqrt(u).sum())`);
      expect(other.passes - plain.passes).toBeCloseTo(every.passes - plain.passes, 9);
    }
  });
});

describe('values copied back one item at a time', () => {
  const SETUP = 'import numpy as np\nx = np.random.rand(1000, 4096)';

  it('charges a wait and a copy latency per item of a list of 0-d device values that is shown', () => {
    const shown = analyse(SETUP, 'sds = [x[k].std() for k in range(1000)]\nprint(sds)');
    const kept = analyse(SETUP, 'sds = [x[k].std() for k in range(1000)]\ntotal = x.sum()');
    // each item is converted on its own (a 0-d CuPy array shows as `array(...)`)
    expect(shown.candidate).toContain('[cp.asnumpy(x_gpu[k].std())[()] for k in range(1000)]');
    expect(shown.work.itemCopies).toBe(1000);
    expect(kept.work.itemCopies ?? 0).toBe(0);
    const gpu = predict(shown.work).gpuSeconds;
    const without = predict({ ...shown.work, itemCopies: 0 }).gpuSeconds;
    expect(gpu - without).toBeCloseTo(1000 * ITEM_COPY_LAUNCHES * launch, 12);
  });

  it('says so when those copies are what the device spends its time on', () => {
    const a = analyse('import numpy as np\nx = np.random.rand(1000, 64)', 'means = [x[k].mean() for k in range(1000)]\nprint(means)');
    expect(a.work.itemCopies).toBe(1000);
    expect(predict(a.work).reason).toMatch(/1,000 values copied back to the host one at a time, each waiting for the device/);
  });
});

describe("a host consumer's copy the rewrite makes in a loop", () => {
  const SETUP = 'import numpy as np\nimport matplotlib.pyplot as plt\nx = np.random.default_rng(0).random((400, 100_000))';
  const BYTES = 100_000 * 8;

  it('is made, and waits for the device, once per iteration: its bytes and latency are charged as often', () => {
    const looped = analyse(SETUP, 'y = np.sqrt(x) * np.exp(-x) + np.sin(x)\nfor i in range(400):\n    plt.plot(y[i])');
    expect(looped.candidate).toContain('    plt.plot(cp.asnumpy(y[i]))');
    expect(looped.work.itemCopies).toBe(400);
    expect(looped.work.itemCopyBytes).toBe(400 * BYTES);
    const without = predict({ ...looped.work, itemCopies: 0, itemCopyBytes: 0 }).gpuSeconds;
    const d2h = DEFAULT_DEVICE_PROFILE.deviceToHost ?? DEFAULT_DEVICE_PROFILE.hostToDevice;
    expect(predict(looped.work).gpuSeconds - without).toBeCloseTo(400 * (ITEM_COPY_LAUNCHES * launch + BYTES / d2h), 12);
  });

  it('outside a loop is one copy among the cell\'s copies back', () => {
    const once = analyse(SETUP, 'y = np.sqrt(x) * np.exp(-x) + np.sin(x)\nplt.plot(y[7])');
    expect(once.candidate).toContain('plt.plot(cp.asnumpy(y[7]))');
    expect(once.work.itemCopies ?? 0).toBe(0);
    expect(once.work.itemCopyBytes ?? 0).toBe(0);
    expect(once.work.deviceToHostBytes).toBe(BYTES);
  });
});
