/**
 * The names a loop stencil's rewrite adds (its two buffers, the launch's grid, sizes and scalar
 * arguments) come from one mechanism: the caller's fresh-name callback (cupy-rewrite.ts
 * freshName), and never take a name the notebook binds: match captures and except targets
 * included (facts.ts records both as writes).
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { findSliceStencil, stencilCode } from '../../src/analysis/rules/arrays/stencil';
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
    expect(s.candidate).toContain('def u_stencil(u, u_new, stencil):');
  });
});

describe('the kernel\'s arrays carry the cell\'s names', () => {
  /** The kernel and launcher of the cell's stencil after `setup`. */
  function codeOf(setup: string, target: string): string {
    const cache = new CellCache(p);
    const m = new NotebookModel(cellsOf(setup, target).map(c => cache.get(c)));
    const cell = m.cells[1];
    const s = findSliceStencil(cell.tree!.rootNode, m, cell, base => base);
    return stencilCode(s!, 'x_stencil', n => n, 'cp').definition;
  }
  const rod = (name: string, more = '') => `import numpy as np\n${name} = np.zeros(4_000_000)${more}`;
  const heat = (name: string, extra = '') =>
    `for it in range(3):\n    ${name}[1:-1] = ${name}[1:-1] + 0.25 * (${name}[:-2] - 2.0 * ${name}[1:-1] + ${name}[2:])${extra}`;

  it.each([
    ['a plain name', 'T', 'T[k - 1]', 'x_stencil(const double* __restrict__ T, double* __restrict__ T_new, long long n)', 'def x_stencil(T, T_new):'],
    ['the kernel\'s own index (which moves)', 'k', 'k[idx - 1]', 'x_stencil(const double* __restrict__ k, double* __restrict__ k_new, long long n)', 'def x_stencil(k, k_new):'],
    ['a C keyword', 'double', 'double_[k - 1]', 'x_stencil(const double* __restrict__ double_, double* __restrict__ double_new, long long n)', 'def x_stencil(double_, double_new):'],
    ['a CUDA built-in the launcher also calls', 'min', 'min_[k - 1]', 'x_stencil(const double* __restrict__ min_, double* __restrict__ min_new, long long n)', 'def x_stencil(min_, min_new):'],
    ['a Python keyword once its underscore goes (the launcher takes it too)', '_in', 'a_in[k - 1]', 'x_stencil(const double* __restrict__ a_in, double* __restrict__ in_new, long long n)', 'def x_stencil(a_in, in_new):'],
    ['a leading underscore (the kernels\' own prefix)', '_u', 'u[k - 1]', 'x_stencil(const double* __restrict__ u, double* __restrict__ u_new, long long n)', 'def x_stencil(u, u_new):']
  ])('names the stepped array after the cell\'s, for %s', (_what, name, read, signature, launcher) => {
    const code = codeOf(rod(name), heat(name));
    expect(code).toContain(read);
    expect(code).toContain(signature);
    expect(code).toContain(launcher);
  });

  it('gives the next step a free name where an array the step reads has it', () => {
    const code = codeOf(rod('T', '\nT_new = np.ones(4_000_000)'), heat('T', ' + T_new[1:-1]'));
    expect(code).toContain('x_stencil(const double* __restrict__ T, const double* __restrict__ T_new, double* __restrict__ T_new2, long long n)');
    expect(code).toContain('T_new2[k] = (k > 0 && k < n - 1) ? T[k] + 0.25 * (T[k - 1] - 2.0 * T[k] + T[k + 1]) + T_new[k] : T[k];');
  });

  it('names the zeros_like form\'s input and output after the cell\'s', () => {
    const code = codeOf(rod('f'), 'd2 = np.zeros_like(f)\nd2[1:-1] = (f[:-2] - 2 * f[1:-1] + f[2:]) / 0.01');
    expect(code).toContain('d2[k] = (k > 0 && k < n - 1) ? (f[k - 1] - 2.0 * f[k] + f[k + 1]) / 0.01 : 0.0;');
    expect(code).toContain('def x_stencil(f):');
    expect(code).toContain('    d2 = cp.empty(f.shape, dtype=cp.float64)');
  });
});
