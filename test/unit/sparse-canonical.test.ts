/** GPU102: `M.sum_duplicates()` after a device CSR/CSC construction, only when nothing reads M's structure later. */
import { analyzeNotebook, NotebookAnalyzer } from '../../src/analysis/engine';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

const SETUP = `import numpy as np
import scipy.sparse as sp
rng = np.random.default_rng(7)
n = 1_000_000
indices = np.sort(rng.integers(0, n, size=(n, 8)), axis=1).ravel().astype(np.int32)
indptr = np.arange(0, 8 * n + 1, 8, dtype=np.int32)
data = rng.random(8 * n)
v = rng.random(n)`;
const BUILD = `M = sp.csr_matrix((data, indices, indptr), shape=(n, n))
w = M @ v
for _ in range(20):
    w = M @ w`;

function gpu102(...cells: string[]): { candidate: string; explanation: string } {
  const s = analyzeNotebook(cellsOf(SETUP, ...cells)).suggestions.find(x => x.rule === 'GPU102' && x.cellIndex === 1);
  expect(s).toBeDefined();
  return { candidate: s!.candidate, explanation: s!.explanation };
}

describe('sum_duplicates at construction', () => {
  it('is inserted, and explained, when nothing reads the structure afterwards', () => {
    const s = gpu102(BUILD, 'print(w[:4])');
    expect(s.candidate).toContain('M.sum_duplicates()');
    expect(s.explanation).toMatch(/sum_duplicates\(\)`.*merges duplicate entries.*28 ms/s);
  });
  it.each(['print(M.nnz)', 'idx = M.indices[:8]', 'print(M.has_canonical_format)', 'd = M.data * 2'])('is left out when a later cell reads it: %s', later => {
    expect(gpu102(BUILD, later).candidate).not.toContain('sum_duplicates');
  });
  it('is left out when the same cell reads the structure after the construction', () => {
    expect(gpu102(`${BUILD}\nprint(M.indptr[:3])`).candidate).not.toContain('sum_duplicates');
  });
});

describe('sum_duplicates under incremental re-analysis', () => {
  it('drops the line when an edit makes a later cell (already reading M) read M.nnz', () => {
    const analyzer = new NotebookAnalyzer({});
    const first = analyzer.update(cellsOf(SETUP, BUILD, 'y = M @ v'));
    expect(first.suggestions.find(s => s.cellIndex === 1)?.candidate).toContain('sum_duplicates');
    const second = analyzer.update(cellsOf(SETUP, BUILD, 'y = M @ v\nprint(M.nnz)'));
    expect(second.suggestions.find(s => s.cellIndex === 1)?.candidate).not.toContain('sum_duplicates');
  });
});
