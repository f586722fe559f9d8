/** Per-cell facts: which names a cell binds at module level, reads, and keeps local. */
import { CellFacts, collectFacts } from '../../src/analysis/facts';
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

function facts(source: string): CellFacts {
  return collectFacts(p.parse(source).rootNode);
}

/** Start offsets of every `name` in `source` (for `localIds`). */
function offsetsOf(source: string, name: string): number[] {
  return [...source.matchAll(new RegExp(`\\b${name}\\b`, 'g'))].map(m => m.index ?? -1);
}

describe('walrus targets (PEP 572)', () => {
  it('bind at module level, from where the expression ends, and are not read', () => {
    const src = 'if (n := len(a)) > 10:\n    print(n)\ny = (m := 3) + m';
    const f = facts(src);
    expect([...f.writes].sort()).toEqual(['m', 'n', 'y']);
    expect(f.inputs.has('n')).toBe(false);
    expect(f.inputs.has('m')).toBe(false);
    expect(f.inputs.has('a')).toBe(true);
    const n = f.assignments.find(a => a.name === 'n');
    expect(n?.value?.text).toBe('len(a)');
    expect(n?.at).toBe(src.indexOf('n := len(a)') + 'n := len(a)'.length);
    // the value of m is bound before the `+ m` that reads it
    const m = f.assignments.find(a => a.name === 'm');
    expect(m!.at).toBeLessThan(src.lastIndexOf('m'));
  });

  it('inside a comprehension at module level, bind the module-level name (not a comprehension local)', () => {
    const src = 'z = [y for v in a if (y := v * 2) > 0]\ntotal = sum(w for v in a if (w := v))';
    const f = facts(src);
    expect(f.writes.has('y')).toBe(true);
    expect(f.writes.has('w')).toBe(true);
    // the if clause runs before the element: y is never read from the namespace
    expect(f.inputs.has('y')).toBe(false);
    expect(f.assignments.map(a => a.name)).toEqual(expect.arrayContaining(['y', 'w', 'z', 'total']));
    expect(f.assignments.find(a => a.name === 'y')?.value?.text).toBe('v * 2');
    // the comprehension variable stays local
    expect(f.writes.has('v')).toBe(false);
    expect(f.reads.has('v')).toBe(false);
  });

  it('inside a function, a lambda or a comprehension in a function, bind a local', () => {
    const src = [
      'def f(a):',
      '    r = [(t := x) for x in a]',
      '    if (k := len(r)) > 1:',
      '        return t + k',
      '    return t',
      'g = lambda v: (q := v) + q'
    ].join('\n');
    const f = facts(src);
    for (const local of ['t', 'k', 'q', 'r', 'x']) {
      expect(f.writes.has(local)).toBe(false);
      expect(f.reads.has(local)).toBe(false);
    }
    expect(f.assignments.map(a => a.name)).toEqual(['f', 'g']);
    for (const at of [...offsetsOf(src, 't'), ...offsetsOf(src, 'k'), ...offsetsOf(src, 'q')]) {
      expect(f.localIds.has(at)).toBe(true);
    }
  });
});

describe('names declared global in a function', () => {
  const src = [
    'def reset(shape):',
    '    global grid, count, helper, np2',
    '    grid = np.zeros(shape)',
    '    for count in range(3):',
    '        pass',
    '    import numpy as np2',
    '    def helper():',
    '        grid = 1',
    '        return grid',
    '    return grid',
    'out = grid + 1'
  ].join('\n');

  it('are module-level writes, whatever binds them (assignment, for target, import, def)', () => {
    const f = facts(src);
    expect([...f.writes].sort()).toEqual(['count', 'grid', 'helper', 'np2', 'out', 'reset']);
  });

  it('are no assignment facts and do not hide the namespace value from the cell (the function may never run)', () => {
    const f = facts(src);
    expect(f.assignments.map(a => a.name)).toEqual(['reset', 'out']);
    // `out = grid + 1` reads whatever grid held before the cell
    expect(f.inputs.has('grid')).toBe(true);
    expect(f.localIds.has(src.indexOf('grid = np.zeros'))).toBe(false);
    expect(f.localIds.has(src.lastIndexOf('return grid'))).toBe(false);
  });

  it('do not make a nested function\'s same-named binding global', () => {
    const f = facts(src);
    // `grid = 1` and `return grid` inside helper are helper's locals
    const inner = src.indexOf('grid = 1');
    expect(f.localIds.has(inner)).toBe(true);
    expect(f.localIds.has(src.indexOf('grid', inner + 1))).toBe(true);
  });

  it('a walrus in a comprehension of such a function binds the global', () => {
    const f = facts('def f(a):\n    global best\n    return [(best := v) for v in a]');
    expect(f.writes.has('best')).toBe(true);
    expect(f.writes.has('v')).toBe(false);
  });

  it('a function without the declaration keeps its names local', () => {
    const f = facts('def f():\n    grid = 1\n    return grid');
    expect([...f.writes]).toEqual(['f']);
    expect(f.reads.has('grid')).toBe(false);
  });
});

describe('other module-level bindings', () => {
  it('for, with ... as, except ... as and import targets are writes', () => {
    const f = facts(
      [
        'import a.b as c, d.e',
        'from m import (x as y, z)',
        'for i, (j, k) in pairs:',
        '    pass',
        'with open(p) as (fh, gh), lock as held:',
        '    pass',
        'try:',
        '    pass',
        'except ValueError as err:',
        '    pass'
      ].join('\n')
    );
    expect([...f.writes].sort()).toEqual(['c', 'd', 'err', 'fh', 'gh', 'held', 'i', 'j', 'k', 'y', 'z'].sort());
    expect([...f.inputs].sort()).toEqual(['ValueError', 'lock', 'open', 'p', 'pairs']);
  });
});

describe('except ... as: the name is deleted when the handler ends (PEP 3110)', () => {
  const src = ['try:', '    run()', 'except ValueError as err:', '    print(err)', 'print(err)'].join('\n');

  it('records the end of the handler as an unbinding, after the handler binding', () => {
    const f = facts(src);
    const err = f.assignments.filter(a => a.name === 'err');
    expect(err.map(a => a.deleted ?? false)).toEqual([false, true]);
    const end = src.indexOf('print(err)\nprint') + 'print(err)'.length;
    expect(err[1]).toMatchObject({ value: null, at: end, nested: true });
    // the handler's own read sees its binding; the read after the try does not
    expect(err[0].at).toBeLessThan(src.indexOf('print(err)'));
    expect(err[1].at).toBeLessThan(src.lastIndexOf('err'));
  });

  it('a read after the try is of what the name held before the cell (no exception ran)', () => {
    expect(facts(src).inputs.has('err')).toBe(true);
    // bound earlier in the cell: still the cell's own value
    expect(facts(`err = 1\n${src}`).inputs.has('err')).toBe(false);
    // only read inside the handler: the handler's binding
    expect(facts('try:\n    pass\nexcept E as e:\n    print(e)').inputs.has('e')).toBe(false);
  });

  it('the model has no value for the name after the handler, nor in a later cell', () => {
    const cells = cellsOf(`import numpy as np\nerr = np.zeros(10)\n${src}\nafter = 1`, 'print(err)');
    const cache = new CellCache(p);
    const m = new NotebookModel(cells.map(c => cache.get(c)));
    const [first, second] = m.cells;
    expect(m.valueBefore('err', first, cells[0].source.indexOf('try:')).kind).toBe('ndarray');
    expect(m.valueBefore('err', first, cells[0].source.indexOf('after')).kind).toBe('unknown');
    expect(m.valueBefore('err', second, 0).kind).toBe('unknown');
  });
});

describe('del', () => {
  it('unbinds a name (a write with no value) and reads it; del x[i] changes x', () => {
    const src = 'x = 1\ndel x, y[0], (z)\n';
    const f = facts(src);
    expect(f.writes.has('x')).toBe(true);
    expect(f.writes.has('z')).toBe(true);
    expect(f.writes.has('y')).toBe(false);
    expect(f.mutates.has('y')).toBe(true);
    expect([...f.inputs].sort()).toEqual(['y', 'z']);
    expect(f.assignments.filter(a => a.deleted).map(a => a.name)).toEqual(['x', 'z']);
  });

  it('inside a function unbinds a local only', () => {
    const f = facts('def f():\n    t = 1\n    del t\n');
    expect([...f.writes]).toEqual(['f']);
    expect(f.reads.has('t')).toBe(false);
  });

  it('of a name a function declares global: a write, no unbinding the cell can count on', () => {
    const f = facts('def f():\n    global g\n    del g\nprint(g)');
    expect([...f.writes].sort()).toEqual(['f', 'g']);
    expect(f.assignments.map(a => a.name)).toEqual(['f']);
    expect(f.inputs.has('g')).toBe(true);
  });
});

describe('match statements (PEP 634)', () => {
  const src = [
    'match cmd:',
    '    case Point(x=a, y=0):',
    '        pass',
    '    case [b, *rest]:',
    '        pass',
    '    case {"k": v, **kw}:',
    '        pass',
    '    case _ as w:',
    '        pass',
    '    case (p | q) if p > limit:',
    '        pass',
    '    case Color.RED:',
    '        pass',
    '    case _:',
    '        print(a)'
  ].join('\n');

  it('capture patterns bind in the enclosing scope (module level: writes with an assignment each)', () => {
    const f = facts(src);
    expect([...f.writes].sort()).toEqual(['a', 'b', 'kw', 'p', 'q', 'rest', 'v', 'w']);
    expect(f.assignments.map(a => a.name).sort()).toEqual(['a', 'b', 'kw', 'p', 'q', 'rest', 'v', 'w']);
    const a = f.assignments.find(x => x.name === 'a')!;
    expect(a.value).toBeNull();
    expect(a.at).toBe(src.indexOf('Point(x=a, y=0)') + 'Point(x=a, y=0)'.length);
  });

  it('reads the subject, class names, value patterns and guards; not keyword names or _', () => {
    const f = facts(src);
    expect([...f.inputs].sort()).toEqual(['Color', 'Point', 'cmd', 'limit', 'print']);
    for (const name of ['x', 'y', '_', 'RED', 'k']) {
      expect(f.reads.has(name)).toBe(false);
    }
  });

  it('inside a function, captures are locals', () => {
    const f = facts('def f(s):\n    print(hit)\n    match s:\n        case [hit]:\n            return hit\n');
    expect([...f.writes]).toEqual(['f']);
    expect(f.reads.has('hit')).toBe(false);
  });
});

describe('in-place updates NumPy makes outside assignments', () => {
  it.each([
    ['u[:10].sort()', 'u'],
    ['u.T.sort()', 'u'],
    ['u[1:, 0].fill(0)', 'u'],
    ['rng.shuffle(u)', 'u'],
    ['np.random.shuffle(u[5:])', 'u'],
    ['np.add.at(u, idx, 1)', 'u'],
    ['np.add(u, 1.0, out=u)', 'u'],
    ['np.divmod(a, b, out=(q, r))', 'q'],
    ['np.divmod(a, b, out=(q, r))', 'r'],
    ['rng.permuted(u, out=u)', 'u'],
    ['ndimage.uniform_filter(src, 9, output=u)', 'u']
  ])('%s updates %s', (src, name) => {
    expect(facts(src).mutates.has(name)).toBe(true);
  });

  it.each([
    ['u.copy().sort()', 'u'],
    ['v = np.sort(u)', 'u'],
    ['ndimage.uniform_filter(src, 9, output=u)', 'src'],
    ['np.add.at(u, idx, 1)', 'idx'],
    ['def f(u):\n    u[:3].sort()', 'u']
  ])('%s leaves %s', (src, name) => {
    expect(facts(src).mutates.has(name)).toBe(false);
  });
});

describe('augmented assignments in functions', () => {
  it('a local updated in place (R /= ...) is not the global of that name', () => {
    const src = 'def xcorr(img):\n    R = np.fft.fft2(img)\n    R /= np.abs(R) + 1e-12\n    return R\n\ndef g(R):\n    R += 1\n    return R';
    const f = facts(src);
    expect(f.mutates.has('R')).toBe(false);
    expect(f.writes.has('R')).toBe(false);
    expect(f.reads.has('R')).toBe(false);
    expect(f.assignments.map(a => a.name)).toEqual(['xcorr', 'g']);
  });

  it('a name declared global is the global: updated, bound and read', () => {
    const f = facts('def normalise():\n    global R\n    R /= R.max()');
    expect(f.mutates.has('R')).toBe(true);
    expect(f.writes.has('R')).toBe(true);
    expect(f.reads.has('R')).toBe(true);
  });

  it('at module level, the global', () => {
    const f = facts('R /= 2');
    expect(f.mutates.has('R')).toBe(true);
    expect(f.assignments.find(a => a.name === 'R')?.augmented).toBe(true);
  });
});
