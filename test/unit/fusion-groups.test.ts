/**
 * fusion.ts groupChains: consecutive top-level statements whose chains share a float dtype and a
 * known shape, each reading an earlier one's result, become ONE typed ElementwiseKernel; a result
 * read after the group is an output, one read only inside it a C local. The flag fixtures
 * (test/fixtures/rules/GPU103/flag-group-*) hold the full candidates; these tests hold the
 * decisions one at a time.
 */
import { join } from 'path';
import { analyzeNotebook } from '../../src/analysis/engine';
import { rewriteNotebook } from '../../src/analysis/plan';
import { cellsOf, parser, checkPlanFixture } from './helpers';

beforeAll(async () => {
  await parser();
});

const setup = [
  'import numpy as np',
  'rng = np.random.default_rng(1)',
  'x = rng.random(20_000_000)',
  'z = rng.random(20_000_000)',
  'x32 = rng.random(20_000_000, dtype=np.float32)',
  'm = rng.random((4000, 5000))',
  'row = rng.random(5000)'
].join('\n');

/** A third cell that draws from rng again, so the target cell's draws stay NumPy's (host draws copied over). */
const LATER_DRAW = 'print(w.mean(), rng.random())';

/** The GPU103 suggestion for the target cell (cell 1), with `later` as a third cell. */
function suggestion(target: string, later = 'print(w.mean())') {
  const result = analyzeNotebook(cellsOf(setup, target, later));
  return { gpu103: result.suggestions.find(s => s.rule === 'GPU103' && s.cellIndex === 1), all: result.suggestions.filter(s => s.cellIndex === 1) };
}

describe('statements grouped into one kernel', () => {
  it('keeps an intermediate nothing reads later in a register, and says so', () => {
    const s = suggestion('y = np.sqrt(x * x + z * z)\nw = np.exp(-y) * 2')!.gpu103!;
    expect(s.candidate).toContain("'float64 x, float64 z', 'float64 w',\n    'const double y = sqrt(x * x + z * z); w = exp(-y) * 2.0',");
    expect(s.candidate).toContain('\nw = w_kernel(x_gpu, z_gpu)\n');
    expect(s.candidate).not.toMatch(/^y = /m);
    expect(s.explanation).toContain('`y` stays in registers');
    // y is never bound: not left on the device either
    expect(s.explanation).not.toMatch(/Left on the device[^\n]*`y`/);
  });

  it('keeps the register when the same name appears later only as an attribute or a keyword name', () => {
    const s = suggestion('y = np.sqrt(x * x + z * z)\nw = np.exp(-y) * 2\nopts = dict(y=1)\nprint(w.dtype, opts)')!.gpu103!;
    expect(s.candidate).toContain("'const double y = sqrt(x * x + z * z); w = exp(-y) * 2.0'");
    expect(s.candidate).not.toMatch(/^y = /m);
  });

  it('makes an intermediate read by a later cell, the displayed value or a later statement an output', () => {
    for (const [target, later] of [
      ['y = np.sqrt(x * x + z * z)\nw = np.exp(-y) * 2', 'print(y.max(), w.mean())'],
      ['y = np.sqrt(x * x + z * z)\nw = np.exp(-y) * 2\ny', 'print(w.mean())'],
      ['y = np.sqrt(x * x + z * z)\nw = np.exp(-y) * 2\nprint(y[0])', 'print(w.mean())'],
      ['def peak():\n    return y.max()\n\ny = np.sqrt(x * x + z * z)\nw = np.exp(-y) * 2', 'print(w.mean())']
    ]) {
      const c = suggestion(target, later).gpu103!.candidate;
      expect(c).toContain("'float64 y, float64 w',\n    'const double y_ = sqrt(x * x + z * z); y = y_; w = exp(-y_) * 2.0',");
      expect(c).toContain('y, w = y_w_kernel(x_gpu, z_gpu)');
    }
  });

  it('makes an intermediate an output where a function an earlier cell defines reads it', () => {
    const result = analyzeNotebook(cellsOf(`${setup}\ndef peak():\n    return y.max()`, 'y = np.sqrt(x * x + z * z)\nw = np.exp(-y) * 2', 'print(peak(), w.mean())'));
    const c = result.suggestions.find(s => s.rule === 'GPU103' && s.cellIndex === 1)!.candidate;
    expect(c).toContain('y, w = y_w_kernel(x_gpu, z_gpu)');
  });

  it('groups statements of fewer than three operations when the group has three', () => {
    const c = suggestion('r = np.sqrt(x)\nw = r * 2.0 + 1.0')!.gpu103!.candidate;
    expect(c).toContain("'const double r = sqrt(x); w = r * 2.0 + 1.0'");
    // two operations in all: no fusion worth a kernel (GPU101's op-by-op rewrite)
    const two = suggestion('r = np.sqrt(x)\nw = r * 2.0');
    expect(two.gpu103).toBeUndefined();
  });

  it("draws a later statement's random input before the kernel runs (a generator reads no result)", () => {
    // (a later cell draws from rng again: its stream stays NumPy's, its draws on the host)
    const c = suggestion('y = np.sqrt(x)\nw = y * 2.0 + rng.random(20_000_000)', LATER_DRAW)!.gpu103!.candidate;
    expect(c).toContain("'const double y = sqrt(x); w = y * 2.0 + arg1'");
    // the host generator's draw is copied in whole, also where it ends the statement
    expect(c).toContain('\nw = w_kernel(x_gpu, cp.asarray(rng.random(20_000_000)))\n');
  });

  it("copies a host generator's draw a single chain reads, wherever it stands in the chain", () => {
    for (const [target, call] of [
      ['w = np.sqrt(x) * 2.0 + rng.random(20_000_000)', 'w_kernel(x_gpu, cp.asarray(rng.random(20_000_000)))'],
      ['w = rng.random(20_000_000) * np.sqrt(x) * 2.0', 'w_kernel(cp.asarray(rng.random(20_000_000)), x_gpu)'],
      ['w = np.sqrt(x) * rng.random(20_000_000) + 2.0', 'w_kernel(x_gpu, cp.asarray(rng.random(20_000_000)))']
    ]) {
      expect(suggestion(target, LATER_DRAW).gpu103!.candidate).toContain(`\nw = ${call}\n`);
    }
  });

  it('predicts fewer passes than one kernel per statement', () => {
    // the same chains as two statements whose results are both read later: two kernels
    const grouped = suggestion('y = np.sqrt(x * x + z * z) * 1.5\nw = np.exp(-y) * 2 + y').gpu103!;
    const apart = suggestion('y = np.sqrt(x * x + z * z) * 1.5\nprint(y[0])\nw = np.exp(-y) * 2 + y', 'print(w.mean(), y.max())').gpu103!;
    expect(apart.candidate).toContain('y_kernel');
    expect(apart.candidate).toContain('w_kernel');
    expect(grouped.prediction.residentSpeedup!).toBeGreaterThan(apart.prediction.residentSpeedup!);
  });
});

describe('a name the group binds again', () => {
  it('keeps the first value in a register and writes the last one (one pass, no temporary)', () => {
    const s = suggestion('R = np.sqrt(np.abs(x32)) * 2.0 + 1.0\nR = np.log1p(R) * np.exp(-R / 50.0)', 'print(float(R.sum()))').gpu103!;
    expect(s.candidate).toContain("'float32 x32', 'float32 R',\n    'const float R_ = sqrtf(fabsf(x32)) * 2.0f + 1.0f; R = log1pf(R_) * expf(-R_ / 50.0f)',");
    expect(s.candidate).toContain('\nR = R_kernel(x32_gpu)\n');
    expect(s.candidate.match(/ElementwiseKernel/g)).toHaveLength(1);
    expect(s.explanation).toContain('computing `R` (`R` bound again: its earlier value stays in a register, never written to memory)');
  });

  it('gives every binding its own register, read by the members up to the next binding', () => {
    const c = suggestion('R = np.sqrt(x) * 2.0\ns = R + z\nR = np.log1p(R) + s\nR = R * R - s', 'print(R.mean())').gpu103!.candidate;
    expect(c).toContain("'const double R_ = sqrt(x) * 2.0; const double s = R_ + z; const double R_2 = log1p(R_) + s; R = R_2 * R_2 - s'");
    expect(c).toContain('\nR = R_kernel(x_gpu, z_gpu)\n');
  });

  it('keeps a rebound name nothing reads after the group in registers, every binding', () => {
    const s = suggestion('R = np.sqrt(x)\nR = R * 2.0 + 1.0\nw = np.exp(-R)').gpu103!;
    expect(s.candidate).toContain("'float64 x', 'float64 w',\n    'const double R_ = sqrt(x); const double R = R_ * 2.0 + 1.0; w = exp(-R)',");
    expect(s.candidate).not.toMatch(/^R = /m);
    expect(s.explanation).toContain('`R` stays in registers');
  });

  it('rebinds a mask as a bool register', () => {
    const c = suggestion('k = x < 0.5\nk = k & (z > 0.25)\nw = np.where(k, x, z) * 2.0').gpu103!.candidate;
    expect(c).toMatch(/'const bool k_ = x < 0\.5; const bool k = k_ && \(z > 0\.25\); w = \(k \? x : z\) \* 2\.0'/);
  });
});

describe('a complex array read through np.abs', () => {
  const complexSetup = `${setup}\nz64 = np.fft.fft(x32)\nz128 = np.fft.fft(x)`;
  const gpu103 = (target: string, later: string): string =>
    analyzeNotebook(cellsOf(complexSetup, target, later)).suggestions.find(s => s.rule === 'GPU103' && s.cellIndex === 1)?.candidate ?? '';

  it("is a complex64 input of the float32 kernel, its magnitude abs(z) (the device's hypotf, as cp.abs computes it)", () => {
    const c = gpu103('Q = np.sqrt(np.abs(z64)) * 2.0 + 1.0\nQ = np.log1p(Q) * np.exp(-Q / 50.0)', 'print(Q.mean())');
    expect(c).toContain("'complex64 z64', 'float32 Q',\n    'const float Q_ = sqrtf(abs(z64)) * 2.0f + 1.0f; Q = log1pf(Q_) * expf(-Q_ / 50.0f)',");
    expect(c).not.toContain('cp.fuse');
    // complex128's magnitude is float64, beside a float64 array
    expect(gpu103('w = np.sqrt(np.abs(z128)) * x + 1.0', 'print(w.mean())')).toContain("'complex128 z128, float64 x', 'float64 w',\n    'w = sqrt(abs(z128)) * x + 1.0',");
  });

  it('keeps the @cp.fuse() form where the complex array is read other than by np.abs or dtypes differ', () => {
    // complex arithmetic (z * 2.0), another ufunc of it, a magnitude of the other float dtype
    for (const target of ['w = np.abs(z64 * 2.0) + x32 * 3.0', 'w = np.abs(np.exp(z64)) * 2.0 + x32', 'w = np.sqrt(np.abs(z128)) * x32 + 1.0']) {
      const c = gpu103(target, 'print(w.mean())');
      expect(c).toContain('@cp.fuse()');
      expect(c).not.toContain('ElementwiseKernel');
    }
  });
});

describe('the whole-notebook rewrite', () => {
  it('defines the group kernel once and moves no `y` it never binds', () => {
    const plan = rewriteNotebook(cellsOf(setup, 'y = np.sqrt(x * x + z * z)\nw = np.exp(-y) * 2', 'print(w.mean())'));
    expect(plan.gpuCells).toContain(1);
    expect(plan.definitions.map(d => d.name)).toEqual(['w_kernel']);
    expect(plan.cells[1].source).toBe('w = w_kernel(x, z)');
    // no later cell moves or evicts a `y` the rewrite never binds
    expect(plan.transfers.map(t => t.name)).not.toContain('y');
    expect(plan.cells[2].source).not.toMatch(/\by\b/);
  });
});

describe('plan fixture grouped-statements (test/fixtures/plan/: verify_on_gpu.py runs both on the GPU)', () => {
  it('keeps r (printed later) as an output and g in a register, the kernel defined in the import cell', () => {
    const plan = checkPlanFixture('grouped-statements');
    expect(plan.gpuCells).toContain(2);
    expect(plan.cells[2].source).toBe('r, out = r_out_kernel(x, z)');
  });
});

describe('statements kept apart', () => {
  const notGrouped = (target: string, later = 'print(w.mean())'): void => {
    const { gpu103, all } = suggestion(target, later);
    // still rewritten (op by op, or a kernel per statement), never as one kernel of both
    expect(all.length).toBeGreaterThan(0);
    expect(gpu103?.candidate ?? '').not.toMatch(/ElementwiseKernel\([^)]*; /);
  };
  it('a target its own statement reads (its old value)', () => {
    notGrouped('y = np.sqrt(x)\nx = y * 2.0 + x', 'print(x.mean())');
  });
  it('an intermediate read through a view or an element (computed before the kernel would run)', () => {
    notGrouped('y = np.sqrt(x)\nw = y * 2.0 + y[0]');
  });
  it('shapes that differ (broadcasting) or a mixed dtype', () => {
    notGrouped('y = np.sqrt(row) * 3.0 + 1.0\nw = y * 2.0 + m');
    notGrouped('y = np.sqrt(x32)\nw = y * 2.0 + x');
  });
  it('two arrays written in place that share memory (one kernel would race where NumPy writes one, then the other)', () => {
    const cells = (alias: string): ReturnType<typeof cellsOf> =>
      cellsOf(`${setup}\nu = np.empty(20_000_000)\n${alias}`, 'np.sqrt(x, out=u)\nnp.multiply(u, 2.0, out=v)\nw = v + u', 'print(w.mean(), u[0], v[0])');
    const kernelOf = (alias: string): string | undefined => analyzeNotebook(cells(alias)).suggestions.find(s => s.rule === 'GPU103' && s.cellIndex === 1)?.candidate;
    expect(kernelOf('v = np.empty(20_000_000)')).toContain("'float64 x', 'float64 u, float64 v, float64 w',");
    expect(kernelOf('v = u[::-1]') ?? '').not.toMatch(/ElementwiseKernel\([^)]*; /);
  });
  it('a statement under control flow', () => {
    notGrouped('y = np.sqrt(x)\nif True:\n    w = y * 2.0 + 1.0');
  });
  it('an in-place update', () => {
    notGrouped('y = np.sqrt(x)\ny *= 2.0\nw = y + 1.0');
  });
  it('a rebinding whose old value something else reads between, or an in-place update between', () => {
    notGrouped('R = np.sqrt(x) * 2.0\nprint(R[0])\nR = np.log1p(R) + 1.0', 'print(R.mean())');
    notGrouped('R = np.sqrt(x) * 2.0\ns = R.sum()\nR = np.log1p(R) + 1.0', 'print(R.mean(), s)');
    notGrouped('R = np.sqrt(x) * 2.0\nR += 1.0\nR = np.log1p(R) + 1.0', 'print(R.mean())');
  });
  it('a rebinding of another dtype, of an array written in place, or of a value no member reads', () => {
    notGrouped('R = np.sqrt(x32) * 2.0\nR = np.log1p(R) + x', 'print(R.mean())');
    notGrouped('np.sqrt(x, out=z)\nz = z * 2.0 + 1.0', 'print(z.mean())');
    // the first R is read by nothing: the last statement stays out of the group of the first two
    const c = suggestion('y = np.sqrt(x) * 1.5\nR = y * 2.0\nR = y + 1.0', 'print(R.mean())').gpu103?.candidate ?? '';
    expect(c).toContain("'const double y_ = sqrt(x) * 1.5; y = y_; R = y_ * 2.0'");
    expect(c).toContain('\nR = y + 1.0\n');
  });
  it('a first statement that reads its own target (the value from before the group)', () => {
    notGrouped('x = np.sqrt(x) * 2.0\nw = np.log1p(x) + 1.0', 'print(w.mean(), x.max())');
  });
});
