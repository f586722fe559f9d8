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
 * The step may also read other arrays at the same shifts (`+ f[1:-1, 1:-1]`, a source term;
 * `k[2:] * (u[2:] - u[1:-1])`, a conductivity): each becomes one more read-only input of the
 * kernel, `const T* __restrict__`, read at u's flat offsets (so coalesced too), made C-contiguous
 * once before the loop and checked once by the launcher (a device array of u's dtype and shape,
 * else a TypeError or ValueError that names it). Written op by op, each step would read it into
 * a temporary and copy that into the slice; here it is one more read per step. Only an array
 * the analysis knows to be of u's dtype and rank (and shape, where known: another one would
 * broadcast), that shares no memory with `u` (an alias or view of `u` changes every step) and
 * that nothing in the loop writes (the loop holds the one assignment). A loop body that reads
 * any other name, or does anything else (an escape of `u` mid-loop), keeps the generic rewrite.
 */
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, kids, operatorOf, unparen, walk } from '../../syntax';
import { memorySharers } from './aliases';
import { cName, cNumber, kernelTakesScalar, launcherInputChecks, numpyConstantOf, pythonConstant, rawKernelWithLauncher, scalarPieces } from './fusion';

export interface SliceStencil {
  /** From the start of the zeros_like statement (or the loop) to the end of the slice assignment (or the loop). */
  start: number;
  end: number;
  /** The expression node (its chain is replaced by the kernel). */
  expr: SyntaxNode;
  out: string;
  input: string;
  dtype: 'float32' | 'float64';
  ndim: 1 | 2;
  /**
   * The C expression of the interior value, in the source's operation order; `tap(di, dj, array)`
   * gives the C text that reads the kernel array `array` (`u`, or a `reads` entry's parameter) at
   * row offset `di` and column offset `dj` (each -1, 0 or 1; `di` is 0 in 1-D).
   */
  render: (tap: StencilTap) => string;
  /** Number of shifted views of `input` read (for the explanation). */
  taps: number;
  /**
   * The other arrays the loop form's expression reads (`f[1:-1, 1:-1]`, `f[:-2]`), in order of
   * first read: the cell's name and the kernel's parameter name. Each is an array the analysis
   * knows to have `input`'s dtype and rank (and shape, where known), that nothing in the loop
   * writes and that shares no memory with `input`, so it holds the same values every step and is
   * read at the same flat offsets as `input`. Empty for the `zeros_like` form.
   */
  reads: { name: string; param: string }[];
  /**
   * The kernel's scalar arguments, one per piece of the expression made of scalars only
   * (`alpha`, `alpha * dt / dx ** 2`: fusion.ts scalarPiece): the piece's source text, which the
   * cell evaluates as written (as Python does, before NumPy casts the result once to the
   * array's dtype), and its name in the kernel and the launcher.
   */
  scalars: { text: string; name: string }[];
  /**
   * The in-place form repeated by a loop (`for step in range(k): u[1:-1, 1:-1] = <expr of u>`):
   * the loop's header, the two free names the rewrite uses for the buffers it ping-pongs, and
   * free names for the launch computed once before the loop: the grid, the kernel's size
   * arguments (rows and columns in 2-D, the size in 1-D), its scalar arguments (one per
   * `scalars` entry, in order) and the C-contiguous device arrays it reads besides the buffers
   * (one per `reads` entry, in order).
   * Null for `out = np.zeros_like(u); out[1:-1, 1:-1] = <expr of u>`.
   */
  loop: { header: string; current: string; spare: string; grid: string; sizes: string[]; scalarArgs: string[]; readArgs: string[] } | null;
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

/** Names the stencil kernel and its launcher declare themselves (a scalar argument takes none). */
const STENCIL_OWN_NAMES = ['u', 'out', 'n', 'm', 'j', 'k', 's', 'p', 'q', 'o', 'r', 'up', 'mid', 'down', 'edge', 'i0', 'i1', 'k0'];

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
 * The expression as a stencil of `input` (shifted views, numeric literals, scalars, `+ - * /`,
 * unary minus, parentheses; at least two views of `input`), or null when it reads anything else.
 * A piece made of scalars only becomes one kernel argument (`scalars`), unless NumPy would not
 * compute in the array's dtype with it (a NumPy float64 scalar and a float32 array give float64),
 * its kind is unknown, or it reads `loopVariable` (it would change every step). Shifted views of
 * another array are read (`reads`) only where `readable` accepts its name (the loop form).
 */
function stencilExpression(
  expr: SyntaxNode,
  input: string,
  dtype: 'float32' | 'float64',
  ndim: number,
  model: NotebookModel,
  cell: CellModel,
  loopVariable: string | null,
  readable: ((name: string) => boolean) | null
): Pick<SliceStencil, 'render' | 'taps' | 'scalars' | 'reads'> | null {
  let taps = 0;
  const scalars: { text: string; name: string }[] = [];
  const reads: { name: string; param: string }[] = [];
  const taken = new Set(STENCIL_OWN_NAMES);
  const constant = numpyConstantOf(model);
  const scalarPieceOf = scalarPieces(model, cell);
  const emit = (n: SyntaxNode, tap: (di: number, dj: number, index: number) => string): string | null => {
    // numbers only (`0.1 * 0.1`): Python computes them in double before NumPy casts the result to
    // the array's dtype (NEP 50), so the kernel gets that one value, not the pieces in float
    const folded = pythonConstant(n, constant);
    if (folded !== null) {
      return folded === 'refused' ? null : cNumber(folded, dtype);
    }
    // scalars (`alpha * dt / dx ** 2`): likewise one value, computed by the cell as written
    const piece = scalarPieceOf(n);
    if (piece) {
      const text = unparen(n).text;
      if (!kernelTakesScalar(piece.kind, dtype) || (loopVariable !== null && readsName(n, loopVariable))) {
        return null;
      }
      let arg = scalars.find(a => a.text === text);
      if (!arg) {
        arg = { text, name: cName(unparen(n).type === 'identifier' ? text : 'coef', taken) };
        scalars.push(arg);
      }
      return arg.name;
    }
    switch (n.type) {
      case 'parenthesized_expression': {
        const inner = n.namedChild(0);
        const t = inner ? emit(inner, tap) : null;
        return t === null ? null : `(${t})`;
      }
      case 'unary_operator': {
        const arg = field(n, 'argument');
        const t = arg ? emit(arg, tap) : null;
        // `- -u[...]` must not become `--u[...]` (a C decrement)
        return t === null || operatorOf(n) !== '-' ? null : /^[-+]/.test(t) ? `-(${t})` : `-${t}`;
      }
      case 'binary_operator': {
        const op = operatorOf(n);
        const l = field(n, 'left');
        const r = field(n, 'right');
        const lt = l ? emit(l, tap) : null;
        const rt = r ? emit(r, tap) : null;
        return lt === null || rt === null || !['+', '-', '*', '/'].includes(op) ? null : `${lt} ${op} ${rt}`;
      }
      case 'subscript': {
        const array = field(n, 'value');
        const offs = sliceOffsets(n, ndim);
        if (!offs || array?.type !== 'identifier') {
          return null;
        }
        let index = 0;
        if (array.text === input) {
          taps += 1;
        } else {
          let k = reads.findIndex(r => r.name === array.text);
          if (k < 0) {
            if (!readable?.(array.text)) {
              return null;
            }
            k = reads.push({ name: array.text, param: cName(array.text, taken) }) - 1;
          }
          index = k + 1;
        }
        return ndim === 2 ? tap(offs[0], offs[1], index) : tap(0, offs[0], index);
      }
      default:
        return null;
    }
  };
  // The C text is made once, each tap written as TAP_MARK, its two offsets (each + 1: one digit),
  // the array it reads (0 for `input`, k for reads[k - 1]) and TAP_MARK again; split on TAP_MARK,
  // the odd parts are the taps. The kernel renders it with two tap forms (a strip's registers, a
  // flat index): each render only fills the taps in. (No C text emit makes holds the mark:
  // numbers, names, operators, parentheses. A tap's text only matters where it starts with a
  // sign, which neither the mark nor any tap form does.)
  const text = emit(expr, (di, dj, index) => `${TAP_MARK}${di + 1}${dj + 1}${index}${TAP_MARK}`);
  if (text === null || taps < 2) {
    return null;
  }
  const parts = text.split(TAP_MARK);
  const arrayOf = (index: number): string => (index === 0 ? 'u' : reads[index - 1].param);
  const render = (tap: StencilTap): string =>
    parts.map((part, k) => (k % 2 === 0 ? part : tap(Number(part[0]) - 1, Number(part[1]) - 1, arrayOf(Number(part.slice(2)))))).join('');
  return { render, taps, scalars, reads };
}

/**
 * The C text of one read: row offset `di` and column offset `dj` (each -1, 0 or 1; `di` is 0 in
 * 1-D) of the kernel array `array` (`u`, the input, or the parameter of one of `reads`).
 */
type StencilTap = (di: number, dj: number, array: string) => string;

/** Marks a tap in the stencil's C text (stencilExpression): a control character. */
const TAP_MARK = '\u0001';

/** A float32/float64 1-D or 2-D array of known shape before `at`, or null. */
function stencilInput(name: string, model: NotebookModel, cell: CellModel, at: number): { dtype: 'float32' | 'float64'; ndim: 1 | 2 } | null {
  const v = model.valueBefore(name, cell, at);
  const dtype = v.dtype === 'float32' || v.dtype === 'float64' ? v.dtype : null;
  const ndim = v.shape?.length;
  return v.kind === 'ndarray' && dtype && (ndim === 1 || ndim === 2) ? { dtype, ndim } : null;
}

/**
 * Whether the loop form's kernel may read `name` beside the input `input` (its `dtype` and
 * `ndim`): an array of the same dtype and rank, of the same shape where both are known (the
 * kernel reads it at the input's flat offsets; the launcher checks the shape when it runs), that
 * may share no memory with the input (the loop writes the input every step: a view or alias of
 * it would change under the kernel, and the ping-pong reads the other buffer). Nothing in the
 * loop writes it: its only statement assigns the input's interior. A name whose memory the
 * analysis cannot follow (from a call, the kernel's namespace) may be the input's.
 */
function readableBeside(name: string, input: string, array: { dtype: string; ndim: number }, model: NotebookModel, cell: CellModel, at: number): boolean {
  const v = model.valueBefore(name, cell, at);
  const inputShape = model.valueBefore(input, cell, at).shape;
  if (v.kind !== 'ndarray' || v.dtype !== array.dtype || v.shape?.length !== array.ndim) {
    return false;
  }
  // (a known other shape would broadcast, `f[1:-1]` of 3 elements, or raise)
  if (v.shape.some((d, k) => d !== null && inputShape?.[k] != null && d !== inputShape[k])) {
    return false;
  }
  // memorySharers sees the notebook up to the cell: a binding in the cell itself before the loop
  // (`f = u`, `f = u.T`, `k = T[::-1]`, or `u = f`) may make the two one array, or a view of it
  // (then the kernel would read a buffer the steps write, or a snapshot of the first step)
  const boundHere = cell.facts!.assignments.some(
    a => a.at <= at && !a.augmented && (a.name === name || (a.name === input && (!a.value || readsName(a.value, name))))
  );
  if (boundHere) {
    return false;
  }
  const mine = memorySharers(name, cell, model);
  const theirs = memorySharers(input, cell, model);
  const holders = new Set(theirs.map(s => s.holder));
  return !mine.some(s => s.name === null || s.name === input || holders.has(s.holder)) && !theirs.some(s => s.name === name || s.holder === name);
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
 * read and written alternately give the same values.
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
  const only = onlyStatement(field(stmt, 'body'));
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
  const readable = (name: string): boolean => name !== left.text && readableBeside(name, array.text, input, model, cell, stmt.startIndex);
  const found = stencilExpression(expr, array.text, input.dtype, input.ndim, model, cell, left.text, readable);
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
    out: array.text,
    input: array.text,
    ...input,
    ...found,
    loop: { header: `for ${left.text} in ${right.text}:`, current, spare, grid, sizes, scalarArgs, readArgs }
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
    const loop = loopStencil(stmts[k], model, cell, freshName);
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
    const found = stencilExpression(expr, input.text, array.dtype, array.ndim, model, cell, null, null);
    if (found) {
      return { start: stmts[k].startIndex, end: stmts[k + 1].endIndex, expr, out: out.text, input: input.text, ...array, ...found, loop: null };
    }
  }
  return null;
}

/** Rows each thread of the 2-D kernel computes (measured on the H200: 4 to 16 within 2%). */
export const STENCIL_ROWS_PER_THREAD = 8;
/** Threads per block, all along the contiguous axis. */
export const STENCIL_BLOCK = 128;

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
 */
export function stencilCode(s: SliceStencil, fnName: string, deviceName: (name: string) => string, cp: string): { definition: string; call: string } {
  const inputText = deviceName(s.input);
  const ct = s.dtype === 'float32' ? 'float' : 'double';
  const kernelName = `${fnName}_kernel`;
  const R = STENCIL_ROWS_PER_THREAD;
  const B = STENCIL_BLOCK;
  // outside the interior: zero (a zeros_like output), or the input's own value (an in-place update)
  const border = (k: string): string => (s.loop ? `u[${k}]` : s.dtype === 'float32' ? '0.0f' : '0.0');
  const sign = (d: number, unit: string): string => (d < 0 ? ` - ${unit}` : d > 0 ? ` + ${unit}` : '');
  // reads at flat index k (border strips, 1-D)
  const atK: StencilTap = (di, dj, array) => `${array}[k${sign(di, 'm')}${sign(dj, '1')}]`;
  // reads in an interior strip: the input's centre column from the rotating registers; another
  // array the loop's step reads, at the same offsets from the strip's start (coalesced as well)
  const inStrip: StencilTap = (di, dj, array) => {
    if (array !== 'u') {
      return `${array}[k0 + o${sign(di, 'm')}${sign(dj, '1')}]`;
    }
    return dj === 0 ? (di < 0 ? 'up' : di > 0 ? 'down' : 'mid') : `p[o${sign(di, 'm')}${sign(dj, '1')}]`;
  };
  // the other arrays the loop's step reads, after the input
  const readParams = s.reads.map(r => `, const ${ct}* __restrict__ ${r.param}`).join('');
  // the scalar arguments after the sizes, each cast once to the array's type by the launcher
  const scalarParams = s.scalars.map(a => `, const ${ct} ${a.name}`).join('');
  const dt = `${cp}.${s.dtype}`;
  const scalarValues = s.scalars.map(a => `, ${dt}(${a.name})`).join('');
  const scalarNames = s.scalars.map(a => a.name);
  const kernel =
    s.ndim === 2
      ? [
          `extern "C" __global__ void __launch_bounds__(${B}) ${fnName}(const ${ct}* __restrict__ u${readParams}, ${ct}* __restrict__ out, int n, int m${scalarParams}) {`,
          '    // one thread per column j (x runs along the contiguous last axis: coalesced loads) and',
          `    // ${R} consecutive rows; the rows above and at i rotate through registers, so each output`,
          `    // loads 3 new values instead of 5. Every output element is written once, border included${s.loop ? ' (copied from u)' : ''}.`,
          `    const int j = blockIdx.x * ${B} + threadIdx.x;`,
          '    if (j >= m) return;',
          '    const bool edge = (j == 0) | (j == m - 1);',
          `    for (int s = blockIdx.y; (long long)s * ${R} < n; s += gridDim.y) {`,
          `        const int i0 = s * ${R}, i1 = min(i0 + ${R}, n);`,
          '        const ptrdiff_t k0 = (ptrdiff_t)i0 * m + j;',
          '        if (!edge && i0 >= 1 && i1 <= n - 1) {',
          '            // interior strip: fixed trip count, unrolled, so all its loads are in flight together',
          `            const ${ct}* p = u + k0;`,
          `            ${ct}* q = out + k0;`,
          `            ${ct} up = p[-(ptrdiff_t)m], mid = p[0];`,
          '#pragma unroll',
          `            for (int r = 0; r < ${R}; r++) {`,
          '                const ptrdiff_t o = (ptrdiff_t)r * m;',
          `                const ${ct} down = p[o + m];`,
          `                q[o] = ${s.render(inStrip)};`,
          '                up = mid;',
          '                mid = down;',
          '            }',
          '        } else {',
          '            // first or last row or column, or the last partial strip',
          '            for (int i = i0; i < i1; i++) {',
          '                const ptrdiff_t k = (ptrdiff_t)i * m + j;',
          `                out[k] = (!edge && i > 0 && i < n - 1) ? ${s.render(atK)} : ${border('k')};`,
          '            }',
          '        }',
          '    }',
          '}'
        ]
      : [
          `extern "C" __global__ void ${fnName}(const ${ct}* __restrict__ u${readParams}, ${ct}* __restrict__ out, long long n${scalarParams}) {`,
          '    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;',
          '    if (k >= n) return;',
          `    out[k] = (k > 0 && k < n - 1) ? ${s.render(atK)} : ${border('k')};`,
          '}'
        ];
  const launch = (out: string): string[] =>
    s.ndim === 2
      ? ['    n, m = u.shape', `    ${kernelName}(((m + ${B - 1}) // ${B}, min((n + ${R - 1}) // ${R}, 65535)), (${B},), (u, ${out}, ${cp}.int32(n), ${cp}.int32(m)${scalarValues}))`]
      : [`    ${kernelName}(((u.size + 255) // 256,), (256,), (u, ${out}, ${cp}.int64(u.size)${scalarValues}))`];
  // the scalar pieces, computed by the cell as written (Python's arithmetic, in double)
  const scalarTexts = s.scalars.map(a => `, ${a.text}`).join('');
  if (s.loop) {
    const { header, current, spare, grid, sizes, scalarArgs, readArgs } = s.loop;
    const stepArgs = [...sizes, ...scalarArgs];
    const readNames = s.reads.map(r => r.param);
    // Checked once: the loop's two buffers never change. Each step then costs one launch from
    // Python (~2 us), not a launcher call re-checking its arguments and building the int
    // arguments (~10-20 us, against 8-35 us of kernel for 2048^2-4096^2 grids).
    const definition = rawKernelWithLauncher(cp, fnName, kernel, ['u', ...readNames, 'out', ...scalarNames], [
      `    # checks the loop's two buffers once and returns what every step launches ${kernelName}`,
      ...(s.scalars.length > 0
        ? [
            `    # with: the grid, the sizes as the kernel's int arguments and ${scalarNames.join(', ')} as ${s.dtype} (a`,
            '    # step writes out from u, its border copied from u)'
          ]
        : ['    # with: the grid and the sizes as the kernel\'s int arguments (a step writes out from u,', '    # its border copied from u)']),
      `    if not (isinstance(u, ${cp}.ndarray) and isinstance(out, ${cp}.ndarray) and u.flags.c_contiguous and out.flags.c_contiguous):`,
      `        raise TypeError('${fnName} reads and writes C-contiguous CuPy arrays')`,
      `    if u.dtype != ${dt} or out.dtype != ${dt}:`,
      `        raise TypeError(f'${fnName} was generated for ${s.dtype} arrays (the dtype the analysis inferred), got {u.dtype} and {out.dtype}: rerun the analysis')`,
      `    if u.ndim != ${s.ndim}:`,
      `        raise TypeError(f'${fnName} was generated for ${s.ndim}-D arrays (the shape the analysis inferred), got {u.ndim}-D: rerun the analysis')`,
      '    if out.shape != u.shape or out is u:',
      `        raise ValueError('${fnName} writes a second array of the same shape')`,
      ...s.reads.flatMap(({ name, param: a }) => [
        `    # ${a}, read by every step at u's indices, is checked once too: same dtype and shape as u`,
        `    if not (isinstance(${a}, ${cp}.ndarray) and ${a}.flags.c_contiguous):`,
        `        raise TypeError('${fnName} reads ${name} as a C-contiguous CuPy array')`,
        `    if ${a}.dtype != ${dt}:`,
        `        raise TypeError(f'${fnName} was generated for ${s.dtype} arrays (the dtype the analysis inferred), got ${name} of {${a}.dtype}: rerun the analysis')`,
        `    if ${a}.shape != u.shape:`,
        `        raise ValueError(f'${fnName} reads ${name} at the indices of ${s.input}: it needs the shape {u.shape}, got {${a}.shape}')`
      ]),
      '    # an empty array still gets one block, which returns at once (CUDA refuses an empty grid)',
      ...(s.ndim === 2
        ? ['    n, m = u.shape', `    return (max(1, (m + ${B - 1}) // ${B}), max(1, min((n + ${R - 1}) // ${R}, 65535))), ${cp}.int32(n), ${cp}.int32(m)${scalarValues}`]
        : [`    return (max(1, (u.size + 255) // 256),), ${cp}.int64(u.size)${scalarValues}`])
    ]);
    const readInputs = readArgs.map(a => `, ${a}`).join('');
    const call = [
      `${current} = ${cp}.ascontiguousarray(${inputText})  # ${inputText} itself when it is C-contiguous`,
      `${spare} = ${cp}.empty_like(${current})`,
      ...s.reads.map((r, k) => `${readArgs[k]} = ${cp}.ascontiguousarray(${deviceName(r.name)})  # read by every step: ${deviceName(r.name)} itself when it is C-contiguous`),
      `${grid}, ${stepArgs.join(', ')} = ${fnName}(${current}${readInputs}, ${spare}${scalarTexts})  # checks ${s.reads.length > 0 ? `the buffers and ${s.reads.map(r => r.name).join(', ')}` : 'both buffers'} once`,
      header,
      `    ${kernelName}(${grid}, (${s.ndim === 2 ? B : 256},), (${current}${readInputs}, ${spare}, ${stepArgs.join(', ')}))  # one launch per step, from one buffer into the other`,
      `    ${current}, ${spare} = ${spare}, ${current}`,
      `if ${current} is not ${inputText}:`,
      `    ${inputText}[...] = ${current}  # an odd step count ends in the other buffer`,
      `del ${[current, spare, ...readArgs, grid, ...stepArgs].join(', ')}`
    ].join('\n');
    return { definition, call };
  }
  const [shape, ...launchLines] = launch('out');
  const definition = rawKernelWithLauncher(cp, fnName, kernel, ['u', ...scalarNames], [
    ...launcherInputChecks(s.dtype, fnName, cp, ['u'], s.ndim),
    ...(s.ndim === 2 ? [shape, `    out = ${cp}.empty((n, m), dtype=${dt})`] : [`    out = ${cp}.empty(u.shape, dtype=${dt})`]),
    '    if out.size == 0:',
    '        return out  # no grid to launch',
    ...(s.ndim === 2 ? launchLines : [shape]),
    '    return out'
  ]);
  return { definition, call: `${s.out} = ${fnName}(${inputText}${scalarTexts})` };
}
