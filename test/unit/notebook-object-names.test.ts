/**
 * Python names that are also members of every JavaScript object (`constructor`, `toString`,
 * `valueOf`, `hasOwnProperty`, `__proto__`...). The kernel's runtime reports are a plain
 * object, and some of the engine's tables were: looking such a name up found the object's
 * member (a function, or Object.prototype) instead of nothing, and `update()` threw
 * ("Cannot read properties of undefined (reading 'toLowerCase')") on a cell that read one
 * before binding it.
 */
import { analyzeNotebook, NotebookAnalyzer } from '../../src/analysis/engine';
import { emptyReads, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import type { CellInput, RuntimeValueInfo } from '../../src/analysis/types';
import { normaliseDtype } from '../../src/analysis/values';
import { cellsOf, parser, notebookModel } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const NAMES = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__proto__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__'
];

/** A notebook that reads `name` before binding it, then uses it in every way the engine looks names up. */
function cellsUsing(name: string): CellInput[] {
  return cellsOf(
    [
      'import numpy as np',
      `y = ${name} + 1`,
      `${name} += 1`,
      `z = np.zeros(3, dtype='${name}')`,
      `w = np.random.${name}(5)`,
      'rng = np.random.default_rng()',
      `v = rng.${name}(5)`,
      `u = np.zeros(3).${name}()`
    ].join('\n'),
    `${name} = np.zeros(10_000_000)\nq = ${name} * 2\nr = q.sum()\n`
  );
}

/** A report for `name` as the kernel's JSON gives it (an own key, `__proto__` included). */
function reportFor(name: string): Record<string, RuntimeValueInfo> {
  return JSON.parse(`{"${name}": {"type": "numpy.ndarray", "shape": [5, 7], "dtype": "float32", "bytes": 140}}`);
}

function model(cells: CellInput[], runtime: Record<string, RuntimeValueInfo> = {}): NotebookModel {
  return notebookModel(p, cells, runtime);
}

describe.each(NAMES)('the Python name %s', name => {
  it('analyses a notebook that reads it before binding it (no runtime report)', () => {
    expect(() => analyzeNotebook(cellsUsing(name), { parser: p })).not.toThrow();
  });

  it('analyses it with a runtime report of other names', () => {
    expect(() => analyzeNotebook(cellsUsing(name), { parser: p, runtime: { x: { type: 'int' } } })).not.toThrow();
  });

  it("analyses it with the kernel's report on the name itself", () => {
    expect(() => analyzeNotebook(cellsUsing(name), { parser: p, runtime: reportFor(name) })).not.toThrow();
  });

  it('finds no value for it where nothing binds it and the kernel did not report it', () => {
    const m = model(cellsOf(`y = ${name}`), { x: { type: 'int' } });
    expect(m.valueBefore(name, m.cells[0], 0)).toEqual({ kind: 'unknown', origin: 'inferred' });
  });

  it("reads the kernel's report on it (an own key of the reports)", () => {
    const m = model(cellsOf(`y = ${name}`), reportFor(name));
    expect(m.valueBefore(name, m.cells[0], 0)).toMatchObject({ kind: 'ndarray', shape: [5, 7], dtype: 'float32', origin: 'runtime' });
  });

  it('is a name of the tracked runtime view only when reported', () => {
    const m = model(cellsOf(`y = ${name}`), { x: { type: 'int' } });
    const reads = emptyReads();
    m.track(reads, () => {
      expect(m.runtime[name]).toBeUndefined();
      expect(name in m.runtime).toBe(false);
      expect(m.runtime.x).toEqual({ type: 'int' });
    });
    expect(reads.names.has(name)).toBe(true);
    const reported = model(cellsOf(`y = ${name}`), reportFor(name));
    reported.track(emptyReads(), () => {
      expect(reported.runtime[name]).toMatchObject({ type: 'numpy.ndarray' });
      expect(name in reported.runtime).toBe(true);
    });
  });

  it('is no random draw and no dtype', () => {
    const m = model(cellsUsing(name));
    const cell = m.cells[0];
    // `np.random.<name>(5)` is no NumPy random function: nothing is known of what it returns
    expect(m.valueAfter('w', cell)).toEqual({ kind: 'unknown', origin: 'inferred' });
    // dtype=<name> is no NumPy dtype: the spelling is kept as written, never an object's member
    expect(m.valueAfter('z', cell)).toMatchObject({ kind: 'ndarray', shape: [3], dtype: `'${name}'` });
    expect(normaliseDtype(name)).toBeUndefined();
    expect(normaliseDtype(`'${name}'`)).toBeUndefined();
  });

  it('updates incrementally while the report on it comes and goes', () => {
    const analyzer = new NotebookAnalyzer({}, p);
    const cells = cellsUsing(name);
    expect(() => {
      analyzer.update(cells, {});
      analyzer.update(cells, reportFor(name));
      analyzer.update(cells, { x: { type: 'int' } });
      analyzer.update(cells, reportFor(name));
    }).not.toThrow();
  });
});

describe('the tables the names replaced still answer', () => {
  it('a random draw takes its size from its own position', () => {
    const m = model(cellsOf('import numpy as np\na = np.random.normal(0, 1, 5)\nb = np.random.random((2, 3))\nc = np.random.poisson(4.0, size=7)\nd = np.random.normal(0, 1)\n'));
    const cell = m.cells[0];
    expect(m.valueAfter('a', cell)).toMatchObject({ kind: 'ndarray', shape: [5], dtype: 'float64' });
    expect(m.valueAfter('b', cell)).toMatchObject({ kind: 'ndarray', shape: [2, 3], dtype: 'float64' });
    expect(m.valueAfter('c', cell)).toMatchObject({ kind: 'ndarray', shape: [7], dtype: 'int64' });
    expect(m.valueAfter('d', cell)).toMatchObject({ kind: 'scalar', dtype: 'float64' });
  });

  it('dtype spellings normalise', () => {
    expect(normaliseDtype('f4')).toBe('float32');
    expect(normaliseDtype("'?'")).toBe('bool');
    expect(normaliseDtype('np.float_')).toBe('float64');
    expect(normaliseDtype('<U5')).toBe('U5');
    expect(normaliseDtype('nonsense')).toBeUndefined();
  });
});
