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
 *   84 us and op-by-op CuPy 454 us. Inputs broadcast against each other (`np.sqrt(a * w).mean()`,
 *   `w` a row of `a`) are read where they are, through an index the kernel steps with its loop
 *   (broadcastIndex): nothing of the result's size is copied first.
 *
 * Neither form for a reduction the cell runs once over a view that is not C-contiguous
 * (`np.sqrt(np.mean((est[:, :, :2] - truth[:, :, :2]) ** 2))`): the launcher would copy each such
 * view whole before its one launch, and the kernel is compiled for it, where CuPy's own calls read
 * the views where they lie. That chain stays CuPy's calls (`cp.sqrt(cp.mean((a - b) ** 2))`); a
 * kernel is generated where it pays: over whole arrays or contiguous parts (`a[10:]`, `a[3]`), or
 * where a loop runs the reduction again and again (fusion.ts reductionKernelPays).
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
   * `broadcast`: an array the analysis does not know to have the result's shape (a row `w` of
   * `a * w`, or shapes it cannot infer), read through the kernel's broadcast index; the others
   * are read at the result's own index (the launcher copies one that arrives broadcast).
   */
  params: { name: string; array: boolean; broadcast?: boolean }[];
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
  // the kernel's names of a broadcast input are `_<letters>_<name>` (`_in_w`, `_inner_w`...):
  // a notebook name never starts with an underscore (cName), so no two of them can meet
  const broadcast = s.params.filter(p => p.broadcast).map(p => p.name);
  const args = s.params.map(p =>
    !p.array ? `const ${t} ${p.name}` : `const ${t}* __restrict__ _in_${p.name}${p.broadcast ? `, long long _inner_${p.name}, long long _size_${p.name}` : ''}`
  );
  const loads = s.params.filter(p => p.array).map(p => `${p.name} = _in_${p.name}[${p.broadcast ? `_q_${p.name}` : '_k'}]`);
  // A broadcast input's element of the k-th is at (k / inner) % size (broadcastIndex): q and
  // r = k % inner are stepped with the loop, one compare each, instead of two 64-bit divisions
  // per element (a division costs dozens of instructions, as much as the element's memory)
  const start = `(long long)blockIdx.x * ${BLOCK} + threadIdx.x`;
  const stride = `(long long)gridDim.x * ${BLOCK}`;
  const stepped = broadcast.length === 0
    ? { before: [], loop: `long long _k = ${start}; _k < _n; _k += ${stride}`, after: [] }
    : {
        before: [
          `    // ${broadcast.join(', ')} broadcast: element k reads ${broadcast.map(x => `${x}[(k / _inner_${x}) % _size_${x}]`).join(', ')},`,
          '    // an index stepped with the loop (no division per element)',
          `    const long long _k0 = ${start}, _step = ${stride};`,
          ...broadcast.flatMap(x => [
            `    long long _r_${x} = _k0 % _inner_${x}, _q_${x} = (_k0 / _inner_${x}) % _size_${x};`,
            `    const long long _dr_${x} = _step % _inner_${x}, _dq_${x} = (_step / _inner_${x}) % _size_${x};`
          ])
        ],
        loop: 'long long _k = _k0; _k < _n; _k += _step',
        after: broadcast.flatMap(x => [
          `        _r_${x} += _dr_${x};`,
          `        _q_${x} += _dq_${x};`,
          `        if (_r_${x} >= _inner_${x}) { _r_${x} -= _inner_${x}; _q_${x} += 1; }`,
          `        if (_q_${x} >= _size_${x}) _q_${x} -= _size_${x};`
        ])
      };
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
    ...stepped.before,
    `    for (${stepped.loop}) {`,
    `        const ${t} ${loads.join(', ')};`,
    `        const ${f.acc} _e = ${f.map};`,
    `        _acc = ${f.combine('_acc', '_e')};`,
    ...stepped.after,
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
  const kernelArg = (p: ReductionKernelSpec['params'][number]): string =>
    !p.array ? `${dt}(${p.name})` : p.broadcast ? `${p.name}, ${cp}.int64(_inner_${p.name}), ${cp}.int64(max(${p.name}.size, 1))` : p.name;
  const finish = s.reduction === 'mean' ? `_partial.sum() / _n` : `_partial.${f.finish}()`;
  const result = outDtype === accDtype ? finish : `(${finish}).astype(${cp}.${outDtype})`;
  const lines = [...launcherInputChecks(s.dtype, fname, cp, arrays), ...broadcastIndex(cp, s.params)];
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
    `    ${fname}_kernel((_blocks,), (${BLOCK},), (${s.params.map(kernelArg).join(', ')}, ${cp}.int64(_n), _partial))`,
    `    return ${result}`
  );
  return rawKernelWithLauncher(cp, fname, kernel, s.params.map(p => p.name), lines);
}

/**
 * The launcher's lines that bind `_n`, the result's size, and check the inputs' shapes. Inputs the
 * analysis inferred to have the result's shape are read where they are at its index, with no
 * index to step; one that arrives with another shape (NumPy broadcasts it, and raises for shapes
 * that do not broadcast, as `cp.broadcast` does here) is copied to the result's shape first: a
 * copy only when the inference was wrong, and the kernel keeps its fast path for the inputs it
 * got right. A broadcast input is read where it is too, never copied to the result's shape as
 * `cp.broadcast_arrays` + `ascontiguousarray` would (a row `w` of an (n, m) `a * w` would become
 * n * m elements written and read again): its dimensions other than 1 are
 * one run of the result's (a row `(m,)`, a column `(n, 1)`, a block), so the k-th element of the
 * result reads its element (k // inner) % size, inner being the size of the result's dimensions
 * after that run (1 for a row, m for a column), size its own. Another pattern (`(n, 1, p)`
 * against `(n, m, p)`, whose index needs a division per dimension) is copied to the result's
 * shape, the one copy left.
 */
function broadcastIndex(cp: string, params: ReductionKernelSpec['params']): string[] {
  const arrays = params.filter(p => p.array);
  const full = arrays.filter(p => !p.broadcast).map(p => p.name);
  const broadcast = arrays.filter(p => p.broadcast).map(p => p.name);
  if (arrays.length === 1) {
    return [`    _n = ${full[0]}.size`];
  }
  return [
    `    _result = ${cp}.broadcast(${arrays.map(p => p.name).join(', ')})`,
    '    _shape, _n = _result.shape, _result.size',
    ...(full.length > 0
      ? [
          `    # ${full.join(', ')}: inferred to have the result's shape, read at its index; one that arrives`,
          "    # with another (NumPy broadcasts it) is copied to the result's shape",
          ...full.flatMap(x => [`    if ${x}.shape != _shape:`, `        ${x} = ${cp}.ascontiguousarray(${cp}.broadcast_to(${x}, _shape))`])
        ]
      : []),
    ...(broadcast.length > 0 ? ['', ...innerFunction(), ''] : []),
    ...broadcast.flatMap(x => [
      `    _inner_${x} = _inner(${x})`,
      `    if _inner_${x} is None:`,
      `        ${x}, _inner_${x} = ${cp}.ascontiguousarray(${cp}.broadcast_to(${x}, _shape)), 1`
    ])
  ];
}

/** The launcher's `_inner(x)`: where the k-th element of the result is in a broadcast input. */
function innerFunction(): string[] {
  return [
    '    def _inner(x):',
    "        # the k-th element of the result reads x[(k // inner) % x.size] when x's dimensions other",
    "        # than 1 are one run of the result's (a row, a column): inner is the size of the result's",
    '        # dimensions after that run; None for another pattern ((n, 1, p) against (n, m, p))',
    '        s = (1,) * (len(_shape) - x.ndim) + x.shape',
    '        run = [j for j, e in enumerate(s) if e != 1] or [len(s)]',
    '        if s[run[0]:run[-1] + 1] != _shape[run[0]:run[-1] + 1]:',
    '            return None',
    '        inner = 1',
    '        for e in _shape[run[-1] + 1:]:',
    '            inner *= e',
    '        return max(inner, 1)  # (an empty result reads nothing: no division by zero)'
  ];
}
