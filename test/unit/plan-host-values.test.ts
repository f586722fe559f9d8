/**
 * What a host cell of the whole-notebook plan receives from device-resident values: what NumPy
 * code would have had there. A full reduction's 0-d result comes back as NumPy's scalar (or the
 * Python bool np.allclose returns), a sparse matrix as SciPy's (`.get()`: `cp.asnumpy` would wrap
 * it in an object array), a string or number built from device values goes to its consumer as it
 * is, and a value that would carry device arrays into host code (a lambda) brings them back.
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { rewriteNotebook as planNotebook, type PlanOptions, type ResidencyPlan } from '../../src/analysis/plan';
import type { CellInput } from '../../src/analysis/types';
import { cellsOf, parser } from './helpers';

/** The plan judged by steady figures: these notebooks are small, and test data movement, not first-use costs. */
const rewriteNotebook = (cells: CellInput[], opts: PlanOptions = {}): ResidencyPlan => planNotebook(cells, { session: 'warm', ...opts });

beforeAll(async () => {
  await parser();
});

const setup = 'import numpy as np\na = np.random.rand(8_000_000)\nb = np.sqrt(a) * 2.0 + np.sin(a)';

describe('residency plan: device values at host boundaries', () => {
  it('brings 0-d results back as NumPy scalars, and np.allclose as a Python bool', () => {
    const plan = rewriteNotebook(
      cellsOf(setup, 's = b.sum()\nok = np.allclose(a, b)\nm = np.max(a)', 'print(f"{s:.3f}", ok, type(m))\nt = [s, m]\nif ok:\n    print("same")')
    );
    expect(plan.gpuCells).toEqual([0, 1]);
    expect(plan.cells[2].source.split('\n').slice(0, 3)).toEqual(['s = s.get()[()]', 'ok = ok.item()', 'm = m.get()[()]']);
  });

  it('hands a sparse matrix to host code as SciPy\'s, and a string built from it as it is', () => {
    const plan = rewriteNotebook(
      cellsOf(
        'import numpy as np\nimport scipy.sparse as sp\nn = 2_000_000\nrows = np.random.randint(0, n, 8_000_000)\ncols = np.random.randint(0, n, 8_000_000)\n' +
          'vals = np.random.rand(8_000_000)\nM = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))\nx = np.random.rand(n)',
        'y = M @ x\nz = M @ y',
        'with open("out.txt", "w") as fh:\n    fh.write(str(M.sum()))',
        'stats = {"m": M}\nprint(len(stats))'
      )
    );
    expect(plan.gpuCells).toEqual([0, 1]);
    // str() of a CuPy 0-d array is the number's text, as with SciPy's NumPy scalar
    expect(plan.cells[2].source).toBe('with open("out.txt", "w") as fh:\n    fh.write(str(M.sum()))');
    // the dict keeps SciPy's copy of the matrix, made once under a host name; M stays on the device
    expect(plan.cells[3].source).toBe('M_host = M.get()\nstats = {"m": M_host}\nprint(len(stats))');
  });

  it('brings back an array a lambda passed to host code reads, instead of copying the lambda', () => {
    // (a GPU cell reads x first: with host cells its only readers, x would not be drawn on the device)
    const plan = rewriteNotebook(
      cellsOf(
        'import numpy as np\nfrom scipy import optimize\nx = np.random.rand(5_000_000)',
        'y = np.sqrt(x) * 2.0 + np.sin(x)',
        'res = optimize.minimize(lambda p: np.sum((x - p[0]) ** 2), [0.0])'
      )
    );
    expect(plan.gpuCells).toEqual([0, 1]);
    expect(plan.cells[2].source).toBe('x = cp.asnumpy(x)\nres = optimize.minimize(lambda p: np.sum((x - p[0]) ** 2), [0.0])');
  });
});

describe('single-cell rewrite: a device sparse matrix handed to a host consumer', () => {
  it('goes through .get() (SciPy\'s matrix), not cp.asnumpy', () => {
    const result = analyzeNotebook(
      cellsOf(
        'import numpy as np\nimport scipy.sparse as sp\nimport matplotlib.pyplot as plt\nn = 2_000_000\nx = np.random.rand(n)',
        'M = sp.random(n, n, density=2e-6, format="csr")\ny = M @ x\nfor _ in range(20):\n    y = M @ y\nplt.spy(M)\nprint(y[:3])'
      )
    );
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.rule).toBe('GPU102');
    expect(s.candidate).toContain('plt.spy(M.get())');
    expect(s.candidate).not.toContain('asnumpy(M)');
  });
});

describe('host code meets 0-d results, elements, repr and type as NumPy has them', () => {
  const setup = 'import numpy as np\nimport json\nimport matplotlib.pyplot as plt\nx = np.random.rand(20_000_000)';

  it('plan: an element, a repr and a type() of resident values get NumPy scalars', () => {
    const plan = rewriteNotebook(cellsOf(setup, 'y = np.sqrt(x) * 2.0 + np.sin(x)\ns = y.sum()', 'plt.axhline(y[0])\nplt.title(repr(s))\nprint(type(s).__name__)'));
    expect(plan.cells[2].source).toBe('plt.axhline(cp.asnumpy(y[0])[()])\nplt.title(repr(cp.asnumpy(s)[()]))\nprint(type(cp.asnumpy(s)[()]).__name__)');
  });

  it('single cell: an element read by a later cell comes back as a NumPy scalar; np.allclose handed on is a bool', () => {
    const result = analyzeNotebook(
      cellsOf(setup, 'y = np.sqrt(x) * 2.0 + np.sin(x)\nfirst = y[0]\nreport = json.dumps({"ok": np.allclose(x, y), "total": y.sum()})', 'print(json.dumps({"first": first}))')
    );
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.candidate).toContain('report = json.dumps({"ok": cp.allclose(x_gpu, y).item(), "total": cp.asnumpy(y.sum())[()]})');
    expect(s.candidate).toMatch(/\nfirst = first\.get\(\)\[\(\)\]$/);
  });

  it('single cell: a lambda handed to host code reads the host original of an input', () => {
    const result = analyzeNotebook(
      cellsOf('import numpy as np\nx = np.random.rand(20_000_000)', 'y = np.sqrt(x) * 2.0 + np.sin(x)\norder = sorted(range(10), key=lambda i: float(x[i]))')
    );
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.candidate).toContain('order = sorted(range(10), key=lambda i: float(x[i]))');
  });

  it('single cell: a lambda reading an array the rewrite makes on the device is refused', () => {
    const result = analyzeNotebook(
      cellsOf('import numpy as np\nx = np.random.rand(20_000_000)', 'y = np.sqrt(x) * 2.0 + np.sin(x)\norder = sorted(range(10), key=lambda i: float(y[i]))')
    );
    expect(result.suggestions.filter(sg => sg.cellIndex === 1)).toEqual([]);
    expect(result.refusals.filter(r => r.cellIndex === 1).map(r => r.reason).join('\n')).toMatch(/host code here .* reads `y`/);
  });

  it('%%time: a comment that mentions synchronize does not drop the wait', () => {
    const result = analyzeNotebook(cellsOf(setup, '%%time\n# no .synchronize() needed here\ny = np.sqrt(x) * 2.0 + np.sin(x)'));
    const [s] = result.suggestions.filter(sg => sg.cellIndex === 1);
    expect(s.candidate).toMatch(/cp\.cuda\.get_current_stream\(\)\.synchronize\(\)  # the cell's time includes the GPU work it queued$/);
  });
});
