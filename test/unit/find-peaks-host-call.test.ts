/**
 * SciPy calls cupyx would run as a Python loop over device values (find_peaks with `distance`,
 * apis/cupyx.ts CUPYX_HOST_LOOP_ARGUMENTS) stay SciPy's on the host among a cell's device work,
 * handed a host copy of their signal, which the prediction charges on every run.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { readFileSync } from 'fs';
import { join } from 'path';
import { cellsOf, checkPlanFixture, parser, percentCells } from './helpers';

beforeAll(async () => {
  await parser();
});

const setup = 'import numpy as np\nfrom scipy import signal\nrng = np.random.default_rng(7)\nx = rng.standard_normal(4_000_000)';
const envelope = 'env = np.abs(signal.hilbert(x))\n';

/** The GPU102 suggestion for the target cell of rule fixture GPU102/<name>. */
function suggestionOf(name: string) {
  const { cells, target } = percentCells(readFileSync(join(__dirname, '..', 'fixtures', 'rules', 'GPU102', name, 'notebook.py'), 'utf8'));
  return analyzeNotebook(cells).suggestions.find(s => s.cellIndex === target && s.rule === 'GPU102');
}

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

describe('one host copy where the cell would copy the signal back again', () => {
  const smoothed = `${envelope}win = signal.get_window("hann", 101)\nenv_s = np.convolve(env, win / win.sum(), mode="same")\n`;
  const withLater = (cell: string, later: string) => analyzeNotebook(cellsOf(setup, cell, later)).suggestions.find(s => s.cellIndex === 1 && s.rule === 'GPU102');

  it('binds the copy (env_s_host) for the call and the end of the cell where the device array is read after the call, and charges it once', () => {
    const cell = `${smoothed}peaks, props = signal.find_peaks(env_s, height=0.5, distance=50)\nstrongest = env_s[peaks].max()`;
    const s = withLater(cell, 'print(float(env_s[:1000].mean()), float(strongest))');
    expect(s?.candidate).toContain('env_s_host = cp.asnumpy(env_s)\npeaks, props = signal.find_peaks(env_s_host, height=0.5, distance=50)\n');
    expect(s?.candidate).toMatch(/^env_s = env_s_host$/m);
    expect(s?.candidate.match(/asnumpy\(env_s\)/g)).toHaveLength(1);
    expect(s!.notes.join('\n')).toMatch(/host copy of `env_s` \(32\.0 MB, bound to `env_s_host` before the call: the end of the cell binds `env_s` to it for later cells, so one copy\)/);
    // the later cell's read costs no second 32 MB copy (~10 ms at ~3 GB/s)
    const alone = withLater(cell, 'print(float(strongest))');
    expect(alone?.candidate).toContain('signal.find_peaks(cp.asnumpy(env_s), height=0.5, distance=50)');
    expect(Math.abs(s!.prediction.gpuSeconds - alone!.prediction.gpuSeconds)).toBeLessThan(1e-3);
  });

  it("moves the cell's own copy back up before the call where nothing after it reads the array", () => {
    const s = withLater(`${smoothed}peaks, props = signal.find_peaks(env_s, height=0.5, distance=50)\nprint(len(peaks))`, 'print(float(env_s.mean()))');
    expect(s?.candidate).toMatch(/^env_s = cp\.asnumpy\(env_s\)\npeaks, props = signal\.find_peaks\(env_s, height=0\.5, distance=50\)\nprint\(len\(peaks\)\)$/m);
    expect(s?.candidate.match(/asnumpy/g)).toHaveLength(1);
    expect(s!.notes.join('\n')).toMatch(/`env_s = cp\.asnumpy\(env_s\)` before the call: the cell's copy back for later cells, made there rather than at its end, so one copy, not two/);
  });

  it('copies again where the array changes after the call', () => {
    const s = withLater(`${smoothed}peaks, props = signal.find_peaks(env_s, height=0.5, distance=50)\nenv_s /= env_s.max()`, 'print(float(env_s.mean()))');
    expect(s?.candidate).toContain('signal.find_peaks(cp.asnumpy(env_s), height=0.5, distance=50)');
    expect(s?.candidate).toMatch(/^env_s = cp\.asnumpy\(env_s\)$/m);
  });

  it('hands a second call on the same array the first one\'s copy', () => {
    const s = withLater(`${smoothed}near, _ = signal.find_peaks(env_s, distance=50)\nfar, far_props = signal.find_peaks(env_s, distance=400)\nr = env_s[far].mean() / env_s[near].mean()`, 'print(float(r))');
    expect(s?.candidate).toContain('env_s_host = cp.asnumpy(env_s)\nnear, _ = signal.find_peaks(env_s_host, distance=50)\nfar, far_props = signal.find_peaks(env_s_host, distance=400)');
    expect(s!.notes.join('\n')).toMatch(/it reads `env_s_host`, the host copy an earlier call here took \(no copy again\)/);
  });
});

describe('plan fixture find-peaks-host-call (test/fixtures/plan/: verify_on_gpu.py runs both on the GPU)', () => {
  it('keeps the envelope resident, find_peaks on the host with one copy, its results host values', () => {
    const plan = checkPlanFixture('find-peaks-host-call', { session: 'warm' });
    expect(plan.cells[1].source).toContain('env_s_host = cp.asnumpy(env_s)\npeaks, props = signal.find_peaks(env_s_host, height=0.5, distance=50)');
    // cell 2 binds `amp = env_s[peaks]` (a view for all the analysis knows of `peaks`) and changes
    // nothing: the later host cells read that host copy, copying nothing again
    expect(plan.cells[4].source).toContain('signal.find_peaks(env_s_host, distance=200)');
    expect(plan.cells[5].source).toContain('plt.plot(env_s_host[:5000])');
    // (cell 1's copy is part of its GPU rewrite, not a host cell's transfer)
    expect(plan.transfers.filter(t => t.name === 'env_s' && t.direction === 'to-host')).toEqual([]);
  });
});

describe('plan fixture find-peaks-host-copy-reused', () => {
  it("later host cells read the host copy the find_peaks cell made (env_s_host) while the envelope stays unchanged", () => {
    const plan = checkPlanFixture('find-peaks-host-copy-reused', { session: 'warm' });
    expect(plan.gpuCells).toEqual([0, 1]);
    expect(plan.cells[2].source).toBe('np.save("env_s.npy", env_s_host)');
    expect(plan.cells[3].source).toContain('env_s_host[:5000]');
    expect(plan.transfers.filter(t => t.name === 'env_s')).toEqual([]);
    expect(plan.changes.find(c => c.cellIndex === 2)?.summary).toMatch(/reads env_s_host \(the host copy of env_s cell 1 made\): no copy again/);
  });
});

describe('a notebook function that changes or reads the signal (review: stale host copy, TypeError)', () => {
  it('copies back again where a function of an earlier cell changes the signal after the call (rule fixture)', () => {
    const s = suggestionOf('flag-find-peaks-distance-signal-changed-by-function');
    expect(s?.candidate).toContain('signal.find_peaks(cp.asnumpy(env_s), height=0.5, distance=50)');
    expect(s?.candidate).toMatch(/^clear_start\(\)\nhead = float\(env_s\[:2000\]\.sum\(\)\)\nenv_s = cp\.asnumpy\(env_s\)$/m);
    expect(s?.candidate).not.toMatch(/env_s_host/);
  });

  it('keeps the device array where a function of an earlier cell reads it after the call (rule fixture)', () => {
    const s = suggestionOf('flag-find-peaks-distance-signal-read-by-function');
    expect(s?.candidate).toContain('env_s_host = cp.asnumpy(env_s)\npeaks, props = signal.find_peaks(env_s_host, height=0.5, distance=50)\nresid = sub(env)\n');
    expect(s?.candidate).toMatch(/^env_s = env_s_host$/m);
    expect(s?.candidate).not.toMatch(/^env_s = cp\.asnumpy\(env_s\)$/m);
  });

  it('plan: no host copy for later cells where the find_peaks cell changes the signal through a function', () => {
    const plan = checkPlanFixture('find-peaks-signal-changed-by-function', { session: 'warm' });
    expect(plan.cells[1].source).not.toMatch(/env_s_host/);
    expect(plan.cells.slice(2).map(c => c.source).join('\n')).not.toMatch(/env_s_host/);
  });

  it('plan: later cells stop reading the host copy once a cell changes the signal through a function', () => {
    const plan = checkPlanFixture('find-peaks-signal-changed-by-function-later', { session: 'warm' });
    expect(plan.cells[3].source).not.toMatch(/env_s_host/);
  });
});

describe('find_peaks results indexed (review: a NumPy array indexed by a CuPy mask)', () => {
  it('keeps the cell on the host where a device mask indexes the peaks (rule fixture)', () => {
    expect(suggestionOf('no-find-peaks-distance-results-indexed-by-device-mask')).toBeUndefined();
    const { cells, target } = percentCells(readFileSync(join(__dirname, '..', 'fixtures', 'rules', 'GPU102', 'no-find-peaks-distance-results-indexed-by-device-mask', 'notebook.py'), 'utf8'));
    const reasons = analyzeNotebook(cells).refusals.filter(r => r.cellIndex === target).map(r => r.reason).join('\n');
    expect(reasons).toMatch(/a NumPy array takes no CuPy index or mask/);
  });

  it('keeps find_peaks on the host where its own host results or numbers index the peaks (rule fixture)', () => {
    const s = suggestionOf('flag-find-peaks-distance-results-indexed-by-host-mask');
    expect(s?.candidate).toContain('signal.find_peaks(cp.asnumpy(env), height=0.5, distance=50)\nstrong = peaks[props["peak_heights"] > 1.2]\nfirst = peaks[:10]');
    // nothing after the call is a device value: no CuPy operand meets the NumPy results
    expect(s?.candidate.split('distance=50)\n')[1]).not.toMatch(/\benv\b|cp\./);
  });
});

describe("find_peaks' props entry bound to a name in a later cell (review: NumPy meeting CuPy)", () => {
  it('plan: the cell where the entry meets the envelope stays on the host, reading the host copy', () => {
    const plan = checkPlanFixture('find-peaks-props-entry-meets-device', { session: 'warm' });
    expect(plan.gpuCells).toEqual([0, 1]);
    expect(plan.cells[2].source).not.toMatch(/\bcp\./);
    expect(plan.changes.find(c => c.cellIndex === 2)?.summary).toMatch(/stays on the host: `props` comes from an earlier cell as a value the analysis cannot type/);
  });

  it('plan: a dict entry of an earlier cell bound to a name that meets a device array keeps its cell on the host', () => {
    const plan = checkPlanFixture('untyped-entry-bound-meets-device', { session: 'warm' });
    expect(plan.cells[2].source).not.toMatch(/\bcp\.(?!asnumpy)|_fused\(/);
    expect(plan.changes.find(c => c.cellIndex === 2)?.summary).toMatch(/stays on the host: `props` comes from an earlier cell/);
  });
});
