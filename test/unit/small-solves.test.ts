/**
 * Fits and solves of arrays known to be small stay NumPy's on the host, their device arguments
 * copied there (cupy-rewrite.ts tinyHostSolve): a line through 30 points is microseconds of LAPACK,
 * where CuPy's would load cuSOLVER/cuBLAS and launch and sync several times.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

const SETUP = 'import numpy as np\nX = np.random.rand(4_000_000, 8)';

function candidate(cell: string): string {
  const s = analyzeNotebook(cellsOf(SETUP, cell)).suggestions.find(x => x.cellIndex === 1);
  expect(s).toBeDefined();
  return s!.candidate;
}

describe('small fits and solves stay on the host', () => {
  it('fits a line to a reduction of device data on the host, the 8 values copied there', () => {
    const c = candidate('m = X.mean(axis=0) * 2.0 + 1.0\nslope = np.polyfit(np.arange(8.0), m, 1)[0]\nprint(f"{slope:.3f}")');
    expect(c).toContain('slope = np.polyfit(np.arange(8.0), cp.asnumpy(m), 1)[0]');
  });

  it('solves an 8 x 8 system made from device data on the host; its result printed as it is', () => {
    const c = candidate('C = np.cov(X, rowvar=False)\nw = np.linalg.solve(C, np.ones(8))\nprint(w)');
    expect(c).toContain('w = np.linalg.solve(cp.asnumpy(C), np.ones(8))');
  });

  it('keeps a large or batched solve on the device, and a small one whose result meets device work', () => {
    expect(candidate('G = X.T @ X\nbeta = np.linalg.solve(G, X.T @ X[:, 0])\nr = X @ beta\nprint(r[:3])')).toContain('beta = cp.linalg.solve(G, X_gpu.T @ X_gpu[:, 0])');
    expect(candidate('B = np.linalg.inv(X.reshape(-1, 2, 2))\nprint(B[0])')).toContain('cp.linalg.inv(');
    // (the rewrite does not follow a host result into later device work: the solve stays there)
    expect(candidate('C = np.cov(X, rowvar=False)\nw = np.linalg.solve(C, np.ones(8))\nr = X @ w\nprint(r[:3])')).toContain('w = cp.linalg.solve(C, cp.ones(8))');
  });
});
