/**
 * "Rewrite whole notebook for GPU": writes a copy of the notebook with the rewrites applied,
 * led by a markdown cell that lists every change, and opens it. The original notebook is
 * left untouched (principle 5: nothing lost).
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { PathExt } from '@jupyterlab/coreutils';
import type * as nbformat from '@jupyterlab/nbformat';
import { NotebookPanel } from '@jupyterlab/notebook';
import { UUID } from '@lumino/coreutils';
import type { CellInput, Suggestion } from '../analysis/types';
import { CellText, planApply } from './applyPlan';

/** A whole-notebook rewrite: new sources by cell id, and one entry per change. */
export interface NotebookRewrite {
  sources: Map<string, string>;
  changes: { cellIndex: number; rule: string; title: string; detail?: string }[];
  /** How the rewrite was planned, for the summary (e.g. "residency planned notebook-wide"). */
  method: string;
}

export type NotebookRewriter = (cells: CellInput[]) => NotebookRewrite | Promise<NotebookRewrite>;

/**
 * A rewriter built from per-cell suggestions: the first suggestion of each cell, applied in
 * notebook order with its imports. Used when the engine offers no notebook-wide rewrite; it
 * does not plan where data lives across cells, and the summary says so.
 */
export function rewriteFromSuggestions(
  analyze: (cells: CellInput[]) => Suggestion[] | Promise<Suggestion[]>
): NotebookRewriter {
  return async cells => {
    const suggestions = await analyze(cells);
    const texts: CellText[] = cells.map(c => ({ id: c.id, kind: c.kind, source: c.source }));
    const changes: NotebookRewrite['changes'] = [];
    const done = new Set<string>();
    for (const suggestion of suggestions) {
      if (done.has(suggestion.cellId)) {
        continue;
      }
      const plan = planApply(texts, suggestion);
      if (!plan.ok) {
        continue;
      }
      for (const change of plan.changes) {
        const cell = texts.find(t => t.id === change.cellId);
        if (cell) {
          cell.source = change.after;
        }
      }
      done.add(suggestion.cellId);
      changes.push({
        cellIndex: suggestion.cellIndex,
        rule: suggestion.rule,
        title: suggestion.title,
        detail: plan.addedImports.length > 0 ? `added ${plan.addedImports.join('; ')}` : undefined
      });
    }
    const sources = new Map<string, string>();
    texts.forEach((t, i) => {
      if (t.source !== cells[i].source) {
        sources.set(t.id, t.source);
      }
    });
    return {
      sources,
      changes,
      method: 'cell by cell (each cell’s first suggestion; data residency across cells is not planned)'
    };
  };
}

/** The summary cell's markdown. */
export function rewriteSummary(sourceName: string, rewrite: NotebookRewrite): string {
  if (rewrite.changes.length === 0) {
    return `# GPU rewrite of \`${sourceName}\`\n\nNo cell had a GPU rewrite; this copy is unchanged.`;
  }
  const lines = rewrite.changes.map(c => {
    const detail = c.detail ? ` (${c.detail})` : '';
    return `- cell ${c.cellIndex + 1}: **${c.rule}** ${c.title}${detail}`;
  });
  return [
    `# GPU rewrite of \`${sourceName}\``,
    '',
    `${rewrite.changes.length} change${rewrite.changes.length === 1 ? '' : 's'}, planned ${rewrite.method}:`,
    '',
    ...lines,
    '',
    'Outputs of rewritten cells were cleared. Benchmark each cell (GPU Optimizer panel) before trusting the speedup.'
  ].join('\n');
}

/** Writes `<name>-gpu.ipynb` (or `-gpu-2`, ...) beside the notebook and opens it. */
export async function openRewrittenNotebook(
  app: JupyterFrontEnd,
  panel: NotebookPanel,
  rewriter: NotebookRewriter
): Promise<string> {
  const model = panel.model;
  if (!model) {
    throw new Error('the notebook has not loaded yet');
  }
  const json = model.toJSON() as nbformat.INotebookContent;
  const cells: CellInput[] = json.cells.map((cell, index) => ({
    id: typeof cell.id === 'string' ? cell.id : model.cells.get(index).id,
    index,
    kind: cell.cell_type === 'code' || cell.cell_type === 'markdown' ? cell.cell_type : 'raw',
    source: Array.isArray(cell.source) ? cell.source.join('') : cell.source
  }));
  const rewrite = await rewriter(cells);

  const newCells: nbformat.ICell[] = json.cells.map((cell, index) => {
    const source = rewrite.sources.get(cells[index].id);
    if (source === undefined) {
      return cell;
    }
    return cell.cell_type === 'code'
      ? { ...cell, source, outputs: [], execution_count: null }
      : { ...cell, source };
  });
  const sourceName = PathExt.basename(panel.context.path);
  newCells.unshift({
    cell_type: 'markdown',
    id: UUID.uuid4().slice(0, 8),
    metadata: {},
    source: rewriteSummary(sourceName, rewrite)
  });
  const content: nbformat.INotebookContent = { ...json, cells: newCells };

  const dir = PathExt.dirname(panel.context.path);
  const stem = PathExt.basename(sourceName, PathExt.extname(sourceName));
  const contents = app.serviceManager.contents;
  let path = '';
  for (let n = 1; n < 100; n++) {
    const candidate = PathExt.join(dir, `${stem}-gpu${n === 1 ? '' : `-${n}`}.ipynb`);
    const exists = await contents.get(candidate, { content: false }).then(
      () => true,
      () => false
    );
    if (!exists) {
      path = candidate;
      break;
    }
  }
  if (!path) {
    throw new Error(`too many rewritten copies of ${sourceName} already exist`);
  }
  await contents.save(path, { type: 'notebook', format: 'json', content });
  await app.commands.execute('docmanager:open', { path });
  return path;
}
