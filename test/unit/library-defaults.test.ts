/**
 * Where CuPy's defaults differ from NumPy's, the rewrite passes NumPy's explicitly
 * (rules/arrays/cupy-rewrite.ts): numpy.linalg.lstsq's rcond (NumPy 2: None; CuPy: 'warn', a
 * FutureWarning and another cut-off).
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

const SETUP = 'import numpy as np\nrng = np.random.default_rng(0)\nA = rng.random((200_000, 32))\nb = rng.random(200_000)';

function candidate(cell: string): string {
  const r = analyzeNotebook(cellsOf(SETUP, cell, 'print(x[:3], rank)'));
  expect(r.refusals).toEqual([]);
  return r.suggestions.find(s => s.cellIndex === 1)!.candidate;
}

describe('numpy.linalg.lstsq', () => {
  it("gets NumPy 2's rcond=None where the cell leaves the default", () => {
    expect(candidate('x, res, rank, sv = np.linalg.lstsq(A, b)')).toContain('cp.linalg.lstsq(A_gpu, b_gpu, rcond=None)');
    expect(candidate('x, res, rank, sv = np.linalg.lstsq(\n    A, b,\n)')).toContain('cp.linalg.lstsq(\n    A_gpu, b_gpu,rcond=None\n)');
  });
  it('keeps an rcond the cell gives', () => {
    expect(candidate('x, res, rank, sv = np.linalg.lstsq(A, b, rcond=1e-10)')).toContain('cp.linalg.lstsq(A_gpu, b_gpu, rcond=1e-10)');
    expect(candidate('x, res, rank, sv = np.linalg.lstsq(A, b, None)')).toContain('cp.linalg.lstsq(A_gpu, b_gpu, None)');
  });
});
