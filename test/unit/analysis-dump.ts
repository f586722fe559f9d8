/**
 * A readable dump of everything the engine says about a notebook: each suggestion (rule, cell,
 * title, confidence, predicted speedup, prediction, edits, imports, notes, candidate), each
 * refusal and diagnostic, and the whole-notebook rewrite (`rewriteNotebook`). Used by
 * test/unit/analysis-snapshot.test.ts and by bench/analysis_golden.ts (speed work must leave
 * every line of it unchanged).
 */
import { readdirSync, readFileSync, existsSync, statSync } from 'fs';
import { join } from 'path';
import { analyzeNotebook } from '../../src/analysis/engine';
import type { PythonParser } from '../../src/analysis/parser';
import { rewriteNotebook } from '../../src/analysis/plan';
import type { CellInput, RuntimeValueInfo } from '../../src/analysis/types';
import { percentCells } from './helpers';

export interface NamedNotebook {
  name: string;
  cells: CellInput[];
  runtime?: Record<string, RuntimeValueInfo>;
}

/**
 * Every notebook under test/fixtures/rules (each case) and test/fixtures/plan, in a fixed order.
 * `fixtures` is the test/fixtures folder (bundled callers pass it: their __dirname differs).
 */
export function fixtureNotebooks(fixtures = join(__dirname, '..', 'fixtures')): NamedNotebook[] {
  const out: NamedNotebook[] = [];
  for (const group of ['rules', 'plan']) {
    const root = join(fixtures, group);
    for (const rule of readdirSync(root).sort()) {
      const ruleDir = join(root, rule);
      if (!statSync(ruleDir).isDirectory()) {
        continue;
      }
      const cases = existsSync(join(ruleDir, 'notebook.py')) ? [''] : readdirSync(ruleDir).sort();
      for (const name of cases) {
        const dir = join(ruleDir, name);
        if (!existsSync(join(dir, 'notebook.py'))) {
          continue;
        }
        const runtime = join(dir, 'runtime.json');
        out.push({
          name: [group, rule, name].filter(Boolean).join('/'),
          cells: percentCells(readFileSync(join(dir, 'notebook.py'), 'utf8')).cells,
          runtime: existsSync(runtime) ? (JSON.parse(readFileSync(runtime, 'utf8')) as Record<string, RuntimeValueInfo>) : undefined
        });
      }
    }
  }
  return out;
}

function block(text: string): string {
  return text
    .split('\n')
    .map(l => `    | ${l}`)
    .join('\n');
}

/** The dump of one notebook: analysis, then the residency plan. */
export function dumpNotebook(nb: NamedNotebook, parser: PythonParser): string {
  const lines: string[] = [`=== ${nb.name}`];
  const result = analyzeNotebook(nb.cells, { runtime: nb.runtime, parser });
  for (const s of result.suggestions) {
    lines.push(`-- ${s.rule} cell ${s.cellIndex} (${s.cellId}) ${s.library}: ${s.title}`);
    lines.push(`   confidence ${s.confidence}, predicted ${s.predicted_speedup}x, reference ${s.reference}${s.needsKernelRestart ? ', restart' : ''}`);
    const p = s.prediction;
    lines.push(`   prediction cpu ${p.cpuSeconds} s, gpu ${p.gpuSeconds} s, transfer ${p.transferSeconds} s: ${p.reason}`);
    for (const e of s.edits) {
      lines.push(`   edit [${e.start}, ${e.end}) ${JSON.stringify(e.text)}`);
    }
    for (const i of s.imports) {
      lines.push(`   import ${i}`);
    }
    for (const n of s.notes) {
      lines.push(`   note ${n}`);
    }
    lines.push(`   explanation ${JSON.stringify(s.explanation)}`);
    lines.push('   candidate:', block(s.candidate));
  }
  for (const r of result.refusals) {
    lines.push(`-- refused ${r.rule} cell ${r.cellIndex} (${r.cellId}): ${r.reason}`);
  }
  for (const d of result.diagnostics) {
    lines.push(`-- diagnostic cell ${d.cellIndex} (${d.cellId}): ${d.message}`);
  }
  const plan = rewriteNotebook(nb.cells, { runtime: nb.runtime, parser });
  lines.push(`-- plan: GPU cells [${plan.gpuCells.join(', ')}], definitions in cell ${plan.definitionsCell}`);
  for (const c of plan.changes) {
    lines.push(`   change cell ${c.cellIndex}${c.rule ? ` ${c.rule}` : ''}: ${c.summary}`);
  }
  for (const t of plan.transfers) {
    lines.push(`   transfer cell ${t.cellIndex} ${t.name} ${t.direction}: ${t.reason}`);
  }
  for (const d of plan.definitions) {
    lines.push(`   definition ${d.name} (cell ${d.cellIndex}):`, block(d.text));
  }
  plan.cells.forEach((c, k) => {
    if (c.source !== nb.cells[k].source) {
      lines.push(`   cell ${k} rewritten:`, block(c.source));
    }
  });
  return lines.join('\n') + '\n';
}
