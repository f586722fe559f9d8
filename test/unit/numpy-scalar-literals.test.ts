/**
 * A NumPy scalar made from a number in the cell (`np.float32(0.5)`, `np.int32(3)`) is written
 * into a typed kernel as the C literal of the value NumPy's scalar holds, no argument: float32
 * rounded from the double Python reads (not from the decimal), a float32 in a float64 kernel as
 * its exact double, as CuPy's cast of the argument gave it. What NumPy would not give as that
 * finite number, or a scalar made from a name, stays an argument, and NumPy's promotion decides
 * the kernel as before (an int32 scalar with float32 arrays: no float32 kernel).
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import type { PythonParser } from '../../src/analysis/parser';
import { numpyScalarLiteral } from '../../src/analysis/rules/arrays/fusion';
import { cellsOf, notebookModel, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

/** numpyScalarLiteral of `expr` in a cell after `import numpy as npy`. */
function literal(expr: string, dtype: 'float32' | 'float64'): string | null {
  const m = notebookModel(p, cellsOf('import numpy as npy', `${expr}\n`));
  const node = m.cells[1].tree!.rootNode.namedChild(0)!.namedChild(0)!;
  return numpyScalarLiteral(node, m, dtype);
}

describe('numpyScalarLiteral', () => {
  it.each([
    ['npy.float32(0.5)', 'float32', '0.5f'],
    ['npy.float32(0.1)', 'float32', '0.1f'],
    ['npy.single(3)', 'float32', '3.0f'],
    ['npy.float32(-2.5)', 'float32', '-2.5f'],
    ['-npy.float32(2.5)', 'float32', '-2.5f'],
    ['-(npy.float32(-0.1))', 'float32', '0.1f'],
    ['npy.float32(1e-3)', 'float32', '1e-3f'],
    // the double Python reads is 1 + 2**-24, a tie NumPy rounds to even; the decimal read
    // straight into a float (what `1.00...01f` would give) is the float above
    ['npy.float32(1.0000000596046447753906250000000001)', 'float32', '1.0f'],
    // a float32 in a float64 kernel: its exact double
    ['npy.float32(0.1)', 'float64', '0.10000000149011612'],
    ['npy.float64(0.1)', 'float64', '0.1'],
    ['npy.double(-1e-300)', 'float64', '-1e-300'],
    ['npy.int32(3)', 'float64', '3.0'],
    ['npy.int32(-7)', 'float64', '-7.0']
  ])('writes %s in a %s kernel as %s', (expr, dtype, c) => {
    expect(literal(expr, dtype as 'float32' | 'float64')).toBe(c);
  });

  it.each([
    ['npy.float32(1e40)', 'inf in NumPy'],
    ['npy.int32(2 ** 31)', 'an expression, not a number'],
    ['npy.int32(3000000000)', 'OverflowError in NumPy'],
    ['npy.int32(2.5)', 'truncated by NumPy'],
    ['npy.float32(dt)', 'a name: the cell computes it'],
    ['npy.float32(1j)', 'complex: TypeError in NumPy'],
    ['npy.float32(0.5, 1)', 'not one argument'],
    ['npy.float16(0.5)', 'another type'],
    ['float32(0.5)', 'not NumPy\'s']
  ])('leaves %s alone (%s)', expr => {
    expect(literal(expr, 'float32')).toBeNull();
    expect(literal(expr, 'float64')).toBeNull();
  });
});

const SETUP = 'import numpy as np\nrng = np.random.default_rng(1)\nu = rng.random(20_000_000, dtype=np.float32)\nx = rng.random(20_000_000)\nc = 0.3\ndt = 0.01';

function candidate(target: string): string {
  const s = analyzeNotebook(cellsOf(SETUP, target)).suggestions.find(x => x.rule === 'GPU103' && x.cellIndex === 1);
  return s?.candidate ?? '';
}

describe('a typed kernel with NumPy scalars of numbers', () => {
  it('writes them into an ElementwiseKernel and passes only the rest', () => {
    const code = candidate('v = np.float32(0.5) * u * u + np.float32(dt) * u + c');
    expect(code).toContain("'float32 u, float32 arg2, float32 c', 'float32 v'");
    expect(code).toContain("'v = 0.5f * u * u + arg2 * u + c'");
    expect(code).toContain('v = v_kernel(u_gpu, np.float32(dt), c)');
  });

  it('writes them into one group\'s kernel', () => {
    const code = candidate('y = np.sqrt(u * u + np.float32(0.1))\nw = np.exp(-y) * np.float32(2)');
    expect(code).toContain("'const float y = sqrtf(u * u + 0.1f); w = expf(-y) * 2.0f'");
    expect(code).toContain('w = w_kernel(u_gpu)');
  });

  it('writes them into a reduction\'s kernel and its launcher takes no argument for them', () => {
    const code = candidate('m = np.sum(np.float32(0.1) * u * u + c)');
    expect(code).toContain('const double _e = (double)(0.1f * u * u + c);');
    expect(code).toContain('def m_reduce(u, c):');
    expect(code).toContain('m = m_reduce(u_gpu, c)');
  });

  it('keeps NumPy\'s promotion: a float64 or int32 scalar with float32 arrays gets no float32 kernel', () => {
    for (const scalar of ['np.float64(0.1)', 'np.int32(3)']) {
      const code = candidate(`v = ${scalar} * u * u + c`);
      expect(code).toContain('@cp.fuse()');
      expect(code).toContain(`v = v_fused(${scalar}, u_gpu, c)`);
    }
  });

  it('passes a scalar NumPy would not give as a finite number, as before', () => {
    expect(candidate('v = np.float32(1e40) * u * u + c')).toContain('v = v_kernel(np.float32(1e40), u_gpu, c)');
  });
});
