/**
 * GPU103 on full reductions over an elementwise chain: which kernel form, NumPy's result dtype,
 * and never a cp.fuse that ends in the reduction (CuPy runs those as one block).
 */
import { analyzeNotebook } from '../../src/analysis/engine';
import { rewriteNotebook } from '../../src/analysis/plan';
import { cellsOf, parser } from './helpers';

let p: Awaited<ReturnType<typeof parser>>;
beforeAll(async () => {
  p = await parser();
});

const SETUP = (dtype: string): string =>
  `import numpy as np\nx = np.random.rand(40_000_000).astype(np.${dtype})\ny = np.random.rand(40_000_000).astype(np.${dtype})`;

function gpu103(setup: string, cell: string): string {
  const result = analyzeNotebook(cellsOf(setup, cell));
  const s = result.suggestions.find(x => x.rule === 'GPU103' && x.cellIndex === 1);
  expect(s).toBeDefined();
  return s!.candidate;
}

describe('GPU103 reduction launchers', () => {
  it('never lets a notebook name shadow a launcher or kernel internal (_blocks, _n, _partial...)', () => {
    const setup = 'import numpy as np\n_blocks = np.random.rand(40_000_000)\n_n = np.random.rand(40_000_000)\n_acc = 2.0';
    const c = gpu103(setup, 'hits = np.count_nonzero(_blocks * _n <= _acc)');
    const def = /^def (\w+)\((.*)\):$/m.exec(c)!;
    expect(def[2].split(', ').every(p => !p.startsWith('_'))).toBe(true);
    expect(c).toContain(`hits = ${def[1]}(_blocks_gpu, _n_gpu, _acc)`);
  });
  it('raises as NumPy does for max/min of an empty array, warns for mean', () => {
    const c = gpu103(SETUP('float32'), 'hi = np.max(np.abs(x - y) * 2.0 + 1.0)');
    expect(c).toContain("    if _n == 0:\n        raise ValueError('zero-size array to reduction operation maximum which has no identity')");
    const m = gpu103(SETUP('float32'), 'm = np.mean(x * y + 2.0 * x)');
    expect(m).toContain("warnings.warn('Mean of empty slice.', RuntimeWarning, stacklevel=2)");
  });
  it('never casts: another dtype than the inferred one raises TypeError (both kernel forms)', () => {
    for (const cell of ['s = np.sum(x * y + 2.0 * x)', 'e = (0.5 * x * x + 2.0 * x + 1.0).sum()']) {
      const c = gpu103(SETUP('float32'), cell);
      expect(c).not.toContain('asarray(_a), dtype');
      expect(c).toMatch(/raise TypeError\(f'\w+ was generated for float32 arrays/);
    }
  });
});

describe('GPU103 reductions over a chain', () => {
  it.each([
    ['n_in = np.count_nonzero(x * x + y * y <= 1.0)', 'float64', 'cp.empty(_blocks, dtype=cp.int64)', 'return _partial.sum()'],
    ['s = np.sum(x * y + 2.0 * x)', 'float32', 'cp.empty(_blocks, dtype=cp.float64)', 'return (_partial.sum()).astype(cp.float32)'],
    ['m = np.mean(x * y + 2.0 * x)', 'float32', 'cp.empty(_blocks, dtype=cp.float64)', 'return (_partial.sum() / _n).astype(cp.float32)'],
    ['m = np.mean(x * x + y * y < 1.0)', 'float64', 'cp.empty(_blocks, dtype=cp.float64)', 'return _partial.sum() / _n'],
    ['hi = np.max(np.abs(x - y) * 2.0 + 1.0)', 'float32', 'cp.empty(_blocks, dtype=cp.float32)', 'return _partial.max()'],
    ['lo = (x * y - x + 3.0).min()', 'float64', 'cp.empty(_blocks, dtype=cp.float64)', 'return _partial.min()'],
    ['ok = np.all(x * x + y * y >= 0.0)', 'float64', 'cp.empty(_blocks, dtype=cp.bool_)', 'return _partial.all()']
  ])('%s (%s): one RawKernel pass with NumPy\'s result dtype', (cell, dtype, partial, ret) => {
    const c = gpu103(SETUP(dtype), cell);
    expect(c).toContain('cp.RawKernel(');
    expect(c).toContain("options=('--fmad=false',)");
    expect(c).toContain(partial);
    expect(c).toContain(ret);
    expect(c).not.toContain('cp.fuse');
  });

  it('keeps NaN propagation for max (NumPy returns NaN when any element is NaN)', () => {
    const c = gpu103(SETUP('float64'), 'hi = np.max(x * y + x - 1.0)');
    expect(c).toContain('_acc = (_acc > _e || _acc != _acc) ? _acc : _e;');
  });

  it('uses a cp.ReductionKernel (CUB) for the float sum of one whole array, accumulating float32 in double', () => {
    const c = gpu103(SETUP('float32'), 'e = (0.5 * x * x + 2.0 * x + 1.0).sum()');
    expect(c).toContain("e_reduce_kernel = cp.ReductionKernel(\n    'float32 x', 'float32 r',\n    '(double)(0.5f * x * x + 2.0f * x + 1.0f)'");
    expect(c).toContain("reduce_type='double'");
    expect(c).toContain('e = e_reduce(x_gpu)');
  });

  it('finds the reduction inside a larger expression and names the kernel after the assignment', () => {
    const c = gpu103(SETUP('float64'), 'pi_estimate = 4.0 * np.count_nonzero(x * x + y * y <= 1.0) / 40_000_000');
    expect(c).toContain('pi_estimate = 4.0 * pi_estimate_reduce(x_gpu, y_gpu) / 40_000_000');
  });

  it('with unknown dtypes fuses the elementwise part and lets CuPy reduce (never cp.fuse ending in the reduction)', () => {
    const c = gpu103('import numpy as np\nk = np.arange(40_000_000)', 'c = np.sum(k * k % 7 + 3 * k)');
    expect(c).toContain('@cp.fuse()\ndef c_fused(k):\n    return k * k % 7 + 3 * k\n');
    expect(c).toContain('c = cp.sum(c_fused(k_gpu))');
    const m = gpu103('import numpy as np\nk = np.arange(40_000_000)', 'c = (k * k % 7 + 3 * k).max()');
    expect(m).toContain('c = c_fused(k_gpu).max()');
  });

  it('leaves reductions with an axis and plain reductions to GPU101', () => {
    for (const cell of ['c = np.sum(x * x + y * y, axis=0)', 't = x.sum()']) {
      const result = analyzeNotebook(cellsOf(SETUP('float64'), cell));
      expect(result.suggestions.filter(s => s.rule === 'GPU103')).toEqual([]);
    }
  });

  it('puts the kernel and its launcher in the import cell under the notebook plan', () => {
    const plan = rewriteNotebook(cellsOf(SETUP('float64'), 'n_in = np.count_nonzero(x * x + y * y <= 1.0)'), { parser: p });
    expect(plan.cells[0].source).toContain('n_in_reduce_kernel = cp.RawKernel(');
    expect(plan.cells[0].source).toContain('def n_in_reduce(x, y):');
    expect(plan.cells[1].source).toBe('n_in = n_in_reduce(x, y)');
  });
});

describe('GPU103 launcher parameters', () => {
  it('never names a launcher parameter after what the launcher itself reads (cp, isinstance)', () => {
    const setup = 'import numpy as np\nx = np.random.rand(40_000_000)\nwarnings = np.random.rand(40_000_000)\nlimit = 2.0';
    const c = analyzeNotebook(cellsOf(setup, 'hits = np.count_nonzero(x * warnings <= limit)')).suggestions.find(s => s.rule === 'GPU103')!.candidate;
    const def = /^def (\w+)\((.*)\):$/m.exec(c)!;
    expect(def[2].split(', ')).not.toContain('warnings');
  });
});

describe('the float32 sum note', () => {
  const notes = (setup: string, cell: string): string =>
    analyzeNotebook(cellsOf(setup, cell))
      .suggestions.filter(x => x.rule === 'GPU103' && x.cellIndex === 1)
      .flatMap(x => x.notes)
      .join('\n');
  it('says a float32 sum or mean is accumulated in double (its last digit may differ from NumPy\'s)', () => {
    expect(notes(SETUP('float32'), 's = np.sum(x * y + 2.0 * x)')).toMatch(/float32 sum or mean is accumulated in double/);
    expect(notes(SETUP('float32'), 'm = np.mean(x * y + 2.0 * x)')).toMatch(/float32 sum or mean is accumulated in double/);
  });
  it('not for float64, nor for extrema', () => {
    expect(notes(SETUP('float64'), 's = np.sum(x * y + 2.0 * x)')).not.toMatch(/accumulated in double/);
    expect(notes(SETUP('float32'), 'hi = np.max(np.abs(x - y) * 2.0 + 1.0)')).not.toMatch(/accumulated in double/);
  });
});

describe('GPU103 reductions over views: a kernel where it pays (reductionKernelPays)', () => {
  const VIEWS = 'import numpy as np\na = np.random.rand(100, 20000, 4)\nb = np.random.rand(100, 20000, 4)';
  const rule = (cell: string): string | undefined => analyzeNotebook(cellsOf(VIEWS, cell)).suggestions.find(x => x.cellIndex === 1)?.rule;

  it('leaves a reduction run once over strided views to CuPy calls, which read them where they are', () => {
    for (const view of ['a[:, :, :2]', 'a[..., 1]', 'a[:, :, 1]', 'a[::2]', 'a.T', 'a[1:-1, 1:-1]']) {
      const other = view.replace(/^a/, 'b');
      expect([view, rule(`r = np.sqrt(np.mean((${view} - ${other}) ** 2))`)]).toEqual([view, 'GPU101']);
    }
  });

  it('generates the kernel over whole arrays and contiguous parts, or in a loop over any view', () => {
    for (const view of ['a', 'a[10:]', 'a[3]', 'a[:50]', 'a[2:5, :, :]', 'a[1:9:1]']) {
      const other = view.replace(/^a/, 'b');
      expect([view, rule(`r = np.sqrt(np.mean((${view} - ${other}) ** 2))`)]).toEqual([view, 'GPU103']);
    }
    expect(rule('for k in range(20):\n    r = np.sqrt(np.mean((a[:, :, :2] - b[:, :, :2]) ** 2))\n    a = a * 0.5 + 1.0')).toBe('GPU103');
  });
});
