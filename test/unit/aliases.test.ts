/**
 * Host aliases of arrays updated in place on the GPU (rules/arrays/aliases.ts, cupy-rewrite.ts,
 * plan.ts): what the notebook shows sharing an array's memory, the refusals that name it, the
 * write-back into the same host array, and the non-aliased rewrite left as it was.
 */
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { rewriteNotebook } from '../../src/analysis/plan';
import { memorySharers } from '../../src/analysis/rules/arrays/aliases';
import { analyseArrayCell, globalReferences, readsWhole } from '../../src/analysis/rules/arrays/cupy-rewrite';
import { cellsOf, parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

function modelOf(...sources: string[]): NotebookModel {
  const cache = new CellCache(p);
  return new NotebookModel(cellsOf(...sources).map(c => cache.get(c)));
}

/** What shares `name`'s memory when the last cell starts. */
function sharers(name: string, ...sources: string[]): string[] {
  const model = modelOf(...sources);
  return memorySharers(name, model.cells[model.cells.length - 1], model).map(s => s.reason);
}

const SETUP = 'import numpy as np\nu = np.zeros((2048, 2048), dtype=np.float32)\nu[0, :] = 1.0';
const JACOBI_LOOP = 'for step in range(50):\n    u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])';

function analyse(...sources: string[]) {
  const model = modelOf(...sources);
  const a = analyseArrayCell(model.cells[1], model);
  if (!a) {
    throw new Error('no analysis');
  }
  return a;
}

describe('memorySharers: what the notebook shows sharing an array', () => {
  it('finds another name, views, containers, attributes, calls that keep it, functions that return it', () => {
    expect(sharers('u', `${SETUP}\nv = u`, 'u += 1')).toEqual(["`v` shares `u`'s memory (cell 0)"]);
    expect(sharers('u', `${SETUP}\nv = u[1:-1].T`, 'u += 1')).toEqual(["`v` shares `u`'s memory (cell 0)"]);
    expect(sharers('u', `${SETUP}\nv = u.reshape(-1)`, 'u += 1')).toEqual(["`v` shares `u`'s memory (cell 0)"]);
    expect(sharers('u', `${SETUP}\nv = np.asarray(u)`, 'u += 1')).toEqual(["`v` shares `u`'s memory (cell 0)"]);
    expect(sharers('u', `${SETUP}\nhistory = [u]`, 'u += 1')).toEqual(['`u` is kept in `history` (cell 0)']);
    expect(sharers('u', `${SETUP}\na, b = u, 1.0`, 'u += 1')).toEqual(["`a` shares `u`'s memory (cell 0)"]);
    expect(sharers('u', `${SETUP}\nstate = {}\nstate["u"] = u`, 'u += 1')).toEqual(['`u` is kept in `state` (cell 0)']);
    expect(sharers('u', `${SETUP}\nhistory = []\nhistory.append(u)`, 'u += 1')).toEqual(['`u` is passed to `history.append()` (cell 0), which may keep it']);
    expect(sharers('u', `${SETUP}\ndef grid():\n    return u`, 'u += 1')).toEqual(['`u` is returned by `grid` (cell 0)']);
    // 2-D rows are views
    expect(sharers('u', `${SETUP}\nfor row in u:\n    pass`, 'u += 1')).toEqual(["`row` shares `u`'s memory (cell 0)"]);
  });

  it('finds a function keeping the array as a parameter default, and a class keeping it as an attribute', () => {
    expect(sharers('u', `${SETUP}\ndef f(a=u):\n    return a.sum()`, 'u += 1')).toEqual(['`u` is kept in `f` (cell 0)']);
    expect(sharers('u', `${SETUP}\ndef f(*, a: np.ndarray = u):\n    return a.sum()`, 'u += 1')).toEqual(['`u` is kept in `f` (cell 0)']);
    expect(sharers('u', `${SETUP}\ng = lambda a=u: a.sum()`, 'u += 1')).toEqual(['`u` is kept in `g` (cell 0)']);
    expect(sharers('u', `${SETUP}\nclass Grid:\n    field = u`, 'u += 1')).toEqual(['`u` is kept in `Grid` (cell 0)']);
    // a parameter of that name is the function's own: not the array
    expect(sharers('u', `${SETUP}\ndef f(u):\n    v = u\n    return v`, 'u += 1')).toEqual([]);
    expect(sharers('u', `${SETUP}\ndef f(a, b=2):\n    return a`, 'u += 1')).toEqual([]);
  });

  it('counts a memory map of a file as memory held elsewhere (its updates go to the file)', () => {
    const mapped = (call: string): string[] => sharers('u', `import numpy as np\nu = ${call}`, 'u += 1');
    const why = (call: string): string[] => [`\`u\` comes from \`${call}\` (cell 0), which maps a file into memory, and NumPy's in-place updates go to the file`];
    expect(mapped('np.load("f.npy", mmap_mode="r+")')).toEqual(why('np.load()'));
    expect(mapped('np.load("f.npy", "r")')).toEqual(why('np.load()'));
    expect(mapped('np.load("f.npy", mmap_mode=mode)')).toEqual(why('np.load()'));
    expect(mapped('np.memmap("f.dat", dtype=np.float32, shape=(64, 64))')).toEqual(why('np.memmap()'));
    expect(mapped('np.memmap("f.dat", np.float32, "w+", shape=(64, 64))')).toEqual(why('np.memmap()'));
    expect(mapped('np.lib.format.open_memmap("f.npy", mode="r+")')).toEqual(why('np.lib.format.open_memmap()'));
    // read into a new array, or a copy-on-write map (its writes stay in memory): its own memory
    expect(mapped('np.load("f.npy")')).toEqual([]);
    expect(mapped('np.load("f.npy", mmap_mode=None)')).toEqual([]);
    expect(mapped('np.load("f.npy", mmap_mode="c")')).toEqual([]);
    expect(mapped('np.memmap("f.dat", dtype=np.float32, mode="copyonwrite", shape=(64, 64))')).toEqual([]);
  });

  it('writes an update of a mapped file back into the map, never rebinding the name', () => {
    const a = analyse('import numpy as np\nu = np.load("field.npy", mmap_mode="r+")', JACOBI_LOOP);
    expect(a.writeBack).toEqual(['u']);
    expect(a.candidate).toContain('u[...] = cp.asnumpy(u_gpu)  # into the same host array: it comes from np.load() (cell 0)');
    expect(a.candidate).not.toMatch(/^u = cp\.asnumpy/m);
    // a function keeps u as its default: updating a device copy and rebinding u would leave
    // `f()` reading the old host array
    const kept = analyse(`${SETUP}\ndef f(a=u):\n    return a.sum()`, JACOBI_LOOP);
    expect(kept.writeBack).toEqual(['u']);
    expect(kept.candidate).toContain('u_gpu.get(out=u)  # into the same host array: f shares its memory (cell 0)');
    // read into memory: the name is rebound to the device array as before
    const own = analyse('import numpy as np\nu = np.load("field.npy")', JACOBI_LOOP);
    expect(own.writeBack).toEqual([]);
  });

  it('finds what u itself is a view of, and follows aliases of aliases', () => {
    expect(sharers('u', 'import numpy as np\nbig = np.zeros((10, 10))\nu = big[1:-1, 1:-1]', 'u += 1')).toEqual(['`u` is `big` or a view of it (cell 0)']);
    expect(sharers('u', `${SETUP}\nv = u`, 'w = v', 'u += 1')).toEqual(["`v` shares `u`'s memory (cell 0)", "`w` shares `v`'s memory (cell 1)"]);
    expect(sharers('u', 'import numpy as np\nu = load_grid()', 'u += 1')).toEqual(['`u` comes from `load_grid()` (cell 0), which may hand back an array held elsewhere']);
  });

  it('finds nothing where only values are read, or the sharing came before the binding the cell sees', () => {
    expect(sharers('u', `${SETUP}\nprint(u.sum(), len(u), float(u[0, 0]))\nw = u * 2\nc = u.copy()\nplt_args = np.mean(u)`, 'u += 1')).toEqual([]);
    expect(sharers('u', 'import numpy as np\nold = np.ones(4)\nv = old\nu = np.zeros(4)', 'u += 1')).toEqual([]);
    expect(sharers('u', 'import numpy as np\nu = np.ones(4)\nv = u', 'u = np.zeros(4)', 'u += 1')).toEqual([]);
    // the other name was rebound since: it no longer holds u's memory
    expect(sharers('u', 'import numpy as np\nu = np.ones(4)\nv = u', 'v = np.zeros(4)', 'u += 1')).toEqual([]);
    expect(sharers('u', 'import numpy as np\nu = np.ones(4)\nv = u\nv = v * 2', 'u += 1')).toEqual([]);
    // the elements of a 1-D array are numbers
    expect(sharers('u', 'import numpy as np\nu = np.ones(4)\nfor x in u:\n    print(x)', 'u += 1')).toEqual([]);
    // a comprehension over rows that keeps numbers, not rows
    expect(sharers('u', `${SETUP}\nsums = [float(row.sum()) for row in u]`, 'u += 1')).toEqual([]);
  });

  it('finds nothing where the array (or a view of it) is stored into another array: NumPy copies the values in', () => {
    expect(sharers('u', `${SETUP}\nx = np.zeros((4, 2048), dtype=np.float32)\nx[0] = u[0]\nx[1:3, :] = u[:2]`, 'u += 1')).toEqual([]);
    // a list, an object array or a value of unknown type keeps the array itself
    expect(sharers('u', `${SETUP}\nkeep = [None]\nkeep[0] = u`, 'u += 1')).toEqual(['`u` is kept in `keep` (cell 0)']);
    expect(sharers('u', `${SETUP}\nbox = np.empty(2, dtype=object)\nbox[0] = u`, 'u += 1')).toEqual(['`u` is kept in `box` (cell 0)']);
    expect(sharers('u', `${SETUP}\nbox = make_box()\nbox[0] = u`, 'u += 1')).toEqual(['`u` is kept in `box` (cell 0)']);
  });

  it("finds nothing kept by a matplotlib object's method (its artist draws the array, never changes it); an object of unknown origin may keep it", () => {
    const plots = 'import matplotlib.pyplot as plt\nfig, ax = plt.subplots(1, 2)\nax[0].plot(u[0])\nax1 = fig.add_subplot(122)\nax1.imshow(u)\nplt.gca().plot(u[1])';
    expect(sharers('u', `${SETUP}\n${plots}`, 'u += 1')).toEqual([]);
    expect(sharers('u', `${SETUP}\nstore = make_store()\nstore.add(u)`, 'u += 1')).toEqual(['`u` is passed to `store.add()` (cell 0), which may keep it']);
    // (a name bound otherwise too is not known to be matplotlib's)
    expect(sharers('u', `${SETUP}\nimport matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax = make_store()\nax.plot(u)`, 'u += 1')).toHaveLength(1);
  });
});

describe('views of all the elements, views of a part, copies of all of them (aliases.ts method tables)', () => {
  it('takes a view of every element as sharing memory, a part view too, a copy of every element not', () => {
    // (conj of a real array is the array itself: NumPy's PyArray_Conjugate returns it)
    for (const view of ['u.conj()', 'u.conjugate()', 'u.view(np.int32)', 'u.T.ravel()', 'u.diagonal()']) {
      expect(sharers('u', `${SETUP}\nv = ${view}`, 'u += 1')).toEqual(["`v` shares `u`'s memory (cell 0)"]);
    }
    for (const copy of ['u.copy()', 'u.astype(np.float64)', 'u.flatten()', 'u.T.copy()']) {
      expect(sharers('u', `${SETUP}\nv = ${copy}`, 'u += 1')).toEqual([]);
    }
  });

  it('readsWhole follows chains of whole views and copies to the array, not parts or other arrays', () => {
    const arg = (expr: string) => {
      const tree = p.parse(`f(${expr})\n`);
      const call = tree.rootNode.namedChild(0)!.namedChild(0)!;
      return call.childForFieldName('arguments')!.namedChild(0)!;
    };
    for (const whole of ['R', '(R)', 'R.T', 'R.ravel()', 'R.astype(float).T', 'R.T.astype(np.float32).ravel()', '(R.T).copy()', 'R.reshape(-1, 4).swapaxes(0, 1)', 'R.view(np.int64).flatten()', 'R.mT.conj()']) {
      expect([whole, readsWhole(arg(whole), 'R')]).toEqual([whole, true]);
    }
    for (const part of ['R[0]', 'R.T[0]', 'R.astype(float)[:, 1]', 'R.diagonal()', 'R.T.diagonal().copy()', 'R.sum()', 'R.real', 'S.astype(float).T', 'f(R).T', 'R.copy().sum()']) {
      expect([part, readsWhole(arg(part), 'R')]).toEqual([part, false]);
    }
  });
});

describe('memorySharers: advanced indexing copies, basic indexing is a view', () => {
  const ARRAYS = 'import numpy as np\nu = np.random.rand(1000)\ng = np.zeros((30, 40))';

  it('finds nothing shared by a selection with a boolean mask, an integer array or a list', () => {
    const copies = [
      'mask = u > 0.5\nsel = u[mask]',
      'sel = u[u > 0.5]',
      'order = np.argsort(u)\nsel = u[order]',
      'sel = u[u.argsort()[:10]]',
      'idx = np.nonzero(u > 0.5)[0]\nsel = u[idx]',
      'sel = u[np.nonzero(u > 0.5)]',
      'hits = np.where(u > 0.5)\nsel = u[hits]',
      'sel = u[[0, 3, 5]]',
      'sel = u[[k for k in range(3)]]',
      // a copy's views and rows are the copy's memory
      'sel = u[u > 0.5].reshape(-1, 1)',
      'for x in u[u > 0.5]:\n    print(x)'
    ];
    for (const c of copies) {
      expect({ c, sharers: sharers('u', `${ARRAYS}\n${c}`, 'u *= 2') }).toEqual({ c, sharers: [] });
    }
  });

  it('finds nothing shared by a multi-index holding an array, whatever its other parts', () => {
    const copies = ['rows, cols = np.nonzero(g)\nsel = g[rows, 1:]', 'sel = g[:, g[0] > 0]', 'sel = g[(g[:, 0] > 0, 0)]', 'sel = g[..., [0, 1]]'];
    for (const c of copies) {
      expect({ c, sharers: sharers('g', `${ARRAYS}\n${c}`, 'g *= 2') }).toEqual({ c, sharers: [] });
    }
  });

  it('takes an array selected from another by a mask as its own memory', () => {
    expect(sharers('u', 'import numpy as np\nbig = np.zeros(100)\nu = big[big > 0]', 'u += 1')).toEqual([]);
    // rebinding an alias to a selection ends its holding the memory
    expect(sharers('u', `${ARRAYS}\nv = u`, 'v = v[v > 0.5]', 'u *= 2')).toEqual([]);
  });

  it('keeps slices, integers, None, `...` and indices of unknown kind as views', () => {
    const views = [
      'sel = g[1:]',
      'sel = g[None, ::2]',
      'sel = g[...]',
      'sel = g[3]',
      'i = 3\nsel = g[i]',
      'sel = g[1:, 2]',
      // np.argmax gives a NumPy integer: a row, a view
      'sel = g[np.argmax(g[:, 0])]',
      // what the index holds is not known: it may be an integer
      'sel = g[pick]',
      'sel = g[load_index()]',
      'where = (0, slice(None))\nsel = g[where]'
    ];
    for (const c of views) {
      expect({ c, sharers: sharers('g', `${ARRAYS}\n${c}`, 'g *= 2') }).toEqual({ c, sharers: ["`sel` shares `g`'s memory (cell 0)"] });
    }
    expect(sharers('u', 'import numpy as np\nbig = np.zeros(100)\nu = big[2:]', 'u += 1')).toEqual(['`u` is `big` or a view of it (cell 0)']);
  });

  it('keeps a subscript of what is not known to be an array as a view: its __getitem__ may hand back what it holds', () => {
    expect(sharers('u', `${ARRAYS}\ngrid = Grid()\ngrid.field = u\nsel = grid[u > 0.5]`, 'u *= 2')).toContain("`sel` shares `grid`'s memory (cell 0)");
  });
});

describe('memorySharers: chained assignments and rebound aliases', () => {
  it('finds every target of a chained assignment', () => {
    // `initial = u = np.zeros(...)`: initial is the same array as u
    expect(sharers('u', 'import numpy as np\ninitial = u = np.zeros((64, 64))', 'u += 1')).toEqual(["`initial` shares `u`'s memory (cell 0)"]);
    expect(sharers('initial', 'import numpy as np\ninitial = u = np.zeros((64, 64))', 'initial += 1')).toEqual(["`u` shares `initial`'s memory (cell 0)"]);
    // `a = b = u`: both names
    expect(sharers('u', `${SETUP}\na = b = u`, 'u += 1')).toEqual(["`a` shares `u`'s memory (cell 0)", "`b` shares `u`'s memory (cell 0)"]);
    // a chain that stores it and names it
    expect(sharers('u', `${SETUP}\nstate = {}\na = state["u"] = u`, 'u += 1')).toEqual(["`a` shares `u`'s memory (cell 0)", '`u` is kept in `state` (cell 0)']);
    // a walrus on the way, and the result of an out= call (the out array itself)
    expect(sharers('u', `${SETUP}\na = (v := u)`, 'u += 1')).toEqual(["`a` shares `u`'s memory (cell 0)", "`v` shares `u`'s memory (cell 0)"]);
    expect(sharers('u', `${SETUP}\nr = np.multiply(u, 2.0, out=u)`, 'u += 1')).toEqual(["`r` shares `u`'s memory (cell 0)"]);
    expect(sharers('r', `${SETUP}\nr = np.multiply(u, 2.0, out=u)`, 'r += 1')).toEqual(['`r` is `u` or a view of it (cell 0)']);
  });

  it('keeps an alias rebound to a view of the memory, and what it passed on before a rebinding', () => {
    const alias = `${SETUP}\nv = u`;
    expect(sharers('u', alias, 'v = v.reshape(-1)', 'u += 1')).toEqual(["`v` shares `u`'s memory (cell 0)"]);
    expect(sharers('u', alias, 'v = v[1:]', 'u += 1')).toEqual(["`v` shares `u`'s memory (cell 0)"]);
    // w took it from v before v was rebound: w still holds it, v does not
    expect(sharers('u', alias, 'w = v\nv = None', 'u += 1')).toEqual(["`w` shares `v`'s memory (cell 1)"]);
    // dropped, then taken again
    expect(sharers('u', alias, 'v = None', 'v = u', 'u += 1')).toEqual(["`v` shares `u`'s memory (cell 2)"]);
  });

  it('does not count a rebinding that may not run', () => {
    const alias = `${SETUP}\nv = u`;
    const kept = ["`v` shares `u`'s memory (cell 0)"];
    expect(sharers('u', alias, 'x = 7\nif x > 5:\n    v = None', 'u += 1')).toEqual(kept);
    expect(sharers('u', alias, 'for k in range(0):\n    v = None', 'u += 1')).toEqual(kept);
    expect(sharers('u', alias, 'try:\n    v = None\nexcept ValueError:\n    pass', 'u += 1')).toEqual(kept);
    expect(sharers('u', alias, 'ok = True and (v := None)', 'u += 1')).toEqual(kept);
    // rebound to what a call hands back (may be the array itself)
    expect(sharers('u', alias, 'v = load(v)', 'u += 1')).toContain("`v` shares `u`'s memory (cell 0)");
    // definite rebindings to new objects do count
    expect(sharers('u', alias, 'del v', 'u += 1')).toEqual([]);
    expect(sharers('u', alias, 'v = w = None', 'u += 1')).toEqual([]);
  });

  it('follows the earlier binding of the array when its last one may not run', () => {
    const view = 'import numpy as np\nbig = np.zeros((10, 10))\nu = big[1:-1, 1:-1]';
    expect(sharers('u', view, 'reset = False\nif reset:\n    u = np.zeros((8, 8))', 'u += 1')).toEqual(['`u` is `big` or a view of it (cell 0)']);
    expect(sharers('u', `${SETUP}\nv = u`, 'for k in range(0):\n    u = np.ones((4, 4))', 'u += 1')).toEqual(["`v` shares `u`'s memory (cell 0)"]);
    // a definite one ends the search
    expect(sharers('u', view, 'u = np.zeros((8, 8))', 'u += 1')).toEqual([]);
  });

  it('finds nothing when the cell first binds the name to a new array before any other use', () => {
    expect(sharers('u', `${SETUP}\ninitial = u`, `u = u.copy()\n${JACOBI_LOOP}`)).toEqual([]);
    expect(sharers('u', `${SETUP}\ninitial = u`, `u = np.zeros((64, 64))\nu += 1`)).toEqual([]);
    // used first, a view, in a branch, or updated while rebinding: the sharers stand
    const shared = ["`initial` shares `u`'s memory (cell 0)"];
    expect(sharers('u', `${SETUP}\ninitial = u`, `u[0, 0] = 2.0\nu = u.copy()`)).toEqual(shared);
    expect(sharers('u', `${SETUP}\ninitial = u`, `u = u[1:]\nu += 1`)).toEqual(shared);
    expect(sharers('u', `${SETUP}\ninitial = u`, `if True:\n    u = u.copy()\nu += 1`)).toEqual(shared);
    expect(sharers('u', `${SETUP}\ninitial = u`, `u = np.multiply(u, 2.0, out=u)\nu += 1`)).toEqual(shared);
    expect(sharers('u', `${SETUP}\ninitial = u`, `def step():\n    u[0, 0] = 1.0\nu = u.copy()\nstep()`)).toEqual(shared);
  });
});

describe('in-place GPU rewrites and host aliases (per cell)', () => {
  it('leaves the non-aliased in-place rewrite as it was: u rebound to the device array', () => {
    const a = analyse(SETUP, JACOBI_LOOP, 'np.save("u.npy", u)');
    expect(a.refusal).toBeUndefined();
    expect(a.writeBack).toEqual([]);
    expect([...a.hostKept]).toEqual([]);
    expect(a.candidate).toMatch(/^import cupy as cp\nu = cp\.asarray\(u\)\n/);
    expect(a.candidate).toMatch(/\nu = cp\.asnumpy\(u\)$/);
    expect(a.candidate).not.toContain('u_gpu');
  });

  it('writes the result back into the same host array when another name shares it', () => {
    const a = analyse(`${SETUP}\ninitial = u`, JACOBI_LOOP, 'print(initial[1, 1])');
    expect(a.refusal).toBeUndefined();
    expect(a.writeBack).toEqual(['u']);
    expect(a.candidate).toMatch(/^import cupy as cp\nu_gpu = cp\.asarray\(u\)\n/);
    expect(a.candidate).toMatch(/\nu_gpu\.get\(out=u\)  # into the same host array: initial shares its memory \(cell 0\)\ndel u_gpu$/);
    // never rebound: the host name keeps its host array
    expect(a.candidate).not.toMatch(/^u = /m);
    expect(a.notes.join('\n')).toContain("`initial` shares `u`'s memory (cell 0)");
    // the copy back is paid for
    expect(a.work.deviceToHostBytes).toBe(2048 * 2048 * 4);
  });

  it('writes back through a view: u a view of a padded grid', () => {
    const a = analyse('import numpy as np\npadded = np.zeros((2050, 2050), dtype=np.float32)\nu = padded[1:-1, 1:-1]', JACOBI_LOOP);
    expect(a.writeBack).toEqual(['u']);
    expect(a.candidate).toContain('u[...] = cp.asnumpy(u_gpu)');
  });

  it('refuses, naming the alias, where the cell itself reads it or also rebinds the array', () => {
    const reads = analyse(`${SETUP}\ninitial = u`, `${JACOBI_LOOP}\nprint(initial[1, 1])`);
    expect(reads.refusal).toBe("`initial` shares `u`'s memory (cell 0), and this cell reads `initial`: updating a device copy of `u` would leave `initial` stale within the cell");
    const rebinds = analyse(`${SETUP}\nhistory = [u]`, 'u[1:-1] = np.sqrt(u[1:-1] * u[1:-1] + 1.0) * np.exp(-u[1:-1])\nu = u * 2.0');
    expect(rebinds.refusal).toMatch(/^`u` is kept in `history` \(cell 0\): this cell both updates `u` in place and rebinds it/);
  });

  it('writes back through every target of a chained assignment', () => {
    const a = analyse('import numpy as np\ninitial = u = np.zeros((2048, 2048), dtype=np.float32)\nu[0, :] = 1.0', JACOBI_LOOP, 'print(initial[1, 1])');
    expect(a.refusal).toBeUndefined();
    expect(a.writeBack).toEqual(['u']);
    expect(a.candidate).toMatch(/\nu_gpu\.get\(out=u\)  # into the same host array: initial shares its memory \(cell 0\)\ndel u_gpu$/);
  });

  it('rebinds freely when the cell copies the array before updating it', () => {
    const a = analyse(`${SETUP}\ninitial = u`, `u = u.copy()\n${JACOBI_LOOP}`, 'print(initial[1, 1], u[1, 1])');
    expect(a.refusal).toBeUndefined();
    expect(a.writeBack).toEqual([]);
    expect(a.candidate).toMatch(/^import cupy as cp\nu = cp\.asarray\(u\)\n/);
    expect(a.candidate).toMatch(/\nu = cp\.asnumpy\(u\)$/);
  });

  it('counts out= and views bound in the cell as in-place updates of the input', () => {
    const out = analyse('import numpy as np\nx = np.random.rand(20_000_000)\ny = np.random.rand(20_000_000)', 'np.multiply(np.sin(y), np.cos(y), out=x)', 'print(x.sum())');
    // x is updated: rebound to the device array and brought back, not left a stale read-only copy;
    // out= writes all of it before anything reads it, so nothing is uploaded
    expect(out.candidate).toContain('x = cp.empty(x.shape, dtype=x.dtype)');
    expect(out.candidate).toContain('x = cp.asnumpy(x)');
    const view = analyse('import numpy as np\nx = np.random.rand(4000, 4000)', 'w = x[1:-1]\nw[...] = np.sqrt(w * w + 1.0) * np.exp(-w)', 'print(x.sum())');
    expect(view.candidate).toContain('x = cp.asarray(x)');
    expect(view.candidate).toContain('x = cp.asnumpy(x)');
  });

  it('refuses to bring back an array the cell shared with another name when a later cell updates it in place', () => {
    const a = analyse('import numpy as np', 'x = np.random.rand(20_000_000)\nfields = {"x": x}', 'x *= 2.0', 'print(fields["x"].mean())');
    expect(a.refusal).toBe('`x` is kept in `fields` in this cell and a later cell updates it in place: bringing `x` back to the host makes a copy that `fields` does not share');
    const alias = analyse('import numpy as np', 'x = np.random.rand(20_000_000)\nsnapshot = x', 'x *= 2.0', 'print(snapshot.mean())');
    expect(alias.refusal).toBe("`snapshot` shares `x`'s memory in this cell and a later cell updates it in place: bringing `x` back to the host makes a copy that `snapshot` does not share");
    // a selection by a mask is a copy on the device as on the host: bringing `x` back leaves it as it was
    expect(analyse('import numpy as np', 'x = np.random.rand(20_000_000)\nbright = x[x > 0.5]', 'x *= 2.0', 'print(bright.mean())').refusal).toBeUndefined();
    // nothing updates it later: the copies stay equal, the rewrite stands
    expect(analyse('import numpy as np', 'x = np.random.rand(20_000_000)\nsnapshot = x', 'print(snapshot.mean(), x.sum())').refusal).toBeUndefined();
  });
});

describe('in-place GPU rewrites and host aliases (whole-notebook plan)', () => {
  it('keeps an aliased array on the host when something updates it later, copying it in per GPU cell', () => {
    const plan = rewriteNotebook(
      cellsOf('import numpy as np\nx = np.linspace(0.0, 1.0, 20_000_000)\nsnapshot = x', 'y = np.sqrt(x * x + 1.0) * np.exp(-x)', 'x[0] = 5.0\nprint(snapshot[0], y.sum())')
    );
    expect(plan.gpuCells).toContain(1);
    // not `x = cp.asarray(x)`: the host x stays the array `snapshot` is
    expect(plan.cells[1].source).toMatch(/^x_gpu = cp\.asarray\(x\)\n/);
    // the copy is released at the end of the cell (the plan counts only resident arrays)
    expect(plan.cells[1].source).toMatch(/\ndel x_gpu$/);
    expect(plan.cells[2].source).not.toMatch(/x = cp\.asnumpy\(x\)/);
    expect(plan.transfers.filter(t => t.name === 'x').map(t => t.reason)).toEqual(['copied in by this cell: another name may share its host memory, so it stays a host array']);
  });

  it('keeps an aliased array resident when nothing updates it in place', () => {
    const plan = rewriteNotebook(cellsOf('import numpy as np\nx = np.linspace(0.0, 1.0, 20_000_000)\nsnapshot = x', 'y = np.sqrt(x * x + 1.0) * np.exp(-x)', 'z = np.sqrt(x * y + 1.0) * np.exp(-y)'));
    expect(plan.gpuCells).toEqual([1, 2]);
    expect(plan.cells[2].source).not.toContain('asarray');
  });

  it('writes an in-place update back into the shared host array at the end of the GPU cell', () => {
    const plan = rewriteNotebook(cellsOf(`${SETUP}\ninitial = u`, JACOBI_LOOP, 'print(initial[1, 1])'));
    expect(plan.gpuCells).toContain(1);
    expect(plan.cells[1].source).toMatch(/^u_gpu = cp\.asarray\(u\)\n/);
    expect(plan.cells[1].source).toMatch(/\nu_gpu\.get\(out=u\)  # into the same host array: initial shares its memory \(cell 0\)\ndel u_gpu$/);
    expect(plan.transfers.filter(t => t.name === 'u').map(t => t.direction)).toEqual(['to-device', 'to-host']);
  });

  // (the draw is followed by work that pays on the GPU even with x copied back for host code:
  // a cell whose results only host cells read stays on the host when the copies make it slower)
  const draw = 'x = np.random.rand(20_000_000)\nx = np.sqrt(x) * np.exp(-x) + np.sin(x)';

  it('brings a resident array back where a host cell lets another object keep it and it is updated later', () => {
    const plan = rewriteNotebook(
      cellsOf('import numpy as np\nimport pandas as pd', draw, 's = pd.Series(x)', 'x *= 2.0\nprint(s.mean())')
    );
    expect(plan.cells[2].source).toBe('x = cp.asnumpy(x)\ns = pd.Series(x)');
  });

  it('hands a DataFrame built from a dict a copy: pandas copies dict data, so it keeps none of the array', () => {
    const plan = rewriteNotebook(
      cellsOf('import numpy as np\nimport pandas as pd', draw, 'df = pd.DataFrame({"x": x})', 'x *= 2.0\nprint(df["x"].mean())')
    );
    expect(plan.cells[2].source).toBe('df = pd.DataFrame({"x": cp.asnumpy(x)})');
    // a column of objects holding the array, or copy=False, keeps it
    const kept = rewriteNotebook(
      cellsOf('import numpy as np\nimport pandas as pd', draw, 'df = pd.DataFrame({"x": x}, copy=False)', 'x *= 2.0\nprint(df["x"].mean())')
    );
    expect(kept.cells[2].source).toBe('x = cp.asnumpy(x)\ndf = pd.DataFrame({"x": x}, copy=False)');
  });

  it('keeps a GPU cell that shares a device array with another name on the host when a later cell updates it', () => {
    const plan = rewriteNotebook(cellsOf('import numpy as np', 'x = np.random.rand(20_000_000)\nsnapshot = x', 'x[0] = 5.0\nprint(snapshot[0])'));
    expect(plan.gpuCells).toEqual([]);
  });
});

describe('globalReferences: the module-level name, not a function\'s own', () => {
  const refs = (source: string, name: string): string[] => {
    const model = modelOf(source);
    const root = model.cells[0].tree!.rootNode;
    return globalReferences(root, name).map(n => `${n.startPosition.row}:${n.startPosition.column}`);
  };
  it('finds a parameter default reading it (evaluated where the function is defined)', () => {
    expect(refs('def f(a=u, *, b: T = u):\n    return a', 'u')).toEqual(['0:8', '0:21']);
    expect(refs('g = lambda a=u: a + 1', 'u')).toEqual(['0:13']);
  });
  it('skips a function whose parameter has that name, and nothing for a name only part of a parameter list', () => {
    expect(refs('def f(u):\n    return u\nv = u', 'u')).toEqual(['2:4']);
    expect(refs('def f(uu=1, n=2):\n    return u', 'u')).toEqual(['1:11']);
    // splats, typed or not, bind their name
    expect(refs('def f(*u: int):\n    return u', 'u')).toEqual([]);
    expect(refs('def f(**u):\n    return u', 'u')).toEqual([]);
    expect(refs('def f(*, u: int = 0):\n    return u', 'u')).toEqual([]);
  });
});
