import { analyzeNotebook, NotebookAnalyzer } from '../../src/analysis/engine';
import { applyEdits } from '../../src/analysis/edits';
import { readFileSync } from 'fs';
import { join } from 'path';
import { cellsOf, parser, percentCells } from './helpers';

beforeAll(async () => {
  await parser();
});

const notebook = () =>
  cellsOf(
    'import numpy as np\nN = 5000\nx = np.random.rand(N, N)',
    'y = np.exp(-x) * np.cos(x)\ns = y.sum()',
    'print(s)'
  );

describe('engine', () => {
  it('gives plain edits (start, end, text): no syntax node of a rule keeps a tree in the result', () => {
    // the row-reduction rewrite's own edits carry the comprehension's node (rowReductionEdits);
    // a result holding it differed from a fresh analysis' by the trees' ids (incremental.test.ts)
    const file = join(__dirname, '..', 'fixtures', 'rules', 'GPU101', 'flag-row-reductions-comprehension-vectorised', 'notebook.py');
    const result = analyzeNotebook(percentCells(readFileSync(file, 'utf8')).cells);
    const edits = result.suggestions.flatMap(s => s.edits);
    expect(edits.length).toBeGreaterThan(0);
    for (const e of edits) {
      expect(Object.keys(e).sort()).toEqual(['end', 'start', 'text']);
    }
  });

  it('suggests a CuPy rewrite whose edits reproduce the candidate', () => {
    const result = analyzeNotebook(notebook());
    const s = result.suggestions.find(x => x.cellIndex === 1)!;
    expect(s).toBeDefined();
    expect(s.library).toBe('cupy');
    expect(applyEdits(s.original, s.edits)).toBe(s.candidate);
    expect(s.candidate).toContain('x_gpu = cp.asarray(x)');
    // y.sum() is a NumPy float64 in NumPy: the 0-d device result comes back as one (not a Python float)
    expect(s.candidate).toContain('s = s.get()[()]');
    expect(s.imports).toContain('import cupy as cp');
    expect(s.explanation).toContain('references/cupy.md#');
    expect(s.predicted_speedup).toBeGreaterThan(1);
    expect(s.prediction.transferSeconds).toBeGreaterThan(0);
  });

  it('re-parses only the edited cell on update, and follows the edit', () => {
    const analyzer = new NotebookAnalyzer();
    const cells = notebook();
    analyzer.update(cells);
    const after1 = analyzer.parseCount;
    analyzer.update(cells);
    expect(analyzer.parseCount).toBe(after1);
    const edited = cells.map(c => (c.index === 0 ? { ...c, source: 'import numpy as np\nN = 20\nx = np.random.rand(N, N)' } : c));
    const result = analyzer.update(edited);
    expect(analyzer.parseCount).toBe(after1 + 1);
    // the edit made the arrays tiny: the rewrite is now refused with the reason
    expect(result.suggestions.filter(s => s.cellIndex === 1)).toEqual([]);
    expect(result.refusals.find(r => r.cellIndex === 1)?.reason).toMatch(/too small/);
  });

  it('uses the kernel\'s runtime sizes when given', () => {
    const cells = cellsOf('import numpy as np', 'y = np.sqrt(np.abs(x)) + np.log1p(np.abs(x))');
    const unknown = analyzeNotebook(cells);
    expect(unknown.suggestions[0].prediction.reason).toMatch(/unknown/);
    const known = analyzeNotebook(cells, { runtime: { x: { type: 'numpy.ndarray', shape: [10_000_000], dtype: 'float64' } } });
    expect(known.suggestions[0].prediction.reason).toMatch(/80\.0 MB/);
    expect(known.suggestions[0].confidence).toBeGreaterThan(unknown.suggestions[0].confidence);
  });

  it('honours enabled families, disabled rules and the minimum speedup', () => {
    expect(analyzeNotebook(notebook(), { families: ['dataframes'] }).suggestions).toEqual([]);
    const without103 = analyzeNotebook(notebook(), { disabledRules: ['GPU103'] }).suggestions;
    expect(without103.map(x => x.rule)).not.toContain('GPU103');
    // with the fusion rule off, the cell falls back to the plain CuPy rewrite
    expect(without103.find(x => x.cellIndex === 1)?.rule).toBe('GPU101');
    const strict = analyzeNotebook(notebook(), { minSpeedup: 1e6 });
    expect(strict.suggestions).toEqual([]);
    expect(strict.refusals.length).toBeGreaterThan(0);
  });

  it('reports syntax errors, foreign cells and huge cells as diagnostics, never throws', () => {
    const result = analyzeNotebook([
      ...cellsOf('def broken(:\n  pass', '%%bash\necho hi'),
      { id: 'huge', index: 2, kind: 'code', source: 'x = 1\n'.repeat(50_000) },
      { id: 'md', index: 3, kind: 'markdown', source: '# Title' }
    ]);
    expect(result.diagnostics.map(d => d.cellIndex)).toEqual([0, 1, 2]);
    expect(result.diagnostics[0].message).toMatch(/syntax error near line 1/);
    expect(result.suggestions).toEqual([]);
  });
});

describe('applyEdits', () => {
  it('applies inserts and replacements in offset order', () => {
    expect(
      applyEdits('abc', [
        { start: 3, end: 3, text: '!' },
        { start: 0, end: 1, text: 'A' },
        { start: 1, end: 1, text: '[' },
        { start: 2, end: 2, text: ']' }
      ])
    ).toBe('A[b]c!');
  });
  it('refuses overlapping edits', () => {
    expect(() => applyEdits('abcdef', [{ start: 0, end: 3, text: 'x' }, { start: 2, end: 4, text: 'y' }])).toThrow(/overlapping/);
  });
});
