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
import type { CellInput, DeviceProfile, RuntimeValueInfo } from '../analysis/types';

/** A whole-notebook rewrite: new sources by cell id, and one entry per change. */
export interface NotebookRewrite {
  sources: Map<string, string>;
  changes: { cellIndex: number; rule: string; title: string; detail?: string }[];
  /** How the rewrite was planned, for the summary (e.g. "residency planned notebook-wide"). */
  method: string;
  /** Where data crosses between host and device, one line each (when the planner says). */
  transfers?: string[];
  /**
   * The predicted seconds per session over the cells moved to the GPU (the planner's
   * `ResidencyPlan.figures`): whether a later session is a speedup, and the figures in words.
   */
  figures?: { pays: boolean; summary: string };
}

/**
 * `device`: the kernel's device profile, when known (else the analysis' H200 defaults);
 * `runtime`: what the kernel reported about the notebook's names (the sizes of arrays read from
 * files, which the plan keeps on the host when it cannot size them).
 */
export type NotebookRewriter = (
  cells: CellInput[],
  device?: DeviceProfile | null,
  runtime?: Readonly<Record<string, RuntimeValueInfo>>
) => NotebookRewrite | Promise<NotebookRewrite>;

/** The summary cell's markdown. */
export function rewriteSummary(sourceName: string, rewrite: NotebookRewrite): string {
  if (rewrite.changes.length === 0) {
    return `# GPU rewrite of \`${sourceName}\`\n\nNo cell had a GPU rewrite; this copy is unchanged.`;
  }
  const lines = rewrite.changes.map(c => {
    const detail = c.detail ? ` (${c.detail})` : '';
    const rule = c.rule === 'plan' ? '' : `**${c.rule}** `;
    return `- cell ${c.cellIndex + 1}: ${rule}${c.title}${detail}`;
  });
  return [
    `# GPU rewrite of \`${sourceName}\``,
    '',
    `${rewrite.changes.length} change${rewrite.changes.length === 1 ? '' : 's'}, planned ${rewrite.method}:`,
    '',
    ...(rewrite.figures ? [`${rewrite.figures.pays ? 'Predicted' : '**Warning**'}: ${rewrite.figures.summary}.`, ''] : []),
    ...lines,
    ...(rewrite.transfers && rewrite.transfers.length > 0
      ? ['', 'Host↔device transfers:', '', ...rewrite.transfers.map(t => `- ${t}`)]
      : []),
    '',
    'Outputs of rewritten cells were cleared. Benchmark each cell (GPU Optimizer panel) before trusting the speedup.'
  ].join('\n');
}

/**
 * Writes `<name>-gpu.ipynb` (or `-gpu-2`, ...) beside the notebook and opens it; its path, or
 * null when the rewrite is not predicted to pay and `confirm` (shown why) declines to write it,
 * as the CLI's `fix` writes such a rewrite only with `--even-if-slower`.
 */
export async function openRewrittenNotebook(
  app: JupyterFrontEnd,
  panel: NotebookPanel,
  rewriter: NotebookRewriter,
  device: DeviceProfile | null = null,
  confirm: (why: string) => Promise<boolean> = async () => true,
  runtime: Readonly<Record<string, RuntimeValueInfo>> = {}
): Promise<string | null> {
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
  const rewrite = await rewriter(cells, device, runtime);
  if (rewrite.figures && !rewrite.figures.pays && !(await confirm(rewrite.figures.summary))) {
    return null;
  }

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
