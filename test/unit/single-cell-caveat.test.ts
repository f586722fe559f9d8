/** The explanation's caveat when the single-cell figure is no speedup (rules/arrays/shared.ts). */
import { singleCellCaveat } from '../../src/analysis/rules/arrays/shared';
import type { Prediction } from '../../src/analysis/types';

const pred = (speedup: number, residentSpeedup: number): Prediction =>
  ({ speedup, residentSpeedup, cpuSeconds: 1, gpuSeconds: 1 / speedup, transferSeconds: 0, reason: '' }) as Prediction;

describe('singleCellCaveat', () => {
  it('says the resident figure justifies the suggestion only when it is a speedup', () => {
    expect(singleCellCaveat(pred(0.8, 3), 1.5)!.text).toMatch(/suggested because with the data kept on the device/);
  });
  it('never calls a resident figure under 1.2x the reason (minimum set below 1.2x)', () => {
    const c = singleCellCaveat(pred(0.8, 1.1), 1.0)!;
    expect(c.text).not.toMatch(/suggested because/);
    expect(c.text).toMatch(/not a speedup.*minimum speedup is set to/);
  });
});
