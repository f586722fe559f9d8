/**
 * Calls returning tuples: what unpacking them binds (value inference, checked against NumPy 2.4
 * and SciPy 1.17: shapes, dtypes, types), the rewrite bringing each unpacked array back, and the
 * refusal where the rewrite would leave a tuple or an unpacked array of CuPy values for host code.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import type { NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { rewriteNotebook as planNotebook, type PlanOptions, type ResidencyPlan } from '../../src/analysis/plan';
import type { CellInput } from '../../src/analysis/types';
import { cellsOf, parser, notebookModel } from './helpers';

/** The plan judged by steady figures: these notebooks are small, and test data movement, not first-use costs. */
const rewriteNotebook = (cells: CellInput[], opts: PlanOptions = {}): ResidencyPlan => planNotebook(cells, { session: 'warm', ...opts });

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

function model(cells: CellInput[]): NotebookModel {
  return notebookModel(p, cells);
}

const SETUP = [
  'import numpy as np',
  'import scipy.ndimage as ndi',
  'import scipy.linalg as sl',
  'from scipy import signal',
  'a = np.random.rand(5_000_000).astype(np.float32)',
  'A = np.random.rand(3000, 2000)',
  'S4 = np.random.rand(3000, 3000)',
  'k = np.random.randint(0, 100, 5_000_000)',
  'img = np.random.rand(4096, 4096)'
].join('\n');

describe('what unpacking a tuple-returning call binds', () => {
  const cases: [string, string, string, { shape?: (number | null)[]; dtype?: string; kind?: string }][] = [
    ['w, v = np.linalg.eigh(S4)', 'w', 'eigenvalues', { shape: [3000], dtype: 'float64' }],
    ['w, v = np.linalg.eigh(S4)', 'v', 'eigenvectors', { shape: [3000, 3000], dtype: 'float64' }],
    ['U, s, Vt = np.linalg.svd(A)', 'U', 'U (full_matrices)', { shape: [3000, 3000] }],
    ['U, s, Vt = np.linalg.svd(A)', 's', 'singular values', { shape: [2000] }],
    ['U, s, Vt = np.linalg.svd(A, full_matrices=False)', 'U', 'reduced U', { shape: [3000, 2000] }],
    ['U, s, Vt = np.linalg.svd(A, False)', 'U', 'reduced U (positional full_matrices)', { shape: [3000, 2000] }],
    ['q, r = np.linalg.qr(A, "complete")', 'q', 'complete Q (positional mode)', { shape: [3000, 3000] }],
    ['counts, edges = np.histogram(a, bins=100, density=False)', 'counts', 'counts (density=False)', { shape: [100], dtype: 'int64' }],
    ['q, r = np.linalg.qr(A)', 'r', "NumPy's reduced R", { shape: [2000, 2000] }],
    ['q, r = sl.qr(A)', 'q', "SciPy's full Q", { shape: [3000, 3000] }],
    ['lu, piv = sl.lu_factor(S4)', 'piv', 'pivots', { shape: [3000], dtype: 'int32' }],
    ['counts, edges = np.histogram(a, bins=100)', 'counts', 'counts', { shape: [100], dtype: 'int64' }],
    ['counts, edges = np.histogram(a, bins=100)', 'edges', "edges in the input's float dtype", { shape: [101], dtype: 'float32' }],
    ['counts, edges = np.histogram(k)', 'edges', 'ten bins by default, float edges of integers', { shape: [11], dtype: 'float64' }],
    ['vals, cnt = np.unique(k, return_counts=True)', 'cnt', 'counts', { dtype: 'int64', kind: 'ndarray' }],
    ['X, Y = np.meshgrid(np.zeros(3), np.zeros(5, dtype=np.float32))', 'Y', "'xy' indexing, each input's dtype", { shape: [5, 3], dtype: 'float32' }],
    ['X, Y = np.meshgrid(np.zeros(3), np.zeros(5), indexing="ij")', 'X', "'ij' indexing", { shape: [3, 5] }],
    ['i, j = np.nonzero(img > 0.5)', 'j', 'indices', { dtype: 'int64', kind: 'ndarray' }],
    ['m, e = np.frexp(a)', 'e', 'exponents', { shape: [5_000_000], dtype: 'int32' }],
    ['d, r = divmod(a, 251)', 'r', "Python's divmod of an array: np.divmod's pair (`a.__divmod__`)", { shape: [5_000_000], dtype: 'float32' }],
    ['d, r = divmod(k, 7)', 'd', "Python's divmod of an integer array", { shape: [5_000_000], dtype: 'int64' }],
    ['gy, gx = np.gradient(img)', 'gx', 'one gradient per axis', { shape: [4096, 4096], dtype: 'float64' }],
    ['labels, n = ndi.label(img > 0.5)', 'labels', 'labels', { shape: [4096, 4096], dtype: 'int32' }],
    ['labels, n = ndi.label(img > 0.5)', 'n', 'their count, a Python int', { kind: 'scalar' }],
    ['sign, logdet = np.linalg.slogdet(S4)', 'logdet', "a NumPy scalar (0-d, as the rules model NumPy's scalar results)", { shape: [], dtype: 'float64' }],
    ['f, P = signal.welch(a, fs=1e3, nperseg=4096)', 'P', "welch's one-sided power, in the signal's float dtype", { shape: [2049], dtype: 'float32' }],
    ['f, P = signal.welch(a)', 'f', "welch's frequencies (nperseg 256 by default)", { shape: [129], dtype: 'float64' }],
    ['f, P = signal.periodogram(a)', 'f', "the periodogram's frequencies", { shape: [2_500_001] }],
    ['f, P = signal.welch(A, fs=1e3, nperseg=1024, axis=1)', 'P', "welch's power along axis 1: the other axes kept", { shape: [3000, 513], dtype: 'float64' }],
    ['f, P = signal.welch(A, fs=1e3, nperseg=1024, axis=1)', 'f', "welch's frequencies along axis 1", { shape: [513] }],
    ['f, P = signal.welch(A, nperseg=64)', 'P', 'welch along the last axis by default', { shape: [3000, 33] }],
    ['f, P = signal.welch(A, nperseg=4096, axis=0)', 'P', 'an nperseg longer than the axis is shortened to it, as SciPy does', { shape: [1501, 2000] }],
    ['f, P = signal.periodogram(A, axis=0)', 'P', 'a periodogram along axis 0', { shape: [1501, 2000] }],
    ['y = signal.filtfilt(np.ones(3), np.ones(1), a)', 'y', 'a filter’s output, shaped like its data (not its coefficients)', { shape: [5_000_000] }],
    ['res = np.linalg.eigh(S4)\nw = res[0]', 'w', 'an item by index', { shape: [3000] }],
    ['res = np.linalg.eigh(S4)\nw = res[-1]', 'w', 'an item from the end', { shape: [3000, 3000] }]
  ];
  it.each(cases)('%s: %s is the %s', (code, name, _what, expected) => {
    const m = model(cellsOf(SETUP, code));
    const v = m.valueAfter(name, m.cells[1]);
    expect(v).toMatchObject({ kind: expected.kind ?? 'ndarray', ...(expected.shape ? { shape: expected.shape } : {}), ...(expected.dtype ? { dtype: expected.dtype } : {}) });
  });

  // NumPy 2.4.6 (run here): the positions of non-zero elements are int64 (intp) whatever the
  // input's dtype, as many as the data decide (typed bool before, the input's own dtype)
  it.each([
    ['idx = np.flatnonzero(img > 0.5)', 'idx', 'flat indices', { shape: [null], dtype: 'int64', size: 4096 * 4096 }],
    ['idx = np.flatnonzero(k)', 'idx', 'flat indices of an integer array', { shape: [null], dtype: 'int64', size: 5_000_000 }],
    ['pos = np.argwhere(img > 0.5)', 'pos', 'a row of indices per element, a column per axis', { shape: [null, 2], dtype: 'int64', size: 2 * 4096 * 4096 }],
    ['pos = np.argwhere(a)', 'pos', 'one column for a 1-D array', { shape: [null, 1], dtype: 'int64', size: 5_000_000 }],
    ['i = np.nonzero(a > 0.5)[0]', 'i', "np.nonzero's item", { shape: [null], dtype: 'int64' }],
    ['i, = np.where(a > 0.5)', 'i', "a one-argument np.where's item", { shape: [null], dtype: 'int64' }]
  ])('%s: %s holds %s, int64', (code, name, _what, expected) => {
    const m = model(cellsOf(SETUP, code));
    const v = m.valueAfter(name, m.cells[1]);
    expect(v).toMatchObject({ kind: 'ndarray', ...expected, approx: true, selection: true });
  });

  it('np.nonzero of a mask whose rank is not known is a tuple not known, not the mask', () => {
    const m = model(cellsOf(SETUP, 'mask = np.load("m.npy") > 0\nhits = np.nonzero(mask)'));
    expect(m.valueAfter('hits', m.cells[1]).kind).toBe('unknown');
  });

  it('a nested pattern takes its item of the tuple it is given', () => {
    const m = model(cellsOf(SETUP, '(w, v), n = np.linalg.eigh(S4), 3'));
    expect(m.valueAfter('v', m.cells[1])).toMatchObject({ kind: 'ndarray', shape: [3000, 3000] });
  });

  // (NumPy 2.4.6: unpacking a new 1-D array gives NumPy scalars, modelled 0-d; float64 for
  // integer data and for float32 data with a list of q)
  it.each([
    ['lo, hi = np.percentile(a, [5, 95])', 'hi', 'float32 data, a list of q: float64'],
    ['lo, hi = np.quantile(k, [0.05, 0.95])', 'lo', 'integer data: float64'],
    ['lo, hi = np.nanpercentile(A, [5, 95])', 'lo', 'the nan- form'],
    ['v99, v95 = -np.quantile(A, [0.01, 0.05])', 'v95', 'negated: a new array too'],
    ['(lo, hi), n = np.percentile(k, [5, 95]), 3', 'hi', 'a nested pattern'],
    ['slope, icpt = np.polyfit(A[:, 0], A[:, 1], 1)', 'icpt', "a line's coefficients"]
  ])('%s: %s is a 0-d float64 NumPy scalar (%s)', (code, name) => {
    const m = model(cellsOf(SETUP, code));
    expect(m.valueAfter(name, m.cells[1])).toMatchObject({ kind: 'ndarray', shape: [], dtype: 'float64', library: 'numpy' });
  });

  it.each([
    // the rows of a named array are views of it on the device: not modelled
    ['b = np.percentile(a, [5, 95])\nlo, hi = b', 'lo', 'a named array unpacked'],
    ['lo, hi, mid = np.percentile(a, [5, 95])', 'mid', 'more names than items (a ValueError)'],
    ['lo, hi = np.percentile(a, [5, 50, 95])', 'lo', 'fewer names than items (a ValueError)'],
    ['a0, *rest = np.linalg.eigh(S4)', 'a0', 'a starred target'],
    ['x, y = np.linalg.eigh(S4)[0]', 'x', 'an item unpacked again'],
    ['w, v, extra = np.linalg.eigh(S4)', 'extra', 'past the tuple’s end'],
    ['c, e = np.histogram(a, bins=10, weights=a)', 'c', 'counts in the weights’ dtype: not modelled'],
    ['w, v = sl.eigh(S4, subset_by_index=[0, 9])', 'v', 'a subset of the eigenpairs: not modelled'],
    ['y, zf = signal.lfilter(np.ones(3), np.ones(1), a, zi=np.zeros(2))', 'zf', "lfilter's final state"]
  ])('%s: %s is unknown (%s)', (code, name) => {
    const m = model(cellsOf(SETUP, code));
    expect(m.valueAfter(name, m.cells[1]).kind).toBe('unknown');
  });
});

// Each expectation below was written from NumPy 2.4.6 / SciPy 1.17.1 running the same call here
// (on smaller arrays of the same layout where the sizes only scale: lstsq's 300 x 20 for 3000 x 200)
describe('lstsq, histogram2d, weighted histograms and labels in a dtype (items as NumPy and SciPy return them)', () => {
  const MORE = [
    'import numpy as np',
    'import scipy.ndimage as ndi',
    'a = np.random.rand(5_000_000).astype(np.float32)',
    'A = np.random.rand(3000, 200)',
    'Af = A.astype(np.float32)',
    'b = np.random.rand(3000)',
    'bf = b.astype(np.float32)',
    'B = np.random.rand(3000, 4)',
    'x = np.random.rand(5_000_000)',
    'y = np.random.rand(5_000_000)',
    'wi = np.random.randint(0, 3, 5_000_000)',
    'edges = np.linspace(0, 1, 11)',
    'img = np.random.rand(4096, 4096)'
  ].join('\n');
  const cases: [string, string, string, { shape?: (number | null)[]; dtype?: string; kind?: string }][] = [
    ['x_, res, rank, s = np.linalg.lstsq(A, b, rcond=None)', 'x_', 'the solution, one per column of A', { shape: [200], dtype: 'float64' }],
    // m > n: one residual at full rank, none below it (the data decide)
    ['x_, res, rank, s = np.linalg.lstsq(A, b, rcond=None)', 'res', 'the residuals, as many as the rank allows', { shape: [null], dtype: 'float64' }],
    ['x_, res, rank, s = np.linalg.lstsq(A, b, rcond=None)', 'rank', 'the rank, a NumPy int32 (0-d, as the rules model NumPy scalars)', { shape: [], dtype: 'int32' }],
    ['x_, res, rank, s = np.linalg.lstsq(A, b, rcond=None)', 's', 'the singular values', { shape: [200], dtype: 'float64' }],
    ['x_, res, rank, s = np.linalg.lstsq(A, B, rcond=None)', 'x_', 'one solution per column of B', { shape: [200, 4] }],
    ['x_, res, rank, s = np.linalg.lstsq(A[:100], b[:100], rcond=None)', 'res', 'no residuals where m <= n', { shape: [0] }],
    ['x_, res, rank, s = np.linalg.lstsq(A[:100], b[:100], rcond=None)', 's', 'min(m, n) singular values', { shape: [100] }],
    ['x_, res, rank, s = np.linalg.lstsq(Af, bf)', 'x_', 'float32 where both are', { shape: [200], dtype: 'float32' }],
    ['H, xe, ye = np.histogram2d(x, y)', 'H', 'ten bins a side by default, float64 counts', { shape: [10, 10], dtype: 'float64' }],
    ['H, xe, ye = np.histogram2d(x, y, bins=[100, 50])', 'H', 'a count per axis', { shape: [100, 50], dtype: 'float64' }],
    ['H, xe, ye = np.histogram2d(x, y, bins=[100, 50])', 'ye', "the second axis' edges", { shape: [51], dtype: 'float64' }],
    ['H, xe, ye = np.histogram2d(a, a, bins=20, weights=wi, density=True)', 'H', 'float64 whatever the weights', { shape: [20, 20], dtype: 'float64' }],
    ['H, xe, ye = np.histogram2d(a, a, bins=20, weights=wi, density=True)', 'xe', "edges in float32 samples' dtype", { shape: [21], dtype: 'float32' }],
    ['H, xe, ye = np.histogram2d(a, x, 20)', 'xe', 'float32 and float64 samples stack as float64', { shape: [21], dtype: 'float64' }],
    ['c, e = np.histogram(x, bins=10, weights=x)', 'c', 'counts in float64 weights’ dtype', { shape: [10], dtype: 'float64' }],
    ['c, e = np.histogram(x, bins=10, weights=wi)', 'c', 'counts in int64 weights’ dtype', { shape: [10], dtype: 'int64' }],
    ['c, e = np.histogram(x, bins=10, weights=a, density=True)', 'c', 'a density, float64 whatever the weights', { shape: [10], dtype: 'float64' }],
    ['c, e = np.histogram(a, bins=edges)', 'c', 'a count per pair of edges given', { shape: [10], dtype: 'int64' }],
    ['c, e = np.histogram(a, bins=edges)', 'e', 'the edges given, in their dtype', { shape: [11], dtype: 'float64' }],
    ['c, e = np.histogram(a, bins=[0, 1, 2])', 'e', 'a list of ints as edges: int64', { shape: [3], dtype: 'int64' }],
    ['lab, n = ndi.label(img > 0.5, output=np.int32)', 'lab', 'labels in the dtype output= names', { shape: [4096, 4096], dtype: 'int32' }],
    ['lab, n = ndi.label(img > 0.5, output=np.int32)', 'n', 'their count, a Python int', { kind: 'scalar' }],
    ["lab, n = ndi.label(img > 0.5, output='uint16')", 'lab', 'a dtype named by a string', { dtype: 'uint16' }],
    ['lab, n = ndi.label(img > 0.5, None, np.int64)', 'lab', 'output= given positionally', { dtype: 'int64' }]
  ];
  it.each(cases)('%s: %s is the %s', (code, name, _what, expected) => {
    const m = model(cellsOf(MORE, code));
    const v = m.valueAfter(name, m.cells[1]);
    expect(v).toMatchObject({ kind: expected.kind ?? 'ndarray', ...(expected.shape ? { shape: expected.shape } : {}), ...(expected.dtype ? { dtype: expected.dtype } : {}) });
  });

  it.each([
    // CuPy sums float32, int32, bool... weights as float64 or int64 (NumPy keeps their dtype)
    ['c, e = np.histogram(x, bins=10, weights=a)', 'c', 'float32 weights: CuPy’s counts would be float64'],
    // CuPy computes s (and empty residuals) in A's float32, NumPy in float64
    ['x_, res, rank, s = np.linalg.lstsq(Af, b)', 's', 'float32 A with float64 b'],
    ['H, xe, ye = np.histogram2d(x, y, bins=[edges, edges])', 'H', 'edges given as arrays'],
    ['w, v = np.linalg.eigh(np.load("m.npy"))', 'w', 'a factorisation of an array of unknown shape'],
    ['res = np.linalg.eigh(np.load("m.npy"))', 'res', 'a tuple, not an array'],
    ['res = np.linalg.lstsq(np.load("m.npy"), b)', 'res', 'a tuple, not an array'],
    ['lab, n = ndi.label(img > 0.5, output=dt)', 'lab', 'an output= the analysis cannot tell a dtype or an array']
  ])('%s: %s is unknown (%s)', (code, name) => {
    const m = model(cellsOf(MORE, code));
    expect(m.valueAfter(name, m.cells[1]).kind).toBe('unknown');
  });

  it('an output= array takes the labels: only their count comes back', () => {
    const m = model(cellsOf(MORE, 'out = np.zeros((4096, 4096), dtype=np.int32)\nn = ndi.label(img > 0.5, output=out)'));
    expect(m.valueAfter('n', m.cells[1])).toMatchObject({ kind: 'scalar' });
  });

  it('lstsq in a cell is no longer refused: each item comes back, the rank as a NumPy scalar', () => {
    const { suggestion, refusals } = target(cellsOf(MORE, 'beta, res, rank, sv = np.linalg.lstsq(A, b, rcond=None)\nfit = A @ beta', 'print(rank, beta[:3], res, sv.max(), fit[:3])'));
    expect(refusals).toEqual([]);
    expect(suggestion?.candidate).toContain('beta, res, rank, sv = cp.linalg.lstsq(A_gpu, b_gpu, rcond=None)');
    expect(suggestion?.candidate).toMatch(/^beta = cp\.asnumpy\(beta\)$/m);
    expect(suggestion?.candidate).toMatch(/^rank = rank\.get\(\)\[\(\)\]$/m);
  });
});

function target(cells: CellInput[], index = 1) {
  const r = analyzeNotebook(cells);
  return {
    suggestion: r.suggestions.find(s => s.cellIndex === index),
    refusals: r.refusals.filter(x => x.cellIndex === index).map(x => x.reason)
  };
}

describe('the per-cell rewrite brings unpacked arrays back', () => {
  it('each array a later cell reads, and a 0-d result as NumPy scalar', () => {
    const { suggestion } = target(cellsOf(SETUP, 'w, v = np.linalg.eigh(S4)\nsign, logdet = np.linalg.slogdet(S4)', 'print(w[:3], v.shape, sign, logdet)'));
    expect(suggestion?.candidate).toContain('w, v = cp.linalg.eigh(S4_gpu)');
    expect(suggestion?.candidate).toMatch(/^w = cp\.asnumpy\(w\)$/m);
    expect(suggestion?.candidate).toMatch(/^v = cp\.asnumpy\(v\)$/m);
    expect(suggestion?.candidate).toMatch(/^sign = sign\.get\(\)\[\(\)\]$/m);
    expect(suggestion?.candidate).toMatch(/^logdet = logdet\.get\(\)\[\(\)\]$/m);
  });

  it("SciPy's labels come back; their count (a Python int) stays as it is", () => {
    const { suggestion } = target(cellsOf(SETUP, 'labels, n = ndi.label(img > 0.5)', 'print(n, labels.max())'));
    expect(suggestion?.candidate).toContain('labels, n = cupyx.scipy.ndimage.label(img_gpu > 0.5)');
    expect(suggestion?.candidate).toMatch(/^labels = cp\.asnumpy\(labels\)$/m);
    expect(suggestion?.candidate).not.toMatch(/^n = /m);
  });
});

it('says that eigenvectors may come out with other signs (the A/B check compares real ones up to sign)', () => {
  const { suggestion } = target(cellsOf(SETUP, 'w, v = np.linalg.eigh(S4)', 'print(w[:3], v[0])'));
  expect(suggestion?.notes.join('\n')).toMatch(/unique only up to each vector's sign.*for `np\.linalg\.eigh`\. The A\/B results check compares real vectors up to each column's/);
  const plain = target(cellsOf(SETUP, 'counts, edges = np.histogram(a, bins=100)', 'print(counts)'));
  expect(plain.suggestion?.notes.join('\n')).not.toMatch(/sign/);
});

describe('values the rewrite could not bring back refuse the cell', () => {
  it.each([
    ['res = np.linalg.eigh(S4)', 'print(res)', /`res` holds the tuple `np\.linalg\.eigh\(S4\)` returns.*cell 2 reads it/],
    ['b = np.percentile(a, [5, 95])\nlo, hi = b', 'print(lo, hi)', /`lo` is unpacked from `b`.*cell 2 reads it/]
  ])('%s, read later by %s', (code, later, reason) => {
    const { suggestion, refusals } = target(cellsOf(SETUP, code, later));
    expect(suggestion).toBeUndefined();
    expect(refusals.join('\n')).toMatch(reason);
  });

  it('host code in the same cell reading one refuses it too', () => {
    const { suggestion, refusals } = target(cellsOf(SETUP + '\nimport pandas as pd', 'b = np.percentile(a, [5, 95])\nlo, hi = b\ndf = pd.DataFrame({"lo": [lo]})'));
    expect(suggestion).toBeUndefined();
    expect(refusals.join('\n')).toMatch(/`lo` is unpacked .*host code in this cell reads it/);
  });

  it.each([
    'h, w = y.shape',
    'sh = y.shape',
    'rows = y.shape[0]',
    'd = y.dtype',
    'title = str(y.max())',
    'kind = type(y)',
    'cfg = dict(n=int(y.size))',
    'r = {"m": float(y.mean())}',
    'lo, hi = [y.min(), y.max()]',
    'fig = plt.figure()\nim = plt.imshow(y)'
  ])('host values made from device arrays are no such value: %s', code => {
    const { suggestion, refusals } = target(cellsOf(SETUP + '\nimport matplotlib.pyplot as plt', `y = np.sqrt(img) * 2.0 + np.sin(img)\n${code}`, 'print(h, w, sh, rows, d, title, kind, cfg, r, lo, hi, im)'));
    expect(refusals.join('\n')).not.toMatch(/with arrays among its items|does not know|does not model/);
    expect(suggestion).toBeDefined();
  });

  it.each([
    ['first, *rest = np.linalg.eigh(S4)', 'first', /`first` is unpacked from `np\.linalg\.eigh\(S4\)`/],
    ['vals, inv = np.unique(img, return_inverse=True)', 'inv', /`inv` is unpacked from `np\.unique/],
    ['c = ndi.center_of_mass(img, (img > 0.5).astype(np.int32), [1])', 'c', /`c` holds what `ndi\.center_of_mass/]
  ])('%s, %s read later: refused', (code, name, reason) => {
    const { suggestion, refusals } = target(cellsOf(SETUP, code, `print(${name})`));
    expect(suggestion).toBeUndefined();
    expect(refusals.join('\n')).toMatch(reason);
  });

  it("a histogram's bin rule (`bins='auto'`) refuses the cell: CuPy takes no rule names", () => {
    const { suggestion, refusals } = target(cellsOf(SETUP, 'counts, edges = np.histogram(a, bins="auto")', 'print(counts, edges)'));
    expect(suggestion).toBeUndefined();
    expect(refusals.join('\n')).toMatch(/bins="auto".*not a rule's name/);
  });

  it('is no obstacle when nothing reads the value after the cell', () => {
    const { suggestion, refusals } = target(cellsOf(SETUP, 'lo, hi = np.percentile(a, [5, 95])\ny = np.sqrt(a) * 2.0 + 1.0'));
    expect(refusals.join('\n')).not.toMatch(/unpacked/);
    expect(suggestion?.candidate).toContain('cp.percentile');
  });

  it('a host list made from device data (`.tolist()`) is not such a value', () => {
    const { suggestion } = target(cellsOf(SETUP, 't = np.sort(a).tolist()', 'print(t[:3])'));
    expect(suggestion?.candidate).toContain('t = cp.sort(a_gpu).tolist()');
  });
});

describe('quantiles unpacked into names', () => {
  it('read later or by host code: unpacked from the pair\'s host copy, once, NumPy scalars as NumPy gives', () => {
    const later = target(cellsOf(SETUP, 'lo, hi = np.percentile(a, [5, 95])', 'print(lo, hi)'));
    expect(later.refusals).toEqual([]);
    expect(later.suggestion?.candidate).toContain('lo, hi = cp.percentile(a_gpu, [5, 95]).get()');
    // (the names are host values: no copy of each at the end)
    expect(later.suggestion?.candidate).not.toMatch(/^(lo|hi) = /m);
    const pandas = target(cellsOf(SETUP + '\nimport pandas as pd', 'lo, hi = np.percentile(k, [5, 95])\ndf = pd.DataFrame({"lo": [lo], "hi": [hi]})'));
    expect(pandas.suggestion?.candidate).toContain('lo, hi = cp.percentile(k_gpu, [5, 95]).get()\ndf = pd.DataFrame({"lo": [lo], "hi": [hi]})');
    const negated = target(cellsOf(SETUP, 'v99, v95 = -np.quantile(A, [0.01, 0.05])\nprint(f"{v99:.3%} {v95:.3%}")'));
    expect(negated.suggestion?.candidate).toContain('v99, v95 = (-cp.quantile(A_gpu, [0.01, 0.05])).get()');
  });

  it('read by device work only: 0-d device arrays, no copy', () => {
    const { suggestion } = target(cellsOf(SETUP, 'lo, hi = np.percentile(a, [5, 95])\ny = np.clip(a, lo, hi) * 2.0 + 1.0', 'print(y[:3])'));
    expect(suggestion?.candidate).toMatch(/^lo, hi = cp\.percentile\(a_gpu, \[5, 95\]\)$/m);
    expect(suggestion?.candidate).not.toContain('.get()');
    expect(suggestion?.candidate).not.toMatch(/asnumpy\((lo|hi)\)/);
  });
});

describe('whole-notebook plan', () => {
  it('keeps unpacked labels on the device for cupyx measurements, and brings them back for host code', () => {
    const plan = rewriteNotebook(
      cellsOf(
        SETUP,
        'mask = img > 0.5\nlabels, n = ndi.label(mask)\nprint(n)',
        'sizes = ndi.sum(mask, labels, range(1, n + 1))\nprint(sizes.max())',
        'np.save("labels.npy", labels)'
      )
    );
    expect(plan.gpuCells).toEqual(expect.arrayContaining([1, 2]));
    // cupyx's measurements take the labels to measure as a CuPy array (SciPy: any sequence)
    expect(plan.cells[2].source).toContain('cupyx.scipy.ndimage.sum(mask.astype(cp.int32), labels, cp.asarray(range(1, n + 1)))');
    expect(plan.cells[3].source).toBe('np.save("labels.npy", cp.asnumpy(labels))');
  });
});

describe("cupyx measurements' index and input", () => {
  it.each([
    ['ndi.sum(img, lab, range(1, 4))', 'cupyx.scipy.ndimage.sum(img_gpu, lab_gpu, cp.asarray(range(1, 4)))'],
    ['ndi.mean(img, lab, index=[1, 2, 3])', 'cupyx.scipy.ndimage.mean(img_gpu, lab_gpu, index=cp.asarray([1, 2, 3]))'],
    ['ndi.maximum(img, lab, 2)', 'cupyx.scipy.ndimage.maximum(img_gpu, lab_gpu, 2)'],
    ['ndi.sum(img, lab, np.arange(1, 4))', 'cupyx.scipy.ndimage.sum(img_gpu, lab_gpu, cp.arange(1, 4))'],
    ['ndi.sum(img, lab)', 'cupyx.scipy.ndimage.sum(img_gpu, lab_gpu)'],
    // inputs cupyx's fast kernels do not take: widened exactly (bools, small ints) or as SciPy sums (int64)
    ['ndi.sum(img > 0.5, lab, range(1, 4))', 'cupyx.scipy.ndimage.sum((img_gpu > 0.5).astype(cp.int32), lab_gpu, cp.asarray(range(1, 4)))'],
    ['ndi.mean(lab, lab, [1, 2])', 'cupyx.scipy.ndimage.mean(lab_gpu.astype(cp.float64), lab_gpu, cp.asarray([1, 2]))'],
    ['ndi.maximum(img > 0.5, lab, [1, 2])', 'cupyx.scipy.ndimage.maximum(img_gpu > 0.5, lab_gpu, cp.asarray([1, 2]))'],
    // SciPy sums int64 as int64 over one label: not widened there
    ['ndi.sum(lab, lab, 2)', 'cupyx.scipy.ndimage.sum(lab_gpu, lab_gpu, 2)'],
    ['ndi.sum(lab, lab, [1, 2])', 'cupyx.scipy.ndimage.sum(lab_gpu.astype(cp.float64), lab_gpu, cp.asarray([1, 2]))']
  ])('%s -> %s', (code, expected) => {
    const { suggestion } = target(cellsOf(SETUP + '\nlab = np.random.randint(0, 4, (4096, 4096))', `s = ${code}`, 'print(s)'));
    expect(suggestion?.candidate).toContain(`s = ${expected}`);
  });
});

describe('arrays joined from a list (checked against NumPy 2.4)', () => {
  const JOIN_SETUP = ['import numpy as np', 'a = np.zeros(5)', 'b = np.zeros(5, dtype=np.float32)', 'm = np.zeros((3, 4))', 'n = np.zeros((2, 4))', 'i = np.zeros(5, dtype=np.int32)'].join('\n');
  it.each([
    ['np.concatenate([a, b])', [10], 'float64'],
    ['np.concatenate([m, n])', [5, 4], 'float64'],
    ['np.concatenate([m, m], axis=1)', [3, 8], 'float64'],
    ['np.concatenate([m, n], axis=None)', [20], 'float64'],
    ['np.stack([a, a], axis=1)', [5, 2], 'float64'],
    ['np.stack([m, m])', [2, 3, 4], 'float64'],
    ['np.stack([m, m], axis=-1)', [3, 4, 2], 'float64'],
    ['np.vstack([a, a])', [2, 5], 'float64'],
    ['np.vstack([m, n])', [5, 4], 'float64'],
    ['np.hstack([a, a])', [10], 'float64'],
    ['np.hstack([m, m])', [3, 8], 'float64'],
    ['np.column_stack([a, a])', [5, 2], 'float64'],
    ['np.dstack([a, a])', [1, 5, 2], 'float64'],
    ['np.dstack([m, m])', [3, 4, 2], 'float64'],
    ['np.stack([i, b])', [2, 5], 'float64']
  ])('%s: shape %j, %s', (code, shape, dtype) => {
    const m = model(cellsOf(JOIN_SETUP, `r = ${code}`));
    expect(m.valueAfter('r', m.cells[1])).toMatchObject({ kind: 'ndarray', shape, dtype });
  });

  it('items of shapes that do not join give only an upper bound on the size', () => {
    const m = model(cellsOf(JOIN_SETUP, 'r = np.stack([m, n])'));
    expect(m.valueAfter('r', m.cells[1])).toMatchObject({ kind: 'ndarray', size: 20, approx: true });
  });
});

// Each expectation below was written from NumPy 2.4.6 running the same code here
describe('grids and flat indices unpacked (items as NumPy returns them)', () => {
  const GRIDS = ['import numpy as np', 'N = 2048', 'c = np.random.default_rng(0).random((2048, 1024))', 'flat = np.arange(10)'].join('\n');
  const cases: [string, string, string, { shape?: (number | null)[]; dtype?: string; kind?: string }][] = [
    ['yy, xx = np.mgrid[0:N, 0:N]', 'yy', 'the first axis’ positions, dense', { shape: [2048, 2048], dtype: 'int64' }],
    ['yy, xx = np.mgrid[0:N, 0:N]', 'xx', 'the second axis’ positions, dense', { shape: [2048, 2048], dtype: 'int64' }],
    ['y, x = np.mgrid[-1:1:100j, -1:1:200j]', 'x', 'a complex step counts points: float64', { shape: [100, 200], dtype: 'float64' }],
    ['y, x = np.mgrid[0:1:0.5, 0:3]', 'y', 'a float step: float64', { shape: [2, 3], dtype: 'float64' }],
    ['yo, xo = np.ogrid[0:N, 0:512]', 'yo', 'an open grid: a column', { shape: [2048, 1], dtype: 'int64' }],
    ['yo, xo = np.ogrid[0:N, 0:512]', 'xo', 'an open grid: a row', { shape: [1, 512], dtype: 'int64' }],
    ['r, k = np.indices((N, 16))', 'k', 'np.indices’ second item', { shape: [2048, 16], dtype: 'int64' }],
    ['pi, pj = np.unravel_index(np.argmax(c), c.shape)', 'pi', 'one flat index: a NumPy int64 (0-d)', { shape: [], dtype: 'int64' }],
    ['pi, pj = np.unravel_index(7, (3, 4))', 'pj', 'a Python int index: a NumPy int64 (0-d)', { shape: [], dtype: 'int64' }],
    ['pi, pj = np.unravel_index(flat, (3, 4))', 'pi', 'an array of indices: arrays of its shape', { shape: [10], dtype: 'int64' }]
  ];
  it.each(cases)('%s: %s is %s', (code, name, _what, expected) => {
    const m = model(cellsOf(GRIDS, code));
    const v = m.valueAfter(name, m.cells[1]);
    expect(v).toMatchObject({ kind: expected.kind ?? 'ndarray', ...(expected.shape ? { shape: expected.shape } : {}), ...(expected.dtype ? { dtype: expected.dtype } : {}) });
  });

  it('np.unravel_index gives as many items as the shape has axes', () => {
    const m = model(cellsOf(GRIDS, 'res = np.unravel_index(np.argmax(c), c.shape)'));
    expect(m.valueAfter('res', m.cells[1]).elements).toHaveLength(2);
  });

  it.each([
    // the rows of a named array are views of it: not modelled (the rules would have to alias them)
    ['g = np.mgrid[0:N, 0:N]\nyy, xx = g', 'yy'],
    ['top, rest = c[:2]', 'top'],
    // more names than the grid has rows: a ValueError
    ['a1, a2, a3 = np.mgrid[0:N, 0:N]', 'a1'],
    ['pi, pj = np.unravel_index(1.5, (3, 4))', 'pi']
  ])('%s: %s is unknown', (code, name) => {
    const m = model(cellsOf(GRIDS, code));
    expect(m.valueAfter(name, m.cells[1]).kind).toBe('unknown');
  });

  it('the radial profile of an mgrid image is a 1-D float64 array', () => {
    const cells = cellsOf(GRIDS, 'yy, xx = np.mgrid[0:N, 0:N]\nimg = np.exp(-((yy - 1000.0) ** 2 + (xx - 900.0) ** 2) / 5000.0)\nr = np.hypot(yy - N // 2, xx - N // 2).astype(int)\nradial = np.bincount(r.ravel(), weights=img.ravel()) / np.bincount(r.ravel())');
    const m = model(cells);
    expect(m.valueAfter('img', m.cells[1])).toMatchObject({ kind: 'ndarray', shape: [2048, 2048], dtype: 'float64' });
    expect(m.valueAfter('radial', m.cells[1])).toMatchObject({ kind: 'ndarray', shape: [null], dtype: 'float64' });
  });
});
