/**
 * The kernel reports a Python list or tuple by its type name only ({type: 'list'}); a binding of
 * a sequence in an earlier cell knows its items (strings, numbers). Once the notebook has run,
 * the model keeps what the binding knows, so a list of strings is still a list of strings
 * (NumPy's str array, kept on the host with that reason) rather than a value it cannot type.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import type { PythonParser } from '../../src/analysis/parser';
import type { RuntimeValueInfo } from '../../src/analysis/types';
import { cellsOf, notebookModel, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const SETUP = 'import numpy as np\nlabels = ["a", "b", "c"]\nitems = (1.5, 2.5)\ndata = load()\nx = np.random.default_rng(0).random(5_000_000)';
const RUN: Record<string, RuntimeValueInfo> = {
  labels: { type: 'list' },
  items: { type: 'tuple' },
  data: { type: 'list' },
  x: { type: 'numpy.ndarray', shape: [5_000_000], dtype: 'float64' }
};

describe('a list or tuple the kernel reports by its type only', () => {
  it('keeps what an earlier cell binding it knows', () => {
    const m = notebookModel(p, cellsOf(SETUP, 'arr = np.array(labels)'), RUN);
    expect(m.valueBefore('labels', m.cells[1], 0)).toMatchObject({ kind: 'sequence', dtype: 'str' });
    expect(m.valueBefore('items', m.cells[1], 0)).toMatchObject({ kind: 'sequence' });
    // an array's report is still the kernel's
    expect(m.valueBefore('x', m.cells[1], 0)).toMatchObject({ kind: 'ndarray', origin: 'runtime', shape: [5_000_000] });
  });

  it('is the kernel report where no earlier binding knows a sequence', () => {
    const m = notebookModel(p, cellsOf(SETUP, 'arr = np.array(data)'), RUN);
    expect(m.valueBefore('data', m.cells[1], 0)).toMatchObject({ origin: 'runtime' });
  });

  it('gives the same reason to keep a list of strings on the host before and after a run', () => {
    const cells = cellsOf(SETUP, 'arr = np.array(labels)\ny = np.sqrt(x) * 2 + 1\nprint(arr[:2], y.sum())');
    const reasons = [{}, RUN].map(runtime => analyzeNotebook(cells, { parser: p, runtime }).refusals.filter(r => r.cellIndex === 1).map(r => r.reason));
    expect(reasons[0].join('\n')).toMatch(/`arr` has dtype str/);
    expect(reasons[1]).toEqual(reasons[0]);
  });
});
