/**
 * Value inference (NotebookModel.inferValue): basic-slice shapes, fancy and boolean indexing,
 * argsort, NumPy scalar constructors, imaginary literals, NumPy 2 (NEP 50) result dtypes of binary
 * operators, and single arrays NumPy functions return (order statistics, diag, solve, grids...). Every expectation
 * was checked against NumPy 2.4 (the shape, dtype and type of the same expression).
 */
import type { NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import type { CellInput, RuntimeValueInfo } from '../../src/analysis/types';
import { describeArray, promoteTypes, promoteWeak } from '../../src/analysis/values';
import { cellsOf, parser, notebookModel } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

function model(cells: CellInput[]): NotebookModel {
  return notebookModel(p, cells);
}

const SETUP = [
  'import numpy as np',
  'p = np.zeros((2050, 2050), dtype=np.float32)',
  'a = np.zeros(10)',
  'b = np.zeros((4, 5, 6), dtype=np.float32)',
  'f32 = np.ones(1000, dtype=np.float32)',
  'i64 = np.arange(1000)',
  'N = 3',
  'c = np.zeros((2050, 2050), dtype=np.float32)[1:-1, 1:-1].copy()'
].join('\n');

/** The value of each expression, written as `r0 = <expr>` ... in a second cell. */
function values(exprs: string[]) {
  const m = model(cellsOf(SETUP, exprs.map((e, i) => `r${i} = ${e}`).join('\n')));
  const cell = m.cells[1];
  return exprs.map((_, i) => m.valueAfter(`r${i}`, cell));
}

describe('basic slicing', () => {
  it('gives the exact shape and keeps the dtype', () => {
    const cases: [string, (number | null)[], string][] = [
      ['p[1:-1, 1:-1]', [2048, 2048], 'float32'],
      ['a[2:]', [8], 'float64'],
      ['p[:, 0]', [2050], 'float32'],
      ['a[::2]', [5], 'float64'],
      ['a[1:-1]', [8], 'float64'],
      ['b[..., 0]', [4, 5], 'float32'],
      ['b[None]', [1, 4, 5, 6], 'float32'],
      ['a[-3:]', [3], 'float64'],
      ['a[:-12]', [0], 'float64'],
      ['a[::-3]', [4], 'float64'],
      ['a[8:2:-2]', [3], 'float64'],
      ['b[1:, ..., ::2]', [3, 5, 3], 'float32'],
      ['b[0, 0]', [6], 'float32'],
      ['b[:, None, 1]', [4, 1, 6], 'float32'],
      ['a[()]', [10], 'float64'],
      ['a[...]', [10], 'float64'],
      ['a[N:]', [7], 'float64'],
      ['a[N:None]', [7], 'float64'],
      ['p[1:-1, 1:-1].copy()', [2048, 2048], 'float32'],
      ['c', [2048, 2048], 'float32']
    ];
    const vs = values(cases.map(c => c[0]));
    cases.forEach(([expr, shape, dtype], i) => {
      expect({ expr, kind: vs[i].kind, shape: vs[i].shape, dtype: vs[i].dtype }).toEqual({ expr, kind: 'ndarray', shape, dtype });
      expect(vs[i].size).toBe(shape.reduce((x, y) => (x ?? 0) * (y ?? 0), 1));
      expect(vs[i].approx).toBeUndefined();
    });
  });

  it('keeps a dimension it cannot work out unknown, and the rank', () => {
    const [v] = values(['p[1:k, 2:]']);
    expect(v).toMatchObject({ kind: 'ndarray', shape: [null, 2048], dtype: 'float32' });
    expect(v.size).toBeUndefined();
  });

  it('gives a NumPy scalar for an element', () => {
    const vs = values(['b[0, 0, 0]', 'a[(1,)]']);
    for (const v of vs) {
      expect(v).toMatchObject({ kind: 'scalar', library: 'numpy' });
    }
    expect(vs.map(v => v.dtype)).toEqual(['float32', 'float64']);
  });

  it('leaves unreadable indices as before: at most the array’s size', () => {
    const vs = values(['a[True]', 'a[idx]', 'a[0, 0]', 'a[10]', 'a[1.5:]']);
    for (const v of vs) {
      expect(v).toMatchObject({ kind: 'ndarray', dtype: 'float64', shape: undefined, approx: true });
    }
  });

  it('sizes fancy indexing by the index (a list of ints) and a mask by one axis of unknown length', () => {
    const [list, mask] = values(['a[[1, 2]]', 'a[a > 0]']);
    expect(list).toMatchObject({ kind: 'ndarray', dtype: 'float64', shape: [2], size: 2 });
    expect(list.approx).toBeUndefined();
    expect(mask).toMatchObject({ kind: 'ndarray', dtype: 'float64', shape: [null], size: 10, approx: true });
  });
});

describe('NumPy scalars and Python numbers', () => {
  it('np.float32(x), np.single, np.float64, np.double make NumPy scalars of that dtype', () => {
    const vs = values(['np.float32(0.2)', 'np.single(N)', 'np.float64(0.1)', 'np.double(2)', 'np.float32(-0.5)', '-np.float32(0.5)']);
    expect(vs.map(v => [v.kind, v.dtype, v.library])).toEqual([
      ['scalar', 'float32', 'numpy'],
      ['scalar', 'float32', 'numpy'],
      ['scalar', 'float64', 'numpy'],
      ['scalar', 'float64', 'numpy'],
      ['scalar', 'float32', 'numpy'],
      ['scalar', 'float32', 'numpy']
    ]);
    // no value: a Python number is what carries one (fusion.ts's scalarKind reads it so)
    expect(vs.every(v => v.value === undefined)).toBe(true);
  });

  it('a NumPy scalar bound in one cell is one in the next', () => {
    const m = model(cellsOf('import numpy as np\ns = np.float32(0.2)', 'v = s * 2.0\nw = s * np.float64(2)\nx = np.float32(2) / 2'));
    const cell = m.cells[1];
    expect(m.valueBefore('s', cell, 0)).toMatchObject({ kind: 'scalar', dtype: 'float32', library: 'numpy' });
    expect(m.valueAfter('v', cell)).toMatchObject({ kind: 'scalar', dtype: 'float32', library: 'numpy' });
    expect(m.valueAfter('w', cell)).toMatchObject({ kind: 'scalar', dtype: 'float64', library: 'numpy' });
    expect(m.valueAfter('x', cell)).toMatchObject({ kind: 'scalar', dtype: 'float32', library: 'numpy' });
  });

  it('np.float32(array) is the array converted', () => {
    const [v] = values(['np.float32(a)']);
    expect(v).toMatchObject({ kind: 'ndarray', shape: [10], dtype: 'float32' });
  });

  it('imaginary literals are Python complex numbers', () => {
    const vs = values(['2j', '2.5J', '1e3j', '-1j', '1 + 2j']);
    for (const v of vs) {
      expect(v).toMatchObject({ kind: 'scalar', dtype: 'complex128' });
      expect(v.value).toBeUndefined();
      expect(v.library).toBeUndefined();
    }
    expect(values(['2'])[0]).toMatchObject({ kind: 'scalar', dtype: 'int64', value: 2 });
  });
});

describe('binary operators follow NumPy 2 (NEP 50)', () => {
  it('arrays with NumPy scalars (strong) and Python complex numbers', () => {
    const cases: [string, string][] = [
      ['f32 * np.float64(0.5)', 'float64'],
      ['f32 * 1j', 'complex64'],
      ['i64 * 1j', 'complex128'],
      ['f32 * np.float32(0.5)', 'float32'],
      ['i64 * np.float32(2)', 'float64'],
      ['np.multiply(f32, np.float64(2))', 'float64']
    ];
    const vs = values(cases.map(c => c[0]));
    cases.forEach(([expr, dtype], i) => expect({ expr, dtype: vs[i].dtype }).toEqual({ expr, dtype }));
  });

  it('arrays with arrays and Python numbers (weak)', () => {
    const cases: [string, string][] = [
      ['f32 * 0.5', 'float32'],
      ['0.5 * f32', 'float32'],
      ['i64 * 1.5', 'float64'],
      ['f32 * 2', 'float32'],
      ['i64 * 2', 'int64'],
      ['i64 / 2', 'float64'],
      ['f32 / 2', 'float32'],
      ['f32 + i64', 'float64'],
      ['f32 > 0.5', 'bool'],
      ['np.multiply(f32, 2.0)', 'float32'],
      ['np.where(f32 > 0, f32, 0.0)', 'float32'],
      ['np.where(f32 > 0, 1, 0)', 'int64']
    ];
    const vs = values(cases.map(c => c[0]));
    cases.forEach(([expr, dtype], i) => expect({ expr, dtype: vs[i].dtype }).toEqual({ expr, dtype }));
  });

  it('broadcasts known shapes', () => {
    const vs = values(['a[:, None] * a[None, :]', 'b + b[0]', 'np.zeros((4, 1, 3)) + np.zeros((5, 1))']);
    expect(vs.map(v => v.shape)).toEqual([
      [10, 10],
      [4, 5, 6],
      [4, 5, 3]
    ]);
    expect(vs[0].size).toBe(100);
  });

  it('promoteTypes and promoteWeak match np.promote_types and NEP 50', () => {
    expect(promoteTypes('int32', 'uint32')).toBe('int64');
    expect(promoteTypes('uint64', 'int8')).toBe('float64');
    expect(promoteTypes('int8', 'uint8')).toBe('int16');
    expect(promoteTypes('uint8', 'float16')).toBe('float16');
    expect(promoteTypes('int16', 'float16')).toBe('float32');
    expect(promoteTypes('int32', 'float32')).toBe('float64');
    expect(promoteTypes('complex64', 'float64')).toBe('complex128');
    expect(promoteTypes('int16', 'complex64')).toBe('complex64');
    expect(promoteTypes('int32', 'complex64')).toBe('complex128');
    expect(promoteTypes('bool', 'float32')).toBe('float32');
    expect(promoteTypes('str', 'float32')).toBeUndefined();
    expect(promoteWeak('bool', 'int')).toBe('int64');
    expect(promoteWeak('uint8', 'int')).toBe('uint8');
    expect(promoteWeak('int8', 'float')).toBe('float64');
    expect(promoteWeak('float16', 'float')).toBe('float16');
    expect(promoteWeak('float16', 'complex')).toBe('complex64');
    expect(promoteWeak('complex64', 'complex')).toBe('complex64');
  });
});

describe('ufuncs of numbers and reductions (dtypes as NumPy 2.4 gives them)', () => {
  it('a ufunc of numbers is a NumPy scalar, strong in what follows', () => {
    const cases: [string, string, string][] = [
      ['np.exp(2.0)', 'scalar', 'float64'],
      ['np.exp(2.0) * f32', 'ndarray', 'float64'],
      ['np.sqrt(4) * f32', 'ndarray', 'float64'],
      ['np.exp(2.0) * i64', 'ndarray', 'float64'],
      ['np.sqrt(np.float32(4)) * f32', 'ndarray', 'float32'],
      ['np.add(1, 2)', 'scalar', 'int64'],
      ['np.greater(1, 2)', 'scalar', 'bool'],
      ['np.maximum(1, 2.5)', 'scalar', 'float64'],
      ['np.abs(-3)', 'scalar', 'int64']
    ];
    const vs = values(cases.map(c => c[0]));
    cases.forEach(([expr, kind, dtype], i) => expect({ expr, kind: vs[i].kind, dtype: vs[i].dtype }).toEqual({ expr, kind, dtype }));
    expect(vs[0].library).toBe('numpy');
  });

  it('reductions give NumPy\'s dtype: counts and indices int64, all/any bool, means float, small-integer sums int64', () => {
    const cases: [string, string][] = [
      ['np.count_nonzero(f32)', 'int64'],
      ['np.count_nonzero(f32) * f32', 'float64'],
      ['np.argmax(f32)', 'int64'],
      ['np.any(f32 > 0)', 'bool'],
      ['np.sum(f32 > 0)', 'int64'],
      ['np.mean(i64)', 'float64'],
      ['f32.mean()', 'float32'],
      ['np.zeros(5, dtype=np.int32).sum()', 'int64'],
      ['np.allclose(f32, f32)', 'bool']
    ];
    const vs = values(cases.map(c => c[0]));
    cases.forEach(([expr, dtype], i) => expect({ expr, dtype: vs[i].dtype, shape: vs[i].shape }).toEqual({ expr, dtype, shape: expr.endsWith('* f32') ? [1000] : [] }));
  });
});

describe('argsort', () => {
  it('gives int64 positions shaped like its input, flattened by axis=None', () => {
    const cases: [string, number[]][] = [
      ['np.argsort(b)', [4, 5, 6]],
      ['b.argsort()', [4, 5, 6]],
      ['b.argsort(1)', [4, 5, 6]],
      ['np.argsort(p, 0)', [2050, 2050]],
      ['np.argsort(b, axis=None)', [120]],
      ['f32.argsort(axis=None)', [1000]]
    ];
    const vs = values(cases.map(c => c[0]));
    cases.forEach(([expr, shape], i) => expect({ expr, kind: vs[i].kind, dtype: vs[i].dtype, shape: vs[i].shape }).toEqual({ expr, kind: 'ndarray', dtype: 'int64', shape }));
  });
});

describe('sort', () => {
  it('gives its input\'s shape and dtype (sorted along an axis), flattened by axis=None', () => {
    const cases: [string, number[], string][] = [
      ['np.sort(b)', [4, 5, 6], 'float32'],
      ['np.sort(b, 0)', [4, 5, 6], 'float32'],
      ['np.sort(b, axis=None)', [120], 'float32'],
      ['np.sort(f32)', [1000], 'float32']
    ];
    const vs = values(cases.map(c => c[0]));
    cases.forEach(([expr, shape, dtype], i) => expect({ expr, kind: vs[i].kind, dtype: vs[i].dtype, shape: vs[i].shape, approx: vs[i].approx }).toEqual({ expr, kind: 'ndarray', dtype, shape, approx: undefined }));
  });
});

describe('CuPy values', () => {
  it('cp.asnumpy makes a NumPy array on the host of the same shape and dtype; kernel makers make callables', () => {
    const m = model(
      cellsOf(
        'import numpy as np\nimport cupy as cp\nx = np.zeros((100, 3), dtype=np.float32)',
        'd = cp.asarray(x)\nh = cp.asnumpy(d)\nk = cp.ElementwiseKernel("float32 x", "float32 y", "y = x", "k")\nr = cp.RawKernel("", "f")\n' +
          'mod = cp.RawModule(code="")\ng = mod.get_function("g")'
      )
    );
    const cell = m.cells[1];
    expect(m.valueAfter('d', cell)).toMatchObject({ kind: 'ndarray', shape: [100, 3], dtype: 'float32', library: 'cupy', device: 'gpu' });
    expect(m.valueAfter('h', cell)).toMatchObject({ kind: 'ndarray', shape: [100, 3], dtype: 'float32', library: 'numpy', device: 'host' });
    expect(m.valueAfter('k', cell)).toMatchObject({ kind: 'function', library: 'cupy' });
    expect(m.valueAfter('r', cell)).toMatchObject({ kind: 'function', library: 'cupy' });
    expect(m.valueAfter('mod', cell)).toMatchObject({ kind: 'module', library: 'cupy' });
    expect(m.valueAfter('g', cell)).toMatchObject({ kind: 'function', library: 'cupy' });
  });
});

describe('single arrays NumPy returns (shapes and dtypes written from NumPy 2.4 running the same expressions)', () => {
  const ARRAYS = [
    'import numpy as np',
    'X = np.zeros((200, 32))',
    'Xf = np.zeros((200, 32), dtype=np.float32)',
    'Xi = np.zeros((200, 32), dtype=np.int32)',
    'Xc = np.zeros((200, 32), dtype=np.complex64)',
    'v = np.zeros(200)',
    'row = np.zeros((1, 32))',
    'f32 = np.ones(1000, dtype=np.float32)',
    'bits = np.zeros(1000, dtype=bool)',
    'M = np.zeros((4, 5))',
    'n = 4096',
    'S = np.abs(np.fft.rfft(v))',
    'D = np.zeros((50, 20, 8))',
    'L = np.zeros((8, 8))',
    'w = np.zeros(8)',
    'I32 = np.zeros((3, 3), dtype=np.int32)'
  ].join('\n');
  const cases: [string, number[], string][] = [
    // the variables are rows (rowvar=True) or columns; float64 whatever the data, complex128 for complex
    ['np.cov(X)', [200, 200], 'float64'],
    ['np.cov(X, rowvar=False)', [32, 32], 'float64'],
    ['np.cov(Xf, rowvar=False)', [32, 32], 'float64'],
    ['np.cov(Xi, rowvar=False)', [32, 32], 'float64'],
    ['np.cov(Xc, rowvar=False)', [32, 32], 'complex128'],
    ['np.cov(X, None, False)', [32, 32], 'float64'],
    ['np.cov(Xf, rowvar=False, dtype=np.float32)', [32, 32], 'float32'],
    // one variable: NumPy squeezes the 1 x 1 matrix to a 0-d array
    ['np.cov(v)', [], 'float64'],
    ['np.cov(row)', [], 'float64'],
    // y's variables stack after m's
    ['np.cov(v, v)', [2, 2], 'float64'],
    ['np.cov(X, v, rowvar=False)', [33, 33], 'float64'],
    ['np.corrcoef(X, rowvar=False)', [32, 32], 'float64'],
    ['np.corrcoef(Xf[:, :8], rowvar=False)', [8, 8], 'float64'],
    ['np.corrcoef(v, v)', [2, 2], 'float64'],
    ['np.fft.rfftfreq(n, d=1e-3)', [2049], 'float64'],
    ['np.fft.fftfreq(n)', [4096], 'float64'],
    ['np.fft.rfftfreq(11)', [6], 'float64'],
    ['np.fft.fftfreq(11, 0.5)', [11], 'float64'],
    ['np.diff(f32)', [999], 'float32'],
    ['np.diff(bits)', [999], 'bool'],
    ['np.diff(M)', [4, 4], 'float64'],
    ['np.diff(M, axis=0)', [3, 5], 'float64'],
    ['np.diff(M, 2, 0)', [2, 5], 'float64'],
    ['np.diff(M, axis=-2)', [3, 5], 'float64'],
    ['np.diff(f32, n=2000)', [0], 'float32'],
    // what is prepended or appended becomes an array (a Python int: int64) and promotes
    ['np.diff(f32, prepend=0)', [1000], 'float64'],
    ['np.diff(f32, append=np.float32(0))', [1000], 'float32'],
    ['np.diff(f32, prepend=0.0, append=0.0)', [1001], 'float64'],
    // a list of numbers in a join is an array of NumPy's default dtype for them
    ['np.concatenate(([0.0], f32))', [1001], 'float64'],
    ['np.concatenate(([0], bits))', [1001], 'int64'],
    ['np.diff(np.concatenate(([0.0], f32)))', [1000], 'float64'],
    ['np.hstack([[1, 2], f32])', [1002], 'float64'],
    // a 0-d integer array indexes as an integer does: an element
    ['M[np.argmax(v[:4])]', [5], 'float64'],
    // matmul broadcasts the axes before the last two as a stack of matrices; a vector's axis
    // is dropped; the operands' dtypes promote
    ['D @ L', [50, 20, 8], 'float64'],
    ['D @ w', [50, 20], 'float64'],
    ['w @ L', [8], 'float64'],
    ['np.matmul(np.zeros((2, 1, 4, 3)), np.zeros((5, 3, 6)))', [2, 5, 4, 6], 'float64'],
    ['I32 @ I32', [3, 3], 'int32'],
    ['I32 @ np.zeros((3, 2), np.float32)', [3, 2], 'float64'],
    // np.dot keeps a's axes but the last, then b's but its second-to-last
    ['np.dot(D, w)', [50, 20], 'float64'],
    ['np.dot(D, np.zeros((2, 8, 7)))', [50, 20, 2, 7], 'float64'],
    ['np.dot(w, L)', [8], 'float64'],
    // reductions over an axis (or several), kept as 1 with keepdims
    ['D.sum(axis=1)', [50, 8], 'float64'],
    ['D.std(1)', [50, 8], 'float64'],
    ['np.mean(D, axis=(0, 2))', [20], 'float64'],
    ['D.max(axis=-1, keepdims=True)', [50, 20, 1], 'float64'],
    ['np.sum(D, 1, keepdims=True)', [50, 1, 8], 'float64'],
    ['D.argmax(axis=0)', [20, 8], 'int64'],
    // scans keep the shape along an axis and flatten without one; small integers sum in int64
    ['Xi.cumsum()', [6400], 'int64'],
    ['np.cumsum(Xi, axis=1)', [200, 32], 'int64'],
    ['np.cumsum(bits)', [1000], 'int64'],
    ['np.cumprod(M, 0)', [4, 5], 'float64'],
    ['np.nancumsum(Xi)', [6400], 'int64'],
    // a ufunc's reduce (over the first axis by default) and accumulate
    ['np.maximum.accumulate(D, axis=1)', [50, 20, 8], 'float64'],
    ['np.add.accumulate(bits)', [1000], 'int64'],
    ['np.add.reduce(D)', [20, 8], 'float64'],
    ['np.add.reduce(Xi, axis=1)', [200], 'int64'],
    ['np.maximum.reduce(Xi, keepdims=True)', [1, 32], 'int32'],
    ['np.logical_or.reduce(D, axis=None)', [], 'bool'],
    // norms over an axis (a vector's) or two (a matrix's)
    ['np.linalg.norm(D, axis=-1)', [50, 20], 'float64'],
    ['np.linalg.norm(D, axis=(1, 2))', [50], 'float64'],
    ['np.linalg.norm(Xi, axis=0, keepdims=True)', [1, 32], 'float64'],
    // every element of one (flattened) against every element of the other
    ['np.outer(v, f32)', [200, 1000], 'float64']
  ];
  it.each(cases)('%s: shape %j, %s', (expr, shape, dtype) => {
    const m = model(cellsOf(ARRAYS, `r = ${expr}`));
    expect(m.valueAfter('r', m.cells[1])).toMatchObject({ kind: 'ndarray', shape, dtype });
  });

  it.each([
    // NumPy's number of a product of two vectors or of a reduction over every axis: modelled 0-d
    ['w @ w'],
    ['np.dot(w, w)'],
    ['np.sum(D, axis=None)']
  ])('%s: a number, modelled as the 0-d array CuPy returns', expr => {
    const m = model(cellsOf(ARRAYS, `r = ${expr}`));
    expect(m.valueAfter('r', m.cells[1])).toMatchObject({ kind: 'ndarray', shape: [], size: 1, dtype: 'float64' });
  });

  it.each([
    // one variable: np.corrcoef divides the 0-d covariance by itself, giving a NumPy scalar
    ['np.corrcoef(v)', 'float64'],
    ['np.corrcoef(row)', 'float64'],
    ['np.corrcoef(Xc[0])', 'complex128'],
    ['np.corrcoef(v, dtype=np.float32)', 'float32']
  ])('%s: a NumPy scalar (%s), not an array', (expr, dtype) => {
    const m = model(cellsOf(ARRAYS, `r = ${expr}`));
    expect(m.valueAfter('r', m.cells[1])).toEqual({ kind: 'scalar', dtype, origin: 'inferred', library: 'numpy' });
  });

  it("CuPy's corrcoef of one variable is a 0-d device array", () => {
    const m = model(cellsOf(`${ARRAYS}\nimport cupy as cp\nvg = cp.asarray(v)`, 'r = cp.corrcoef(vg)'));
    expect(m.valueAfter('r', m.cells[1])).toMatchObject({ kind: 'ndarray', shape: [], dtype: 'float64', library: 'cupy' });
  });

  it('an element picked by a 0-d integer index is a NumPy scalar (`freqs[np.argmax(S)]`)', () => {
    const m = model(cellsOf(ARRAYS, 'f = np.fft.rfftfreq(v.size)\npeak = f[np.argmax(S)]'));
    expect(m.valueAfter('peak', m.cells[1])).toMatchObject({ kind: 'scalar', dtype: 'float64', library: 'numpy' });
  });

  it.each([
    // NumPy keeps a single row as one variable with rowvar=False, CuPy transposes it (32 variables)
    ['np.cov(row, rowvar=False)', undefined],
    ['np.cov(X, rowvar=flag)', undefined],
    ['np.diff(M, axis=k)', undefined]
  ])('%s: shape %j (not known)', (expr, shape) => {
    const m = model(cellsOf(ARRAYS, `r = ${expr}`));
    const v = m.valueAfter('r', m.cells[1]);
    expect(v.kind).toBe('ndarray');
    expect(v.shape).toEqual(shape);
  });
});

// Each shape and dtype below was written from NumPy 2.4.6 running the same expression here
// (on smaller arrays of the same layout where the sizes only scale)
describe('order statistics, diag, solve, bincount, grids and fancy indexing', () => {
  const MORE = [
    'import numpy as np',
    'x = np.zeros((4, 2_000_000))',
    'a = np.zeros((5, 7))',
    'f = np.zeros((5, 7), dtype=np.float32)',
    'h = np.zeros(100, dtype=np.float16)',
    'i = np.arange(1000)',
    'N = 3000',
    'v = np.ones(N)',
    'vf = np.ones(N, dtype=np.float32)',
    'A = np.zeros((N, N))',
    'Af = np.zeros((N, N), dtype=np.float32)',
    'B = np.zeros((N, 4))',
    'S = np.zeros((8, N, N))',
    'lab = np.zeros(5_000_000, dtype=np.int64)',
    'w = np.ones(5_000_000)',
    'evals = np.ones(500)',
    'order = np.argsort(evals)[::-1]',
    'X = np.zeros((500, 16))',
    'rng = np.random.default_rng(0)',
    'idx = rng.choice(500, size=12)',
    'q = np.array([0.1, 0.9])'
  ].join('\n');
  const cases: [string, (number | null)[] | undefined, string | undefined][] = [
    // one q and no axis: a NumPy scalar (0-d); float data keep their dtype, integers give float64
    ['np.percentile(x[0], 99)', [], 'float64'],
    ['np.percentile(f, 99)', [], 'float32'],
    ['np.percentile(i, 50)', [], 'float64'],
    ['np.quantile(a, 0.5)', [], 'float64'],
    ['np.quantile(h, 0.5)', [], 'float16'],
    ['np.nanpercentile(a, 3)', [], 'float64'],
    ['np.median(a)', [], 'float64'],
    ['np.median(f)', [], 'float32'],
    ['np.median(i)', [], 'float64'],
    // a list (or array) of q: its shape first; it promotes with the data (float32 with int64)
    ['np.percentile(a, [5, 50, 95])', [3], 'float64'],
    ['np.percentile(f, [5, 50, 95])', [3], 'float64'],
    ['np.percentile(f, q)', [2], 'float64'],
    ['np.percentile(a, [[1, 2], [3, 4]])', [2, 2], 'float64'],
    ['np.percentile(f, np.float64(3))', [], 'float64'],
    // an axis: the data reduced over it, after q's shape
    ['np.percentile(a, [5, 50, 95], axis=0)', [3, 7], 'float64'],
    ['np.percentile(a, 50, axis=1)', [5], 'float64'],
    ['np.percentile(a, 50, 1)', [5], 'float64'],
    ['np.percentile(a, 50, axis=1, keepdims=True)', [5, 1], 'float64'],
    ['np.percentile(a, [1, 2], axis=(0, 1))', [2], 'float64'],
    ["np.percentile(a, 50, method='linear')", [], 'float64'],
    ['np.median(a, axis=0)', [7], 'float64'],
    ['np.median(a, 0)', [7], 'float64'],
    ['np.median(a, axis=-1)', [5], 'float64'],
    // diag of a vector: a square matrix with the values on diagonal k; of a matrix: the diagonal
    ['np.diag(v)', [3000, 3000], 'float64'],
    ['np.diag(np.ones(N - 1), 1)', [3000, 3000], 'float64'],
    ['np.diag(np.ones(N - 2), k=-2)', [3000, 3000], 'float64'],
    ['np.diag(vf)', [3000, 3000], 'float32'],
    ['np.diag(np.arange(3))', [3, 3], 'int64'],
    ['np.diag(a)', [5], 'float64'],
    ['np.diag(a, 2)', [5], 'float64'],
    ['np.diag(a, -3)', [2], 'float64'],
    ['np.diag(a, 9)', [0], 'float64'],
    ['np.diag(-2.0 * np.ones(N)) + np.diag(np.ones(N - 1), 1) + np.diag(np.ones(N - 1), -1)', [3000, 3000], 'float64'],
    // solve: b's shape (a 1-D b is one vector); float32 where both are, else float64
    ['np.linalg.solve(A, v)', [3000], 'float64'],
    ['np.linalg.solve(A, B)', [3000, 4], 'float64'],
    ['np.linalg.solve(Af, vf)', [3000], 'float32'],
    ['np.linalg.solve(Af, v)', [3000], 'float64'],
    ['np.linalg.solve(np.diag(np.arange(1, 4)), np.arange(3))', [3], 'float64'],
    ['np.linalg.solve(A + 0j, v)', [3000], 'complex128'],
    ['np.linalg.solve(S, v)', [8, 3000], 'float64'],
    ['np.linalg.inv(A)', [3000, 3000], 'float64'],
    ['np.linalg.inv(Af)', [3000, 3000], 'float32'],
    // bincount: a length the data decide; float64 sums of weights, int64 counts
    ['np.bincount(lab, weights=w)', [null], 'float64'],
    ['np.bincount(lab, w.astype(np.float32))', [null], 'float64'],
    ['np.bincount(lab)', [null], 'int64'],
    ['np.bincount(lab, minlength=10)', [null], 'int64'],
    ['np.bincount(lab, weights=w) / np.bincount(lab)', [null], 'float64'],
    // grids: mgrid dense (k, n1, ..., nk), int64 for integer bounds, float64 for float or complex steps
    ['np.mgrid[0:N, 0:N]', [2, 3000, 3000], 'int64'],
    ['np.mgrid[0:4, 0:3]', [2, 4, 3], 'int64'],
    ['np.mgrid[0:1:0.25, 0:3]', [2, 4, 3], 'float64'],
    ['np.mgrid[0:1:5j, 0:1:3j]', [2, 5, 3], 'float64'],
    ['np.mgrid[0.0:3, 0:2]', [2, 3, 2], 'float64'],
    ['np.mgrid[0:5]', [5], 'int64'],
    ['np.ogrid[0:5]', [5], 'int64'],
    ['np.indices((N, 4))', [2, 3000, 4], 'int64'],
    ['np.indices((4, 3), dtype=np.int32)', [2, 4, 3], 'int32'],
    // an integer index array: its shape, then the other axes
    ['evals[order]', [500], 'float64'],
    ['evals[order].copy()', [500], 'float64'],
    ['X[idx]', [12, 16], 'float64'],
    ['X[[0, 1]]', [2, 16], 'float64'],
    ['X[np.argsort(X[:, 0])]', [500, 16], 'float64'],
    ['rng.choice(500, size=12)', [12], 'int64'],
    ['rng.choice(X, 3)', [3, 16], 'float64'],
    ['rng.permutation(500)', [500], 'int64'],
    // a boolean mask: one axis of a length the data decide
    ['X[X > 0.5]', [null], 'float64'],
    ['X[X[:, 0] > 0.5]', [null, 16], 'float64'],
    ['X[X > 0.5].copy()', [null], 'float64']
  ];
  it.each(cases)('%s: shape %j, %s', (expr, shape, dtype) => {
    const m = model(cellsOf(MORE, `r = ${expr}`));
    const r = m.valueAfter('r', m.cells[1]);
    expect(r).toMatchObject({ kind: 'ndarray', shape, dtype });
  });

  it('a mask keeps at most the masked array’s size as a bound', () => {
    const m = model(cellsOf(MORE, 'r = X[X > 0.5]'));
    expect(m.valueAfter('r', m.cells[1])).toMatchObject({ size: 8000, approx: true });
  });

  it.each([
    // what the analysis cannot know stays unknown
    ['np.percentile(a, qs)', undefined, undefined],
    ['np.percentile(a, 50, axis=ax)', undefined, 'float64'],
    ['np.percentile(a, 50, keepdims=kd)', undefined, 'float64'],
    ['np.median(a, axis=2)', undefined, 'float64'],
    // a discontinuous method keeps integer data's dtype (float32 q lists too): not modelled
    ["np.percentile(i, 50, method='lower')", [], undefined],
    ["np.percentile(f, [50], method='midpoint')", [1], undefined],
    ['np.diag(v, k)', [null, null], 'float64'],
    // a bound of unknown type: neither its count nor the dtype NumPy gives it
    ['np.mgrid[0:n, 0:3]', [2, null, 3], undefined],
    ['X[ix]', undefined, 'float64']
  ])('%s: shape %j, dtype %s (not known)', (expr, shape, dtype) => {
    const m = model(cellsOf(MORE, `r = ${expr}`));
    const r = m.valueAfter('r', m.cells[1]);
    expect(r.kind).toBe('ndarray');
    expect(r.shape).toEqual(shape);
    expect(r.dtype).toEqual(dtype);
  });
});

describe('rounding, conditional expressions and named string lists (checked against NumPy 2.4)', () => {
  it('np.round and np.around keep the shape and dtype, decimals given or not', () => {
    const cases: [string, string, (number | null)[] | undefined, string | undefined][] = [
      ['np.round(p)', 'ndarray', [2050, 2050], 'float32'],
      ['np.around(p, 2)', 'ndarray', [2050, 2050], 'float32'],
      ['np.round(i64, decimals=-1)', 'ndarray', [1000], 'int64'],
      ['np.round(b * 0.5, 3)', 'ndarray', [4, 5, 6], 'float32'],
      ['np.round(2.5)', 'scalar', undefined, 'float64'],
      ['np.round(3)', 'scalar', undefined, 'int64'],
      ['np.round(np.float32(2.5))', 'scalar', undefined, 'float32'],
      // NumPy raises for a bool array (and makes float16 of a bool number)
      ['np.round(a > 0)', 'unknown', undefined, undefined],
      ['np.round(True)', 'unknown', undefined, undefined]
    ];
    const vs = values(cases.map(c => c[0]));
    cases.forEach(([expr, kind, shape, dtype], i) => expect({ expr, kind: vs[i].kind, shape: vs[i].shape, dtype: vs[i].dtype }).toEqual({ expr, kind, shape, dtype }));
    expect(vs[4].library).toBe('numpy');
  });

  it('a conditional expression is typed only as far as both branches agree', () => {
    const cases: [string, string, (number | null)[] | undefined, string | undefined][] = [
      ['p if N > 2 else c', 'ndarray', [null, null], 'float32'],
      ['b if N > 2 else b[:, :, ::-1]', 'ndarray', [4, 5, 6], 'float32'],
      ['a if N > 2 else b', 'unknown', undefined, undefined],
      ['f32 if N > 2 else f32.astype(np.float64)', 'unknown', undefined, undefined],
      ['f32 if N > 2 else 0.0', 'unknown', undefined, undefined],
      ['2.0 if N > 2 else 0.5', 'scalar', undefined, 'float64'],
      ['2 if N > 2 else 0.5', 'unknown', undefined, undefined],
      ['np.float32(2) if N > 2 else 0.5', 'unknown', undefined, undefined]
    ];
    const vs = values(cases.map(c => c[0]));
    cases.forEach(([expr, kind, shape, dtype], i) => expect({ expr, kind: vs[i].kind, shape: vs[i].shape, dtype: vs[i].dtype }).toEqual({ expr, kind, shape, dtype }));
    expect(vs[0].size).toBeUndefined();
    expect(vs[1].size).toBe(120);
    // the value of one branch is not the expression's
    expect(vs[5].value).toBeUndefined();
  });

  it('np.array of a name bound to a list of strings is a unicode array, as of the list itself', () => {
    const m = model(cellsOf('import numpy as np', 'labels = ["cat", "dog", "cat"]\nnums = [1.0, 2.0]\nl = np.array(labels)\nk = np.asarray(labels)\nn = np.array(nums)\ns = np.array(["a", "b"])'));
    const cell = m.cells[1];
    expect(m.valueAfter('l', cell)).toMatchObject({ kind: 'ndarray', dtype: 'str' });
    expect(m.valueAfter('k', cell)).toMatchObject({ kind: 'ndarray', dtype: 'str' });
    expect(m.valueAfter('s', cell)).toMatchObject({ kind: 'ndarray', dtype: 'str', shape: [2] });
    // a list of numbers bound to a name stays as untyped as before
    expect(m.valueAfter('n', cell).dtype).toBeUndefined();
    expect(m.valueAfter('labels', cell)).toMatchObject({ kind: 'sequence', dtype: 'str', size: 3 });
  });
});

describe('arrays of number literals written with arithmetic', () => {
  it('types np.diag and np.array of literal arithmetic as NumPy 2.4 does (float where a float literal, / or a negative power appears)', () => {
    const vs = values(['np.diag([0.3**2, 0.3**2])', 'np.array([-1.5, 2])', 'np.array([2 * 3, 7 // 2, -4])', 'np.array([1 / 4, 2])', 'np.diag([2**-1, 1])', 'np.diag([1, 2])']);
    expect(vs.map(v => [v.kind, v.shape, v.dtype])).toEqual([
      ['ndarray', [2, 2], 'float64'],
      ['ndarray', [2], 'float64'],
      ['ndarray', [3], 'int64'],
      ['ndarray', [2], 'float64'],
      ['ndarray', [2, 2], 'float64'],
      ['ndarray', [2, 2], 'int64']
    ]);
  });

  it('leaves a list holding a name or a complex literal untyped for np.diag', () => {
    const vs = values(['np.diag([N * 0.5, 1.0])', 'np.diag([1j, 2.0])']);
    expect(vs.map(v => v.dtype)).toEqual([undefined, undefined]);
  });

  it('leaves untyped what NumPy makes complex, uint64 or object of literal arithmetic', () => {
    // (-2) ** 0.5 is complex in Python; 2**63 is uint64 in NumPy, 10**20 an object
    const vs = values(['np.diag([(-2) ** 0.5, 1.0])', 'np.diag([2**63, 1])', 'np.diag([10**20, 1])', 'np.diag([-(2**63), 1])', 'np.diag([7 % 2.0, 1])', 'np.diag([-(7 // 2), 1])', 'np.diag([4 ** 0.5, 1])']);
    expect(vs.map(v => v.dtype)).toEqual([undefined, undefined, undefined, 'int64', 'float64', 'int64', 'float64']);
  });
});

describe('chained assignment', () => {
  it('gives every target the last value (NX = NY = 512)', () => {
    const m = model(cellsOf('import numpy as np\nNX = NY = 512\nu = np.zeros((NY, NX))'));
    expect(m.valueAfter('NX', m.cells[0])).toMatchObject({ kind: 'scalar', value: 512 });
    expect(m.valueAfter('u', m.cells[0])).toMatchObject({ kind: 'ndarray', shape: [512, 512], dtype: 'float64' });
  });
});

describe('data whose dtype the analysis cannot know stays untyped (NumPy would not compute it in float64)', () => {
  const DATA = [
    'import numpy as np',
    'import pickle',
    'from scipy import ndimage as ndi',
    'from scipy import signal',
    "img = np.load('img.npy')",
    "raw = pickle.load(open('img.pkl', 'rb'))",
    'ref = np.ones((64, 64), dtype=np.float32)'
  ].join('\n');

  function dtypeOf(expr: string, runtime: Record<string, RuntimeValueInfo> = {}) {
    const m = notebookModel(p, cellsOf(DATA, `r = ${expr}`), runtime);
    return m.valueAfter('r', m.cells[1]);
  }

  it.each([
    // np.load gives the saved dtype (a float32 image, int16 samples); the text and raw readers
    // default to float64
    ["np.load('x.npy')", undefined],
    ["np.load('x.npy', mmap_mode='r')", undefined],
    ["np.loadtxt('x.csv')", 'float64'],
    ["np.fromfile('x.bin')", 'float64'],
    ["np.fromfile('x.bin', dtype=np.int16)", 'int16'],
    // every operation with such an operand: NumPy's result depends on its dtype
    ['np.sqrt(img * img + 1.0) * 0.5 - img', undefined],
    ['img - ref', undefined],
    ['ref - img', undefined],
    ['img / 2', undefined],
    ['np.stack([img, img])', undefined],
    ['np.concatenate([ref, img])', undefined],
    ['ndi.gaussian_filter(img, 1.5)', undefined],
    ['np.zeros_like(img)', undefined],
    ['np.mean(img)', undefined],
    ['np.sum(img, axis=0)', undefined],
    ['np.add.reduce(img)', undefined],
    ['np.fft.fft(img)', undefined],
    ['img @ ref', undefined],
    ['np.outer(img, ref)', undefined],
    ['np.diag(img)', undefined],
    ['np.percentile(img, 50)', undefined],
    ['img[0, 0] * ref', undefined],
    // a value the analysis cannot type at all (pickle, h5py, a helper's result) is not taken for
    // the other operand's dtype: d16, float64 data typed float32 from ref
    ['raw - ref', undefined],
    ['ref * raw + 1.0', undefined],
    ['ndi.gaussian_filter(raw, 1.5)', undefined],
    ['np.asarray(raw)', undefined],
    ['np.zeros_like(raw)', undefined]
  ])('%s: dtype not known', (expr, dtype) => {
    const r = dtypeOf(expr);
    expect(r.kind).toBe('ndarray');
    expect(r.dtype).toEqual(dtype);
  });

  it.each([
    // what fixes the dtype whatever the data's
    ['img > 0.5', 'bool'],
    ['np.argmax(img)', 'int64'],
    ['np.any(img > 0)', 'bool'],
    ['img.astype(np.float32) * 0.5', 'float32'],
    ['np.zeros_like(img, dtype=np.float32)', 'float32'],
    ['np.asarray(raw, dtype=np.float32)', 'float32'],
    ["np.load('x.npy').astype(np.int16)", 'int16'],
    ['ndi.gaussian_filter(ref, 1.5)', 'float32'],
    // filter design and windows from numbers and names: float64
    ['signal.windows.hann(256)', 'float64'],
    ["signal.get_window('hann', 256)", 'float64']
  ])('%s: %s', (expr, dtype) => {
    const r = dtypeOf(expr);
    expect(r.dtype).toBe(dtype);
  });

  it('takes the dtype the kernel reports for the data once the cells have run', () => {
    const runtime = { img: { type: 'numpy.ndarray', shape: [64, 64], dtype: 'float32', bytes: 16384 } };
    expect(dtypeOf('np.sqrt(img * img + 1.0) * 0.5 - img', runtime)).toMatchObject({ kind: 'ndarray', dtype: 'float32', shape: [64, 64] });
    expect(dtypeOf('ndi.gaussian_filter(img, 1.5) - ref', runtime)).toMatchObject({ kind: 'ndarray', dtype: 'float32' });
  });

  it('types the rows of a converted grid (yy, xx = np.mgrid[...].astype(np.float32))', () => {
    const m = model(cellsOf('import numpy as np\nN = 64\nyy, xx = np.mgrid[0:N, 0:N].astype(np.float32)\nclean = (xx < 3).astype(np.float32) * 2'));
    expect(m.valueAfter('xx', m.cells[0])).toMatchObject({ kind: 'ndarray', shape: [64, 64], dtype: 'float32' });
    expect(m.valueAfter('clean', m.cells[0])).toMatchObject({ kind: 'ndarray', shape: [64, 64], dtype: 'float32' });
  });

  it('leaves the rows of a grid with bounds of unknown type untyped, not float64', () => {
    const m = model(cellsOf('import numpy as np\nn = len(load())\nyy, xx = np.mgrid[0:n, 0:3]'));
    expect(m.valueAfter('xx', m.cells[0])).toMatchObject({ kind: 'ndarray', shape: [null, 3] });
    expect(m.valueAfter('xx', m.cells[0]).dtype).toBeUndefined();
  });
});

describe('module constants that are Python floats', () => {
  it.each([
    ['2 * np.pi', 2 * Math.PI],
    ['2 * np.pi / 4096', (2 * Math.PI) / 4096],
    ['np.e ** 2', Math.E ** 2],
    ['math.tau', 2 * Math.PI],
    ['math.pi * 0.5', Math.PI * 0.5],
    ['np.euler_gamma', 0.5772156649015329],
    ['pi / 2', Math.PI / 2]
  ])('%s is a Python float of value %d', (expr, value) => {
    const m = model(cellsOf(`import numpy as np\nimport math\nfrom numpy import pi\nr = ${expr}`));
    const r = m.valueAfter('r', m.cells[0]);
    expect(r).toMatchObject({ kind: 'scalar', dtype: 'float64' });
    expect(r.library).toBeUndefined();
    expect(r.value).toBeCloseTo(value, 12);
  });

  it.each(['np.inf', '-np.inf', 'np.nan', 'np.nan * 2'])('%s is a Python float of no finite value', expr => {
    const m = model(cellsOf(`import numpy as np\nr = ${expr}`));
    const r = m.valueAfter('r', m.cells[0]);
    expect(r).toMatchObject({ kind: 'scalar', dtype: 'float64' });
    expect(r.value).toBeUndefined();
  });

  it('is weak with float32 arrays (NEP 50): np.pi * f32 stays float32', () => {
    const [r] = values(['np.pi * f32 + np.e']);
    expect(r).toMatchObject({ kind: 'ndarray', dtype: 'float32' });
  });

  it.each(['np.tau', 'math.euler_gamma', 'np.newaxis', 'np.float64'])('%s is not one', expr => {
    const m = model(cellsOf(`import numpy as np\nimport math\nr = ${expr}`));
    expect(m.valueAfter('r', m.cells[0]).kind).not.toBe('scalar');
  });
});

describe('reshape', () => {
  it.each([
    // a size the new shape gives where the array's is not known
    ["np.load('x.npy').reshape(2048, 2048)", [2048, 2048], 2048 * 2048],
    ["np.load('x.npy').reshape((64, 32))", [64, 32], 2048],
    ["np.load('x.npy').reshape(-1, 4)", [null, 4], undefined],
    // one -1 is what the others leave of a known size
    ['a.reshape(-1, 5)', [2, 5], 10],
    ['a.reshape((5, -1))', [5, 2], 10],
    ['b.reshape(-1)', [120], 120]
  ])('%s: shape %j, size %s', (expr, shape, size) => {
    const [r] = values([expr]);
    expect(r.kind).toBe('ndarray');
    expect(r.shape).toEqual(shape);
    expect(r.size).toEqual(size);
  });
});

describe('describeArray', () => {
  it('says when the dtype is not known, and prices the bytes as float64 (itemSize)', () => {
    expect(describeArray({ kind: 'ndarray', shape: [2048, 2048], size: 2048 * 2048, dtype: 'float32', origin: 'inferred' })).toBe('2048x2048 float32 (16.8 MB)');
    expect(describeArray({ kind: 'ndarray', shape: [2048, 2048], size: 2048 * 2048, origin: 'inferred' })).toBe('2048x2048, dtype not known (33.6 MB if float64)');
    expect(describeArray({ kind: 'ndarray', origin: 'inferred' })).toBe('?, dtype not known');
  });
});

describe('Fourier transforms (dtypes and shapes as NumPy 2.4 and SciPy 1.17 give them)', () => {
  const FFT = 'import numpy as np\nimport scipy.fft\nimport scipy.fftpack\nimport scipy.signal\nf32 = np.ones(1000, dtype=np.float32)\nb = np.zeros((4, 5, 6), dtype=np.float32)\na = np.zeros(10)\ni = np.arange(1000)';

  it.each([
    ['np.fft.fft(f32)', [1000], 'complex64'],
    ['np.fft.rfft(f32)', [501], 'complex64'],
    ['np.fft.irfft(np.fft.rfft(f32))', [1000], 'float32'],
    ['np.fft.fft(a)', [10], 'complex128'],
    ['np.fft.fft(i)', [1000], 'complex128'],
    ['np.fft.fftshift(f32)', [1000], 'float32'],
    ['np.fft.fft(f32, n=2048)', undefined, 'complex64'],
    ['np.fft.rfft2(b)', [4, 5, 4], 'complex64'],
    ['np.fft.irfftn(np.fft.rfftn(b))', [4, 5, 6], 'float32'],
    ['np.fft.ihfft(f32)', [501], 'complex64'],
    ['np.fft.hfft(np.fft.ihfft(f32))', [1000], 'float32'],
    ['np.fft.fft2(b)', [4, 5, 6], 'complex64'],
    // scipy.fft's are NumPy's; fftpack's rfft packs real values
    ['scipy.fft.fft(f32)', [1000], 'complex64'],
    ['scipy.fft.rfft(f32)', [501], 'complex64'],
    ['scipy.fft.irfft(f32)', [1998], 'float32'],
    ['scipy.fftpack.fft(f32)', [1000], 'complex64'],
    ['scipy.fftpack.rfft(f32)', [1000], 'float32'],
    ['scipy.fft.dct(f32)', [1000], 'float32']
  ])('%s: shape %j, %s', (expr, shape, dtype) => {
    const m = model(cellsOf(`${FFT}\nr = ${expr}`));
    const r = m.valueAfter('r', m.cells[0]);
    expect(r.kind).toBe('ndarray');
    expect(r.shape).toEqual(shape);
    expect(r.dtype).toBe(dtype);
  });

  it('leaves the analytic signal untyped (complex: no float kernel)', () => {
    const m = model(cellsOf(`${FFT}\nr = scipy.signal.hilbert(f32)`));
    expect(m.valueAfter('r', m.cells[0])).toMatchObject({ kind: 'ndarray' });
    expect(m.valueAfter('r', m.cells[0]).dtype).toBeUndefined();
  });
});

describe('joins of a list comprehension, tile, repeat and broadcast_to (shapes and dtypes as NumPy 2.4 and SciPy 1.17 give them)', () => {
  const SRC = [
    'import numpy as np',
    'from scipy import ndimage as ndi',
    'ref = np.ones((64, 64), dtype=np.float32)',
    'shifts = np.ones((6, 2))',
    'd = np.diag([1.0, 2.0, 3.0, 4.0])',
    'b = np.zeros((4, 5, 6), dtype=np.float32)',
    'i64 = np.arange(1000)',
    "img = np.load('img.npy')",
    'N = np.float32(2)'
  ].join('\n');

  it.each([
    // a SciPy ndimage filter keeps its input's dtype whatever the loop variable passed to it is
    ["np.stack([ndi.shift(ref, s, order=1, mode='wrap') for s in shifts])", [6, 64, 64], 'float32'],
    ['np.stack([ndi.shift(ref, s) for s in range(2, 8, 2)])', [3, 64, 64], 'float32'],
    ['np.stack([ref * 2 for _ in [1, 2]], axis=1)', [64, 2, 64], 'float32'],
    ['np.concatenate([ndi.gaussian_filter(ref, s) for s in (1.0, 2.0)])', [128, 64], 'float32'],
    // an iterable of a length the analysis does not know: (n, *item)
    ['np.stack([ndi.shift(ref, s) for s in img])', [null, 64, 64], 'float32'],
    ['np.tile(d, (7, 1, 1))', [7, 4, 4], 'float64'],
    ['np.tile(b, 2)', [4, 5, 12], 'float32'],
    ['np.tile(i64, (3, 1))', [3, 1000], 'int64'],
    ['np.repeat(b, 3)', [360], 'float32'],
    ['np.repeat(b, 2, axis=-1)', [4, 5, 12], 'float32'],
    ['np.repeat(b, [1, 2, 3, 4], axis=0)', [null, 5, 6], 'float32'],
    ['np.broadcast_to(d, (5, 4, 4))', [5, 4, 4], 'float64'],
    ['np.tile(np.diag([1.0, 1.0, 10.0, 10.0]), (7, 1, 1))', [7, 4, 4], 'float64'],
    ['np.diag([1, -2, 3])', [3, 3], 'int64']
  ])('%s: shape %j, %s', (expr, shape, dtype) => {
    const m = model(cellsOf(`${SRC}\nr = ${expr}`));
    const r = m.valueAfter('r', m.cells[0]);
    expect(r).toMatchObject({ kind: 'ndarray', dtype });
    expect(r.shape).toEqual(shape);
  });

  it.each([
    // the body computes with the loop variable (its type unknown), or with untyped data
    'np.stack([ref * s for s in shifts])',
    'np.stack([img for _ in range(3)])',
    'np.tile(img, 2)',
    // a name among the items could be a float, a complex, an array
    'np.diag([N, N])'
  ])('leaves %s untyped', expr => {
    const m = model(cellsOf(`${SRC}\nr = ${expr}`));
    expect(m.valueAfter('r', m.cells[0]).dtype).toBeUndefined();
  });

  it('does not type a filtered comprehension (its count is the data\'s)', () => {
    const m = model(cellsOf(`${SRC}\nr = np.stack([ref for s in shifts if s[0] > 0])`));
    expect(m.valueAfter('r', m.cells[0]).kind).toBe('unknown');
  });
});

describe('an index that is a range loop variable is an integer (NumPy drops the axis)', () => {
  const SRC = 'import numpy as np\nmeas = np.zeros((100, 50, 2))';

  it('types meas[k] in a for loop over range as (50, 2)', () => {
    const m = model(cellsOf(`${SRC}\nfor k in range(1, 100):\n    r = meas[k] * 2.0`));
    expect(m.valueAfter('r', m.cells[0])).toMatchObject({ kind: 'ndarray', shape: [50, 2], dtype: 'float64' });
  });

  it('types meas[k, :, 0] in a comprehension over range', () => {
    const m = model(cellsOf(`${SRC}\nr = np.stack([meas[k, :, 0] for k in range(3)])`));
    expect(m.valueAfter('r', m.cells[0])).toMatchObject({ kind: 'ndarray', shape: [3, 50], dtype: 'float64' });
  });

  it('keeps a loop variable over an array an index it cannot read (it may be an array)', () => {
    const m = model(cellsOf(`${SRC}\nfor k in np.arange(3):\n    r = meas[k]`));
    expect(m.valueAfter('r', m.cells[0]).shape).toBeUndefined();
  });
});

describe('labelled measurements of scipy.ndimage with an index', () => {
  it('give one value per index: float64 sums and moments, the input dtype for minimum and maximum (SciPy 1.16 and cupyx 14.2 alike)', () => {
    const m = model(
      cellsOf(
        SETUP + '\nimport scipy.ndimage as ndi\nlabels, n = ndi.label(p > 0.5)\nidx = np.arange(1, 41)',
        [
          's = ndi.sum(np.ones_like(p), labels, idx)',
          'mu = ndi.mean(p, labels, index=idx)',
          'v = ndi.variance(p, labels, idx)',
          'mx = ndi.maximum(p, labels, idx)',
          'mn = ndi.minimum(i64, i64, [1, 2, 3])',
          'z = ndi.sum(p > 0.5, labels, range(1, n + 1))',
          'md = ndi.median(p, labels, idx)',
          'mdi = ndi.median(i64, i64, [1, 2])'
        ].join('\n')
      )
    );
    const cell = m.cells[1];
    const at = (name: string) => m.valueAfter(name, cell);
    expect([at('s').shape, at('s').dtype]).toEqual([[40], 'float64']);
    expect([at('mu').shape, at('mu').dtype]).toEqual([[40], 'float64']);
    expect([at('v').shape, at('v').dtype]).toEqual([[40], 'float64']);
    expect([at('mx').shape, at('mx').dtype]).toEqual([[40], 'float32']);
    expect([at('mn').shape, at('mn').dtype]).toEqual([[3], 'int64']);
    expect([at('z').shape, at('z').dtype]).toEqual([[null], 'float64']);
    expect([at('md').shape, at('md').dtype]).toEqual([[40], 'float32']);
    expect([at('mdi').shape, at('mdi').dtype]).toEqual([[2], 'float64']);
  });
});

describe('module-level augmented assignment of a number', () => {
  it('rebinds the number to `name op value`, and sizes computed from it see the new value', () => {
    const m = model(
      cellsOf(
        ['import numpy as np', 'N = 4', 'N *= 2', 'M = 1000', 'M += 24', 'h = 1.5', 'h /= 2', 'K = 10', 'for _ in range(3):', '    K += 1'].join('\n'),
        'x = np.zeros(N * 1000)\ny = np.ones((M, N))\nz = np.empty(K)'
      )
    );
    const cell = m.cells[1];
    expect(m.valueAfter('N', m.cells[0])).toMatchObject({ kind: 'scalar', value: 8, dtype: 'int64' });
    expect(m.valueAfter('M', m.cells[0])).toMatchObject({ kind: 'scalar', value: 1024, dtype: 'int64' });
    expect(m.valueAfter('h', m.cells[0])).toMatchObject({ kind: 'scalar', value: 0.75, dtype: 'float64' });
    expect(m.valueAfter('x', cell)).toMatchObject({ kind: 'ndarray', shape: [8000] });
    expect(m.valueAfter('y', cell)).toMatchObject({ kind: 'ndarray', shape: [1024, 8] });
    // in a loop the statement runs an unknown number of times: a number, its value unknown
    const k = m.valueAfter('K', m.cells[0]);
    expect(k).toMatchObject({ kind: 'scalar', dtype: 'int64' });
    expect(k.kind === 'scalar' ? k.value : 'none').toBeUndefined();
    expect(m.valueAfter('z', cell)).toMatchObject({ kind: 'ndarray', shape: [null] });
  });

  it('keeps an array updated in place as it was', () => {
    const m = model(cellsOf('import numpy as np\na = np.zeros((3, 4), dtype=np.float32)\na *= 2', 'b = a + 1'));
    expect(m.valueAfter('a', m.cells[0])).toMatchObject({ kind: 'ndarray', shape: [3, 4], dtype: 'float32' });
  });
});

describe('np.array of a set or dict', () => {
  it('is a 0-d object array holding it (a set or dict is no sequence to NumPy); lists and tuples are sequences', () => {
    const [set, setComp, dict, dictComp, list, listComp] = values(['np.array({1, 2, 3})', 'np.array({v for v in range(5)})', 'np.asarray({"a": 1})', 'np.array({v: v for v in range(3)})', 'np.array([1, 2, 3])', 'np.array([v for v in range(5)])']);
    for (const v of [set, setComp, dict, dictComp]) {
      expect(v).toMatchObject({ kind: 'ndarray', shape: [], dtype: 'object', size: 1 });
    }
    expect(list).toMatchObject({ kind: 'ndarray', shape: [3], dtype: 'int64' });
    expect(listComp).toMatchObject({ kind: 'ndarray' });
    expect(listComp.dtype).not.toBe('object');
  });
});
