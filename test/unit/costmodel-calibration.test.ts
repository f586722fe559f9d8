/**
 * The cost model against the H200: every bench workload and the two rule fixtures that lost as
 * single cells, run through the real engine (sizes from the cells' literals), and the predicted
 * single-cell speedup compared with what the GPU measured.
 *
 * Measured figures (2026-11-30, NVIDIA H200, run 2):
 * - bench rows: `speedup_end_to_end` (CPU median / GPU median, the candidate's in-cell host->device
 *   copies included, outputs left on the device) in bench/results/2026-11-30-h200-run2/results.json;
 * - fixture rows: bench/results/2026-11-30-h200-run2/verify_fixtures.txt (one timed run each).
 *   GPU103/flag-elementwise's GPU run was a FIRST run: verify_on_gpu.py skips the warm-up of a
 *   cell that rebinds a name it reads (`r = cp.asnumpy(r)`), so its 171 ms include compiling the
 *   cell's ElementwiseKernel and sum; it is compared with the model's first-run figure.
 *   GPU102/flag-sparse-matvec was warmed up: compared with the steady figure.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { analyzeNotebook } from '../../src/analysis/engine';
import type { Suggestion } from '../../src/analysis/types';
import { parser, percentCells } from './helpers';

beforeAll(async () => {
  await parser();
});

/** Predictions must land within this factor of the measurement, either way. */
const FACTOR = 3;
const ROOT = join(__dirname, '..', '..');

/** bench/run_gpu.py's scale_source: integer literals >= 1000 times `factor`. */
function scaleSource(src: string, factor: number): string {
  return factor === 1
    ? src
    : src.replace(/(?<![\w.])(\d[\d_]*)(?![\w.]|e)/g, m => {
        const v = Number(m.replace(/_/g, ''));
        return v < 1000 ? m : String(Math.max(16, Math.round(v * factor)));
      });
}

function benchSuggestion(workload: string, scale: number): Suggestion | undefined {
  const text = scaleSource(readFileSync(join(ROOT, 'bench', 'workloads', `${workload}.py`), 'utf8'), scale);
  const { cells } = percentCells(text);
  const target = cells.length - 1;
  const result = analyzeNotebook(cells, { minSpeedup: 0 });
  return result.suggestions.find(s => s.cellIndex === target);
}

function fixtureSuggestion(rule: string, name: string): Suggestion | undefined {
  const { cells, target } = percentCells(readFileSync(join(ROOT, 'test', 'fixtures', 'rules', rule, name, 'notebook.py'), 'utf8'));
  return analyzeNotebook(cells, { minSpeedup: 0 }).suggestions.find(s => s.cellIndex === target && s.rule === rule);
}

// workload, bench scale (run_gpu.py WORKLOAD_SCALE), measured end-to-end speedup (results.json)
const BENCH: [string, number, number][] = [
  ['elementwise_chain', 1, 8.73],
  ['stencil_slices', 1, 12.1],
  ['reduction', 1, 7.93],
  ['matmul', 1, 11.9],
  ['fft2', 1, 79.3],
  ['sorting', 1, 18.2],
  ['monte_carlo', 0.1, 337],
  ['ndimage_filter', 1, 296],
  ['sparse_matvec_csr', 1, 1.59]
];

describe('cost model calibration against the H200 (bench/results/2026-11-30-h200-run2)', () => {
  it.each(BENCH)('%s (scale %s): predicted within 3x of the measured %sx', (workload, scale, measured) => {
    const s = benchSuggestion(workload, scale);
    expect(s).toBeDefined();
    const predicted = s!.prediction.speedup;
    expect(predicted).toBeLessThanOrEqual(measured * FACTOR);
    expect(predicted).toBeGreaterThanOrEqual(measured / FACTOR);
  });

  it('GPU103/flag-elementwise: its first run (kernel compile) is no speedup, as measured (0.8x)', () => {
    const s = fixtureSuggestion('GPU103', 'flag-elementwise')!;
    const p = s.prediction;
    // verify_fixtures.txt: cpu 142.1 ms, gpu 171.1 ms (a first run), 0.8x
    const firstRun = p.cpuSeconds / p.firstRunSeconds!;
    expect(firstRun).toBeLessThanOrEqual(1);
    expect(firstRun).toBeGreaterThanOrEqual(0.8 / FACTOR);
    // the copies are charged at the measured pageable rates: 160 MB in, 80 MB back (~50 ms)
    expect(p.transferSeconds).toBeGreaterThan(0.04);
    expect(p.cpuSeconds).toBeGreaterThan(0.142 / FACTOR);
    expect(p.cpuSeconds).toBeLessThan(0.142 * FACTOR);
    expect(p.reason).toMatch(/first run also compiles 1 kernel/);
    expect(s.explanation).toMatch(/first run compiles the kernel it defines/);
    // resident, the same work is far faster (no copies, kernel defined once)
    expect(p.residentSpeedup!).toBeGreaterThan(100);
  });

  it('GPU102/flag-sparse-matvec: as a single cell about 1x, as measured (0.7x), and not presented as a speedup', () => {
    const s = fixtureSuggestion('GPU102', 'flag-sparse-matvec')!;
    const p = s.prediction;
    // verify_fixtures.txt: cpu 13.3 ms, gpu 19.6 ms (warmed up), 0.7x
    expect(p.speedup).toBeLessThanOrEqual(1.1);
    expect(p.speedup).toBeGreaterThanOrEqual(0.7 / FACTOR);
    expect(p.reason).toMatch(/not a speedup as a single cell/);
    expect(s.explanation).toMatch(/As a single cell this is not a speedup/);
    expect(s.confidence).toBeLessThan(0.5);
  });
});
