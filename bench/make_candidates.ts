/**
 * Runs the analysis engine over every bench/workloads/*.py and writes bench/candidates.json:
 * per workload the setup source, the baseline cell, every suggestion the engine made for the
 * `# %% cell` cell (rule, candidate, predicted speedup, notes) and its refusals/diagnostics.
 *
 * Nothing here writes candidates by hand: an empty `suggestions` list is the engine's answer.
 *
 *   bench/make_candidates.sh            (bundles this file with esbuild and runs it with node)
 */
import { execSync } from 'child_process';
import { readdirSync, readFileSync, writeFileSync } from 'fs';
import { basename, join, resolve } from 'path';
import { NotebookAnalyzer, RULES } from '../src/analysis';
import type { CellInput } from '../src/analysis/types';
import { initNodeParser } from '../src/analysis/parser-node';
import { rewriteNotebook } from '../src/analysis/plan';
import { parsePythonFile } from '../src/cli/sources';

const ROOT = resolve(process.argv[2] ?? '.');
const WORKLOADS = join(ROOT, 'bench', 'workloads');
const OUT = join(ROOT, 'bench', 'candidates.json');

function git(cmd: string): string {
  try {
    return execSync(`git -C ${JSON.stringify(ROOT)} ${cmd}`, { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/** The label after `# %%` of the marker that opens each cell (null for the preamble). */
function cellLabels(text: string, startLines: number[]): (string | null)[] {
  const lines = text.split('\n');
  return startLines.map(s => {
    if (s === 0) {
      return null;
    }
    const m = /^#\s*%%(.*)$/.exec(lines[s - 1]);
    return m ? m[1].trim() : null;
  });
}

function residency(cells: CellInput[], setupIdx: number, cellIdx: number): Record<string, unknown> {
  try {
    const plan = rewriteNotebook(cells);
    const cellIndex = cells[cellIdx].index;
    return {
      cell: plan.gpuCells.includes(cellIndex) ? plan.cells[cellIdx].source : null,
      // kernels the plan defines once in the import cell (ElementwiseKernel, RawKernel, fused
      // functions); `cell` calls them, so run these first (once) where `cell` runs alone
      prelude: plan.definitions.map(d => d.text).join('\n'),
      setup: plan.cells[setupIdx].source,
      gpu_cells: plan.gpuCells,
      changes: plan.changes,
      transfers: plan.transfers
    };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

async function main(): Promise<void> {
  await initNodeParser();
  const files = readdirSync(WORKLOADS)
    .filter(f => f.endsWith('.py'))
    .sort();
  const workloads: Record<string, unknown>[] = [];
  for (const f of files) {
    const path = join(WORKLOADS, f);
    const text = readFileSync(path, 'utf8');
    const loaded = parsePythonFile(path, text);
    const labels = cellLabels(text, loaded.cellStartLines ?? []);
    const setupIdx = labels.indexOf('setup');
    const cellIdx = labels.indexOf('cell');
    const description = text
      .split('\n')
      .filter(l => l.startsWith('#') && !/^#\s*%%/.test(l))
      .slice(0, 1)
      .map(l => l.replace(/^#\s*/, ''))
      .join('');
    if (setupIdx < 0 || cellIdx < 0) {
      workloads.push({ name: basename(f, '.py'), file: `bench/workloads/${f}`, error: 'no `# %% setup` and `# %% cell` markers' });
      continue;
    }
    const analyzer = new NotebookAnalyzer({});
    const result = analyzer.update(loaded.cells);
    const cell = loaded.cells[cellIdx];
    const forCell = <T extends { cellIndex: number }>(xs: T[]): T[] => xs.filter(x => x.cellIndex === cell.index);
    workloads.push({
      name: basename(f, '.py'),
      file: `bench/workloads/${f}`,
      description,
      setup: loaded.cells[setupIdx].source,
      baseline: cell.source,
      suggestions: forCell(result.suggestions).map(s => ({
        rule: s.rule,
        library: s.library,
        title: s.title,
        confidence: s.confidence,
        predicted_speedup: s.predicted_speedup,
        prediction: s.prediction,
        candidate: s.candidate,
        imports: s.imports,
        notes: s.notes,
        reference: s.reference
      })),
      refusals: forCell(result.refusals).map(r => ({ rule: r.rule, reason: r.reason })),
      // The engine's whole-notebook residency form (src/analysis/plan.ts): the same cell when
      // its inputs already live on the device (no edge conversions), and what the plan does to
      // the setup. The bench's device-resident variant runs `plan.cell`.
      plan: residency(loaded.cells, setupIdx, cellIdx),
      diagnostics: forCell(result.diagnostics).map(d => d.message),
      // Findings on the other cells (setup, preamble), kept for completeness.
      other_cells: {
        suggestions: result.suggestions.filter(s => s.cellIndex !== cell.index).map(s => ({ cell: s.cellIndex, rule: s.rule })),
        refusals: result.refusals.filter(r => r.cellIndex !== cell.index).map(r => ({ cell: r.cellIndex, rule: r.rule, reason: r.reason })),
        diagnostics: result.diagnostics.filter(d => d.cellIndex !== cell.index).map(d => ({ cell: d.cellIndex, message: d.message }))
      }
    });
  }
  const dirty = git('status --porcelain -- src/analysis');
  const out = {
    version: 1,
    generated: new Date().toISOString(),
    engine: {
      git_commit: git('rev-parse HEAD'),
      src_analysis_uncommitted_changes: dirty ? dirty.split('\n') : [],
      rules: RULES.map(r => ({ id: r.id, family: r.family, library: r.library, title: r.title })),
      options: 'NotebookAnalyzer defaults (minSpeedup 1.5, all families, DEFAULT_DEVICE_PROFILE); no runtime info'
    },
    workloads
  };
  writeFileSync(OUT, JSON.stringify(out, null, 2) + '\n');
  for (const w of workloads) {
    const s = (w.suggestions as { rule: string; predicted_speedup: number }[] | undefined) ?? [];
    const r = (w.refusals as { rule: string; reason: string }[] | undefined) ?? [];
    process.stdout.write(
      `${String(w.name).padEnd(18)} ${s.length ? s.map(x => `${x.rule} (predicted ${x.predicted_speedup}x)`).join(', ') : 'NO CANDIDATE'}` +
        ((w.plan as { cell?: string | null } | undefined)?.cell ? '; residency form: yes' : '; residency form: none') +
        (r.length ? `; refused: ${r.map(x => `${x.rule}: ${x.reason}`).join('; ')}` : '') +
        '\n'
    );
  }
  process.stdout.write(`wrote ${OUT}\n`);
}

main().catch(e => {
  process.stderr.write(`make_candidates: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
