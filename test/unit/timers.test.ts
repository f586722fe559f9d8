/**
 * A cell that times itself with a clock: on the GPU its kernels are queued and the calls return
 * at once, so the candidate waits for the queue before each clock read that follows device work
 * (rules/arrays/cupy-rewrite.ts clockSyncEdits).
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

const SETUP = 'import numpy as np\nimport time\nfrom time import perf_counter\nx = np.random.rand(20_000_000)';
const SYNC = 'cp.cuda.get_current_stream().synchronize()  # the clock waits for the GPU\'s queued work';

function candidate(cell: string): string {
  const r = analyzeNotebook(cellsOf(SETUP, cell, 'print(y[:3])'));
  expect(r.refusals).toEqual([]);
  return r.suggestions.find(s => s.cellIndex === 1)!.candidate;
}

describe('clock reads after device work wait for the GPU', () => {
  it('before the closing read, not before the opening one', () => {
    const c = candidate('t0 = time.perf_counter()\ny = np.sqrt(x) * np.exp(-x) + 1.0\nprint(f"{time.perf_counter() - t0:.3f} s")');
    expect(c).toContain(`t0 = time.perf_counter()\ny = y_kernel(x_gpu)\n${SYNC}\nprint(`);
    expect(c.split(SYNC)).toHaveLength(2);
  });

  it('inside a loop at its indentation, and for a clock imported by name', () => {
    const c = candidate('t0 = perf_counter()\nfor k in range(3):\n    y = np.sqrt(x) * np.exp(-x) * k\n    print(k, perf_counter() - t0)');
    expect(c).toContain(`    ${SYNC}\n    print(k, perf_counter() - t0)`);
  });

  it('no clock, no wait', () => {
    expect(candidate('y = np.sqrt(x) * np.exp(-x) + 1.0')).not.toContain('synchronize');
  });
});
