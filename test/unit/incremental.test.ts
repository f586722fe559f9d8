/**
 * Incremental analysis: the tree copy matches tree-sitter, cached rule outcomes give exactly the
 * result of a fresh analyzer, and an edit re-runs the rules only for the cells it affects.
 * (Speed is measured by bench/analysis_speed.sh, never asserted here.)
 */
import { readFileSync, readdirSync, existsSync } from 'fs';
import { join } from 'path';
import { isDeepStrictEqual } from 'util';
import type { Node } from 'web-tree-sitter';
import { NotebookAnalyzer } from '../../src/analysis/engine';
import { maskIPython } from '../../src/analysis/ipython';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser, SyntaxNode } from '../../src/analysis/parser';
import type { Rule } from '../../src/analysis/rules/types';
import { walk, walkTypes } from '../../src/analysis/syntax';
import { RULES } from '../../src/analysis/rules/registry';
import type { CellInput, RuntimeValueInfo } from '../../src/analysis/types';
import { canonicalText } from './canonical';
import { cellsOf, parser, percentCells } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

/** Every cell of the rule and plan fixtures, plus cells that stress the model. */
function cellPool(): string[] {
  const sources = new Set<string>();
  const roots = [join(__dirname, '..', 'fixtures', 'rules'), join(__dirname, '..', 'fixtures', 'plan')];
  for (const root of roots) {
    if (!existsSync(root)) {
      continue;
    }
    for (const group of readdirSync(root)) {
      const dirs = existsSync(join(root, group, 'notebook.py')) ? [join(root, group)] : existsSync(join(root, group)) && !group.includes('.') ? readdirSync(join(root, group)).map(d => join(root, group, d)) : [];
      for (const dir of dirs) {
        const file = join(dir, 'notebook.py');
        if (existsSync(file)) {
          for (const c of percentCells(readFileSync(file, 'utf8')).cells) {
            if (c.kind === 'code') {
              sources.add(c.source);
            }
          }
        }
      }
    }
  }
  [
    'N = 4000\nM = 2 * N',
    'x = np.random.rand(N, N)\nz = np.linspace(0, 1, N * N).reshape(N, N)',
    'y = np.sqrt(x * x + z * z) * np.exp(-x)\ns = y.sum()',
    'spec = np.abs(np.fft.fft2(x)) ** 2',
    'smooth = ndi.gaussian_filter(x, sigma=2.0)',
    'rng = np.random.default_rng(0)\nnoise = rng.normal(0.0, 0.1, size=(N, N))',
    'total = 0.0\nfor k in range(1000):\n    total += k\nprint(total)',
    'for i in range(1, len(a)):\n    a[i] = a[i - 1] * 0.5 + b[i]',
    'a = np.zeros(N)\nb = np.ones(N)',
    'def f(u, v):\n    return np.hypot(u, v)\n\nr = f(x, z)',
    'plt.plot(y[:100])\nplt.title(str(s))',
    'df = pd.DataFrame({"a": np.arange(1000)})\ng = df.groupby("a").a.sum()',
    '%%time\nw = np.sort(np.random.rand(1_000_000))',
    'x += 1\nx *= 2',
    'q = x @ x.T',
    'obj = np.array(["a", "b"], dtype=object)',
    'def broken(:\n    return 1',
    'y',
    '%%bash\necho hi'
  ].forEach(s => sources.add(s));
  return [...sources];
}

const HEADER = 'import numpy as np\nimport pandas as pd\nimport scipy.ndimage as ndi\nimport matplotlib.pyplot as plt\nN = 4000';

/**
 * Two analysis results (or binding maps) are the same. toStrictEqual once ran out of stack here
 * (the fixture pool at an intermediate state, session 14), and its report of a difference in
 * objects this size is long. Node's isDeepStrictEqual checks first (fast; as strict as
 * toStrictEqual: prototypes, keys holding undefined, holes, -0, Map and Set contents in any
 * order); where it finds a difference, or runs out of stack itself, the two canonical texts
 * (canonical.ts: every key, item and value, one line each, any depth) are compared, so that the
 * failure prints the few lines that differ, with their paths.
 */
function expectSame(actual: unknown, expected: unknown): void {
  let same: boolean | null;
  try {
    same = isDeepStrictEqual(actual, expected);
  } catch (e) {
    if (!(e instanceof RangeError)) {
      throw e;
    }
    same = null; // too deep for a recursive comparison
  }
  if (same) {
    return;
  }
  const a = canonicalText(actual);
  const b = canonicalText(expected);
  expect(a).toBe(b);
  if (same === false) {
    // equal texts: a difference the text does not show (two functions of one name)
    throw new Error('the results differ in what their canonical texts do not show (function identity)');
  }
}

/** Small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function renumber(cells: CellInput[]): CellInput[] {
  return cells.map((c, index) => (c.index === index ? c : { ...c, index }));
}

/** One random edit of the notebook (and sometimes of the runtime report). */
function randomEdit(
  cells: CellInput[],
  runtime: Record<string, RuntimeValueInfo>,
  pool: string[],
  rand: () => number,
  nextId: () => string
): { cells: CellInput[]; runtime: Record<string, RuntimeValueInfo>; what: string } {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const k = Math.floor(rand() * cells.length);
  const at = (f: (c: CellInput) => CellInput): CellInput[] => cells.map((c, i) => (i === k ? f(c) : c));
  const roll = rand();
  if (roll < 0.2) {
    return { cells: at(c => ({ ...c, source: `${c.source}\n# note ${Math.floor(rand() * 100)}` })), runtime, what: `comment ${k}` };
  }
  if (roll < 0.4) {
    // change one number literal (sizes and constants flow into other cells)
    return {
      cells: at(c => {
        const numbers = [...c.source.matchAll(/\b\d+\b/g)];
        if (numbers.length === 0) {
          return { ...c, source: `${c.source}\nN = ${Math.floor(rand() * 5000)}` };
        }
        const m = pick(numbers);
        const value = pick(['3', '10', '2000', '5000', '123456']);
        return { ...c, source: c.source.slice(0, m.index) + value + c.source.slice(m.index! + m[0].length) };
      }),
      runtime,
      what: `number ${k}`
    };
  }
  if (roll < 0.55) {
    return { cells: at(c => ({ ...c, kind: 'code', source: pick(pool) })), runtime, what: `replace ${k}` };
  }
  if (roll < 0.65) {
    const inserted: CellInput = { id: nextId(), index: k, kind: rand() < 0.15 ? 'markdown' : 'code', source: pick(pool) };
    return { cells: renumber([...cells.slice(0, k), inserted, ...cells.slice(k)]), runtime, what: `insert ${k}` };
  }
  if (roll < 0.72 && cells.length > 3 && k > 0) {
    return { cells: renumber(cells.filter((_, i) => i !== k)), runtime, what: `delete ${k}` };
  }
  if (roll < 0.78 && k > 0) {
    const moved = [...cells];
    const [c] = moved.splice(k, 1);
    moved.splice(Math.floor(rand() * moved.length), 0, c);
    return { cells: renumber(moved), runtime, what: `move ${k}` };
  }
  if (roll < 0.84) {
    return { cells: at(c => ({ ...c, kind: c.kind === 'code' ? 'markdown' : 'code' })), runtime, what: `toggle ${k}` };
  }
  if (roll < 0.9) {
    // imports change what names mean everywhere
    const variants = [HEADER, HEADER.replace('import numpy as np', 'import numpy as np\nimport cupy as cp'), HEADER.replace('N = 4000', 'N = 300'), `${HEADER}\nfrom numpy import *`];
    return { cells: cells.map((c, i) => (i === 0 ? { ...c, kind: 'code', source: pick(variants) } : c)), runtime, what: 'header' };
  }
  const name = pick(['x', 'y', 'z', 'N', 'a', 'm', 'q']);
  const next = { ...runtime };
  if (next[name] && rand() < 0.5) {
    delete next[name];
  } else {
    next[name] =
      name === 'N'
        ? { type: 'int' }
        : { type: 'numpy.ndarray', shape: [Math.floor(rand() * 3000) + 1, 512], dtype: pick(['float64', 'float32', 'object']) };
  }
  return { cells, runtime: next, what: `runtime ${name}` };
}

function randomNotebook(pool: string[], rand: () => number, n: number): CellInput[] {
  const cells: CellInput[] = [{ id: 'h', index: 0, kind: 'code', source: HEADER }];
  for (let i = 1; i < n; i++) {
    cells.push({ id: `c${i}`, index: i, kind: rand() < 0.1 ? 'markdown' : 'code', source: pool[Math.floor(rand() * pool.length)] });
  }
  return cells;
}

describe('tree copy', () => {
  const sources = [
    'import numpy as np\nx = np.zeros((4, 4))\n',
    "label = 'température 😀'\ny = np.sin(x)  # ü\n",
    'def f(:\n  return 1\n',
    'x = (1 +\n',
    'a[i] = a[i - 1] * 0.5 + b[i]\nfor k, v in d.items():\n    print(f"{k}={v!r}")\n',
    'class A(B, metaclass=M):\n    @property\n    def p(self, *args, **kw) -> int:\n        return [i for i in range(3) if i]\n',
    'match x:\n    case [1, *rest]:\n        pass\n    case {"k": v}:\n        pass\n',
    'lambda x, y=2: x if y else -x\nwith open(p) as fh, ctx() as (a, b):\n    global g\n    del a[0]\n',
    maskIPython('%%time\nfiles = !ls\n%matplotlib inline\nx = np.ones(3)\nx?\n').masked,
    ''
  ];

  function compare(copy: SyntaxNode, raw: Node): void {
    expect([copy.type, copy.isNamed, copy.startIndex, copy.endIndex]).toEqual([raw.type, raw.isNamed, raw.startIndex, raw.endIndex]);
    expect([copy.hasError, copy.isError, copy.isMissing]).toEqual([raw.hasError, raw.isError, raw.isMissing]);
    expect(copy.text).toBe(raw.text);
    expect(copy.startPosition.row).toBe(raw.startPosition.row);
    const rawChildren = raw.children.filter((c): c is Node => c !== null);
    expect(copy.children.length).toBe(rawChildren.length);
    expect(copy.namedChildren.map(c => c.startIndex)).toEqual(raw.namedChildren.map(c => c?.startIndex));
    rawChildren.forEach((c, k) => {
      expect(copy.children[k].fieldName).toBe(raw.fieldNameForChild(k));
      expect(copy.children[k].parent?.id).toBe(copy.id);
      compare(copy.children[k], c);
    });
    for (const name of ['left', 'right', 'function', 'arguments', 'name', 'value', 'body', 'operator', 'object', 'attribute', 'condition', 'alias', 'parameters']) {
      const a = copy.childForFieldName(name);
      const b = raw.childForFieldName(name);
      expect(a ? [a.type, a.startIndex, a.endIndex] : null).toEqual(b ? [b.type, b.startIndex, b.endIndex] : null);
    }
  }

  it.each(sources.map(s => [JSON.stringify(s).slice(0, 40), s]))('copies %s exactly (both copy paths)', (_label, source) => {
    const raw = p.parseRaw(source);
    try {
      compare(p.parseWith(source, true).rootNode, raw.rootNode);
      compare(p.parseWith(source, false).rootNode, raw.rootNode);
    } finally {
      raw.delete();
    }
  });

  it('keeps per-row memo values for one owner at a time, and forgets them for that owner only', () => {
    const tree = p.parse('x = np.sqrt(y)\n');
    const a = {};
    const b = {};
    tree.memo(0, a)[3] = 'for a';
    expect(tree.memo(0, a)[3]).toBe('for a');
    // another owner starts the slot afresh; the first owner's values are gone with it
    expect(tree.memo(0, b)[3]).toBeUndefined();
    tree.memo(0, b)[3] = 'for b';
    expect(tree.memo(0, a)[3]).toBeUndefined();
    // slots are independent
    tree.memo(1, b)[2] = 'names';
    tree.memo(0, b)[3] = 'values';
    expect(tree.memo(1, b)[2]).toBe('names');
    // forget drops the slot only when asked by its owner
    tree.forget(0, a);
    expect(tree.memo(0, b)[3]).toBe('values');
    tree.forget(0, b);
    expect(tree.memo(0, b)[3]).toBeUndefined();
    expect(tree.memo(1, b)[2]).toBe('names');
  });

  it('uses the direct wasm path under Node', () => {
    expect(p.copiesDirectly).toBe(true);
  });

  it('copies every fixture cell exactly', () => {
    for (const source of cellPool()) {
      const masked = maskIPython(source).masked;
      const raw = p.parseRaw(masked);
      try {
        compare(p.parse(masked).rootNode, raw.rootNode);
      } finally {
        raw.delete();
      }
    }
  });

  it('numbers every node in pre-order, and walk() visits what recursion over named children would', () => {
    // what walk() did before it ran over the pre-order table: recursion through namedChildren
    const recursive = (n: SyntaxNode, visit: (k: SyntaxNode) => boolean, out: number[]): void => {
      out.push(n.id);
      if (visit(n)) {
        n.namedChildren.forEach(c => recursive(c, visit, out));
      }
    };
    for (const source of cellPool()) {
      const tree = p.parse(maskIPython(source).masked);
      const preorder: SyntaxNode[] = [];
      const all = (n: SyntaxNode): void => {
        preorder.push(n);
        n.children.forEach(all);
      };
      all(tree.rootNode);
      expect(preorder.map(n => n.order)).toEqual(preorder.map((_, k) => k));
      expect(tree.count).toBe(preorder.length);
      preorder.forEach(n => {
        expect(n.subtreeEnd).toBe(n.order + 1 + n.children.reduce((acc, c) => acc + (c.subtreeEnd - c.order), 0));
        expect(tree.node(n.order).id).toBe(n.id);
        // siblings through the table agree with the parent's child list
        const siblings = n.parent?.children ?? [];
        const at = siblings.findIndex(c => c.id === n.id);
        expect(n.nextSibling?.id).toBe(siblings[at + 1]?.id);
        expect(n.previousSibling?.id).toBe(siblings[at - 1]?.id);
        expect(n.childCount).toBe(n.children.length);
        expect(n.namedChildCount).toBe(n.namedChildren.length);
        expect(n.lastNamedChild?.id).toBe(n.namedChildren[n.namedChildren.length - 1]?.id);
      });
      // prune under calls and at every third node: the pruned subtrees must be skipped alike
      const prune = (k: SyntaxNode): boolean => k.type !== 'call' && k.order % 3 !== 1;
      // (and from nodes anywhere: anonymous ones, and nodes inside an anonymous node, which the
      // typed walk's index of rows by type leaves out)
      const starts = [tree.rootNode, ...preorder.filter(n => n.type === 'expression_statement' || n.type === 'block' || n.order % 7 === 3 || !n.isNamed)];
      for (const start of starts) {
        const expected: number[] = [];
        recursive(start, prune, expected);
        const seen: number[] = [];
        walk(start, k => {
          seen.push(k.id);
          return prune(k);
        });
        expect(seen).toEqual(expected);
        // the typed walk visits the walk's nodes of those types, pruning alike
        for (const types of [
          ['call'],
          ['identifier', 'call'],
          ['binary_operator', 'keyword_argument'],
          ['call', 'identifier', 'call'],
          ['ERROR', 'identifier', 'string'],
          ['no_such_type', 'attribute'],
          ['no_such_type'],
          // (the start's own type: visited once, the root's too)
          [start.type],
          [start.type, 'identifier']
        ]) {
          const typed: number[] = [];
          walkTypes(start, types, k => {
            typed.push(k.id);
            return prune(k);
          });
          const filtered: number[] = [];
          walk(start, k => {
            // nodes of other types are searched through, never pruned
            if (types.includes(k.type)) {
              filtered.push(k.id);
            }
            return !types.includes(k.type) || prune(k);
          });
          expect(typed).toEqual(filtered);
        }
      }
    }
  });
});

describe('walkTypes from the root', () => {
  it("visits the root once when asked for the root's own type (row 0 is in that type's list)", () => {
    const tree = p.parse('x = f(1)\ny = g(x)\n');
    const seen: string[] = [];
    walkTypes(tree.rootNode, ['module'], n => {
      seen.push(n.type);
    });
    expect(seen).toEqual(['module']);
    const both: string[] = [];
    walkTypes(tree.rootNode, ['module', 'call'], n => {
      both.push(n.text);
    });
    expect(both).toEqual(['x = f(1)\ny = g(x)\n', 'f(1)', 'g(x)']);
    // pruned at the root: nothing below it
    const pruned: string[] = [];
    walkTypes(tree.rootNode, ['module', 'call'], n => {
      pruned.push(n.type);
      return false;
    });
    expect(pruned).toEqual(['module']);
  });
});

describe('incremental analysis', () => {
  it('gives exactly the fresh result after each of a long sequence of random edits', () => {
    const pool = cellPool();
    for (const seed of [1, 2, 3]) {
      const rand = rng(seed);
      let n = 0;
      const nextId = (): string => `n${seed}-${n++}`;
      let cells = randomNotebook(pool, rand, 40);
      let runtime: Record<string, RuntimeValueInfo> = {};
      const analyzer = new NotebookAnalyzer();
      analyzer.update(cells, runtime);
      for (let step = 0; step < 80; step++) {
        const edit = randomEdit(cells, runtime, pool, rand, nextId);
        cells = edit.cells;
        runtime = edit.runtime;
        const incremental = analyzer.update(cells, runtime);
        const fresh = new NotebookAnalyzer();
        const expected = fresh.update(cells, runtime);
        try {
          expectSame(incremental, expected);
          expectSame(new Map(analyzer.model!.bindings), new Map(fresh.model!.bindings));
        } catch (e) {
          throw new Error(`seed ${seed}, step ${step} (${edit.what}): ${(e as Error).message}`);
        }
        if (edit.what.startsWith('comment')) {
          // a trailing comment changes no binding: besides the edited cell, only cells that asked
          // who reads or writes one of its names re-run (they saw the edited cell's model): a name
          // the cell reads or writes, or one its rules asked about (a fresh name's candidates); a
          // cell that read everything (`np.load("x.npy")` looks for the cell that saved the file
          // in every earlier cell: notebook.ts savedArray) re-runs after any edit
          const k = Number(edit.what.split(' ')[1]);
          const facts = (id: string) => analyzer.model!.cells.find(c => c.id === id)!.facts;
          const edited = facts(cells[k].id);
          const names = new Set([...(edited?.reads ?? []), ...(edited?.writes ?? [])]);
          for (const id of analyzer.lastRerun.filter(id => id !== cells[k].id && !analyzer.readsOf(id)!.everything)) {
            const asked = analyzer.readsOf(id)!.users;
            expect([...asked].some(n => names.has(n))).toBe(true);
          }
        }
      }
    }
  });

  it('matches a fresh model built without the previous one', () => {
    const pool = cellPool();
    const rand = rng(7);
    let cells = randomNotebook(pool, rand, 30);
    let runtime: Record<string, RuntimeValueInfo> = {};
    const cache = new CellCache(p);
    let prev = new NotebookModel(cells.map(c => cache.get(c)), runtime);
    let n = 0;
    for (let step = 0; step < 60; step++) {
      const edit = randomEdit(cells, runtime, pool, rand, () => `m${n++}`);
      cells = edit.cells;
      runtime = edit.runtime;
      const models = cells.map(c => cache.get(c));
      const incremental = new NotebookModel(models, runtime, prev);
      const fresh = new NotebookModel(models, runtime);
      expectSame(new Map(incremental.bindings), new Map(fresh.bindings));
      // readers and writers of every name, the previous model's entries reused where the edit left them
      const names = new Set(models.flatMap(c => (c.facts ? [...c.facts.reads, ...c.facts.writes] : [])));
      for (const name of [...names, 'no_such_name']) {
        const users = (m: NotebookModel): string[][] => [m.readers(name), m.writers(name)].map(cs => cs.map(c => `${c.id}@${c.index}`));
        expect(users(incremental)).toEqual(users(fresh));
      }
      // the cheap change summary agrees with the full comparison
      const full = incremental.changesSince(prev);
      if (full && incremental.changes) {
        expect([...incremental.changes.names].sort()).toEqual([...full.names].sort());
        expect(incremental.changes.boundNames).toBe(full.boundNames);
        for (const name of full.users) {
          expect(incremental.changes.users.has(name)).toBe(true);
        }
      }
      prev = incremental;
    }
  });
});

describe('what an edit re-runs', () => {
  const notebook = (): CellInput[] =>
    cellsOf(
      'import numpy as np\nimport matplotlib.pyplot as plt\nN = 4000',
      'x = np.random.rand(N, N)',
      'y = np.sqrt(x * x + 1.0) * np.exp(-x)',
      'm = np.random.rand(3000, 3000)\nq = m @ m',
      'plt.plot(q[0])',
      'total = 0\nfor k in range(10):\n    total += k'
    );
  const edit = (cells: CellInput[], index: number, source: string): CellInput[] =>
    cells.map(c => (c.index === index ? { ...c, source } : c));

  it('runs every cell once, then nothing when nothing changed', () => {
    const analyzer = new NotebookAnalyzer();
    const cells = notebook();
    analyzer.update(cells);
    expect(analyzer.lastRerun).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    analyzer.update(cells.map(c => ({ ...c })));
    expect(analyzer.lastRerun).toEqual([]);
  });

  it('re-runs only the edited cell when the edit changes nothing other cells see', () => {
    const analyzer = new NotebookAnalyzer();
    const cells = notebook();
    analyzer.update(cells);
    const runs = analyzer.ruleRunCount;
    analyzer.update(edit(cells, 3, `${cells[3].source}\n# a comment`));
    expect(analyzer.lastRerun).toEqual(['c3']);
    expect(analyzer.ruleRunCount).toBe(runs + 1);
  });

  it('re-runs the cells that read a value the edit changed, and no others', () => {
    const analyzer = new NotebookAnalyzer();
    const cells = notebook();
    analyzer.update(cells);
    // m changes size: q (bound from m in the same cell) changes, and the plot cell reads q
    analyzer.update(edit(cells, 3, 'm = np.random.rand(2000, 2000)\nq = m @ m'));
    expect(analyzer.lastRerun).toEqual(['c3', 'c4']);
    // N changes: x changes (c1 reads N), so does y (c2 reads x); c3..c5 do not depend on N
    const next = edit(edit(cells, 3, 'm = np.random.rand(2000, 2000)\nq = m @ m'), 0, 'import numpy as np\nimport matplotlib.pyplot as plt\nN = 5000');
    analyzer.update(next);
    expect(analyzer.lastRerun).toEqual(['c0', 'c1', 'c2']);
    expectSame(analyzer.update(next), new NotebookAnalyzer().update(next));
  });

  it('re-runs a cell calling a function when its definition changes, even keeping its length', () => {
    const analyzer = new NotebookAnalyzer();
    const cells = cellsOf(
      'import numpy as np\na = np.random.rand(4_000_000)',
      'def prepare(x):\n    return x.astype(np.float32) * 2',
      'y = prepare(a)\nw = np.exp(-y * y) * np.sqrt(np.abs(y)) + 0.5 * y'
    );
    const kernelOf = (result: ReturnType<NotebookAnalyzer['update']>): string | undefined =>
      result.suggestions.find(s => s.cellIndex === 2)?.candidate.match(/'(\w+) y', '(\w+) w'/)?.slice(1).join(' ');
    expect(kernelOf(analyzer.update(cells))).toBe('float32 float32');
    // the same offsets: only the definition's text says the value changed
    const next = edit(cells, 1, 'def prepare(x):\n    return x.astype(np.float64) * 2');
    const result = analyzer.update(next);
    expect(analyzer.lastRerun).toEqual(['c1', 'c2']);
    expect(kernelOf(result)).toBe('float64 float64');
    expectSame(result, new NotebookAnalyzer().update(next));
  });

  it('re-runs cells whose runtime report changed', () => {
    const analyzer = new NotebookAnalyzer();
    const cells = notebook();
    analyzer.update(cells);
    const runtime: Record<string, RuntimeValueInfo> = { q: { type: 'numpy.ndarray', shape: [10, 10], dtype: 'float64' } };
    const result = analyzer.update(cells, runtime);
    expect(analyzer.lastRerun).toEqual(['c3', 'c4']);
    expectSame(result, new NotebookAnalyzer().update(cells, runtime));
  });

  it('skips a rule whose prefilter says the cell cannot match, with the same result', () => {
    const calls: number[] = [];
    const probe: Rule = {
      id: 'GPU999',
      title: 'probe',
      family: 'kernels',
      library: 'numba-cuda',
      reference: 'references/cupy.md#when',
      prefilter: ctx => ctx.cell.facts!.reads.has('total'),
      check: ctx => {
        calls.push(ctx.cell.index);
        return { kind: 'refuse', reason: 'probe' };
      }
    };
    const analyzer = new NotebookAnalyzer({ rules: [...RULES, probe] });
    const result = analyzer.update(notebook());
    expect(calls).toEqual([5]);
    expect(result.refusals.filter(r => r.rule === 'GPU999').map(r => r.cellIndex)).toEqual([5]);
  });
});
