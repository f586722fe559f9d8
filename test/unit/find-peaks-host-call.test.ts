/**
 * SciPy calls cupyx would run as a Python loop over device values (find_peaks with `distance`,
 * apis/cupyx.ts CUPYX_HOST_LOOP_ARGUMENTS) stay SciPy's on the host among a cell's device work,
 * handed a host copy of their signal, which the prediction charges on every run.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, checkPlanFixture, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

const setup = 'import numpy as np\nfrom scipy import signal\nrng = np.random.default_rng(7)\nx = rng.standard_normal(4_000_000)';
const envelope = 'env = np.abs(signal.hilbert(x))\n';

function suggestion(cell: string) {
  const result = analyzeNotebook(cellsOf(setup, cell));
  return result.suggestions.find(s => s.cellIndex === 1 && s.rule === 'GPU102');
}

describe('find_peaks with distance beside device work', () => {
  it('hands SciPy a host copy of the signal and charges it on every run, resident or not', () => {
    const s = suggestion(`${envelope}peaks, props = signal.find_peaks(env, height=0.5, distance=50)`);
    expect(s?.candidate).toContain('peaks, props = signal.find_peaks(cp.asnumpy(env), height=0.5, distance=50)');
    const without = suggestion(`${envelope}peaks, props = signal.find_peaks(env, height=0.5)`);
    expect(without?.candidate).toMatch(/= cupyx\.scipy\.signal\.find_peaks\(.*env.*, height=0\.5\)$/m);
    // the 32 MB copy back (at ~3 GB/s) is in the GPU figure, also with the data on the device
    expect(s!.prediction.gpuSeconds).toBeGreaterThan(without!.prediction.gpuSeconds + 5e-3);
    expect(s!.prediction.residentSpeedup!).toBeLessThan(without!.prediction.residentSpeedup!);
    expect(s!.notes.join('\n')).toMatch(/stays SciPy's on the host .*host copy of `env` \(32\.0 MB, `cp\.asnumpy\(\.\.\.\)`\), made on every run and counted in the prediction, and `peaks, props` are NumPy values/);
  });

  it('reads a host input as it is (no copy) where the signal is one', () => {
    const s = suggestion(`${envelope}peaks, _ = signal.find_peaks(x, distance=50)`);
    expect(s?.candidate).toContain('peaks, _ = signal.find_peaks(x, distance=50)');
    expect(s!.notes.join('\n')).toMatch(/it reads host values as they are \(no copy\)/);
  });

  it('keeps a cell whose only work is find_peaks with distance on the host', () => {
    const result = analyzeNotebook(cellsOf(setup, 'peaks, _ = signal.find_peaks(x, distance=50)'));
    expect(result.suggestions.filter(s => s.cellIndex === 1)).toEqual([]);
    expect(result.refusals.find(r => r.cellIndex === 1)?.reason).toMatch(/no other work for the device: kept on the host/);
  });
});

describe('plan fixture find-peaks-host-call (test/fixtures/plan/: verify_on_gpu.py runs both on the GPU)', () => {
  it('keeps the envelope resident, find_peaks on the host with one copy, its results host values', () => {
    const plan = checkPlanFixture('find-peaks-host-call', { session: 'warm' });
    expect(plan.cells[1].source).toContain('signal.find_peaks(cp.asnumpy(env_s), height=0.5, distance=50)');
  });
});
