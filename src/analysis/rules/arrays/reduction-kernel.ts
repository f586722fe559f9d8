/**
 * Full reductions over an elementwise chain (`np.count_nonzero(x * x + y * y <= 1.0)`,
 * `(a * b).sum()`, `np.max(np.abs(u - v))`) as one typed GPU kernel: the chain is evaluated per
 * element and folded in the same pass, so nothing of array size is written.
 *
 * Two forms (references/cupy.md#fused-reductions has the measurements):
 * - the float sum of one input array named by a plain name (the launcher copies a view such as
 *   `big[:, 0]` to a contiguous array first): `cp.ReductionKernel`. CuPy runs a single-input
 *   ReductionKernel through CUB's device reduction, map expression included (H200: 200M float64
 *   in 451 us, 85% of the copy ceiling, against 3.2 ms op by op). CuPy 14 compiles that path
 *   without the kernel's options (`_launch_cub` passes none), so the kernel claims no
 *   --fmad=false: a product and a sum of the element may be one FMA, 1 ulp, within a sum's
 *   tolerance; and it renames the input to `in0` by text replacement, so an input whose name
 *   occurs inside another token of the element (`d` in `(double)`) gets the RawKernel form.
 * - several inputs, a view, or `mean`: a `cp.RawKernel` (grid-stride loop, warp shuffles, one
 *   partial per block, combined by CuPy) behind a small launcher function. CuPy's own
 *   ReductionKernel and `cp.fuse` would launch ONE block of 512 threads for a full reduction of
 *   several inputs (CUB takes one input only): 17.4 ms for 20M points where this kernel takes
 *   84 us and op-by-op CuPy 454 us.
 *
 * Result dtypes are NumPy's: `count_nonzero` and `sum` of booleans int64; `sum` of float32
 * float32 (accumulated in double, rounded once: at least as accurate as NumPy's pairwise float32
 * sum, so the two agree to about one float32 ulp of the total); `mean` of float32 float32, of
 * booleans float64; `max`/`min` the input's type, NaN-propagating like NumPy; `any`/`all` bool.
 * The block count is fixed by the size, so a float result is the same on every run. Counts and
 * extrema equal NumPy's exactly when the element uses only `+ - * /`, `sqrt` and comparisons
 * (correctly rounded in CUDA and NumPy alike, with --fmad=false); `exp`, `log`, `pow`, trig...
 * differ from NumPy's (SIMD) versions by an ulp or so, which can move a value across a
 * comparison or change a max in its last bit. Empty input: max/min raise ValueError as NumPy
 * does, mean warns and returns nan, sum/count 0, any False, all True.
 */
import { cFloatLiteral, launcherInputChecks, rawKernelWithLauncher } from './fusion';

export type FusedReduction = 'sum' | 'count_nonzero' | 'mean' | 'max' | 'min' | 'any' | 'all';

/** Function forms (`np.sum(e)`) the typed kernels handle; amax/amin are max/min. */
export const TYPED_REDUCTIONS: ReadonlyMap<string, FusedReduction> = new Map([
  ['sum', 'sum'], ['count_nonzero', 'count_nonzero'], ['mean', 'mean'], ['max', 'max'], ['amax', 'max'],
  ['min', 'min'], ['amin', 'min'], ['any', 'any'], ['all', 'all']
]);

export interface ReductionKernelSpec {
  reduction: FusedReduction;
  /** The arrays' dtype. */
  dtype: 'float32' | 'float64';
  /**
   * One C name per chain parameter, in order; `array` false for a scalar or a piece of scalars
   * (`dt * 0.3`), which the cell computes and the launcher casts once to `dtype` (NEP 50).
   */
  params: { name: string; array: boolean }[];
  /** The C expression of one element, in the source's operation order. */
  element: string;
  /** The element is a comparison (bool), not a number. */
  elementIsBool: boolean;
  /** Emit a cp.ReductionKernel (one whole contiguous input) rather than a RawKernel + launcher. */
  library: boolean;
}

interface Fold {
  /** C type of the accumulator. */
  acc: string;
  /** The element as an accumulator value. */
  map: string;
  /** Combines two accumulator values. */
  combine: (a: string, b: string) => string;
  identity: string;
  /** CuPy dtype of the result (NumPy's). */
  out: string;
  /** CuPy reduction of the per-block partials. */
  finish: 'sum' | 'max' | 'min' | 'any' | 'all';
}

function foldOf(s: ReductionKernelSpec): Fold {
  const t = s.dtype === 'float32' ? 'float' : 'double';
  const e = s.element;
  const truth = s.elementIsBool ? `(${e})` : `((${e}) != ${cFloatLiteral('0', s.dtype)})`;
  const add = (a: string, b: string): string => `${a} + ${b}`;
  const or = (a: string, b: string): string => `${a} || ${b}`;
  const and = (a: string, b: string): string => `${a} && ${b}`;
  const count = { acc: 'long long', map: `(${truth} ? 1 : 0)`, combine: add, identity: '0', out: 'int64', finish: 'sum' as const };
  // -inf / +inf without headers (NVRTC has no math constants by default)
  const inf = (neg: boolean): string => (t === 'float' ? `__int_as_float(${neg ? '0xff800000' : '0x7f800000'})` : `__longlong_as_double(${neg ? '0xfff0000000000000ULL' : '0x7ff0000000000000ULL'})`);
  switch (s.reduction) {
    case 'count_nonzero':
      return count;
    case 'sum':
      return s.elementIsBool ? count : { acc: 'double', map: `(double)(${e})`, combine: add, identity: '0', out: s.dtype, finish: 'sum' };
    case 'mean':
      return { acc: 'double', map: s.elementIsBool ? `(${e} ? 1 : 0)` : `(double)(${e})`, combine: add, identity: '0', out: s.elementIsBool ? 'float64' : s.dtype, finish: 'sum' };
    case 'any':
      return { acc: 'bool', map: truth, combine: or, identity: 'false', out: 'bool', finish: 'any' };
    case 'all':
      return { acc: 'bool', map: truth, combine: and, identity: 'true', out: 'bool', finish: 'all' };
    case 'max':
    case 'min': {
      if (s.elementIsBool) {
        return s.reduction === 'max'
          ? { acc: 'bool', map: truth, combine: or, identity: 'false', out: 'bool', finish: 'any' }
          : { acc: 'bool', map: truth, combine: and, identity: 'true', out: 'bool', finish: 'all' };
      }
      const cmp = s.reduction === 'max' ? '>' : '<';
      // NaN wins, as in NumPy's max/min
      return { acc: t, map: `(${e})`, combine: (a, b) => `(${a} ${cmp} ${b} || ${a} != ${a}) ? ${a} : ${b}`, identity: inf(s.reduction === 'max'), out: s.dtype, finish: s.reduction };
    }
  }
}

const BLOCK = 256;
/**
 * At most 1,024 blocks (and partials): ~8 per SM on an H200, enough to saturate memory. Written
 * as a product so that no literal in the candidate looks like a data size (the bench scales
 * integer literals >= 1000 when it shrinks a workload).
 */
const MAX_BLOCKS_TEXT = '4 * 256';

/** The definition text (kernel object and the launcher function that checks its inputs). */
export function reductionDefinition(s: ReductionKernelSpec, fname: string, cp: string): string {
  const f = foldOf(s);
  const q = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (s.library) {
    const p = s.params.map(x => `${s.dtype} ${x.name}`).join(', ');
    const reduceType = f.acc === 'double' && s.dtype === 'float32' ? ",\n    reduce_type='double'" : '';
    const post = f.out === s.dtype && f.acc === 'double' && s.dtype === 'float32' ? 'r = (float)a' : 'r = a';
    const x = s.params[0].name;
    return [
      // no options=('--fmad=false',): CuPy 14 compiles the CUB path without a kernel's options
      '# CuPy reduces one contiguous input through CUB, compiled without this kernel\'s options:',
      '# a product and a sum in the element may become one FMA (1 ulp, within a sum\'s tolerance)',
      `${fname}_kernel = ${cp}.ReductionKernel(`,
      `    ${q(p)}, ${q(`${f.out} r`)},`,
      `    ${q(f.map)},  # each element, as an accumulator value`,
      `    ${q(f.combine('a', 'b'))}, ${q(post)}, ${q(f.identity)},`,
      `    ${q(`${fname}_kernel`)}${reduceType})`,
      '',
      '',
      `def ${fname}(${x}):`,
      ...launcherInputChecks(s.dtype, fname, cp, [x]),
      `    return ${fname}_kernel(${x})`,
      ''
    ].join('\n');
  }
  const t = s.dtype === 'float32' ? 'float' : 'double';
  const args = s.params.map(p => (p.array ? `const ${t}* __restrict__ _in_${p.name}` : `const ${t} ${p.name}`));
  const loads = s.params.filter(p => p.array).map(p => `${p.name} = _in_${p.name}[_k]`);
  // warp shuffles move 32- or 64-bit words: a bool travels as an int
  const shuffled = f.acc === 'bool' ? '(int)_acc' : '_acc';
  // folds the warp's 32 accumulators into lane 0's
  const warpFold = (indent: string): string[] => [
    `${indent}for (int _o = 16; _o > 0; _o >>= 1) {`,
    `${indent}    const ${f.acc} _b = __shfl_down_sync(0xffffffffu, ${shuffled}, _o);`,
    `${indent}    _acc = ${f.combine('_acc', '_b')};`,
    `${indent}}`
  ];
  // the kernel's own names start with an underscore: the element expression uses the notebook's
  const kernel = [
    `extern "C" __global__ void __launch_bounds__(${BLOCK}) ${fname}(${args.join(', ')}, long long _n, ${f.acc}* __restrict__ _partial) {`,
    '    // grid-stride loop: each thread folds its elements, then its warp (shuffles), then the',
    '    // block (shared memory); one partial per block, combined afterwards',
    `    ${f.acc} _acc = ${f.identity};`,
    `    for (long long _k = (long long)blockIdx.x * ${BLOCK} + threadIdx.x; _k < _n; _k += (long long)gridDim.x * ${BLOCK}) {`,
    `        const ${t} ${loads.join(', ')};`,
    `        const ${f.acc} _e = ${f.map};`,
    `        _acc = ${f.combine('_acc', '_e')};`,
    '    }',
    `    __shared__ ${f.acc} _warp[${BLOCK / 32}];`,
    ...warpFold('    '),
    '    if ((threadIdx.x & 31) == 0) _warp[threadIdx.x >> 5] = _acc;',
    '    __syncthreads();',
    '    if (threadIdx.x < 32) {',
    `        _acc = threadIdx.x < ${BLOCK / 32} ? _warp[threadIdx.x] : ${f.identity};`,
    ...warpFold('        '),
    '        if (threadIdx.x == 0) _partial[blockIdx.x] = _acc;',
    '    }',
    '}'
  ];
  const arrays = s.params.filter(p => p.array).map(p => p.name);
  const dt = `${cp}.${s.dtype}`;
  const accDtype = f.acc === 'long long' ? 'int64' : f.acc === 'double' ? 'float64' : f.acc === 'float' ? 'float32' : 'bool_';
  const outDtype = f.out === 'bool' ? 'bool_' : f.out;
  const scalarArg = (p: { name: string; array: boolean }): string => (p.array ? p.name : `${dt}(${p.name})`);
  const finish = s.reduction === 'mean' ? `_partial.sum() / _n` : `_partial.${f.finish}()`;
  const result = outDtype === accDtype ? finish : `(${finish}).astype(${cp}.${outDtype})`;
  const lines = launcherInputChecks(s.dtype, fname, cp, arrays);
  if (arrays.length > 1) {
    lines.push(
      `    if ${arrays.slice(1).map(a => `${a}.shape != ${arrays[0]}.shape`).join(' or ')}:`,
      `        ${arrays.join(', ')} = (${cp}.ascontiguousarray(_a) for _a in ${cp}.broadcast_arrays(${arrays.join(', ')}))`
    );
  }
  lines.push(`    _n = ${arrays[0]}.size`);
  if (s.reduction === 'max' || s.reduction === 'min') {
    // NumPy raises here; the kernel would return its identity (-inf / +inf, or a bool)
    const op = s.reduction === 'max' ? 'maximum' : 'minimum';
    lines.push('    if _n == 0:', `        raise ValueError('zero-size array to reduction operation ${op} which has no identity')`);
  } else if (s.reduction === 'mean') {
    // NumPy warns and returns nan (0 / 0 below)
    lines.push(
      '    if _n == 0:',
      '        import warnings',
      "        warnings.warn('Mean of empty slice.', RuntimeWarning, stacklevel=2)"
    );
  }
  lines.push(
    `    _blocks = max(1, min((_n + ${BLOCK - 1}) // ${BLOCK}, ${MAX_BLOCKS_TEXT}))`,
    `    _partial = ${cp}.empty(_blocks, dtype=${cp}.${accDtype})`,
    `    ${fname}_kernel((_blocks,), (${BLOCK},), (${s.params.map(scalarArg).join(', ')}, ${cp}.int64(_n), _partial))`,
    `    return ${result}`
  );
  return rawKernelWithLauncher(cp, fname, kernel, s.params.map(p => p.name), lines);
}
