/**
 * pandas consumers of a cell the rewrite moves: parts of host arrays are read where they are (no
 * copy to the device and back), device values go to pandas as host copies, once, stored columns
 * (`df["y"] = ...`) included: pandas takes no CuPy array.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { rewriteNotebook } from '../../src/analysis/plan';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

const SETUP = ['import numpy as np', 'import pandas as pd', 'h = np.random.rand(2000, 4000)', 'w = np.random.rand(2000, 4000)', 'df = pd.DataFrame({"k": np.arange(4000)})'].join('\n');

function candidate(cells: string[]): string | undefined {
  return analyzeNotebook(cellsOf(SETUP, ...cells)).suggestions.find(s => s.cellIndex === 1)?.candidate;
}

describe('a cell building pandas data', () => {
  it('reads parts of host inputs as they are; device results come back once', () => {
    const c = candidate(['y = np.sort(h, axis=0)\nframe = pd.DataFrame({"top": y[-1], "h0": h[0], "w1": w[1]})\nprint(frame)']);
    expect(c).toContain('frame = pd.DataFrame({"top": cp.asnumpy(y[-1]), "h0": h[0], "w1": w[1]})');
    // w is read by pandas alone: never copied in
    expect(c).not.toMatch(/cp\.asarray\(w/);
  });

  it('copies a device value stored into a frame or a series (pandas takes no CuPy array)', () => {
    const c = candidate(['y = np.sort(h, axis=0)\ndf["med"] = y[1000]\ndf.loc[:, "top"] = y[-1]\nprint(df)']);
    expect(c).toContain('df["med"] = cp.asnumpy(y[1000])');
    expect(c).toContain('df.loc[:, "top"] = cp.asnumpy(y[-1])');
  });

  it('keeps pandas arithmetic pandas\': only the device operand is copied', () => {
    const c = candidate(['y = np.sort(h, axis=0)\ndf["d"] = y[0] - df["k"]\nprint(df)']);
    expect(c).toContain('df["d"] = cp.asnumpy(y[0]) - df["k"]');
  });

  it('an argument computing with a host input (a call, an operator) stays device work, copied back once', () => {
    const op = candidate(['y = np.sort(h, axis=0)\nframe = pd.DataFrame({"top": y[-1], "d": h[0] - h[1]})\nprint(frame)']);
    expect(op).toContain('"d": cp.asnumpy(h_gpu[0] - h_gpu[1])');
    const c = candidate(['y = np.sort(h, axis=0)\nframe = pd.DataFrame({"top": y[-1], "m": np.abs(h).max(axis=0)})\nprint(frame)']);
    expect(c).toContain('"m": cp.asnumpy(cp.abs(h_gpu).max(axis=0))');
  });

  it('an input the cell changes is read from its device copy', () => {
    const c = candidate(['h[0] = 0.0\ny = np.sort(h, axis=0)\nframe = pd.DataFrame({"top": y[-1], "h0": h[0]})\nprint(frame)']);
    expect(c).not.toContain('"h0": h[0]');
  });
});

describe('in the whole-notebook plan', () => {
  it('a resident array read by pandas comes back as a part; a host array pandas alone reads stays', () => {
    // (v: a host array a sequential loop makes, on the host)
    const host = 'v = np.zeros((50, 4000))\nfor t in range(1, 50):\n    v[t] = 0.5 * v[t - 1] + 1.0';
    const plan = rewriteNotebook(cellsOf(SETUP, host, 'y = np.sort(h, axis=0)', 'z = np.sqrt(y) * 2.0\nframe = pd.DataFrame({"z": z.mean(axis=0), "y0": y[0], "v0": v[-1]})\nprint(frame)'), { session: 'warm' });
    expect(plan.gpuCells).toEqual(expect.arrayContaining([2, 3]));
    expect(plan.cells[3].source).toContain('"y0": cp.asnumpy(y[0]), "v0": v[-1]');
    expect(plan.cells[3].source).not.toMatch(/cp\.asarray\(v\)/);
  });
});
