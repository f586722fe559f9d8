/**
 * Writes the readable dump (test/unit/analysis-dump.ts) of the bench's 1,000-cell notebook and of
 * examples/demo.ipynb and of every rule and plan fixture, so that speed work can diff the engine's outputs before and after:
 *
 *   bench/analysis_golden.sh OUT.txt
 */
import { readFileSync, writeFileSync } from 'fs';
import { initNodeParser } from '../src/analysis/parser-node';
import { dumpNotebook, fixtureNotebooks } from '../test/unit/analysis-dump';
import type { CellInput } from '../src/analysis/types';
import { syntheticNotebook } from './synthetic-notebook';

async function main(): Promise<void> {
  const parser = await initNodeParser();
  const demo = JSON.parse(readFileSync('examples/demo.ipynb', 'utf8')) as { cells: { cell_type: string; source: string | string[] }[] };
  const demoCells: CellInput[] = demo.cells.map((c, index) => ({
    id: `cell-${index}`,
    index,
    kind: c.cell_type === 'code' ? 'code' : 'markdown',
    source: Array.isArray(c.source) ? c.source.join('') : c.source
  }));
  const notebooks = [
    { name: 'bench/synthetic-notebook (1000 cells)', cells: syntheticNotebook(1000) },
    { name: 'examples/demo.ipynb', cells: demoCells },
    ...fixtureNotebooks('test/fixtures')
  ];
  const out = notebooks.map(nb => dumpNotebook(nb, parser)).join('\n');
  writeFileSync(process.argv[2] ?? 'analysis_golden.txt', out);
  console.log(`${notebooks.length} notebooks, ${out.length} characters`);
}

void main();
