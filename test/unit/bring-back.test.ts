/**
 * What a rewritten cell hands back to the host at its end (rules/arrays/cupy-rewrite.ts): NumPy's
 * own kind of result for a full reduction, SciPy's own sparse matrix where it can be rebuilt from
 * unchanged host arrays, a wait for the GPU under %%time.
 */
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { analyseArrayCell } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

/** The candidate of the second of `sources` (the first sets up, later ones read). */
function candidate(...sources: string[]): string {
  const cache = new CellCache(p);
  const model = new NotebookModel(cellsOf(...sources).map(c => cache.get(c)));
  const a = analyseArrayCell(model.cells[1], model);
  if (!a) {
    throw new Error('no analysis');
  }
  expect(a.refusal).toBeUndefined();
  return a.candidate;
}

const SETUP = 'import numpy as np\nimport scipy.sparse as sp\nx = np.random.default_rng(0).random(10_000_000)';

describe('full reductions come back as NumPy returns them', () => {
  it('a NumPy scalar of the result dtype, a Python number only where NumPy gives one', () => {
    expect(candidate(SETUP, 's = np.sqrt(x).sum()\nm = np.median(x)', 'print(s, m)')).toMatch(/^s = s\.get\(\)\[\(\)\]\nm = m\.get\(\)\[\(\)\]$/m);
    // NumPy >= 2.3: count_nonzero gives a numpy.int64 too
    expect(candidate(SETUP, 'k = np.count_nonzero(np.sqrt(x) > 0.5)', 'print(k)')).toContain('k = k.get()[()]');
    // per axis, count_nonzero gives an array
    expect(candidate(SETUP, 'k = np.count_nonzero(np.sqrt(x).reshape(1000, -1) > 0.5, axis=0)', 'print(k)')).toContain('k = cp.asnumpy(k)');
  });
});

describe('a sparse matrix built in the cell from host arrays', () => {
  const ARRAYS = `${SETUP}\nn = 1_000_000\nindices = np.arange(8 * n, dtype=np.int32) % n\nindptr = np.arange(0, 8 * n + 1, 8, dtype=np.int32)\ndata = np.ones(8 * n)\nv = np.ones(n)`;
  it('is built again on the host from the unchanged host arrays', () => {
    const c = candidate(ARRAYS, 'M = sp.csr_matrix((data, indices, indptr), shape=(n, n))\nw = M @ v', 'print(M.nnz, w[:3])');
    expect(c).toContain('M = sp.csr_matrix((data, indices, indptr), shape=(n, n))  # SciPy');
    expect(c).not.toContain('M = M.get()');
  });
  it('is built again on the host even when no later cell reads it (left on the device, cupyx\'s products would have summed its duplicates)', () => {
    const c = candidate(ARRAYS, 'M = sp.csr_matrix((data, indices, indptr), shape=(n, n))\nw = M @ v');
    expect(c).toMatch(/\nM = sp\.csr_matrix\(\(data, indices, indptr\), shape=\(n, n\)\)  # SciPy's own matrix again/);
  });
  it('is copied back when its arrays were computed on the device or it was changed in place', () => {
    expect(candidate(ARRAYS, 'M = sp.csr_matrix((data * 2, indices, indptr), shape=(n, n))\nw = M @ v', 'print(M.nnz, w[:3])')).toContain('M = M.get()');
    expect(candidate(ARRAYS, 'd2 = np.sqrt(data)\nM = sp.csr_matrix((d2, indices, indptr), shape=(n, n))\nw = M @ v', 'print(M.nnz, w[:3])')).toContain('M = M.get()');
  });
});

describe('%%time', () => {
  it('waits for the queued GPU work at the end of the cell, unless a copy back waits already', () => {
    expect(candidate(SETUP, '%%time\ny = np.sqrt(x) * np.exp(-x)')).toMatch(/cp\.cuda\.get_current_stream\(\)\.synchronize\(\)/);
    expect(candidate(SETUP, '%%time\ny = np.sqrt(x) * np.exp(-x)', 'print(y[:3])')).not.toMatch(/synchronize/);
    expect(candidate(SETUP, 'y = np.sqrt(x) * np.exp(-x)')).not.toMatch(/synchronize/);
  });
});

describe('review of 2026-12-01: what the bring-back and the sort rewrite must not do', () => {
  const ARRAYS = `${SETUP}\nn = 1_000_000\nindices = np.arange(8 * n, dtype=np.int32) % n\nindptr = np.arange(0, 8 * n + 1, 8, dtype=np.int32)\ndata = np.ones(8 * n)\nv = np.ones(n)`;
  const BUILD = 'M = sp.csr_matrix((data, indices, indptr), shape=(n, n))';
  it('rebuilds no sparse matrix the cell changes, shares or builds with calls', () => {
    expect(candidate(ARRAYS, `${BUILD}\nM.setdiag(1.0)\nw = M @ v`, 'print(M.nnz, w[:3])')).toContain('M = M.get()');
    expect(candidate(ARRAYS, `${BUILD}\nM.data *= 2\nw = M @ v`, 'print(M.nnz, w[:3])')).toContain('M = M.get()');
    expect(candidate(ARRAYS, `${BUILD}\nN = M\nw = M @ v`, 'print(M.nnz, N.nnz, w[:3])')).not.toContain('M = sp.csr_matrix((data');
    expect(candidate(ARRAYS, 'M = sp.csr_matrix((np.exp(data), indices, indptr), shape=(n, n))\nw = M @ v', 'print(M.nnz, w[:3])')).toContain('M = M.get()');
  });
  it('gives np.allclose back as a Python bool, and a 0-d result to a host consumer as a NumPy scalar', () => {
    expect(candidate(SETUP, 'same = np.allclose(np.sqrt(x), x)', 'print(same)')).toContain('same = same.item()');
    const withPandas = `${SETUP}\nimport pandas as pd`;
    expect(candidate(withPandas, 'k = np.argmax(np.sqrt(x) * np.exp(-x))\ndf = pd.DataFrame({"k": [k]})')).toContain('pd.DataFrame({"k": [cp.asnumpy(k)[()]]})');
  });
  it('waits at the end of a %%time cell whose only result is a rebuilt matrix', () => {
    expect(candidate(ARRAYS, `%%time\n${BUILD}\nw = M @ v`, 'print(M.nnz)')).toMatch(/synchronize\(\)/);
  });
  it('leaves a sort of a fancy-indexed copy as it is, and sorts a name rebound later in a loop through cp.sort', () => {
    const idx = `${SETUP}\nu = np.asfortranarray(np.random.default_rng(1).random((4000, 4000)))\nidx = np.arange(0, 4000, 2)`;
    const fancy = candidate(idx, 'u[idx].sort()\ns = np.sqrt(u).sum()', 'print(s)');
    expect(fancy).toContain('u[idx_gpu].sort()');
    expect(fancy).not.toContain('= cp.sort(');
    const loop = candidate(SETUP, 'y = np.random.default_rng(2).random((4000, 4000))\nfor _ in range(2):\n    y.sort()\n    y = y.T\ns = np.sqrt(y).sum()', 'print(s)');
    expect(loop).toContain('y[...] = cp.sort(y)');
  });
});

describe("the cell's displayed value stays displayed", () => {
  it("a trailing call's value is kept and shown after the bring-back (the call may write the arrays)", () => {
    const c = candidate(SETUP, 'y = np.sqrt(x)\nnp.multiply(y, 2.0, out=y)', 'print(y[:3])');
    expect(c).toMatch(/\nshown = cp\.multiply\(y, 2\.0, out=y\)\ny = cp\.asnumpy\(y\)\nshown$/);
  });
  it('a fresh name when `shown` is taken in the notebook', () => {
    const c = candidate(SETUP, 'y = np.sqrt(x)\nnp.multiply(y, 2.0, out=y)', 'shown = 1\nprint(y[:3])');
    expect(c).toMatch(/\nshown2 = cp\.multiply\(y, 2\.0, out=y\)\ny = cp\.asnumpy\(y\)\nshown2$/);
  });
  it('a call that returns None, or one silenced with `;`, is only followed by the lines', () => {
    expect(candidate(SETUP, 'y = np.sqrt(x)\nprint(y[:3])', 'print(y[:3])')).toMatch(/\nprint\(y\[:3\]\)\ny = cp\.asnumpy\(y\)$/);
    expect(candidate(SETUP, 'y = np.sqrt(x)\nnp.multiply(y, 2.0, out=y);', 'print(y[:3])')).toMatch(/\ncp\.multiply\(y, 2\.0, out=y\);\ny = cp\.asnumpy\(y\)$/);
    // a host call reading nothing on the device: after the lines, as the cell wrote it
    expect(candidate(SETUP, 'y = np.sqrt(x)\nys = [1]\nys.append(2)', 'print(y[:3])')).toMatch(/\ny = cp\.asnumpy\(y\)\nys\.append\(2\)$/);
    // a function the cell defines with no `return <value>`
    const c = candidate(SETUP, 'y = np.sqrt(x)\n\ndef report():\n    print(y[:3])\n    return\n\nreport()', 'print(y[:3])');
    expect(c).toMatch(/\nreport\(\)\ny = cp\.asnumpy\(y\)$/);
  });
  it("every 0-d device item of a displayed tuple, list or dict shows NumPy's scalar", () => {
    expect(candidate(SETUP, 'c = np.sqrt(x) * 2.0\nc.mean(), c.std()')).toMatch(/\ncp\.asnumpy\(c\.mean\(\)\)\[\(\)\], cp\.asnumpy\(c\.std\(\)\)\[\(\)\]$/);
    expect(candidate(SETUP, 'c = np.sqrt(x) * 2.0\n{"mean": c.mean(), "range": [c.min(), c.max()]}')).toMatch(
      /\n\{"mean": cp\.asnumpy\(c\.mean\(\)\)\[\(\)\], "range": \[cp\.asnumpy\(c\.min\(\)\)\[\(\)\], cp\.asnumpy\(c\.max\(\)\)\[\(\)\]\]\}$/
    );
    // a dict's keys too (a 0-d CuPy array would be a key no NumPy scalar equals)
    expect(candidate(SETUP, 'c = np.sqrt(x) * 2.0\n{c.max(): "max"}')).toMatch(/\n\{cp\.asnumpy\(c\.max\(\)\)\[\(\)\]: "max"\}$/);
    // an array item shows the same repr on both (`array([...])`): left as it is
    expect(candidate(SETUP, 'c = np.sqrt(x) * 2.0\nc.mean(), c[:3]')).toMatch(/\ncp\.asnumpy\(c\.mean\(\)\)\[\(\)\], c\[:3\]$/);
  });
  it('a shown value that computes on the device is evaluated before the lines, its host copy inside the binding', () => {
    const c = candidate(SETUP, 'y = np.sqrt(x)\nz = np.exp(-x)\nz.mean()', 'print(y[:3])');
    expect(c).toMatch(/\nshown = cp\.asnumpy\(z\.mean\(\)\)\[\(\)\]\ny = cp\.asnumpy\(y\)\nshown$/);
    // reading an array the lines bring back: still computed on the device, before they do
    // (after them, `y` is NumPy's and `cp.sqrt(y)` or `x_gpu * y` would raise)
    expect(candidate(SETUP, 'y = np.sqrt(x)\nnp.sqrt(y).sum()', 'print(y[:3])')).toMatch(/\nshown = cp\.asnumpy\(cp\.sqrt\(y\)\.sum\(\)\)\[\(\)\]\ny = cp\.asnumpy\(y\)\nshown$/);
    expect(candidate(SETUP, 'y = np.sqrt(x)\nnp.sum(x * y)', 'print(y[:3])')).toMatch(/\nshown = cp\.asnumpy\(cp\.sum\(x_gpu \* y\)\)\[\(\)\]\ny = cp\.asnumpy\(y\)\nshown$/);
    // a tuple is bound whole, each item shown as NumPy shows it
    expect(candidate(SETUP, 'y = np.sqrt(x)\nnp.sum(y), np.max(y)', 'print(y[:3])')).toMatch(/\nshown = cp\.asnumpy\(cp\.sum\(y\)\)\[\(\)\], cp\.asnumpy\(cp\.max\(y\)\)\[\(\)\]\ny = cp\.asnumpy\(y\)\nshown$/);
  });
  it('a shown value only looking into arrays brought back follows the lines, as the cell wrote it', () => {
    expect(candidate(SETUP, 'y = np.sqrt(x)\ny[:3]', 'print(y[:3])')).toMatch(/\ny = cp\.asnumpy\(y\)\ny\[:3\]$/);
    expect(candidate(SETUP, 'y = np.sqrt(x)\ny', 'print(y[:3])')).toMatch(/\ny = cp\.asnumpy\(y\)\ny$/);
  });
  it('a clock read in the shown value waits for the GPU before it, and before its binding', () => {
    const c = candidate(SETUP + '\nimport time\nfmt = str', 't0 = time.perf_counter()\ny = np.sqrt(x)\nz = np.exp(y)\nfmt(time.perf_counter() - t0)', 'print(y[:3])');
    expect(c).toMatch(/\ncp\.cuda\.get_current_stream\(\)\.synchronize\(\)  # the clock waits for the GPU's queued work\ny = cp\.asnumpy\(y\)\nfmt\(time\.perf_counter\(\) - t0\)$/);
  });
  it('a call of a function the cell defines reads the host arrays after the lines, as NumPy code would', () => {
    const own = candidate(SETUP, 'y = np.sqrt(x)\n\ndef head():\n    return y[:3]\n\nhead()', 'print(y[:3])');
    expect(own).toMatch(/\ny = cp\.asnumpy\(y\)\nhead\(\)$/);
  });
});

describe('NumPy ufuncs of numbers only stay NumPy', () => {
  it('np.sqrt(n) of a Python int is a NumPy scalar on both sides, not a kernel launch for one number', () => {
    const c = candidate(SETUP, 'n = 10_000_000\nerr = np.std(np.exp(-x)) / np.sqrt(n)', 'print(err)');
    expect(c).toContain('err = cp.std(cp.exp(-x_gpu)) / np.sqrt(n)');
  });
  it('a ufunc of a device 0-d result is still CuPy', () => {
    expect(candidate(SETUP, 'r = np.sqrt(np.mean(x * x))', 'print(r)')).toContain('r = cp.sqrt(cp.mean(x_gpu * x_gpu))');
  });
});
