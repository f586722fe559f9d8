/**
 * The analysis engine behind the UI's `NotebookAnalysisEngine` interface, through the
 * analysis package's public API only (src/analysis/index.ts): the UI never sees tree-sitter.
 */
import { initParser, namesToInspect, NotebookAnalyzer, rewriteNotebook } from '../analysis';
import type { DeviceProfile, RuntimeValueInfo } from '../analysis';
import type { AnalysisEngineFactory } from './model';
import type { NotebookRewriter } from './rewrite';

export interface ParserAssets {
  /** URL of web-tree-sitter's runtime wasm. */
  runtimeUrl: string;
  /** URL of the tree-sitter-python grammar wasm. */
  grammarUrl: string;
}

/** The runtime map of a notebook whose kernel told us nothing (one object: cheap to compare). */
const NO_RUNTIME: Record<string, RuntimeValueInfo> = {};

/** One analyser per notebook, all sharing one parser (loaded on first use). */
export function createEngineFactory(assets: ParserAssets): AnalysisEngineFactory {
  return async () => {
    await initParser({ locateFile: () => assets.runtimeUrl, languageWasm: assets.grammarUrl });
    // Everything predicted not to be slower comes back; the panel applies the user's
    // minimum-speedup setting itself, so changing it needs no re-analysis.
    const analyzer = new NotebookAnalyzer({ minSpeedup: 1 });
    let device: DeviceProfile | null = null;
    // The kernel's reports (runtime) override literals; the engine re-runs only what reads them.
    return {
      analyze: (cells, runtime, profile = null) => {
        if (profile !== device) {
          // Another device prices every cell again: the analyser keeps its parses, not its outcomes.
          device = profile;
          analyzer.setOptions(device ? { minSpeedup: 1, device } : { minSpeedup: 1 });
        }
        return analyzer.update(cells, runtime ?? NO_RUNTIME);
      },
      namesToInspect: () => (analyzer.model ? namesToInspect(analyzer.model) : [])
    };
  };
}

/**
 * The engine's whole-notebook rewrite (the residency plan): data stays on the device between
 * GPU cells and crosses to the host only where a host consumer needs it.
 */
export function createPlanRewriter(assets: ParserAssets): NotebookRewriter {
  return async (cells, device, runtime) => {
    await initParser({ locateFile: () => assets.runtimeUrl, languageWasm: assets.grammarUrl });
    const plan = rewriteNotebook(cells, { ...(device ? { device } : {}), ...(runtime ? { runtime: { ...runtime } } : {}) });
    const sources = new Map<string, string>();
    plan.cells.forEach((cell, i) => {
      if (cell.source !== cells[i].source) {
        sources.set(cell.id, cell.source);
      }
    });
    return {
      sources,
      changes: plan.changes.map(change => ({
        cellIndex: change.cellIndex,
        rule: change.rule ?? 'plan',
        title: change.summary
      })),
      transfers: plan.transfers.map(
        t =>
          `cell ${t.cellIndex + 1}: \`${t.name}\` ${t.direction === 'to-device' ? 'moves to the GPU' : 'comes back to the host'} (${t.reason})`
      ),
      method: 'notebook-wide (data stays on the GPU between cells; it moves only where listed below)',
      ...(plan.figures ? { figures: { pays: plan.figures.pays, summary: plan.figures.summary } } : {})
    };
  };
}
