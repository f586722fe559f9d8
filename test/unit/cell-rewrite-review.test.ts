/**
 * Per-cell rewrite details from the session-9 notebook review that the rule fixtures (which
 * compare candidates) do not show: notes and refusal wording.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

function suggestion(...sources: string[]) {
  const result = analyzeNotebook(cellsOf(...sources));
  const target = sources.length - 1;
  return { mine: result.suggestions.filter(s => s.cellIndex === target), refused: result.refusals.filter(r => r.cellIndex === target) };
}

describe('control flow on device values', () => {
  const setup = 'import numpy as np\nx = np.random.default_rng(0).random(10_000_000)';

  it('an array size in a condition is a host int: no note about testing a device value', () => {
    const { mine } = suggestion(setup, 'if (n := int(x.size)) > 100:\n    v = x[: n // 2] * 2.0 + 1.0\nprint(float(v.max()))');
    expect(mine).toHaveLength(1);
    expect(mine[0].notes.join('\n')).not.toMatch(/tests a device value/);
  });

  it('a reduction in a condition waits for the GPU: the note stays', () => {
    const { mine } = suggestion(setup, 'v = np.sqrt(x) * 2.0 + 1.0\nif v.max() > 1.5:\n    print("large")');
    expect(mine).toHaveLength(1);
    expect(mine[0].notes.join('\n')).toMatch(/tests a device value/);
  });
});

describe('loops that store a result per iteration', () => {
  const setup = 'import numpy as np\nn = 200_000\nmeas = np.random.default_rng(0).random((100, n, 2))';

  it('a time step storing a large slice each iteration is rewritten', () => {
    const { mine, refused } = suggestion(setup, 'x = np.zeros((n, 2))\nest = np.zeros((100, n, 2))\nfor k in range(1, 100):\n    x = 0.5 * (x + meas[k])\n    est[k] = x\nprint(est.mean())');
    expect(refused).toEqual([]);
    expect(mine).toHaveLength(1);
  });

  it('one number per iteration into a large array is refused, and says why', () => {
    const { mine, refused } = suggestion(setup, 'tot = np.zeros(100_000)\nfor k in range(100):\n    tot[k] = np.sqrt(meas[k, :, 0] ** 2 + 1.0).mean()');
    expect(mine).toEqual([]);
    expect(refused.map(r => r.reason).join('\n')).toMatch(/stores one number per iteration in `tot\[k\]`, each from array work: on the GPU every iteration would be several kernel launches for little data/);
  });
});

describe('inputs read through one part', () => {
  const setup = 'import numpy as np\nframes = np.random.default_rng(0).random((6, 2048, 2048))';

  it('two different parts: the array is copied whole', () => {
    const { mine } = suggestion(setup, 'd = np.sqrt((frames[-1] - frames[0]) ** 2 + 1.0)\nprint(float(d.mean()))');
    expect(mine).toHaveLength(1);
    expect(mine[0].candidate).toContain('frames_gpu = cp.asarray(frames)\n');
  });

  it('a small part only: priced as that part, too small to pay', () => {
    const result = analyzeNotebook(cellsOf(setup, 'r = np.linalg.norm(frames[:, -1, -1])\nprint(r)'));
    const refused = result.refusals.filter(r => r.cellIndex === 1);
    expect(result.suggestions.filter(s => s.cellIndex === 1)).toEqual([]);
    expect(refused.map(r => r.reason).join('\n')).toMatch(/^48 B: too small/);
  });
});

describe('set-up loops', () => {
  const setup = 'import numpy as np\nP = np.random.default_rng(0).random((25000, 513)).astype(np.float32)\nnfilt = int(open("n.txt").read())';

  it('a loop of unknown count filling the array is still refused', () => {
    const { mine, refused } = suggestion(setup, 'fb = np.zeros((64, 513))\nfor m in range(nfilt):\n    fb[m, m] = 1.0\nmel = P @ fb.T\nprint(float(mel.mean()))');
    expect(mine).toEqual([]);
    expect(refused.map(r => r.reason).join('\n')).toMatch(/element-by-element Python loop over `fb`/);
  });

  it('a loop reading the large array is no set-up loop', () => {
    const { mine, refused } = suggestion(setup, 'fb = np.zeros((64, 513))\nfor m in range(64):\n    fb[m, 0] = P[m, 0]\nmel = P @ fb.T\nprint(float(mel.mean()))');
    expect(mine).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);
  });
});

describe('per-row reductions in a comprehension', () => {
  const setup = 'import numpy as np\nanom = np.random.default_rng(0).random((240, 360, 720), dtype=np.float32)';

  it('a mask that depends on the row stays one reduction per row', () => {
    const { mine } = suggestion(setup, 'pos = np.array([np.mean(anom[k][anom[k] > 0.5]) for k in range(240)])\nprint(pos[:3])');
    expect(mine).toHaveLength(1);
    expect(mine[0].candidate).toContain('cp.array([cp.mean(anom_gpu[k][anom_gpu[k] > 0.5]) for k in range(240)])');
  });

  it('a count that is not the number of rows is left as written', () => {
    const { mine } = suggestion(setup, 'box = np.ones((360, 720), dtype=bool)\nfirst = np.array([np.mean(anom[k][box]) for k in range(10)])\nprint(first)');
    expect(mine.map(s => s.candidate).join('\n')).not.toContain('axis=1');
  });
});
