import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import type { CellInput, RuntimeValueInfo } from '../../src/analysis/types';
import { cellsOf, parser, notebookModel } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

function model(cells: CellInput[], runtime: Record<string, RuntimeValueInfo> = {}): NotebookModel {
  return notebookModel(p, cells, runtime);
}

describe('notebook model', () => {
  it('resolves imports and aliases across cells', () => {
    const m = model(
      cellsOf(
        'import numpy as np\nimport scipy.ndimage as ndi\nfrom scipy import fft\nfrom numpy.fft import fft2\nfrom numpy import *',
        'y = np.linalg.norm(x)\nz = ndi.gaussian_filter(x, 2)\nf = fft.dctn(x)\ng = fft2(x)\nh = sin(x)'
      )
    );
    const cell = m.cells[1];
    const calls = cell.tree!.rootNode.descendantsOfType('call').map(c => m.qualifiedName(c!.childForFieldName('function')!));
    expect(calls).toEqual(['numpy.linalg.norm', 'scipy.ndimage.gaussian_filter', 'scipy.fft.dctn', 'numpy.fft.fft2', 'numpy.sin']);
  });

  it('infers shapes and dtypes from literals and constants in other cells', () => {
    const m = model(
      cellsOf(
        'import numpy as np\nN = 4_000',
        'a = np.random.rand(N, N)\nb = np.zeros((N, 2 * N), dtype=np.float32)\nc = np.arange(10**6)\nd = a @ a\ne = np.sin(b) + 1'
      )
    );
    const cell = m.cells[1];
    const v = (name: string) => m.valueAfter(name, cell);
    expect(v('a')).toMatchObject({ kind: 'ndarray', shape: [4000, 4000], dtype: 'float64', size: 16_000_000 });
    expect(v('b')).toMatchObject({ kind: 'ndarray', shape: [4000, 8000], dtype: 'float32' });
    expect(v('c')).toMatchObject({ kind: 'ndarray', shape: [1_000_000], dtype: 'int64' });
    expect(v('d')).toMatchObject({ kind: 'ndarray', shape: [4000, 4000] });
    expect(v('e')).toMatchObject({ kind: 'ndarray', size: 32_000_000, dtype: 'float32' });
  });

  it('knows DataFrames, graphs, estimators and generators', () => {
    const m = model(
      cellsOf(
        'import pandas as pd\nimport networkx as nx\nfrom sklearn.cluster import KMeans\nimport numpy as np',
        'df = pd.read_csv("x.csv")\nG = nx.karate_club_graph()\nkm = KMeans(8)\nrng = np.random.default_rng(0)\nr = rng.standard_normal((1000, 10))'
      )
    );
    const cell = m.cells[1];
    expect(m.valueAfter('df', cell).kind).toBe('dataframe');
    expect(m.valueAfter('G', cell).kind).toBe('graph');
    expect(m.valueAfter('km', cell).kind).toBe('estimator');
    expect(m.valueAfter('rng', cell).kind).toBe('rng');
    expect(m.valueAfter('r', cell)).toMatchObject({ kind: 'ndarray', shape: [1000, 10] });
  });

  it('records which cells read and write each name, and each cell\'s inputs', () => {
    const m = model(cellsOf('x = load()', 'y = x * 2\nx = y', 'print(x, y)', 'def f(a):\n    return a + x\n'));
    expect(m.writers('x').map(c => c.index)).toEqual([0, 1]);
    expect(m.readers('x').map(c => c.index)).toEqual([1, 2, 3]);
    expect([...m.cells[1].facts!.inputs]).toEqual(['x']);
    expect([...m.cells[3].facts!.inputs]).toEqual(['x']);
    expect(m.cells[3].facts!.defines.has('f')).toBe(true);
  });

  it('lets runtime information from the kernel override literal inference', () => {
    const cells = cellsOf('import numpy as np\nx = np.random.rand(100)', 'y = np.sin(x)');
    const fromLiterals = model(cells);
    expect(fromLiterals.valueAfter('y', fromLiterals.cells[1]).size).toBe(100);
    const withRuntime = model(cells, { x: { type: 'numpy.ndarray', shape: [5000, 5000], dtype: 'float32', bytes: 1e8 } });
    expect(withRuntime.valueBefore('x', withRuntime.cells[1], 0)).toMatchObject({ kind: 'ndarray', size: 25_000_000, dtype: 'float32', origin: 'runtime' });
    expect(withRuntime.valueAfter('y', withRuntime.cells[1]).size).toBe(25_000_000);
  });

  it('analyses cells with magics at the right offsets, and skips foreign cell magics', () => {
    const m = model(cellsOf('%matplotlib inline\nimport numpy as np', '%%bash\nls', '%time y = np.sqrt(np.ones(10))'));
    expect(m.aliases.get('np')).toBe('numpy');
    expect(m.cells[1].skipped).toMatch(/%%bash/);
    const call = m.cells[2].tree!.rootNode.descendantsOfType('call')[0]!;
    expect(m.cells[2].source.slice(call.startIndex, call.endIndex)).toBe('np.sqrt(np.ones(10))');
  });

  it('re-parses only the cells whose source changed', () => {
    const cache = new CellCache(p);
    const before = p.parseCount;
    const cells = cellsOf('a = 1', 'b = a + 1', 'c = b * 2');
    cells.forEach(c => cache.get(c));
    expect(p.parseCount - before).toBe(3);
    cells.forEach(c => cache.get(c));
    expect(p.parseCount - before).toBe(3);
    const edited = [...cells];
    edited[1] = { ...cells[1], source: 'b = a + 2' };
    edited.forEach(c => cache.get(c));
    expect(p.parseCount - before).toBe(4);
  });
});
