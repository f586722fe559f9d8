import { rewriteNotebook as planNotebook, type PlanOptions, type ResidencyPlan } from '../../src/analysis/plan';
import type { CellInput } from '../../src/analysis/types';
import { readFileSync } from 'fs';
import { join } from 'path';
import { cellsOf, parser, percentCells, checkPlanFixture } from './helpers';

/** The plan judged by steady figures: these notebooks are small, and test data movement, not first-use costs. */
const rewriteNotebook = (cells: CellInput[], opts: PlanOptions = {}): ResidencyPlan => planNotebook(cells, { session: 'warm', ...opts });

beforeAll(async () => {
  await parser();
});

const notebook = () =>
  cellsOf(
    'import numpy as np\nimport matplotlib.pyplot as plt\nN = 4000',
    'x = np.random.rand(N, N)',
    'y = np.sqrt(x * x + 1.0) * np.exp(-x)',
    'plt.imshow(y)\nprint(y.mean())',
    'for i in range(10):\n    y[i, 0] = i',
    'np.save("y.npy", y)'
  );

describe('residency plan (whole-notebook rewrite)', () => {
  it('keeps arrays on the device across GPU cells, without per-cell round trips', () => {
    const plan = rewriteNotebook(notebook());
    expect(plan.gpuCells).toEqual([1, 2]);
    expect(plan.cells[1].source).toBe('x = cp.random.rand(N, N)');
    // y is made from the resident x: no asarray, no asnumpy in the GPU cells
    expect(plan.cells[2].source).not.toMatch(/asarray|asnumpy/);
    // the fused kernel is defined once, in the import cell, not in the cell that calls it
    expect(plan.cells[2].source).toBe('y = y_kernel(x)');
  });

  it('adds the CuPy import once, in the import cell', () => {
    const plan = rewriteNotebook(notebook());
    expect(plan.cells[0].source).toBe(
      'import numpy as np\nimport matplotlib.pyplot as plt\nimport cupy as cp\n\n' +
        "y_kernel = cp.ElementwiseKernel(\n    'float64 x', 'float64 y',\n    'y = sqrt(x * x + 1.0) * exp(-x)',\n    'y_kernel', options=('--fmad=false',))  # no FMA contraction: rounded as NumPy rounds\n\nN = 4000"
    );
    expect(plan.cells.filter(c => c.source.includes('import cupy')).length).toBe(1);
    expect(plan.definitions.map(d => [d.name, d.cellIndex])).toEqual([['y_kernel', 2]]);
    expect(plan.definitionsCell).toBe(0);
  });

  it('hoists @cp.fuse() functions too (CuPy traces a Fusion object once), with distinct names across cells', () => {
    const plan = rewriteNotebook(
      cellsOf(
        'import numpy as np\nN = 50_000_000',
        'x = np.random.rand(N)\ny = np.random.rand(N)',
        'mask = np.exp(-x * x) + np.sin(y) * np.cos(y) > 0.5',
        'mask = np.exp(-y * y) + np.sin(x) * np.cos(x) > 0.25'
      )
    );
    expect(plan.definitions.map(d => d.name)).toEqual(['mask_fused', 'mask_fused2']);
    expect(plan.cells[0].source).toContain('@cp.fuse()\ndef mask_fused(x, y):');
    expect(plan.cells[2].source).toBe('mask = mask_fused(x, y)');
    expect(plan.cells[3].source).toBe('mask = mask_fused2(y, x)');
  });

  it('calls a kernel an earlier cell already defined rather than defining (and compiling) a twin under another name', () => {
    const plan = rewriteNotebook(
      cellsOf(
        'import numpy as np\nN = 50_000_000\ndxg = 0.1',
        'xp = np.random.rand(N)',
        'frac = xp / dxg - np.floor(xp / dxg)\nprint(frac.sum())',
        'xp = xp + 0.5\nfrac = xp / dxg - np.floor(xp / dxg)\nprint(frac.sum())',
        'yp = np.random.rand(N)\nfrac = np.sqrt(yp / dxg) - np.floor(yp / dxg)\nprint(frac.sum())'
      )
    );
    const names = plan.definitions.map(d => d.name);
    // one definition per distinct kernel: the last cell's differs (sqrt), so it keeps its own
    expect(names).toHaveLength(2);
    expect(new Set(plan.definitions.map(d => d.text)).size).toBe(2);
    expect(plan.cells[2].source).toContain(`frac = ${names[0]}(`);
    expect(plan.cells[3].source).toContain(`frac = ${names[0]}(`);
    expect(plan.cells[4].source).toContain(`frac = ${names[1]}(`);
    // the import cell defines (and CuPy compiles) two kernels, not three
    expect(plan.cells[0].source.match(/= cp\.ElementwiseKernel\(/g)).toHaveLength(2);
  });

  it('keeps scipy.sparse matrices on the device: built with cupyx in setup, multiplied there', () => {
    const plan = rewriteNotebook(
      cellsOf(
        'import numpy as np\nimport scipy.sparse as sp',
        'n = 2_000_000\nM = sp.diags([np.ones(n - 1), -2.0 * np.ones(n), np.ones(n - 1)], [-1, 0, 1], format="csr")\nv = np.ones(n)',
        'w = M @ v'
      )
    );
    expect(plan.gpuCells).toEqual([1, 2]);
    expect(plan.cells[1].source).toContain('M = cupyx.scipy.sparse.diags(');
    expect(plan.cells[2].source).toBe('w = M @ v');
    expect(plan.transfers.filter(t => t.name === 'M')).toEqual([]);
    expect(plan.changes.find(c => c.cellIndex === 2)?.rule).toBe('GPU102');
  });

  it('keeps a methods-only reduction cell on the device (a.mean(axis=1), a.std(), a.sum())', () => {
    const plan = rewriteNotebook(
      cellsOf('import numpy as np', 'rng = np.random.default_rng(1)\na = rng.standard_normal((20_000, 5_000))', 'row_mean = a.mean(axis=1)\nrow_std = a.std(axis=1)\ntotal = a.sum()')
    );
    expect(plan.gpuCells).toEqual([1, 2]);
    expect(plan.cells[2].source).toBe('row_mean = a.mean(axis=1)\nrow_std = a.std(axis=1)\ntotal = a.sum()');
    expect(plan.transfers).toEqual([]);
  });

  it('converts at real host boundaries only', () => {
    const plan = rewriteNotebook(notebook());
    // matplotlib gets a host copy; print works on the device value as it is
    expect(plan.cells[3].source).toBe('plt.imshow(cp.asnumpy(y))\nprint(y.mean())');
    // element-by-element host code: the array comes back for good
    expect(plan.cells[4].source).toBe('y = cp.asnumpy(y)\nfor i in range(10):\n    y[i, 0] = i');
    // after that, y is a host array again: the file write needs nothing
    expect(plan.cells[5].source).toBe('np.save("y.npy", y)');
    expect(plan.transfers.filter(t => t.direction === 'to-host').map(t => [t.cellIndex, t.name])).toEqual([[3, 'y'], [4, 'y']]);
  });

  it('shares one host copy between consumers of a resident array where one takes all of it, and copies parts where only parts are read', () => {
    const setup = ['import numpy as np\nimport matplotlib.pyplot as plt\nN = 4000', 'x = np.cos(np.arange(N * N, dtype=np.float64).reshape(N, N) * 1e-3)', 'R = np.sqrt(x * x + 1.0) * np.exp(-x)'];
    // a whole reader (np.save(R)) and a view of all of R (R.ravel(), R.T): one copy, all read it
    const whole = rewriteNotebook(cellsOf(...setup, 'np.save("R.npy", R)\nplt.hist(R.ravel())\nplt.plot(R.T)', 'print(float(R.sum()))'));
    expect(whole.cells[3].source).toBe('R_host = cp.asnumpy(R)\nnp.save("R.npy", R_host)\nplt.hist(R_host.ravel())\nplt.plot(R_host.T)');
    expect(whole.transfers.filter(t => t.direction === 'to-host' && t.cellIndex === 3)).toHaveLength(1);
    // two rows only: each copied where it is read (8 KB each, not the 128 MB array)
    const rows = rewriteNotebook(cellsOf(...setup, 'plt.plot(R[0])\nplt.plot(R[-1])', 'print(float(R.sum()))'));
    expect(rows.cells[3].source).toBe('plt.plot(cp.asnumpy(R[0]))\nplt.plot(cp.asnumpy(R[-1]))');
    // a single consumer of a view keeps its own copy where it is handed over
    const single = rewriteNotebook(cellsOf(...setup, 'plt.hist(R.ravel())', 'print(float(R.sum()))'));
    expect(single.cells[3].source).toBe('plt.hist(cp.asnumpy(R.ravel()))');
  });

  it('reports each change with its rule', () => {
    const plan = rewriteNotebook(notebook());
    expect(plan.changes.map(c => [c.cellIndex, c.rule ?? null])).toEqual([[0, null], [1, 'GPU104'], [2, 'GPU103'], [3, null], [4, null]]);
  });

  it('brings arrays an A/B cell reads back before it, not inside its timed baseline', () => {
    const ab = '%%gpuoptimize --budget 2\nz = np.sort(x)\n# %% gpu\nimport cupy as cp\nz = cp.asnumpy(cp.sort(cp.asarray(x)))';
    const cells = cellsOf(
      'import numpy as np\nN = 20_000_000',
      'x = np.random.rand(N)',
      'y = np.sqrt(x * x + 1.0) * np.exp(-x)',
      '%%bash\necho between',
      ab,
      'print(x[:3], y[:3])'
    );
    const plan = rewriteNotebook(cells);
    expect(plan.gpuCells).toEqual([1, 2]);
    // the A/B cell is left as written; x comes back at the end of the last Python cell before it
    // (the %%bash cell cannot take it), y stays on the device for the print
    expect(plan.cells[4].source).toBe(ab);
    expect(plan.cells[3].source).toBe('%%bash\necho between');
    expect(plan.cells[2].source).toBe('y = y_kernel(x)\nx = cp.asnumpy(x)');
    expect(plan.transfers.filter(t => t.direction === 'to-host').map(t => [t.cellIndex, t.name])).toEqual([[2, 'x']]);
    expect(plan.changes.find(c => c.cellIndex === 2)?.summary).toMatch(/brings x back to the host for the A\/B cell 4/);
    expect(plan.cells[5].source).toBe('print(x[:3], y[:3])');
  });

  it("puts an A/B cell's bring-back before the earlier cell's displayed value, which stays displayed", () => {
    const ab = '%%gpuoptimize\nz = np.sort(x)\n# %% gpu\nimport cupy as cp\nz = cp.asnumpy(cp.sort(cp.asarray(x)))';
    const plan = rewriteNotebook(cellsOf('import numpy as np\nN = 20_000_000', 'x = np.random.rand(N)', 'y = np.sqrt(x * x + 1.0) * np.exp(-x)\ny[:3]', ab));
    expect(plan.cells[2].source).toBe('y = y_kernel(x)\nx = cp.asnumpy(x)\ny[:3]');
    expect(plan.cells[3].source).toBe(ab);
    // after a trailing call that returns None, as a rewrite's own bring-back goes (the call may write the arrays)
    const call = rewriteNotebook(cellsOf('import numpy as np\nN = 20_000_000', 'x = np.random.rand(N)', 'y = np.sqrt(x * x + 1.0) * np.exp(-x)\nprint(y[:3])', ab));
    expect(call.cells[2].source).toBe('y = y_kernel(x)\nprint(y[:3])\nx = cp.asnumpy(x)');
    // a shown value reading none of the arrays brought back stays last, after the lines
    const valued = rewriteNotebook(cellsOf('import numpy as np\nN = 20_000_000', 'x = np.random.rand(N)', 'y = np.sqrt(x * x + 1.0) * np.exp(-x)\nfloat(y.sum())', ab));
    expect(valued.cells[2].source).toBe('y = y_kernel(x)\nx = cp.asnumpy(x)\nfloat(y.sum())');
    // one reading them is evaluated first (on the device array), then the lines, then shown
    const reads = rewriteNotebook(cellsOf('import numpy as np\nN = 20_000_000', 'x = np.random.rand(N)', 'y = np.sqrt(x * x + 1.0) * np.exp(-x)\nfloat(x.sum())', ab));
    expect(reads.cells[2].source).toBe('y = y_kernel(x)\nshown = float(x.sum())\nx = cp.asnumpy(x)\nshown');
  });

  it('leaves a notebook without GPU work unchanged', () => {
    const cells = cellsOf('import math', 'print(math.sqrt(2))');
    const plan = rewriteNotebook(cells);
    expect(plan.cells.map(c => c.source)).toEqual(cells.map(c => c.source));
    expect(plan.changes).toEqual([]);
  });
});

describe('plan fixtures (test/fixtures/plan/<case>/: notebook.py -> rewritten.py; verify_on_gpu.py runs both on the GPU)', () => {
  const cases: [string, string, number[]][] = [
    ['pipeline', 'data created on the device, kept there, converted at plotting and at host code', [1, 2, 3]],
    ['host-values', "host code gets NumPy's values: scalars, Python bools, SciPy's matrix, a lambda's arrays", [0, 1]],
    ['host-reads', 'host code that only reads resident arrays gets copies of what it reads (a slice, an element, a host copy for a loop); an in-place host update brings one back for good', [2, 4, 9]],
    ['host-copies', 'one host copy per version of a resident array, read again by later host cells; host consumers in a loop read a copy made before it; a notebook function that keeps none of its arguments gets host copies', [0, 2]],
    ['kernel-twins', 'a kernel and a fused function whose cells differ only in the names of their arrays and scalars are defined (compiled) once, each cell calling it with its own arguments', [0, 1, 2, 3]],
    ['unpacked-quantiles-resident', 'quantiles unpacked into names come back once, as the pair\'s host copy, where host code or a later cell reads them; a pair only device work reads stays 0-d device arrays', [0, 1, 2]],
    ['host-parts-for-pandas', 'pandas reads a part of a resident array through the host copy an earlier host cell made, and a host array where it is: neither is copied again', [0, 1, 3]],
    ['host-consumer-mixes-host-arrays', "a host consumer's argument computing with host arrays too gets host copies of the resident names it reads, not a copy of its device result", [0]],
    ['host-function-reads-global', 'a host cell whose function reads resident arrays as globals (a window from np.hanning, a transform) brings them back at its top; a function reading host values only changes nothing', [0, 1]],
    ['loop-parameter-array-read-later', 'a small literal array only host loops iterate stays NumPy even where later cells read it: the later GPU cell that needs it copies it in', [0, 1]],
    ['rebound-to-host-array', 'a GPU cell that binds a resident name to an array it keeps NumPy\'s ends its residency: the next GPU cell copies the new host array in', [1, 2, 3]],
    ['host-array-beside-device-copy', 'small constants no cell changes that a host loop reads later keep their host arrays beside device copies (F_gpu): no copy back, no copy in again', [0, 1, 3]],
    ['small-fit-on-host', 'a line fitted to 30 device values is NumPy\'s polyfit on the host, the values copied there; its result is a host value later cells read as it is', [0, 1]],
    ['plot-methods-keep-resident', 'arrays handed to methods of matplotlib objects (ax[0].plot, fig.add_subplot(...).semilogy) get host copies and stay resident, as with plt.plot', [0, 2]],
    ['host-array-changed-later', 'a constant a host cell updates in place is moved in by rebinding and brought back there, as before; one no cell changes keeps its host array', [0, 1, 3]],
    ['host-array-changed-through-view', 'constants a host cell changes through a view a call makes (F.reshape(-1)[0] = v, as_strided(Q)[0, 0] = v, S.setfield) are moved in by rebinding and brought back there; one only read through such views keeps its host array', [0, 1, 4]],
    ['small-arrays-made-where-read', 'small arrays a GPU cell makes from numbers alone that only host code reads later (t, t0s, freqs) are made on the host, NumPy\'s: no copy back; one read on the device stays there', [0, 2]],
    ['function-globals-on-device', 'arrays notebook functions read as globals go to the device under their own names where GPU cells run the functions on device arrays (also through a call alone); a cell that only defines the function copies nothing; a host call brings them back', [0, 2, 3, 4]],
    ['one-copy-for-two-host-cells', 'a resident array a host consumer takes and a later host cell copies whole again is copied once, at the first cell (zonal_host, its transpose on the host); one only consumers read is copied where handed over', [0, 1]],
    ['polyfit-coefficients', "np.polyfit's coefficients are a 1-d array of deg + 1: coef[0] fitted on the device is a 0-d value that host cells get as NumPy's scalar", [0, 1]],
    ['named-strided-views', "a reduction run once over strided views stays CuPy's calls also where the views are bound to names first, in the cell or an earlier one (no generated kernel copying them whole)", [0, 1, 2, 3]],
    ['row-join-read-later', "np.r_[0, x] made on the device is a known 1-d array: its cell moves, and binds the host copy its pandas consumer and a later host cell read (flux_host)", [0, 1]],
    ['lambda-globals-on-device', 'lambdas bound in other cells and a function bound under another name (step = propagate) that read arrays as globals find them on the device where GPU cells run them (F moved in under its own name); one reading only a number moves nothing more; a host call brings F back', [0, 3, 4, 6]],
    ['lambda-defined-while-resident', 'a host cell that only binds a lambda reading a resident array copies nothing; a host cell calling it under another name (g = prop2) brings the array back', [0, 1, 3]],
    ['function-reads-kept-constant', 'a constant a notebook function reads as a global is moved in by rebinding (the function reads the device array), not kept on the host beside a device copy; one no function reads keeps its host array', [0, 2]],
    ['filterbank-setup-chain', "a loop filling a small filterbank from bin numbers that notebook functions compute from mel points is set-up work: the chain stays NumPy's, the bank is copied in, the product with the resident spectrogram runs on the device", [0, 1, 2]],
    ['filterbank-setup-chain-read-later', 'the same loop where a later cell reads the mel points is not set-up work: the filterbank cell stays on the host', [0, 1]],
    ['consumer-copy-reused', "a GPU cell's host consumer copy of an array a later host cell reads unchanged is bound once (flux_host), read by both", [0, 1]],
    ['view-consumers-share-one-copy', 'host consumers of a resident array in one host cell, one taking it whole and one a view of all of it (R.ravel()), share one host copy, made at the first host cell reading R and read by the others', [0, 1, 5]],
    ['consumer-copy-changed-after', 'the same array updated in place after the consumer: the consumer keeps its own copy, the later host cell copies the new value', [0, 1]],
    [
      'host-copy-back-weighed',
      'a cell under the minimum speedup whose host version would copy a large resident array back (65.5 MB for band sums over a few columns) runs on the GPU; one whose copies back take microseconds stays on the host',
      [0, 1]
    ],
    [
      'default-argument-captures',
      'functions that took an array as a default argument when defined (lambda x, F=F; def f(x, G=F)) keep the host array: cells running them stay on the host and F is not moved for them; a number default moves; a global read moves F; a lambda defined while F is resident gets it back first',
      [0, 2, 5]
    ],
    ['function-local-update-not-global', "a notebook function's local array updated in place (R /= ...) keeps its dtype and shape: the cell calling it runs on the device (win, F_ref stay there), and the global R of that name is not touched", [0, 1, 2, 3]],
    ['function-local-update-host-copy', "a host cell whose function updates a local R in place does not change the global R: it reads a host copy (R_host), the device array stays for the next GPU cell", [0, 2]],
    ['function-global-update-moves-back', 'the same function declaring R global changes it: the host cell brings R back (R = cp.asnumpy(R)), the next GPU cell copies it in again', [0, 2]],
    ['host-copy-shared-changed-by-function', 'a notebook function changing its parameter in place (clip_inplace(w): np.clip(a, ..., out=a)) between two consumers of w: the later consumer copies w again', [1, 2, 3]],
    ['host-copy-shared-view-write', 'a write through a view no name holds (w.reshape(4000, 5000)[:, 0] = 0.0) between two consumers of w: the later consumer copies w again', [1, 2, 3]],
    ['host-copy-shared-changed-by-call', 'NumPy calls changing their argument (np.nan_to_num(w, copy=False), np.fill_diagonal(m.reshape(...), 0)) between consumers: the later consumers copy again', [1, 2, 3]],
    ['host-copy-shared-unchanged', 'nothing changes w between its consumers (np.clip without out=, a function that only reads it): one host copy serves both', [1, 2, 3]],
    ['consumer-copy-of-computed-value', 'a cell handing pandas a value it computes (pd.crosstab(lab % 3, lab)) from an array brought back earlier stays on the host: its GPU version would copy lab in and the 16 MB result back', [1]],
    ['builtin-divmod-stays-on-device', "the builtin divmod of a resident float array is NumPy's exact divmod on the device (np_divmod), not a host copy of it; of integers CuPy's; of one element NumPy's on the host", [0, 1, 2]],
    ['consumer-copy-small-result', 'a cell computing much on resident data and handing pandas a small result (64 bin counts) still moves: that copy back costs microseconds', [0, 1]],
    ['consumer-view-of-kept-host-array', "a GPU cell's pandas consumer reading a column of a host array an earlier GPU cell moved in (betas[:, 0]), which no cell changes, reads the host array: that cell copies it in beside it (betas_gpu), nothing comes back; one a GPU cell changes (gammas *= 2.0) is moved in by rebinding and its column copied back", [1, 2, 3]],
    ['host-copy-view-reused', 'a host cell binding a view of a resident array (fwd = x[a:b]) that an earlier host cell copied (x_host), with nothing changing either, takes the view from that copy: no copy again', [0, 3]],
    ['range-bounds-from-resident', 'host loops bounded by resident integers (range takes them through __index__, which a 0-d CuPy array lacks): a 0-d result comes back as NumPy\'s scalar, elements are copied where read as int(...), len needs no copy', [0, 2]]
  ];
  it.each(cases)('%s: %s', (name, _what, gpuCells) => {
    // judged by steady figures, as this file's rewriteNotebook is
    expect(checkPlanFixture(name, { session: 'warm' }).gpuCells).toEqual(gpuCells);
  });

  it("consumer-view-of-kept-host-array: the unchanged betas stays a host array for pandas, the changed gammas' column is copied back", () => {
    const plan = checkPlanFixture('consumer-view-of-kept-host-array', { session: 'warm' });
    expect(plan.cells[1].source).toContain('betas_gpu = cp.asarray(betas)\ngammas = cp.asarray(gammas)\n');
    expect(plan.cells[3].source).toContain('"beta0": betas[:, 0], "gamma0": cp.asnumpy(gammas[:, 0])');
    expect(plan.transfers.filter(t => t.direction === 'to-host')).toEqual([]);
  });

  it('lambda-globals-on-device: F moves in by rebinding where a lambda or an alias reads it, and comes back for the host call', () => {
    const { cells } = percentCells(readFileSync(join(__dirname, '..', 'fixtures', 'plan', 'lambda-globals-on-device', 'notebook.py'), 'utf8'));
    const plan = rewriteNotebook(cells, { session: 'warm' });
    expect(plan.cells[3].source).toMatch(/^F = cp\.asarray\(F\)$/m);
    expect(plan.cells[4].source).not.toMatch(/asarray\((F|off)\)/);
    expect(plan.cells[5].source).toMatch(/^F = cp\.asnumpy\(F\)$/m);
    expect(plan.cells[6].source).toMatch(/^F = cp\.asarray\(F\)$/m);
    expect(plan.cells.map(c => c.source).join('\n')).not.toMatch(/^[^#\n]*F_gpu/m);
  });

  it('kernel-twins: one definition per distinct kernel, called by both cells', () => {
    const { cells } = percentCells(readFileSync(join(__dirname, '..', 'fixtures', 'plan', 'kernel-twins', 'notebook.py'), 'utf8'));
    const plan = rewriteNotebook(cells);
    expect(plan.definitions.map(d => d.name)).toEqual(['frac_kernel', 'w1_fused']);
    expect(plan.cells[1].source).toMatch(/^frac = frac_kernel\(xp, dxg\)$/m);
    expect(plan.cells[2].source).toMatch(/^frac2 = frac_kernel\(xq, h\)$/m);
    expect(plan.cells[3].source).toMatch(/^w2 = w1_fused\(frac2, xq\)$/m);
  });

  it('kernel-twins: kernels that differ in more than names (a constant, a dtype) are defined apart', () => {
    const plan = rewriteNotebook(
      cellsOf(
        'import numpy as np\nx = np.linspace(0.0, 1.0, 8_000_000)\nx32 = x.astype(np.float32)',
        'a = np.sqrt(x * x + 1.0) * np.exp(-x)\nprint(a.sum())',
        'b = np.sqrt(x * x + 2.0) * np.exp(-x)\nprint(b.sum())',
        'c = np.sqrt(x32 * x32 + 1.0) * np.exp(-x32)\nprint(c.sum())'
      )
    );
    expect(plan.definitions.map(d => d.name)).toEqual(['a_kernel', 'b_kernel', 'c_kernel']);
  });
});
