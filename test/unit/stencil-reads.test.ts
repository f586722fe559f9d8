/**
 * A loop stencil whose step also reads other arrays (`+ f[1:-1, 1:-1]`, `k[2:] * ...`): they
 * become read-only inputs of the ping-pong kernel only when they hold the same values every step
 * (no memory shared with the updated array) and broadcast against its interior as NumPy
 * broadcasts them: at its indices, or a row or column. Another float dtype is computed as NumPy
 * computes it (float32 with float64 gives float64) and stored with one cast. Otherwise
 * findSliceStencil finds no loop stencil and the loop keeps the generic rewrite.
 */
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { findSliceStencil, stencilCode } from '../../src/analysis/rules/arrays/stencil';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const GRID = 'import numpy as np\nu = np.zeros((2048, 2048), dtype=np.float32)';
const SOURCE = 'for step in range(50):\n    u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] + f[1:-1, 1:-1])';

function stencilOf(setup: string, target: string) {
  const cache = new CellCache(p);
  const m = new NotebookModel(cellsOf(setup, target).map(c => cache.get(c)));
  const cell = m.cells[1];
  return findSliceStencil(cell.tree!.rootNode, m, cell, base => base);
}

describe('a loop stencil reading another array', () => {
  it('reads an array of the same dtype and shape as a kernel input, made contiguous once before the loop', () => {
    const s = stencilOf(`${GRID}\nf = np.full((2048, 2048), 1e-4, dtype=np.float32)`, SOURCE);
    expect(s?.reads).toEqual([{ name: 'f', param: 'f', dtype: 'float32', axes: [{ kind: 'same' }, { kind: 'same' }], passes: 1 }]);
    expect(s?.taps).toBe(4);
    expect(s?.loop?.readArgs).toEqual(['u_f']);
    const code = stencilCode(s!, 'u_stencil', n => `${n}_gpu`, 'cp');
    expect(code.definition).toContain('u_stencil(const float* __restrict__ u, const float* __restrict__ f, float* __restrict__ u_new, int n, int m)');
    // the centre read of f in an interior strip, at the strip's flat offsets
    expect(code.definition).toContain('q[o] = 0.25f * (up + down + p[o - 1] + p[o + 1] + f[k0 + o]);');
    expect(code.definition).toContain('def u_stencil(u, f, u_new):');
    expect(code.call).toContain('u_f = cp.ascontiguousarray(f_gpu)');
    expect(code.call).toContain('    u_stencil_kernel(u_grid, (128,), (u_src, u_f, u_dst, u_rows, u_cols))');
    expect(code.call).toContain('del u_src, u_dst, u_f, u_grid, u_rows, u_cols');
  });

  it('keeps an array named like one of the kernel\'s own variables, and moves the kernel\'s', () => {
    const setup = 'import numpy as np\nT = np.zeros(4_000_000)\nk = np.ones(4_000_000)';
    const s = stencilOf(setup, 'for it in range(3):\n    T[1:-1] = T[1:-1] + 0.2 * (k[2:] * (T[2:] - T[1:-1]) - k[:-2] * (T[1:-1] - T[:-2]))');
    expect(s?.reads.map(r => r.param)).toEqual(['k']);
    const code = stencilCode(s!, 'T_stencil', n => n, 'cp');
    expect(code.definition).toContain('T_new[idx] = (idx > 0 && idx < n - 1) ? T[idx] + 0.2 * (k[idx + 1] * (T[idx + 1] - T[idx]) - k[idx - 1] * (T[idx] - T[idx - 1])) : T[idx];');
    expect(code.definition).toContain('const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;');
  });

  it('moves every own name a 2-D kernel shares with the cell\'s arrays and scalars, and nothing else', () => {
    const arrays = ['u', 'out', 'n', 'm', 'j', 'i', 'k', 'p', 'q', 'mid'];
    const setup = `import numpy as np\nT = np.zeros((2048, 2048), dtype=np.float32)\n${arrays.map(a => `${a} = np.ones((2048, 2048), dtype=np.float32)`).join('\n')}\nr = 0.5`;
    const sum = arrays.map(a => `${a}[1:-1, 1:-1]`).join(' + ');
    const s = stencilOf(setup, `for it in range(3):\n    T[1:-1, 1:-1] = r * (T[:-2, 1:-1] + T[2:, 1:-1]) + ${sum}`);
    expect(s?.reads.map(x => x.param)).toEqual(arrays);
    expect(s?.scalars.map(x => x.name)).toEqual(['r']);
    const kernel = stencilCode(s!, 'T_stencil', x => x, 'cp').definition;
    expect(kernel).toContain('T_stencil(const float* __restrict__ T, const float* __restrict__ u, const float* __restrict__ out, const float* __restrict__ n, const float* __restrict__ m, const float* __restrict__ j, const float* __restrict__ i, const float* __restrict__ k, const float* __restrict__ p, const float* __restrict__ q, const float* __restrict__ mid, float* __restrict__ T_new, int rows, int cols, const float r)');
    // each own name declared once, under its new name
    for (const [own, moved] of [['j', 'col'], ['i', 'row'], ['k', 'idx'], ['p', 'p2'], ['q', 'q2'], ['mid', 'mid2'], ['r', 'r2']]) {
      expect(kernel).not.toMatch(new RegExp(`(int|ptrdiff_t|float\\*?) ${own}\\b(?! *[,)])`));
      expect(kernel).toMatch(new RegExp(`\\b${moved}\\b`));
    }
    expect(kernel).toContain('q2[o] = r * (up + down) + u[k0 + o] + out[k0 + o] + n[k0 + o] + m[k0 + o] + j[k0 + o] + i[k0 + o] + k[k0 + o] + p[k0 + o] + q[k0 + o] + mid[k0 + o];');
    expect(kernel).toContain('def T_stencil(T, u, out, n, m, j, i, k, p, q, mid, T_new, r):');
  });

  it('reads another array at the shifts the cell reads it, in the strip and on the border', () => {
    const target = 'for step in range(50):\n    u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + g[:-2, 2:] - g[2:, :-2])';
    const s = stencilOf(`${GRID}\ng = np.ones((2048, 2048), dtype=np.float32)`, target);
    const code = stencilCode(s!, 'u_stencil', n => n, 'cp');
    expect(code.definition).toContain('q[o] = 0.25f * (up + down + g[k0 + o - m + 1] - g[k0 + o + m - 1]);');
    expect(code.definition).toContain('? 0.25f * (u[k - m] + u[k + m] + g[k - m + 1] - g[k + m - 1]) : u[k];');
  });

  it.each([
    ['the same array', 'f = u'],
    ['a view of it', 'f = u[:, :]'],
    ['of another shape that does not broadcast against the interior', 'f = np.full((4, 2048), 1e-4, dtype=np.float32)'],
    ['of a higher rank', 'f = np.ones((2, 2048, 2048), dtype=np.float32)'],
    ['an int array (NumPy\'s promotion of ints is not typed here)', 'f = np.ones((2048, 2048), dtype=np.int32)'],
    ['u itself through a function that copies only when it must', 'f = np.ascontiguousarray(u)'],
    ['the result of a call the analysis knows nothing of', 'f = pick(u)']
  ])('finds no loop stencil when f is %s', (_why, binding) => {
    expect(stencilOf(`${GRID}\n${binding}`, SOURCE)).toBeNull();
  });

  it('computes a float64 array\'s terms in double and stores the float32 result with one cast', () => {
    const s = stencilOf(`${GRID}\nf = np.full((2048, 2048), 1e-4)`, SOURCE);
    expect(s?.type).toBe('float64');
    expect(s?.reads.map(r => [r.dtype, r.passes])).toEqual([['float64', 2]]);
    const code = stencilCode(s!, 'u_stencil', n => n, 'cp').definition;
    expect(code).toContain('const double* __restrict__ f');
    expect(code).toContain('q[o] = (float)(0.25 * (up + down + p[o - 1] + p[o + 1] + f[k0 + o]));');
    expect(code).toContain('if f.dtype != cp.float64:');
  });

  it('gives a Python scalar the type of what it meets: one argument per type', () => {
    const setup = 'import numpy as np\nT = np.zeros(4_000_000, dtype=np.float32)\nq = np.ones(4_000_000)\na = 0.1';
    const s = stencilOf(setup, 'for it in range(3):\n    T[1:-1] = T[1:-1] + a * (T[2:] - T[:-2]) + a * q[1:-1] + 0.5 * (T[1:-1] + 0.5 * q[1:-1])');
    expect(s?.scalars).toEqual([
      { text: 'a', name: 'a', dtype: 'float32' },
      { text: 'a', name: 'a2', dtype: 'float64' }
    ]);
    const code = stencilCode(s!, 'T_stencil', n => n, 'cp').definition;
    expect(code).toContain('(float)(T[k] + a * (T[k + 1] - T[k - 1]) + a2 * q[k] + 0.5 * (T[k] + 0.5 * q[k]))');
    expect(code).toContain('cp.float32(a), cp.float64(a2)');
  });

  it('refuses a NumPy float64 scalar that meets float32, and takes it where it meets float64', () => {
    const setup = 'import numpy as np\nT = np.zeros(4_000_000, dtype=np.float32)\nq = np.ones(4_000_000)\nc = np.float64(0.5)';
    const loop = (rhs: string) => `for it in range(3):\n    T[1:-1] = ${rhs}`;
    expect(stencilOf(setup, loop('T[1:-1] + c * (T[2:] - T[:-2])'))).toBeNull();
    expect(stencilOf(setup, loop('T[1:-1] + (T[2:] - T[:-2]) + c * q[1:-1]'))?.scalars).toEqual([{ text: 'c', name: 'c', dtype: 'float64' }]);
  });

  it.each([
    ['a (3, m) array\'s middle row', 'g = np.ones((3, 2048), dtype=np.float32)', 'g[1:-1, 1:-1]', 'g[(ptrdiff_t)m + j]', '(3, u.shape[1])'],
    ['a (3, m) array\'s first row, shifted', 'g = np.ones((3, 2048), dtype=np.float32)', 'g[:-2, 2:]', 'g[j + 1]', '(3, u.shape[1])'],
    ['a 1-D row', 'g = np.ones(2048, dtype=np.float32)', 'g[:-2]', 'g[j - 1]', '(u.shape[1],)'],
    ['a (1, m) row taken whole', 'g = np.ones((1, 2048), dtype=np.float32)', 'g[:, 1:-1]', 'g[j]', '(1, u.shape[1])'],
    ['an (n, 1) column', 'g = np.ones((2048, 1), dtype=np.float32)', 'g[2:]', 'g[i0 + r + 1]', '(u.shape[0], 1)'],
    ['an (n, 3) array\'s middle column', 'g = np.ones((2048, 3), dtype=np.float32)', 'g[1:-1, 2:]', 'g[(ptrdiff_t)(i0 + r) * 3 + 2]', '(u.shape[0], 3)']
  ])('reads %s broadcast against the interior', (_what, binding, read, strip, shape) => {
    const target = `for step in range(50):\n    u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1]) + ${read}`;
    const s = stencilOf(`${GRID}\n${binding}`, target);
    expect(s?.reads[0].passes).toBeLessThan(0.01);
    const code = stencilCode(s!, 'u_stencil', n => n, 'cp').definition;
    expect(code).toContain(`q[o] = 0.25f * (up + down) + ${strip};`);
    expect(code).toContain(`if g.shape != ${shape}:`);
  });

  it('reads no other array in the zeros_like form', () => {
    const target = 'lap = np.zeros_like(u)\nlap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + f[1:-1, 1:-1]';
    expect(stencilOf(`${GRID}\nf = np.ones((2048, 2048), dtype=np.float32)`, target)).toBeNull();
  });
});
