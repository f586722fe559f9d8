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
  'x32 = rng.random(20_000_000, dtype=np.float32)'
].join('\n');
const chain = 'np.exp(-y * y) + np.sin(y) * np.cos(y)';

/** The candidate of the target cell's suggestion by `rule`, or undefined. */
function candidate(target: string, rule = 'GPU103'): string | undefined {
  return analyzeNotebook(cellsOf(setup, target)).suggestions.find(s => s.rule === rule && s.cellIndex === 1)?.candidate;
}

describe('x op= chain: one kernel updating x in place', () => {
  it.each([
    ['+=', 'x2 = x + (exp(-y * y) + sin(y) * cos(y))'],
    ['-=', 'x2 = x - (exp(-y * y) + sin(y) * cos(y))'],
    ['*=', 'x2 = x * (exp(-y * y) + sin(y) * cos(y))'],
    ['/=', 'x2 = x / (exp(-y * y) + sin(y) * cos(y))'],
    ['**=', 'x2 = pow(x, exp(-y * y) + sin(y) * cos(y))']
  ])('%s: x is read as an input and passed as the output', (op, operation) => {
    const c = candidate(`x ${op} ${chain}\nprint(1)`)!;
    expect(c).toContain(`'float64 y, float64 x', 'float64 x2',\n    '${operation}',`);
    // not the cell's last statement: no `;`
    expect(c).toContain('\nx_kernel(y_gpu, x, x)\nprint(1)');
  });

  it('ends with `;` where it is the cell\'s last statement (the call returns x; the update displayed nothing)', () => {
    expect(candidate(`x *= ${chain}`)).toContain('\nx_kernel(y_gpu, x, x);');
  });

  it('keeps the two-step form for an update with no C form (`//=`)', () => {
    const c = candidate(`x //= ${chain}`)!;
    expect(c).toContain("'x = exp(-y * y) + sin(y) * cos(y)',");
    expect(c).toContain('\nx //= x_kernel(y_gpu)');
  });

  it('keeps the two-step form where x is of another dtype than the chain (same_kind casting)', () => {
    const c = candidate(`x32 *= ${chain}`)!;
    expect(c).toContain('\nx32 *= x32_kernel(y_gpu)');
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
