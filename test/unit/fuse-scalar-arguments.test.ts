/**
 * What a fused chain computes itself and what the cell computes and passes in. An operation that
 * reads no array the analysis knows of (`dt * steps` with names it infers nothing for,
 * `np.exp(-k * t)`, `-dt`, `dt > 0`) is one argument, computed by the cell as NumPy computes it:
 * inside a `@cp.fuse()` body CuPy 14's fusion takes every scalar argument and literal as weak and
 * picks the first loop that accepts them all (`dt * steps` in float16, `n * m` in int8), and
 * `np.exp` of a Python float is a NumPy float64 (with float32 arrays NumPy computes in float64).
 * Numbers only (`0.1 * 7`) stay in the body: Python computes them while CuPy traces it. And the
 * views of a stencil passed in are named after their offset (`u_im1`), not `arg0`.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

/** The GPU103 candidate of the second cell. */
function candidate(setup: string, target: string): string {
  const r = analyzeNotebook(cellsOf(setup, target));
  const s = r.suggestions.filter(x => x.rule === 'GPU103' && x.cellIndex === 1);
  expect(s).toHaveLength(1);
  return s[0].candidate;
}

const UNKNOWN =
  'import numpy as np\nx = np.random.rand(20_000_000)\ny = np.random.rand(20_000_000)\np = load()\ndt = p["dt"]\nsteps = p["steps"]';

describe('a fused function gets no operation of scalars only', () => {
  it('passes arithmetic on names the analysis infers nothing for as one argument', () => {
    const c = candidate(UNKNOWN, 'mask = x * x + dt * steps * y > 0.5');
    expect(c).toContain('    return x * x + arg1 * y > 0.5');
    expect(c).toContain('mask_fused(x_gpu, dt * steps, y_gpu)');
  });

  it('passes a negated scalar, a comparison of scalars and a ufunc of scalars as arguments', () => {
    expect(candidate(UNKNOWN, 'mask = -dt * x * x + y > 0.5')).toContain('mask_fused(-dt, x_gpu, y_gpu)');
    expect(candidate(UNKNOWN, 'v = (dt > 0.5) * x * x + y > 0.5')).toContain('v_fused(dt > 0.5, x_gpu, y_gpu)');
    // (a NumPy call on a name the analysis cannot type is refused: escaping-values.test.ts)
    // (a ufunc of numbers stays NumPy: a NumPy scalar argument, typed as NumPy types it)
    expect(candidate(`${UNKNOWN}\nk = 0.5`, 'mask = np.sqrt(k) * x * x + y > 0.5')).toContain('mask_fused(np.sqrt(k), x_gpu, y_gpu)');
  });

  it('keeps numbers only in the body, and arithmetic with an array in it', () => {
    const c = candidate(UNKNOWN, 'mask = 0.1 * 7 * x + x * y > 0.5');
    expect(c).toContain('    return 0.1 * 7 * x + x * y > 0.5');
    expect(c).toContain('mask_fused(x_gpu, y_gpu)');
  });

  it('gives np.exp of a Python float no float32 kernel (NumPy computes in float64)', () => {
    const setup = 'import numpy as np\nx = np.random.rand(20_000_000).astype(np.float32)\nk = 0.5\nt = 2.0';
    const c = candidate(setup, 'v = np.exp(-k * t) * x * x + x');
    expect(c).not.toContain('ElementwiseKernel');
    expect(c).toContain('v_fused(np.exp(-k * t), x_gpu)');
    // a Python float piece alone is still one weak argument of a typed float32 kernel
    const typed = candidate(setup, 'v = -k * t * x * x + x');
    expect(typed).toContain("'float32 arg0, float32 x', 'float32 v'");
    expect(typed).toContain("options=('--fmad=false',)");
  });
});

describe('stencil views are named after their offset', () => {
  const GRID = 'import numpy as np\nu = np.random.rand(4000, 4000)\nx = np.random.rand(20_000_000)\nu_c = 2.0';

  it('names a 2-D stencil\'s views u_im1, u_jp1... and the centre u_c', () => {
    const c = candidate(GRID, 'g = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] * u[1:-1, 2:] - u[:-2, :-2]');
    expect(c).toContain("'float64 u_im1, float64 u_ip1, float64 u_jm1, float64 u_jp1, float64 u_im1_jm1'");
    expect(c).toContain("'g = u_im1 + u_ip1 + u_jm1 * u_jp1 - u_im1_jm1'");
  });

  it('keeps arg names without a whole centre, or when a name is taken', () => {
    // x[1:] and x[:-1]: the centre lies between them
    expect(candidate(GRID, 'd = (x[1:] - x[:-1]) * (x[1:] + x[:-1]) * 0.5')).toContain("'float64 arg0, float64 arg1'");
    // u_c is a name the chain reads
    const c = candidate(GRID, 'g = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, 1:-1] * u_c');
    expect(c).toContain("'float64 arg0, float64 arg1, float64 arg2, float64 u_c'");
  });
});

describe('no @cp.fuse() where a weak scalar meets an array of a lower kind', () => {
  /** The GPU103 suggestions of the second cell (none when the chain stays op by op). */
  function fused(setup: string, target: string): string[] {
    const r = analyzeNotebook(cellsOf(setup, target));
    return r.suggestions.filter(x => x.rule === 'GPU103' && x.cellIndex === 1).map(s => s.candidate);
  }
  const ARRAYS =
    'import numpy as np\nimg = np.random.randint(0, 255, size=(8000, 8000), dtype=np.uint8)\nk = np.arange(40_000_000)\nx = np.random.rand(40_000_000)\ndt = 0.1';

  it('keeps uint8 * 0.5 and bool * 2 op by op (float16 and int8 loops in the fusion)', () => {
    expect(fused(ARRAYS, 'out = img * 0.5 + img * img - 1.5')).toEqual([]);
    expect(fused(ARRAYS, 'out = (x > 0.5) * 2 + (x < 0.1) * 3 - 1')).toEqual([]);
    // a Python float argument is as weak as a literal
    expect(fused(ARRAYS, 'out = img * dt + img * img - 1')).toEqual([]);
  });

  it('fuses a weak scalar of the same or a lower kind, and any with float arrays', () => {
    expect(fused(ARRAYS, 'out = k * k % 7 + 3 * k > 2')[0]).toContain('@cp.fuse()');
    expect(fused(ARRAYS, 'out = (x > 0.5) * x + dt * x > 1')[0]).toContain('@cp.fuse()');
  });
});
