/**
 * After a suggestion is applied, the notebook is analysed again (the panel does it on every
 * edit). The rewritten cell is GPU code already: the engine must not propose to rewrite it once
 * more (a second upload of what it uploads, a second copy back, a second wait under %%time).
 * And cells written with CuPy (by the user, or a rewrite applied) meet the rest of the notebook
 * as they are: their CuPy arrays are device arrays for later cells.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, parser, ruleFixtures } from './helpers';

beforeAll(async () => {
  await parser();
});

describe('a rewrite applied, then the notebook analysed again', () => {
  const flagged = ['GPU101', 'GPU102', 'GPU103', 'GPU104'].flatMap(rule =>
    ruleFixtures(rule)
      .filter(fx => fx.name.startsWith('flag-') && fx.expected !== undefined)
      .map(fx => ({ id: `${rule}/${fx.name}`, fx }))
  );

  it('covers every flag fixture', () => {
    expect(flagged.length).toBeGreaterThan(80);
  });

  it.each(flagged)('$id: no suggestion for the rewritten cell, none new for later cells', ({ fx }) => {
    const before = analyzeNotebook(fx.cells, { runtime: fx.runtime });
    const applied = fx.cells.map(c => (c.index === fx.target ? { ...c, source: fx.expected as string } : c));
    const after = analyzeNotebook(applied, { runtime: fx.runtime });
    expect(after.suggestions.filter(s => s.cellIndex === fx.target).map(s => s.candidate)).toEqual([]);
    const earlier = new Set(before.suggestions.map(s => `${s.rule}@${s.cellIndex}`));
    expect(after.suggestions.filter(s => s.cellIndex > fx.target && !earlier.has(`${s.rule}@${s.cellIndex}`)).map(s => s.candidate)).toEqual([]);
  });
});

describe('CuPy arrays from an earlier cell', () => {
  const setup = 'import numpy as np\nimport matplotlib.pyplot as plt\nu = np.zeros((2048, 2048), dtype=np.float32)';
  const gpuCell = 'import cupy as cp\nu = cp.asarray(u)\nfor step in range(50):\n    u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])';

  it('a host consumer of one gets a host copy, and the suggestion says the cell fails as written', () => {
    const result = analyzeNotebook(cellsOf(setup, gpuCell, 'plt.imshow(u)\nprint(np.mean(u), float(u.max()))'));
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 2);
    expect(s.candidate).toBe('plt.imshow(cp.asnumpy(u))\nprint(cp.mean(u), float(u.max()))');
    expect(s.notes.join('\n')).toMatch(/`u` is a CuPy array here .* CuPy refuses .* the candidate passes a host copy/);
  });

  it('a cell that leaves a name on the device keeps it there: no copy back of the candidate\'s own', () => {
    // the rewrite of cell 1 (one stencil kernel) must leave `u` a CuPy array, as the cell does:
    // the later cell reads it as one (`u.get()`)
    const result = analyzeNotebook(cellsOf(setup, gpuCell, 'host = u.get()'));
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.candidate).not.toMatch(/asnumpy\(u\)|u = cp\.asarray\(u\)\n[\s\S]*u = cp\.asarray\(u\)/);
  });

  it('names a cell leaves on the device are listed in the explanation', () => {
    const result = analyzeNotebook(cellsOf('import numpy as np\nx = np.random.rand(20_000_000)', 'y = np.sqrt(x) * 2.0 + np.sin(x)'));
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.explanation).toContain('- Left on the device, as CuPy arrays: `y`. Host code added later (plotting, pandas, file writes) needs a host copy (`y.get()`).');
  });
});
