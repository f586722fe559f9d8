/**
 * The copy form of a loop stencil (`un = u.copy()` then `u[1:-1, 1:-1] = <stencil of un>`): the
 * same ping-pong kernel as the in-place form, reading the buffer of the previous step and writing
 * the other, with `u` bound to each step's result so the loop's other statements see it. Border
 * assignments of one constant right after the update are folded into the kernel; anything that
 * would see the difference (the copy read elsewhere, a buffer kept, a name sharing u's memory, a
 * coefficient changed in the loop) keeps the generic rewrite: findSliceStencil finds nothing.
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
const STEP = ['    un = u.copy()', '    u[1:-1, 1:-1] = 0.25 * (un[:-2, 1:-1] + un[2:, 1:-1] + un[1:-1, :-2] + un[1:-1, 2:])'];

function stencilOf(...sources: string[]) {
  const cache = new CellCache(p);
  const m = new NotebookModel(cellsOf(...sources).map(c => cache.get(c)));
  const cell = m.cells[1];
  return { s: findSliceStencil(cell.tree!.rootNode, m, cell, base => base), source: cell.source };
}

function loop(...body: string[]): string {
  return ['for step in range(50):', ...body].join('\n');
}

describe('the copy form of a loop stencil', () => {
  it('replaces the copy and the update by one launch and a swap, the set-up before the loop and the result put back after it', () => {
    const { s, source } = stencilOf(GRID, loop(...STEP, '    print(u.max())'));
    expect(s?.loop?.copy?.name).toBe('un');
    expect(s?.loop?.copy?.border).toBeNull();
    expect(source.slice(s!.start, s!.end)).toBe(`${STEP[0].trim()}\n${STEP[1]}`);
    const code = stencilCode(s!, 'u_stencil', n => `${n}_gpu`, 'cp');
    // the kernel reads the copy's name and writes u's, border copied through
    expect(code.definition).toContain('u_stencil(const float* __restrict__ un, float* __restrict__ u, int n, int m)');
    expect(code.definition).toContain(': un[k];');
    expect(code.call).toBe(
      'u_stencil_kernel(u_grid, (128,), (u_gpu, u_dst, u_rows, u_cols))  # un = u.copy() and the update: one pass into the other buffer\n' +
        '    u_gpu, u_dst = u_dst, u_gpu  # u_gpu names the step\'s result'
    );
    expect(code.inserts.map(i => i.at)).toEqual([0, source.length]);
    expect(code.inserts[0].text).toContain('u_keep = u_gpu  # the array u_gpu names');
    expect(code.inserts[0].text).toContain('u_grid, u_rows, u_cols = u_stencil(u_gpu, u_dst)');
    expect(code.inserts[1].text).toBe('\nif u_gpu is not u_keep:\n    u_keep[...] = u_gpu  # the last step wrote the other buffer\n    u_gpu = u_keep\ndel u_keep, u_dst, u_grid, u_rows, u_cols');
  });

  it('folds one constant given to every edge, one statement per edge, into the kernel as NumPy casts it', () => {
    const { s, source } = stencilOf(GRID, loop('    un = np.copy(u)', STEP[1], '    u[0] = 0.1', '    u[:, 0] = u[-1, :] = 0.1', '    u[:, -1] = 0.1', '    u[0, :] = 5'));
    expect(s?.loop?.copy?.border).toEqual({ value: '0.1f', text: '0.1' });
    // the fifth edge statement (another value) stays a statement after the launch
    expect(source.slice(s!.end)).toBe('\n    u[0, :] = 5');
    expect(stencilCode(s!, 'u_stencil', n => n, 'cp').definition).toContain(' : 0.1f;');
  });

  it('folds an integer constant as the float it becomes, in 1-D too', () => {
    const { s } = stencilOf('import numpy as np\nT = np.zeros(4_000_000)', 'for it in range(9):\n    Tn = T.copy()\n    T[1:-1] = Tn[1:-1] + 0.2 * (Tn[2:] - 2 * Tn[1:-1] + Tn[:-2])\n    T[0] = T[-1] = 0');
    expect(s?.loop?.copy?.border).toEqual({ value: '0.0', text: '0' });
  });

  it('keeps border statements of two values, or that miss an edge, as statements', () => {
    expect(stencilOf(GRID, loop(...STEP, '    u[0, :] = u[-1, :] = 1.0', '    u[:, 0] = u[:, -1] = 0.0')).s?.loop?.copy?.border).toBeNull();
    const { s, source } = stencilOf(GRID, loop(...STEP, '    u[0, :] = u[-1, :] = u[:, 0] = 0.0'));
    expect(s?.loop?.copy?.border).toBeNull();
    expect(source.slice(s!.end)).toBe('\n    u[0, :] = u[-1, :] = u[:, 0] = 0.0');
  });

  it('keeps the generic rewrite where the copy is read elsewhere: later in the cell, a later cell, or a function', () => {
    expect(stencilOf(GRID, `${loop(...STEP)}\nprint(un[0, 0])`).s).toBeNull();
    expect(stencilOf(GRID, loop(...STEP), 'print(un.sum())').s).toBeNull();
    expect(stencilOf(`${GRID}\ndef show():\n    print(un.sum())`, `${loop(...STEP)}\nshow()`).s).toBeNull();
    expect(stencilOf(GRID, loop(...STEP, '    un[0, :] = 1.0')).s).toBeNull();
  });

  it('keeps the generic rewrite where the loop keeps u, rebinds it or reads a name sharing its memory', () => {
    expect(stencilOf(GRID, `frames = []\n${loop(...STEP, '    frames.append(u)')}`).s).toBeNull();
    expect(stencilOf(GRID, loop(...STEP, '    u = u * 1.0')).s).toBeNull();
    expect(stencilOf(GRID, loop(...STEP, '    row = u[3]')).s).toBeNull();
    expect(stencilOf(GRID, `w = u\n${loop(...STEP, '    print(w.sum())')}`).s).toBeNull();
    // a new value computed from u keeps no buffer
    expect(stencilOf(GRID, loop(...STEP, '    print(np.max(u), u.mean())')).s).not.toBeNull();
  });

  it('keeps the generic rewrite where the update reads u itself, or what another statement of the loop changes', () => {
    expect(stencilOf(GRID, loop(STEP[0], '    u[1:-1, 1:-1] = 0.5 * (un[:-2, 1:-1] + u[2:, 1:-1])')).s).toBeNull();
    const coefficient = '    u[1:-1, 1:-1] = un[1:-1, 1:-1] + a * (un[:-2, 1:-1] + un[2:, 1:-1] - 2 * un[1:-1, 1:-1])';
    expect(stencilOf(`${GRID}\na = 0.2`, loop(STEP[0], coefficient)).s?.scalars.map(x => x.text)).toEqual(['a']);
    expect(stencilOf(`${GRID}\na = 0.2`, loop(STEP[0], coefficient, '    a = a * 0.5')).s).toBeNull();
  });
});
