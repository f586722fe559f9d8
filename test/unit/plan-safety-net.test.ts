/**
 * The whole-notebook plan passes every cell it rewrites through the engine's safety net
 * (`candidateErrorLine`: the rewrite must parse, IPython masked): a GPU cell whose rewrite does not
 * stays on the host, its host version's copies of resident arrays made as for any host cell, and
 * its change says why ('invalid-rewrite', which `fix` prints with the other reasons). A kernel
 * definition the plan hoists into the import cell counts against the cell it came from.
 *
 * The rewrite is broken through the plan's own seam (`PlanOptions.arrayRewrite`): the real
 * analyseArrayCell runs, and its candidate (or one definition) for one cell gets a syntax error
 * added, as a rewrite bug would make. The parser is the real one.
 */
import { candidateErrorLine } from '../../src/analysis/engine';
import type { PythonParser } from '../../src/analysis/parser';
import { hostReasonsInWords, rewriteNotebook, type PlanOptions } from '../../src/analysis/plan';
import { analyseArrayCell, type ArrayCellAnalysis } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const notebook = () =>
  cellsOf(
    'import numpy as np\nimport matplotlib.pyplot as plt\nN = 4000',
    'x = np.random.rand(N, N)',
    'y = np.sqrt(x * x + 1.0) * np.exp(-x)',
    'plt.imshow(y)\nprint(y.mean())',
    'z = np.sin(x) + np.cos(x) * 2.0\nprint(z.sum())'
  );

/** The real rewrite, with `broken` applied to cell `index`'s analysis (a rewrite bug). */
const breaking =
  (index: number, broken: (a: ArrayCellAnalysis) => ArrayCellAnalysis): NonNullable<PlanOptions['arrayRewrite']> =>
  (cell, model, ctx) => {
    const a = analyseArrayCell(cell, model, ctx);
    return a && cell.index === index ? broken(a) : a;
  };

const summary = (plan: ReturnType<typeof rewriteNotebook>, index: number): string => plan.changes.find(c => c.cellIndex === index)?.summary ?? '';

describe('whole-notebook plan: the safety net on every rewritten cell', () => {
  it('moves the same cells with the real rewrite (the seam changes nothing by itself)', () => {
    const plain = rewriteNotebook(notebook(), { session: 'warm' });
    const seamed = rewriteNotebook(notebook(), { session: 'warm', arrayRewrite: analyseArrayCell });
    expect(plain.gpuCells).toEqual([1, 2, 4]);
    expect(seamed).toEqual(plain);
  });

  it('keeps a GPU cell whose rewrite does not parse on the host, with the line, and reads its inputs back as any host cell does', () => {
    const plan = rewriteNotebook(notebook(), { session: 'warm', arrayRewrite: breaking(2, a => ({ ...a, candidate: `${a.candidate}\nw = (1 +` })) });
    expect(plan.gpuCells).toEqual([1, 4]);
    const change = plan.changes.find(c => c.cellIndex === 2)!;
    expect(change.stays).toBe('invalid-rewrite');
    expect(change.rule).toBeUndefined();
    // (the candidate is one line, `y = y_kernel(x)`, with the kernel hoisted: the error is on line 2)
    expect(change.summary).toMatch(/^stays on the host: its GPU rewrite came out as invalid Python \(line 2\): not applied; please report it; /);
    // on the host, it computes with the resident x: a host copy of it (x stays on the device for cell 4)
    expect(plan.cells[2].source).toBe('x_host = cp.asnumpy(x)\ny = np.sqrt(x_host * x_host + 1.0) * np.exp(-x_host)');
    expect(plan.transfers.filter(t => t.cellIndex === 2).map(t => [t.name, t.direction])).toEqual([['x', 'to-host']]);
    // y is a host array now: the plotting cell needs no copy, and no kernel of cell 2 is hoisted
    expect(plan.cells[3].source).toBe('plt.imshow(y)\nprint(y.mean())');
    expect(plan.definitions.map(d => d.cellIndex)).not.toContain(2);
    // the copy back is counted in the whole-notebook figure (cells kept on the host pay it)
    expect(plan.figures!.summary).toMatch(/copies of device arrays for the host code of cells kept on the host ~[\d.]+ ms/);
    // (cell 3's y.mean() is NumPy's now: moving it would copy y in)
    expect(summary(plan, 3)).toMatch(/^stays on the host: y is a host array no later cell reads, so a GPU version of this cell would copy it in/);
    // fix prints it with the other reasons
    expect(hostReasonsInWords(plan.changes)).toBe(
      'cell 2: the GPU rewrite came out as invalid Python (not applied; please report it); cell 3: copies between host and device would cost more than the GPU saves'
    );
    // and every cell of the rewrite parses
    for (const c of plan.cells) {
      expect(candidateErrorLine(p, c.source)).toBe(0);
    }
  });

  it('keeps the GPU cell whose hoisted kernel definition does not parse on the host, and hoists nothing of it', () => {
    const plan = rewriteNotebook(
      notebook(),
      { session: 'warm', arrayRewrite: breaking(2, a => ({ ...a, definitions: a.definitions.map(d => ({ ...d, text: d.text.replace("'y_kernel'", "'y_kernel',,") })) })) }
    );
    expect(plan.gpuCells).toEqual([1, 4]);
    expect(plan.changes.find(c => c.cellIndex === 2)?.stays).toBe('invalid-rewrite');
    expect(summary(plan, 2)).toMatch(/^stays on the host: its GPU rewrite came out as invalid Python \(line \d+\)/);
    expect(plan.definitions.map(d => d.name)).not.toContain('y_kernel');
    expect(plan.cells[0].source).not.toContain('y_kernel');
    // the other GPU cell's kernel is still hoisted into the import cell, which parses
    expect(plan.definitions.map(d => d.cellIndex)).toEqual([4]);
    for (const c of plan.cells) {
      expect(candidateErrorLine(p, c.source)).toBe(0);
    }
  });

  it('a rewrite that parses is applied as it is (IPython syntax included)', () => {
    const cells = notebook().map(c => (c.index === 2 ? { ...c, source: `%%time\n${c.source}` } : c));
    const plan = rewriteNotebook(cells, { session: 'warm', arrayRewrite: breaking(2, a => ({ ...a, candidate: `${a.candidate}\n!nvidia-smi` })) });
    expect(plan.gpuCells).toEqual([1, 2, 4]);
    expect(plan.cells[2].source).toMatch(/\n!nvidia-smi$/);
    expect(plan.changes.find(c => c.cellIndex === 2)?.stays).toBeUndefined();
  });
});
