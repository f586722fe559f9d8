/**
 * After a suggestion is applied, the notebook is analysed again (the panel does it on every
 * edit). The rewritten cell is GPU code already: the engine must not propose to rewrite it once
 * more (a second upload of what it uploads, a second copy back, a second wait under %%time).
 * And cells written with CuPy (by the user, or a rewrite applied) meet the rest of the notebook
 * as they are: their CuPy arrays are device arrays for later cells.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { rewriteNotebook } from '../../src/analysis/plan';
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

describe('cells written with CuPy', () => {
  const setup = 'import numpy as np\nimport cupy as cp\nx = np.random.rand(20_000_000)\nw = np.random.rand(20_000_000)';
  it.each([
    // the cell's own copy shares memory with a device x the rewrite would make: x *= 2 would reach xd
    ['its own upload, then NumPy on the host array', 'xd = cp.asarray(x)\nx *= 2\nyd = cp.sqrt(xd)'],
    ['uploads unpacked in one line', 'x, w = cp.asarray(x), cp.asarray(w)\ny = cp.sqrt(x) * 2.0 + cp.sin(w)'],
    ['an upload, then the host name deleted', 'x_d = cp.asarray(x)\ndel x\ny = cp.sqrt(x_d) * 2.0 + cp.sin(x_d)'],
    ['set() and get(out=) with host buffers', 'xd = cp.empty(x.shape, dtype=x.dtype)\nxd.set(x)\nyd = cp.sqrt(xd)\ny = np.empty_like(x)\nyd.get(out=y)'],
    ['NumPy calls dispatched to CuPy arrays', 'xg = cp.asarray(x)\ny = np.sqrt(xg) * 2.0 + np.sin(xg)']
  ])('get no suggestion (%s), and the plan leaves them as written', (_what, cell) => {
    const cells = cellsOf(setup, cell, 'print(x[:3])');
    expect(analyzeNotebook(cells).suggestions.filter(s => s.cellIndex === 1)).toEqual([]);
    const plan = rewriteNotebook(cells);
    expect(plan.gpuCells).not.toContain(1);
  });

  it('a setup cell that only imports CuPy beside NumPy work is still analysed', () => {
    const result = analyzeNotebook(cellsOf(setup, 'y = np.sqrt(x) * 2.0 + np.sin(x)'));
    expect(result.suggestions.some(s => s.cellIndex === 0)).toBe(true);
    expect(result.suggestions.some(s => s.cellIndex === 1)).toBe(true);
  });
});

describe('CuPy arrays from an earlier cell', () => {
  const setup = 'import numpy as np\nimport matplotlib.pyplot as plt\nimport cupy as cp\nu = np.zeros((2048, 2048), dtype=np.float32)\ng = cp.ones((2048, 2048), dtype=cp.float32)';

  it('a host consumer of one gets a host copy, and the suggestion says the cell fails as written', () => {
    const result = analyzeNotebook(cellsOf(setup, 'plt.imshow(g)\nprint(np.mean(g), float(g.max()))\nv = np.sqrt(u) * 2.0 + np.sin(u)'));
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.candidate).toContain('plt.imshow(cp.asnumpy(g))');
    expect(s.notes.join('\n')).toMatch(/`g` is a CuPy array here .* CuPy refuses .* the candidate passes a host copy/);
  });

  it('a cell that makes its own host copy (g.get()) moves data itself: GPU code already, no suggestion', () => {
    const result = analyzeNotebook(cellsOf(setup, 'plt.imshow(g.get())\nv = np.sqrt(u) * 2.0 + np.sin(u)'));
    expect(result.suggestions.filter(sg => sg.cellIndex === 1)).toEqual([]);
  });

  it('NumPy on a CuPy array is CuPy: a later reader of the result gets it as the cell left it', () => {
    // `h = np.sqrt(g) * 2` is a CuPy array (NumPy dispatches to CuPy): no copy back to NumPy,
    // the later `h.get()` needs it on the device
    const result = analyzeNotebook(cellsOf(setup, 'h = np.sqrt(g) * 2.0\nv = np.sqrt(u) * 2.0 + np.sin(u)', 'hh = h.get()\nprint(v[:2])'));
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.candidate).not.toMatch(/h = cp\.asnumpy\(h\)/);
    expect(s.candidate).toMatch(/v = cp\.asnumpy\(v\)/);
  });

  it('a NumPy cell whose arrays are all CuPy runs on the device already: no suggestion', () => {
    const result = analyzeNotebook(cellsOf(setup, 'v = np.sqrt(g) + 1\ns = np.sum(v)', 'print(float(s))'));
    expect(result.suggestions.filter(sg => sg.cellIndex === 1)).toEqual([]);
  });

  it('names a cell leaves on the device are listed in the explanation', () => {
    const result = analyzeNotebook(cellsOf('import numpy as np\nx = np.random.rand(20_000_000)', 'y = np.sqrt(x) * 2.0 + np.sin(x)'));
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.explanation).toContain('- Left on the device, as CuPy arrays: `y`. Host code added later (plotting, pandas, file writes) needs a host copy (`y.get()`).');
  });
});

describe('the displayed value', () => {
  it('a displayed 0-d device result shows as NumPy shows it (a NumPy scalar), not as a CuPy array', () => {
    const result = analyzeNotebook(cellsOf('import numpy as np\nx = np.random.rand(20_000_000)', 'y = np.sqrt(x) * 2.0 + np.sin(x)\ny.max()'));
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.candidate).toMatch(/\ncp\.asnumpy\(y\.max\(\)\)\[\(\)\]$/);
  });
});

describe('a cell moving data itself with get()/set() on CuPy arrays from earlier cells', () => {
  const setup = 'import numpy as np\nimport cupy as cp\nx = np.random.rand(20_000_000)\ng = cp.ones(20_000_000)';
  it.each([
    ['g.set(x)', 'g.set(x)\nw = np.sin(x) * 2.0 + np.cos(x)'],
    ['g.get(out=h)', 'h = np.empty_like(x)\ng.get(out=h)\nw = np.sin(h) * 2.0 + np.cos(h)'],
    ['u = g.get()', 'u = g.get()\nw = np.sin(u) * 2.0 + np.cos(u)']
  ])('is GPU code already (%s): no suggestion', (_what, cell) => {
    expect(analyzeNotebook(cellsOf(setup, cell)).suggestions.filter(s => s.cellIndex === 1)).toEqual([]);
  });
});

describe('repr of 0-d device values', () => {
  const setup = 'import numpy as np\nimport matplotlib.pyplot as plt\nx = np.random.rand(20_000_000)';
  it('single cell: f"{s!r}" and repr(s) handed to host code show NumPy\'s scalar', () => {
    const result = analyzeNotebook(cellsOf(setup, 'y = np.sqrt(x) * 2.0 + np.sin(x)\ns = y.sum()\nprint(f"{s!r} {s:.3f}")\nplt.title(repr(s))'));
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.candidate).toContain('print(f"{cp.asnumpy(s)[()]!r} {s:.3f}")');
    expect(s.candidate).toContain('plt.title(repr(cp.asnumpy(s)[()]))');
  });

  it('plan: a displayed resident 0-d value comes back first', () => {
    const plan = rewriteNotebook(cellsOf(setup, 'y = np.sqrt(x) * 2.0 + np.sin(x)\ns = y.sum()', 's'));
    expect(plan.cells[2].source).toBe('s = s.get()[()]\ns');
  });
});
