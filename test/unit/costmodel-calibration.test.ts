/**
 * The cost model against the H200: every bench workload and the two rule fixtures that lost as
 * single cells, run through the real engine (sizes from the cells' literals), and the predicted
 * single-cell speedup compared with what the GPU measured.
 *
 * - Bench rows: read from the latest committed bench run that has every workload of
 *   bench/workloads/ (measured, or skipped with its reason): its `results.json` records, per
 *   workload, the exact setup and cell that ran (`setup_run`, `baseline_run`: bench/run_gpu.py's
 *   size scaling already applied, its factor in `size_factor`) and the engine row's
 *   `speedup_end_to_end` (CPU median / GPU median, the candidate's in-cell host->device copies
 *   included, outputs left on the device). The model is asked about those cells, so neither the
 *   figures nor the scaling rule are copied here.
 * - Fixture rows (2026-11-30, run 2): bench/results/2026-11-30-h200-run2/verify_fixtures.txt (one
 *   timed run each). GPU103/flag-elementwise's GPU run was a FIRST run: run 2's verify_on_gpu.py
 *   skipped the warm-up of a cell that rebinds a name it reads (`r = cp.asnumpy(r)`), so its
 *   171 ms include compiling the cell's ElementwiseKernel and sum; it is compared with the
 *   model's first-run figure. GPU102/flag-sparse-matvec was warmed up: compared with the steady
 *   figure.
 */
import { existsSync, readdirSync, readFileSync } from 'fs';
import { join, relative } from 'path';
import { analyzeNotebook } from '../../src/analysis/engine';
import { FIRST_USE_H200 } from '../../src/analysis/apis/first-use';
import { MEASURED_H200 } from '../../src/analysis/costmodel';
import type { CellInput, Suggestion } from '../../src/analysis/types';
import { parser, percentCells } from './helpers';

beforeAll(async () => {
  await parser();
});

/** Predictions must land within this factor of the measurement, either way. */
const FACTOR = 3;
const ROOT = join(__dirname, '..', '..');
const RESULTS = join(ROOT, 'bench', 'results');

/** What bench/run_gpu.py records per workload (the fields read here). */
interface BenchWorkload {
  name: string;
  size_factor?: number;
  setup_run?: string;
  baseline_run?: string;
  skipped?: string;
  rows: { variant?: string; rule?: string; speedup_end_to_end?: number | null }[];
}
interface BenchRun {
  date: string;
  fake_cupy: boolean;
  have_cupy_device: boolean;
  workloads: BenchWorkload[];
}

/** The workloads the bench defines (bench/workloads/<name>.py). */
const WORKLOADS = readdirSync(join(ROOT, 'bench', 'workloads'))
  .filter(f => f.endsWith('.py'))
  .map(f => f.slice(0, -3))
  .sort();

/** The engine's measured row of a workload, if it ran. */
function engineRow(w: BenchWorkload): { rule: string; speedup: number } | null {
  const row = w.rows.find(r => r.variant === 'engine');
  const speedup = row?.speedup_end_to_end;
  return row?.rule && typeof speedup === 'number' && Number.isFinite(speedup) && w.setup_run !== undefined && w.baseline_run !== undefined
    ? { rule: row.rule, speedup }
    : null;
}

/** Every committed results.json (bench/results/<run>/results.json or <run>/bench/results.json). */
function benchRuns(): { path: string; run: BenchRun }[] {
  return readdirSync(RESULTS)
    .flatMap(dir => [join(RESULTS, dir, 'results.json'), join(RESULTS, dir, 'bench', 'results.json')])
    .filter(existsSync)
    .map(path => ({ path: relative(ROOT, path), run: JSON.parse(readFileSync(path, 'utf8')) as BenchRun }));
}

/** A real GPU run with a record of every workload: measured by the engine's row, or skipped with its reason. */
function complete(run: BenchRun): boolean {
  return (
    !run.fake_cupy &&
    run.have_cupy_device &&
    WORKLOADS.every(name => {
      const w = run.workloads.find(x => x.name === name);
      return w !== undefined && (engineRow(w) !== null || (typeof w.skipped === 'string' && w.skipped.length > 0));
    })
  );
}

const LATEST = benchRuns()
  .filter(r => complete(r.run))
  .sort((a, b) => a.run.date.localeCompare(b.run.date))
  .pop();
const MEASURED = (LATEST?.run.workloads ?? []).flatMap(w => {
  const row = engineRow(w);
  return row ? [{ workload: w, ...row }] : [];
});

/** The run's two cells, setup and the measured cell, as a notebook. */
function benchCells(w: BenchWorkload): CellInput[] {
  return [w.setup_run!, w.baseline_run!].map((source, index) => ({ id: `cell-${index}`, index, kind: 'code', source: source.trimEnd() }));
}

function benchSuggestion(w: BenchWorkload): Suggestion | undefined {
  return analyzeNotebook(benchCells(w), { minSpeedup: 0 }).suggestions.find(s => s.cellIndex === 1);
}

/** Integer literals (sizes) blanked: what the bench's size scaling may change. */
const sizesAside = (source: string): string => source.trimEnd().replace(/\d[\d_]*/g, '#');

function fixtureSuggestion(rule: string, name: string): Suggestion | undefined {
  const { cells, target } = percentCells(readFileSync(join(ROOT, 'test', 'fixtures', 'rules', rule, name, 'notebook.py'), 'utf8'));
  return analyzeNotebook(cells, { minSpeedup: 0 }).suggestions.find(s => s.cellIndex === target && s.rule === rule);
}

describe(`cost model calibration against the H200 (${LATEST?.path ?? 'no complete bench run'})`, () => {
  it('reads the latest bench run that has every workload, and every workload it measured', () => {
    expect(LATEST).toBeDefined();
    const skipped = LATEST!.run.workloads.filter(w => engineRow(w) === null).map(w => w.name);
    expect(MEASURED.map(m => m.workload.name).sort()).toEqual(WORKLOADS.filter(n => !skipped.includes(n)));
    // a bench that measured (almost) nothing would make the check below vacuous
    expect(MEASURED.length).toBeGreaterThanOrEqual(WORKLOADS.length - 1);
  });

  it.each(MEASURED.map(m => [m.workload.name, m.workload.size_factor ?? 1, m.rule, Number(m.speedup.toPrecision(3)), m.workload] as const))(
    '%s (size factor %s): %s predicted within 3x of the measured %sx',
    (name, _factor, rule, _shown, workload) => {
      // the cells measured are the workload file's, sizes aside (else the file changed since the run)
      const { cells } = percentCells(readFileSync(join(ROOT, 'bench', 'workloads', `${name}.py`), 'utf8'));
      expect(benchCells(workload).map(c => sizesAside(c.source))).toEqual(cells.map(c => sizesAside(c.source)));
      const s = benchSuggestion(workload);
      expect(s).toBeDefined();
      expect(s!.rule).toBe(rule);
      const measured = MEASURED.find(m => m.workload === workload)!.speedup;
      const predicted = s!.prediction.speedup;
      expect(predicted).toBeLessThanOrEqual(measured * FACTOR);
      expect(predicted).toBeGreaterThanOrEqual(measured / FACTOR);
    }
  );

  it('GPU103/flag-elementwise: its first run (kernel compile) is no speedup, as measured (0.8x)', () => {
    const s = fixtureSuggestion('GPU103', 'flag-elementwise')!;
    const p = s.prediction;
    // verify_fixtures.txt: cpu 142.1 ms, gpu 171.1 ms (a first run), 0.8x; in a process whose
    // earlier fixtures had compiled CuPy's built-in kernels: its own kernel compiled, the rest loaded
    const firstRun = p.cpuSeconds / (p.freshSessionSeconds! + MEASURED_H200.kernelCompileSeconds - FIRST_USE_H200.generatedKernels.elementwise.warm);
    expect(firstRun).toBeLessThanOrEqual(1);
    expect(firstRun).toBeGreaterThanOrEqual(0.8 / FACTOR);
    // a machine's first run compiles the built-in kernels too
    expect(p.firstRunSeconds!).toBeGreaterThan(p.freshSessionSeconds! + MEASURED_H200.kernelCompileSeconds);
    // the copies are charged at the measured pageable rates: 160 MB in, 80 MB back (~50 ms)
    expect(p.transferSeconds).toBeGreaterThan(0.04);
    expect(p.cpuSeconds).toBeGreaterThan(0.142 / FACTOR);
    expect(p.cpuSeconds).toBeLessThan(0.142 * FACTOR);
    expect(p.reason).toMatch(/first run on a machine also compiles \d+ built-in kernels, 1 generated kernel.*it pays from the second session on/);
    expect(s.explanation).toMatch(/Its first run on a machine compiles \d+ built-in kernels, 1 generated kernel[^.]* and is predicted/);
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
