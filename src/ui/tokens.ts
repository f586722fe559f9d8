/**
 * Command ids, in one place so that widgets can raise intents (execute a command) without
 * importing the module that registers them (src/ui/commands.ts).
 */
export namespace CommandIDs {
  export const openPanel = 'gpuoptimize:open-panel';
  export const analyzeNotebook = 'gpuoptimize:analyze-notebook';
  export const benchmarkCell = 'gpuoptimize:benchmark-cell';
  export const applySuggestion = 'gpuoptimize:apply-suggestion';
  export const explainSuggestion = 'gpuoptimize:explain-suggestion';
  export const dismissSuggestion = 'gpuoptimize:dismiss-suggestion';
  export const restoreDismissed = 'gpuoptimize:restore-dismissed';
  export const cancelBenchmark = 'gpuoptimize:cancel-benchmark';
  export const restartKernel = 'gpuoptimize:restart-kernel';
  export const rewriteNotebook = 'gpuoptimize:rewrite-notebook';
  export const checkDevice = 'gpuoptimize:check-device';
  export const revealCell = 'gpuoptimize:reveal-cell';
}

/** The side panel's widget id (also the layout restorer's key). */
export const PANEL_ID = 'jp-gpuoptimize-panel';
