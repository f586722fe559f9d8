/** Test helpers: the real parser, and readable notebooks in `# %%` (percent) format. */
import { readdirSync, readFileSync, existsSync, statSync, writeFileSync } from 'fs';
import { join } from 'path';
import { initNodeParser } from '../../src/analysis/parser-node';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { rewriteNotebook, type PlanOptions } from '../../src/analysis/plan';
import type { CellInput, RuntimeValueInfo } from '../../src/analysis/types';

export function parser(): Promise<PythonParser> {
  return initNodeParser();
}

/**
 * Splits a percent-format script into cells. `# %%` starts a code cell, `# %% [markdown]` a
 * markdown cell; `# %% target` marks the cell a fixture is about.
 */
export function percentCells(text: string): { cells: CellInput[]; target: number } {
  const cells: CellInput[] = [];
  let target = -1;
  const chunks = text.split(/^# %%(.*)\n/m);
  // chunks: [preamble, header1, body1, header2, body2, ...]
  for (let k = 1; k < chunks.length; k += 2) {
    const header = chunks[k].trim();
    const body = chunks[k + 1].replace(/\n+$/, '\n').replace(/\n$/, '');
    const index = cells.length;
    if (header.includes('target')) {
      target = index;
    }
    cells.push({
      id: `cell-${index}`,
      index,
      kind: header.includes('[markdown]') ? 'markdown' : 'code',
      source: body
    });
  }
  return { cells, target };
}

/** The notebook model of `cells` (a fresh cell cache, parsed by `p`), with the kernel's reports. */
export function notebookModel(p: PythonParser, cells: CellInput[], runtime: Record<string, RuntimeValueInfo> = {}): NotebookModel {
  const cache = new CellCache(p);
  return new NotebookModel(cells.map(c => cache.get(c)), runtime);
}

/** Cells from plain strings. */
export function cellsOf(...sources: string[]): CellInput[] {
  return sources.map((source, index) => ({ id: `c${index}`, index, kind: 'code', source }));
}

export interface RuleFixture {
  name: string;
  dir: string;
  cells: CellInput[];
  target: number;
  /** Expected candidate of the target cell (flag cases). */
  expected?: string;
  /** Substring the refusal reason must contain (refuse cases). */
  refusal?: string;
  runtime?: Record<string, RuntimeValueInfo>;
}

/** All fixtures of one rule: test/fixtures/rules/<ID>/<case>/. */
export function ruleFixtures(ruleId: string): RuleFixture[] {
  const root = join(__dirname, '..', 'fixtures', 'rules', ruleId);
  if (!existsSync(root)) {
    return [];
  }
  return readdirSync(root)
    .filter(name => statSync(join(root, name)).isDirectory())
    .sort()
    .map(name => {
      const dir = join(root, name);
      const read = (f: string): string | undefined =>
        existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : undefined;
      const { cells, target } = percentCells(read('notebook.py') ?? '');
      const runtime = read('runtime.json');
      return {
        name,
        dir,
        cells,
        target,
        expected: read('expected.py')?.replace(/\n$/, ''),
        refusal: read('refusal.txt')?.trim(),
        runtime: runtime ? (JSON.parse(runtime) as Record<string, RuntimeValueInfo>) : undefined
      };
    });
}

/** A plan fixture's folder: test/fixtures/plan/<name>/ (notebook.py -> rewritten.py). */
function planFixtureDir(name: string): string {
  return join(__dirname, '..', 'fixtures', 'plan', name);
}

/** The cells of a plan fixture's notebook.py. */
export function planFixtureCells(name: string): CellInput[] {
  return percentCells(readFileSync(join(planFixtureDir(name), 'notebook.py'), 'utf8')).cells;
}

/**
 * A plan fixture's whole-notebook rewrite (with `opts`), its cells' text checked against
 * rewritten.py (written instead where UPDATE_FIXTURES=1 or none is there yet).
 */
export function checkPlanFixture(name: string, opts: PlanOptions = {}): ReturnType<typeof rewriteNotebook> {
  const dir = planFixtureDir(name);
  const plan = rewriteNotebook(planFixtureCells(name), opts);
  const text = plan.cells.map(c => `# %%\n${c.source}\n`).join('\n');
  if (process.env.UPDATE_FIXTURES === '1' || !existsSync(join(dir, 'rewritten.py'))) {
    writeFileSync(join(dir, 'rewritten.py'), text);
  }
  expect(text).toBe(readFileSync(join(dir, 'rewritten.py'), 'utf8'));
  return plan;
}
