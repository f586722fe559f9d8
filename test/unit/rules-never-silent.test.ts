/**
 * A cell the array rules recognise (it does NumPy/SciPy array work they could move) must get an
 * answer: a suggestion, or a refusal with a reason. Never silence. (The bench's `reduction`
 * workload once got neither: ndarray methods such as `a.mean(axis=1)` were not counted as work.)
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { analyzeNotebook } from '../../src/analysis/engine';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import { analyseArrayCell } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { RULES } from '../../src/analysis/rules/registry';
import type { CellInput } from '../../src/analysis/types';
import { cellsOf, parser, percentCells, ruleFixtures } from './helpers';

let cache: CellCache;
beforeAll(async () => {
  cache = new CellCache(await parser());
});

/** Cells whose array analysis finds work the GPU1xx rules could move. */
function recognised(cells: CellInput[]): number[] {
  const models = cells.map(c => cache.get(c));
  const model = new NotebookModel(models);
  return models
    .filter(c => c.kind === 'code')
    .filter(c => {
      const a = analyseArrayCell(c, model);
      return !!a && a.applicable && a.numpyCompute + a.scipyCompute + a.randomCalls + a.arrayOperators + a.arrayMethods + a.sparseOps > 0;
    })
    .map(c => c.index);
}

function answered(cells: CellInput[], minSpeedup: number): Map<number, string> {
  const r = analyzeNotebook(cells, { minSpeedup });
  const out = new Map<number, string>();
  for (const s of r.suggestions) {
    out.set(s.cellIndex, `suggest ${s.rule}`);
  }
  for (const x of r.refusals) {
    expect(x.reason.trim().length).toBeGreaterThan(10);
    out.set(x.cellIndex, `refuse ${x.rule}: ${x.reason}`);
  }
  return out;
}

const notebooks: [string, CellInput[]][] = [];
for (const rule of RULES) {
  for (const fx of ruleFixtures(rule.id)) {
    notebooks.push([`${rule.id}/${fx.name}`, fx.cells]);
  }
}
const workloads = join(__dirname, '..', '..', 'bench', 'workloads');
for (const f of readdirSync(workloads).filter(f => f.endsWith('.py'))) {
  notebooks.push([`bench/${f}`, percentCells(readFileSync(join(workloads, f), 'utf8').replace(/^# %% (setup|cell)$/gm, '# %%')).cells]);
}

describe('every recognised cell gets a suggestion or a refusal with a reason', () => {
  for (const [name, cells] of notebooks) {
    it(name, () => {
      const cellsSeen = recognised(cells);
      for (const minSpeedup of [0, 1.5, 1e9]) {
        const got = answered(cells, minSpeedup);
        for (const i of cellsSeen) {
          expect([name, minSpeedup, i, got.get(i) ?? 'SILENT']).not.toContain('SILENT');
        }
      }
    });
  }

  it('the bench reduction cell (ndarray methods only) is suggested at 1.5x and refused, with the reason, when not worth it', () => {
    const cells = cellsOf('import numpy as np\nrng = np.random.default_rng(1)\na = rng.standard_normal((20_000, 5_000))', 'row_mean = a.mean(axis=1)\nrow_std = a.std(axis=1)\ntotal = a.sum()');
    const ok = analyzeNotebook(cells, { minSpeedup: 1.5 });
    expect(ok.suggestions.filter(s => s.cellIndex === 1).map(s => s.rule)).toEqual(['GPU101']);
    const no = analyzeNotebook(cells, { minSpeedup: 1000 });
    const refusal = no.refusals.find(r => r.cellIndex === 1);
    expect(refusal?.rule).toBe('GPU101');
    expect(refusal?.reason).toMatch(/predicted \d/);
  });

  it('a small methods-only reduction is refused as too small, not ignored', () => {
    const r = analyzeNotebook(cellsOf('import numpy as np\na = np.ones((100, 50))', 'm = a.mean(axis=1)'));
    expect(r.suggestions.filter(s => s.cellIndex === 1)).toEqual([]);
    expect(r.refusals.find(x => x.cellIndex === 1)?.reason).toMatch(/too small/);
  });
});
