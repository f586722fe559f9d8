/** Words and numbers the panel and the result card show (src/ui/format.ts). */
import type { ABResult } from '../../src/kernel/protocol';
import type { BenchmarkRun } from '../../src/ui/model';
import { formatSeconds as analysisFormatSeconds, formatSpeedup as analysisFormatSpeedup } from '../../src/analysis/costmodel';
import {
  describeMatch,
  describePredictedSpeedup,
  describeRunProgress,
  formatBytes,
  formatConfidence,
  formatSeconds,
  formatSpeedup,
  ruleFamily,
  sourceHash,
  verdictHeadline
} from '../../src/ui/format';
import { readSettings, DEFAULT_SETTINGS } from '../../src/ui/settings';
import { abResult } from './ui-abResult.fixture';

test('formatSeconds picks the unit a person reads best', () => {
  expect(formatSeconds(8.2e-7)).toBe('820 ns');
  expect(formatSeconds(1.24e-5)).toBe('12.4 µs');
  expect(formatSeconds(0.0031)).toBe('3.1 ms');
  expect(formatSeconds(2.05)).toBe('2.05 s');
  expect(formatSeconds(185)).toBe('3 min 5 s');
  expect(formatSeconds(null)).toBe('—');
  expect(formatSeconds(Number.NaN)).toBe('—');
});

test('formatSeconds re-checks the unit after rounding; negatives and minutes keep their sign', () => {
  expect(formatSeconds(9.996e-4)).toBe('1 ms');
  expect(formatSeconds(0.9996)).toBe('1 s');
  expect(formatSeconds(9.996e-7)).toBe('1 µs');
  expect(formatSeconds(-0.0031)).toBe('-3.1 ms');
  expect(formatSeconds(-9.996e-4)).toBe('-1 ms');
  expect(formatSeconds(-185)).toBe('-3 min 5 s');
  expect(formatSeconds(179.6)).toBe('3 min 0 s');
  expect(formatSeconds(119.96)).toBe('2 min 0 s');
  expect(formatSeconds(0)).toBe('0 s');
});

test('one formatSeconds: the panel shows durations as the analysis and the CLI write them', () => {
  expect(formatSeconds).toBe(analysisFormatSeconds);
  expect(analysisFormatSeconds(0.17)).toBe('170 ms');
  expect(analysisFormatSeconds(0.0286)).toBe('28.6 ms');
});

test('one formatSpeedup: the panel writes a figure with the digits the reasons and the CLI use', () => {
  for (const x of [0.4213, 1.01, 3.5, 12.345, 978.4, 1234.5]) {
    expect(formatSpeedup(x)).toBe(analysisFormatSpeedup(x).replace(/x$/, '×'));
  }
  expect(analysisFormatSpeedup(1234.5)).toBe('1,235x');
  expect(analysisFormatSpeedup(1234.5, '×')).toBe('1,235×');
  expect(formatSpeedup(1234.5)).toBe('1,235×');
});

test('a single-cell prediction under 1.2x is not shown as faster', () => {
  expect(describePredictedSpeedup(3.5)).toBe('Predicted 3.50× faster');
  expect(describePredictedSpeedup(1.01)).toBe('Predicted 1.01× as a single cell: no speedup');
});

test('formatSpeedup, formatConfidence and formatBytes', () => {
  expect(formatSpeedup(12.345)).toBe('12.3×');
  expect(formatSpeedup(0.4213)).toBe('0.42×');
  expect(formatSpeedup(null)).toBe('—');
  expect(formatSpeedup(Number.POSITIVE_INFINITY)).toBe('—');
  expect(formatConfidence(0.85)).toBe('high (85%)');
  expect(formatConfidence(0.6)).toBe('medium (60%)');
  expect(formatConfidence(1.7)).toBe('high (100%)');
  expect(formatBytes(512)).toBe('512 B');
  expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.5 GiB');
});

test('verdict headlines and match lines say what happened', () => {
  expect(verdictHeadline(abResult())).toBe('GPU 10.0× faster');
  expect(verdictHeadline(abResult({ verdict: 'no_gpu' }))).toBe('No GPU in this kernel');
  expect(describeMatch(abResult())).toBe('Outputs y equal within tolerance (max abs error 1.0e-7)');
  const unverified = abResult({ match: { status: 'unverified', outputs: [] } }) as ABResult;
  expect(describeMatch(unverified)).toBe('Nothing was compared: unverified');
});

test('ruleFamily follows DESIGN.md: GPU1xx arrays ... GPU9xx scale', () => {
  expect(ruleFamily('GPU101')).toBe('arrays');
  expect(ruleFamily('GPU403')).toBe('dataframes');
  expect(ruleFamily('GPU901')).toBe('scale');
  expect(ruleFamily('E501')).toBeNull();
});

test('sourceHash is stable and tells texts apart', () => {
  expect(sourceHash('y = np.exp(x)')).toBe(sourceHash('y = np.exp(x)'));
  expect(sourceHash('y = np.exp(x)')).not.toBe(sourceHash('y = np.exp(x) '));
  expect(sourceHash('')).toMatch(/^[0-9a-f]{8}$/);
});

describe('describeRunProgress', () => {
  const base: BenchmarkRun = { phase: 'running', startedAt: 0, progress: null, result: null, error: null, abort: null };
  test('queued behind a busy kernel says so', () => {
    expect(describeRunProgress({ ...base, phase: 'waiting-for-kernel' }, 4000)).toBe(
      'Queued: the kernel is busy running another cell; the benchmark starts when it finishes (4 s).'
    );
  });
  test('running shows runs done, elapsed and budget', () => {
    const progress = { v: 1, id: 'r', type: 'progress' as const, phase: 'candidate' as const, runs_done: 7, elapsed_s: 1.5, budget_s: 3 };
    expect(describeRunProgress({ ...base, progress }, 0)).toBe(
      'Timing the GPU rewrite: 7 runs done, 1.5 s of a 3 s budget.'
    );
  });
});

test('readSettings keeps valid values and falls back for malformed ones', () => {
  const settings = readSettings({
    enabledFamilies: ['arrays', 'nonsense', 'graphs'],
    minPredictedSpeedup: 3,
    benchmarkBudgetSeconds: -1,
    analyzeOnEdit: false,
    debounceMs: 'soon'
  });
  expect(settings.enabledFamilies).toEqual(['arrays', 'graphs']);
  expect(settings.minPredictedSpeedup).toBe(3);
  expect(settings.benchmarkBudgetSeconds).toBe(DEFAULT_SETTINGS.benchmarkBudgetSeconds);
  expect(settings.analyzeOnEdit).toBe(false);
  expect(settings.debounceMs).toBe(DEFAULT_SETTINGS.debounceMs);
});
