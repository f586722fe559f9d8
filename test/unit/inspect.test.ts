/** namesToInspect: which names the UI asks the kernel to size. */
import { NotebookAnalyzer } from '../../src/analysis/engine';
import { namesToInspect, MAX_INSPECT_NAMES } from '../../src/analysis/inspect';
import type { RuntimeValueInfo } from '../../src/analysis/types';
import { cellsOf, parser } from './helpers';

function names(...sources: string[]): string[] {
  const analyzer = new NotebookAnalyzer({ minSpeedup: 1 });
  analyzer.update(cellsOf(...sources));
  return namesToInspect(analyzer.model!);
}

// (the file's path through a variable: the analysis sizes np.load of a literal path an earlier
// cell np.save-d, not this one, as it cannot a file another program wrote)
const NP_LOAD = [
  "import numpy as np\npath = 'big.npy'",
  'np.save(path, np.random.rand(30_000_000).astype(np.float32))',
  'x = np.load(path)',
  'y = np.sqrt(x*x+1.0)*np.exp(-x)'
];

describe('namesToInspect', () => {
  beforeAll(async () => {
    await parser();
  });

  test('an array from np.load, read by a NumPy cell, is asked for', () => {
    expect(names(...NP_LOAD)).toEqual(['x']);
  });

  test('arrays sized from literals are not asked for', () => {
    expect(names('import numpy as np', 'x = np.random.rand(4000, 4000)', 'y = np.sqrt(x) + np.exp(x)')).toEqual([]);
  });

  test('names never bound in the notebook but read by an array cell are asked for; builtins, imports, functions are not', () => {
    expect(
      names(
        'import numpy as np\nimport math',
        'def f(v):\n    return v + 1',
        'z = np.exp(data) + f(len(data)) + math.pi\nprint(z, other)'
      )
    ).toEqual(['data', 'other']);
  });

  test('cells that use neither NumPy/SciPy nor arrays do not ask', () => {
    expect(names('import pandas as pd', 'df = pd.read_csv("a.csv")', 'print(df.head(), w)')).toEqual([]);
  });

  test('a name sized from an earlier kernel report is asked for again (it may have changed)', () => {
    const analyzer = new NotebookAnalyzer({ minSpeedup: 1 });
    const runtime: Record<string, RuntimeValueInfo> = {
      x: { type: 'numpy.ndarray', shape: [30_000_000], dtype: 'float32', bytes: 120_000_000, device: 'host' }
    };
    analyzer.update(cellsOf(...NP_LOAD), runtime);
    expect(namesToInspect(analyzer.model!)).toEqual(['x']);
  });

  test('order is notebook order of first read, without duplicates, and capped', () => {
    expect(names('import numpy as np', 'c = np.exp(b) + a', 'd = np.exp(a) + b + e')).toEqual(['b', 'a', 'e']);
    const many = Array.from({ length: 100 }, (_, k) => `v${k}`);
    const got = names('import numpy as np', `s = np.stack([${many.join(', ')}])`);
    expect(got).toHaveLength(MAX_INSPECT_NAMES);
    expect(got).toEqual(many.slice(0, MAX_INSPECT_NAMES));
    const analyzer = new NotebookAnalyzer({ minSpeedup: 1 });
    analyzer.update(cellsOf('import numpy as np', 'c = np.exp(b) + a'));
    expect(namesToInspect(analyzer.model!, 1)).toEqual(['b']);
  });

  test('the kernel report turns the np.load cell into a sized suggestion', () => {
    const analyzer = new NotebookAnalyzer({ minSpeedup: 1 });
    const before = analyzer.update(cellsOf(...NP_LOAD));
    // Unsized: at most an unpriced suggestion (speedup 1, "array sizes unknown").
    for (const s of before.suggestions.filter(s => s.cellIndex === 3)) {
      expect(s.predicted_speedup).toBeLessThanOrEqual(1);
      expect(s.prediction.reason).toMatch(/unknown/);
    }
    const after = analyzer.update(cellsOf(...NP_LOAD), {
      x: { type: 'numpy.ndarray', shape: [30_000_000], dtype: 'float32', bytes: 120_000_000, device: 'host' }
    });
    const s = after.suggestions.find(s => s.cellIndex === 3);
    expect(s).toBeDefined();
    expect(s!.predicted_speedup).toBeGreaterThan(1.5);
  });
});
