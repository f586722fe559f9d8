/**
 * The periodic form of a loop stencil (a Laplacian with np.roll, `v = v + alpha * lap` each
 * step): one kernel per step reading each neighbour across the opposite edge at the border, the
 * temporary inlined in parentheses (NumPy computes it whole first), the terms in the source's
 * order. What is not a single-axis roll by one of the array itself, or a temporary read after the
 * loop, keeps the generic rewrite: findSliceStencil finds nothing.
 */
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { findSliceStencil, stencilCode } from '../../src/analysis/rules/arrays/stencil';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const GRID = 'import numpy as np\nv = np.ones((2048, 2048), dtype=np.float32)\nw = np.ones((2048, 2048), dtype=np.float32)\nalpha = 0.2';
const LAP = '    lap = np.roll(v, 1, 0) + np.roll(v, -1, 0) + np.roll(v, 1, 1) + np.roll(v, -1, 1) - 4 * v';
const UPDATE = '    v = v + alpha * lap';

function stencilOf(...sources: string[]) {
  const cache = new CellCache(p);
  const m = new NotebookModel(cellsOf(...sources).map(c => cache.get(c)));
  const cell = m.cells[1];
  return findSliceStencil(cell.tree!.rootNode, m, cell, base => base);
}

function loop(...body: string[]): string {
  return ['for _ in range(30):', ...body].join('\n');
}

describe('the periodic (np.roll) form of a loop stencil', () => {
  it('reads the wrapped neighbours in the order of the rolls and inlines the temporary', () => {
    const s = stencilOf(GRID, loop(LAP, UPDATE));
    expect(s?.loop?.periodic).toEqual({ next: 'v_next' });
    expect(s?.taps).toBe(6);
    const code = stencilCode(s!, 'v_stencil', n => n, 'cp');
    // roll(v, 1, 0) reads the row above, roll(v, 1, 1) the column to the left
    expect(code.definition).toContain('q[o + j] = mid + alpha * (up + down + p[o + jw] + p[o + je] - 4.0f * mid);');
    expect(code.definition).toContain('v_new[(ptrdiff_t)i * m + j] = mid + alpha * (up + down + p[jw] + p[je] - 4.0f * mid);');
    expect(code.definition).toContain('const int jw = j == 0 ? m - 1 : j - 1, je = j == m - 1 ? 0 : j + 1;');
    expect(code.call).toContain('    v_src, v_dst, v_next = v_dst, v_next, v_dst');
    expect(code.call).toContain('if v_next is v_src:\n    v = v_src');
    expect(code.inserts).toEqual([]);
  });

  it('takes shift and axis by keyword and negative axes, in the source order of the terms', () => {
    const s = stencilOf(GRID, loop('    v = v + alpha * (np.roll(v, shift=-1, axis=-1) + np.roll(v, 1, axis=-2) - 2 * v)'));
    expect(stencilCode(s!, 'v_stencil', n => n, 'cp').definition).toContain('q[o + j] = mid + alpha * (p[o + je] + up - 2.0f * mid);');
  });

  it('keeps a 1-D roll without an axis (the flattened array is the array)', () => {
    const s = stencilOf('import numpy as np\nc = np.zeros(4_000_000)', 'for it in range(3):\n    c = c + 0.1 * (np.roll(c, 1) - c)');
    expect(stencilCode(s!, 'c_stencil', n => n, 'cp').definition).toContain('c_new[k] = c[k] + 0.1 * (c[k == 0 ? n - 1 : k - 1] - c[k]);');
  });

  it('keeps the generic rewrite for rolls it cannot read as one neighbour of the array itself', () => {
    // by two, of another array, on both axes at once, a slice mixed in
    expect(stencilOf(GRID, loop('    v = v + alpha * (np.roll(v, 2, 0) - v)'))).toBeNull();
    expect(stencilOf(GRID, loop('    v = v + alpha * (np.roll(w, 1, 0) - v)'))).toBeNull();
    expect(stencilOf(GRID, loop('    v = v + alpha * (np.roll(v, (1, 1), (0, 1)) - v)'))).toBeNull();
    expect(stencilOf(GRID, loop('    v = v + alpha * (np.roll(v, 1, 0) - v[1:-1, 1:-1])'))).toBeNull();
    // no roll at all: no stencil
    expect(stencilOf(GRID, loop('    v = v + v'))).toBeNull();
  });

  it('keeps the generic rewrite where the temporary is read after the loop or not by the update, or the step does more', () => {
    expect(stencilOf(GRID, `${loop(LAP, UPDATE)}\nprint(lap.max())`)).toBeNull();
    expect(stencilOf(GRID, loop(LAP, UPDATE), 'lap.sum()')).toBeNull();
    expect(stencilOf(GRID, loop(LAP, '    v = v * alpha + np.roll(v, 1, 0)'))).toBeNull();
    expect(stencilOf(GRID, loop(LAP, UPDATE, '    print(v.max())'))).toBeNull();
  });
});
