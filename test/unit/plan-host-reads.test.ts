/**
 * Host code that only reads device-resident arrays in the whole-notebook plan: it gets host
 * copies of what it reads (a slice or element where it is read, the whole array once at the top
 * of the cell for a loop or repeated use) and the arrays stay on the device for later GPU cells,
 * each input moved there once. Only a host cell that changes an array (in place here) brings it
 * back for good; the next GPU cell moves it in again, once.
 */
import { rewriteNotebook as planNotebook, type PlanOptions, type ResidencyPlan } from '../../src/analysis/plan';
import type { CellInput } from '../../src/analysis/types';
import { cellsOf, parser } from './helpers';

/** The plan judged by steady figures: these notebooks are small, and test data movement, not first-use costs. */
const rewriteNotebook = (cells: CellInput[], opts: PlanOptions = {}): ResidencyPlan => planNotebook(cells, { session: 'warm', ...opts });

beforeAll(async () => {
  await parser();
});

// (float64 data: np.load alone gives the saved dtype, which the analysis cannot know)
const setup = 'import numpy as np\nimport pandas as pd\nn = 4_000_000\nx = np.load("x.npy").astype(np.float64)\nw = np.load("w.npy").astype(np.float64)';
const gpu = 'y = np.sqrt(x) * 2.0 + np.sin(w)';
const later = 'z = np.exp(y) * np.cos(x) + 1.0';
/** [cell, name, direction] of every transfer. */
const moves = (plan: ReturnType<typeof rewriteNotebook>): [number, string, string][] => plan.transfers.map(t => [t.cellIndex, t.name, t.direction]);

describe('residency plan: host code reading resident arrays', () => {
  it('hands pandas a copy of the slice it reads; the arrays stay on the device', () => {
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'df = pd.DataFrame({"y": y[:10], "x": x[-5:]})\ndf', later));
    expect(plan.gpuCells).toEqual([1, 3]);
    // (x, which no cell changes, keeps its host array beside its device copy: pandas reads it there)
    expect(plan.cells[1].source).toBe('x_gpu = cp.asarray(x)\nw = cp.asarray(w)\ny = y_kernel(x_gpu, w)');
    expect(plan.cells[2].source).toBe('df = pd.DataFrame({"y": cp.asnumpy(y[:10]), "x": x[-5:]})\ndf');
    expect(plan.cells[3].source).toBe('z = z_kernel(y, x_gpu)');
    expect(moves(plan)).toEqual([
      [1, 'x', 'to-device'],
      [1, 'w', 'to-device'],
      [2, 'y', 'to-host']
    ]);
  });

  it("hands a GPU cell's pandas consumer a view of a host array an earlier GPU cell moved in from the host array: that cell copies it in beside it", () => {
    // (p_finance cell 15: `"true_beta": betas[:, 0]` was `cp.asnumpy(betas[:, 0])`, betas rebound to its device copy in cell 3)
    const frame = 's = np.sqrt(y * y + 1.0) * np.exp(-y)\ndf = pd.DataFrame({"s": s[:10], "w0": w[:10]})';
    const plan = rewriteNotebook(cellsOf(setup, gpu, frame));
    expect(plan.gpuCells).toEqual([1, 2]);
    expect(plan.cells[1].source).toBe('x = cp.asarray(x)\nw_gpu = cp.asarray(w)\ny = y_kernel(x, w_gpu)');
    expect(plan.cells[2].source).toBe('s = s_kernel(y)\ndf = pd.DataFrame({"s": cp.asnumpy(s[:10]), "w0": w[:10]})');
    expect(plan.changes.find(c => c.cellIndex === 1)?.summary).toBe(
      'runs on the GPU; moves x to the device once; copies w to the device once as w_gpu, for this and later GPU cells (host code reads the host array later: no copy back)'
    );
    expect(moves(plan)).toEqual([
      [1, 'x', 'to-device'],
      [1, 'w', 'to-device']
    ]);
    // not where a later cell changes w (the host array and the device copy would part), nor for a
    // value computed from it (device work copied back, as before)
    const changed = rewriteNotebook(cellsOf(setup, gpu, frame, 'w[:5] = 0.0'));
    expect(changed.cells[1].source).toBe('x = cp.asarray(x)\nw = cp.asarray(w)\ny = y_kernel(x, w)');
    expect(changed.cells[2].source).toBe('s = s_kernel(y)\ndf = pd.DataFrame({"s": cp.asnumpy(s[:10]), "w0": cp.asnumpy(w[:10])})');
    const computed = rewriteNotebook(cellsOf(setup, gpu, frame.replace('w[:10]', 'w[:10] * 2.0')));
    expect(computed.cells[1].source).toBe('x = cp.asarray(x)\nw = cp.asarray(w)\ny = y_kernel(x, w)');
    expect(computed.cells[2].source).toBe('s = s_kernel(y)\ndf = pd.DataFrame({"s": cp.asnumpy(s[:10]), "w0": cp.asnumpy(w[:10] * 2.0)})');
  });

  it('still brings back an array a DataFrame may keep itself (a column of objects holding it)', () => {
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'kept = pd.DataFrame({"y": [y]})'));
    expect(plan.cells[2].source).toBe('y = cp.asnumpy(y)\nkept = pd.DataFrame({"y": [y]})');
  });

  it("copies an element an f-string shows with its repr as NumPy's scalar; a formatted one, as it is", () => {
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'i = 7\nprint(f"{y[i]!r} {y[0]:.3f} {w[n - 1]:.2f}")', later));
    expect(plan.cells[2].source).toBe('i = 7\nprint(f"{cp.asnumpy(y[i])[()]!r} {y[0]:.3f} {w[n - 1]:.2f}")');
    expect(plan.cells[3].source).toBe('z = z_kernel(y, x)');
    expect(moves(plan).filter(m => m[2] === 'to-device')).toEqual([
      [1, 'x', 'to-device'],
      [1, 'w', 'to-device']
    ]);
  });

  it('brings back an array an f-string shows with its own text ({y[0]=}: a copy would show its text)', () => {
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'print(f"{y[0]=}")'));
    expect(plan.cells[2].source).toBe('y = cp.asnumpy(y)\nprint(f"{y[0]=}")');
  });

  it('gives a host cell reading resident arrays copies, not a round trip, between GPU cells (no ping-pong)', () => {
    // the sequence of the event-reduction notebook: host reader, GPU cell, host reader again
    const reader = (a: string): string => `c = np.linalg.cond(np.outer(${a}[:3], x[:3]))\nprint(c, np.ptp(${a}), ${a}.max() - ${a}.min())`;
    const plan = rewriteNotebook(cellsOf(setup, gpu, reader('y'), later, reader('z')));
    expect(plan.gpuCells).toEqual([1, 3]);
    // y read whole three times: one host copy at the top; x, which no cell changes, keeps its
    // host array beside its device copy (x_gpu), which the GPU cells read
    expect(plan.cells[2].source).toBe('y_host = cp.asnumpy(y)\nc = np.linalg.cond(np.outer(y_host[:3], x[:3]))\nprint(c, np.ptp(y_host), y_host.max() - y_host.min())');
    expect(plan.cells[3].source).toBe('z = z_kernel(y, x_gpu)');
    expect(plan.cells[4].source).toBe('z_host = cp.asnumpy(z)\nc = np.linalg.cond(np.outer(z_host[:3], x[:3]))\nprint(c, np.ptp(z_host), z_host.max() - z_host.min())');
    expect(moves(plan)).toEqual([
      [1, 'x', 'to-device'],
      [1, 'w', 'to-device'],
      [2, 'y', 'to-host'],
      [4, 'z', 'to-host']
    ]);
    // (refused by the array rules, it says so first: cond has no CuPy equivalent)
    expect(plan.changes.find(c => c.cellIndex === 2)?.summary).toBe(
      "stays on the host: numpy.linalg.cond has no CuPy equivalent (not in CuPy's comparison table); copies y to the host as y_host for host code (the device array stays)"
    );
    expect(plan.changes.find(c => c.cellIndex === 2)?.stays).toBe('refused');
  });

  it('brings back for good an array a function reads (it may run after a later cell changed it)', () => {
    // (a later cell calls it: the function stays NumPy's; one only its own cell calls would move
    // to the device with the cell)
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'def spread():\n    return np.ptp(y)\nprint(spread())', 'print(spread())'));
    expect(plan.cells[2].source).toBe('y = cp.asnumpy(y)\ndef spread():\n    return np.ptp(y)\nprint(spread())');
  });

  it("hands a notebook function that keeps none of its arguments host copies; the arrays stay resident", () => {
    // the denoising notebook: `def psnr` and a call in one cell; the later GPU cells find x and y
    // on the device (no copy back in, no "another name may share" copies on every run)
    const psnr = 'def psnr(a, ref):\n    return 10 * np.log10(ref.max() ** 2 / np.mean((a - ref) ** 2))\nprint(psnr(y, x))';
    // (a later cell calls psnr too: it stays a host function, not one moved with its cell)
    const plan = rewriteNotebook(cellsOf(setup, gpu, psnr, later, 'print(psnr(x, y))'));
    expect(plan.gpuCells).toEqual([1, 3]);
    // (one host copy of each, read again by cell 4: neither array has changed since)
    expect(plan.cells[2].source).toBe('y_host = cp.asnumpy(y)\nx_host = cp.asnumpy(x)\n' + psnr.replace('psnr(y, x))', 'psnr(y_host, x_host))'));
    expect(plan.cells[3].source).not.toMatch(/asarray|_gpu/);
    expect(plan.cells[4].source).toBe('print(psnr(x_host, y_host))');
    expect(plan.changes.find(c => c.cellIndex === 4)?.summary).toBe('reads x_host (the host copy of x cell 2 made), y_host (the host copy of y cell 2 made): no copy again');
    expect(moves(plan)).toEqual([
      [1, 'x', 'to-device'],
      [1, 'w', 'to-device'],
      [2, 'y', 'to-host'],
      [2, 'x', 'to-host']
    ]);
  });

  it('brings back an array handed to a notebook function that may keep it (stores, returns or captures a parameter) or change it', () => {
    // (or changes it in place: the change would reach a copy, not the array)
    for (const body of ['    kept.append(a)\n    return a.sum()', '    return a', '    return lambda: a.sum()', '    a[0] = 0.0', '    a *= 2.0', '    a.sort()', '    np.exp(a, out=a)', '    np.add(a, 1.0, a)', '    np.put_along_axis(a, np.zeros((a.shape[0], 1), dtype=np.int64), 0.0, axis=1)', '    a.flat[:3] = 0.0', '    a[0], b = 1.0, 2.0', '    np.clip(a, 0.0, 1.0, out=(a,))']) {
      // (a later cell calls f too: it stays a host function)
      const plan = rewriteNotebook(cellsOf(setup, gpu, `kept = []\ndef f(a):\n${body}\nr = f(y)`, later, 'r = f(z)'));
      expect(plan.cells[2].source).toBe(`y = cp.asnumpy(y)\nkept = []\ndef f(a):\n${body}\nr = f(y)`);
    }
  });

  it('copies an array host consumers read in a loop once, at the top, not once per call (each copy waits for the GPU)', () => {
    const plot = 'import matplotlib.pyplot as plt\nfor i in range(50):\n    plt.plot(x[i:i + 60], y[i:i + 60])';
    const plan = rewriteNotebook(cellsOf(setup, gpu, plot, later));
    // (x, which no cell changes, keeps its host array: the loop reads it as it is)
    expect(plan.cells[2].source).toBe('import matplotlib.pyplot as plt\ny_host = cp.asnumpy(y)\nfor i in range(50):\n    plt.plot(x[i:i + 60], y_host[i:i + 60])');
    expect(plan.cells[3].source).toBe('z = z_kernel(y, x_gpu)');
    // outside a loop, each consumer still gets the part it reads
    const once = rewriteNotebook(cellsOf(setup, gpu, 'import matplotlib.pyplot as plt\nplt.plot(x[:60], y[:60])'));
    expect(once.cells[2].source).toBe('import matplotlib.pyplot as plt\nplt.plot(x[:60], cp.asnumpy(y[:60]))');
  });

  it('makes one host copy per version of an array: later host cells read it until a cell changes the array', () => {
    const loop = (a: string): string => `import math\nacc = 0.0\nfor j in range(100):\n    acc += math.log1p(${a}[j])`;
    const plan = rewriteNotebook(cellsOf(setup, gpu, loop('y'), 'e = [math.exp(y[j]) for j in range(10)]', 'y *= 2.0', loop('y')));
    expect(plan.cells[2].source).toBe(loop('y_host').replace('acc = 0.0', 'y_host = cp.asnumpy(y)\nacc = 0.0'));
    expect(plan.cells[3].source).toBe('e = [math.exp(y_host[j]) for j in range(10)]');
    // cell 4 updates y on the device: cell 5 copies the new values
    expect(plan.gpuCells).toContain(4);
    expect(plan.cells[5].source).toBe(loop('y_host').replace('acc = 0.0', 'y_host = cp.asnumpy(y)\nacc = 0.0'));
    expect(moves(plan).filter(m => m[2] === 'to-host')).toEqual([
      [2, 'y', 'to-host'],
      [5, 'y', 'to-host']
    ]);
  });

  it('takes a view a host cell binds (head = y[a:b]) from the host copy an earlier host cell made: no copy again', () => {
    // (p_finance cell 9: `fwd = x[reb[0]: ...]` copied x again after cell 7's x_host)
    const loop = 'import math\nacc = 0.0\nfor j in range(100):\n    acc += math.log1p(y[j])';
    const view = 'k0 = int(np.argmax(np.arange(10)))\nhead = y[k0 + np.int64(3): k0 + 100]\nprint(np.maximum.accumulate(head)[-1])';
    const plan = rewriteNotebook(cellsOf(setup, gpu, loop, view, later));
    expect(plan.gpuCells).toEqual([1, 4]);
    expect(plan.cells[3].source).toBe(view.replace('head = y[', 'head = y_host['));
    expect(plan.changes.find(c => c.cellIndex === 3)?.summary).toMatch(/reads y_host \(the host copy of y cell 2 made\): no copy again$/);
    // y crosses once, and stays resident for cell 4
    expect(moves(plan).filter(m => m[2] === 'to-host')).toEqual([[2, 'y', 'to-host']]);
    expect(plan.cells[4].source).toBe('z = z_kernel(y, x)');
  });

  it('does not take a view from the host copy where a later cell updates the view in place, nor where a list keeps it', () => {
    const loop = 'import math\nacc = 0.0\nfor j in range(100):\n    acc += math.log1p(y[j])';
    const view = 'k0 = int(np.argmax(np.arange(10)))\nhead = y[k0 + np.int64(3): k0 + 100]\nprint(np.maximum.accumulate(head)[-1])';
    // head changes y's memory later: y comes back for good (as the copy it is), the view is of the host array
    const updated = rewriteNotebook(cellsOf(setup, gpu, loop, view, later, 'head[0] = 0.0'));
    expect(updated.cells[3].source).toBe(`y = y_host\n${view}`);
    expect(updated.changes.find(c => c.cellIndex === 3)?.summary).toMatch(/takes y back as y_host \(the host copy cell 2 made\) for host code: no copy again$/);
    // a list holding the view may be changed out of sight: the host copy is not trusted, y is copied again
    const listed = view.replace('head = y[k0 + np.int64(3): k0 + 100]', 'parts = [y[k0 + np.int64(3): k0 + 100]]\nhead = parts[0]');
    const kept = rewriteNotebook(cellsOf(setup, gpu, loop, listed, later));
    expect(kept.cells[3].source).toBe(`y_host = cp.asnumpy(y)\n${listed.replace('[y[', '[y_host[')}`);
    expect(moves(kept).filter(m => m[2] === 'to-host')).toEqual([
      [2, 'y', 'to-host'],
      [3, 'y', 'to-host']
    ]);
  });

  it('copies an array host code copies (y.copy()) once: cp.asnumpy makes the new host array', () => {
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'q = y.copy()\nfor k in range(5):\n    q[k] = 0.0', later));
    expect(plan.cells[2].source).toBe('q = cp.asnumpy(y)\nfor k in range(5):\n    q[k] = 0.0');
    expect(plan.cells[3].source).not.toMatch(/asarray|_gpu/);
  });

  it('counts a DataFrame built from a dict as keeping none of the arrays (pandas copies dict data)', () => {
    // y handed to pandas, then updated in place on the host: no other name shares its memory,
    // so the next GPU cell moves it in for good instead of copying it in on every run
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'df = pd.DataFrame({"y": y[:10]})', 'for k in range(5):\n    y[k] = 0.0', later));
    expect(plan.cells[4].source).toBe('y = cp.asarray(y)\nz = z_kernel(y, x)');
    expect(plan.changes.find(c => c.cellIndex === 4)?.summary).toBe('runs on the GPU; moves y to the device once');
  });

  it('copies an array a loop reads once, at the top of the cell', () => {
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'import math\nacc = 0.0\nfor j in range(100):\n    acc += math.log1p(y[j])', later));
    expect(plan.cells[2].source).toBe('import math\ny_host = cp.asnumpy(y)\nacc = 0.0\nfor j in range(100):\n    acc += math.log1p(y_host[j])');
    expect(plan.cells[3].source).toBe('z = z_kernel(y, x)');
  });

  it('brings back for good an array host code updates in place; the next GPU cell moves it in once', () => {
    const plan = rewriteNotebook(cellsOf(setup, gpu, 'for k in range(5):\n    y[k] = 0.0', later, 'u = np.exp(y) * np.cos(x) + z'));
    expect(plan.gpuCells).toEqual([1, 3, 4]);
    expect(plan.cells[2].source).toBe('y = cp.asnumpy(y)\nfor k in range(5):\n    y[k] = 0.0');
    expect(plan.cells[3].source).toBe('y = cp.asarray(y)\nz = z_kernel(y, x)');
    expect(plan.cells[4].source).toBe('u = u_kernel(y, x, z)');
    expect(moves(plan)).toEqual([
      [1, 'x', 'to-device'],
      [1, 'w', 'to-device'],
      [2, 'y', 'to-host'],
      [3, 'y', 'to-device']
    ]);
  });

  it('keeps on the host a GPU cell whose work does not pay for moving an array host code changed back in (no ping-pong)', () => {
    const plan = rewriteNotebook(
      cellsOf(
        'import numpy as np\nn = 4_000_000\nrng = np.random.default_rng(0)',
        'x = rng.exponential(1.0, size=n)\ny = rng.exponential(2.0, size=n)',
        'z = np.sqrt(x) * 2.0 + np.sin(y)',
        'for k in range(5):\n    z[k] = 0.0',
        't = z[::4] + 1.0',
        'for k in range(5):\n    z[k] = 1.0',
        'u = np.exp(z) * np.cos(x) + np.sin(z)',
        // rng drawn from again: its stream stays NumPy's, so cell 1 draws x and y on the host
        'print(rng.random())'
      )
    );
    // cell 4 would move z (32 MB) in for a pass over a quarter of it, and cell 5 bring it back
    expect(plan.gpuCells).toEqual([2, 6]);
    expect(plan.cells[4].source).toBe('t = z[::4] + 1.0');
    expect(plan.cells[5].source).toBe('for k in range(5):\n    z[k] = 1.0');
    expect(plan.cells[6].source).toBe('z = cp.asarray(z)\nu = u_kernel(z, x)');
    expect(plan.changes.find(c => c.cellIndex === 4)?.summary).toMatch(
      /^stays on the host: z was brought back to the host by an earlier cell, and a GPU version of this cell would move it to the device again \(32\.0 MB, [\d.]+ ms\): [\d.]+ ms against [\d.]+ ms on the CPU \(0\.\d+x\)$/
    );
    expect(moves(plan)).toEqual([
      [2, 'x', 'to-device'],
      [2, 'y', 'to-device'],
      [3, 'z', 'to-host'],
      [6, 'z', 'to-device']
    ]);
  });
});
