/**
 * The names a loop stencil's rewrite adds (its two buffers, the launch's grid, sizes and scalar
 * arguments) come from one mechanism: the caller's fresh-name callback (cupy-rewrite.ts
 * freshName), and never take a name the notebook binds: match captures and except targets
 * included (facts.ts records both as writes).
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { findSliceStencil } from '../../src/analysis/rules/arrays/stencil';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const SETUP = 'import numpy as np\nu = np.zeros((2048, 2048), dtype=np.float32)\nr = 0.2';
const LOOP = 'for step in range(51):\n    u[1:-1, 1:-1] = u[1:-1, 1:-1] + r * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])';

describe('findSliceStencil names', () => {
  it('takes every name it adds from the caller\'s callback, in order', () => {
    const cache = new CellCache(p);
    const m = new NotebookModel(cellsOf(SETUP, LOOP).map(c => cache.get(c)));
    const cell = m.cells[1];
    const asked: string[] = [];
    const s = findSliceStencil(cell.tree!.rootNode, m, cell, base => {
      asked.push(base);
      return `${base}_x`;
    });
    // the scalar keeps its name `r` (the kernel's own row counter moves: stencil-reads.test.ts)
    expect(asked).toEqual(['u_src', 'u_dst', 'u_grid', 'u_rows', 'u_cols', 'u_r']);
    expect(s?.loop).toMatchObject({ current: 'u_src_x', spare: 'u_dst_x', grid: 'u_grid_x', sizes: ['u_rows_x', 'u_cols_x'], scalarArgs: ['u_r_x'] });
    expect(s?.scalars).toEqual([{ text: 'r', name: 'r', dtype: 'float32' }]);
  });

  it('refuses a scalar piece that reads the loop variable (it changes every step)', () => {
    const cache = new CellCache(p);
    const m = new NotebookModel(cellsOf(SETUP, LOOP.replace('r * (', '(r + step) * (')).map(c => cache.get(c)));
    const cell = m.cells[1];
    expect(findSliceStencil(cell.tree!.rootNode, m, cell, base => base)).toBeNull();
  });
});

describe('the rewrite\'s names avoid match captures and except targets', () => {
  it('of any cell', () => {
    const later = [
      'match data:',
      '    case [u_src, *u_grid]:',
      '        pass',
      '    case {"k": u_rows}:',
      '        pass',
      'try:',
      '    pass',
      'except ValueError as u_dst:',
      '    pass'
    ].join('\n');
    const result = analyzeNotebook(cellsOf(SETUP, LOOP, later));
    const mine = result.suggestions.find(s => s.rule === 'GPU103' && s.cellIndex === 1);
    expect(mine?.candidate).toContain('u_src2 = cp.ascontiguousarray(u)');
    expect(mine?.candidate).toContain('u_dst2 = cp.empty_like(u_src2)');
    expect(mine?.candidate).toContain('u_grid2, u_rows2, u_cols, u_r = u_stencil(u_src2, u_dst2, r)');
  });
});

describe('a scalar argument named like the launcher', () => {
  it('does not take the launcher\'s name (u_stencil) for its loop variable', () => {
    const setup = SETUP.replace('r = 0.2', 'stencil = 0.2');
    const loop = LOOP.replace('+ r * (', '+ stencil * (');
    const s = analyzeNotebook(cellsOf(setup, loop)).suggestions.find(x => x.rule === 'GPU103' && x.cellIndex === 1)!;
    expect(s.candidate).toContain('u_grid, u_rows, u_cols, u_stencil_arg = u_stencil(u_src, u_dst, stencil)');
    expect(s.candidate).toContain('def u_stencil(u, out, stencil):');
  });
});
