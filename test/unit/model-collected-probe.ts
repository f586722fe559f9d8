/**
 * Run by model-collected.test.ts in a child `node --expose-gc` (bundled with esbuild): analyses
 * notebooks with analyzers that are then dropped, and counts, with a FinalizationRegistry, the
 * notebook models and the cells' syntax trees (node tables) the garbage collector frees. Nothing
 * at module level (caches, WeakMaps keyed by shared objects, a memo of the last model) may keep
 * them. A control keeps one analyzer alive: its model and trees must not be freed (the count
 * can see a retained model). Prints one JSON line.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { NotebookAnalyzer } from '../../src/analysis/engine';
import { NotebookModel } from '../../src/analysis/notebook';
import { initNodeParser } from '../../src/analysis/parser-node';
import { rewriteNotebook } from '../../src/analysis/plan';
import type { CellInput } from '../../src/analysis/types';
import { syntheticNotebook } from '../../bench/synthetic-notebook';
import { percentCells } from './helpers';

interface Counts {
  models: number;
  trees: number;
}

export interface ProbeResult {
  /** Registered in the dropped analyzers (and the plans' own models). */
  dropped: Counts;
  /** Of those, freed. */
  freed: Counts;
  /** Registered in the analyzer kept alive (the control), and of those, freed (must be 0). */
  kept: Counts;
  keptFreed: Counts;
  notebooks: number;
  gcRounds: number;
}

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    throw new Error('run with node --expose-gc');
  }
  const root = process.argv[2];
  const parser = await initNodeParser();
  const freed: Counts = { models: 0, trees: 0 };
  const keptFreed: Counts = { models: 0, trees: 0 };
  const dropped: Counts = { models: 0, trees: 0 };
  const kept: Counts = { models: 0, trees: 0 };
  const registry = new FinalizationRegistry<{ into: Counts; what: keyof Counts }>(({ into, what }) => {
    into[what] += 1;
  });
  const seen = new WeakSet<object>();
  const watch = (model: NotebookModel, counts: Counts, into: Counts): void => {
    if (seen.has(model)) {
      return;
    }
    seen.add(model);
    registry.register(model, { into, what: 'models' });
    counts.models += 1;
    for (const cell of model.cells) {
      if (cell.tree && !seen.has(cell.tree)) {
        seen.add(cell.tree);
        registry.register(cell.tree, { into, what: 'trees' });
        counts.trees += 1;
      }
    }
  };
  // the plan builds its own model: watch every model any construction makes (`track` runs
  // while one is built)
  let watching: { counts: Counts; into: Counts } | null = null;
  const proto = NotebookModel.prototype as unknown as { track: (...args: unknown[]) => unknown; cells: unknown };
  const track = proto.track;
  proto.track = function (this: NotebookModel, ...args: unknown[]): unknown {
    const result = track.apply(this, args);
    if (watching) {
      watch(this, watching.counts, watching.into);
    }
    return result;
  };

  const bench = join(root, 'bench', 'notebooks');
  const notebooks: CellInput[][] = [
    syntheticNotebook(1000),
    ...readdirSync(bench)
      .filter(f => f.endsWith('.py'))
      .sort()
      .map(f => percentCells(readFileSync(join(bench, f), 'utf8')).cells)
  ];
  const edited = (cells: CellInput[]): CellInput[] =>
    cells.map(c => (c.kind === 'code' && c.index === cells.length - 1 ? { ...c, source: `${c.source}\n# edited\n` } : c));

  // dropped: each analyzer (and plan) lives in this function's frame only
  const analyse = (cells: CellInput[], counts: Counts, into: Counts): NotebookAnalyzer => {
    watching = { counts, into };
    try {
      const analyzer = new NotebookAnalyzer({}, parser);
      analyzer.update(cells);
      watch(analyzer.model!, counts, into);
      // an incremental update (the next model is built from the last one)
      analyzer.update(edited(cells));
      watch(analyzer.model!, counts, into);
      rewriteNotebook(cells, { parser });
      return analyzer;
    } finally {
      watching = null;
    }
  };
  // the control: an analyzer kept until the end, its (last) model watched; made
  // first, so that the dropped ones are the last analysed (a memo of the last model must show)
  const keep = new NotebookAnalyzer({}, parser);
  keep.update(notebooks[1]);
  watch(keep.model!, kept, keptFreed);
  for (const cells of notebooks) {
    analyse(cells, dropped, freed);
  }

  let rounds = 0;
  while (rounds < 30 && (freed.models < dropped.models || freed.trees < dropped.trees)) {
    gc();
    await new Promise(resolve => setTimeout(resolve, 5));
    rounds += 1;
  }
  const result: ProbeResult = { dropped, freed, kept, keptFreed, notebooks: notebooks.length, gcRounds: rounds };
  console.log(JSON.stringify(result));
  // the control lives to here
  if (keep.model === null) {
    throw new Error('the kept analyzer has no model');
  }
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
