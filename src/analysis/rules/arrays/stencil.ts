/**
 * Slice stencils written with NumPy views, recognised exactly and turned into one CUDA kernel:
 *
 * ```python
 * lap = np.zeros_like(u)
 * lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
 * ```
 *
 * Written op by op (or fused into a temporary), this makes three passes: `zeros_like` writes the
 * output, the expression reads five shifted views and writes a temporary, the slice assignment
 * copies it. The kernel below writes every output element once (interior formula, zero border).
 * In 2-D each thread takes one column and 8 consecutive rows: the thread index x, the fastest
 * varying, runs along the last, contiguous axis so a warp loads 32 neighbouring addresses
 * (coalesced), and the values above and at the current row rotate through registers, so each
 * output loads 3 new values instead of 5 (fewer L1/L2 transactions, an eighth of the blocks).
 * Interior strips run a fixed, unrolled trip count (all loads in flight); only strips touching
 * the border take the checked path. A grid-stride loop over strips covers any row count, and
 * partial tiles (n, m not multiples of 8 or 128) are handled. `--fmad=false` keeps NumPy's
 * rounding (no fused multiply-add) and the C expression keeps the source's operation order, so
 * results match bit for bit (float32 subnormals aside: CuPy compiles with -ftz=true; see
 * references/cupy.md#subnormals).
 *
 * Measured on the H200 (bench/gpu_diagnostics.py --explore, 2026-11-30): 8192^2 float32, one
 * thread per element 248 us of kernel time (52% of the copy ceiling); 8 rows per thread 155 us
 * (84%); 4 to 16 rows and 128 to 256 threads per block all within 2%; 1 row per thread 321 us.
 * The cell calls a launcher function defined with the kernel (in the import cell under the
 * notebook plan) that copies its input only when it is not already a C-contiguous device array
 * (never casting: another dtype or rank than the inferred one raises TypeError), returns an empty input's
 * empty output without launching, allocates the output and launches: about 10 us of host time.
 *
 * Recognised: a 1-D or 2-D float32/float64 array `u` of known shape; `out = np.zeros_like(u)`
 * immediately followed by `out[1:-1(, 1:-1)] = <expr>` where `<expr>` combines views
 * `u[a:b(, c:d)]` shifted by at most one (`:-2`, `1:-1`, `2:` per axis), numeric literals, scalars,
 * `+`, `-`, `*`, `/`, unary minus and parentheses. Anything else keeps the generic rewrite. A piece
 * made of numbers only (`0.1 * 0.1 * (...)` is `(0.1 * 0.1) * (...)`) is folded as Python computes
 * it, in double, and written as the one float32/double value NumPy casts it to (fusion.ts
 * `pythonConstant`, `cNumber`). A piece of scalars that reads names (`alpha * dt / dx ** 2`) is
 * likewise one value: the cell computes it as written and the launcher casts it once to the
 * array's type, a kernel argument (fusion.ts `scalarPiece`); a NumPy float64 scalar with a
 * float32 array (NumPy computes in float64), or a scalar of unknown kind, keeps the generic
 * rewrite. In the loop form the pieces are computed once, before the loop (nothing in the loop
 * changes them; a piece reading the loop variable keeps the generic rewrite).
 *
 * Also recognised: the same expression assigned to `u`'s own interior by a top-level loop,
 * `for k in range(...): u[1:-1, 1:-1] = <expr of u>`, with nothing else in the loop (a Jacobi
 * sweep, an explicit diffusion step). NumPy evaluates the right-hand side whole before the
 * assignment, so each step reads the previous step's values only. Written op by op or fused,
 * each step writes a temporary and copies it into the slice; here the same kernel runs once per
 * step from one buffer into another (copying the border through instead of zeroing it) and the
 * two references swap (ping-pong). `u` is the first buffer when it is C-contiguous; after the
 * loop an odd step count leaves the result in the spare buffer, copied back into `u` once, so
 * the name keeps its array object, updated in place, as the slice assignment leaves it. The
 * launcher checks the two buffers once, before the loop, and returns the grid and the kernel's
 * int arguments; each step is one bare kernel launch (checking every step cost ~10-20 us of
 * Python against 8-35 us of kernel on 2048^2-4096^2 grids).
 *
 * Also recognised: the tutorials' copy form of that loop, `un = u.copy()` (or `np.copy(u)`) then
 * `u[1:-1, 1:-1] = <expr of un>`, among other statements (border assignments, a host read every
 * k steps). The same kernel runs from the buffer of the previous step into the other; `u` names
 * each step's result, so the other statements read and write what NumPy's do, and one constant
 * assigned to the whole border right after the update is written by the kernel itself
 * (copyStepStencil says when this is exact). Written op by op, each step copied u whole, wrote a
 * temporary and copied it into the slice: three passes and more launches for one.
 *
 * Also recognised: the periodic form, a Laplacian of `np.roll(v, s, axis)` terms (`s` a literal
 * ±1 or ±2) and a step that rebinds or updates the array (`lap = np.roll(v, 1, 0) + ... - 4 * v;
 * v = v + alpha * lap`, or `v += alpha * lap`, `v[:] = ...`): four rolled copies, a chain of
 * temporaries and the update per step written op by op; here one kernel per step whose
 * neighbours wrap around at the edges as np.roll's do, the terms in the source's order
 * (rollLoopStencil). `v = ...` makes a new array each step, so the kernel never writes v's own;
 * the in-place updates ping-pong with v's own array as the slice loop does. Outside a loop the
 * same statements (or `lap = <rolls of u>`) are one launch into a new array (rollStencil).
 *
 * The step may also read other arrays at the same shifts (`+ f[1:-1, 1:-1]`, a source term;
 * `k[2:] * (u[2:] - u[1:-1])`, a conductivity): each becomes one more read-only input of the
 * kernel, `const T* __restrict__`, read at u's flat offsets (so coalesced too), made C-contiguous
 * once before the loop and checked once by the launcher (a device array of the dtype and shape
 * the kernel indexes it with, else a TypeError or ValueError that names it). Written op by op,
 * each step would read it into a temporary and copy that into the slice; here it is one more
 * read per step. A row or column that NumPy broadcasts against the interior (`q[1:-1]` of a 1-D
 * array, `f[1:-1, 1:-1]` of a (3, m) one, `w[:, 1:-1]` of a (1, m) one, `g[1:-1]` of an (n, 1)
 * one) is read at its one element along the broadcast axis: a row along j, as u is (coalesced),
 * a column once per row for the whole warp. An array of the other float dtype is computed as
 * NumPy 2 computes it: each operation in its operands' promoted type (float32 with float64 gives
 * float64; a Python number takes its partner's type, NEP 50), which C's own conversions give
 * when each literal and scalar argument has that type, and the result is stored into u with one
 * cast, `(float)(...)`, as the slice assignment casts it: bit for bit NumPy's. Only an array
 * the analysis knows to be float32/float64 of u's rank or less, that broadcasts so, that shares
 * no memory with `u` (an alias or view of `u` changes every step) and that nothing in the loop
 * writes (the loop holds the one assignment: a loop that also updates `f` keeps the generic
 * rewrite, its two statements in NumPy's order). A loop body that reads any other name, or does
 * anything else (an escape of `u` mid-loop), keeps the generic rewrite.
 *
 * The kernel keeps the cell's names, so it reads like the cell: its input is the cell's array
 * (`T[k - 1]`, `u[k + m]`), its output the zeros_like form's array (`lap`) or, in the loop form,
 * the next step's `T_new`, and the other arrays and scalars it reads keep theirs (`k[idx + 1]`).
 * fusion.ts cName makes each a valid C and Python name that no keyword, CUDA built-in or name
 * the launcher reads (`min`, `cp`, `isinstance`) takes; the kernel's own names (`n`, `m`, the
 * index `k`...) move where one of the cell's takes them (ownNames).
 */
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, kids, operatorOf, unparen, walk, walkTypes } from '../../syntax';
import { memorySharers } from './aliases';
import { cName, cNumber, kernelTakesScalar, launcherInputChecks, numpyConstantOf, pythonConstant, rawKernelWithLauncher, scalarPieces } from './fusion';

export interface SliceStencil {
  /** From the start of the zeros_like statement (or the loop) to the end of the slice assignment (or the loop). */
  start: number;
  end: number;
  /** The expression node (its chain is replaced by the kernel). */
  expr: SyntaxNode;
  /**
   * The statements one launch replaces, each run once per launch: the zeros_like statement and
   * the slice assignment; the loop's assignment; the copy form's copy, update and the border
   * assignments folded into the kernel; the periodic form's one or two assignments (rolls
   * included). The cost model takes what NumPy makes for them (op by op: the operations, the
   * rolls, the copy, zeros_like, the slice assignment's copy) off the device's work and charges
   * the kernel's own instead (cupy-rewrite.ts fuseWork).
   */
  step: SyntaxNode[];
  out: string;
  input: string;
  /**
   * The kernel's and the launcher's names for `input` and for the array the kernel writes: the
   * cell's (`T`, and `lap` of the zeros_like form, `T_new` of the loop form), made valid C names
   * (fusion.ts cName) that no other name of the kernel takes.
   */
  params: { input: string; out: string };
  dtype: 'float32' | 'float64';
  ndim: 1 | 2;
  /**
   * The C expression of the interior value, in the source's operation order, each operation in
   * the C type NumPy computes it in (`type`); `tap(di, dj, array)` gives the C text that reads
   * the kernel array `array` (-1 for `input`, k for `reads[k]`) at row offset `di` and column
   * offset `dj` (each -1, 0 or 1; `di` is 0 in 1-D).
   */
  render: (tap: StencilTap) => string;
  /**
   * The type NumPy computes the right-hand side in: `dtype`, or float64 where a float32 loop's
   * step reads a float64 array (NumPy 2 promotion: float32 with float64 gives float64, a Python
   * number takes its partner's type). The kernel stores it with a cast to `dtype`, as the slice
   * assignment casts it.
   */
  type: 'float32' | 'float64';
  /** Number of shifted views of `input` read (for the explanation). */
  taps: number;
  /**
   * The other arrays the loop form's expression reads (`f[1:-1, 1:-1]`, `k[:-2]`, a row
   * `q[1:-1]`), in order of first read: the cell's name, the kernel's parameter name, its dtype,
   * how it lines up with `input` along each of `input`'s axes (`ReadAxis`), and the bytes a step
   * reads of it per byte of `input` (the cost model's share of a pass). Each is a float32/float64
   * array that nothing in the loop writes and that shares no memory with `input`, so it holds
   * the same values every step. Empty for the `zeros_like` form.
   */
  reads: StencilRead[];
  /**
   * The kernel's scalar arguments, one per piece of the expression made of scalars only
   * (`alpha`, `alpha * dt / dx ** 2`: fusion.ts scalarPiece) and C type: the piece's source text,
   * which the cell evaluates as written (as Python does, before NumPy casts the result once to
   * the type of the array it meets), its name in the kernel and the launcher, and that type.
   */
  scalars: { text: string; name: string; dtype: 'float32' | 'float64' }[];
  /**
   * The in-place form repeated by a loop (`for step in range(k): u[1:-1, 1:-1] = <expr of u>`):
   * the loop's header, the two free names the rewrite uses for the buffers it ping-pongs, and
   * free names for the launch computed once before the loop: the grid, the kernel's size
   * arguments (rows and columns in 2-D, the size in 1-D), its scalar arguments (one per
   * `scalars` entry, in order) and the C-contiguous device arrays it reads besides the buffers
   * (one per `reads` entry, in order).
   * Null for `out = np.zeros_like(u); out[1:-1, 1:-1] = <expr of u>`. In the copy form (`copy`),
   * `current` is the name that keeps the array `u` names while `u` itself names each step's buffer.
   * In the periodic form (`periodic`: rollLoopStencil) that rebinds the array (`v = v + ...`)
   * each step makes a new array: `v`'s own array is only read, and the steps rotate through the
   * buffers `spare` and `next`; its in-place forms (`v += ...`, `v[:] = ...`: `periodic` null
   * here) ping-pong as the in-place form does.
   */
  loop: { header: string; current: string; spare: string; grid: string; sizes: string[]; scalarArgs: string[]; readArgs: string[]; copy: CopyStep | null; periodic: { next: string } | null } | null;
  /**
   * The np.roll forms (rollLoopStencil, rollStencil): neighbours wrap around at the edges, every
   * element is computed (no border). `inPlace`: the update writes the array's own memory
   * (`v += ...`, `v[:] = ...`), which every name holding it sees; otherwise the step binds a new
   * array (`v = ...`, `lap = ...`). `temporary`: the step's temporary (`lap` before `v = v +
   * alpha * lap`), inlined into the kernel and never bound by the rewrite. Null for the slice forms.
   */
  periodic: { inPlace: boolean; temporary: string | null } | null;
}

/**
 * The copy form's step (`un = u.copy()` then `u[1:-1, 1:-1] = <stencil of un>`: copyStepStencil).
 * Its statements (`start` to `end`: the copy, the update and any border assignments folded into
 * the kernel) become one launch and a swap; the loop's other statements stay, and the buffers
 * are set up before the loop and the result put back after it.
 */
export interface CopyStep {
  /** The copy's name: the kernel's input, bound by nothing in the rewrite. */
  name: string;
  /** The copy as the cell wrote it (`un = u.copy()`), for the launch's comment. */
  text: string;
  /** The loop's span. */
  loopStart: number;
  loopEnd: number;
  /** The indentation of the loop's body. */
  indent: string;
  /**
   * The one constant the step's border assignments give the border, as the kernel writes it (C
   * text) and as the cell wrote it; null when none are folded (the border is copied through).
   */
  border: { value: string; text: string } | null;
}

const AXIS_OFFSET: Record<string, number> = { ':-2': -1, '1:-1': 0, '2:': 1 };

function sliceOffsets(sub: SyntaxNode, ndim: number): number[] | null {
  const parts = sub.type === 'subscript' ? kids(sub).filter(k => k.id !== field(sub, 'value')?.id) : [];
  if (parts.length !== ndim || parts.some(p => p.type !== 'slice')) {
    return null;
  }
  const offs = parts.map(p => AXIS_OFFSET[p.text.replace(/\s+/g, '')]);
  return offs.some(o => o === undefined) ? null : offs;
}

/** `name[1:-1]` / `name[1:-1, 1:-1]`: the interior of `name`. */
function isInterior(target: SyntaxNode | null, name: string, ndim: number): boolean {
  const offs = target?.type === 'subscript' && field(target, 'value')?.text === name ? sliceOffsets(target, ndim) : null;
  return !!offs && offs.every(o => o === 0);
}

/** Whether `node` reads the name `name`. */
function readsName(node: SyntaxNode, name: string): boolean {
  let found = false;
  walk(node, n => {
    found ||= n.type === 'identifier' && n.text === name;
    return !found;
  });
  return found;
}

/**
 * How an array the loop's step reads lines up with the input along one of the input's axes:
 * `same`, the input's length there (read at the input's index plus the slice's shift);
 * `one`, one element broadcast along the axis: a length-3 axis sliced with a shift (`f[1:-1]` is
 * its middle element, `f[:-2]` its first) or a length-1 axis taken whole (`q[:, 1:-1]` of a
 * (1, m) row); `absent`, an axis the array lacks (a 1-D row read in a 2-D loop: NumPy
 * broadcasts it over the rows).
 */
export type ReadAxis = { kind: 'same' } | { kind: 'one'; extent: 1 | 3 } | { kind: 'absent' };

/** One array the loop's step reads besides its input (SliceStencil.reads). */
export interface StencilRead {
  name: string;
  param: string;
  dtype: 'float32' | 'float64';
  /** Along each of the input's axes (rows then columns in 2-D). */
  axes: ReadAxis[];
  /** The bytes a step reads of it per byte of the input: 1 at the input's indices and dtype. */
  passes: number;
}

/** What the loop form may read besides its input: the array's dtype and (partly known) shape. */
type ReadableArray = { dtype: 'float32' | 'float64'; shape: (number | null)[] };

/**
 * The axes of one read `name[...]` of an array of shape `shape` against an input of shape
 * `inputShape` (its rank the input's or less; missing trailing subscripts are `:`), and the
 * shift of each input axis (0 where the array has one element), or null when NumPy would not
 * broadcast it against the input's interior the same way for every size the launcher accepts.
 */
function readAxes(sub: SyntaxNode, shape: (number | null)[], inputShape: (number | null)[]): { axes: ReadAxis[]; offs: number[] } | null {
  const parts = kids(sub).filter(k => k.id !== field(sub, 'value')?.id);
  if (shape.length > inputShape.length || parts.length > shape.length || parts.some(p => p.type !== 'slice')) {
    return null;
  }
  const lead = inputShape.length - shape.length;
  const axes: ReadAxis[] = inputShape.map(() => ({ kind: 'absent' }));
  const offs = inputShape.map(() => 0);
  for (let a = 0; a < shape.length; a++) {
    const text = parts[a]?.text.replace(/\s+/g, '') ?? ':';
    const length = shape[a];
    const along = inputShape[lead + a];
    if (text === ':') {
      // the whole axis: one element, broadcast (a longer axis would not fit the interior)
      if (length !== 1) {
        return null;
      }
      axes[lead + a] = { kind: 'one', extent: 1 };
      continue;
    }
    const shift = AXIS_OFFSET[text];
    if (shift === undefined || (length !== 3 && length !== null && along !== null && length !== along)) {
      return null;
    }
    // three elements sliced to one: broadcast (the same as the input's index when it has three)
    axes[lead + a] = length === 3 ? { kind: 'one', extent: 3 } : { kind: 'same' };
    offs[lead + a] = shift;
  }
  return { axes, offs };
}

/**
 * Names fusion.ts cName moves because an ElementwiseKernel declares them (`i`, `n`, the type
 * placeholder `T`): a RawKernel does not, so the stencil keeps them.
 */
const RAW_KERNEL_NAMES: ReadonlySet<string> = new Set(['i', 'n', 'T']);

/**
 * The expression as a stencil of `input` (shifted views, numeric literals, scalars, `+ - * /`,
 * unary minus, parentheses; at least two views of `input`), or null when it reads anything else.
 * A piece made of scalars only becomes one kernel argument (`scalars`), unless NumPy would not
 * compute in its partner's type with it (a NumPy float64 scalar meeting float32), its kind is
 * unknown, or it reads `loopVariable` (it would change every step). Shifted views of another
 * array are read (`reads`) only where `readable` gives its dtype and shape (the loop form) and it
 * broadcasts against the interior (readAxes).
 *
 * Each operation is typed as NumPy 2 types it: an array's dtype, float64 where float32 meets
 * float64, and a Python number (a literal, a piece of Python scalars) weak: it takes its
 * partner's type (NEP 50), so it is written as a C literal or argument of that type.
 *
 * The kernel's names for the arrays (`params`): `input`'s own, taken first, and `output`
 * (the written array's name in the cell, or the one the loop form gives its next step), taken
 * last, so that where it meets a name the expression reads, the cell's name keeps its own.
 */
function stencilExpression(
  expr: SyntaxNode,
  input: string,
  output: string,
  dtype: 'float32' | 'float64',
  inputShape: (number | null)[],
  model: NotebookModel,
  cell: CellModel,
  loopVariable: string | null,
  readable: ((name: string) => ReadableArray | null) | null,
  periodic: ReadonlyMap<string, SyntaxNode> | null = null
): Pick<SliceStencil, 'render' | 'type' | 'taps' | 'scalars' | 'reads' | 'params'> | null {
  const ndim = inputShape.length;
  // the periodic form's reads: `np.roll(input, s, axis)` with `s` a literal ±1 or ±2, the row or
  // column offset NumPy's wrap-around read gives it (roll by +1 reads the element before, by +2
  // the one before that), and `input` itself
  const roll = (n: SyntaxNode): [number, number] | null => {
    const fn = n.type === 'call' ? field(n, 'function') : null;
    if (!periodic || !fn || model.qualifiedName(fn) !== 'numpy.roll') {
      return null;
    }
    const { positional, keywords } = callArguments(n);
    const shiftNode = positional[1] ?? keywords.get('shift');
    const axisNode = positional[2] ?? keywords.get('axis');
    const integer = (x: SyntaxNode | undefined): number | null => {
      const v = x ? pythonConstant(x) : null;
      return v && v !== 'refused' && 'int' in v ? Number(v.int) : null;
    };
    const shift = integer(shiftNode);
    const axis = axisNode ? integer(axisNode) : null;
    const named = [...keywords.keys()].every(k => (k === 'shift' && positional.length < 2) || (k === 'axis' && positional.length < 3));
    if (positional[0]?.type !== 'identifier' || positional[0].text !== input || positional.length > 3 || !named || shift === null || shift === 0 || Math.abs(shift) > MAX_ROLL_SHIFT) {
      return null;
    }
    // without an axis NumPy rolls the flattened array: the same as axis 0 only in 1-D
    const along = axisNode ? (axis === null ? null : axis < 0 ? axis + ndim : axis) : ndim === 1 ? 0 : null;
    if (along === null || along < 0 || along >= ndim) {
      return null;
    }
    return along === ndim - 1 ? [0, -shift] : [-shift, 0];
  };
  let taps = 0;
  const scalars: SliceStencil['scalars'] = [];
  const reads: StencilRead[] = [];
  // the cell's names keep theirs in the kernel (stencilCode moves its own names out of the way)
  const taken = new Set<string>();
  const keep = (name: string): string => (RAW_KERNEL_NAMES.has(name) && !taken.has(name) ? (taken.add(name), name) : cName(name, taken));
  const inputParam = keep(input);
  const constant = numpyConstantOf(model);
  const scalarPieceOf = scalarPieces(model, cell);
  const isConstant = (n: SyntaxNode): boolean => pythonConstant(n, constant) !== null || scalarPieceOf(n) !== null;
  // NumPy's type of a subexpression: an array's dtype, 'weak' for a Python number or scalar
  // piece (checked where it is written, against the type it meets), null when it is no stencil
  const typeOf = (n: SyntaxNode): 'float32' | 'float64' | 'weak' | null => {
    if (isConstant(n)) {
      return 'weak';
    }
    switch (n.type) {
      case 'parenthesized_expression': {
        const inner = n.namedChild(0);
        return inner ? typeOf(inner) : null;
      }
      case 'unary_operator': {
        const arg = field(n, 'argument');
        return arg ? typeOf(arg) : null;
      }
      case 'binary_operator': {
        const l = field(n, 'left');
        const r = field(n, 'right');
        const a = l ? typeOf(l) : null;
        const b = r ? typeOf(r) : null;
        if (a === null || b === null) {
          return null;
        }
        return a === 'weak' ? b : b === 'weak' ? a : a === 'float64' || b === 'float64' ? 'float64' : 'float32';
      }
      case 'subscript': {
        const array = field(n, 'value');
        if (periodic) {
          return null;
        }
        if (array?.text === input) {
          return dtype;
        }
        return array?.type === 'identifier' ? readable?.(array.text)?.dtype ?? null : null;
      }
      case 'call':
        return roll(n) ? dtype : null;
      case 'identifier': {
        const local = periodic?.get(n.text);
        return !periodic ? null : n.text === input ? dtype : local ? typeOf(local) : null;
      }
      default:
        return null;
    }
  };
  // `meets`: the type a Python number here takes (its partner's); each operation's children meet
  // the operation's own type
  const emit = (n: SyntaxNode, meets: 'float32' | 'float64', tap: (di: number, dj: number, index: number) => string): string | null => {
    // numbers only (`0.1 * 0.1`): Python computes them in double before NumPy casts the result to
    // the type they meet (NEP 50), so the kernel gets that one value, not the pieces in float
    const folded = pythonConstant(n, constant);
    if (folded !== null) {
      return folded === 'refused' ? null : cNumber(folded, meets);
    }
    // scalars (`alpha * dt / dx ** 2`): likewise one value, computed by the cell as written
    const piece = scalarPieceOf(n);
    if (piece) {
      const text = unparen(n).text;
      if (!kernelTakesScalar(piece.kind, meets) || (loopVariable !== null && readsName(n, loopVariable))) {
        return null;
      }
      let arg = scalars.find(a => a.text === text && a.dtype === meets);
      if (!arg) {
        arg = { text, name: keep(unparen(n).type === 'identifier' ? text : 'coef'), dtype: meets };
        scalars.push(arg);
      }
      return arg.name;
    }
    const own = typeOf(n);
    const inner = own === null || own === 'weak' ? meets : own;
    switch (n.type) {
      case 'parenthesized_expression': {
        const child = n.namedChild(0);
        const t = child ? emit(child, inner, tap) : null;
        return t === null ? null : `(${t})`;
      }
      case 'unary_operator': {
        const arg = field(n, 'argument');
        const t = arg ? emit(arg, inner, tap) : null;
        // `- -u[...]` must not become `--u[...]` (a C decrement)
        return t === null || operatorOf(n) !== '-' ? null : /^[-+]/.test(t) ? `-(${t})` : `-${t}`;
      }
      case 'binary_operator': {
        const op = operatorOf(n);
        const l = field(n, 'left');
        const r = field(n, 'right');
        const lt = l ? emit(l, inner, tap) : null;
        const rt = r ? emit(r, inner, tap) : null;
        return lt === null || rt === null || !['+', '-', '*', '/'].includes(op) ? null : `${lt} ${op} ${rt}`;
      }
      case 'subscript': {
        const array = field(n, 'value');
        if (array?.type !== 'identifier' || periodic) {
          return null;
        }
        if (array.text === input) {
          const offs = sliceOffsets(n, ndim);
          if (!offs) {
            return null;
          }
          taps += 1;
          return ndim === 2 ? tap(offs[0], offs[1], 0) : tap(0, offs[0], 0);
        }
        const other = readable?.(array.text);
        const lined = other ? readAxes(n, other.shape, inputShape) : null;
        if (!other || !lined) {
          return null;
        }
        let k = reads.findIndex(r => r.name === array.text);
        if (k < 0) {
          // a broadcast axis reads one element where the input has its length (unknown: many)
          const elements = lined.axes.reduce((e, a, i) => e * (a.kind === 'same' ? 1 : inputShape[i] ? 1 / inputShape[i]! : 0), 1);
          const bytes = other.dtype === dtype ? 1 : other.dtype === 'float64' ? 2 : 0.5;
          k = reads.push({ name: array.text, param: keep(array.text), dtype: other.dtype, axes: lined.axes, passes: elements * bytes }) - 1;
        } else if (reads[k].axes.some((a, i) => a.kind !== lined.axes[i].kind)) {
          return null;
        }
        return ndim === 2 ? tap(lined.offs[0], lined.offs[1], k + 1) : tap(0, lined.offs[0], k + 1);
      }
      case 'call': {
        const offs = roll(n);
        if (!offs) {
          return null;
        }
        taps += 1;
        return tap(offs[0], offs[1], 0);
      }
      case 'identifier': {
        // the input itself; a temporary of the step (`lap`), computed whole before it is used, as
        // NumPy computes it: its expression in parentheses
        const local = periodic?.get(n.text);
        if (periodic && n.text === input) {
          taps += 1;
          return tap(0, 0, 0);
        }
        const t = local ? emit(local, inner, tap) : null;
        return t === null ? null : `(${t})`;
      }
      default:
        return null;
    }
  };
  const type = typeOf(expr);
  if (type === null || type === 'weak') {
    return null;
  }
  // The C text is made once, each tap written as TAP_MARK, its two offsets (each + MAX_ROLL_SHIFT: one digit),
  // the array it reads (0 for `input`, k for reads[k - 1]) and TAP_MARK again; split on TAP_MARK,
  // the odd parts are the taps. The kernel renders it with two tap forms (a strip's registers, a
  // flat index): each render only fills the taps in. (No C text emit makes holds the mark:
  // numbers, names, operators, parentheses. A tap's text only matters where it starts with a
  // sign, which neither the mark nor any tap form does.)
  const text = emit(expr, type, (di, dj, index) => `${TAP_MARK}${di + MAX_ROLL_SHIFT}${dj + MAX_ROLL_SHIFT}${index}${TAP_MARK}`);
  if (text === null || taps < 2) {
    return null;
  }
  const parts = text.split(TAP_MARK);
  const render = (tap: StencilTap): string =>
    parts.map((part, k) => (k % 2 === 0 ? part : tap(Number(part[0]) - MAX_ROLL_SHIFT, Number(part[1]) - MAX_ROLL_SHIFT, Number(part.slice(2)) - 1))).join('');
  return { render, type, taps, scalars, reads, params: { input: inputParam, out: keep(output) } };
}

/**
 * The C text of one read: row offset `di` and column offset `dj` (each -1, 0 or 1 for a slice;
 * up to MAX_ROLL_SHIFT either way for a roll, one of the two 0; `di` is 0 in 1-D) of the input
 * (`array` -1) or of `reads[array]`.
 */
type StencilTap = (di: number, dj: number, array: number) => string;

/**
 * The largest roll the periodic form reads (`np.roll(v, 2, 0)`, a fourth-order Laplacian's outer
 * neighbour): each offset is one digit in the tap marks, and each of the kernel's wrapped columns
 * one name of its own (jw2, je2).
 */
const MAX_ROLL_SHIFT = 2;

/** Marks a tap in the stencil's C text (stencilExpression): a control character. */
const TAP_MARK = '\u0001';

/** A float32/float64 1-D or 2-D array of known rank before `at` (its shape, partly known), or null. */
function stencilInput(name: string, model: NotebookModel, cell: CellModel, at: number): { dtype: 'float32' | 'float64'; ndim: 1 | 2; shape: (number | null)[] } | null {
  const v = model.valueBefore(name, cell, at);
  const dtype = v.dtype === 'float32' || v.dtype === 'float64' ? v.dtype : null;
  const ndim = v.shape?.length;
  return v.kind === 'ndarray' && dtype && (ndim === 1 || ndim === 2) ? { dtype, ndim, shape: v.shape! } : null;
}

/**
 * The dtype and shape of `name` where the loop form's kernel may read it beside the input
 * `input`, or null: a float32/float64 array of the input's rank or less (readAxes lines it up
 * with the input: at the input's indices, or broadcast) that may share no memory with the input
 * (the loop writes the input every step: a view or alias of it would change under the kernel,
 * and the ping-pong reads the other buffer). Nothing in the loop writes it: its only statement
 * assigns the input's interior. A name whose memory the analysis cannot follow (from a call, the
 * kernel's namespace) may be the input's.
 */
function readableBeside(name: string, input: string, ndim: number, model: NotebookModel, cell: CellModel, at: number): ReadableArray | null {
  const v = model.valueBefore(name, cell, at);
  if (v.kind !== 'ndarray' || (v.dtype !== 'float32' && v.dtype !== 'float64') || !v.shape || v.shape.length < 1 || v.shape.length > ndim) {
    return null;
  }
  // memorySharers sees the notebook up to the cell: a binding in the cell itself before the loop
  // (`f = u`, `f = u.T`, `k = T[::-1]`, or `u = f`) may make the two one array, or a view of it
  // (then the kernel would read a buffer the steps write, or a snapshot of the first step)
  const boundHere = cell.facts!.assignments.some(
    a => a.at <= at && !a.augmented && (a.name === name || (a.name === input && (!a.value || readsName(a.value, name))))
  );
  if (boundHere) {
    return null;
  }
  const mine = memorySharers(name, cell, model);
  const theirs = memorySharers(input, cell, model);
  const holders = new Set(theirs.map(s => s.holder));
  const apart = !mine.some(s => s.name === null || s.name === input || holders.has(s.holder)) && !theirs.some(s => s.name === name || s.holder === name);
  return apart ? { dtype: v.dtype, shape: v.shape } : null;
}

/**
 * Gives a name the rewrite adds, free in the notebook, from a base (`u_grid` -> `u_grid` or
 * `u_grid2`...), and reserves it: the caller's (cupy-rewrite.ts freshName, which also knows the
 * names the rest of its rewrite takes).
 */
export type FreshName = (base: string) => string;

/** The single statement of a block (comments aside), or null. */
function onlyStatement(block: SyntaxNode | null): SyntaxNode | null {
  const stmts = block ? kids(block).filter(s => s.type !== 'comment') : [];
  return stmts.length === 1 ? stmts[0] : null;
}

/**
 * `for <name> in range(...): u[1:-1, 1:-1] = <stencil of u>` and nothing else in the loop (no
 * `else`, no other statement, no other name read): NumPy evaluates the whole right-hand side
 * before assigning, so each step reads the previous step's values only (Jacobi), and two buffers
 * read and written alternately give the same values. A loop of more statements may be the copy
 * form (copyStepStencil).
 */
function loopStencil(stmt: SyntaxNode, model: NotebookModel, cell: CellModel, freshName: FreshName): SliceStencil | null {
  if (stmt.type !== 'for_statement') {
    return null;
  }
  const left = field(stmt, 'left');
  const right = field(stmt, 'right');
  const rangeFn = right?.type === 'call' ? field(right, 'function') : null;
  if (field(stmt, 'alternative') || left?.type !== 'identifier' || !right || rangeFn?.text !== 'range' || model.bindings.has('range') || model.aliases.has('range')) {
    return null;
  }
  const body = field(stmt, 'body');
  const only = onlyStatement(body);
  const rolled = rollLoopStencil(stmt, left.text, right.text, body, model, cell, freshName);
  if (rolled || !only) {
    return rolled ?? copyStepStencil(stmt, left.text, right.text, body, model, cell, freshName);
  }
  const assign = only?.type === 'expression_statement' ? kids(only)[0] : null;
  const target = assign?.type === 'assignment' ? field(assign, 'left') : null;
  const expr = assign?.type === 'assignment' ? field(assign, 'right') : null;
  const array = target?.type === 'subscript' ? field(target, 'value') : null;
  if (!expr || array?.type !== 'identifier' || array.text === left.text) {
    return null;
  }
  const input = stencilInput(array.text, model, cell, stmt.startIndex);
  if (!input || !isInterior(target, array.text, input.ndim)) {
    return null;
  }
  // asked once per name (typing and writing the expression both ask)
  const seen = new Map<string, ReadableArray | null>();
  const readable = (name: string): ReadableArray | null => {
    if (!seen.has(name)) {
      seen.set(name, name === left.text ? null : readableBeside(name, array.text, input.ndim, model, cell, stmt.startIndex));
    }
    return seen.get(name)!;
  };
  const found = stencilExpression(expr, array.text, `${array.text}_new`, input.dtype, input.shape, model, cell, left.text, readable);
  if (!found) {
    return null;
  }
  // the loop variable is bound in the cell: the caller's names never take it
  const named = (base: string): string => freshName(`${array.text}_${base}`);
  const current = named('src');
  const spare = named('dst');
  const grid = named('grid');
  const sizes = input.ndim === 2 ? [named('rows'), named('cols')] : [named('size')];
  const scalarArgs = found.scalars.map(a => named(a.name));
  const readArgs = found.reads.map(r => named(r.name));
  return {
    start: stmt.startIndex,
    end: stmt.endIndex,
    expr,
    step: [only],
    out: array.text,
    input: array.text,
    dtype: input.dtype,
    ndim: input.ndim,
    ...found,
    loop: { header: `for ${left.text} in ${right.text}:`, current, spare, grid, sizes, scalarArgs, readArgs, copy: null, periodic: null },
    periodic: null
  };
}

/** Methods and NumPy functions that compute a new value from an array and keep no reference to it. */
const VALUE_OF_ARRAY: ReadonlySet<string> = new Set(['sum', 'mean', 'max', 'min', 'amax', 'amin', 'std', 'var', 'any', 'all', 'prod', 'argmax', 'argmin', 'copy', 'item', 'tolist']);

/**
 * Whether the identifier `n` (the loop's array, in a statement of the copy form's step other
 * than the copy and the update) uses the array the step has just computed without keeping it:
 * a write into it (`u[0, :] = 0.0`, `u[i] += s`) or a new value computed from it (`u.sum()`,
 * `np.max(u)`). The rewrite binds the name to one buffer, then the other, step by step: any
 * other use (`frames.append(u)`, `edge = u[0]`, `u = ...`) could keep a buffer the next step
 * overwrites, where NumPy kept the one array, updated in place.
 */
function usesCurrentStep(n: SyntaxNode, model: NotebookModel): boolean {
  const p = n.parent;
  if (p?.type === 'subscript' && field(p, 'value')?.id === n.id) {
    const statement = p.parent;
    return (statement?.type === 'assignment' || statement?.type === 'augmented_assignment') && field(statement, 'left')?.id === p.id;
  }
  if (p?.type === 'attribute' && field(p, 'object')?.id === n.id) {
    const call = p.parent;
    return call?.type === 'call' && field(call, 'function')?.id === p.id && VALUE_OF_ARRAY.has(field(p, 'attribute')?.text ?? '');
  }
  const call = p?.type === 'argument_list' ? p.parent : null;
  const fn = call?.type === 'call' ? field(call, 'function') : null;
  const q = fn ? model.qualifiedName(fn) : null;
  return !!call && !!q && q.startsWith('numpy.') && VALUE_OF_ARRAY.has(q.slice('numpy.'.length)) && callArguments(call).positional[0]?.id === n.id;
}

/**
 * The edge `target` assigns of the `ndim`-D array `name`: `u[0, :]` or `u[0]` (`top`),
 * `u[-1, :]` (`bottom`), `u[:, 0]` (`left`), `u[:, -1]` (`right`); in 1-D `u[0]` and `u[-1]`
 * (`top`, `bottom`). Null for anything else.
 */
function edgeOf(target: SyntaxNode, name: string, ndim: 1 | 2): string | null {
  const value = target.type === 'subscript' ? field(target, 'value') : null;
  if (value?.type !== 'identifier' || value.text !== name) {
    return null;
  }
  const parts = kids(target)
    .filter(k => k.id !== value.id)
    .map(k => k.text.replace(/\s+/g, ''));
  const end = (t: string | undefined): string | null => (t === '0' ? 'first' : t === '-1' ? 'last' : null);
  if (ndim === 1 || parts.length === 1 || parts[1] === ':') {
    const e = parts.length <= (ndim === 1 ? 1 : 2) ? end(parts[0]) : null;
    return e === 'first' ? 'top' : e === 'last' ? 'bottom' : null;
  }
  const e = parts.length === 2 && parts[0] === ':' ? end(parts[1]) : null;
  return e === 'first' ? 'left' : e === 'last' ? 'right' : null;
}

/**
 * The statements from `stmts[from]` on that set the whole border of `name` to one constant
 * (`u[0, :] = u[-1, :] = u[:, 0] = u[:, -1] = 0.0`, or one statement per edge): how many, and
 * the constant as the kernel writes it (C text, NumPy's cast of the Python number to `dtype`),
 * or null when the statements there set no such border. The kernel writes exactly the border
 * (first and last rows and columns, or both ends in 1-D) and the interior reads only the copy,
 * so writing the constant there instead of copying the old border through gives the same array
 * as NumPy's assignments after the update; with one constant, the order of the edges (the
 * corners they share) does not matter. On an array empty along an axis, where the kernel writes
 * nothing, the assignments raise IndexError (both axes are indexed): the rewritten step checks
 * `u.size` and raises it too (stencilCode).
 */
function constantBorder(stmts: SyntaxNode[], from: number, name: string, ndim: 1 | 2, dtype: 'float32' | 'float64', model: NotebookModel): { count: number; value: string; text: string } | null {
  const want = ndim === 2 ? ['top', 'bottom', 'left', 'right'] : ['top', 'bottom'];
  const edges = new Set<string>();
  const constant = numpyConstantOf(model);
  let value: string | null = null;
  let text = '';
  for (let k = from; k < stmts.length && edges.size < want.length; k++) {
    let a = stmts[k].type === 'expression_statement' && kids(stmts[k]).length === 1 ? kids(stmts[k])[0] : null;
    const targets: SyntaxNode[] = [];
    while (a?.type === 'assignment' && !field(a, 'type')) {
      targets.push(field(a, 'left')!);
      const right: SyntaxNode | null = field(a, 'right');
      if (right?.type !== 'assignment') {
        const folded = right ? pythonConstant(right, constant) : null;
        const c = folded && folded !== 'refused' ? cNumber(folded, dtype) : null;
        if (c === null || (value !== null && c !== value)) {
          return null;
        }
        value = c;
        text = right!.text;
        break;
      }
      a = right;
    }
    const named = targets.map(t => edgeOf(t, name, ndim));
    if (targets.length === 0 || named.some(e => e === null) || value === null) {
      return null;
    }
    named.forEach(e => edges.add(e!));
    if (edges.size === want.length) {
      return { count: k - from + 1, value, text };
    }
  }
  return null;
}

/**
 * Whether the value a top-level loop `stmt` leaves bound to `name` may be read: after the loop in
 * the cell, in a later cell, or by a function (one of this cell's, or an earlier cell's, called
 * later).
 */
function readAfterLoop(name: string, stmt: SyntaxNode, model: NotebookModel, cell: CellModel): boolean {
  let found = model.readersAfter(name, cell).length > 0 || model.readers(name).some(r => r.index < cell.index && readInDefinition(r, name)) || readInDefinition(cell, name);
  walk(cell.tree!.rootNode, n => {
    found ||= n.type === 'identifier' && n.text === name && n.startIndex > stmt.endIndex;
    return !found;
  });
  return found;
}

/** Whether `name` occurs inside a function, lambda or class that `cell` defines. */
function readInDefinition(cell: CellModel, name: string): boolean {
  const root = cell.tree?.rootNode;
  let found = false;
  if (root) {
    walkTypes(root, ['function_definition', 'lambda', 'class_definition'], d => {
      found ||= readsName(d, name);
      return false;
    });
  }
  return found;
}

/**
 * The copy form of the loop (tutorials' explicit scheme):
 *
 * ```python
 * for step in range(steps):
 *     un = u.copy()                      # or np.copy(u)
 *     u[1:-1, 1:-1] = <stencil of un>
 *     u[0, :] = u[-1, :] = u[:, 0] = u[:, -1] = 0.0   # optional
 *     if step % 50 == 0:                 # optional: other statements before or after
 *         history.append(u.sum())
 * ```
 *
 * `un` is the previous step's `u`, border included, and the update writes u's interior from it
 * alone: the in-place form's step, with its right-hand side evaluated into an explicit copy.
 * Written op by op (or as an elementwise kernel), each step copies u whole, computes the interior
 * into a temporary and copies that into the slice: about three passes where the ping-pong kernel
 * makes one (it reads the buffer holding the previous step and writes the other, border copied
 * through). Its input is the copy's name, so the kernel reads as the cell does (`un[k - m]`).
 *
 * The other statements of the step keep the generic rewrite and read `u` as NumPy's see it: the
 * rewrite binds `u` to the buffer each step has just written (the two swap), and after the loop
 * puts the result into the array `u` named before it, as the slice assignments leave it. So
 * `u` may only be used in them in ways that keep no reference to either buffer (usesCurrentStep),
 * no other name sharing u's memory may be read there (it would see the first buffer only), and
 * the copy's name is read by the update alone: nothing else in the loop, after it in the cell,
 * in a later cell or in a function reads it (after the loop it would hold the last step's input,
 * which the ping-pong leaves in a buffer the copy-back overwrites, or its earlier value when the
 * loop ran no step: the rewrite binds it to nothing). Names the update reads besides the copy (an
 * array read at the same shifts, a scalar) occur in no other statement of the loop: nothing there
 * changes them between steps. Border assignments of one constant right after the update are
 * folded into the kernel (constantBorder), so the step stays one pass; others stay statements.
 */
function copyStepStencil(stmt: SyntaxNode, loopVariable: string, range: string, body: SyntaxNode | null, model: NotebookModel, cell: CellModel, freshName: FreshName): SliceStencil | null {
  const stmts = body ? kids(body).filter(s => s.type !== 'comment') : [];
  const assignment = (s: SyntaxNode | undefined): SyntaxNode | null => {
    const a = s?.type === 'expression_statement' && kids(s).length === 1 ? kids(s)[0] : null;
    return a?.type === 'assignment' && !field(a, 'type') ? a : null;
  };
  const c = stmts.findIndex((s, k) => {
    const copy = assignment(s);
    const update = assignment(stmts[k + 1]);
    return !!copy && !!update && field(copy, 'left')?.type === 'identifier' && field(field(update, 'left')!, 'value') !== null;
  });
  if (c < 0) {
    return null;
  }
  const copy = assignment(stmts[c])!;
  const update = assignment(stmts[c + 1])!;
  const un = field(copy, 'left')!.text;
  const source = field(copy, 'right');
  const target = field(update, 'left')!;
  const expr = field(update, 'right');
  const array = target.type === 'subscript' ? field(target, 'value') : null;
  if (!source || !expr || array?.type !== 'identifier') {
    return null;
  }
  const u = array.text;
  // `u.copy()` or `np.copy(u)`: a new array, of u's dtype, shape and values
  const fn = source.type === 'call' ? field(source, 'function') : null;
  const args = source.type === 'call' ? callArguments(source) : null;
  const copied =
    fn?.type === 'attribute' && field(fn, 'attribute')?.text === 'copy' && field(fn, 'object')?.text === u && args?.positional.length === 0
      ? true
      : !!fn && model.qualifiedName(fn) === 'numpy.copy' && args?.positional.length === 1 && args.positional[0].text === u;
  if (!copied || args!.keywords.size > 0 || un === u || un === loopVariable || u === loopVariable) {
    return null;
  }
  const input = stencilInput(u, model, cell, stmt.startIndex);
  if (!input || !isInterior(target, u, input.ndim)) {
    return null;
  }
  const border = constantBorder(stmts, c + 2, u, input.ndim, input.dtype, model);
  const last = stmts[c + 1 + (border?.count ?? 0)];
  const others = stmts.filter((_, k) => k < c || k > c + 1 + (border?.count ?? 0));
  const inOthers = (name: string): SyntaxNode[] => {
    const found: SyntaxNode[] = [];
    for (const s of others) {
      walk(s, n => {
        if (n.type === 'identifier' && n.text === name) {
          found.push(n);
        }
      });
    }
    return found;
  };
  // the copy is read by the update alone: not by the other statements, after the loop, in a
  // later cell or in a function (called later)
  const elsewhere = inOthers(un).length > 0 || readAfterLoop(un, stmt, model, cell);
  // u itself: only written into or read for a new value; nothing sharing its memory read there:
  // no alias or view from an earlier cell (memorySharers), nor a name this cell bound before the
  // loop from a value that reads u (`top = u[:2]`, `w = u`, `pair = [u, f]`)
  const sharers = memorySharers(u, cell, model).flatMap(s => (s.name && s.name !== u ? [s.name] : []));
  const madeFromU = (name: string): boolean => name !== u && cell.facts!.assignments.some(a => a.name === name && a.at <= stmt.startIndex && (!a.value || readsName(a.value, u)));
  const sharing = (name: string): boolean => sharers.includes(name) || madeFromU(name);
  let shared = false;
  for (const s of others) {
    walk(s, n => {
      shared ||= n.type === 'identifier' && sharing(n.text);
      return !shared;
    });
  }
  if (elsewhere || shared || !inOthers(u).every(n => usesCurrentStep(n, model))) {
    return null;
  }
  // what the update reads besides the copy is the same every step: no other statement names it
  let reread = false;
  walk(expr, n => {
    reread ||= n.type === 'identifier' && n.text !== un && !model.aliases.has(n.text) && inOthers(n.text).length > 0;
    return !reread;
  });
  if (reread) {
    return null;
  }
  const seen = new Map<string, ReadableArray | null>();
  const readable = (name: string): ReadableArray | null => {
    if (!seen.has(name)) {
      seen.set(name, name === loopVariable || name === u ? null : readableBeside(name, u, input.ndim, model, cell, stmt.startIndex));
    }
    return seen.get(name)!;
  };
  const found = stencilExpression(expr, un, u, input.dtype, input.shape, model, cell, loopVariable, readable);
  const lineStart = cell.source.lastIndexOf('\n', stmts[c].startIndex - 1) + 1;
  const indent = cell.source.slice(lineStart, stmts[c].startIndex);
  if (!found || !/^[ \t]+$/.test(indent)) {
    return null;
  }
  const named = (base: string): string => freshName(`${u}_${base}`);
  return {
    start: stmts[c].startIndex,
    end: last.endIndex,
    expr,
    step: stmts.slice(c, c + 2 + (border?.count ?? 0)),
    out: u,
    input: u,
    dtype: input.dtype,
    ndim: input.ndim,
    ...found,
    loop: {
      header: `for ${loopVariable} in ${range}:`,
      current: named('keep'),
      spare: named('dst'),
      grid: named('grid'),
      sizes: input.ndim === 2 ? [named('rows'), named('cols')] : [named('size')],
      scalarArgs: found.scalars.map(a => named(a.name)),
      readArgs: found.reads.map(r => named(r.name)),
      copy: { name: un, text: stmts[c].text, loopStart: stmt.startIndex, loopEnd: stmt.endIndex, indent, border: border ? { value: border.value, text: border.text } : null },
      periodic: null
    },
    periodic: null
  };
}

/**
 * The periodic form (a Laplacian with np.roll, a time step rebinding or updating the array):
 *
 * ```python
 * for _ in range(steps):
 *     lap = np.roll(v, 1, 0) + np.roll(v, -1, 0) + np.roll(v, 1, 1) + np.roll(v, -1, 1) - 4 * v
 *     v = v + alpha * lap                  # or v += alpha * lap, v[:] = v + alpha * lap
 * ```
 *
 * Written op by op, each step makes four rolled copies, a chain of temporaries and the update: a
 * dozen passes over the grid. `np.roll(v, s, axis)` with `s` a literal ±1 or ±2 reads v at that
 * neighbour along the axis, wrapping around at the edges, so one kernel computes each element
 * from its neighbours (the wrapped row or column at the edges) in one pass, `lap` inlined in
 * parentheses (NumPy computes it whole first; C then rounds each operation as NumPy does,
 * --fmad=false) and the terms in the source's order. Recognised: one or two statements, an
 * optional temporary `t = <expr>` then the update, both made of `np.roll(v, s, axis)` (the axis
 * named in 2-D: without one NumPy rolls the flattened array), `v` itself, the temporary (in the
 * second), numbers, scalars and `+ - * /`, computed in v's dtype; the temporary not read after
 * the update (the rewrite never binds it). A shift that is a name, or a roll of another array,
 * keeps the generic rewrite.
 *
 * The update is `v = <expr>`, `v op= <expr>` (`+ - * /`; NumPy computes `<expr>` whole, then
 * `v op (<expr>)` into v's array: the kernel writes that) or `v[:] = <expr>` (`v[...]`). The
 * first makes a new array each step and never writes v's own array (another name may hold it),
 * so neither does the kernel: the first step reads it and the steps rotate through two new
 * buffers; after a step, v names the last one. The other two write v's own array, which every
 * name holding it sees: the kernel ping-pongs between it (a C-contiguous copy of a view) and a
 * spare buffer, and the result is copied back into it once, after the loop, where the last step
 * wrote the spare, as the slice form's loop does. The same statements outside a loop are one
 * launch (rollStencil).
 */
function rollLoopStencil(stmt: SyntaxNode, loopVariable: string, range: string, body: SyntaxNode | null, model: NotebookModel, cell: CellModel, freshName: FreshName): SliceStencil | null {
  const stmts = body ? kids(body).filter(s => s.type !== 'comment') : [];
  const step = rollStep(stmts, stmt, loopVariable, model, cell);
  if (!step || step.out !== step.input) {
    return null;
  }
  const { found, ...rest } = step;
  const { input: v, ndim } = rest;
  const named = (base: string): string => freshName(`${v}_${base}`);
  return {
    ...rest,
    start: stmt.startIndex,
    end: stmt.endIndex,
    ...found,
    loop: {
      header: `for ${loopVariable} in ${range}:`,
      current: named('src'),
      spare: named('dst'),
      grid: named('grid'),
      sizes: ndim === 2 ? [named('rows'), named('cols')] : [named('size')],
      scalarArgs: found.scalars.map(a => named(a.name)),
      readArgs: [],
      copy: null,
      periodic: step.periodic.inPlace ? null : { next: named('next') }
    }
  };
}

/**
 * The periodic form outside a loop (rollLoopStencil's statements, run once): `v = <expr>`,
 * `v op= <expr>` or `v[:] = <expr>`, optionally after a temporary, or a new array from the rolls,
 * `lap = np.roll(u, 1, 0) + ... - 4 * u`. One launch writes a new array: v, or lap, names it; the
 * in-place forms copy it into v's own array (NumPy's update writes v's memory, which other names
 * may share). Op by op, the same statements made a rolled copy per roll and a pass per operator.
 */
function rollStencil(stmts: SyntaxNode[], k: number, model: NotebookModel, cell: CellModel): SliceStencil | null {
  for (const count of [2, 1]) {
    const step = k + count <= stmts.length ? rollStep(stmts.slice(k, k + count), stmts[k + count - 1], null, model, cell) : null;
    if (step) {
      const { found, ...rest } = step;
      return { ...rest, ...found, start: stmts[k].startIndex, end: stmts[k + count - 1].endIndex, loop: null };
    }
  }
  return null;
}

/**
 * The periodic form's step (rollLoopStencil, rollStencil): one or two statements, an optional
 * temporary then the update of the array the rolls read, or (outside a loop: `loopVariable`
 * null) one statement binding a new array. `after` is the last statement the rewrite replaces:
 * the temporary may not be read after it.
 */
function rollStep(
  stmts: SyntaxNode[],
  after: SyntaxNode,
  loopVariable: string | null,
  model: NotebookModel,
  cell: CellModel
): (Pick<SliceStencil, 'expr' | 'step' | 'out' | 'input' | 'dtype' | 'ndim'> & { periodic: NonNullable<SliceStencil['periodic']>; found: Pick<SliceStencil, 'render' | 'type' | 'taps' | 'scalars' | 'reads' | 'params'> }) | null {
  const assigns = stmts.map(s => {
    const a = s.type === 'expression_statement' && kids(s).length === 1 ? kids(s)[0] : null;
    const left = (a?.type === 'assignment' && !field(a, 'type')) || a?.type === 'augmented_assignment' ? field(a, 'left') : null;
    const value = left ? field(a!, 'right') : null;
    if (left?.type === 'identifier' && value) {
      // `v op= <expr>`: the operator, `+` of `+=`
      const op = a!.type === 'augmented_assignment' ? operatorOf(a!).slice(0, -1) : null;
      return op !== null && !['+', '-', '*', '/'].includes(op) ? null : { name: left.text, value, op, whole: 0 };
    }
    // `v[:] = <expr>`, `v[...] = <expr>`, `v[:, :] = <expr>`: every element of v's own array
    const array = left?.type === 'subscript' && a!.type === 'assignment' ? field(left, 'value') : null;
    const index = array ? kids(left!).filter(k => k.id !== array.id).map(k => k.text.replace(/\s+/g, '')) : [];
    const whole = index.length > 0 && (index.join(',') === '...' || index.every(t => t === ':'));
    return array?.type === 'identifier' && value && whole ? { name: array.text, value, op: null, whole: index.length } : null;
  });
  if ((stmts.length !== 1 && stmts.length !== 2) || assigns.some(a => !a)) {
    return null;
  }
  const last = assigns[assigns.length - 1]!;
  const temp = stmts.length === 2 ? assigns[0]! : null;
  // at least one roll (`v = v + v` is no stencil): asked first, the syntax alone (most steps
  // have none, and what follows infers values)
  let rolls = false;
  for (const e of [last.value, ...(temp ? [temp.value] : [])]) {
    walk(e, n => {
      rolls ||= n.type === 'call' && model.qualifiedName(field(n, 'function')!) === 'numpy.roll';
      return !rolls;
    });
  }
  if (!rolls) {
    return null;
  }
  const inPlace = last.op !== null || last.whole > 0;
  // the rolled array: the updated one, or (one statement outside a loop) the first one rolled
  let rolled: string | null = null;
  walk(last.value, n => {
    if (!rolled && n.type === 'call' && model.qualifiedName(field(n, 'function')!) === 'numpy.roll') {
      const first = callArguments(n).positional[0];
      rolled = first?.type === 'identifier' ? first.text : null;
    }
    return !rolled;
  });
  const v = temp || inPlace || loopVariable !== null || rolled === null ? last.name : rolled;
  if (v === loopVariable || last.name === loopVariable || (temp && (temp.op !== null || temp.whole > 0 || temp.name === v || temp.name === loopVariable || readsName(temp.value, temp.name) || readAfterLoop(temp.name, after, model, cell)))) {
    return null;
  }
  const input = stencilInput(v, model, cell, stmts[0].startIndex);
  // `v[:, :]` of a 1-D v raises IndexError; `v[:]` of a 2-D v is the whole array too
  if (!input || last.whole > input.ndim) {
    return null;
  }
  const locals = new Map<string, SyntaxNode>(temp ? [[temp.name, temp.value]] : []);
  const found = stencilExpression(last.value, v, last.name === v ? `${v}_new` : last.name, input.dtype, input.shape, model, cell, loopVariable, null, locals);
  // a temporary the update reads (and a roll: above); the step's result in v's own dtype (v is
  // rebound to it every step)
  if (!found || found.type !== input.dtype || (temp && !readsName(last.value, temp.name))) {
    return null;
  }
  // `v op= <expr>`: v's own element, then the operator, then the value NumPy computed whole
  const { op } = last;
  const render = op === null ? found.render : (tap: StencilTap): string => `${tap(0, 0, -1)} ${op} (${found.render(tap)})`;
  return {
    expr: last.value,
    step: stmts,
    out: last.name,
    input: v,
    dtype: input.dtype,
    ndim: input.ndim,
    periodic: { inPlace, temporary: temp?.name ?? null },
    found: { ...found, render, taps: found.taps + (op === null ? 0 : 1) }
  };
}

/**
 * Finds the pattern among the cell's top-level statements (the first one, of either form). The
 * loop form's names (buffers, grid, sizes, scalar arguments) come from `freshName`, the caller's
 * (cupy-rewrite.ts: free in the whole notebook and reserved for the rest of its rewrite; a caller
 * that only looks at where the stencil is passes `base => base`).
 */
export function findSliceStencil(root: SyntaxNode, model: NotebookModel, cell: CellModel, freshName: FreshName): SliceStencil | null {
  const stmts = kids(root).filter(s => s.type !== 'comment');
  for (let k = 0; k < stmts.length; k++) {
    const loop = loopStencil(stmts[k], model, cell, freshName) ?? rollStencil(stmts, k, model, cell);
    if (loop) {
      return loop;
    }
    const a = stmts[k].type === 'expression_statement' ? stmts[k].firstNamedChild : null;
    const b = a?.type === 'assignment' && k + 1 < stmts.length && stmts[k + 1].type === 'expression_statement' ? stmts[k + 1].firstNamedChild : null;
    if (a?.type !== 'assignment' || b?.type !== 'assignment') {
      continue;
    }
    const out = field(a, 'left');
    const zeros = field(a, 'right');
    if (out?.type !== 'identifier' || zeros?.type !== 'call' || model.qualifiedName(field(zeros, 'function')!) !== 'numpy.zeros_like') {
      continue;
    }
    const zargs = callArguments(zeros);
    const input = zargs.positional[0];
    if (!input || input.type !== 'identifier' || zargs.positional.length !== 1 || zargs.keywords.size > 0 || input.text === out.text) {
      continue;
    }
    const array = stencilInput(input.text, model, cell, zeros.startIndex);
    const expr = field(b, 'right');
    if (!array || !expr || !isInterior(field(b, 'left'), out.text, array.ndim)) {
      continue;
    }
    const found = stencilExpression(expr, input.text, out.text, array.dtype, array.shape, model, cell, null, null);
    if (found) {
      return { start: stmts[k].startIndex, end: stmts[k + 1].endIndex, expr, step: [stmts[k], stmts[k + 1]], out: out.text, input: input.text, dtype: array.dtype, ndim: array.ndim, ...found, loop: null, periodic: null };
    }
  }
  return null;
}

/** Rows each thread of the 2-D kernel computes (measured on the H200: 4 to 16 within 2%). */
export const STENCIL_ROWS_PER_THREAD = 8;
/** Threads per block, all along the contiguous axis. */
export const STENCIL_BLOCK = 128;

/**
 * The names the kernel and its launcher declare themselves: the sizes, the indices, the strip's
 * pointers and registers, the periodic kernel's wrapped columns (the 1-D kernel uses the first
 * two). Its arrays take the cell's names
 * (SliceStencil.params).
 */
const OWN_NAMES = ['n', 'k', 'm', 'j', 'edge', 's', 'i0', 'i1', 'k0', 'p', 'q', 'up', 'mid', 'down', 'r', 'o', 'i', 'jw', 'je', 'jw2', 'je2'] as const;
type OwnNames = Record<(typeof OWN_NAMES)[number], string>;

/** What an own name becomes where the cell's names take it (else the name with a number). */
const OWN_ALTERNATIVES: Partial<OwnNames> = { m: 'cols', k: 'idx', i: 'row', j: 'col' };

/**
 * The kernel's own names, each kept unless one of the cell's names that the kernel and its
 * launcher declare (its input or output array, another array it reads, a scalar argument) takes
 * it; then a free one (`k` becomes `idx`, `n` `size` or `rows`, `p` `p2`...). The cell's names
 * stay as written, none shadows another, and none of ours is ever renamed into one of theirs.
 */
function ownNames(theirs: string[], ndim: 1 | 2): OwnNames {
  const taken = new Set<string>([...theirs, ...OWN_NAMES]);
  const alternatives: Partial<OwnNames> = { ...OWN_ALTERNATIVES, n: ndim === 2 ? 'rows' : 'size' };
  const names = {} as OwnNames;
  for (const base of OWN_NAMES) {
    names[base] = theirs.includes(base) ? cName(alternatives[base] ?? base, taken) : base;
  }
  return names;
}

/** The C type of a float dtype. */
function cType(dtype: 'float32' | 'float64'): string {
  return dtype === 'float32' ? 'float' : 'double';
}

/**
 * The C index of `read` at shifts (di, dj) from the element at row `row` (C text: `i`, or
 * `i0 + r` in a strip) and column `j`, where `flat` is the input's own flat index there
 * (`k`, `k0 + o`) and `m` its row length; 1-D: `row` is null and `flat` the index. An axis at
 * the input's length follows the input's index; a broadcast axis reads its one element.
 */
function readIndex(read: StencilRead, di: number, dj: number, at: { flat: string; row: string | null; j: string; m: string }): string {
  const sign = (d: number): string => (d < 0 ? ' - 1' : d > 0 ? ' + 1' : '');
  const one = (a: ReadAxis, d: number): number => (a.kind === 'one' && a.extent === 3 ? 1 + d : 0);
  if (at.row === null) {
    const [cols] = read.axes;
    return cols.kind === 'same' ? `${at.flat}${sign(dj)}` : String(one(cols, dj));
  }
  const [rows, cols] = read.axes;
  if (rows.kind === 'same' && cols.kind === 'same') {
    return `${at.flat}${di < 0 ? ` - ${at.m}` : di > 0 ? ` + ${at.m}` : ''}${sign(dj)}`;
  }
  if (rows.kind === 'same') {
    // a column (n, 1) or (n, 3): every thread of a warp reads the same element
    const row = `${at.row}${sign(di)}`;
    return cols.kind === 'one' && cols.extent === 3 ? `(ptrdiff_t)(${row}) * 3 + ${one(cols, dj)}` : row;
  }
  const r = one(rows, di);
  if (cols.kind === 'same') {
    // a row, broadcast over the input's rows: read along j as the input is (coalesced)
    return `${r === 0 ? '' : r === 1 ? `(ptrdiff_t)${at.m} + ` : `${r} * (ptrdiff_t)${at.m} + `}${at.j}${sign(dj)}`;
  }
  return String(r * (cols.kind === 'one' ? cols.extent : 1) + one(cols, dj));
}

/**
 * The definitions (a RawKernel and the Python function that launches it; the notebook plan puts
 * both in the import cell) and the statements that replace the original ones. `deviceName` gives
 * the name the rewritten cell gives an array it reads (the input, the loop's other arrays): its
 * device copy.
 *
 * The loop form launches once per step from one buffer into the other and swaps the two
 * references (ping-pong); the launcher function checks both buffers once before the loop and
 * returns the launch's grid and int arguments, and the loop body launches the kernel itself.
 * The kernel copies the border through, so every element of the spare
 * buffer is written each step and nothing else runs. The first buffer is the user's array itself
 * when it is C-contiguous; after the loop, an odd step count (or a copied input) leaves the
 * result in the other buffer, which is copied back once, so the array bound to the user's name
 * is the same object, updated in place, as with NumPy's slice assignment. The other arrays the
 * step reads (`reads`) are kernel inputs too, made C-contiguous once before the loop (each the
 * device array itself when it already is) and checked once with the buffers.
 *
 * The copy form (`loop.copy`) replaces only the copy, the update and the border assignments it
 * folds (the loop's other statements keep the generic rewrite): `call` is the launch and the swap
 * that binds the cell's name to the buffer just written, and `inserts` the set-up before the loop
 * (the name's array kept as `current`, the spare buffer, the launcher's checks) and, after it, the
 * result copied into that array where the last step wrote the spare, the name bound to it again.
 * The other forms have no inserts.
 *
 * Where the right-hand side is computed in float64 for a float32 array (`type`), each operation
 * is already in NumPy's type (C converts a float operand of a double operation exactly, as NumPy
 * does) and the store casts the result once, `(float)(...)`, as the slice assignment does.
 */
export function stencilCode(
  s: SliceStencil,
  fnName: string,
  deviceName: (name: string) => string,
  cp: string
): { definition: string; call: string; inserts: { at: number; text: string }[] } {
  const inputText = deviceName(s.input);
  const { input: u, out } = s.params;
  const c = ownNames([u, out, ...s.reads.map(r => r.param), ...s.scalars.map(a => a.name)], s.ndim);
  const ct = cType(s.dtype);
  const kernelName = `${fnName}_kernel`;
  const R = STENCIL_ROWS_PER_THREAD;
  const B = STENCIL_BLOCK;
  // outside the interior: zero (a zeros_like output), the input's own value (an in-place update),
  // or the constant the copy form's step assigns the border after its update
  const edge = s.loop?.copy?.border ?? null;
  const border = (k: string): string => (edge ? edge.value : s.loop ? `${u}[${k}]` : s.dtype === 'float32' ? '0.0f' : '0.0');
  const borderSays = s.periodic ? 'wrapping around as np.roll does' : edge ? `set to ${edge.text}` : `copied from ${u}`;
  const sign = (d: number, unit: string): string => (d < 0 ? ` - ${unit}` : d > 0 ? ` + ${unit}` : '');
  // the interior value as stored: cast once where NumPy computed it in float64 for a float32 array
  const value = (tap: StencilTap): string => (s.type === s.dtype ? s.render(tap) : `(${ct})(${s.render(tap)})`);
  // reads at flat index k (border strips, 1-D)
  const atK: StencilTap = (di, dj, array) =>
    array < 0
      ? `${u}[${c.k}${sign(di, c.m)}${sign(dj, '1')}]`
      : `${s.reads[array].param}[${readIndex(s.reads[array], di, dj, { flat: c.k, row: s.ndim === 2 ? c.i : null, j: c.j, m: c.m })}]`;
  // reads in an interior strip: the input's centre column from the rotating registers; another
  // array the loop's step reads, at the same offsets from the strip's start (coalesced as well)
  const inStrip: StencilTap = (di, dj, array) => {
    if (array >= 0) {
      return `${s.reads[array].param}[${readIndex(s.reads[array], di, dj, { flat: `${c.k0} + ${c.o}`, row: `${c.i0} + ${c.r}`, j: c.j, m: c.m })}]`;
    }
    return dj === 0 ? (di < 0 ? c.up : di > 0 ? c.down : c.mid) : `${c.p}[${c.o}${sign(di, c.m)}${sign(dj, '1')}]`;
  };
  // the other arrays the loop's step reads, after the input
  const readParams = s.reads.map(r => `, const ${cType(r.dtype)}* __restrict__ ${r.param}`).join('');
  // the scalar arguments after the sizes, each cast once by the launcher to the type it meets
  const scalarParams = s.scalars.map(a => `, const ${cType(a.dtype)} ${a.name}`).join('');
  const dt = `${cp}.${s.dtype}`;
  const scalarValues = s.scalars.map(a => `, ${cp}.${a.dtype}(${a.name})`).join('');
  const scalarNames = s.scalars.map(a => a.name);
  const kernel = s.periodic
    ? periodicKernel(s, fnName, c, value, scalarParams)
    : s.ndim === 2
      ? [
          `extern "C" __global__ void __launch_bounds__(${B}) ${fnName}(const ${ct}* __restrict__ ${u}${readParams}, ${ct}* __restrict__ ${out}, int ${c.n}, int ${c.m}${scalarParams}) {`,
          `    // one thread per column ${c.j} (x runs along the contiguous last axis: coalesced loads) and`,
          `    // ${R} consecutive rows; the rows above and at ${c.i} rotate through registers, so each output`,
          `    // loads 3 new values instead of 5. Every output element is written once, border included${s.loop ? ` (${borderSays})` : ''}.`,
          `    const int ${c.j} = blockIdx.x * ${B} + threadIdx.x;`,
          `    if (${c.j} >= ${c.m}) return;`,
          `    const bool ${c.edge} = (${c.j} == 0) | (${c.j} == ${c.m} - 1);`,
          `    for (int ${c.s} = blockIdx.y; (long long)${c.s} * ${R} < ${c.n}; ${c.s} += gridDim.y) {`,
          `        const int ${c.i0} = ${c.s} * ${R}, ${c.i1} = min(${c.i0} + ${R}, ${c.n});`,
          `        const ptrdiff_t ${c.k0} = (ptrdiff_t)${c.i0} * ${c.m} + ${c.j};`,
          `        if (!${c.edge} && ${c.i0} >= 1 && ${c.i1} <= ${c.n} - 1) {`,
          '            // interior strip: fixed trip count, unrolled, so all its loads are in flight together',
          `            const ${ct}* ${c.p} = ${u} + ${c.k0};`,
          `            ${ct}* ${c.q} = ${out} + ${c.k0};`,
          `            ${ct} ${c.up} = ${c.p}[-(ptrdiff_t)${c.m}], ${c.mid} = ${c.p}[0];`,
          '#pragma unroll',
          `            for (int ${c.r} = 0; ${c.r} < ${R}; ${c.r}++) {`,
          `                const ptrdiff_t ${c.o} = (ptrdiff_t)${c.r} * ${c.m};`,
          `                const ${ct} ${c.down} = ${c.p}[${c.o} + ${c.m}];`,
          `                ${c.q}[${c.o}] = ${value(inStrip)};`,
          `                ${c.up} = ${c.mid};`,
          `                ${c.mid} = ${c.down};`,
          '            }',
          '        } else {',
          '            // first or last row or column, or the last partial strip',
          `            for (int ${c.i} = ${c.i0}; ${c.i} < ${c.i1}; ${c.i}++) {`,
          `                const ptrdiff_t ${c.k} = (ptrdiff_t)${c.i} * ${c.m} + ${c.j};`,
          `                ${out}[${c.k}] = (!${c.edge} && ${c.i} > 0 && ${c.i} < ${c.n} - 1) ? ${value(atK)} : ${border(c.k)};`,
          '            }',
          '        }',
          '    }',
          '}'
        ]
      : [
          `extern "C" __global__ void ${fnName}(const ${ct}* __restrict__ ${u}${readParams}, ${ct}* __restrict__ ${out}, long long ${c.n}${scalarParams}) {`,
          `    const long long ${c.k} = (long long)blockIdx.x * blockDim.x + threadIdx.x;`,
          `    if (${c.k} >= ${c.n}) return;`,
          `    ${out}[${c.k}] = (${c.k} > 0 && ${c.k} < ${c.n} - 1) ? ${value(atK)} : ${border(c.k)};`,
          '}'
        ];
  const launch =
    s.ndim === 2
      ? [`    ${c.n}, ${c.m} = ${u}.shape`, `    ${kernelName}(((${c.m} + ${B - 1}) // ${B}, min((${c.n} + ${R - 1}) // ${R}, 65535)), (${B},), (${u}, ${out}, ${cp}.int32(${c.n}), ${cp}.int32(${c.m})${scalarValues}))`]
      : [`    ${kernelName}(((${u}.size + 255) // 256,), (256,), (${u}, ${out}, ${cp}.int64(${u}.size)${scalarValues}))`];
  // the scalar pieces, computed by the cell as written (Python's arithmetic, in double)
  const scalarTexts = s.scalars.map(a => `, ${a.text}`).join('');
  if (s.loop) {
    const { header, current, spare, grid, sizes, scalarArgs, readArgs } = s.loop;
    const stepArgs = [...sizes, ...scalarArgs];
    const readNames = s.reads.map(r => r.param);
    // `r, coef as float32`; where a Python scalar meets both types, `alpha as float32, alpha2 as float64`
    const scalarTypes = s.scalars.every(a => a.dtype === s.scalars[0]?.dtype)
      ? `${scalarNames.join(', ')} as ${s.scalars[0]?.dtype}`
      : s.scalars.map(a => `${a.name} as ${a.dtype}`).join(', ');
    // Checked once: the loop's two buffers never change. Each step then costs one launch from
    // Python (~2 us), not a launcher call re-checking its arguments and building the int
    // arguments (~10-20 us, against 8-35 us of kernel for 2048^2-4096^2 grids).
    const definition = rawKernelWithLauncher(cp, fnName, kernel, [u, ...readNames, out, ...scalarNames], [
      `    # checks the loop's two buffers once and returns what every step launches ${kernelName}`,
      ...(s.scalars.length > 0
        ? [
            `    # with: the grid, the sizes as the kernel's int arguments and ${scalarTypes} (a`,
            `    # step writes ${out} from ${u}, its border ${borderSays})`
          ]
        : [`    # with: the grid and the sizes as the kernel's int arguments (a step writes ${out} from ${u},`, `    # its border ${borderSays})`]),
      `    if not (isinstance(${u}, ${cp}.ndarray) and isinstance(${out}, ${cp}.ndarray) and ${u}.flags.c_contiguous and ${out}.flags.c_contiguous):`,
      `        raise TypeError('${fnName} reads and writes C-contiguous CuPy arrays')`,
      `    if ${u}.dtype != ${dt} or ${out}.dtype != ${dt}:`,
      `        raise TypeError(f'${fnName} was generated for ${s.dtype} arrays (the dtype the analysis inferred), got {${u}.dtype} and {${out}.dtype}: rerun the analysis')`,
      `    if ${u}.ndim != ${s.ndim}:`,
      `        raise TypeError(f'${fnName} was generated for ${s.ndim}-D arrays (the shape the analysis inferred), got {${u}.ndim}-D: rerun the analysis')`,
      `    if ${out}.shape != ${u}.shape or ${out} is ${u}:`,
      `        raise ValueError('${fnName} writes a second array of the same shape')`,
      ...s.reads.flatMap(read => readChecks(read, s, fnName, cp, u)),
      '    # an empty array still gets one block, which returns at once (CUDA refuses an empty grid)',
      ...(s.ndim === 2
        ? [`    ${c.n}, ${c.m} = ${u}.shape`, `    return (max(1, (${c.m} + ${B - 1}) // ${B}), max(1, min((${c.n} + ${R - 1}) // ${R}, 65535))), ${cp}.int32(${c.n}), ${cp}.int32(${c.m})${scalarValues}`]
        : [`    return (max(1, (${u}.size + 255) // 256),), ${cp}.int64(${u}.size)${scalarValues}`])
    ]);
    const readInputs = readArgs.map(a => `, ${a}`).join('');
    const contiguousReads = s.reads.map((r, k) => `${readArgs[k]} = ${cp}.ascontiguousarray(${deviceName(r.name)})  # read by every step: ${deviceName(r.name)} itself when it is C-contiguous`);
    const checked = `# checks ${s.reads.length > 0 ? `the buffers and ${s.reads.map(r => r.name).join(', ')}` : 'both buffers'} once`;
    const launch = (from: string): string => `${kernelName}(${grid}, (${s.ndim === 2 ? B : 256},), (${from}${readInputs}, ${spare}, ${stepArgs.join(', ')}))`;
    if (s.loop.periodic) {
      // each step makes a new array (`v = v + ...`): v's own array is read by the first step only,
      // then the steps rotate through two new buffers; v names the last step's after the loop
      const { next } = s.loop.periodic;
      const call = [
        `${current} = ${cp}.ascontiguousarray(${inputText})  # ${inputText} itself when it is C-contiguous: read, never written`,
        `${spare} = ${cp}.empty_like(${current})`,
        `${next} = ${cp}.empty_like(${current})`,
        `${grid}, ${stepArgs.join(', ')} = ${fnName}(${current}, ${spare}${scalarTexts})  ${checked}`,
        header,
        `    ${launch(current)}  # the whole step: one launch, into a new buffer`,
        `    ${current}, ${spare}, ${next} = ${spare}, ${next}, ${spare}`,
        `if ${next} is ${current}:`,
        `    ${inputText} = ${current}  # a step ran: ${inputText} names the last step's new array`,
        `del ${[current, spare, next, grid, ...stepArgs].join(', ')}`
      ].join('\n');
      return { definition, call, inserts: [] };
    }
    if (s.loop.copy) {
      // the cell's name for the array is each step's buffer (the loop's other statements read
      // it); `current` keeps the array it named, which ends holding the result
      const { text: copyText, loopStart, loopEnd, indent } = s.loop.copy;
      const before = [
        `${current} = ${inputText}  # the array ${inputText} names: it ends holding the result`,
        `${inputText} = ${cp}.ascontiguousarray(${inputText})  # ${inputText} itself when it is C-contiguous`,
        `${spare} = ${cp}.empty_like(${inputText})`,
        ...contiguousReads,
        `${grid}, ${stepArgs.join(', ')} = ${fnName}(${inputText}${readInputs}, ${spare}${scalarTexts})  ${checked}`
      ];
      const step = [
        // NumPy's border assignments raise IndexError on an array empty along an axis (every edge is
        // folded, so both axes are indexed), after the update; the kernel would write nothing
        ...(edge
          ? [`if ${inputText}.size == 0:`, `    raise IndexError('index 0 is out of bounds: the step assigns the border of ${s.input}, which is empty along an axis')`]
          : []),
        `${launch(inputText)}  # ${copyText}${edge ? ', the update and the border' : ' and the update'}: one pass into the other buffer`,
        `${inputText}, ${spare} = ${spare}, ${inputText}  # ${inputText} names the step's result`
      ];
      const after = [
        `if ${inputText} is not ${current}:`,
        `    ${current}[...] = ${inputText}  # the last step wrote the other buffer`,
        `    ${inputText} = ${current}`,
        `del ${[current, spare, ...readArgs, grid, ...stepArgs].join(', ')}`
      ];
      return {
        definition,
        call: step.join(`\n${indent}`),
        inserts: [
          { at: loopStart, text: `${before.join('\n')}\n` },
          { at: loopEnd, text: `\n${after.join('\n')}` }
        ]
      };
    }
    const call = [
      `${current} = ${cp}.ascontiguousarray(${inputText})  # ${inputText} itself when it is C-contiguous`,
      `${spare} = ${cp}.empty_like(${current})`,
      ...contiguousReads,
      `${grid}, ${stepArgs.join(', ')} = ${fnName}(${current}${readInputs}, ${spare}${scalarTexts})  ${checked}`,
      header,
      `    ${launch(current)}  # one launch per step, from one buffer into the other`,
      `    ${current}, ${spare} = ${spare}, ${current}`,
      `if ${current} is not ${inputText}:`,
      `    ${inputText}[...] = ${current}  # an odd step count ends in the other buffer`,
      `del ${[current, spare, ...readArgs, grid, ...stepArgs].join(', ')}`
    ].join('\n');
    return { definition, call, inserts: [] };
  }
  const [shape, ...launchLines] = launch;
  const definition = rawKernelWithLauncher(cp, fnName, kernel, [u, ...scalarNames], [
    ...launcherInputChecks(s.dtype, fnName, cp, [u], s.ndim),
    ...(s.ndim === 2 ? [shape, `    ${out} = ${cp}.empty((${c.n}, ${c.m}), dtype=${dt})`] : [`    ${out} = ${cp}.empty(${u}.shape, dtype=${dt})`]),
    `    if ${out}.size == 0:`,
    `        return ${out}  # no grid to launch`,
    ...(s.ndim === 2 ? launchLines : [shape]),
    `    return ${out}`
  ]);
  // the np.roll forms: `v = ...` rebinds v to the new array, `v += ...` writes it into v's own
  const launched = `${fnName}(${inputText}${scalarTexts})`;
  const call = s.periodic?.inPlace
    ? `${inputText}[...] = ${launched}  # NumPy's update writes ${s.input}'s own array`
    : `${s.out === s.input ? inputText : s.out} = ${launched}`;
  return { definition, call, inserts: [] };
}

/**
 * The periodic form's kernel (rollLoopStencil): every element computed from its neighbours, the
 * opposite edge's across the border, as np.roll wraps around. In 2-D, as the other kernel, one
 * thread per column (coalesced) and STENCIL_ROWS_PER_THREAD rows, the rows above and at the
 * current one rotating through registers; the columns left and right of the thread's, wrapped,
 * are worked out once. A strip at least `reach` rows from the first and last (the largest row
 * shift) runs a fixed, unrolled trip count with plain row offsets; the others wrap the rows above
 * the first and below the last. A shift of ±1 wraps with a comparison; ±2 (rarer) with a modulo
 * that stays right where the axis is shorter than the shift (np.roll wraps the shift too).
 */
function periodicKernel(s: SliceStencil, fnName: string, c: OwnNames, value: (tap: StencilTap) => string, scalarParams: string): string[] {
  const { input: u, out } = s.params;
  const ct = cType(s.dtype);
  const R = STENCIL_ROWS_PER_THREAD;
  const B = STENCIL_BLOCK;
  // the row and column offsets the expression reads
  const rows = new Set<number>();
  const cols = new Set<number>();
  s.render((di, dj) => (rows.add(di), cols.add(dj), ''));
  // index + d modulo size (`at` below size): a comparison for ±1, a modulo for ±2
  const wrap = (at: string, d: number, size: string): string =>
    d === 0 ? at : d === -1 ? `${at} == 0 ? ${size} - 1 : ${at} - 1` : d === 1 ? `${at} == ${size} - 1 ? 0 : ${at} + 1` : d > 0 ? `(${at} + ${d}) % ${size}` : `((${at} - ${-d}) % ${size} + ${size}) % ${size}`;
  if (s.ndim === 1) {
    const at: StencilTap = (_di, dj) => `${u}[${wrap(c.k, dj, c.n)}]`;
    return [
      `extern "C" __global__ void ${fnName}(const ${ct}* __restrict__ ${u}, ${ct}* __restrict__ ${out}, long long ${c.n}${scalarParams}) {`,
      `    // periodic, as np.roll: the first element's left neighbour is the last, and the other way round`,
      `    const long long ${c.k} = (long long)blockIdx.x * blockDim.x + threadIdx.x;`,
      `    if (${c.k} >= ${c.n}) return;`,
      `    ${out}[${c.k}] = ${value(at)};`,
      '}'
    ];
  }
  const reach = Math.max(1, ...[...rows].map(Math.abs));
  const column = (dj: number): string => (dj === -1 ? c.jw : dj === 1 ? c.je : dj === -2 ? c.jw2 : c.je2);
  const side = (dj: number, row: string): string => `${c.p}[${row}${column(dj)}]`;
  // a row two away: read from memory (the registers hold the rows next to the current one)
  const far = (di: number, row: string): string => `${row}[${c.o} ${di < 0 ? '-' : '+'} ${Math.abs(di)} * (ptrdiff_t)${c.m} + ${c.j}]`;
  const inStrip: StencilTap = (di, dj) =>
    dj !== 0 ? side(dj, `${c.o} + `) : Math.abs(di) > 1 ? far(di, c.p) : di < 0 ? c.up : di > 0 ? c.down : c.mid;
  const wrapped: StencilTap = (di, dj) =>
    dj !== 0
      ? side(dj, '')
      : Math.abs(di) > 1
        ? `${u}[(ptrdiff_t)(${wrap(c.i, di, c.n)}) * ${c.m} + ${c.j}]`
        : di < 0
          ? c.up
          : di > 0
            ? c.down
            : c.mid;
  const farColumns = [-2, 2].filter(d => cols.has(d));
  return [
    `extern "C" __global__ void __launch_bounds__(${B}) ${fnName}(const ${ct}* __restrict__ ${u}, ${ct}* __restrict__ ${out}, int ${c.n}, int ${c.m}${scalarParams}) {`,
    `    // one thread per column ${c.j} (x runs along the contiguous last axis: coalesced loads) and`,
    `    // ${R} consecutive rows; the rows above and at ${c.i} rotate through registers. Periodic, as`,
    `    // np.roll: the first row's upper neighbour is the last row, the first column's left one the`,
    `    // last column, and the other way round.`,
    `    const int ${c.j} = blockIdx.x * ${B} + threadIdx.x;`,
    `    if (${c.j} >= ${c.m}) return;`,
    `    const int ${c.jw} = ${wrap(c.j, -1, c.m)}, ${c.je} = ${wrap(c.j, 1, c.m)};`,
    ...(farColumns.length > 0 ? [`    const int ${farColumns.map(d => `${column(d)} = ${wrap(c.j, d, c.m)}`).join(', ')};`] : []),
    `    for (int ${c.s} = blockIdx.y; (long long)${c.s} * ${R} < ${c.n}; ${c.s} += gridDim.y) {`,
    `        const int ${c.i0} = ${c.s} * ${R}, ${c.i1} = min(${c.i0} + ${R}, ${c.n});`,
    `        if (${c.i0} >= ${reach} && ${c.i1} <= ${c.n} - ${reach}) {`,
    `            // a whole strip ${reach === 1 ? 'between the first and last rows' : `at least ${reach} rows from the first and last`}: fixed trip count, unrolled`,
    `            const ${ct}* ${c.p} = ${u} + (ptrdiff_t)${c.i0} * ${c.m};`,
    `            ${ct}* ${c.q} = ${out} + (ptrdiff_t)${c.i0} * ${c.m};`,
    `            ${ct} ${c.up} = ${c.p}[${c.j} - (ptrdiff_t)${c.m}], ${c.mid} = ${c.p}[${c.j}];`,
    '#pragma unroll',
    `            for (int ${c.r} = 0; ${c.r} < ${R}; ${c.r}++) {`,
    `                const ptrdiff_t ${c.o} = (ptrdiff_t)${c.r} * ${c.m};`,
    `                const ${ct} ${c.down} = ${c.p}[${c.o} + ${c.m} + ${c.j}];`,
    `                ${c.q}[${c.o} + ${c.j}] = ${value(inStrip)};`,
    `                ${c.up} = ${c.mid};`,
    `                ${c.mid} = ${c.down};`,
    '            }',
    '        } else {',
    `            // ${reach === 1 ? 'the first or last row' : `the first or last ${reach} rows`} (${reach === 1 ? 'its neighbour wraps' : 'their neighbours wrap'} around), or the last partial strip`,
    `            ${ct} ${c.up} = ${u}[(ptrdiff_t)(${c.i0} == 0 ? ${c.n} - 1 : ${c.i0} - 1) * ${c.m} + ${c.j}], ${c.mid} = ${u}[(ptrdiff_t)${c.i0} * ${c.m} + ${c.j}];`,
    `            for (int ${c.i} = ${c.i0}; ${c.i} < ${c.i1}; ${c.i}++) {`,
    `                const ${ct}* ${c.p} = ${u} + (ptrdiff_t)${c.i} * ${c.m};`,
    `                const ${ct} ${c.down} = ${u}[(ptrdiff_t)(${c.i} == ${c.n} - 1 ? 0 : ${c.i} + 1) * ${c.m} + ${c.j}];`,
    `                ${out}[(ptrdiff_t)${c.i} * ${c.m} + ${c.j}] = ${value(wrapped)};`,
    `                ${c.up} = ${c.mid};`,
    `                ${c.mid} = ${c.down};`,
    '            }',
    '        }',
    '    }',
    '}'
  ];
}

/**
 * The loop launcher's check of one array the step reads (`read`, its parameter), once: a
 * C-contiguous device array of the dtype and shape the kernel indexes it with (the input's
 * `u`'s, or the broadcast row or column's), else an error that names it.
 */
function readChecks(read: StencilRead, s: SliceStencil, fnName: string, cp: string, u: string): string[] {
  const { name, param: a } = read;
  const atIndices = read.axes.every(x => x.kind === 'same');
  const dims = read.axes.flatMap((x, k) => (x.kind === 'same' ? [`${u}.shape[${k}]`] : x.kind === 'one' ? [String(x.extent)] : []));
  const shape = atIndices ? `${u}.shape` : `(${dims.join(', ')}${dims.length === 1 ? ',' : ''})`;
  return [
    atIndices && read.dtype === s.dtype
      ? `    # ${a}, read by every step at ${u}'s indices, is checked once too: same dtype and shape as ${u}`
      : `    # ${a}, read by every step ${atIndices ? `at ${u}'s indices` : `broadcast against ${u}'s interior`}, is checked once too: ${read.dtype}, of shape ${atIndices ? `${u}'s` : shape}`,
    `    if not (isinstance(${a}, ${cp}.ndarray) and ${a}.flags.c_contiguous):`,
    `        raise TypeError('${fnName} reads ${name} as a C-contiguous CuPy array')`,
    `    if ${a}.dtype != ${cp}.${read.dtype}:`,
    `        raise TypeError(f'${fnName} was generated for ${read.dtype} arrays (the dtype the analysis inferred), got ${name} of {${a}.dtype}: rerun the analysis')`,
    `    if ${a}.shape != ${shape}:`,
    atIndices
      ? `        raise ValueError(f'${fnName} reads ${name} at the indices of ${s.input}: it needs the shape {${u}.shape}, got {${a}.shape}')`
      : `        raise ValueError(f'${fnName} reads ${name} broadcast against the interior of ${s.input}: it needs the shape {${shape}}, got {${a}.shape}')`
  ];
}
