/**
 * Float `%` and `//` as NumPy computes them. CuPy 14 computes a float `x % y` (`cp.remainder`,
 * `cp.mod`, `cp.divmod`'s remainder) as `x - floor(x / y) * y` and a float `x // y`
 * (`cp.floor_divide`) as `floor(x / y)` (cupy/_core/_routines_math.pyx `_remainder`,
 * `_floor_divide`; carray.cuh `_floor_divide(float, float)`): where `x / y` rounds up to the next
 * integer, the remainder is `r - y` (a small negative number) and the quotient one too many
 * (float32 values 0..41M `% 251`: -1 where NumPy gives 250, and a quotient one too many, for
 * 32,272 values in a CPU model of CuPy's formula, 32,117 of the 40.96M of plan/consumer-copy-*
 * in run 26). NumPy (npy_divmod in npy_math_internal.h.src, 2.4) takes C's `fmod`,
 * which is exact, moves a nonzero remainder to the divisor's sign (`mod += b`), gives a zero
 * remainder the divisor's sign (`copysign(0, b)`), and derives the quotient from it:
 * `div = (a - mod) / b` (one less where the remainder moved), snapped to the nearest integer
 * (`floor(div)`, plus one where `div - floor(div) > 0.5`), `copysign(0, a / b)` where it is 0, and
 * `a / b` for a zero divisor (whose remainder is fmod's NaN). The rewrite computes exactly that:
 *
 * - in a generated typed kernel (fusion.ts cExpression) `%` and `//` of floats call C functions
 *   (`npy_remainderf`, `npy_floor_divide`...) the kernel's `preamble` defines (npyDivmodPreamble);
 * - elsewhere (CuPy calls, a chain fused with `@cp.fuse()` is not made: CuPy's fusion would take
 *   CuPy's remainder) an operator or ufunc call that may be of floats on device arrays becomes a
 *   call of one small definition (`np_remainder(x, y)`, `np_floor_divide(x, y)`, taking `out=`
 *   and `dtype=` as NumPy's ufuncs do; `np_divmod(x, y)` for `np.divmod`; `x %= y` becomes `x = np_remainder(x, y, out=x)`, Python's
 *   own rebinding, an array updated in place and a number, which `out=` cannot take, rebound) the
 *   cell or the plan defines once: NumPy's result dtype (`cp.result_type`, Python numbers weak), integers left to
 *   CuPy's remainder and floor_divide, which are NumPy's (0 for a zero divisor, Python's sign for
 *   negative operands), float16 computed in float32 as NumPy computes it, floats by a
 *   `cp.ElementwiseKernel` over the preamble's functions, host operands by NumPy's own;
 * - Python's `divmod(x, y)` of a device array (its `__divmod__` is CuPy's divmod) becomes
 *   `np_divmod(x, y)` too, where it may be of floats (cupy-rewrite.ts builtinDivmodOfArrays): no
 *   host copy of the array for NumPy's;
 * - in the notebook's functions and lambdas the cell runs on device arrays, likewise, where the
 *   function is the cell's own (cupy-rewrite.ts floatFloorOpSites): named, handed to a notebook
 *   function that calls it, or called where it is written (`(lambda a, b: a % b)(x, 2.5)`);
 *   another cell's is refused. (`map(lambda r: r % 2.5, M)` and `np.apply_along_axis(...)` call
 *   a Python function per row or element: those cells are refused as per-element loops.)
 *
 * `np.fmod` is C's fmod in CuPy too (exact for floats); CuPy's integer fmod goes through double
 * (int64 values past 2**53 would round): not rewritten.
 */
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, operatorOf, unparen } from '../../syntax';

export type FloorOp = 'remainder' | 'floor_divide';

/** A definition's operation: `divmod` gives both, as NumPy's `np.divmod` does. */
export type FloorDefinition = FloorOp | 'divmod';

/** The names the definitions get where they are free (cupy-rewrite.ts picks fresh ones). */
export const FLOOR_OP_BASE_NAMES: Readonly<Record<FloorDefinition, string>> = { remainder: 'np_remainder', floor_divide: 'np_floor_divide', divmod: 'np_divmod' };

/** NumPy's functions of the two operations. */
const FLOOR_UFUNCS: ReadonlyMap<string, FloorOp> = new Map([
  ['remainder', 'remainder'],
  ['mod', 'remainder'],
  ['floor_divide', 'floor_divide']
]);

/** The keywords of a ufunc call the definitions take as NumPy does (`out=` one array, `dtype=`). */
const DEFINITION_KEYWORDS = new Set(['out', 'dtype']);

/** The operation of a NumPy function (`numpy.mod`...), if it is one of them. */
export function floorUfunc(qualified: string): FloorOp | undefined {
  return qualified.startsWith('numpy.') ? FLOOR_UFUNCS.get(qualified.slice('numpy.'.length)) : undefined;
}

/** The operation of an operator (`%`, `//`, `%=`, `//=`), if it is one of them. */
export function floorOperator(op: string): FloorOp | undefined {
  const bare = op.replace(/=$/, '');
  return bare === '%' ? 'remainder' : bare === '//' ? 'floor_divide' : undefined;
}

/**
 * One C (CUDA) function computing NumPy's float remainder or floor division (npy_divmod) in
 * `float` or `double`, named `name`.
 */
function cFloorFunction(op: FloorOp, t: 'float' | 'double', name: string): string[] {
  const f = t === 'float' ? 'f' : '';
  const n = (v: string): string => (t === 'float' ? `${v}f` : v);
  if (op === 'remainder') {
    return [
      `__device__ ${t} ${name}(${t} a, ${t} b) {`,
      `    ${t} m = fmod${f}(a, b);  // exact; NaN for b == 0, as NumPy's`,
      `    if (m != ${n('0.0')}) { if ((b < ${n('0.0')}) != (m < ${n('0.0')})) m += b; } else m = copysign${f}(${n('0.0')}, b);`,
      '    return m;',
      '}'
    ];
  }
  return [
    `__device__ ${t} ${name}(${t} a, ${t} b) {`,
    `    if (b == ${n('0.0')}) return a / b;`,
    `    ${t} m = fmod${f}(a, b);`,
    `    ${t} d = (a - m) / b;`,
    `    if (m != ${n('0.0')} && (b < ${n('0.0')}) != (m < ${n('0.0')})) d -= ${n('1.0')};`,
    `    if (d == ${n('0.0')}) return copysign${f}(${n('0.0')}, a / b);`,
    `    ${t} q = floor${f}(d);`,
    `    return d - q > ${n('0.5')} ? q + ${n('1.0')} : q;`,
    '}'
  ];
}

const PREAMBLE_HEAD = "// NumPy's float % and // (npy_divmod): C's fmod, exact, its sign moved to the divisor's";

/**
 * The preamble of a generated typed kernel whose C (`operation`) calls `cFloorOp`'s functions:
 * those it calls, each once; '' where it calls none.
 */
export function npyDivmodPreamble(operation: string): string {
  const lines: string[] = [];
  for (const op of ['remainder', 'floor_divide'] as const) {
    for (const dtype of ['float32', 'float64'] as const) {
      const name = cFloorOp(op, dtype, '', '').replace(/\(.*$/, '');
      if (new RegExp(`\\b${name}\\(`).test(operation)) {
        lines.push(...cFloorFunction(op, dtype === 'float32' ? 'float' : 'double', name));
      }
    }
  }
  return lines.length > 0 ? [PREAMBLE_HEAD, ...lines, ''].join('\n') : '';
}

/** Does C text call the preamble's functions? */
export function usesNpyDivmod(c: string): boolean {
  return /\bnpy_(remainder|floor_divide)f?\(/.test(c);
}

/** The C call of the operation on float or double operands (C texts). */
export function cFloorOp(op: FloorOp, dtype: 'float32' | 'float64', a: string, b: string): string {
  return `npy_${op}${dtype === 'float32' ? 'f' : ''}(${a}, ${b})`;
}

const INTEGER_DTYPES = /^(u?int(8|16|32|64)|bool)$/;

/**
 * May NumPy compute `l op r` in floats? Not where both operands are known integers (or bools,
 * Python ints): then CuPy's remainder and floor_divide are NumPy's. Unknown dtypes may be float.
 */
export function mayBeFloat(l: SyntaxNode, r: SyntaxNode, model: NotebookModel, cell: CellModel): boolean {
  const integer = (n: SyntaxNode): boolean => {
    const e = unparen(n);
    if (e.type === 'integer' || e.type === 'true' || e.type === 'false') {
      return true;
    }
    const v = model.inferValue(e, cell);
    return v.dtype !== undefined && INTEGER_DTYPES.test(v.dtype);
  };
  return !(integer(l) && integer(r));
}

/** A string formatting `"%d" % x` (the left operand a string): no arithmetic. */
function isFormatting(l: SyntaxNode, model: NotebookModel, cell: CellModel): boolean {
  const e = unparen(l);
  return e.type === 'string' || e.type === 'concatenated_string' || model.inferValue(e, cell).kind === 'string';
}

/** One operation the rewrite computes with its definitions (`divmod`: both, as a tuple, by `np_divmod`). */
export interface FloorOpSite {
  op: FloorDefinition;
  /** The binary operator, the augmented assignment, or the call (whose callee `r.replacement` names the definition). */
  node: SyntaxNode;
  /** A call whose callee no library reference renames (the builtin `divmod` in a function): the rewrite renames it. */
  renameCallee?: boolean;
}

/**
 * The operand pair of a site: the operator's sides, the augmented assignment's target and value,
 * the call's two positional arguments. A ufunc call may also pass `out=` (one array, or a third
 * positional argument) and `dtype=`, which the definitions take as NumPy does; `np.divmod` none.
 * Null for another call (`callKeywordsRefusal` says why).
 */
export function siteOperands(node: SyntaxNode, divmod = false): [SyntaxNode, SyntaxNode] | null {
  if (node.type === 'call') {
    return callKeywordsRefusal(node, divmod) === null ? (callArguments(node).positional.slice(0, 2) as [SyntaxNode, SyntaxNode]) : null;
  }
  const l = field(node, 'left');
  const r = field(node, 'right');
  return l && r ? [l, r] : null;
}

/**
 * Why a call of `np.remainder`/`np.mod`/`np.floor_divide`/`np.divmod` (`call`) cannot become a
 * call of the definitions (a keyword they do not take: `where=`, `casting=`, an `out=` tuple,
 * `np.divmod`'s `out=`), or null where it can.
 */
export function callKeywordsRefusal(call: SyntaxNode, divmod: boolean): string | null {
  const { positional, keywords } = callArguments(call);
  const out = keywords.get('out') ?? (positional.length === 3 ? positional[2] : undefined);
  const extra = [...keywords.keys()].filter(k => divmod || !DEFINITION_KEYWORDS.has(k));
  if (positional.some(a => a.type === 'list_splat' || a.type === 'dictionary_splat')) {
    return 'its arguments are unpacked (`*args`)';
  }
  if (positional.length < 2 || positional.length > (divmod ? 2 : 3) || (positional.length === 3 && keywords.has('out'))) {
    return 'its arguments are not two operands and an output';
  }
  if (extra.length > 0) {
    return `it passes ${extra.map(k => `\`${k}=\``).join(', ')}`;
  }
  if (out && unparen(out).type !== 'identifier' && unparen(out).type !== 'attribute' && unparen(out).type !== 'subscript') {
    return 'its `out=` is not one array';
  }
  return null;
}

/** The site of `node` (an operator or an augmented assignment), if NumPy may compute it in floats. */
export function operatorSite(node: SyntaxNode, model: NotebookModel, cell: CellModel): FloorOpSite | null {
  const op = floorOperator(operatorOf(node));
  const sides = op ? siteOperands(node) : null;
  if (!op || !sides || isFormatting(sides[0], model, cell) || !mayBeFloat(sides[0], sides[1], model, cell)) {
    return null;
  }
  return { op, node };
}

const DIVMOD_COMMENT = "    # NumPy's divmod(x, y): its // and % (CuPy's are floor(x / y) forms, one period off)";

/** Is `text` the definition of `np_divmod`, which only calls the other two (it compiles no kernel of its own)? */
export function isDivmodDefinition(text: string): boolean {
  return text.includes(`\n${DIVMOD_COMMENT}\n`);
}

/**
 * The definition of `names.get(op)`: `name(x, y, out=None, dtype=None)`, NumPy's `x % y` (or
 * `x // y`) on device arrays, with its kernel object `name_kernel`; `np_divmod(x, y)` calls the
 * other two (each operand evaluated once, as NumPy's `np.divmod`). Host operands (a function the
 * rewrite moved to the device that other code calls with NumPy data) get NumPy's own.
 */
export function floorOpDefinition(op: FloorDefinition, names: ReadonlyMap<FloorDefinition, string>, cp: string): string {
  const name = names.get(op)!;
  if (op === 'divmod') {
    return [
      `def ${name}(x, y):`,
      DIVMOD_COMMENT,
      `    return ${names.get('floor_divide')}(x, y), ${names.get('remainder')}(x, y)`,
      ''
    ].join('\n');
  }
  const kernel = `${name}_kernel`;
  const q = (s: string): string => `'${s}'`;
  return [
    `${kernel} = ${cp}.ElementwiseKernel(`,
    `    ${q('T x, T y')}, ${q('T r')}, ${q(`r = npy_${op}(x, y)`)}, ${q(kernel)},`,
    `    preamble='''\n${[PREAMBLE_HEAD, ...cFloorFunction(op, 'float', `npy_${op}`), ...cFloorFunction(op, 'double', `npy_${op}`), ''].join('\n')}''',`,
    "    options=('--fmad=false',))",
    '',
    '',
    `def ${name}(x, y, out=None, dtype=None):`,
    ...(op === 'remainder'
      ? [
          "    # NumPy's x % y: CuPy 14's float x % y is x - floor(x / y) * y, which is r - y where x / y",
          "    # rounds up to an integer; NumPy's is C's fmod with y's sign, exact (references/cupy.md#float-mod)"
        ]
      : [
          "    # NumPy's x // y: CuPy 14's float x // y is floor(x / y), one too many where x / y rounds up",
          "    # to an integer; NumPy's comes from C's fmod, exact (references/cupy.md#float-mod)"
        ]),
    `    if out is not None and not isinstance(out, ${cp}.get_array_module(out).ndarray):`,
    `        out = None  # \`x = ${name}(x, y, out=x)\` of a number (\`x ${op === 'remainder' ? '%' : '//'}= y\`): rebound, as Python rebinds it`,
    `    xp = ${cp}.get_array_module(x, y)`,
    `    if xp is not ${cp}:`,
    '        if out is None and dtype is None and not isinstance(x, (xp.ndarray, xp.generic)) and not isinstance(y, (xp.ndarray, xp.generic)):',
    '            # Python numbers (a function also called with them): Python\'s own operator',
    `            return x ${op === 'remainder' ? '%' : '//'} y`,
    '        # host operands (a function also called with NumPy data): NumPy\'s own',
    `        return xp.${op}(x, y, out=out, dtype=dtype)`,
    `    t = ${cp}.result_type(x, y) if dtype is None else ${cp}.dtype(dtype)`,
    "    if t.kind != 'f':",
    `        # integers: CuPy's ${op} is NumPy's (0 for a zero divisor)`,
    `        return ${cp}.${op}(x, y, out=out, dtype=dtype)`,
    `    w = ${cp}.dtype(${cp}.float32) if t == ${cp}.float16 else t  # float16 in float32, as NumPy`,
    `    x = x.astype(t, copy=False).astype(w, copy=False) if isinstance(x, ${cp}.ndarray) else w.type(t.type(x))`,
    `    y = y.astype(t, copy=False).astype(w, copy=False) if isinstance(y, ${cp}.ndarray) else w.type(t.type(y))`,
    '    if out is not None and out.dtype == t == w:',
    `        return ${kernel}(x, y, out)`,
    `    r = ${kernel}(x, y)`,
    '    r = r if w == t else r.astype(t)  # (rounded to float16 as NumPy\'s result, then into out)',
    '    if out is None:',
    '        return r',
    '    out[...] = r',
    '    return out',
    ''
  ].join('\n');
}
