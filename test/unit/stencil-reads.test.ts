/**
 * A loop stencil whose step also reads other arrays (`+ f[1:-1, 1:-1]`, `k[2:] * ...`): they
 * become read-only inputs of the ping-pong kernel only when they hold the same values every step
 * and are read at the updated array's flat offsets: the same dtype and rank (shape, where known),
 * no memory shared with the updated array. Otherwise findSliceStencil finds no loop stencil and
 * the loop keeps the generic rewrite.
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
    expect(s?.reads).toEqual([{ name: 'f', param: 'f' }]);
    expect(s?.taps).toBe(4);
    expect(s?.loop?.readArgs).toEqual(['u_f']);
    const code = stencilCode(s!, 'u_stencil', n => `${n}_gpu`, 'cp');
    expect(code.definition).toContain('u_stencil(const float* __restrict__ u, const float* __restrict__ f, float* __restrict__ out, int n, int m)');
    // the centre read of f in an interior strip, at the strip's flat offsets
    expect(code.definition).toContain('q[o] = 0.25f * (up + down + p[o - 1] + p[o + 1] + f[k0 + o]);');
    expect(code.definition).toContain('def u_stencil(u, f, out):');
    expect(code.call).toContain('u_f = cp.ascontiguousarray(f_gpu)');
    expect(code.call).toContain('    u_stencil_kernel(u_grid, (128,), (u_src, u_f, u_dst, u_rows, u_cols))');
    expect(code.call).toContain('del u_src, u_dst, u_f, u_grid, u_rows, u_cols');
  });

  it('gives an array named like one of the kernel\'s own variables another C name', () => {
    const setup = 'import numpy as np\nT = np.zeros(4_000_000)\nk = np.ones(4_000_000)';
    const s = stencilOf(setup, 'for it in range(3):\n    T[1:-1] = T[1:-1] + 0.2 * (k[2:] * (T[2:] - T[1:-1]) - k[:-2] * (T[1:-1] - T[:-2]))');
    expect(s?.reads).toEqual([{ name: 'k', param: 'k2' }]);
    const code = stencilCode(s!, 'T_stencil', n => n, 'cp');
    expect(code.definition).toContain('0.2 * (k2[k + 1] * (u[k + 1] - u[k]) - k2[k - 1] * (u[k] - u[k - 1]))');
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
    ['of another dtype (NumPy would compute each step in float64)', 'f = np.full((2048, 2048), 1e-4)'],
    ['of another shape (broadcast, not read at u\'s indices)', 'f = np.full((3, 2048), 1e-4, dtype=np.float32)'],
    ['u itself through a function that copies only when it must', 'f = np.ascontiguousarray(u)'],
    ['the result of a call the analysis knows nothing of', 'f = pick(u)']
  ])('finds no loop stencil when f is %s', (_why, binding) => {
    expect(stencilOf(`${GRID}\n${binding}`, SOURCE)).toBeNull();
  });

  it('reads no other array in the zeros_like form', () => {
    const target = 'lap = np.zeros_like(u)\nlap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + f[1:-1, 1:-1]';
    expect(stencilOf(`${GRID}\nf = np.ones((2048, 2048), dtype=np.float32)`, target)).toBeNull();
  });
});
