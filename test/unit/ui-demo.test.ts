/**
 * The demo notebook (examples/demo.ipynb) must show what its introduction promises: the
 * NumPy expression cell gets an array-family (GPU1xx, CuPy) suggestion, and applying it adds
 * the CuPy import once, at the notebook's import cell. The exact rule is the engine's choice
 * (GPU101 plain CuPy, or GPU103 fused kernel for this elementwise chain).
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { initNodeParser } from '../../src/analysis/parser-node';
import { NotebookAnalyzer } from '../../src/analysis';
import type { CellInput } from '../../src/analysis/types';
import { planApply } from '../../src/ui/applyPlan';

interface NotebookJSON {
  nbformat: number;
  nbformat_minor: number;
  cells: { id?: string; cell_type: string; source: string | string[] }[];
}

function demoCells(): CellInput[] {
  const nb = JSON.parse(
    readFileSync(join(__dirname, '../../examples/demo.ipynb'), 'utf8')
  ) as NotebookJSON;
  expect(nb.nbformat).toBe(4);
  expect(nb.nbformat_minor).toBeGreaterThanOrEqual(5);
  return nb.cells.map((cell, index) => {
    expect(typeof cell.id).toBe('string');
    return {
      id: cell.id as string,
      index,
      kind: cell.cell_type === 'code' ? 'code' : cell.cell_type === 'markdown' ? 'markdown' : 'raw',
      source: Array.isArray(cell.source) ? cell.source.join('') : cell.source
    };
  });
}

beforeAll(async () => {
  await initNodeParser();
});

test('the demo notebook flags its NumPy expression cell with a CuPy rewrite', () => {
  const cells = demoCells();
  const result = new NotebookAnalyzer({ minSpeedup: 1 }).update(cells);
  const arraySuggestion = result.suggestions.find(s => s.cellId === 'numpy-expr');
  expect(arraySuggestion).toBeDefined();
  expect(arraySuggestion!.rule).toMatch(/^GPU1\d\d$/);
  expect(arraySuggestion!.library).toBe('cupy');
  expect(arraySuggestion!.predicted_speedup).toBeGreaterThan(1.2);
  expect(arraySuggestion!.candidate).toContain('cp.');
});

test('applying the demo suggestion adds the CuPy import once, at the import cell', () => {
  const cells = demoCells();
  const result = new NotebookAnalyzer({ minSpeedup: 1 }).update(cells);
  const arraySuggestion = result.suggestions.find(s => s.cellId === 'numpy-expr')!;
  const plan = planApply(cells, arraySuggestion);
  if (!plan.ok) {
    throw new Error(plan.message);
  }
  const after = new Map(cells.map(c => [c.id, c.source]));
  for (const change of plan.changes) {
    after.set(change.cellId, change.after);
  }
  expect(arraySuggestion.imports).toContain('import cupy as cp');
  // The notebook's import cell (`import numpy as np`) receives it, once in the whole notebook.
  expect(after.get('imports')).toBe('import numpy as np\nimport cupy as cp');
  // Once: the cells up to the rewritten one import CuPy a single time between them.
  const upToTarget = cells.slice(0, arraySuggestion.cellIndex + 1).map(c => after.get(c.id)).join('\n');
  expect(upToTarget.match(/^import cupy as cp$/gm)).toHaveLength(1);
  expect(after.get('numpy-expr')).not.toBe(arraySuggestion.original);
});
