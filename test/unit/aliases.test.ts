/**
 * Host aliases of arrays updated in place on the GPU (rules/arrays/aliases.ts, cupy-rewrite.ts,
 * plan.ts): what the notebook shows sharing an array's memory, the refusals that name it, the
 * write-back into the same host array, and the non-aliased rewrite left as it was.
 */
import { CellCache, NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import { rewriteNotebook } from '../../src/analysis/plan';
import { memorySharers } from '../../src/analysis/rules/arrays/aliases';
import { analyseArrayCell } from '../../src/analysis/rules/arrays/cupy-rewrite';
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
    expect(a.candidate).toMatch(/\nu\[\.\.\.\] = cp\.asnumpy\(u_gpu\)  # into the same host array: initial shares its memory \(cell 0\)\ndel u_gpu$/);
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

  it('counts out= and views bound in the cell as in-place updates of the input', () => {
    const out = analyse('import numpy as np\nx = np.random.rand(20_000_000)\ny = np.random.rand(20_000_000)', 'np.multiply(np.sin(y), np.cos(y), out=x)', 'print(x.sum())');
    // x is updated: rebound to the device array and brought back, not left a stale read-only copy
    expect(out.candidate).toContain('x = cp.asarray(x)');
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
    expect(plan.cells[1].source).toMatch(/\nu\[\.\.\.\] = cp\.asnumpy\(u_gpu\)  # into the same host array: initial shares its memory \(cell 0\)\ndel u_gpu$/);
    expect(plan.transfers.filter(t => t.name === 'u').map(t => t.direction)).toEqual(['to-device', 'to-host']);
  });

  it('brings a resident array back where a host cell lets another object keep it and it is updated later', () => {
    const plan = rewriteNotebook(
      cellsOf('import numpy as np\nimport pandas as pd', 'x = np.random.rand(20_000_000)', 'df = pd.DataFrame({"x": x})', 'x *= 2.0\nprint(df["x"].mean())')
    );
    expect(plan.cells[2].source).toBe('x = cp.asnumpy(x)\ndf = pd.DataFrame({"x": x})');
  });

  it('keeps a GPU cell that shares a device array with another name on the host when a later cell updates it', () => {
    const plan = rewriteNotebook(cellsOf('import numpy as np', 'x = np.random.rand(20_000_000)\nsnapshot = x', 'x[0] = 5.0\nprint(snapshot[0])'));
    expect(plan.gpuCells).toEqual([]);
  });
});
