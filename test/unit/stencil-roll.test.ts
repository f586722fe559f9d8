/**
 * The periodic form of a loop stencil (a Laplacian with np.roll, `v = v + alpha * lap` each
 * step): one kernel per step reading each neighbour across the opposite edge at the border, the
 * temporary inlined in parentheses (NumPy computes it whole first), the terms in the source's
 * order. Rolls by two read two rows or columns away (a modulo wraps them); `v += ...` and
 * `v[:] = ...` update v's own array (ping-pong with it); outside a loop the same statements, or a
 * new array from the rolls, are one launch. What is not a single-axis roll by one or two of the
 * array itself (a literal shift), or a temporary read after the loop, keeps the generic rewrite:
 * findSliceStencil finds nothing.
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

  it('reads rolls by two two rows or columns away, wrapped by a modulo', () => {
    const s = stencilOf(GRID, loop('    v = v + alpha * (np.roll(v, 2, 0) - 2 * v + np.roll(v, -2, 1))'));
    const code = stencilCode(s!, 'v_stencil', n => n, 'cp').definition;
    // the unrolled strip keeps 2 rows from either edge; the first and last two rows wrap
    expect(code).toContain('if (i0 >= 2 && i1 <= n - 2) {');
    expect(code).toContain('const int je2 = (j + 2) % m;');
    expect(code).toContain('q[o + j] = mid + alpha * (p[o - 2 * (ptrdiff_t)m + j] - 2.0f * mid + p[o + je2]);');
    expect(code).toContain('v_new[(ptrdiff_t)i * m + j] = mid + alpha * (v[(ptrdiff_t)(((i - 2) % n + n) % n) * m + j] - 2.0f * mid + p[je2]);');
  });

  it('updates the array in place for v += ... and v[:] = ..., ping-ponging with its own memory', () => {
    for (const update of ['    v += alpha * lap', '    v[:] = v + alpha * lap', '    v[...] = v + alpha * lap']) {
      const s = stencilOf(GRID, loop(LAP, update));
      expect(s?.periodic).toEqual({ inPlace: true, temporary: 'lap' });
      expect(s?.loop?.periodic).toBeNull();
      const code = stencilCode(s!, 'v_stencil', n => n, 'cp');
      // `v += alpha * lap` is v + (alpha * lap): NumPy computes the right-hand side whole first
      const value = update.includes('+=') ? 'mid + (alpha * (up + down + p[o + jw] + p[o + je] - 4.0f * mid))' : 'mid + alpha * (up + down + p[o + jw] + p[o + je] - 4.0f * mid)';
      expect(code.definition).toContain(`q[o + j] = ${value};`);
      expect(code.call).toContain('if v_src is not v:\n    v[...] = v_src');
    }
    // v op= expr: v op (expr), the expression computed whole first
    const minus = stencilOf(GRID, loop('    v -= alpha * (v - np.roll(v, 1, 1))'));
    expect(minus?.taps).toBe(3);
    expect(stencilCode(minus!, 'v_stencil', n => n, 'cp').definition).toContain('q[o + j] = mid - (alpha * (mid - p[o + jw]));');
    // v[:, :] of a 1-D array raises IndexError: not recognised
    expect(stencilOf('import numpy as np\nc = np.zeros(4_000_000)', 'for it in range(3):\n    c[:, :] = c + 0.1 * (np.roll(c, 1) - c)')).toBeNull();
  });

  it('makes one launch outside a loop: a new array from the rolls, a rebinding, an update in place', () => {
    const lap = stencilOf(GRID, LAP.trim());
    expect(lap?.loop).toBeNull();
    expect(lap).toMatchObject({ input: 'v', out: 'lap', periodic: { inPlace: false, temporary: null } });
    expect(stencilCode(lap!, 'lap_stencil', n => n, 'cp').call).toBe('lap = lap_stencil(v)');
    const rebound = stencilOf(GRID, 'v = v + alpha * (np.roll(v, 1, 0) - v)');
    expect(stencilCode(rebound!, 'v_stencil', n => `${n}_gpu`, 'cp').call).toBe('v_gpu = v_stencil(v_gpu, alpha)');
    const inPlace = stencilOf(GRID, `${LAP.trim()}\nv += alpha * lap`);
    expect(inPlace).toMatchObject({ input: 'v', out: 'v', periodic: { inPlace: true, temporary: 'lap' } });
    expect(stencilCode(inPlace!, 'v_stencil', n => n, 'cp').call).toBe("v[...] = v_stencil(v, alpha)  # NumPy's update writes v's own array");
    // the temporary read later: not folded
    expect(stencilOf(GRID, `${LAP.trim()}\nv += alpha * lap\nprint(lap.max())`)?.step.length ?? 1).toBe(1);
  });

  it('keeps the generic rewrite for rolls it cannot read as one neighbour of the array itself', () => {
    // by three, by a name, of another array, on both axes at once, a slice mixed in
    expect(stencilOf(GRID, loop('    v = v + alpha * (np.roll(v, 3, 0) - v)'))).toBeNull();
    expect(stencilOf(`${GRID}\nk = 1`, loop('    v = v + alpha * (np.roll(v, k, 0) - v)'))).toBeNull();
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
