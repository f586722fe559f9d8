/**
 * The extension's settings (schema/plugin.json), read into a typed object. The schema holds
 * the defaults shown in the Settings Editor; DEFAULT_SETTINGS repeats them for the time
 * before the registry has loaded and for values the schema rejects.
 */
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import type { RuleFamily } from '../analysis/types';

/** Every rule family, in DESIGN.md's table order: index i holds the GPU(i+1)xx rules. */
export const ALL_RULE_FAMILIES: readonly RuleFamily[] = [
  'arrays',
  'kernels',
  'simulation',
  'dataframes',
  'ml',
  'graphs',
  'vectors',
  'images-io',
  'scale'
];

export interface GpuOptimizerSettings {
  /** Rule families whose suggestions are shown. */
  enabledFamilies: RuleFamily[];
  /** Suggestions predicted to be slower than this factor are hidden. */
  minPredictedSpeedup: number;
  /** Seconds of timed runs per side in a Benchmark. */
  benchmarkBudgetSeconds: number;
  rtol: number;
  atol: number;
  /** Re-analyse the notebook while the user types. */
  analyzeOnEdit: boolean;
  /** Quiet time after the last edit before re-analysing (ms). */
  debounceMs: number;
  /** Load the kernel shim when the panel shows a notebook, to display the device status. */
  connectOnOpen: boolean;
}

export const DEFAULT_SETTINGS: Readonly<GpuOptimizerSettings> = {
  enabledFamilies: [...ALL_RULE_FAMILIES],
  minPredictedSpeedup: 1.2,
  benchmarkBudgetSeconds: 3,
  rtol: 1e-5,
  atol: 1e-8,
  analyzeOnEdit: true,
  debounceMs: 600,
  connectOnOpen: true
};

function numberOr(value: unknown, fallback: number, min: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min ? value : fallback;
}

/** Reads the composite settings, falling back to the default for anything malformed. */
export function readSettings(composite: ReadonlyPartialJSONObject): GpuOptimizerSettings {
  const families = composite.enabledFamilies;
  return {
    enabledFamilies: Array.isArray(families)
      ? ALL_RULE_FAMILIES.filter(f => families.includes(f))
      : [...DEFAULT_SETTINGS.enabledFamilies],
    minPredictedSpeedup: numberOr(composite.minPredictedSpeedup, DEFAULT_SETTINGS.minPredictedSpeedup, 0),
    benchmarkBudgetSeconds: numberOr(
      composite.benchmarkBudgetSeconds,
      DEFAULT_SETTINGS.benchmarkBudgetSeconds,
      0.1
    ),
    rtol: numberOr(composite.rtol, DEFAULT_SETTINGS.rtol, 0),
    atol: numberOr(composite.atol, DEFAULT_SETTINGS.atol, 0),
    analyzeOnEdit:
      typeof composite.analyzeOnEdit === 'boolean'
        ? composite.analyzeOnEdit
        : DEFAULT_SETTINGS.analyzeOnEdit,
    debounceMs: numberOr(composite.debounceMs, DEFAULT_SETTINGS.debounceMs, 0),
    connectOnOpen:
      typeof composite.connectOnOpen === 'boolean'
        ? composite.connectOnOpen
        : DEFAULT_SETTINGS.connectOnOpen
  };
}
