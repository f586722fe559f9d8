/**
 * The analysis engine behind the UI's `NotebookAnalysisEngine` interface, through the
 * analysis package's public API only (src/analysis/index.ts): the UI never sees tree-sitter.
 */
import { initParser, NotebookAnalyzer } from '../analysis';
import type { AnalysisEngineFactory } from './model';

export interface ParserAssets {
  /** URL of web-tree-sitter's runtime wasm. */
  runtimeUrl: string;
  /** URL of the tree-sitter-python grammar wasm. */
  grammarUrl: string;
}

/** One analyser per notebook, all sharing one parser (loaded on first use). */
export function createEngineFactory(assets: ParserAssets): AnalysisEngineFactory {
  return async () => {
    await initParser({ locateFile: () => assets.runtimeUrl, languageWasm: assets.grammarUrl });
    // Everything predicted not to be slower comes back; the panel applies the user's
    // minimum-speedup setting itself, so changing it needs no re-analysis.
    const analyzer = new NotebookAnalyzer({ minSpeedup: 1 });
    return { analyze: cells => analyzer.update(cells) };
  };
}
