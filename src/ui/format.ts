/**
 * Pure formatting helpers for the panel and the result card. No DOM, no JupyterLab: unit
 * tested in test/unit/ui-format.test.ts.
 */
import type { ABResult, Verdict } from '../kernel/protocol';
import type { RuleFamily } from '../analysis/types';
import type { BenchmarkRun } from './model';
import { ALL_RULE_FAMILIES } from './settings';
import { formatSeconds, formatSpeedup as formatSpeedupAs, NOT_A_SPEEDUP, threeDigits as round } from '../analysis/costmodel';

// One duration formatter for the analysis' reasons, the CLI and the panel.
export { formatSeconds } from '../analysis/costmodel';

/**
 * A speedup factor: "12.3×", "0.42×"; "—" when unknown. The analysis' formatter with the
 * typographic sign, so the card's figure reads as the reasons and Explain write it.
 */
export function formatSpeedup(speedup: number | null | undefined): string {
  if (speedup === null || speedup === undefined || !Number.isFinite(speedup)) {
    return '—';
  }
  return formatSpeedupAs(speedup, '×');
}

/**
 * The card's headline figure. A single-cell prediction under NOT_A_SPEEDUP is never shown as
 * "faster" (the suggestion's reason, in the card's tooltip and Explain, says why it is offered).
 */
export function describePredictedSpeedup(speedup: number): string {
  return speedup < NOT_A_SPEEDUP
    ? `Predicted ${formatSpeedup(speedup)} as a single cell: no speedup`
    : `Predicted ${formatSpeedup(speedup)} faster`;
}

/** 0..1 confidence as a word and a percentage: "high (85%)". */
export function formatConfidence(confidence: number): string {
  const clamped = Math.min(1, Math.max(0, confidence));
  const word = clamped >= 0.8 ? 'high' : clamped >= 0.5 ? 'medium' : 'low';
  return `${word} (${Math.round(clamped * 100)}%)`;
}

/** Bytes with binary units: "1.5 GiB". */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) {
    return '—';
  }
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : round(value)} ${units[unit]}`;
}

/** The headline of a result card, one short phrase per verdict. */
export function verdictHeadline(result: ABResult): string {
  const headlines: Record<Verdict, string> = {
    gpu_faster: `GPU ${formatSpeedup(result.speedup.end_to_end)} faster`,
    gpu_slower: 'GPU slower than CPU',
    not_equal: 'Results differ',
    error: 'Run failed',
    cancelled: 'Cancelled',
    stale: 'Cell changed during the run',
    refused: 'Not run',
    no_gpu: 'No GPU in this kernel'
  };
  return headlines[result.verdict];
}

/** Whether a verdict is good news (used for the card's colour, never as the only cue). */
export function verdictTone(verdict: Verdict): 'good' | 'bad' | 'neutral' {
  switch (verdict) {
    case 'gpu_faster':
      return 'good';
    case 'gpu_slower':
    case 'not_equal':
    case 'error':
      return 'bad';
    default:
      return 'neutral';
  }
}

/** The match line: "Outputs equal (max abs error 1.2e-7)" etc. */
export function describeMatch(result: ABResult): string {
  const errors = result.match.outputs
    .map(o => o.max_abs_err)
    .filter((e): e is number => e !== null && Number.isFinite(e));
  const maxError = errors.length > 0 ? Math.max(...errors) : null;
  const errorText = maxError !== null ? ` (max abs error ${maxError.toExponential(1)})` : '';
  const names = result.match.outputs.map(o => o.name);
  const what = names.length > 0 ? `Outputs ${names.join(', ')}` : 'Outputs';
  switch (result.match.status) {
    case 'equal':
      return `${what} equal within tolerance${errorText}`;
    case 'statistical':
      return `${what} match statistically (random streams differ)${errorText}`;
    case 'not_equal':
      return `${what} NOT equal${errorText}`;
    case 'unverified':
      return names.length > 0
        ? `${what} could not be compared: unverified`
        : 'Nothing was compared: unverified';
  }
}

/** The rule family of a rule id, from DESIGN.md's table: GPU1xx arrays ... GPU9xx scale. */
export function ruleFamily(rule: string): RuleFamily | null {
  const match = /^GPU(\d)\d\d$/.exec(rule);
  if (!match) {
    return null;
  }
  return ALL_RULE_FAMILIES[Number(match[1]) - 1] ?? null;
}

/**
 * A short, stable hash of a cell's source (FNV-1a, hex). Sent with run_ab so the shim can
 * say whether the cell changed during the run; not a security measure.
 */
export function sourceHash(source: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < source.length; i++) {
    hash ^= source.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** Words for a benchmark that has not finished yet. */
export function describeRunProgress(run: BenchmarkRun, now: number): string {
  const waited = formatSeconds((now - run.startedAt) / 1000);
  switch (run.phase) {
    case 'connecting':
      return `Loading the gpuoptimize kernel extension… (${waited})`;
    case 'waiting-for-previous':
      return `Queued behind another benchmark of this notebook (${waited}).`;
    case 'waiting-for-kernel':
      return `Queued: the kernel is busy running another cell; the benchmark starts when it finishes (${waited}).`;
    case 'running': {
      const p = run.progress;
      if (!p) {
        return `Starting… (${waited})`;
      }
      const what =
        p.phase === 'baseline'
          ? 'Timing the CPU original'
          : p.phase === 'candidate'
            ? 'Timing the GPU rewrite'
            : 'Comparing outputs';
      return `${what}: ${p.runs_done} run${p.runs_done === 1 ? '' : 's'} done, ${formatSeconds(p.elapsed_s)} of a ${formatSeconds(p.budget_s)} budget.`;
    }
    default:
      return '';
  }
}
