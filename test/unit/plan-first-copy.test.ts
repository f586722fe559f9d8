/**
 * A fresh process's first host->device copies cost ~0.43 ms a MiB more than later ones
 * (apis/first-use.ts FIRST_COPY_IN_SECONDS_PER_MIB, measured on the H200 by bench/host_probe.py
 * `first_device_use`): the whole-notebook figure per session charges it once, on the largest copy
 * in its GPU cells make.
 */
import { FIRST_COPY_IN_SECONDS_PER_MIB, firstCopyInCharge } from '../../src/analysis/apis/first-use';
import { rewriteNotebook } from '../../src/analysis/plan';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

describe('first copies in, once per session', () => {
  it('is charged on the largest copy only', () => {
    expect(firstCopyInCharge([])).toBe(0);
    expect(firstCopyInCharge([32 << 20, 256 << 20, 1 << 20])).toBeCloseTo(256 * FIRST_COPY_IN_SECONDS_PER_MIB, 9);
    // the probe: 256 MiB took 133-153 ms first against 28-32 ms next
    expect(firstCopyInCharge([256 << 20])).toBeGreaterThan(0.1);
    expect(firstCopyInCharge([256 << 20])).toBeLessThan(0.125);
  });

  it('adds to the session figure where GPU cells copy host arrays in', () => {
    // a host array of 256 MiB (ones: made on the host, its cell stays there), sorted on the device
    const cells = cellsOf('import numpy as np\nx = np.ones((8192, 8192), dtype=np.float32)\nprint(x[0, 0])', 'y = np.sort(x, axis=1)\nprint(float(y[0, 0]))');
    const plan = rewriteNotebook(cells, { session: 'warm' });
    expect(plan.gpuCells).toContain(1);
    const f = plan.figures!;
    expect(f.summary).toMatch(/a fresh process's first copies in ~110 ms included/);
    // in the figure: fresh session = steady work + first uses + import + the first copy
    expect(f.freshSessionSeconds - f.gpuSeconds - f.importSeconds).toBeGreaterThanOrEqual(firstCopyInCharge([256 << 20]) - 1e-9);
  });

  it('is not charged where the GPU cells copy nothing in', () => {
    const cells = cellsOf('import numpy as np\nx = np.arange(8192 * 8192, dtype=np.float32).reshape(8192, 8192) % 7', 'y = np.sort(x, axis=1)\nprint(float(y[0, 0]))');
    const plan = rewriteNotebook(cells, { session: 'warm' });
    expect(plan.gpuCells).toEqual([0, 1]);
    expect(plan.figures!.summary).not.toMatch(/first copies in/);
  });
});
