/**
 * Values a cell hands to later cells other than through array names: container entries,
 * functions it defines, and values the analysis cannot type coming in. No copy back reaches
 * them, so the rewrite keeps them on the host or refuses, saying why.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { cellsOf, parser } from './helpers';

beforeAll(async () => {
  await parser();
});

const reasons = (cells: ReturnType<typeof cellsOf>, index: number): string =>
  analyzeNotebook(cells)
    .refusals.filter(r => r.cellIndex === index)
    .map(r => r.reason)
    .join('\n');

describe('values that leave a cell other than by name', () => {
  it('a draw stored in a container the cell binds stays a NumPy array (later cells read the entry)', () => {
    const cells = cellsOf('import numpy as np\nd = {"x": np.random.rand(20_000_000), "n": 3}\nv = np.random.rand(20_000_000) * 2.0', 'x = d["x"]\nprint(v[:2])');
    const [s] = analyzeNotebook(cells).suggestions.filter(sg => sg.cellIndex === 0);
    expect(s.candidate).toContain('d = {"x": np.random.rand(20_000_000), "n": 3}');
    expect(s.candidate).toMatch(/v = cp\.random\.rand\(20_000_000\) \* 2\.0/);
  });

  it('a function the cell defines that a later cell calls is not rewritten: every later caller would get CuPy arrays', () => {
    const cells = cellsOf('import numpy as np\ndef make(n):\n    return np.random.rand(n) * 2.0\nx = make(20_000_000)', 'y = make(10)');
    expect(analyzeNotebook(cells).suggestions.filter(s => s.cellIndex === 0)).toEqual([]);
    expect(reasons(cells, 0)).toContain('`make`, defined here, computes with NumPy: rewritten, it would return CuPy arrays to every later caller');
  });

  it('one only this cell calls computes on the device, and the note says it returns CuPy arrays', () => {
    const cells = cellsOf('import numpy as np\ny = np.random.rand(5_000_000)\ndef rhs(u):\n    return -0.5 * u + np.sin(u)\nfor _ in range(10):\n    y = y + 0.01 * rhs(y)');
    const s = analyzeNotebook(cells).suggestions.find(x => x.cellIndex === 0);
    expect(s?.candidate).toContain('return -0.5 * u + cp.sin(u)');
    expect(s?.notes.join('\n')).toContain('`rhs`, defined here and called only here, computes with CuPy: it returns CuPy arrays, also to cells added later.');
  });

  it('an input the analysis cannot type, handed to NumPy or updated from it, is refused with what to do', () => {
    const cells = cellsOf(
      'import numpy as np\nd = {"x": np.ones(20_000_000)}',
      'x = d["x"]',
      'x *= np.exp(-x * x) + np.sin(x) * np.cos(x)'
    );
    expect(analyzeNotebook(cells).suggestions.filter(sg => sg.cellIndex === 2)).toEqual([]);
    expect(reasons(cells, 2)).toContain('`x` comes from an earlier cell as a value the analysis cannot type');
  });

  it('a builtin name is no untyped input (dtype=object keeps its own refusal)', () => {
    const cells = cellsOf('import numpy as np\nrecords = np.empty(20_000_000, dtype=object)', 'y = np.sort(records)');
    expect(reasons(cells, 1)).not.toContain('cannot type');
  });
});
