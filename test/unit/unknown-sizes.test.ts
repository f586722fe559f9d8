/**
 * Known sizes that say nothing about a cell's work: a cell reading a file (`np.load`) or an
 * input of which nothing is known works on an array that may be its largest, so a small known
 * size (a statistic, filter coefficients) is no reason to refuse it as too small.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

const SETUP = 'import numpy as np\nfrom scipy import signal\nfs = 10_000.0';

describe('a cell whose largest array is unknown', () => {
  it('is offered with "sizes unknown", not refused as too small for its known 0-d result', () => {
    const r = analyzeNotebook(
      cellsOf(SETUP, "sig = np.load('sig.npy')\nsos = signal.butter(4, [30, 2000], btype='bandpass', fs=fs, output='sos')\nfilt = signal.sosfiltfilt(sos, sig)\nprint(f'rms {np.sqrt(np.mean(filt**2)):.4f}')")
    );
    expect(r.refusals).toEqual([]);
    expect(r.suggestions).toHaveLength(1);
    expect(r.suggestions[0].prediction.reason).toMatch(/array sizes unknown/);
    expect(r.suggestions[0].candidate).toContain("sig = cp.asarray(np.load('sig.npy'))");
  });

  it('an input of which nothing is known counts the same way', () => {
    const r = analyzeNotebook(cellsOf(SETUP + '\nfrom mylib import read_trace\nsig = np.asarray(read_trace())', 'm = np.sqrt(np.mean(np.abs(sig) ** 2))\nprint(m)'));
    expect(r.refusals).toEqual([]);
    expect(r.suggestions.find(s => s.cellIndex === 1)?.prediction.reason).toMatch(/array sizes unknown/);
  });

  it('small arrays whose sizes are all known are still refused as too small', () => {
    const r = analyzeNotebook(cellsOf('import numpy as np\nscores = np.random.rand(2_000)', 'ranked = np.sort(scores)[::-1]\ntop10 = ranked[:10]'));
    expect(r.suggestions).toEqual([]);
    expect(r.refusals.map(x => x.reason).join('\n')).toMatch(/too small/);
  });
});
