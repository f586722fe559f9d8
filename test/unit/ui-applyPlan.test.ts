/** What Apply changes and when it refuses (src/ui/applyPlan.ts). */
import type { Suggestion } from '../../src/analysis/types';
import { CellText, candidateWithImports, lineAfterLastImport, planApply } from '../../src/ui/applyPlan';

function suggestion(overrides: Partial<Suggestion>): Suggestion {
  return {
    rule: 'GPU101',
    library: 'cupy',
    title: 'NumPy -> CuPy',
    confidence: 0.8,
    predicted_speedup: 10,
    prediction: { speedup: 10, cpuSeconds: 1, gpuSeconds: 0.1, transferSeconds: 0.05, reason: '' },
    cellId: 'expr',
    cellIndex: 2,
    original: 'y = np.exp(x)',
    edits: [],
    candidate: 'y = cp.exp(cp.asarray(x))',
    imports: ['import cupy as cp'],
    explanation: '',
    reference: '',
    notes: [],
    ...overrides
  };
}

const notebook: CellText[] = [
  { id: 'intro', kind: 'markdown', source: '# Demo\nimport nothing here' },
  { id: 'imports', kind: 'code', source: 'import numpy as np\nfrom scipy import (\n    fft,\n)\nx = np.ones(3)' },
  { id: 'expr', kind: 'code', source: 'y = np.exp(x)' }
];

test('replaces the cell and adds the import after the import cell’s last import', () => {
  const plan = planApply(notebook, suggestion({}));
  expect(plan.ok).toBe(true);
  if (!plan.ok) return;
  expect(plan.addedImports).toEqual(['import cupy as cp']);
  expect(plan.changes).toEqual([
    {
      cellId: 'imports',
      before: notebook[1].source,
      after: 'import numpy as np\nfrom scipy import (\n    fft,\n)\nimport cupy as cp\nx = np.ones(3)'
    },
    { cellId: 'expr', before: 'y = np.exp(x)', after: 'y = cp.exp(cp.asarray(x))' }
  ]);
});

test('refuses when the cell changed since the suggestion was computed', () => {
  const edited = notebook.map(c => (c.id === 'expr' ? { ...c, source: 'y = np.exp(x) + 1' } : c));
  const plan = planApply(edited, suggestion({}));
  expect(plan).toMatchObject({ ok: false, reason: 'stale' });
  if (!plan.ok) expect(plan.message).toMatch(/would overwrite your edit/);
});

test('refuses when the cell is gone', () => {
  expect(planApply(notebook.slice(0, 2), suggestion({}))).toMatchObject({ ok: false, reason: 'missing-cell' });
});

test('does not add an import already made above the cell', () => {
  const cells = [...notebook.slice(0, 2), { id: 'cp', kind: 'code' as const, source: 'import  cupy  as cp' }, { ...notebook[2] }];
  const plan = planApply(cells, suggestion({ cellIndex: 3 }));
  expect(plan.ok && plan.addedImports).toEqual([]);
  expect(plan.ok && plan.changes.map(c => c.cellId)).toEqual(['expr']);
});

test('an import inside a %%gpuoptimize cell or below the target does not count', () => {
  const cells: CellText[] = [
    notebook[1],
    { id: 'magic', kind: 'code', source: '%%gpuoptimize\nz = np.sort(x)\n# %% gpu\nimport cupy as cp' },
    notebook[2],
    { id: 'later', kind: 'code', source: 'import cupy as cp' }
  ];
  const plan = planApply(cells, suggestion({}));
  expect(plan.ok && plan.addedImports).toEqual(['import cupy as cp']);
});

test('with no import cell above, the imports open the rewritten cell', () => {
  const cells: CellText[] = [{ id: 'expr', kind: 'code', source: 'y = np.exp(x)' }];
  const plan = planApply(cells, suggestion({ cellIndex: 0 }));
  expect(plan.ok && plan.changes).toEqual([
    { cellId: 'expr', before: 'y = np.exp(x)', after: 'import cupy as cp\ny = cp.exp(cp.asarray(x))' }
  ]);
});

test('lineAfterLastImport skips continued imports and ignores indented ones', () => {
  expect(lineAfterLastImport('import a\nimport b, \\\n    c\nx = 1')).toBe(3);
  expect(lineAfterLastImport('def f():\n    import os\n')).toBe(-1);
});

test('the A/B candidate carries its imports', () => {
  expect(candidateWithImports(suggestion({}))).toBe('import cupy as cp\ny = cp.exp(cp.asarray(x))');
  expect(candidateWithImports(suggestion({ candidate: 'import cupy as cp\ny = cp.exp(x)' }))).toBe(
    'import cupy as cp\ny = cp.exp(x)'
  );
});

test('an import the engine put in the candidate moves to the import cell', () => {
  const plan = planApply(notebook, suggestion({ candidate: 'import cupy as cp\n\ny = cp.exp(cp.asarray(x))' }));
  expect(plan.ok && plan.changes.map(c => [c.cellId, c.after])).toEqual([
    ['imports', 'import numpy as np\nfrom scipy import (\n    fft,\n)\nimport cupy as cp\nx = np.ones(3)'],
    ['expr', 'y = cp.exp(cp.asarray(x))']
  ]);
});

test('with no import cell above, an import already in the candidate stays and is not doubled', () => {
  const cells: CellText[] = [{ id: 'expr', kind: 'code', source: 'y = np.exp(x)' }];
  const plan = planApply(cells, suggestion({ cellIndex: 0, candidate: 'import cupy as cp\ny = cp.exp(x)' }));
  expect(plan.ok && plan.changes).toEqual([{ cellId: 'expr', before: 'y = np.exp(x)', after: 'import cupy as cp\ny = cp.exp(x)' }]);
});

test('imports never go above a cell magic line', () => {
  const cells: CellText[] = [{ id: 'expr', kind: 'code', source: '%%time\ny = np.exp(x)' }];
  const plan = planApply(cells, suggestion({ cellIndex: 0, original: '%%time\ny = np.exp(x)', candidate: '%%time\ny = cp.exp(x)' }));
  expect(plan.ok && plan.changes[0].after).toBe('%%time\nimport cupy as cp\ny = cp.exp(x)');
  expect(candidateWithImports(suggestion({ candidate: '%%time\ny = cp.exp(x)' }))).toBe('%%time\nimport cupy as cp\ny = cp.exp(x)');
});

test('the A/B candidate of a %%gpuoptimize cell drops the magic line (no recursive run)', () => {
  expect(candidateWithImports(suggestion({ candidate: '%%gpuoptimize --budget 1\ny = cp.exp(x)' }))).toBe(
    'import cupy as cp\ny = cp.exp(x)'
  );
});
