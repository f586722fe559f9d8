/**
 * The analysis engine's public API (browser and Node). Node-only helpers (reading the wasm
 * from node_modules) live in `./parser-node` and are not exported here, so webpack never sees
 * `fs`.
 */
export * from './types';
export { initParser, getParser, isParserReady, PythonParser } from './parser';
export type { ParserInitOptions, SyntaxNode, SyntaxTree } from './parser';
export { maskIPython, PYTHON_BODY_CELL_MAGICS } from './ipython';
export type { MaskResult, MaskedSpan } from './ipython';
export { NotebookModel, CellCache, parseCell, fromRuntime } from './notebook';
export type { CellModel, Binding } from './notebook';
export type { ValueInfo, ValueKind } from './values';
export { NotebookAnalyzer, analyzeNotebook } from './engine';
export type { AnalyzerOptions } from './engine';
export { applyEdits } from './edits';
export { predict, DEFAULT_DEVICE_PROFILE } from './costmodel';
export type { WorkEstimate } from './costmodel';
export { RULES, ruleById } from './rules/registry';
export type { Rule } from './rules/types';
export { rewriteNotebook } from './plan';
export type { ResidencyPlan, PlanChange, Transfer, PlanOptions } from './plan';
export { namesToInspect, MAX_INSPECT_NAMES } from './inspect';
