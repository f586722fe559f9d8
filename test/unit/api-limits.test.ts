/**
 * What the rewrite says where CuPy's namesake behaves differently (rules/arrays/api-limits.ts,
 * scipy-norm.ts): float sums accumulated with atomics, `.flat[idx]` through `.ravel()`, a
 * `norm` scale that SciPy checks and the rewrite does not. The candidates themselves are rule
 * fixtures: GPU104/flag-flat-index-array-row-of-stack, GPU101/flag-flat-index-array-read-and-write,
 * GPU103/no-flat-index-array-transposed-write, GPU101/no-packbits-axis, GPU101/no-unpackbits-count,
 * GPU101/flag-packbits-flat, GPU102/flag-norm-cdf-black-scholes,
 * GPU102/flag-norm-methods-loc-scale-float32, GPU102/no-norm-ppf-float32, GPU102/no-norm-rvs-*.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

const SETUP = 'import numpy as np\nrng = np.random.default_rng(0)\nN, M = 200_000, 5_000_000\npos = rng.random((N, 3)) * 50.0\ni = rng.integers(0, N, M)\nj = rng.integers(0, N, M)';

/** The notes of the suggestion for cell `index`. */
function notesOf(cells: ReturnType<typeof cellsOf>, index: number): string {
  const s = analyzeNotebook(cells).suggestions.find(x => x.cellIndex === index);
  expect(s).toBeDefined();
  return s!.notes.join('\n');
}

describe('atomic float sums', () => {
  it('notes that cp.add.at sums float64 values in no fixed order', () => {
    const notes = notesOf(cellsOf(SETUP, 'd = pos[i] - pos[j]\nF = np.zeros((N, 3))\nnp.add.at(F, i, d)\nnp.add.at(F, j, -d)\nprint(F.sum(axis=0))'), 1);
    expect(notes).toMatch(/`np\.add\.at\(F, i, d\)` adds float64 values into its bins with atomic operations/);
    expect(notes).toMatch(/differ from run to run/);
  });

  it('notes float bincount weights, not integer counts', () => {
    const weighted = notesOf(cellsOf(SETUP, 'w = np.sqrt((pos[i] ** 2).sum(axis=1))\ns = np.bincount(i, weights=w, minlength=N)\nprint(s.max())'), 1);
    expect(weighted).toMatch(/np\.bincount\(i, weights=w, minlength=N\)` adds float64 values/);
    const counts = notesOf(cellsOf(SETUP, 'deg = np.bincount(i, minlength=N) + np.bincount(j, minlength=N)\nprint(deg.max())'), 1);
    expect(counts).not.toMatch(/atomic/);
  });
});

describe('flat iterator', () => {
  it('says why .flat[idx] became .ravel()[idx] and what a repeated index does', () => {
    const notes = notesOf(cellsOf(`${SETUP}\nimg = rng.random((2048, 2048))`, 'hits = i[:400] * 20\nimg.flat[hits] += np.sqrt(pos[:400, 0])\nimg *= 2.0\nprint(img.sum())'), 1);
    expect(notes).toMatch(/`img\.flat\[hits\]`: CuPy's flat iterator takes an integer, a slice or `\.\.\.` only/);
    expect(notes).toMatch(/NumPy keeps the last one, CuPy any one of them/);
  });
});

describe('scipy.stats.norm', () => {
  it('says that a scale given by name is not checked for being positive', () => {
    const notes = notesOf(
      cellsOf('import numpy as np\nfrom scipy.stats import norm\nx = np.linspace(-4, 4, 4_000_000)\nsig = 2.0', 'p = norm.pdf(x, 0.5, sig) * np.sqrt(x * x + 1.0)\nprint(p.sum())'),
      1
    );
    expect(notes).toMatch(/SciPy gives nan for a scale <= 0, the rewrite does not check it/);
  });

  it('leaves norm.cdf of a number to SciPy on the host', () => {
    const result = analyzeNotebook(cellsOf('import numpy as np\nfrom scipy.stats import norm\nx = np.linspace(-4, 4, 4_000_000)', 'p = np.sqrt(x * x + 1.0) * norm.cdf(0.5)\nprint(p.sum())'));
    const s = result.suggestions.find(x => x.cellIndex === 1);
    expect(s?.candidate).toMatch(/norm\.cdf\(0\.5\)/);
    expect(s?.candidate).not.toMatch(/ndtr/);
  });
});
