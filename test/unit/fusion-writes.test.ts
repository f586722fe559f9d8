/**
 * fusion.ts: a chain whose result NumPy writes into an existing array (`x op= chain`, a ufunc's
 * `out=u`) becomes one typed kernel writing that array, where that gives NumPy's result; else the
 * two-step form (`x *= x_kernel(...)`) or CuPy's ufunc with `out=` stays.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

const setup = [
  'import numpy as np',
  'rng = np.random.default_rng(1)',
  'x = rng.random(20_000_000)',
  'y = rng.random(20_000_000)',
  'u = np.empty_like(x)',
  'x32 = rng.random(20_000_000, dtype=np.float32)',
  'y32 = rng.random(20_000_000, dtype=np.float32)'
].join('\n');
const chain = 'np.exp(-y * y) + np.sin(y) * np.cos(y)';

/** The candidate of the target cell's suggestion by `rule`, or undefined. */
function candidate(target: string, rule = 'GPU103'): string | undefined {
  return analyzeNotebook(cellsOf(setup, target)).suggestions.find(s => s.rule === rule && s.cellIndex === 1)?.candidate;
}

describe('x op= chain: one kernel updating x in place', () => {
  it.each([
    ['+=', 'x_new = x + (exp(-y * y) + sin(y) * cos(y))'],
    ['-=', 'x_new = x - (exp(-y * y) + sin(y) * cos(y))'],
    ['*=', 'x_new = x * (exp(-y * y) + sin(y) * cos(y))'],
    ['/=', 'x_new = x / (exp(-y * y) + sin(y) * cos(y))'],
    ['**=', 'x_new = pow(x, exp(-y * y) + sin(y) * cos(y))']
  ])('%s: x is read as an input and passed as the output', (op, operation) => {
    const c = candidate(`x ${op} ${chain}\nprint(1)`)!;
    expect(c).toContain(`'float64 y, float64 x', 'float64 x_new',\n    '${operation}',`);
    // not the cell's last statement: no `;`
    expect(c).toContain('\nx_kernel(y_gpu, x, x)\nprint(1)');
  });

  it('ends with `;` where it is the cell\'s last statement (the call returns x; the update displayed nothing)', () => {
    expect(candidate(`x *= ${chain}`)).toContain('\nx_kernel(y_gpu, x, x);');
  });

  it('keeps the two-step form for an update no kernel writes in place (`//=`), its output named for what it holds', () => {
    const c = candidate(`x //= ${chain}`)!;
    expect(c).toContain("'float64 y', 'float64 divisor',\n    'divisor = exp(-y * y) + sin(y) * cos(y)',");
    // the floor division NumPy's (CuPy's float // is floor(x / y): float-remainder.ts), in place
    // and rebound as Python's `x //= ...` rebinds x (an assignment: nothing displayed, no `;`)
    expect(c.endsWith('\nx = np_floor_divide(x, x_kernel(y_gpu), out=x)')).toBe(true);
  });

  // test/python/test_elementwise_kernel_writes_cpu.py runs these operations against NumPy
  it.each([
    ['+=', 'x32_new = x32 + (exp(-y * y) + sin(y) * cos(y))'],
    ['-=', 'x32_new = x32 - (exp(-y * y) + sin(y) * cos(y))'],
    ['*=', 'x32_new = x32 * (exp(-y * y) + sin(y) * cos(y))'],
    ['/=', 'x32_new = x32 / (exp(-y * y) + sin(y) * cos(y))'],
    ['**=', 'x32_new = pow((double)x32, exp(-y * y) + sin(y) * cos(y))']
  ])('float32 x %s float64 chain: one kernel, the update in double rounded into x (same_kind)', (op, operation) => {
    const c = candidate(`x32 ${op} ${chain}`)!;
    expect(c).toContain(`'float64 y, float32 x32', 'float32 x32_new',\n    '${operation}',`);
    expect(c).toContain('\nx32_kernel(y_gpu, x32, x32);');
  });

  it.each([
    ['+=', 'x_new = x + (0.1f * y32 * y32 + y32 * 0.5f)'],
    ['-=', 'x_new = x - (0.1f * y32 * y32 + y32 * 0.5f)'],
    ['*=', 'x_new = x * (0.1f * y32 * y32 + y32 * 0.5f)'],
    ['/=', 'x_new = x / (0.1f * y32 * y32 + y32 * 0.5f)'],
    ['**=', 'x_new = pow(x, (double)(0.1f * y32 * y32 + y32 * 0.5f))']
  ])('float64 x %s float32 chain: the chain in float, the update in double', (op, operation) => {
    const c = candidate(`x ${op} 0.1 * y32 * y32 + y32 * 0.5`)!;
    expect(c).toContain(`'float32 y32, float64 x', 'float64 x_new',\n    '${operation}',`);
    expect(c).toContain('\nx_kernel(y32_gpu, x, x);');
  });

  it('writes no array of another dtype than a chain that reads it (NumPy widens it inside the chain)', () => {
    expect(candidate(`x32 *= np.exp(-x32 * y) + np.sin(y) * np.cos(y)`)).not.toMatch(/x32_kernel\([^)]*x32\)/);
  });

  it("copies an element of x the chain reads before the kernel writes x (NumPy reads it first)", () => {
    const c = candidate(`x *= np.exp(-x * x) + np.sin(x) * x[-1]`)!;
    expect(c).toContain("'float64 x, float64 x_m1', 'float64 x_new',\n    'x_new = x * (exp(-x * x) + sin(x) * x_m1)',");
    expect(c).toContain('\nx_kernel(x, x[-1].copy(), x);');
  });

  it('keeps the two-step form for an element of x at an index the analysis does not know (x[k])', () => {
    const c = candidate(`k = 3\nx *= np.exp(-x * x) + np.sin(x) * x[k]`)!;
    expect(c).toContain('\nx *= x_kernel(x, x[k])');
    expect(c).not.toContain('.copy()');
  });

  it('keeps the two-step form for a view of x (x.T), the view and the output named for what they are', () => {
    const c = candidate(`x2d = rng.random((4000, 4000))\nx2d += np.exp(-x2d.T) + np.sin(x2d.T) * 2.0`)!;
    expect(c).toContain("'float64 x2d_T', 'float64 term',\n    'term = exp(-x2d_T) + sin(x2d_T) * 2.0',");
    expect(c).toContain('\nx2d += x2d_kernel(x2d.T)');
  });

  it('runs the one kernel in a loop, once per step', () => {
    expect(candidate(`for k in range(3):\n    x *= ${chain}`)).toContain('for k in range(3):\n    x_kernel(y_gpu, x, x)');
  });
});

describe("a ufunc's out=u: one kernel writing u", () => {
  it('writes u and binds the name to it, as the ufunc returns u', () => {
    const c = candidate('v = np.add(x * x, y * 0.5, out=u)')!;
    expect(c).toContain("'float64 x, float64 y', 'float64 u',\n    'u = x * x + y * 0.5',");
    expect(c).toContain('\nv = u_kernel(x_gpu, y_gpu, u)');
  });

  it('leaves the calls as they are where u is of another dtype than the chain', () => {
    expect(candidate('np.add(x * x, y * 0.5, out=x32)')).toBeUndefined();
    expect(candidate('np.add(x * x, y * 0.5, out=x32)', 'GPU101')).toContain('cp.add(x_gpu * x_gpu, y_gpu * 0.5, out=x32)');
  });

  it('leaves the calls as they are where the cell binds u (it might be a view of an input)', () => {
    expect(candidate('u = np.empty_like(x)\nnp.add(x * x, y * 0.5, out=u)')).toBeUndefined();
  });
});
