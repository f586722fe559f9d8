/**
 * Elementwise-chain fusion: finds chains of elementwise operations on large arrays and turns
 * each into one GPU kernel, so the GPU reads the inputs once and writes the result once instead
 * of making one pass (and one temporary) per operator.
 *
 * Two forms, chosen per chain (references/cupy.md#fusion says why):
 * - `cp.ElementwiseKernel` with the known dtypes, when every input is a float32/float64 array
 *   (all the same dtype; bool masks beside them), a numeric constant or a piece of scalars
 *   (`dt * 0.3`: one argument, computed by the cell as Python computes it) and every operation
 *   has a C equivalent with NumPy's meaning (+ - * /, unary -, `**`, sqrt/exp/log/trig..., round
 *   to whole numbers as rint, `np.where` as `?:` of a comparison or mask: cExpression). Its compiled kernel is
 *   memoized by source across kernel objects (`_get_elementwise_kernel` in CuPy's
 *   `_kernel.pyx`), so re-running the cell costs a dictionary lookup, not a re-trace. Compiled
 *   with `options=('--fmad=false',)`: NVRTC's default contracts `a * b + c` into one FMA.
 * - `@cp.fuse()` otherwise (comparisons, integer division, reductions, unknown dtypes): CuPy
 *   traces the function once per `Fusion` object, so the notebook plan defines it once, in the
 *   import cell.
 *
 * A chain whose result NumPy writes into an existing array (`x *= chain`, a ufunc's `out=u`)
 * gets, where that is NumPy's result, one typed kernel writing that array (writesInPlace).
 *
 * A chain is an expression tree of arithmetic operators, comparisons and elementwise ufuncs
 * (optionally ending in one full reduction CuPy can fuse: sum, prod, max, min) with at least
 * three array operations (a piece of scalars only, `dt * 0.3`, is no array operation). Anything
 * else inside it (a slice `u[1:-1]`, a method call, a scalar or a piece of scalars, any operation
 * that reads no array the analysis knows of: `dt * steps`, `np.sqrt(dt)`) is evaluated outside
 * and passed in as an argument.
 */
import { ELEMENTWISE_UFUNCS, FUSABLE_REDUCTIONS } from '../../apis/cupy';
import { applyEdits } from '../../edits';
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, isValueIdentifier, kids, operatorOf, unparen, walk, walkTypes } from '../../syntax';
import type { TextEdit } from '../../types';
import { ValueInfo } from '../../values';
import { memorySharers } from './aliases';
import { cFloorOp, floorOperator, floorUfunc, npyDivmodPreamble, usesNpyDivmod } from './float-remainder';
import { reductionDefinition, ReductionKernelSpec, TYPED_REDUCTIONS } from './reduction-kernel';

/** Ufuncs known to work inside `cupy.fuse` (checked on cupy 14.2). */
const FUSABLE_UFUNCS: ReadonlySet<string> = new Set(
  [...ELEMENTWISE_UFUNCS].filter(n => !['clip', 'angle', 'real', 'imag', 'conj', 'conjugate', 'heaviside', 'fix'].includes(n))
);
const FUSABLE_BINARY = new Set(['+', '-', '*', '/', '//', '%', '**', '<', '>', '<=', '>=', '==', '!=', '&', '|', '^']);

export interface ElementwiseChain {
  /** The expression replaced by a call of the fused function. */
  node: SyntaxNode;
  /** The name the chain is assigned to (for naming the function), if any. */
  target: string | null;
  /** Operations inside (each was one pass and one launch). */
  ops: number;
  transcendental: number;
  /** Ends in a full reduction (`sum`, `count_nonzero`, `max`...: the result is one value). */
  reduction: string | null;
  /** The reduced expression (`x * x + y * y <= 1.0` of `np.count_nonzero(...)`) and the form. */
  reduced: { node: SyntaxNode; method: boolean } | null;
  /**
   * Sub-expressions evaluated outside and passed in, in order: arrays, views, and the pieces made
   * of scalars only (`dt`, `dt * 0.5`: scalarPiece), which the cell computes as written.
   */
  params: { node: SyntaxNode; name: string }[];
  /** The value of the chain (for sizes; for a reduction, of the reduced expression). */
  value: ValueInfo;
  /** The chain as a typed `cp.ElementwiseKernel`, when it translates to C with NumPy's meaning. */
  kernel: ElementwiseKernelSpec | null;
  /** A full reduction over the chain as one typed kernel (reduction-kernel.ts), when it translates. */
  reduce: ReductionKernelSpec | null;
  /**
   * Why the chain has no typed kernel when a scalar alone decides it (a NumPy float64 scalar
   * with float32 arrays, a scalar that may be a NumPy one), for the suggestion's notes.
   */
  untyped?: string;
  /**
   * The params (source texts) the typed kernel (`kernel`, `reduce`) writes as C literals, NumPy
   * scalars of numbers (`np.float32(0.5)` -> `0.5f`: numpyScalarLiteral): its call passes them
   * no argument. Absent where there are none, or no typed kernel (a `@cp.fuse()` function takes
   * every param).
   */
  inlined?: ReadonlySet<string>;
  /**
   * The existing array the chain's typed kernel writes, where NumPy writes one (writesInPlace):
   * `x *= chain` (`op` `*`: the kernel reads `x` as an input too and writes `x * (chain)` into it)
   * or a ufunc's `out=u` (`op` null). `replaced` is the code the kernel's call replaces (the whole
   * statement, the whole call). Absent: the kernel returns a new array.
   */
  writes?: WrittenArray;
  /**
   * The kernel's output parameter's name where the target's would mislead: the chain of
   * `x *= x_kernel(y)` computes the `factor`, not `x` (augmentedOutput).
   */
  output?: string;
  /**
   * The chain rounds with the ndarray method (`(d / L).round()`: roundedOperand), which only its
   * typed kernel computes (CuPy's fusion traces no such method).
   */
  methodRound?: boolean;
}

/** ElementwiseChain's `writes`. */
export interface WrittenArray {
  array: SyntaxNode;
  op: string | null;
  replaced: SyntaxNode;
  /**
   * The params that are elements of the written array itself (`x[0]` of `x *= ... * x[0]`):
   * copied on the device before the kernel runs (`x[0].copy()` as its argument), as NumPy reads
   * them while computing the right-hand side, before it writes `x` (inputsApart).
   */
  copied?: Set<string>;
}

/** A chain written as one typed CuPy ElementwiseKernel. */
export interface ElementwiseKernelSpec {
  /** `float32 x, float32 z` (one C name per chain param, same order). */
  inParams: string;
  /** `float32 y` */
  outParams: string;
  /** `y = sqrt(x * x + z * z) * exp(-x)` */
  operation: string;
}

/** The C functions a kernel's operation calls that CUDA lacks: NumPy's float % and // (float-remainder.ts). */
function kernelPreamble(k: ElementwiseKernelSpec): string {
  return usesNpyDivmod(k.operation) ? `\n    preamble='''\n${npyDivmodPreamble(k.operation)}''',` : '';
}

/**
 * Does a generated kernel for the full reduction `chain` pay, against CuPy's own calls? Its
 * launcher copies every input that is not C-contiguous whole first (a RawKernel indexes its
 * inputs flat), and it is compiled for the cell: run once over such a view
 * (`np.sqrt(np.mean((est[:, :, :2] - truth[:, :, :2]) ** 2))`, l_kalman's RMSE), the copies read
 * and write what CuPy's calls read where it lies (their elementwise kernels and reductions take
 * strided arrays), for a kernel that runs once. So the chain stays CuPy's calls
 * (`cp.sqrt(cp.mean((a - b) ** 2))`) unless its inputs are whole arrays or contiguous parts
 * (`stridedView`), or a loop (or a comprehension, or a function) runs it more than once.
 */
export function reductionKernelPays(chain: ElementwiseChain, model: NotebookModel, cell: CellModel): boolean {
  return !chain.reduction || repeatsInCell(chain.node) || !chain.params.some(p => stridedView(p.node, model, cell));
}

/** Does `node` lie in a loop, a comprehension or a function body (code that may run more than once per run of its cell)? */
function repeatsInCell(node: SyntaxNode): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (/^(for_statement|while_statement|function_definition|lambda|list_comprehension|set_comprehension|dictionary_comprehension|generator_expression)$/.test(p.type)) {
      return true;
    }
  }
  return false;
}

/**
 * Is `e` a view of an array that may not be C-contiguous: `a.T` (2-D or more), or a basic index
 * that leaves a partial or stepped slice before a later axis, or indexes with `...` or `None`
 * (`x[:, :2]`, `u[::2]`, `v[1:-1, 1:-1]`); not `x[3]`, `x[2:]`, `a[i, :]`, `a[1:5]` of any
 * dimensions (what follows the first partial slice is whole: contiguous), nor a whole array.
 */
export function stridedView(e: SyntaxNode, model: NotebookModel, cell: CellModel, depth = 0): boolean {
  const n = unparen(e);
  if (n.type === 'identifier') {
    // a view bound to a name (`v = a[:, ::2]` ... `v.sum()`): what it was bound to, in this cell
    // or the last cell that bound it (one binding at its top level there)
    const bound = viewBinding(n, model, cell);
    return depth < 4 && bound !== null && stridedView(bound.value, model, bound.cell, depth + 1);
  }
  if (n.type === 'attribute') {
    const v = field(n, 'object');
    return field(n, 'attribute')?.text === 'T' && !!v && (model.inferValue(v, cell).shape?.length ?? 2) >= 2;
  }
  const base = n.type === 'subscript' ? field(n, 'value') : null;
  if (!base || model.inferValue(base, cell).kind !== 'ndarray') {
    return false;
  }
  let index = kids(n).filter(k => k.id !== base.id && k.type !== 'comment');
  if (index.length === 1 && index[0].type === 'tuple') {
    index = kids(index[0]).filter(k => k.type !== 'comment');
  }
  if (index.some(k => k.type === 'ellipsis' || k.type === 'none')) {
    return true;
  }
  const full = (k: SyntaxNode): boolean => k.type === 'slice' && /^:{1,2}$/.test(k.text.replace(/\s+/g, ''));
  const stepped = (k: SyntaxNode): boolean => {
    const step = k.type === 'slice' ? k.text.split(':')[2]?.trim() : undefined;
    return step !== undefined && step !== '' && step !== '1';
  };
  // leading integers pick one block; then one slice (partial, unstepped) over whole axes only
  const first = index.findIndex(k => k.type === 'slice');
  if (first < 0) {
    return false; // integers (or an advanced index, which copies: contiguous)
  }
  return stepped(index[first]) || index.slice(first + 1).some(k => !full(k));
}

/**
 * The expression module-level name `ref` (read in `cell`) was last bound to, and the cell that
 * bound it: the cell's own top-level binding before `ref`, or, with none there, the binding of the
 * last earlier cell that bound it, where that cell binds it once, at its top level. Null when the
 * binding is not one plain assignment (a loop, a branch, an unpacking, an augmented assignment).
 */
function viewBinding(ref: SyntaxNode, model: NotebookModel, cell: CellModel): { value: SyntaxNode; cell: CellModel } | null {
  const here = cell.facts?.assignments.filter(a => a.name === ref.text && a.at <= ref.startIndex) ?? [];
  const from = here.length > 0 ? cell : model.lastWriterBefore(ref.text, cell);
  const bindings = here.length > 0 ? here : from?.facts?.assignments.filter(a => a.name === ref.text) ?? [];
  const last = here.length > 0 ? bindings[bindings.length - 1] : bindings.length === 1 ? bindings[0] : undefined;
  return from && last && last.value && !last.nested && !last.augmented ? { value: last.value, cell: from } : null;
}

/** Finds fusable chains in the cell (outermost only, assignment right-hand sides and returns). */
export function findElementwiseChains(root: SyntaxNode, model: NotebookModel, cell: CellModel, resolveUfunc: (n: SyntaxNode) => string | null): ElementwiseChain[] {
  const chains: ElementwiseChain[] = [];
  // only these nodes can start a chain (or hide one: a function's or lambda's body); the walk
  // searches through the others without making node objects for them
  walkTypes(root, CHAIN_STARTS, n => {
    const type = n.type;
    if (type === 'function_definition' || type === 'lambda') {
      return false;
    }
    // below three operations from the syntax alone (opsBound), there is no chain: the values
    // analyseChain infers are not asked for
    let expr: SyntaxNode | null;
    let target: string | null;
    // the array NumPy writes the result into, where one kernel can write it (writesInPlace)
    let writes: WrittenArray | null = null;
    const out = type === 'call' ? outArgument(n, resolveUfunc) : null;
    if (out) {
      // `np.multiply(np.sin(a), np.cos(a), out=u)`: the ufunc and its arguments
      if (opsBound(n, true, resolveUfunc) < 3) {
        return true;
      }
      expr = n;
      target = out.text;
      writes = { array: out, op: null, replaced: n };
    } else if (type === 'call') {
      // a reduction inside a larger expression: `4.0 * np.count_nonzero(x * x + y * y <= 1.0) / n`
      // (a reduction form counts one operation and its argument's: opsBound; the syntax is asked
      // first, since whether `(e).sum()` reduces an array infers `e`)
      const form = reductionForm(n, resolveUfunc);
      if (!form || 1 + opsBound(form.arg, false, resolveUfunc) < 3 || !reducesArray(form, model, cell)) {
        return true;
      }
      expr = n;
      target = assignedName(n);
    } else {
      // an assignment's or an augmented assignment's right-hand side (a ufunc's call with `out=u`
      // is its own start, below: `v = np.add(a, b, out=u)` binds u, which the kernel writes)
      expr = field(n, 'right');
      if (!expr || (unparen(expr).type === 'call' && outArgument(unparen(expr), resolveUfunc)) || opsBound(expr, true, resolveUfunc) < 3) {
        return true;
      }
      const left = field(n, 'left');
      target = type === 'augmented_assignment' ? left?.text ?? null : left?.type === 'identifier' ? left.text : left?.type === 'subscript' ? field(left, 'value')?.text ?? null : null;
      const op = type === 'augmented_assignment' && left?.type === 'identifier' ? IN_PLACE_OPERATORS.get(operatorOf(n)) : undefined;
      if (left && op) {
        writes = { array: left, op, replaced: n };
      }
    }
    // a chain rounding with `x.round()` that gets no typed kernel is analysed again with the
    // method evaluated outside it: CuPy's fusion traces no such method (analyseChain)
    for (const methods of [true, false]) {
      const chain = analyseChain(expr, target, model, cell, resolveUfunc, methods);
      if (!chain || chain.ops < 3) {
        return true;
      }
      if (writes && writesInPlace(chain, writes, model, cell, resolveUfunc)) {
        chains.push(chain);
        return false;
      }
      if (out) {
        // no one kernel writing `u`: the call stays as written (CuPy's ufunc with out=), and
        // chains inside its arguments are still looked for
        return true;
      }
      if (type === 'augmented_assignment') {
        chain.output = augmentedOutput(operatorOf(n));
      }
      // the chain's own object is completed, not copied with object spreads (in Node 20 a copy by
      // spread cost about ten times building the object once, measured)
      const { kernel, reduce, untyped, inlined } = typedKernels(chain, model, cell, resolveUfunc);
      if (!kernel && !reduce && chain.methodRound) {
        continue;
      }
      if (!kernel && !reduce && weakScalarClash(chain, model, cell, resolveUfunc)) {
        // a `@cp.fuse()` function would not give NumPy's dtype: the chain stays op by op
        return false;
      }
      chain.kernel = kernel;
      chain.reduce = reduce;
      if (untyped) {
        chain.untyped = untyped;
      }
      if (inlined) {
        chain.inlined = inlined;
      }
      chains.push(chain);
      return false;
    }
    return true;
  });
  return chains;
}

/**
 * What the right-hand side of `x op= chain` is, to name the two-step form's kernel output after
 * it (`x *= x_kernel(y)`: the kernel computes a `factor`; named `x`, it would read as the update).
 */
function augmentedOutput(op: string): string {
  return { '+=': 'term', '-=': 'term', '*=': 'factor', '/=': 'divisor', '//=': 'divisor', '**=': 'exponent' }[op] ?? 'rhs';
}

/**
 * Consecutive top-level statements of a cell whose chains become ONE typed ElementwiseKernel:
 * `y = np.sqrt(x * x + z * z)` then `w = np.exp(-y) * 2` read `x` and `z` once and write `w` (and
 * `y`, where anything reads it after them) in one pass, where one kernel per statement writes `y`
 * and reads it back. A target read after the group (by a later statement of the cell, its
 * displayed value, a later cell) is a kernel output bound to its name; one only the group's later
 * statements read is a C local of the kernel's dtype (a `float` for float32 arrays: the value
 * NumPy stores, rounded as NumPy rounds it), never written to memory. groupChains says which
 * statements qualify.
 */
export interface ChainGroup {
  /** The members' chains, in statement order: each one statement's whole right-hand side. */
  chains: ElementwiseChain[];
  /** The members' statements (the cell's top-level `expression_statement`s), in order. */
  statements: SyntaxNode[];
  /** Every member's params but the group's own targets, each once. */
  params: { node: SyntaxNode; name: string }[];
  /** The params the kernel writes as C literals, not its inputs (as ElementwiseChain.inlined). */
  inlined?: ReadonlySet<string>;
  /** The source texts of the inputs that are arrays (the others are scalars). */
  arrays: string[];
  /**
   * The kernel's outputs, in statement order: a target read after the group (its last binding,
   * where the group binds it again: `R = f(x)`, `R = g(R)` write `R` once), the last one, or
   * the array a ufunc's `out=u` writes in place (`written`: passed to the kernel, which then
   * needs every output passed: the others are allocated with `empty`, of their `dtype`: the
   * group's, or bool for a mask).
   */
  outputs: { name: string; written: SyntaxNode | null; dtype: 'float32' | 'float64' | 'bool' }[];
  /**
   * Targets kept in the kernel's registers: only later members read them (every binding of a
   * name the group binds again; a name whose last binding is an output is not one of them).
   */
  locals: string[];
  kernel: ElementwiseKernelSpec;
  dtype: 'float32' | 'float64';
  /** Operations of all members (each was one pass and one launch). */
  ops: number;
}

/** One statement that may join a ChainGroup: its chain has a typed ElementwiseKernel. */
interface GroupMember {
  statement: SyntaxNode;
  chain: ElementwiseChain;
  /** The name the statement binds, or the array its ufunc writes (`out=u`). */
  target: string;
  written: SyntaxNode | null;
  /** The float dtype the member computes in: its value's, or a mask's inputs' (`mask`). */
  dtype: 'float32' | 'float64';
  /**
   * The member computes a bool array from arrays of `dtype` (`m = (r2 < 6.25) & (r2 > 1e-12)`,
   * which later members read in `np.where(m, ...)`): a `bool` local or output of the kernel.
   */
  mask: boolean;
  shape: string;
  /**
   * The member reads its own target (`R = np.log1p(R) * np.exp(-R / 50.0)`): it joins only a
   * run whose earlier member binds that target (the value it reads is then that member's), and
   * never starts one (it would read a value from before the group).
   */
  rebinds: boolean;
}

/**
 * The groups of consecutive top-level statements of the cell whose chains become one kernel
 * (ChainGroup). A statement qualifies when it is `name = <chain>` (a plain name, one `=`) or a
 * ufunc's call with `out=u` on its own (not the cell's displayed last line), its chain (one of
 * `chains`, or a shorter one: a member needs no three operations of its own) gets a typed
 * ElementwiseKernel and reduces nothing, and nothing else in the statement is a chain. It joins
 * the statements before it when it reads one of their targets (as a plain name: `y[0]` or `y.T`
 * would be computed before the kernel runs), with the same float dtype and the same known shape
 * (no broadcasting between members), and when the names cannot mix old and new values: its
 * target is read by no member before it is bound (`y = f(x); x = g(y)`: the first reads the old
 * `x`), or it rebinds the target of an earlier member, `R = f(x)` then `R = g(R)`: a plain
 * `name = chain` (no array written in place, either binding), the binding it replaces read by
 * the members after that one, it included, and by nothing else (no statement comes between
 * members: nothing outside reads it). Each binding is a register of its own, the members after
 * it read it up to the next binding, and only the last one may be an output. A statement reading
 * its own target never starts a group (`x = x * 2 + 1` reads the `x` from before: no input of
 * the kernel is a name it binds). Only straight-line code: statements under `if`, `for`, `with`
 * are never members. A group needs two members and three operations
 * in all (the threshold of one chain); chainGroup makes the last checks and the kernel.
 */
export function groupChains(root: SyntaxNode, chains: readonly ElementwiseChain[], model: NotebookModel, cell: CellModel, resolveUfunc: (n: SyntaxNode) => string | null): ChainGroup[] {
  const statements = kids(root).filter(k => k.type !== 'comment');
  const last = statements[statements.length - 1];
  // from the syntax alone first: a statement next to no other possible member is not analysed
  const forms = statements.map(s => memberForm(s, s.id === last.id, resolveUfunc));
  const groups: ChainGroup[] = [];
  let run: GroupMember[] = [];
  const close = (): void => {
    const group = run.length >= 2 ? chainGroup(run, root, model, cell, resolveUfunc) : null;
    if (group) {
      groups.push(group);
    }
    run = [];
  };
  statements.forEach((statement, k) => {
    const form = forms[k];
    const member = form && (forms[k - 1] || forms[k + 1]) ? groupMember(statement, form, chains, model, cell, resolveUfunc) : null;
    if (!member) {
      close();
      return;
    }
    if (run.length > 0 && !joins(run, member, model, cell)) {
      close();
    }
    if (member.rebinds && run.length === 0) {
      // `R = g(R)` reads the R bound before it: an input of no kernel here
      return;
    }
    run.push(member);
  });
  close();
  return groups;
}

/** What a statement that may be a group member computes (memberForm). */
interface MemberForm {
  /** The chain's expression: the right-hand side, or the ufunc's call. */
  expr: SyntaxNode;
  target: string;
  /** The `u` of a ufunc's `out=u`. */
  written: SyntaxNode | null;
}

/**
 * A statement's MemberForm from its syntax alone: `name = <operations>` (one plain name, one
 * `=`, no annotation; not `v = np.add(a, b, out=u)`, which binds `v` to `u`), or a fusable ufunc's
 * call with `out=u` on its own, except as the cell's displayed last line (NumPy shows `u` there,
 * which the group's call would not). Else null.
 */
function memberForm(statement: SyntaxNode, displayed: boolean, resolveUfunc: (n: SyntaxNode) => string | null): MemberForm | null {
  const inner = statement.type === 'expression_statement' && statement.namedChildCount === 1 ? statement.namedChild(0) : null;
  if (inner?.type === 'assignment') {
    const left = field(inner, 'left');
    const right = field(inner, 'right');
    if (left?.type !== 'identifier' || !right || right.type === 'assignment' || field(inner, 'type') || (unparen(right).type === 'call' && outArgument(unparen(right), resolveUfunc))) {
      return null;
    }
    return opsBound(right, true, resolveUfunc) > 0 ? { expr: right, target: left.text, written: null } : null;
  }
  const out = inner?.type === 'call' && !displayed ? outArgument(inner, resolveUfunc) : null;
  return inner && out ? { expr: inner, target: out.text, written: out } : null;
}

/**
 * The statement as a GroupMember (groupChains says when), or null. Its chain is the one of
 * `chains` that is its whole expression (no other chain may be inside it), or else a shorter
 * one, analysed here.
 */
function groupMember(
  statement: SyntaxNode,
  form: MemberForm,
  chains: readonly ElementwiseChain[],
  model: NotebookModel,
  cell: CellModel,
  resolveUfunc: (n: SyntaxNode) => string | null
): GroupMember | null {
  const { expr, target, written } = form;
  const found = chains.filter(c => c.node.startIndex >= statement.startIndex && c.node.endIndex <= statement.endIndex);
  let chain: ElementwiseChain | null = null;
  if (found.length > 0) {
    chain = found.length === 1 && (written ? found[0].writes?.replaced.id : found[0].node.id) === expr.id ? found[0] : null;
  } else {
    chain = analyseChain(expr, target, model, cell, resolveUfunc);
    if (chain && written) {
      // NumPy writes `u` in place: the kernel writes it as its output argument
      chain = writesInPlace(chain, { array: written, op: null, replaced: expr }, model, cell, resolveUfunc) ? chain : null;
    } else if (chain) {
      Object.assign(chain, typedKernels(chain, model, cell, resolveUfunc));
    }
  }
  // a mask (no float kernel of its own: its value is bool) is a member of its inputs' dtype
  const mask = chain && !chain.kernel && !written ? maskDtype(chain, model, cell, resolveUfunc) : null;
  const dtype = mask ?? (chain?.value.kind === 'ndarray' ? floatCType(chain.value.dtype) : null);
  const shape = chain?.value.shape;
  if (!chain || !(chain.kernel || mask) || chain.reduction || chain.writes?.op || chain.ops === 0 || !dtype || !shape || shape.some(d => d === null)) {
    return null;
  }
  const ownReads = chain.params.filter(p => namesIn(p.node).has(target));
  if (ownReads.length > 0 && (written || ownReads.some(p => p.node.type !== 'identifier'))) {
    // its own target's old value written in place (`np.sin(u, out=u)`) or read other than by its
    // plain name (`R = R * R[0] + 1`: `R[0]` is computed before the kernel runs): kept out
    return null;
  }
  if (written) {
    // the kernel writes the whole of `u`: NumPy broadcasts the chain's value into it
    const u = model.inferValue(written, cell);
    if (u.shape?.join(',') !== shape.join(',')) {
      return null;
    }
  }
  return { statement, chain, target, written, dtype, mask: mask !== null, shape: shape.join(','), rebinds: ownReads.length > 0 };
}

/**
 * The float dtype of a chain's inputs where the chain computes a bool array from them in C with
 * NumPy's meaning (comparisons and logical operations: cExpression), or null. Such a chain keeps
 * its `@cp.fuse()` form alone; as a group member it is a `bool` of the group's kernel.
 */
function maskDtype(chain: ElementwiseChain, model: NotebookModel, cell: CellModel, resolveUfunc: (n: SyntaxNode) => string | null): 'float32' | 'float64' | null {
  if (chain.value.kind !== 'ndarray' || chain.value.dtype !== 'bool' || chain.reduction) {
    return null;
  }
  const t = typedParams(chain, model, cell);
  return t && !t.refused && cExpression(chain.node, t, model, resolveUfunc, 'bool') !== null ? t.dtype : null;
}

/** The names a node reads (every identifier in it). */
function namesIn(node: SyntaxNode): Set<string> {
  const names = new Set<string>();
  walk(node, n => {
    if (n.type === 'identifier') {
      names.add(n.text);
    }
    return true;
  });
  return names;
}

/** Whether a function or lambda `cell` defines reads the global `name`. */
function readInFunction(cell: CellModel, name: string): boolean {
  const root = cell.tree?.rootNode;
  let found = false;
  if (root) {
    walkTypes(root, ['function_definition', 'lambda', 'class_definition'], n => {
      found ||= namesIn(n).has(name);
      return false;
    });
  }
  return found;
}

/**
 * Whether `member` joins the group `run` (groupChains says when). Its params are computed before
 * the kernel runs, so before the members ahead of it: a call in one may read what those members
 * bind (`peak()` reading the global `y`) and keeps it out, unless it is NumPy's or a method of
 * an array or a generator (`rng.random(n)`), which read only their arguments.
 */
function joins(run: readonly GroupMember[], member: GroupMember, model: NotebookModel, cell: CellModel): boolean {
  const first = run[0];
  if (member.dtype !== first.dtype || member.shape !== first.shape) {
    return false;
  }
  const targets = new Set(run.map(m => m.target));
  // the member that binds the target before it: `R = f(x)` before `R = g(R)`
  const previous = run.filter(m => m.target === member.target).pop();
  if (previous ? member.written || previous.written : member.rebinds) {
    // an array written in place stays that array (a view of it may be read elsewhere), and a
    // member reading its own target reads the binding an earlier member makes, or none joins
    return false;
  }
  let readsTarget = false;
  for (const p of member.chain.params) {
    let foreignCall = false;
    walkTypes(p.node, ['call'], n => {
      const fn = field(n, 'function');
      const owner = fn?.type === 'attribute' ? field(fn, 'object') : null;
      const kind = owner ? model.inferValue(owner, cell).kind : null;
      foreignCall ||= !fn || !(model.qualifiedName(fn)?.startsWith('numpy.') || kind === 'ndarray' || kind === 'rng');
      return !foreignCall;
    });
    if (foreignCall) {
      return false;
    }
    const names = namesIn(p.node);
    if (p.node.type === 'identifier' && targets.has(p.node.text)) {
      readsTarget = true;
    } else if ([...names].some(n => targets.has(n))) {
      return false; // `y[0]`, `y.T`: computed before the kernel runs, from the old `y`
    }
  }
  if (previous) {
    // it rebinds a target: the binding it replaces is read by the members after that one (it
    // included) and nowhere else, being dead after it (no statement comes between members);
    // one read by none is not computed for nothing
    const readers = [...run.slice(run.indexOf(previous) + 1), member];
    return readsTarget && readers.some(m => m.chain.params.some(p => p.node.type === 'identifier' && p.node.text === member.target));
  }
  // no member before it read the old value of its target
  return readsTarget && run.every(m => m.chain.params.every(p => !namesIn(p.node).has(member.target)));
}

/**
 * The run's ChainGroup with its kernel, or null: under three operations in all; an array the
 * group writes in place (`out=u`) that an input or another such array may share memory with
 * (inputsApart: one thread's write would change what another thread reads, where NumPy wrote `u`
 * whole first); or no typed kernel of the whole (the inputs of one float dtype, every scalar
 * cast as NumPy casts it: typedParams).
 */
function chainGroup(run: readonly GroupMember[], root: SyntaxNode, model: NotebookModel, cell: CellModel, resolveUfunc: (n: SyntaxNode) => string | null): ChainGroup | null {
  const ops = run.reduce((n, m) => n + m.chain.ops, 0);
  if (ops < 3) {
    return null;
  }
  const targets = new Set(run.map(m => m.target));
  const params: { node: SyntaxNode; name: string }[] = [];
  for (const m of run) {
    for (const p of m.chain.params) {
      if ((p.node.type === 'identifier' && targets.has(p.node.text)) || params.some(q => q.node.text === p.node.text)) {
        continue;
      }
      // a piece's `arg<k>` is the k-th param of its own chain: numbered again across the group
      params.push({ node: p.node, name: /^arg\d+$/.test(p.name) ? `arg${params.length}` : p.name });
    }
  }
  // every array written in place apart from every input and from each other (two `out=` views
  // of one buffer would race where NumPy writes one, then the other)
  const written = run.flatMap(m => (m.written ? [m.written] : []));
  for (const u of written) {
    const others = [...params, ...written.filter(w => w.id !== u.id).map(w => ({ node: w, name: w.text }))];
    if (!inputsApart({ array: u, op: null, replaced: u }, others, model, cell)) {
      return null;
    }
  }
  const t = typedParams({ params }, model, cell);
  const dtype = run[0].dtype;
  if (!t || t.refused || t.dtype !== dtype) {
    return null;
  }
  // read after the group: by a later cell (the notebook model), by a function an earlier cell
  // defines (called later), or anywhere else in this cell (after it, its displayed value, a
  // function it defines)
  const spans = run.map(m => m.statement);
  const readElsewhere = (name: string): boolean => {
    if (model.readersAfter(name, cell).length > 0 || model.readers(name).some(c => c.index < cell.index && readInFunction(c, name))) {
      return true;
    }
    let found = false;
    walk(root, n => {
      if (found || spans.some(s => n.startIndex >= s.startIndex && n.endIndex <= s.endIndex)) {
        return false;
      }
      found = n.type === 'identifier' && n.text === name && isValueIdentifier(n); // not `obj.y`, `f(y=...)`
      return !found;
    });
    return found;
  };
  const outputs: ChainGroup['outputs'] = [];
  const outParams: string[] = [];
  const locals: string[] = [];
  const lines: string[] = [];
  for (const [k, m] of run.entries()) {
    const expr = cExpression(m.chain.node, t, model, resolveUfunc, m.mask ? 'bool' : 'float');
    if (expr === null) {
      return null;
    }
    const value = withoutOuterParentheses(expr);
    const ctype = m.mask ? 'bool' : dtype === 'float32' ? 'float' : 'double';
    // a later member rebinding the target: this binding is read up to that member (it included),
    // never after the group (a register of its own, `R_`, and the output the last binding's)
    const next = run.findIndex((later, j) => j > k && later.target === m.target);
    const readers = run.slice(k + 1, next < 0 ? run.length : next + 1);
    const readLater = readers.some(later => later.chain.params.some(p => p.node.type === 'identifier' && p.node.text === m.target));
    // (the C name later members read the target by)
    let read: string | null = null;
    if (next >= 0) {
      read = cName(`${m.target}_`, t.taken);
      lines.push(`const ${ctype} ${read} = ${value}`);
    } else if (m.written || !readLater || readElsewhere(m.target)) {
      const out = cName(m.target, t.taken);
      outputs.push({ name: m.target, written: m.written, dtype: m.mask ? 'bool' : dtype });
      outParams.push(`${m.mask ? 'bool' : dtype} ${out}`);
      if (readLater) {
        // later members read the register, not the output element just stored
        read = cName(`${m.target}_`, t.taken);
        lines.push(`const ${ctype} ${read} = ${value}`, `${out} = ${read}`);
      } else {
        lines.push(`${out} = ${value}`);
      }
    } else {
      read = cName(m.target, t.taken);
      locals.push(m.target);
      lines.push(`const ${ctype} ${read} = ${value}`);
    }
    if (read) {
      t.cNames.set(m.target, read);
      if (m.mask) {
        t.bools.add(read);
      }
    }
  }
  const kernel = { inParams: kernelParams(t).map(p => `${p.dtype ?? dtype} ${p.name}`).join(', '), outParams: outParams.join(', '), operation: lines.join('; ') };
  const arrays = params.filter((_, k) => t.decls[k].array).map(p => p.node.text);
  const inlined = inlinedTexts(params, t);
  return { chains: run.map(m => m.chain), statements: spans, params, arrays, outputs, locals, kernel, dtype, ops, ...(inlined ? { inlined } : {}) };
}

/** Where a chain can start: see findElementwiseChains. */
const CHAIN_STARTS = ['function_definition', 'lambda', 'call', 'assignment', 'augmented_assignment'];

/**
 * The augmented assignments whose in-place update a typed kernel computes with NumPy's meaning
 * (`x op= r` is `np.<ufunc>(x, r, out=x)`), by their C operator (`**` is pow, as in the chain).
 * `//=`, `%=` and the bit operators have no C form here (as in the chain).
 */
const IN_PLACE_OPERATORS: ReadonlyMap<string, string> = new Map([
  ['+=', '+'], ['-=', '-'], ['*=', '*'], ['/=', '/'], ['**=', '**']
]);

/**
 * The `u` of a fusable ufunc's call whose only keyword is `out=u` (a plain name: not a tuple, not
 * a view), or null.
 */
function outArgument(n: SyntaxNode, resolveUfunc: (n: SyntaxNode) => string | null): SyntaxNode | null {
  const fn = field(n, 'function');
  const { keywords } = callArguments(n);
  const out = keywords.get('out');
  if (!fn || !out || keywords.size !== 1 || unparen(out).type !== 'identifier') {
    return null;
  }
  const ufunc = resolveUfunc(fn);
  return ufunc && FUSABLE_UFUNCS.has(ufunc) ? unparen(out) : null;
}

/**
 * Makes the chain one typed kernel that writes `writes.array` itself, where that gives NumPy's
 * result: `x *= chain` is NumPy's `np.multiply(x, chain, out=x)`, which computes the chain into a
 * temporary and then makes a second pass over `x`; one kernel reading `x` with the chain's inputs
 * and writing `x * (chain)` into `x` reads and writes each element once. Likewise a ufunc's
 * `out=u` (no temporary per operation; the kernel writes `u`). Only where:
 * - the chain gets a typed ElementwiseKernel (no reduction), with `x` among its inputs as one
 *   more array of the chain's float dtype: NumPy rounds the chain's value to that dtype, then
 *   computes `x op value` in it, which the kernel's `x op (chain)` does too (--fmad=false: no
 *   contraction across the two). Or `x` of the other float dtype where the chain does not read
 *   it (`float32 x *= float64 chain`): NumPy computes the chain in its dtype, the update in
 *   float64 (the float32 operand widened exactly) and casts the result into `x` (same_kind), and
 *   so does the kernel: C widens the float operand of `x op (chain)` to double, and the store
 *   into a float32 `x` rounds to nearest as NumPy's cast does (a chain reading `x` would compute
 *   with `x` widened: no typed kernel, which takes one dtype);
 * - `u` of `out=u` has the chain's float dtype (no cast of the result);
 * - no other input may share memory with the written array (inputsApart): an ElementwiseKernel,
 *   unlike CuPy's ufuncs, does not copy an input that overlaps its output, and a thread writing
 *   `x[i]` would change what another thread reads. The written array read as an input itself is
 *   fine: each thread reads its element before it writes it. An element of `x` the chain reads
 *   (`x[0]`) is copied before the kernel runs (ownElements), as NumPy reads it before writing.
 * Fills in the chain's `kernel`, `writes`, `params` (`x` added as an input where the chain does
 * not read it) and `ops` (the update is one more operation) and returns true, or changes nothing.
 */
function writesInPlace(chain: ElementwiseChain, writes: WrittenArray, model: NotebookModel, cell: CellModel, resolveUfunc: (n: SyntaxNode) => string | null): boolean {
  const written = model.inferValue(writes.array, cell);
  const dtype = written.kind === 'ndarray' ? floatCType(written.dtype) : null;
  if (chain.reduction || !dtype) {
    return false;
  }
  const copied = writes.op ? ownElements(writes.array.text, chain.params, model, cell) : new Set<string>();
  if (!inputsApart(writes, chain.params.filter(p => !copied.has(p.node.text)), model, cell)) {
    return false;
  }
  const name = writes.array.text;
  const params = writes.op && !chain.params.some(p => p.node.text === name) ? [...chain.params, { node: writes.array, name }] : chain.params;
  // `x` of the other float dtype than a chain that does not read it: the chain typed alone, `x`
  // one more input of its own dtype
  const t = typedParams({ params }, model, cell) ?? (params !== chain.params ? withArray(typedParams(chain, model, cell), name, dtype) : null);
  if (!t || t.refused || (t.dtype !== dtype && params === chain.params)) {
    return false;
  }
  const kernel = elementwiseKernelFor({ ...chain, params, writes }, t, model, resolveUfunc);
  if (!kernel) {
    return false;
  }
  if (copied.size > 0) {
    writes.copied = copied;
  }
  chain.kernel = kernel;
  chain.writes = writes;
  chain.params = params;
  chain.ops += writes.op ? 1 : 0;
  return true;
}

/**
 * `t` (typedParams of a chain that does not read `name`) with the array `name` of `dtype` as one
 * more input, for writesInPlace, or null.
 */
function withArray(t: TypedParams | null, name: string, dtype: 'float32' | 'float64'): TypedParams | null {
  if (!t) {
    return null;
  }
  const decl = { name: cName(name, t.taken), array: true, dtype };
  t.cNames.set(name, decl.name);
  return { ...t, decls: [...t.decls, decl] };
}

/**
 * The params that are one element of the array `name` by literal indices (`x[0]`, `x[-1, 2]`):
 * copied before an in-place update of `name` (WrittenArray.copied). NumPy reads them while it
 * computes the right-hand side, before it writes; one kernel writing `x` while every thread reads
 * `x[0]` would not (one thread's store races the others' loads).
 */
function ownElements(name: string, params: readonly { node: SyntaxNode }[], model: NotebookModel, cell: CellModel): Set<string> {
  const element = (n: SyntaxNode): boolean =>
    n.type === 'subscript' &&
    field(n, 'value')?.type === 'identifier' &&
    field(n, 'value')?.text === name &&
    /^\[\s*-?\d+(?:\s*,\s*-?\d+)*\s*,?\s*\]$/.test(n.text.slice(name.length)) &&
    model.inferValue(n, cell).kind !== 'ndarray';
  return new Set(params.filter(p => element(p.node)).map(p => p.node.text));
}

/**
 * Whether every array the kernel reads is either the written array itself (its name, read at the
 * element it writes) or provably other memory. Every other argument is looked at, scalars too
 * (`x[0]` is a 0-d view of `x` on the device, read by every thread while one writes it: such an
 * element is only apart once copied, and writesInPlace leaves the copied ones out): an array
 * argument must be a plain name (not a view made in the chain, `u[1:]`, `u.T`), and every array
 * name an argument reads must be apart from the written one: not that name, not bound in the cell
 * (only updated in place, `y += 1`: a binding, `y = x.T`, may make a view of the written array
 * before the statement or, in a loop, after it; the written name is not bound either), and
 * sharing no memory with it through what the notebook did before the cell (memorySharers: neither
 * holds the other's memory, neither is a view of some array or comes from a call that may hand
 * back one held elsewhere).
 */
function inputsApart(writes: WrittenArray, params: readonly { node: SyntaxNode }[], model: NotebookModel, cell: CellModel): boolean {
  const name = writes.array.text;
  const others = params.filter(p => p.node.text !== name);
  const read = new Set<string>();
  for (const p of others) {
    if (model.inferValue(p.node, cell).kind === 'ndarray' && p.node.type !== 'identifier') {
      return false;
    }
    walk(p.node, n => {
      if (n.type === 'identifier' && model.inferValue(n, cell).kind === 'ndarray') {
        read.add(n.text);
      }
      return true;
    });
  }
  if (read.size === 0) {
    return true;
  }
  const bound = new Set((cell.facts?.assignments ?? []).filter(a => !a.augmented).map(a => a.name));
  if (!cell.facts || read.has(name) || bound.has(name) || [...read].some(r => bound.has(r))) {
    return false;
  }
  const elsewhere = (holder: string, other: string): boolean =>
    memorySharers(holder, cell, model).some(s => s.name === other || s.kind === 'view-of' || s.kind === 'origin');
  return [...read].every(r => !elsewhere(name, r) && !elsewhere(r, name));
}

/** A full reduction of one expression: `np.sum(e)` (no other argument) or `(e).sum()`. */
function fullReduction(n: SyntaxNode, model: NotebookModel, cell: CellModel, resolveUfunc: (n: SyntaxNode) => string | null): ReductionForm | null {
  const form = reductionForm(n, resolveUfunc);
  return form && reducesArray(form, model, cell) ? form : null;
}

/** A call that reduces `arg` whole, if `arg` is an array: fullReduction from the syntax alone. */
type ReductionForm = { name: string; arg: SyntaxNode; method: boolean };

/** Whether a reduction form reduces an array: `np.sum(e)` always, `(e).sum()` when `e` is an array. */
function reducesArray(form: ReductionForm, model: NotebookModel, cell: CellModel): boolean {
  return !form.method || model.inferValue(form.arg, cell).kind === 'ndarray';
}

/** `np.sum(e)` or `(e).sum()` (whatever `e` holds: reducesArray asks), or null. */
function reductionForm(n: SyntaxNode, resolveUfunc: (n: SyntaxNode) => string | null): ReductionForm | null {
  const fn = field(n, 'function');
  if (n.type !== 'call' || !fn) {
    return null;
  }
  const { positional, keywords } = callArguments(n);
  // (no reduction form takes more than one argument: the ufunc is not resolved for those)
  return keywords.size === 0 && positional.length <= 1 ? reductionOf(fn, resolveUfunc(fn), positional) : null;
}

/**
 * reductionForm of a call without keyword arguments, from its function, the NumPy ufunc that
 * names (`resolveUfunc`'s answer) and its positional arguments.
 */
function reductionOf(fn: SyntaxNode, ufunc: string | null, positional: SyntaxNode[]): ReductionForm | null {
  if (ufunc) {
    return FUSABLE_REDUCTIONS.has(ufunc) && positional.length === 1 ? { name: ufunc, arg: positional[0], method: false } : null;
  }
  const obj = fn.type === 'attribute' ? field(fn, 'object') : null;
  const method = fn.type === 'attribute' ? field(fn, 'attribute')?.text ?? '' : '';
  if (obj && positional.length === 0 && METHOD_REDUCTIONS.has(method) && unparen(obj).type !== 'identifier') {
    return { name: method, arg: obj, method: true };
  }
  return null;
}

/**
 * An upper bound on the operations analyseChain's `visit` counts in `node`, from the syntax
 * alone (no value inferred): it descends as `visit` does and counts every node `visit` may count.
 * `visit` counts no more: a piece of scalars or of numbers only counts none there, and a method
 * reduction (`(e).sum()`) counts only when `e` is an array. Stops counting at 3, all the caller
 * asks (a chain needs three operations), so a long expression costs no more than a short one.
 * (Exported for the tests.)
 */
export function opsBound(node: SyntaxNode, top: boolean, resolveUfunc: (n: SyntaxNode) => string | null): number {
  const n = unparen(node);
  switch (n.type) {
    case 'binary_operator':
      return FUSABLE_BINARY.has(operatorOf(n)) ? boundOfParts(1, [field(n, 'left'), field(n, 'right')], resolveUfunc) : 0;
    case 'unary_operator':
      return boundOfParts(1, [field(n, 'argument')], resolveUfunc);
    case 'comparison_operator': {
      const parts = kids(n);
      return parts.length === 2 ? boundOfParts(1, parts, resolveUfunc) : 0;
    }
    case 'call': {
      // (visit counts nothing in a call with keyword arguments, neither a ufunc nor a reduction,
      // but the top one's `out=u`: findElementwiseChains' writes)
      const rounded = roundedOperand(n, resolveUfunc, true);
      if (rounded) {
        return boundOfParts(1, [rounded], resolveUfunc);
      }
      const fn = field(n, 'function');
      const { positional, keywords } = callArguments(n);
      if (!fn || (keywords.size > 0 && !(top && outArgument(n, resolveUfunc)))) {
        return 0;
      }
      const ufunc = resolveUfunc(fn);
      if (ufunc && FUSABLE_UFUNCS.has(ufunc)) {
        return boundOfParts(1, positional, resolveUfunc);
      }
      const red = top ? reductionOf(fn, ufunc, positional) : null;
      return red ? boundOfParts(1, [red.arg], resolveUfunc) : 0;
    }
    default:
      return 0;
  }
}

/** `own` plus the bounds of `parts` (not at the top), up to 3. */
function boundOfParts(own: number, parts: (SyntaxNode | null)[], resolveUfunc: (n: SyntaxNode) => string | null): number {
  let count = own;
  for (let k = 0; k < parts.length && count < 3; k++) {
    const part = parts[k];
    count += part ? opsBound(part, false, resolveUfunc) : 0;
  }
  return count;
}

/**
 * The operands of an operator the chains compute per element (`+`, `-x`, `a < b`, a fusable
 * ufunc's call without keywords: its arguments; a rounding to whole numbers: its operand,
 * roundedOperand, the method form where `methods` is set), or null for anything else.
 */
function operands(n: SyntaxNode, resolveUfunc: (n: SyntaxNode) => string | null, methods: boolean): SyntaxNode[] | null {
  switch (n.type) {
    case 'binary_operator':
    case 'unary_operator':
    case 'comparison_operator':
      return kids(n).filter(c => c.type !== 'comment');
    case 'call': {
      const rounded = roundedOperand(n, resolveUfunc, methods);
      if (rounded) {
        return [rounded];
      }
      const fn = field(n, 'function');
      const ufunc = fn ? resolveUfunc(fn) : null;
      const { positional, keywords } = callArguments(n);
      return ufunc && FUSABLE_UFUNCS.has(ufunc) && keywords.size === 0 ? positional : null;
    }
    default:
      return null;
  }
}

/**
 * The operand of a rounding to whole numbers: `np.round(x)` or `np.around(x)`, with no decimals
 * or `0` (positional or `decimals=0`), and where `methods` is set the ndarray method `x.round()`
 * (`x.round(0)`, `x.round(decimals=0)`); else null. NumPy rounds half to even there, which is
 * C's `rint` in the default rounding mode (CuPy's own round calls `rint` for decimals 0,
 * `_round_float` in core.pyx), so a typed kernel computes it as `rint`/`rintf` and `np.rint`'s
 * chains and these are one form (an integer array NumPy returns as it is: no typed kernel reads
 * one). Other decimals are left alone: NumPy scales by 10**decimals, rounds and scales back, its
 * own sequence of roundings. A `@cp.fuse()` function can call `cp.round` (CuPy's fusion runs its
 * ufunc) but not the method, which CuPy's traced arrays lack: `methods` is unset there.
 */
function roundedOperand(n: SyntaxNode, resolveUfunc: (n: SyntaxNode) => string | null, methods: boolean): SyntaxNode | null {
  const fn = n.type === 'call' ? field(n, 'function') : null;
  if (!fn) {
    return null;
  }
  const ufunc = resolveUfunc(fn);
  // (`np.round` is an attribute too: NumPy's function, not the method)
  const method = ufunc !== 'round' && ufunc !== 'around' ? (methods && fn.type === 'attribute' && field(fn, 'attribute')?.text === 'round' ? field(fn, 'object') : null) : null;
  if (!method && ufunc !== 'round' && ufunc !== 'around') {
    return null;
  }
  const { positional, keywords } = callArguments(n);
  const [operand, ...rest] = method ? [method, ...positional] : positional;
  const decimals = [...rest, ...(keywords.has('decimals') ? [keywords.get('decimals')!] : [])];
  const zero = (d: SyntaxNode): boolean => {
    const v = d.type === 'integer' ? pythonLiteral(d.text) : null;
    return !!v && 'int' in v && v.int === 0n;
  };
  if (!operand || keywords.size > (keywords.has('decimals') ? 1 : 0) || decimals.length > 1 || !decimals.every(zero)) {
    return null;
  }
  return operand;
}

/** ndarray methods that reduce the whole array when called without arguments. */
const METHOD_REDUCTIONS: ReadonlySet<string> = new Set(['sum', 'prod', 'mean', 'max', 'min', 'any', 'all']);

/** The name an enclosing assignment binds (for naming a kernel), if any. */
function assignedName(n: SyntaxNode): string | null {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'assignment' || p.type === 'augmented_assignment') {
      const left = field(p, 'left');
      return left?.type === 'identifier' ? left.text : null;
    }
    if (p.type === 'expression_statement' || p.type === 'block' || p.type === 'module') {
      return null;
    }
  }
  return null;
}

/**
 * The chain of `expr` (its kernels not asked for yet: null), or null. With `methods`, an
 * ndarray's `x.round()` is an operation of the chain (roundedOperand), which only a typed kernel
 * can compute: findElementwiseChains analyses again without it where the chain gets none.
 * (Exported for the tests.)
 */
export function analyseChain(
  expr: SyntaxNode,
  target: string | null,
  model: NotebookModel,
  cell: CellModel,
  resolveUfunc: (n: SyntaxNode) => string | null,
  methods = true
): ElementwiseChain | null {
  const top = fullReduction(unparen(expr), model, cell, resolveUfunc);
  const value = model.inferValue(top ? top.arg : expr, cell);
  if (value.kind !== 'ndarray') {
    return null;
  }
  let ops = 0;
  let transcendental = 0;
  let reduction: string | null = null;
  let reduced: ElementwiseChain['reduced'] = null;
  let methodRound = false;
  const params: { node: SyntaxNode; name: string }[] = [];
  const constant = numpyConstantOf(model);
  const scalarPieceOf = scalarPieces(model, cell);
  const paramFor = (node: SyntaxNode): void => {
    const n = unparen(node);
    const text = n.text;
    if (params.some(p => p.node.text === text)) {
      return;
    }
    const name = n.type === 'identifier' ? n.text : `arg${params.length}`;
    params.push({ node: n, name });
  };
  /**
   * Whether a subtree of operators and fusable ufuncs reads an array the analysis knows of (its
   * other parts, names, calls, subscripts..., are asked for their value). Kept per node: visit
   * asks it of each operator from the top down.
   */
  const arrays = new Map<number, boolean>();
  const holdsArray = (node: SyntaxNode): boolean => {
    const n = unparen(node);
    let found = arrays.get(n.id);
    if (found === undefined) {
      const parts = operands(n, resolveUfunc, methods);
      found = parts ? parts.some(holdsArray) : n.type !== 'integer' && n.type !== 'float' && model.inferValue(n, cell).kind === 'ndarray';
      arrays.set(n.id, found);
    }
    return found;
  };
  /** Returns false when the node cannot be part of a fused kernel at all. */
  const visit = (node: SyntaxNode, top: boolean): boolean => {
    const n = unparen(node);
    if (n.type === 'binary_operator' || n.type === 'unary_operator') {
      // scalars only: Python computes the piece before any array is involved (`dt * 0.5 * u` is
      // `(dt * 0.5) * u`), so it is no array operation. Numbers only (`0.1 * 0.1`) are folded
      // into the kernel; a piece that reads a name (`dt * 0.5`) is one argument, computed by the
      // cell as written
      if (pythonConstant(n, constant) !== null) {
        return true;
      }
      if (scalarPieceOf(n)) {
        paramFor(n);
        return true;
      }
    }
    if (!top && operands(n, resolveUfunc, methods) && !holdsArray(n)) {
      // an operation that reads no array the analysis knows of (`dt * step` with `dt` not
      // inferred, `np.sqrt(dt)`, `dt > 0`): the cell computes it as written, and the kernel gets
      // its result as one argument. Inside a `@cp.fuse()` body, CuPy 14's fusion would take
      // every scalar argument and literal as weak and pick the first loop that accepts them all
      // (`dt * step`: float16; `n * m`: int8), and `np.exp` of a Python float is a NumPy float64
      // (not weak: with float32 arrays NumPy computes in float64), which a typed kernel
      // computing `expf(dt)` in float32 would not be
      paramFor(n);
      return true;
    }
    switch (n.type) {
      case 'integer':
      case 'float':
      case 'true':
      case 'false':
        return true;
      case 'binary_operator': {
        const op = operatorOf(n);
        if (!FUSABLE_BINARY.has(op)) {
          paramFor(n);
          return true;
        }
        ops += 1;
        if (op === '**' && !/^[234]$/.test(field(n, 'right')?.text ?? '')) {
          transcendental += 1;
        }
        return visit(field(n, 'left')!, false) && visit(field(n, 'right')!, false);
      }
      case 'unary_operator': {
        ops += 1;
        return visit(field(n, 'argument')!, false);
      }
      case 'comparison_operator': {
        const parts = kids(n);
        if (parts.length !== 2) {
          paramFor(n);
          return true;
        }
        ops += 1;
        return visit(parts[0], false) && visit(parts[1], false);
      }
      case 'call': {
        const rounded = roundedOperand(n, resolveUfunc, methods);
        if (rounded && holdsArray(rounded)) {
          ops += 1;
          methodRound ||= !['round', 'around'].includes(resolveUfunc(field(n, 'function')!) ?? '');
          return visit(rounded, false);
        }
        const fn = field(n, 'function');
        const ufunc = fn ? resolveUfunc(fn) : null;
        const { positional, keywords } = callArguments(n);
        // (a ufunc's `out=u` at the top: findElementwiseChains' writes)
        if (ufunc && FUSABLE_UFUNCS.has(ufunc) && (keywords.size === 0 || (top && outArgument(n, resolveUfunc)))) {
          ops += 1;
          if (/^(sin|cos|tan|arc|sinh|cosh|tanh|exp|log|sqrt|cbrt|power|hypot)/.test(ufunc)) {
            transcendental += 1;
          }
          return positional.every(a => visit(a, false));
        }
        const red = top ? fullReduction(n, model, cell, resolveUfunc) : null;
        if (red) {
          reduction = red.name;
          reduced = { node: unparen(red.arg), method: red.method };
          ops += 1;
          return visit(red.arg, false);
        }
        paramFor(n);
        return true;
      }
      case 'attribute': {
        // np.pi and friends stay inline; other attributes are evaluated outside
        if (model.qualifiedName(n)?.startsWith('numpy.')) {
          return true;
        }
        paramFor(n);
        return true;
      }
      default:
        paramFor(n);
        return true;
    }
  };
  if (!visit(expr, true)) {
    return null;
  }
  // at least one array input, or the kernel is pointless
  const arrayParams = params.filter(p => model.inferValue(p.node, cell).kind === 'ndarray');
  if (arrayParams.length === 0) {
    return null;
  }
  nameViews(params, expr);
  const chain: ElementwiseChain = { node: expr, ops, transcendental, reduction, reduced, params, value, target, kernel: null, reduce: null };
  if (methodRound) {
    chain.methodRound = true;
  }
  return chain;
}

/** NumPy's dtype kinds in promotion order: bool 0, integers 1, floats 2, complex 3; else null. */
function dtypeKind(dtype: string | undefined): number | null {
  if (dtype === 'bool') {
    return 0;
  }
  return dtype === undefined ? null : /^u?int\d+$/.test(dtype) ? 1 : /^float\d+$/.test(dtype) ? 2 : /^complex\d+$/.test(dtype) ? 3 : null;
}

/** Ufuncs whose result is a float for integer or bool input (`np.sqrt(int8)` is float16). */
const FLOAT_RESULT =
  /^(sin|cos|tan|arcsin|arccos|arctan|arctan2|sinh|cosh|tanh|arcsinh|arccosh|arctanh|exp|exp2|expm1|log|log2|log10|log1p|logaddexp|logaddexp2|sqrt|cbrt|hypot|true_divide|divide|deg2rad|rad2deg|radians|degrees)$/;

/**
 * For a chain that becomes a `@cp.fuse()` function: the first operation at which a weak scalar
 * (a Python number, literal or argument, or a scalar the analysis cannot tell from one) meets an
 * array of a lower kind or of an unknown one (`uint8 * 0.5`, `(x > 0) * 2`), or null. CuPy 14's
 * fusion takes every scalar as weak and picks the first loop that accepts the operands, without
 * the check its plain ufuncs make (`_check_should_use_weak_scalar` in _kernel.pyx: a scalar of a
 * higher kind is not weak): `uint8 * 0.5` runs the float16 loop where NumPy gives float64, and
 * `bool * 2` the int8 one where NumPy gives int64. A weak scalar meeting a float or complex
 * array takes its dtype in both (float16 and complex64 come first among the loops).
 */
function weakScalarClash(chain: ElementwiseChain, model: NotebookModel, cell: CellModel, resolveUfunc: (n: SyntaxNode) => string | null): string | null {
  const params = new Map(chain.params.map(p => [p.node.text, p]));
  const constant = numpyConstantOf(model);
  type Kind = { kind: number | null; weak: boolean };
  let clash: string | null = null;
  const meet = (a: Kind, b: Kind, at: SyntaxNode): void => {
    for (const [w, other] of [[a, b], [b, a]]) {
      if (!clash && w.weak && !other.weak && (other.kind === null || (other.kind < 2 && (w.kind === null || w.kind > other.kind)))) {
        clash = at.text;
      }
    }
  };
  // (a weak scalar of unknown kind with a float array gives a float or complex: at least float,
  // all that the check asks)
  const known = (k: Kind, others: Kind[]): number | null => (k.kind === null && k.weak && others.some(o => !o.weak && o.kind !== null && o.kind >= 2) ? 2 : k.kind);
  const max = (kinds: Kind[]): Kind => {
    const ks = kinds.map(k => known(k, kinds));
    return { kind: ks.some(k => k === null) ? null : Math.max(...(ks as number[])), weak: kinds.every(k => k.weak) };
  };
  const kindOf = (node: SyntaxNode): Kind => {
    const n = unparen(node);
    const param = params.get(n.text);
    if (param && n.type !== 'integer' && n.type !== 'float') {
      const v = model.inferValue(param.node, cell);
      if (v.kind === 'ndarray') {
        return { kind: dtypeKind(v.dtype), weak: false };
      }
      // a NumPy scalar is strong in the fusion as in NumPy (its `weak_t(0)` is a NumPy scalar)
      const k = scalarPiece(param.node, model, cell)?.kind;
      return { kind: dtypeKind(v.dtype) ?? (k === 'complex' ? 3 : null), weak: !(k === 'float32' || k === 'real') };
    }
    const folded = pythonConstant(n, constant);
    if (folded !== null) {
      // numbers only: Python computes them while CuPy traces the function
      return { kind: IMAGINARY.test(n.text) ? 3 : folded !== 'refused' && 'int' in folded ? 1 : 2, weak: true };
    }
    switch (n.type) {
      case 'true':
      case 'false':
        return { kind: 0, weak: true };
      case 'unary_operator':
        return kindOf(field(n, 'argument')!);
      case 'binary_operator':
      case 'comparison_operator': {
        const parts = kids(n)
          .filter(c => c.type !== 'comment')
          .map(kindOf);
        if (parts.length !== 2) {
          return { kind: null, weak: false };
        }
        meet(parts[0], parts[1], n);
        if (n.type === 'comparison_operator') {
          return { kind: 0, weak: false };
        }
        const k = max(parts);
        return operatorOf(n) === '/' && k.kind !== null ? { kind: Math.max(k.kind, 2), weak: k.weak } : k;
      }
      case 'call': {
        const rounded = roundedOperand(n, resolveUfunc, false);
        if (rounded) {
          // an integer array rounds to itself; NumPy and CuPy round a bool one to float16
          const k = kindOf(rounded);
          return k.kind === 0 ? { kind: 2, weak: k.weak } : k;
        }
        const fn = field(n, 'function');
        const ufunc = fn ? resolveUfunc(fn) : null;
        const args = callArguments(n).positional.map(kindOf);
        if (!ufunc || args.length === 0) {
          return { kind: null, weak: false };
        }
        if (ufunc === 'where' && args.length === 3) {
          // NumPy's result is the promotion of the two branches, an array (strong) even of two
          // Python numbers (`np.where(c, 2.0, 0.5)` is float64), where the fusion takes both as
          // weak and picks the first loop (`?ee->e`: float16)
          const [a, b] = [args[1], args[2]];
          if (a.weak && b.weak) {
            clash ||= n.text;
          }
          meet(a, b, n);
          return { kind: max([a, b]).kind, weak: false };
        }
        if (args.length === 2) {
          meet(args[0], args[1], n);
        }
        const k = max(args);
        return FLOAT_RESULT.test(ufunc) && k.kind !== null ? { kind: Math.max(k.kind, 2), weak: k.weak } : k;
      }
      default:
        return { kind: null, weak: false };
    }
  };
  kindOf(chain.reduced ? chain.reduced.node : chain.node);
  return clash;
}

/** `start:stop` of a view's axis: start >= 0, `stop` <= 0 (0 for an empty stop: the end). */
type ViewAxis = { start: number; stop: number };

/** A view `u[1:-1, :-2]` of a named array by literal slices, or null. */
function literalView(n: SyntaxNode): { array: string; axes: ViewAxis[] } | null {
  const value = field(n, 'value');
  if (n.type !== 'subscript' || value?.type !== 'identifier') {
    return null;
  }
  const inside = n.text.slice(value.text.length).replace(/^\s*\[|\]\s*$/g, '');
  const axes: ViewAxis[] = [];
  for (const index of inside.split(',')) {
    const m = /^\s*(\d+)?\s*:\s*(-\d+)?\s*$/.exec(index);
    if (!m) {
      return null;
    }
    axes.push({ start: m[1] ? Number(m[1]) : 0, stop: m[2] ? Number(m[2]) : 0 });
  }
  return axes.length >= 1 && axes.length <= 3 ? { array: value.text, axes } : null;
}

/**
 * Names the views of a stencil after their offset from the centre view, as finite-difference code
 * does (`u[:-2, 1:-1]` is `u_im1`, `u[1:-1, 2:]` is `u_jp1`, `u[1:-1, 1:-1]` is `u_c`), instead of
 * `arg0`...: for the views of one array by literal slices of one extent per axis (as NumPy needs
 * to combine them) whose starts have a whole centre. Any other param keeps its name, and so do
 * all of them when a new name would be taken (another param's or a name the chain reads). Then
 * an attribute or literal index of a name is named after it (`x.T` is `x_T`, `x[0]` is `x_0`,
 * `x[-1]` is `x_m1`: plainViewName), where that name is free.
 */
function nameViews(params: { node: SyntaxNode; name: string }[], expr: SyntaxNode): void {
  stencilViewNames(params, expr);
  const read = new Set<string>();
  walk(expr, n => {
    if (n.type === 'identifier') {
      read.add(n.text);
    }
    return true;
  });
  for (const p of params) {
    const name = /^arg\d+$/.test(p.name) ? plainViewName(p.node) : null;
    if (name && !read.has(name) && !params.some(q => q.name === name)) {
      p.name = name;
    }
  }
}

/**
 * `x_T` for `x.T`, `x_0` for `x[0]`, `x_m1_2` for `x[-1, 2]`: a name's attribute, or its element
 * or row by literal indices; else null.
 */
function plainViewName(n: SyntaxNode): string | null {
  const value = field(n, n.type === 'attribute' ? 'object' : 'value');
  if (value?.type !== 'identifier') {
    return null;
  }
  if (n.type === 'attribute') {
    const attribute = field(n, 'attribute');
    return attribute ? `${value.text}_${attribute.text}` : null;
  }
  const index = /^\[\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*,?\s*\]$/.exec(n.text.slice(value.text.length));
  return n.type === 'subscript' && index ? `${value.text}_${index[1].replace(/\s/g, '').replace(/-/g, 'm').replace(/,/g, '_')}` : null;
}

/** nameViews' stencil views: `u[:-2, 1:-1]` is `u_im1`... */
function stencilViewNames(params: { node: SyntaxNode; name: string }[], expr: SyntaxNode): void {
  const views = params.map(p => literalView(p.node));
  const groups = new Map<string, number[]>();
  views.forEach((v, k) => {
    if (v) {
      const key = `${v.array}/${v.axes.length}`;
      groups.set(key, [...(groups.get(key) ?? []), k]);
    }
  });
  const renamed = new Map<number, string>();
  for (const members of groups.values()) {
    const first = views[members[0]]!;
    const parts: string[][] = members.map(() => []);
    let ok = true;
    first.axes.forEach((_, axis) => {
      const starts = members.map(k => views[k]!.axes[axis].start);
      const extents = new Set(members.map(k => views[k]!.axes[axis].start - views[k]!.axes[axis].stop));
      const centre = (Math.min(...starts) + Math.max(...starts)) / 2;
      if (extents.size !== 1 || !Number.isInteger(centre)) {
        ok = false;
        return;
      }
      members.forEach((_, m) => {
        const d = starts[m] - centre;
        if (d !== 0) {
          parts[m].push(`${'ijk'[axis]}${d < 0 ? 'm' : 'p'}${Math.abs(d)}`);
        }
      });
    });
    if (ok) {
      members.forEach((k, m) => renamed.set(k, `${first.array}_${parts[m].length ? parts[m].join('_') : 'c'}`));
    }
  }
  if (renamed.size === 0) {
    return;
  }
  const read = new Set<string>();
  walk(expr, n => {
    if (n.type === 'identifier') {
      read.add(n.text);
    }
    return true;
  });
  const names = params.map((p, k) => renamed.get(k) ?? p.name);
  if (new Set(names).size === names.length && [...renamed.values()].every(name => !read.has(name))) {
    params.forEach((p, k) => {
      p.name = names[k];
    });
  }
}

/**
 * Applies fusion on top of the plain CuPy edits: each chain's range is replaced by a call of a
 * fused function defined in the prologue, and each group's statements by one call of its kernel
 * binding the group's outputs (ChainGroup). Edits inside a chain or group are dropped from the
 * plain list and re-applied to the pieces they belong to (arguments keep device names, the body
 * gets `cp.` functions).
 */
export function fuseChains(
  source: string,
  plain: TextEdit[],
  chains: ElementwiseChain[],
  groups: readonly ChainGroup[],
  cp: string,
  isUsed: (name: string) => boolean
): { edits: TextEdit[]; definitions: string[] } {
  const inside = (e: TextEdit, start: number, end: number): boolean => e.start >= start && e.end <= end && !(e.start === start && e.end === start) && !(e.start === end && e.end === end);
  // what a chain's call replaces: the chain, or the statement or call that writes into an array;
  // a group's call replaces its statements, from the first one's start to the last one's end
  const replaced = (c: ElementwiseChain): SyntaxNode => c.writes?.replaced ?? c.node;
  const span = (g: ChainGroup): { start: number; end: number } => ({ start: g.statements[0].startIndex, end: g.statements[g.statements.length - 1].endIndex });
  // a param the plain rewrite wraps (`cp.asarray(rng.random(n))`, a host generator's draw): the
  // two inserts around it belong to the kernel's argument, also where the param ends the chain
  // (its `)` is then at the replaced span's end, which keeps the inserts of what encloses it)
  const wraps = new Map<number, { open: TextEdit; close: TextEdit }>();
  for (const p of [...chains.flatMap(c => c.params), ...groups.flatMap(g => g.params)]) {
    const open = plain.filter(e => e.start === e.end && e.start === p.node.startIndex && e.text.endsWith('(')).pop();
    const close = plain.find(e => e.start === e.end && e.start === p.node.endIndex && e.text === ')');
    if (open && close) {
      wraps.set(p.node.id, { open, close });
    }
  }
  const wrapping = new Set([...wraps.values()].flatMap(w => [w.open, w.close]));
  const edits = plain.filter(
    e => !wrapping.has(e) && !chains.some(c => inside(e, replaced(c).startIndex, replaced(c).endIndex)) && !groups.some(g => inside(e, span(g).start, span(g).end))
  );
  const definitions: string[] = [];
  const taken = new Set<string>();
  /** The source of `node` with the plain edits inside it and `replacements` applied. */
  const sub = (node: SyntaxNode, replacements: { node: SyntaxNode; text: string }[]): string => {
    const local = plain
      .filter(e => e.start >= node.startIndex && e.end <= node.endIndex && !(e.start === e.end && (e.start === node.startIndex || e.start === node.endIndex)))
      .filter(e => !replacements.some(r => e.start >= r.node.startIndex && e.end <= r.node.endIndex))
      .map(e => ({ start: e.start - node.startIndex, end: e.end - node.startIndex, text: e.text }));
    const reps = replacements
      .filter(r => r.node.startIndex >= node.startIndex && r.node.endIndex <= node.endIndex)
      .map(r => ({ start: r.node.startIndex - node.startIndex, end: r.node.endIndex - node.startIndex, text: r.text }));
    return applyEdits(source.slice(node.startIndex, node.endIndex), [...local, ...reps]);
  };
  /** A param's argument text: its source with the plain edits in it, and its wrap. */
  const argument = (p: { node: SyntaxNode }): string => {
    const w = wraps.get(p.node.id);
    return w ? `${w.open.text}${sub(p.node, [])}${w.close.text}` : sub(p.node, []);
  };
  const fuseGroup = (group: ChainGroup): void => {
    const base = `${group.outputs.map(o => o.name).join('_')}_kernel`.replace(/[^\w]/g, '_');
    let fname = base;
    for (let k = 2; taken.has(fname) || isUsed(fname); k++) {
      fname = `${base}${k}`;
    }
    taken.add(fname);
    definitions.push(elementwiseKernelDefinition(group.kernel, fname, cp));
    const args = group.params.filter(p => !group.inlined?.has(p.node.text)).map(argument);
    const written = group.outputs.find(o => o.written)?.written;
    const lines: string[] = [];
    if (written) {
      // an ElementwiseKernel takes all its outputs or none: `u` is written where it is, the
      // others are new arrays of its shape and the kernel's dtype, bound to their names first
      const u = sub(written, []);
      for (const o of group.outputs.filter(o => !o.written)) {
        lines.push(`${o.name} = ${cp}.empty(${u}.shape, dtype=${cp}.${o.dtype === 'bool' ? 'bool_' : o.dtype})`);
      }
      lines.push(`${fname}(${[...args, ...group.outputs.map(o => (o.written ? sub(o.written, []) : o.name))].join(', ')})`);
    } else {
      lines.push(`${group.outputs.map(o => o.name).join(', ')} = ${fname}(${args.join(', ')})`);
    }
    // comments between the statements stay, above the call
    const { start, end } = span(group);
    const comments = kids(group.statements[0].parent!).filter(k => k.type === 'comment' && k.startIndex > start && k.endIndex < end);
    edits.push({ start, end, text: [...comments.map(c => c.text), ...lines].join('\n') });
  };
  const fuseChain = (chain: ElementwiseChain): void => {
    const base = `${chain.target ?? 'expr'}_${chain.reduce ? 'reduce' : chain.kernel ? 'kernel' : 'fused'}`.replace(/[^\w]/g, '_');
    // a reduction's launcher function and its kernel object (`<name>_kernel`, a RawKernel or a
    // ReductionKernel) both need free names
    const free = (name: string): boolean => !taken.has(name) && !isUsed(name) && (!chain.reduce || (!taken.has(`${name}_kernel`) && !isUsed(`${name}_kernel`)));
    let fname = base;
    for (let k = 2; !free(fname); k++) {
      fname = `${base}${k}`;
    }
    taken.add(fname);
    taken.add(`${fname}_kernel`);
    // an element of the written array is copied first: NumPy reads it before it writes (ownElements)
    const args = chain.params
      .filter(p => !chain.inlined?.has(p.node.text))
      .map(p => (chain.writes?.copied?.has(p.node.text) ? `${argument(p)}.copy()` : argument(p)));
    if (chain.writes) {
      // the written array is the kernel's output argument: CuPy writes it, allocating nothing
      args.push(sub(chain.writes.array, []));
    }
    let call = `${fname}(${args.join(', ')})`;
    if (chain.reduce) {
      definitions.push(reductionDefinition(chain.reduce, fname, cp));
    } else if (chain.reduction && chain.reduced) {
      // types unknown: fuse the elementwise part and let CuPy reduce its result. A cp.fuse ending
      // in the reduction would run as ONE block when it has several inputs (reduction-kernel.ts)
      const body = sub(chain.reduced.node, paramOccurrences(chain));
      definitions.push(`@${cp}.fuse()\ndef ${fname}(${chain.params.map(p => p.name).join(', ')}):\n    return ${body}\n`);
      call = chain.reduced.method ? `${call}.${chain.reduction}()` : `${cp}.${chain.reduction}(${call})`;
    } else if (chain.kernel) {
      definitions.push(elementwiseKernelDefinition(chain.kernel, fname, cp));
    } else {
      const body = sub(chain.node, paramOccurrences(chain));
      definitions.push(`@${cp}.fuse()\ndef ${fname}(${chain.params.map(p => p.name).join(', ')}):\n    return ${body}\n`);
    }
    const at = replaced(chain);
    edits.push({ start: at.startIndex, end: at.endIndex, text: lastStatement(at) && at.type === 'augmented_assignment' ? `${call};` : call });
  };
  // in the cell's order: kernels are named, and defined, in the order the cell runs them
  const ordered = [...groups.map(g => ({ at: span(g).start, group: g, chain: null })), ...chains.map(c => ({ at: replaced(c).startIndex, group: null, chain: c }))].sort((x, y) => x.at - y.at);
  for (const { group, chain } of ordered) {
    if (group) {
      fuseGroup(group);
    } else if (chain) {
      fuseChain(chain);
    }
  }
  return { edits, definitions };
}

/**
 * A typed `cp.ElementwiseKernel` object's definition. --fmad=false: NVRTC's default
 * (--fmad=true) contracts `a * b + c` into one FMA, rounded once where NumPy rounds the product
 * and the sum each (1 ulp apart); CuPy passes the options to NVRTC for every compile of the
 * kernel (_get_elementwise_kernel in _kernel.pyx).
 */
function elementwiseKernelDefinition(k: ElementwiseKernelSpec, fname: string, cp: string): string {
  return `${fname} = ${cp}.ElementwiseKernel(\n    ${pyString(k.inParams)}, ${pyString(k.outParams)},\n    ${pyString(k.operation)},\n    ${pyString(fname)},${kernelPreamble(k)} options=('--fmad=false',))  # no FMA contraction: rounded as NumPy rounds\n`;
}

/**
 * Whether `n` is the cell's last statement (at its top level), whose value a notebook displays:
 * an in-place update becomes a kernel call, which returns the array, so the call there ends with
 * `;` (IPython shows nothing, as for the augmented assignment).
 */
function lastStatement(n: SyntaxNode): boolean {
  const statement = n.parent?.type === 'expression_statement' ? n.parent : null;
  const module = statement?.parent;
  if (!statement || module?.type !== 'module') {
    return false;
  }
  const last = kids(module)
    .filter(k => k.type !== 'comment')
    .pop();
  return last?.id === statement.id;
}

/**
 * Every occurrence of a param's text inside the chain, with the param's name: a `@cp.fuse()`
 * body reads the params by name (the texts are read once; a node's text only where its length is
 * one of theirs).
 */
function paramOccurrences(chain: ElementwiseChain): { node: SyntaxNode; text: string }[] {
  const occurrences: { node: SyntaxNode; text: string }[] = [];
  const paramTexts = chain.params.map(q => q.node.text);
  const paramLengths = new Set(paramTexts.map(t => t.length));
  walk(chain.node, n => {
    const u = unparen(n);
    // a parenthesized param (`(dt * 0.5) * u`) is replaced with its parentheses: `arg0 * u`
    const candidate = n.type !== 'integer' && n.type !== 'float' && paramLengths.has(u.endIndex - u.startIndex);
    const k = candidate ? paramTexts.indexOf(u.text) : -1;
    const p = k >= 0 ? chain.params[k] : undefined;
    if (p && n.id !== chain.node.id) {
      occurrences.push({ node: n, text: p.name });
      return false;
    }
    return true;
  });
  return occurrences;
}

function pyString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * NumPy ufunc -> the C function with the same meaning on double. A float32 kernel calls the
 * single-precision function of that name (`sqrtf`, `expf`, `powf`: cMathFunction), never the
 * double name: C++ overloads would pick the float version in CUDA, but the text would read as
 * double, and one compiler or header without those overloads would silently compute in double.
 */
const C_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ['sqrt', 'sqrt'], ['cbrt', 'cbrt'], ['exp', 'exp'], ['exp2', 'exp2'], ['expm1', 'expm1'],
  ['log', 'log'], ['log2', 'log2'], ['log10', 'log10'], ['log1p', 'log1p'],
  ['sin', 'sin'], ['cos', 'cos'], ['tan', 'tan'], ['arcsin', 'asin'], ['arccos', 'acos'], ['arctan', 'atan'],
  ['arctan2', 'atan2'], ['hypot', 'hypot'], ['sinh', 'sinh'], ['cosh', 'cosh'], ['tanh', 'tanh'],
  ['arcsinh', 'asinh'], ['arccosh', 'acosh'], ['arctanh', 'atanh'],
  ['floor', 'floor'], ['ceil', 'ceil'], ['trunc', 'trunc'], ['rint', 'rint'],
  ['abs', 'fabs'], ['absolute', 'fabs'], ['fabs', 'fabs'], ['copysign', 'copysign'],
  ['fmax', 'fmax'], ['fmin', 'fmin'], ['power', 'pow']
]);
/** The ufuncs of C_FUNCTIONS that take two arguments (the others take one). */
const BINARY_MATH: ReadonlySet<string> = new Set(['arctan2', 'hypot', 'copysign', 'fmax', 'fmin', 'power']);
/** The C math function of a ufunc for the kernel's float type (`sqrt` / `sqrtf`), or undefined. */
function cMathFunction(ufunc: string, dtype: 'float32' | 'float64'): string | undefined {
  const name = C_FUNCTIONS.get(ufunc);
  return name !== undefined && dtype === 'float32' ? `${name}f` : name;
}
const C_BINARY_UFUNCS: ReadonlyMap<string, string> = new Map([
  ['add', '+'], ['subtract', '-'], ['multiply', '*'], ['divide', '/'], ['true_divide', '/']
]);
const NUMPY_CONSTANTS: ReadonlyMap<string, number> = new Map([
  ['numpy.pi', Math.PI], ['numpy.e', Math.E]
]);
/**
 * Names a kernel parameter must not take (C/C++ keywords, CUDA built-ins, CuPy's own, and what
 * the Python launchers read: the CuPy module and builtins), nor Python's keywords, which a name
 * stripped of its underscores (`_in`) would be as a launcher's parameter.
 */
const C_RESERVED = new Set([
  'None', 'True', 'False', 'and', 'as', 'assert', 'async', 'await', 'def', 'del', 'elif', 'except', 'finally', 'from', 'global',
  'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'with', 'yield',
  'i', 'n', '_ind', 'T', 'cp', 'cupy', 'isinstance', 'TypeError', 'ValueError', 'warnings', 'auto', 'bool', 'break', 'case', 'char', 'class', 'const', 'continue', 'default', 'delete', 'do',
  'double', 'else', 'enum', 'extern', 'false', 'float', 'for', 'friend', 'goto', 'if', 'inline', 'int', 'long', 'namespace',
  'new', 'operator', 'private', 'protected', 'public', 'register', 'return', 'short', 'signed', 'sizeof', 'static',
  'struct', 'switch', 'template', 'this', 'true', 'typedef', 'typename', 'union', 'unsigned', 'virtual', 'void',
  'volatile', 'while', 'threadIdx', 'blockIdx', 'blockDim', 'gridDim', 'warpSize', 'size_t', 'ptrdiff_t', 'min', 'max',
  'abs', 'pow', 'M_PI', 'fmod', 'fmodf', 'copysign', 'copysignf', 'floor', 'floorf', 'npy_remainder', 'npy_remainderf', 'npy_floor_divide', 'npy_floor_dividef',
  ...C_FUNCTIONS.values(), ...[...C_FUNCTIONS.values()].map(f => `${f}f`)
]);

/** `np.pi`, `np.e` (Python floats) by their value, for pythonConstant. */
export function numpyConstantOf(model: NotebookModel): (n: SyntaxNode) => number | undefined {
  return n => {
    const q = n.type === 'attribute' ? model.qualifiedName(n) : null;
    return q ? NUMPY_CONSTANTS.get(q) : undefined;
  };
}

/**
 * What a scalar gives where it meets an array (NEP 50): `python` a Python int or float (weak:
 * cast once to the array's dtype), `float32` a NumPy float32 scalar, `real` another real NumPy
 * scalar (float64, an int...: a float32 array meeting one becomes float64), `unknown` where the
 * analysis cannot tell a Python number from a NumPy scalar, `complex` a complex number (an
 * imaginary literal `1j`, `complex(...)`, a NumPy complex scalar, any arithmetic with one: NumPy
 * computes complex64/complex128 with it, which no typed float kernel does), `wide-int` a piece
 * whose Python int value is beyond 2^53 or not known (`10 ** 30`: CuPy packs a Python int kernel
 * argument as int64/uint64 first, OverflowError beyond 2^64, and converts it to float from there).
 */
export type ScalarKind = 'python' | 'float32' | 'real' | 'unknown' | 'complex' | 'wide-int';

const REAL_NUMPY_SCALARS: ReadonlySet<string> = new Set([
  'float64', 'float16', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'bool'
]);

/** The kind of a scalar value, or null when the value is not a scalar. */
export function scalarKind(v: ValueInfo): ScalarKind | null {
  if (v.kind !== 'scalar') {
    return null;
  }
  if (v.origin === 'runtime') {
    // the kernel reports the type: `float`, `int`, `bool` (Python's), `numpy.float64`...
    if (v.library === 'float' || v.library === 'int' || v.library === 'bool') {
      return 'python';
    }
    if (v.library === 'complex' || v.dtype?.startsWith('complex')) {
      return 'complex';
    }
    if (v.library === 'numpy' && v.dtype !== undefined) {
      return v.dtype === 'float32' ? 'float32' : REAL_NUMPY_SCALARS.has(v.dtype) ? 'real' : 'unknown';
    }
    return 'unknown';
  }
  if (v.library === 'numpy' && v.dtype !== undefined) {
    // a NumPy scalar the model infers (`np.float32(0.2)`, `np.float64(x) * 0.5`): strong (NEP 50)
    return v.dtype.startsWith('complex') ? 'complex' : v.dtype === 'float32' ? 'float32' : REAL_NUMPY_SCALARS.has(v.dtype) ? 'real' : 'unknown';
  }
  // The engine computes a value for Python numbers only: literals and their arithmetic,
  // int()/float()/round() of them, an array's .size and .ndim. `x.mean()`, `rng.integers(9)`
  // get none: their kind stays unknown.
  return v.dtype?.startsWith('complex') ? 'complex' : v.value !== undefined ? 'python' : 'unknown';
}

/** The kind of `a op b` for two scalar kinds. */
function combineScalarKinds(a: ScalarKind, b: ScalarKind): ScalarKind {
  if (a === 'complex' || b === 'complex') {
    return 'complex'; // a Python or NumPy number meeting a complex one gives a complex one
  }
  if (a === 'unknown' || b === 'unknown') {
    return 'unknown';
  }
  if (a === 'python' || b === 'python') {
    return a === 'python' ? b : a; // a Python number takes the NumPy scalar's type
  }
  return a === 'float32' && b === 'float32' ? 'float32' : 'real';
}

/** Whether a kernel of `dtype` computes NumPy's result with a scalar of this kind cast to `dtype`. */
export function kernelTakesScalar(kind: ScalarKind, dtype: 'float32' | 'float64'): boolean {
  return kind === 'python' || kind === 'float32' || (kind === 'real' && dtype === 'float64');
}

const SCALAR_OPERATORS: ReadonlySet<string> = new Set(['+', '-', '*', '/', '//', '%', '**']);

/**
 * A piece made of scalars only (names holding numbers, literals, `np.pi`, arithmetic) that reads
 * at least one name: `dt`, `dt * 0.5`, `alpha * dt / dx ** 2`. Python computes it before any array
 * is involved (`dt * 0.5 * u` is `(dt * 0.5) * u`), and NumPy casts the result once to the
 * array's dtype where it meets the array (NEP 50), so a kernel takes it as ONE argument that the
 * cell computes as written (in double, as Python does), never piece by piece in float. Returns
 * the kind of its result, or null (it reads an array or something else, or only literals:
 * pythonConstant folds those).
 */
export function scalarPiece(node: SyntaxNode, model: NotebookModel, cell: CellModel): { kind: ScalarKind } | null {
  return scalarPieces(model, cell)(node);
}

/**
 * scalarPiece for the nodes of one cell's expressions, asked of each node of an expression from
 * the top down (analyseChain's visit, the stencil's emit): each subtree's answer is made of its
 * children's, so they are kept, keyed on the node's id (unique to one node of one tree), and
 * each subtree is looked at once instead of once per ancestor. Valid while the model's values do
 * not change: the callers keep the function for one analysis of one cell.
 */
export function scalarPieces(model: NotebookModel, cell: CellModel): (node: SyntaxNode) => { kind: ScalarKind } | null {
  const constant = numpyConstantOf(model);
  const known = new Map<number, { kind: ScalarKind; names: boolean } | null>();
  const rec = (n: SyntaxNode): { kind: ScalarKind; names: boolean } | null => {
    const id = n.id;
    let found = known.get(id);
    if (found === undefined) {
      found = piece(n);
      known.set(id, found);
    }
    return found;
  };
  const piece = (n: SyntaxNode): { kind: ScalarKind; names: boolean } | null => {
    switch (n.type) {
      case 'integer':
      case 'float':
        // `1j`, `2.5J`: a Python complex (NumPy computes complex64/complex128 with it)
        return { kind: IMAGINARY.test(n.text) ? 'complex' : 'python', names: false };
      case 'parenthesized_expression': {
        const inner = n.namedChild(0);
        return inner && n.namedChildCount === 1 ? rec(inner) : null;
      }
      case 'unary_operator': {
        const arg = field(n, 'argument');
        return arg && (operatorOf(n) === '-' || operatorOf(n) === '+') ? rec(arg) : null;
      }
      case 'binary_operator': {
        const l = field(n, 'left');
        const r = field(n, 'right');
        const a = l && SCALAR_OPERATORS.has(operatorOf(n)) ? rec(l) : null;
        const b = a && r ? rec(r) : null;
        return a && b ? { kind: combineScalarKinds(a.kind, b.kind), names: a.names || b.names } : null;
      }
      case 'identifier':
      case 'attribute':
      case 'call':
      case 'subscript': {
        if (constant(n) !== undefined) {
          return { kind: 'python', names: false };
        }
        const made = n.type === 'call' ? scalarConstructor(n, model, rec) : null;
        if (made) {
          return { kind: made, names: true };
        }
        const kind = scalarKind(model.inferValue(n, cell));
        return kind ? { kind, names: true } : null;
      }
      default:
        return null;
    }
  };
  return node => {
    const found = rec(unparen(node));
    if (!found?.names) {
      return null;
    }
    if (found.kind === 'python') {
      // a Python int piece: exact only where every int converts to a double exactly
      const v = model.inferValue(unparen(node), cell);
      if (v.dtype === 'int64' && (v.value === undefined || Math.abs(v.value) > 2 ** 53)) {
        return { kind: 'wide-int' };
      }
    }
    return { kind: found.kind };
  };
}

/** An imaginary literal's text (`1j`, `2.5J`, `1e3j`). */
const IMAGINARY = /[jJ]$/;

const NUMPY_FLOAT32_TYPES: ReadonlySet<string> = new Set(['numpy.float32', 'numpy.single']);
const NUMPY_FLOAT64_TYPES: ReadonlySet<string> = new Set(['numpy.float64', 'numpy.double']);
const NUMPY_COMPLEX_TYPES: ReadonlySet<string> = new Set(['numpy.complex64', 'numpy.complex128', 'numpy.csingle', 'numpy.cdouble', 'numpy.clongdouble']);

/**
 * The kind of a scalar a call makes, or null: `complex(...)` (the builtin) and NumPy's complex
 * types make a complex; `np.float32(x)` of a real scalar piece or literal (`np.float32(0.2)`,
 * `np.float32(dt)`: not of a list or an array, which it turns into an array) makes a NumPy float32
 * scalar, and `np.float64(x)` a NumPy float64 one.
 */
function scalarConstructor(
  n: SyntaxNode,
  model: NotebookModel,
  rec: (n: SyntaxNode) => { kind: ScalarKind; names: boolean } | null
): ScalarKind | null {
  const fn = field(n, 'function');
  if (!fn) {
    return null;
  }
  const q = model.qualifiedName(fn);
  if (q === null && fn.type === 'identifier' && fn.text === 'complex' && model.writers('complex').length === 0) {
    return 'complex';
  }
  if (q !== null && NUMPY_COMPLEX_TYPES.has(q)) {
    return 'complex';
  }
  if (q === null || !(NUMPY_FLOAT32_TYPES.has(q) || NUMPY_FLOAT64_TYPES.has(q))) {
    return null;
  }
  const { positional, keywords } = callArguments(n);
  const arg = positional.length === 1 && keywords.size === 0 ? rec(unparen(positional[0])) : null;
  if (!arg || arg.kind === 'complex') {
    return null; // np.float32(1j) raises TypeError
  }
  return NUMPY_FLOAT32_TYPES.has(q) ? 'float32' : 'real';
}

const NUMPY_INT32_TYPES: ReadonlySet<string> = new Set(['numpy.int32', 'numpy.intc']);

/**
 * A NumPy scalar made from a number written in the cell, `np.float32(0.5)`, `np.float64(-1e-3)`,
 * `np.int32(3)` (a sign before the call too: `-np.float32(0.5)`), as the C literal of the typed
 * kernel's `dtype` holding exactly the scalar's value, or null. An expert writes it into the
 * kernel (`0.5f`) instead of passing an argument; the value is the one NumPy makes, so the kernel
 * computes as before, bit for bit. np.float32 rounds the Python float (a double) to float32, which
 * is not always what a C compiler makes of the same decimal read straight into a float (double
 * rounding): the value is taken as NumPy takes it, `Math.fround` of the double, and cNumber
 * prints digits that read back as exactly that float32. In a float64 kernel (NumPy computes a
 * float32 scalar with float64 arrays in float64) that float32's exact double is written, as
 * CuPy's cast of the argument gave it; an int32 (refused with float32 arrays, which NumPy 2
 * computes in float64 with it: kernelTakesScalar) is written as a double, the type its argument
 * had. Null where NumPy's value is not a finite number of that type (`np.float32(1e40)` is inf,
 * `np.int32(2**31)` raises, `np.int32(2.5)` truncates: left to NumPy, passed as before) or the
 * text is no such call.
 */
export function numpyScalarLiteral(node: SyntaxNode, model: NotebookModel, dtype: 'float32' | 'float64'): string | null {
  // a sign before the call or its argument: negating is exact in every type here
  const signed = (n: SyntaxNode): { n: SyntaxNode; negative: boolean } => {
    const u = unparen(n);
    const arg = u.type === 'unary_operator' && (operatorOf(u) === '-' || operatorOf(u) === '+') ? field(u, 'argument') : null;
    if (!arg) {
      return { n: u, negative: false };
    }
    const inner = signed(arg);
    return { n: inner.n, negative: inner.negative !== (operatorOf(u) === '-') };
  };
  const outer = signed(node);
  const fn = outer.n.type === 'call' ? field(outer.n, 'function') : null;
  const q = fn ? model.qualifiedName(fn) : null;
  const { positional, keywords } = outer.n.type === 'call' ? callArguments(outer.n) : { positional: [], keywords: new Map() };
  if (q === null || positional.length !== 1 || keywords.size > 0) {
    return null;
  }
  const inner = signed(positional[0]);
  const literal = inner.n.type === 'integer' || inner.n.type === 'float' ? pythonLiteral(inner.n.text) : null;
  if (!literal) {
    return null;
  }
  const negative = outer.negative !== inner.negative;
  if (NUMPY_INT32_TYPES.has(q)) {
    // np.int32 raises OverflowError outside its range; the symmetric range keeps a minus before
    // the call from wrapping around (-np.int32(-2**31) is -2**31 again)
    const v = 'int' in literal ? (inner.negative ? -literal.int : literal.int) : null;
    if (v === null || v > 2n ** 31n - 1n || v < -(2n ** 31n - 1n)) {
      return null;
    }
    return cNumber({ int: outer.negative ? -v : v }, dtype);
  }
  const double = 'int' in literal ? intToDouble(literal.int) : literal.float;
  const value = double === null ? null : NUMPY_FLOAT32_TYPES.has(q) ? Math.fround(double) : NUMPY_FLOAT64_TYPES.has(q) ? double : null;
  if (value === null || !Number.isFinite(value)) {
    return null;
  }
  return cNumber({ float: negative ? -value : value }, dtype);
}

/** Whether a subtree holds an imaginary literal (`1j`): NumPy then computes complex values. */
export function imaginaryLiteral(node: SyntaxNode): SyntaxNode | null {
  let found: SyntaxNode | null = null;
  walk(node, n => {
    if (found) {
      return false;
    }
    if ((n.type === 'integer' || n.type === 'float') && IMAGINARY.test(n.text)) {
      found = n;
      return false;
    }
    return true;
  });
  return found;
}

/** The CuPy/C type name of a float dtype, or null for anything else. */
function floatCType(dtype: string | undefined): 'float32' | 'float64' | null {
  return dtype === 'float32' || dtype === 'float64' ? dtype : null;
}

/** A Python number: an int (exact, as Python keeps it) or a float (an IEEE double). */
export type PyNumber = { int: bigint } | { float: number };

const EXACT_INT = 2n ** 53n;

/** An int as the double Python converts it to, or null above 2^53 (where we do not follow its rounding). */
function intToDouble(v: bigint): number | null {
  return v <= EXACT_INT && v >= -EXACT_INT ? Number(v) : null;
}

/**
 * A Python numeric literal's value (`4`, `0x10`, `0b1_01`, `1_000.5`, `1e-3`), or null: complex
 * (`1j`), malformed, or not finite (`1e400` is inf in Python).
 */
export function pythonLiteral(text: string): PyNumber | null {
  const t = text.replace(/_/g, '');
  if (/^(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[1-9]\d*|0+)$/.test(t)) {
    return { int: BigInt(t.replace(/^0+(?=\d)/, '').replace(/^0[xXoObB]/, p => p.toLowerCase())) };
  }
  // `1e400` is inf in Python: not folded (refused), like any non-finite value
  const f = /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : NaN;
  return Number.isFinite(f) ? { float: f } : null;
}

/**
 * The value Python gives a subtree made of numbers only (literals, `constant` names such as
 * `np.pi`, parentheses, unary `-`/`+`, binary `+ - * / // % **`), evaluated as Python does before
 * any array is involved: `0.1 * 0.1 * u` is `(0.1 * 0.1) * u`, and NumPy 2 (NEP 50) casts that
 * one double to the array's dtype where it meets the array. Ints stay exact (BigInt); a float
 * operation is the same IEEE double operation in JavaScript as in CPython. Returns null when the
 * subtree reads anything else, and 'refused' when it is numbers only but its value is not
 * computed here exactly as Python would (float `**`, `//` or `%`; ints beyond 2^53 meeting a
 * float; a division by zero, which raises in Python; a non-finite result): a kernel must then not
 * be generated, since computing the pieces in the kernel's type would not be NumPy's result.
 */
export function pythonConstant(node: SyntaxNode, constant?: (n: SyntaxNode) => number | undefined): PyNumber | 'refused' | null {
  switch (node.type) {
    case 'integer':
    case 'float':
      return pythonLiteral(node.text) ?? 'refused';
    case 'parenthesized_expression': {
      const inner = node.namedChild(0);
      return inner && node.namedChildCount === 1 ? pythonConstant(inner, constant) : null;
    }
    case 'unary_operator': {
      const arg = field(node, 'argument');
      const v = arg ? pythonConstant(arg, constant) : null;
      const op = operatorOf(node);
      if (v === null || v === 'refused') {
        return v;
      }
      if (op === '+') {
        return v;
      }
      return op !== '-' ? 'refused' : 'int' in v ? { int: -v.int } : { float: -v.float };
    }
    case 'binary_operator': {
      const l = field(node, 'left');
      const r = field(node, 'right');
      // a side that reads anything else makes the whole null: the right side is not looked at
      // then (emit and visit ask this of every node of a chain, so walking both sides of each
      // would cost its size times its depth)
      const a = l ? pythonConstant(l, constant) : null;
      const b = a !== null && r ? pythonConstant(r, constant) : null;
      if (a === null || b === null) {
        return null;
      }
      if (a === 'refused' || b === 'refused') {
        return 'refused';
      }
      return pythonBinary(operatorOf(node), a, b) ?? 'refused';
    }
    default: {
      const c = constant?.(node);
      return c === undefined ? null : { float: c };
    }
  }
}

/** `a op b` with Python's semantics, or null where we do not reproduce them exactly. */
function pythonBinary(op: string, a: PyNumber, b: PyNumber): PyNumber | null {
  if ('int' in a && 'int' in b) {
    const x = a.int;
    const y = b.int;
    switch (op) {
      case '+':
        return { int: x + y };
      case '-':
        return { int: x - y };
      case '*':
        return { int: x * y };
      case '//':
      case '%': {
        if (y === 0n) {
          return null; // ZeroDivisionError
        }
        // Python floors (BigInt truncates)
        const q = x / y - (x % y !== 0n && (x < 0n) !== (y < 0n) ? 1n : 0n);
        return op === '//' ? { int: q } : { int: x - q * y };
      }
      case '**':
        // exact in Python for a non-negative exponent; a negative one gives a float (C pow)
        return y >= 0n && y <= 64n && (x >= -(2n ** 16n) && x <= 2n ** 16n) ? { int: x ** y } : null;
      case '/': {
        // CPython divides two ints below 2^53 as doubles (correctly rounded, as here)
        const fx = intToDouble(x);
        const fy = intToDouble(y);
        return fx === null || fy === null || fy === 0 ? null : finite(fx / fy);
      }
      default:
        return null;
    }
  }
  const x = 'int' in a ? intToDouble(a.int) : a.float;
  const y = 'int' in b ? intToDouble(b.int) : b.float;
  if (x === null || y === null) {
    return null;
  }
  switch (op) {
    case '+':
      return finite(x + y);
    case '-':
      return finite(x - y);
    case '*':
      return finite(x * y);
    case '/':
      return y === 0 ? null : finite(x / y);
    default:
      return null; // float //, %, ** (C fmod/floor/pow: not reproduced here)
  }
}

function finite(v: number): PyNumber | null {
  return Number.isFinite(v) ? { float: v } : null;
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** The float32 next to `f` (finite) towards `up` or down. */
function nextFloat32(f: number, up: boolean): number {
  if (f === 0) {
    U32[0] = 1;
    return up ? F32[0] : -F32[0];
  }
  F32[0] = f;
  U32[0] += (f > 0) === up ? 1 : -1;
  return F32[0];
}

/**
 * Whether a C compiler reading `text` as a float literal (decimal straight to float32, correctly
 * rounded) gets `f`. The double nearest the text rounds to `f`, and it is not a float32 midpoint
 * (midpoints are doubles, so the text lies on the same side of each as its double does).
 */
function readsAsFloat32(text: string, f: number): boolean {
  const d = Number(text);
  if (Math.fround(d) !== f) {
    return false;
  }
  return d === f || d !== f / 2 + nextFloat32(f, d > f) / 2;
}

/**
 * A double as a C floating literal: JavaScript's shortest round-trip digits, in plain or
 * exponent notation, whichever is shorter (`0.25`, `1e-6`, `4.0`: a point where it prints an
 * integer).
 */
function withPoint(v: number): string {
  const plain = String(v);
  const exp = v.toExponential().replace('e+', 'e');
  const text = exp.length < plain.length ? exp : plain;
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/**
 * A Python number as a C literal of the kernel's float type: the value NumPy gives it where it
 * meets an array of that dtype (NEP 50: the Python double, or the exact int, cast once to the
 * array's type). float32: the shortest decimal that a compiler reads as exactly
 * `Math.fround(v)` (`0.1f`; `0.0100000007f` for 0.1 * 0.1); float64: the shortest decimal that
 * reads back as the double (JavaScript's own printing). Null when the value does not fit
 * (an int beyond 2^53, a float beyond float32's range).
 */
export function cNumber(v: PyNumber, dtype: 'float32' | 'float64'): string | null {
  const d = 'int' in v ? intToDouble(v.int) : v.float;
  if (d === null || !Number.isFinite(d)) {
    return null;
  }
  if (dtype === 'float64') {
    return Object.is(d, -0) ? '-0.0' : withPoint(d);
  }
  const f = Math.fround(d);
  if (!Number.isFinite(f)) {
    return null;
  }
  if (f === 0) {
    return Object.is(f, -0) ? '-0.0f' : '0.0f';
  }
  for (let p = 1; p <= 9; p++) {
    const text = withPoint(Number(f.toPrecision(p)));
    if (readsAsFloat32(text, f)) {
      return `${text}f`;
    }
  }
  return `${f.toPrecision(9)}f`; // 9 significant digits always read back as the same float32
}

/** A Python numeric literal as a C literal of the kernel's float type (`4` -> `4.0f`), or null. */
export function cFloatLiteral(text: string, dtype: 'float32' | 'float64'): string | null {
  const v = pythonLiteral(text);
  return v ? cNumber(v, dtype) : null;
}

/**
 * The launcher's first lines: a host array or a view is copied to a C-contiguous device array
 * (its dtype kept); an array of another dtype than the one the kernel was generated for raises
 * TypeError (converting it would silently round float64 data to float32), and so does an array
 * of another rank when the kernel assumes one (`ndim`: a 2-D array given to a 1-D stencil would
 * run over its flattened data).
 */
export function launcherInputChecks(dtype: string, fname: string, cp: string, arrays: string[], ndim?: number): string[] {
  const dt = `${cp}.${dtype}`;
  const message = (v: string): string => `            raise TypeError(f'${fname} was generated for ${dtype} arrays (the dtype the analysis inferred), got {${v}.dtype}: rerun the analysis')`;
  const rank = (v: string, indent: string): string[] =>
    ndim === undefined
      ? []
      : [`${indent}if ${v}.ndim != ${ndim}:`, `${indent}    raise TypeError(f'${fname} was generated for ${ndim}-D arrays (the shape the analysis inferred), got {${v}.ndim}-D: rerun the analysis')`];
  if (arrays.length === 1) {
    const [x] = arrays;
    return [
      '    # copies only what the kernel cannot read as it is (a host array, a view); never casts',
      `    if not (isinstance(${x}, ${cp}.ndarray) and ${x}.flags.c_contiguous):`,
      `        ${x} = ${cp}.ascontiguousarray(${cp}.asarray(${x}))`,
      `    if ${x}.dtype != ${dt}:`,
      message(x).slice(4),
      ...rank(x, '    ')
    ];
  }
  const tuple = arrays.join(', ');
  return [
    '    # copies only what the kernel cannot read as it is (a host array, a view); never casts',
    `    ${tuple} = (_a if isinstance(_a, ${cp}.ndarray) and _a.flags.c_contiguous else ${cp}.ascontiguousarray(${cp}.asarray(_a)) for _a in (${tuple}))`,
    `    for _a in (${tuple}):`,
    `        if _a.dtype != ${dt}:`,
    message('_a'),
    ...rank('_a', '        ')
  ];
}

/**
 * A `cp.RawKernel` named `<fnName>_kernel` (compiled with --fmad=false: NumPy's rounding) and the
 * Python function `fnName` that launches it, as one definition; `body` is the function's lines.
 */
export function rawKernelWithLauncher(cp: string, fnName: string, kernelLines: string[], params: string[], body: string[]): string {
  return [
    `${fnName}_kernel = ${cp}.RawKernel(r'''`,
    ...kernelLines,
    `''', '${fnName}', options=('--fmad=false',))`,
    '',
    '',
    `def ${fnName}(${params.join(', ')}):`,
    ...body,
    ''
  ].join('\n');
}

/**
 * A valid, unreserved C identifier for a chain parameter. It never starts with an underscore:
 * every name the generated kernels and launchers declare themselves does (`_n`, `_blocks`,
 * `_partial`, `_acc`, `_in_<param>`..., and CuPy's `_ind`, `_raw_`, `_in_ind`...), so a
 * notebook's `_blocks` becomes `blocks` (or `blocks2` when `blocks` is taken) and cannot
 * overwrite them.
 */
export function cName(name: string, taken: Set<string>): string {
  let base = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !C_RESERVED.has(name) ? name : `${name.replace(/\W/g, '')}_`;
  base = base.replace(/^_+/, '');
  if (!/^[A-Za-z]/.test(base) || C_RESERVED.has(base)) {
    base = `a_${base}`;
  }
  let out = base;
  for (let k = 2; taken.has(out); k++) {
    out = `${base}${k}`;
  }
  taken.add(out);
  return out;
}

/**
 * The chain's parameters as typed kernel parameters: one float dtype for every array but bool
 * ones (masks) and complex ones whose magnitude is of that dtype (complex64 for float32, read
 * only through `np.abs`: cExpression), and every other parameter a scalar (a piece of scalars,
 * or a name the analysis infers nothing for).
 */
interface TypedParams {
  dtype: 'float32' | 'float64';
  /**
   * One per chain parameter, in order. `dtype` set: an array of the other float dtype, the one an
   * in-place update writes and reads (`x32 *= chain` of float64: writesInPlace). `literal` set: a
   * NumPy scalar of a number (`np.float32(0.5)`) the kernel writes as that C literal
   * (numpyScalarLiteral), no parameter of the kernel (kernelParams leaves it out).
   */
  decls: { name: string; array: boolean; dtype?: 'float32' | 'float64' | 'bool' | ComplexDtype; literal?: string }[];
  /** A parameter's source text -> its C text: its name, or the literal the kernel writes it as. */
  cNames: Map<string, string>;
  taken: Set<string>;
  /**
   * The C names that hold booleans: bool array parameters (`dtype` 'bool': a mask read by
   * `np.where` or a logical operation, cExpression), and a group's bool locals and outputs.
   */
  bools: Set<string>;
  /**
   * The C names of complex array parameters (`complex64 z`: CuPy's `complex<float>`), which the
   * kernel reads only as `abs(z)`, of its float dtype (cExpression).
   */
  complexes: Set<string>;
  /**
   * The first scalar parameter that keeps the chain from a typed kernel, or null: one NumPy
   * would not cast to `dtype` as the kernel does (a NumPy float64 with float32 arrays, a complex,
   * one of unknown kind: kernelTakesScalar), or a name the analysis infers nothing for (`kind`
   * null). Nothing else here depends on it: the parameters and the kernel's C text are the same
   * either way, and only the note (scalarNote) says which scalar decided.
   */
  refused: { text: string; kind: ScalarKind | null } | null;
}

/** The complex dtypes an ElementwiseKernel takes, by the float dtype of their magnitude. */
type ComplexDtype = 'complex64' | 'complex128';
const COMPLEX_MAGNITUDE: ReadonlyMap<string, 'float32' | 'float64'> = new Map([
  ['complex64', 'float32'],
  ['complex128', 'float64']
]);

function typedParams(chain: Pick<ElementwiseChain, 'params'>, model: NotebookModel, cell: CellModel): TypedParams | null {
  let dtype: 'float32' | 'float64' | null = null;
  const taken = new Set<string>();
  const cNames = new Map<string, string>();
  const bools = new Set<string>();
  const complexes = new Set<string>();
  const decls: TypedParams['decls'] = [];
  const scalars: { text: string; kind: ScalarKind | null }[] = [];
  // (a literal's C text depends on the arrays' dtype, known once every array is seen: below)
  const literals: { at: number; node: SyntaxNode }[] = [];
  for (const p of chain.params) {
    const v = model.inferValue(p.node, cell);
    const scalar = v.kind === 'ndarray' ? null : scalarPiece(p.node, model, cell);
    if (v.kind === 'ndarray' && v.dtype === 'bool') {
      // a mask: of no dtype NumPy promotes the chain's floats to (cExpression reads it only as
      // a condition or in logical operations, or beside an array in arithmetic)
      const name = cName(p.name, taken);
      bools.add(name);
      decls.push({ name, array: true, dtype: 'bool' });
    } else if (v.kind === 'ndarray' && v.dtype && COMPLEX_MAGNITUDE.has(v.dtype)) {
      // a complex array: `np.abs(z)` is of the float dtype of its parts (float32 for complex64)
      const d = COMPLEX_MAGNITUDE.get(v.dtype)!;
      if (dtype && d !== dtype) {
        return null;
      }
      dtype = d;
      const name = cName(p.name, taken);
      complexes.add(name);
      decls.push({ name, array: true, dtype: v.dtype as ComplexDtype });
    } else if (v.kind === 'ndarray') {
      const d = floatCType(v.dtype);
      if (!d || (dtype && d !== dtype)) {
        return null;
      }
      dtype = d;
      decls.push({ name: cName(p.name, taken), array: true });
    } else if (scalar) {
      // a scalar, or a piece of scalars (`dt * 0.5`) the cell computes as Python does: the
      // kernel gets its value cast once to the arrays' dtype, as NumPy (NEP 50) casts it
      scalars.push({ text: p.node.text, kind: scalar.kind });
      literals.push({ at: decls.length, node: p.node });
      decls.push({ name: cName(p.name, taken), array: false });
    } else if (v.kind === 'unknown' && (p.node.type === 'identifier' || (p.node.type !== 'call' && operands(p.node, () => null, false)))) {
      // a name the analysis infers nothing for (`s = np.float32(0.2)`), or arithmetic on such
      // names (`dt * steps`): refused below, kept for the note
      scalars.push({ text: p.node.text, kind: null });
      decls.push({ name: cName(p.name, taken), array: false });
    } else {
      return null;
    }
    cNames.set(p.node.text, decls[decls.length - 1].name);
  }
  // a NumPy float64 (or int64...) scalar makes NumPy's result float64: no float32 kernel; a
  // scalar that may be either a Python number or a NumPy scalar gets no typed kernel at all
  const d: 'float32' | 'float64' | null = dtype;
  if (!d) {
    return null;
  }
  const refused = scalars.find(s => s.kind === null || !kernelTakesScalar(s.kind, d)) ?? null;
  for (const { at, node } of literals) {
    const literal = numpyScalarLiteral(node, model, d);
    if (literal !== null) {
      decls[at].literal = literal;
      cNames.set(node.text, literal);
    }
  }
  return { dtype: d, decls, cNames, taken, bools, complexes, refused };
}

/**
 * The typed kernel's parameters: every decl but those it writes as literals (`0.5f` for
 * `np.float32(0.5)`), whose call passes them no argument (ElementwiseChain.inlined).
 */
function kernelParams(t: TypedParams): TypedParams['decls'] {
  return t.decls.filter(p => p.literal === undefined);
}

/** The source texts of the parameters a typed kernel of `t` writes as C literals, or undefined. */
function inlinedTexts(params: readonly { node: SyntaxNode }[], t: TypedParams): ReadonlySet<string> | undefined {
  const texts = params.filter((_, k) => t.decls[k].literal !== undefined).map(p => p.node.text);
  return texts.length > 0 ? new Set(texts) : undefined;
}

/**
 * The chain's typed kernel (an ElementwiseKernel, or one for its full reduction), and when it
 * gets none, why, where the reason is worth a note (`untyped`): an imaginary literal, or a scalar
 * that alone decides it (the chain translates to C once that scalar is taken as a Python number).
 */
function typedKernels(
  chain: Omit<ElementwiseChain, 'kernel' | 'reduce' | 'untyped' | 'inlined'>,
  model: NotebookModel,
  cell: CellModel,
  resolveUfunc: (n: SyntaxNode) => string | null
): Pick<ElementwiseChain, 'kernel' | 'reduce' | 'untyped' | 'inlined'> {
  const t = typedParams(chain, model, cell);
  const typed = t !== null && t.refused === null;
  const kernel = typed ? elementwiseKernelFor(chain, t, model, resolveUfunc) : null;
  const reduce = typed ? reductionKernelFor(chain, t, model, cell, resolveUfunc) : null;
  if (t && (kernel || reduce)) {
    const inlined = inlinedTexts(chain.params, t);
    return inlined ? { kernel, reduce, inlined } : { kernel, reduce };
  }
  const imaginary = imaginaryLiteral(chain.node);
  if (imaginary) {
    return { kernel, reduce, untyped: complexNote(imaginary.text) };
  }
  // (the probe: with the scalar taken as NumPy would cast a Python number, and NumPy's result
  // dtype not asked for, since that scalar is what changes it)
  if (t?.refused && (elementwiseKernelFor(chain, t, model, resolveUfunc, true) || reductionKernelFor(chain, t, model, cell, resolveUfunc, true))) {
    return { kernel, reduce, untyped: scalarNote(t.refused, t.dtype) };
  }
  return { kernel, reduce };
}

/** Why the scalar `refused` (TypedParams) keeps a chain of `dtype` arrays from a typed kernel. */
function scalarNote(refused: { text: string; kind: ScalarKind | null }, dtype: 'float32' | 'float64'): string {
  const { text, kind } = refused;
  if (kind === null) {
    return `The analysis infers nothing for \`${text}\` (a NumPy scalar such as \`np.float32(...)\` bound to a name, a call's result: a NumPy float64 or complex scalar would make NumPy compute in float64 or complex), so the chain gets no typed kernel (a \`@cp.fuse()\` function typed from the values it is given instead); running the cell first lets the kernel report tell.`;
  }
  if (kind === 'complex') {
    return complexNote(text);
  }
  if (kind === 'wide-int') {
    return `\`${text}\` is a Python int the analysis cannot show to lie within 2^53 (NumPy casts its exact value to the arrays' ${dtype}; a typed kernel's argument goes through int64/uint64 first, OverflowError beyond 2^64), so the chain gets no typed kernel (a \`@cp.fuse()\` function typed from the values it is given instead).`;
  }
  return kind === 'real'
    ? `\`${text}\` is a NumPy scalar other than float32, which NumPy 2 does not cast to the arrays' float32 (NEP 50): it computes this chain in float64, so the chain gets no float32 kernel (a \`@cp.fuse()\` function typed from the values it is given instead).`
    : `The analysis cannot tell whether \`${text}\` is a Python number (cast to the arrays' ${dtype}) or a NumPy scalar (a NumPy float64 makes NumPy compute in float64), so the chain gets no typed kernel (a \`@cp.fuse()\` function typed from the values it is given instead); running the cell first lets the kernel report tell.`;
}

function complexNote(text: string): string {
  return `\`${text}\` is complex (an imaginary literal, \`complex(...)\` or a NumPy complex scalar): NumPy computes this chain in complex64/complex128, which no typed float kernel does, so the chain gets a \`@cp.fuse()\` function typed from the values it is given instead.`;
}

const C_COMPARISONS = new Set(['<', '<=', '>', '>=', '==', '!=']);

/**
 * `&`, `|`, `^` of two bool arrays (NumPy's logical and, or, xor), and the logical ufuncs, in C.
 * C's `&` of two comparisons would give the same bits, but `~b` is `!b` only on a bool, and the
 * C names say what NumPy computes.
 */
const C_LOGICAL: ReadonlyMap<string, string> = new Map([
  ['&', '&&'], ['|', '||'], ['^', '!='], ['logical_and', '&&'], ['logical_or', '||'], ['logical_xor', '!=']
]);

/**
 * What an emitted C expression holds (cExpression): `bool` a boolean (a comparison, a logical
 * operation, a bool array or local), `array` a float of the kernel's dtype computed from at
 * least one array, `scalar` a float from scalars and literals only. NumPy gives a Python number
 * (weak, NEP 50) the dtype of the array it meets, so `array` with `scalar` is the kernel's dtype;
 * `scalar` with `scalar` is not always (`np.where(c, 1.0, 0.0)` is float64, `np.where(c, 1, 0)`
 * int64, whatever the arrays), so it never stands alone where an array's dtype is needed.
 */
type CKind = 'bool' | 'array' | 'scalar';

/**
 * The kind of `a op b` for an arithmetic operator (+ - * /) with NumPy's meaning in C, or null:
 * two floats; or a bool with an array (`(x > 0) * x`: NumPy casts True to 1.0 of the array's
 * dtype, C converts the 1 of the comparison to that type: the same values). Not a bool with a
 * scalar (`(x > 0) * 2` is int64 in NumPy) nor two bools (`b1 + b2` is NumPy's logical or, 2 in
 * C; `b1 - b2` raises).
 */
function arithmeticKind(a: CKind, b: CKind): CKind | null {
  if (a !== 'bool' && b !== 'bool') {
    return a === 'array' || b === 'array' ? 'array' : 'scalar';
  }
  return a === 'array' || b === 'array' ? 'array' : null;
}

/**
 * The C text of an elementwise expression with NumPy's meaning on float/double, or null; null
 * also where its value is not of the kind `want` asks (a float of the kernel's dtype, or a bool).
 * Booleans are kept apart from C's int arithmetic on them (CKind, arithmeticKind): comparisons
 * (C gives NaN the same answers as NumPy), `&`, `|`, `^` of booleans (`&&`, `||`, `!=`), `~` of
 * one (`!`: C's `~` of a bool is a nonzero int), and `np.where(c, a, b)` as `(c ? a : b)`, for a
 * bool `c` and float branches of which at least one holds an array: NumPy's result then has the
 * kernel's dtype (the promotion of the branches, a Python number weak). C evaluates only the
 * branch it selects where NumPy computes both whole arrays: the selected values are the same,
 * only NumPy's floating-point warnings from the other branch (`1 / 0` where `c` is False) are
 * not raised. `np.round(x)` and `np.around(x)` with no or zero decimals (`x.round()` too) are
 * `rint` (roundedOperand).
 */
function cExpression(
  node: SyntaxNode,
  t: TypedParams,
  model: NotebookModel,
  resolveUfunc: (n: SyntaxNode) => string | null,
  want: 'float' | 'bool'
): string | null {
  const d = t.dtype;
  const numpyConstant = numpyConstantOf(model);
  const top = node;
  // a parameter's or a group local's kind, by its C text (a literal `0.5f` of np.float32(0.5)
  // is a scalar; a name no decl has is a group's float local)
  const kindOfName = (c: string): CKind => {
    if (t.bools.has(c)) {
      return 'bool';
    }
    const decl = t.decls.find(p => p.name === c || p.literal === c);
    return !decl || (decl.array && decl.literal === undefined) ? 'array' : 'scalar';
  };
  const float = (e: { c: string; k: CKind } | null): e is { c: string; k: CKind } => e !== null && e.k !== 'bool';
  const emit = (node: SyntaxNode): { c: string; k: CKind } | null => {
    const param = t.cNames.get(unparen(node).text);
    if (param !== undefined && node.type !== 'integer' && node.type !== 'float' && unparen(node).type === node.type) {
      // a complex array only as the argument of `np.abs` (below)
      return t.complexes.has(param) ? null : { c: param, k: kindOfName(param) };
    }
    // numbers only (`0.1 * 0.1`, `2 * np.pi`): Python computes them before NumPy sees an array
    const folded = pythonConstant(node, numpyConstant);
    if (folded !== null) {
      const c = folded === 'refused' ? null : cNumber(folded, d);
      return c === null ? null : { c, k: 'scalar' };
    }
    switch (node.type) {
      case 'parenthesized_expression': {
        const inner = node.namedChild(0);
        const e = inner ? emit(inner) : null;
        // a name or an unsigned number needs no parentheses: `(dt * 0.5) * u` is `arg0 * u`
        return e === null ? null : { c: /^[\w.]+$/.test(e.c) ? e.c : `(${e.c})`, k: e.k };
      }
      case 'unary_operator': {
        const op = operatorOf(node);
        const arg = field(node, 'argument');
        const e = arg ? emit(arg) : null;
        if (e?.k === 'bool') {
          return op === '~' ? { c: `!${logicalOperand(e.c)}`, k: 'bool' } : null;
        }
        // `- -x` must not become `--x` (a C decrement)
        return e === null || (op !== '-' && op !== '+') ? null : { c: /^[-+]/.test(e.c) ? `${op}(${e.c})` : `${op}${e.c}`, k: e.k };
      }
      case 'comparison_operator': {
        const parts = kids(node);
        const op = operatorOf(node);
        if (parts.length !== 2 || !C_COMPARISONS.has(op)) {
          return null;
        }
        const [l, r] = parts.map(emit);
        return float(l) && float(r) ? { c: `${l.c} ${op} ${r.c}`, k: 'bool' } : null;
      }
      case 'binary_operator': {
        const op = operatorOf(node);
        const l = field(node, 'left');
        const r = field(node, 'right');
        const le = l ? emit(l) : null;
        if (!l || !r || le === null) {
          return null;
        }
        const logical = C_LOGICAL.get(op);
        if (logical) {
          const re = emit(r);
          return le.k === 'bool' && re?.k === 'bool' ? { c: `${logicalOperand(le.c)} ${logical} ${logicalOperand(re.c)}`, k: 'bool' } : null;
        }
        if (op === '**') {
          if (le.k === 'bool') {
            return null; // `(x > 0) ** 2` is int64 in NumPy
          }
          const lt = le.c;
          // NumPy computes these exponents as square, sqrt and reciprocal (fast_scalar_power,
          // which looks at the exponent's value: an int 2 or -1, a float 0.5; `(-1)` and `+2` too)
          const e = pythonConstant(r, numpyConstant);
          if (e !== null && e !== 'refused' && 'int' in e && e.int === 2n) {
            return { c: `(${lt} * ${lt})`, k: le.k };
          }
          if (e !== null && e !== 'refused' && 'float' in e && e.float === 0.5) {
            return { c: `${cMathFunction('sqrt', d)}(${lt})`, k: le.k };
          }
          if (e !== null && e !== 'refused' && 'int' in e && e.int === -1n) {
            return { c: `(${cFloatLiteral('1', d)} / ${lt})`, k: le.k };
          }
          const re = emit(r);
          return float(re) ? { c: `${cMathFunction('power', d)}(${lt}, ${re.c})`, k: arithmeticKind(le.k, re.k)! } : null;
        }
        const re = emit(r);
        const floorOp = floorOperator(op);
        if (floorOp) {
          // NumPy's float % and // (npy_divmod), not CuPy's (float-remainder.ts)
          const k = re && float(le) && float(re) ? arithmeticKind(le.k, re.k) : null;
          return re && k ? { c: cFloorOp(floorOp, d, withoutOuterParentheses(le.c), withoutOuterParentheses(re.c)), k } : null;
        }
        const k = re && ['+', '-', '*', '/'].includes(op) ? arithmeticKind(le.k, re.k) : null;
        return re && k ? { c: `${le.c} ${op} ${re.c}`, k } : null;
      }
      case 'call': {
        const fn = field(node, 'function');
        const rounded = roundedOperand(node, resolveUfunc, true);
        if (rounded) {
          // half to even, as NumPy rounds to whole numbers
          const e = emit(rounded);
          return float(e) ? { c: `${cMathFunction('rint', d)}(${withoutOuterParentheses(e.c)})`, k: e.k } : null;
        }
        const ufunc = fn ? resolveUfunc(fn) : null;
        const { positional, keywords } = callArguments(node);
        // (the `out=u` of the chain's own ufunc is where the kernel writes: ElementwiseChain.writes)
        if (!ufunc || (keywords.size > 0 && !(node.id === top.id && outArgument(node, resolveUfunc)))) {
          return null;
        }
        const complex = positional.length === 1 && keywords.size === 0 ? t.cNames.get(unparen(positional[0]).text) : undefined;
        if (complex !== undefined && t.complexes.has(complex)) {
          // CuPy's `abs` of its complex<float> is the device's hypotf(re, im) (hypot of
          // complex<double>: cupy/complex/arithmetic.h), which cp.abs computes too: the kernel
          // rounds as cp.abs does. NumPy's absolute is npy_hypotf, the host libm's hypotf, whose
          // last bit may differ from CUDA's (no bit-for-bit claim against NumPy here)
          return ufunc === 'absolute' || ufunc === 'abs' ? { c: `abs(${complex})`, k: 'array' } : null;
        }
        const args = positional.map(a => emit(a));
        if (args.some(a => a === null)) {
          return null;
        }
        const es = args as { c: string; k: CKind }[];
        const logical = C_LOGICAL.get(ufunc);
        if (es.some(e => e.k === 'bool')) {
          if (logical && es.length === 2 && es.every(e => e.k === 'bool')) {
            return { c: `${logicalOperand(es[0].c)} ${logical} ${logicalOperand(es[1].c)}`, k: 'bool' };
          }
          if (ufunc === 'logical_not' && es.length === 1) {
            return { c: `!${logicalOperand(es[0].c)}`, k: 'bool' };
          }
          if (ufunc === 'where' && es.length === 3 && es[0].k === 'bool' && float(es[1]) && float(es[2])) {
            return es[1].k === 'array' || es[2].k === 'array' ? { c: `(${logicalOperand(es[0].c)} ? ${es[1].c} : ${es[2].c})`, k: 'array' } : null;
          }
          if (C_BINARY_UFUNCS.has(ufunc) && es.length === 2) {
            const k = arithmeticKind(es[0].k, es[1].k);
            return k ? { c: `(${es[0].c} ${C_BINARY_UFUNCS.get(ufunc)} ${es[1].c})`, k } : null;
          }
          return null;
        }
        const [a, b] = es.map(e => e.c);
        const k: CKind = es.some(e => e.k === 'array') ? 'array' : 'scalar';
        const math = cMathFunction(ufunc, d);
        if (math !== undefined && es.length === (BINARY_MATH.has(ufunc) ? 2 : 1)) {
          return { c: `${math}(${es.map(e => e.c).join(', ')})`, k };
        }
        if (C_BINARY_UFUNCS.has(ufunc) && es.length === 2) {
          return { c: `(${a} ${C_BINARY_UFUNCS.get(ufunc)} ${b})`, k };
        }
        if (ufunc === 'square' && es.length === 1) {
          return { c: `(${a} * ${a})`, k };
        }
        const floorOp = floorUfunc(`numpy.${ufunc}`);
        if (floorOp && es.length === 2) {
          return { c: cFloorOp(floorOp, d, withoutOuterParentheses(a), withoutOuterParentheses(b)), k };
        }
        if (ufunc === 'negative' && es.length === 1) {
          return { c: `(-${a})`, k };
        }
        if (ufunc === 'positive' && es.length === 1) {
          return { c: a, k };
        }
        if (ufunc === 'reciprocal' && es.length === 1) {
          return { c: `(${cFloatLiteral('1', d)} / ${a})`, k };
        }
        return null;
      }
      default:
        return null;
    }
  };
  const e = emit(node);
  return e !== null && (e.k === 'bool') === (want === 'bool') ? e.c : null;
}

/** An operand of `&&`, `||`, `!=`, `!` or `?:`: a name, or the operand in parentheses. */
function logicalOperand(c: string): string {
  const operand = c.startsWith('!') ? c.slice(1) : c;
  return /^[\w.]+$/.test(operand) || withoutOuterParentheses(operand) !== operand ? c : `(${c})`;
}

/**
 * The chain as a typed ElementwiseKernel, or null when some piece has no C form with NumPy's
 * meaning (comparisons, `//`, `%`, bit operations, maximum/minimum with NaN propagation, a
 * reduction), or when NumPy's result is not of the kernel's dtype. `t` is typedParams' (whether
 * its scalars allow a typed kernel is typedKernels' question); with `anyScalar` (typedKernels'
 * probe), NumPy's result dtype is not asked for.
 */
function elementwiseKernelFor(
  chain: Omit<ElementwiseChain, 'kernel' | 'reduce' | 'untyped'>,
  t: TypedParams,
  model: NotebookModel,
  resolveUfunc: (n: SyntaxNode) => string | null,
  anyScalar = false
): ElementwiseKernelSpec | null {
  if (chain.reduction) {
    return null;
  }
  // (the refusal probe: a scalar may make NumPy's result float64 or complex; that is the note)
  if (chain.value.kind !== 'ndarray' || (!anyScalar && floatCType(chain.value.dtype) !== t.dtype)) {
    return null;
  }
  const expr = cExpression(chain.node, t, model, resolveUfunc, 'float');
  if (expr === null) {
    return null;
  }
  let value = withoutOuterParentheses(expr);
  const writes = chain.writes;
  let dtype = t.dtype;
  if (writes?.op) {
    // `x *= chain`: NumPy's update, `x * (chain)`, from the kernel's input `x` (writesInPlace);
    // where `x` is of the other float dtype, C computes the update in double (the float operand
    // widened exactly) and the store rounds it to `x`'s dtype, as NumPy's same_kind cast does
    const x = t.cNames.get(writes.array.text);
    if (x === undefined) {
      return null;
    }
    const written = t.decls.find(p => p.name === x)?.dtype ?? t.dtype;
    if (written !== 'float32' && written !== 'float64') {
      return null;
    }
    dtype = written;
    if (writes.op === '**') {
      // (CUDA's pow(float, float) and pow(double, double) match a float and a double equally
      // well: the float operand is widened explicitly)
      const mixed = dtype !== t.dtype;
      const base = mixed && dtype === 'float32' ? `(double)${x}` : x;
      value = `${cMathFunction('power', mixed ? 'float64' : dtype)}(${base}, ${mixed && t.dtype === 'float32' ? `(double)(${value})` : value})`;
    } else {
      value = `${x} ${writes.op} ${/^[\w.]+$/.test(value) ? value : `(${value})`}`;
    }
  }
  // the in-place update's new value of `x` is `x_new`; `x *= x_kernel(y)`'s chain is its `factor`
  const target = chain.target && /^[A-Za-z_]\w*$/.test(chain.target) ? chain.target : 'out';
  const out = cName(writes?.op ? `${target}_new` : chain.output ?? target, t.taken);
  return {
    inParams: kernelParams(t).map(p => `${p.dtype ?? t.dtype} ${p.name}`).join(', '),
    outParams: `${dtype} ${out}`,
    operation: `${out} = ${value}`
  };
}

/**
 * `text` without one pair of parentheses around all of it (`(sin(a) * cos(a))`, the C form of
 * `np.multiply(np.sin(a), np.cos(a))`), where the first one closes at the end; else `text`.
 */
function withoutOuterParentheses(text: string): string {
  if (!text.startsWith('(') || !text.endsWith(')')) {
    return text;
  }
  let depth = 0;
  for (let k = 0; k < text.length; k++) {
    depth += text[k] === '(' ? 1 : text[k] === ')' ? -1 : 0;
    if (depth === 0) {
      return k === text.length - 1 ? text.slice(1, -1) : text;
    }
  }
  return text;
}

/**
 * A full reduction over the chain as one typed kernel (rules/arrays/reduction-kernel.ts), or null
 * (types unknown or mixed, a piece with no C form, a reduction without a typed kernel). `t` and
 * `anyScalar` as for elementwiseKernelFor.
 */
function reductionKernelFor(
  chain: Omit<ElementwiseChain, 'kernel' | 'reduce' | 'untyped' | 'target'>,
  t: TypedParams,
  model: NotebookModel,
  cell: CellModel,
  resolveUfunc: (n: SyntaxNode) => string | null,
  anyScalar = false
): ReductionKernelSpec | null {
  const reduction = chain.reduction ? TYPED_REDUCTIONS.get(chain.reduction) : undefined;
  // (the launchers read every array as one float dtype: a bool mask or a complex array keeps
  // the CuPy form)
  if (!reduction || !chain.reduced || t.bools.size > 0 || t.complexes.size > 0) {
    return null;
  }
  const elementIsBool = unparen(chain.reduced.node).type === 'comparison_operator';
  const dt = chain.value.kind === 'ndarray' ? chain.value.dtype : undefined;
  if (elementIsBool ? dt !== undefined && dt !== 'bool' : !anyScalar && floatCType(dt) !== t.dtype) {
    return null;
  }
  const element = cExpression(chain.reduced.node, t, model, resolveUfunc, elementIsBool ? 'bool' : 'float');
  // (the reduction kernels have no preamble for NumPy's float % and //: such a chain is CuPy's
  // calls, with the definitions' exact ones: float-remainder.ts)
  if (element === null || usesNpyDivmod(element)) {
    return null;
  }
  // A cp.ReductionKernel only for the float sum of one array named by a plain name (its launcher
  // copies a view to a contiguous array first): CuPy runs it through CUB only with ONE input
  // (with more it launches a single block). CuPy 14's CUB path renames that input to `in0` by
  // plain text replacement (`map_expr.replace(name, 'in0')` in _cub_reduction.pyx), so a name
  // that also occurs inside another token of the element (`d` in `(double)`, `x` in `expf`, `f`
  // in `0.5f`) would corrupt it: such a chain gets the RawKernel form. (Naming the input `in0`
  // ourselves skips the renaming, but then CuPy declares no `type_in0_raw`, which the CUB
  // kernel needs.) Not `a`, `b` or `r` either: the combine and the final expressions' names.
  const only = chain.params.length === 1 ? chain.params[0] : null;
  const name = kernelParams(t)[0]?.name ?? '';
  const map = `(double)(${element})`;
  const renamedSafely = map.split(name).length - 1 === (map.match(new RegExp(`\\b${name}\\b`, 'g')) ?? []).length;
  const library = !!only && only.node.type === 'identifier' && reduction === 'sum' && !elementIsBool && !['a', 'b', 'r'].includes(name) && renamedSafely;
  // an array the analysis does not know to have the reduced value's shape (a row `w` of `a * w`,
  // or a shape it cannot infer) is read through the kernel's broadcast index; one array alone
  // always has it (scalars do not broadcast it)
  const shape = (n: SyntaxNode): string | null => {
    const s = model.inferValue(n, cell).shape;
    return s && s.every(d => d !== null) ? s.join(',') : null;
  };
  const result = chain.value.kind === 'ndarray' && chain.value.shape?.every(d => d !== null) ? chain.value.shape.join(',') : null;
  const arrays = t.decls.filter(p => p.array).length;
  const params = t.decls
    .map((p, k) => (p.array && arrays > 1 && (result === null || shape(chain.params[k].node) !== result) ? { ...p, broadcast: true } : p))
    .filter(p => p.literal === undefined);
  return { reduction, dtype: t.dtype, params, element, elementIsBool, library };
}
