/**
 * The engine's safety net: a rewrite whose candidate source is not valid Python is never offered.
 *
 * A rule that produces a candidate with a syntax error (from a cell that parsed) has a bug; the
 * engine turns that suggestion into a refusal naming the line, and keeps every other outcome.
 * Valid candidates (IPython syntax included) pass through untouched, and every fixture's do.
 */
import { analyzeNotebook, candidateErrorLine, NotebookAnalyzer } from '../../src/analysis/engine';
import type { PythonParser } from '../../src/analysis/parser';
import { rewriteNotebook } from '../../src/analysis/plan';
import { RULES } from '../../src/analysis/rules/registry';
import type { Rule } from '../../src/analysis/rules/types';
import { syntheticNotebook } from '../../bench/synthetic-notebook';
import { fixtureNotebooks } from './analysis-dump';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const INVALID = /^the rewrite of this cell came out as invalid Python \(line (\d+)\): not offered; please report it$/;

/**
 * TEST DOUBLE (not a real rule): proposes `candidate` for every cell holding `marker`, in the
 * 'kernels' family so that the real array rules still run on the same cell.
 */
function candidateRuleDouble(marker: string, candidate: (source: string) => string): Rule {
  return {
    id: 'TEST-DOUBLE',
    title: 'test double that proposes a fixed candidate',
    family: 'kernels',
    library: 'numba-cuda',
    reference: 'references/cupy.md#numpy-to-cupy',
    check: ({ cell }) =>
      cell.source.includes(marker)
        ? {
            kind: 'suggest',
            confidence: 0.5,
            prediction: { speedup: 10, cpuSeconds: 1, gpuSeconds: 0.1, transferSeconds: 0, reason: 'test double' },
            edits: [{ start: 0, end: cell.source.length, text: candidate(cell.source) }],
            candidate: candidate(cell.source),
            imports: [],
            explanation: 'test double',
            notes: []
          }
        : null
  };
}

const notebook = () =>
  cellsOf(
    'import numpy as np\nN = 5000\nx = np.random.rand(N, N)',
    '# broken\ny = np.exp(-x) * np.cos(x)\ns = y.sum()',
    'z = np.sin(x) + np.cos(x)'
  );

describe('candidateErrorLine', () => {
  it('is 0 for valid Python, IPython syntax included, and the line of the first error otherwise', () => {
    expect(candidateErrorLine(p, 'import cupy as cp\ny = cp.exp(x)')).toBe(0);
    expect(candidateErrorLine(p, '%%time\nimport cupy as cp\n!nvidia-smi\ny = cp.exp(x)\ny?')).toBe(0);
    expect(candidateErrorLine(p, 'cp.asarray(import cupy as cp\nu_gpu = cp.asarray(u)\nrng.shuffle(u_gpu))')).toBe(1);
    expect(candidateErrorLine(p, 'import cupy as cp\ny = (cp.exp(x)\nz = 1')).toBeGreaterThanOrEqual(2);
    expect(candidateErrorLine(p, 'a = 1\nb = 2\nc = d(')).toBe(3);
    // a non-Python cell magic is never analysed: nothing to check
    expect(candidateErrorLine(p, '%%bash\nls (')).toBe(0);
  });

  it('does not count as a cell parse', () => {
    const before = p.parseCount;
    candidateErrorLine(p, 'y = (');
    expect(p.parseCount).toBe(before);
  });
});

describe('the engine never offers a candidate that does not parse', () => {
  it('turns a broken candidate into a refusal with the line, and keeps the other outcomes', () => {
    const broken = candidateRuleDouble('# broken', src => `${src}\nz = (1 +`);
    const plain = analyzeNotebook(notebook());
    const result = analyzeNotebook(notebook(), { rules: [broken, ...RULES] });
    expect(result.suggestions.filter(s => s.rule === 'TEST-DOUBLE')).toEqual([]);
    const refusal = result.refusals.find(r => r.rule === 'TEST-DOUBLE');
    expect(refusal).toEqual({ rule: 'TEST-DOUBLE', cellId: 'c1', cellIndex: 1, reason: expect.stringMatching(INVALID) });
    expect(INVALID.exec(refusal!.reason)![1]).toBe('4');
    // the real rules' suggestions, on that cell and the others, are all still there, unchanged
    expect(result.suggestions).toEqual(plain.suggestions);
    expect(result.suggestions.map(s => s.cellIndex)).toEqual(expect.arrayContaining([1, 2]));
    expect(result.refusals.filter(r => r.rule !== 'TEST-DOUBLE')).toEqual(plain.refusals);
    expect(result.diagnostics).toEqual(plain.diagnostics);
  });

  it('offers a valid candidate from the same double unchanged', () => {
    const valid = candidateRuleDouble('# broken', src => `%%time\n${src}\n!nvidia-smi`);
    const result = analyzeNotebook(notebook(), { rules: [valid, ...RULES] });
    const s = result.suggestions.find(x => x.rule === 'TEST-DOUBLE');
    expect(s?.candidate).toBe('%%time\n# broken\ny = np.exp(-x) * np.cos(x)\ns = y.sum()\n!nvidia-smi');
    expect(result.refusals.filter(r => r.rule === 'TEST-DOUBLE')).toEqual([]);
  });

  it('keeps the refusal across incremental updates, and re-checks a cell when it is edited', () => {
    const broken = candidateRuleDouble('# broken', src => `${src}\nz = (1 +`);
    const analyzer = new NotebookAnalyzer({ rules: [broken, ...RULES] });
    const cells = notebook();
    const first = analyzer.update(cells);
    expect(first.refusals.filter(r => r.rule === 'TEST-DOUBLE').length).toBe(1);
    const again = analyzer.update(cells);
    expect(again).toEqual(first);
    expect(analyzer.lastRerun).toEqual([]);
    const fixed = cells.map(c => (c.index === 1 ? { ...c, source: c.source.replace('# broken', '# fine') } : c));
    const after = analyzer.update(fixed);
    expect(after.refusals.filter(r => r.rule === 'TEST-DOUBLE')).toEqual([]);
  });

  it('rng.shuffle(u) with a host Generator: no unparseable candidate is offered, the draw cell is refused', () => {
    // The array rule's host-draw wrapping (`cp.asarray(` at the call) and its prologue insert
    // met at offset 0 and made `cp.asarray(import cupy as cp\n...rng.shuffle(u_gpu))`. Whatever
    // the rule does with this cell now, an offered candidate must parse; if the rule still
    // breaks it, the cell gets the safety net's refusal.
    const cells = cellsOf('import numpy as np\nrng = np.random.default_rng(0)\nu = np.random.rand(10_000_000)', 'rng.shuffle(u)');
    const result = analyzeNotebook(cells);
    for (const s of result.suggestions) {
      expect(candidateErrorLine(p, s.candidate)).toBe(0);
    }
    const shuffle = result.suggestions.find(s => s.cellIndex === 1);
    if (!shuffle) {
      expect(result.refusals.filter(r => r.cellIndex === 1).length).toBeGreaterThan(0);
    }
    // the draw cell would make `rng` CuPy's, which has no shuffle: refused, naming the later call
    expect(result.suggestions.find(s => s.cellIndex === 0)).toBeUndefined();
    expect(result.refusals.find(r => r.cellIndex === 0 && r.rule === 'GPU104')?.reason).toContain('cell 1 calls `rng.shuffle(...)`, which cupy.random.Generator does not have');
  });

  it('the same collision with a host draw or a host file read at the start of a cell', () => {
    for (const src of ['rng.random(10_000_000) * u', 'np.load("f.npy") * u']) {
      const cells = cellsOf('import numpy as np\nrng = np.random.default_rng(0)\nu = np.random.rand(10_000_000)', src);
      const result = analyzeNotebook(cells);
      for (const s of result.suggestions) {
        expect(candidateErrorLine(p, s.candidate)).toBe(0);
      }
      // each cell has an outcome (cell 0's Generator is refused when cell 1 draws from it on the host)
      expect(result.suggestions.length + result.refusals.filter(r => r.cellIndex <= 1).length).toBeGreaterThan(1);
    }
  });
});

describe('every rule and plan fixture and the bench\'s 1000-cell notebook: all candidates parse', () => {
  const notebooks = () => [{ name: 'bench/synthetic-notebook (1000 cells)', cells: syntheticNotebook(1000), runtime: undefined }, ...fixtureNotebooks()];

  it('no suggestion is turned into the safety net refusal', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const nb of notebooks()) {
      const result = analyzeNotebook(nb.cells, { runtime: nb.runtime, parser: p });
      for (const r of result.refusals) {
        if (INVALID.test(r.reason)) {
          broken.push(`${nb.name} cell ${r.cellIndex} ${r.rule}`);
        }
      }
      for (const s of result.suggestions) {
        expect(candidateErrorLine(p, s.candidate)).toBe(0);
        checked += 1;
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(400);
  });

  it('the whole-notebook rewrite (plan.ts) of every fixture parses, cell by cell', () => {
    const broken: string[] = [];
    for (const nb of notebooks()) {
      const plan = rewriteNotebook(nb.cells, { runtime: nb.runtime, parser: p });
      plan.cells.forEach((c, k) => {
        const original = nb.cells[k];
        if (c.kind === 'code' && c.source !== original.source && candidateErrorLine(p, original.source) === 0) {
          const line = candidateErrorLine(p, c.source);
          if (line > 0) {
            broken.push(`${nb.name} cell ${k} line ${line}`);
          }
        }
      });
    }
    expect(broken).toEqual([]);
  });
});
