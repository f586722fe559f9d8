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
