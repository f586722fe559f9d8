/**
 * Small arrays made from constants, kept NumPy's on the host.
 *
 * A cell often makes a few parameters or indices from numbers alone and walks them with a host
 * loop, indexes with them or fits against them:
 *
 *     lags = np.unique(np.logspace(0, np.log10(n_t // 2), 30).astype(int))
 *     msd = np.array([np.mean(np.sum((traj[:, lag:] - traj[:, :-lag]) ** 2, axis=2)) for lag in lags])
 *     D_fit = np.polyfit(lags * dt_b, msd, 1)[0] / 4
 *
 * Made on the device, `lags` costs kernel launches for 30 numbers, a copy back to iterate it
 * (`for lag in cp.asnumpy(lags)`), and worse, may hold other numbers: `.astype(int)` truncates,
 * and a pow one ulp apart from NumPy's changes an index (NumPy gives 10**log10(500) as
 * 499.99999999999994, so 499; a device pow may give 500.0, so 500), which changes every lag and
 * every value computed at it. An expert keeps it NumPy's and copies it in where it meets device
 * data, once per such use (`cp.asarray(lags) * dt_b`: 240 bytes). The fit of 30 points itself
 * stays NumPy's on the host too, `msd` copied to it (cupy-rewrite.ts tinyHostSolve):
 * `np.polyfit(lags * dt_b, cp.asnumpy(msd), 1)`, so `lags` meets no device data there.
 *
 * Kept on the host: a name the cell binds once to an array reading no array (numbers and host
 * scalars only), made by NumPy (or drawn from a NumPy Generator an earlier cell made:
 * `centers = rng.uniform(20, 80, size=(150, 2))`, then `for cy, cx in centers:`), of at most
 * SMALL_HOST_ELEMENTS elements as the model knows its
 * size (an exact shape, or an upper bound such as np.unique's), or of any size when it converts a
 * transcendental result to integers (integerOfTranscendental: those integers must be NumPy's),
 * whose every use in the cell is one of:
 * - the iterable of a loop or comprehension (its items host numbers);
 * - a read of its metadata (`peaks.size`, `lags.shape[0]`): a host number on either side, so
 *   neither a copy in nor a copy back (not counted as a host use below);
 * - an argument of a host consumer (`plt.plot`) or of a Python builtin (`print`, `len`);
 * - an index of a subscript (`x[lags]`), an operand of arithmetic or comparison with an array,
 *   or an argument of a NumPy call: where that is device work (known once the rewrite has placed
 *   the cell's arrays), the use is copied in (`cp.asarray(lags)`); else it stays host code;
 * - any of these through arithmetic with numbers or a subscript by numbers (`lags * dt_b`,
 *   `lags[-1]`: their uses are `lags`'s), or through a NumPy call reading no other array
 *   (`np.log(lags)`): that call stays NumPy's, so a host consumer gets a host array
 *   (`plt.plot(np.log(lags), ...)`), and where its result meets device data the result is what is
 *   copied in (`cp.polyfit(cp.asarray(np.log(lags)), ...)`);
 * and where that saves copies: no more uses meeting device work (copies in) than host uses (each
 * a copy back of a device array), none in a loop the binding is not in (a copy per iteration).
 * So `f = np.ones(n)` that only a solve reads stays `cp.ones(n)`. Integers from a transcendental
 * function are kept whatever their copies if small, and with at most one outside loops if not.
 * Such integers written where they are used (`x[np.logspace(0, 3, 30).astype(int)]`), or bound to
 * a name not kept (`idx = np.rint(...)`, then `idx.sum()`), are kept and copied in the same way
 * (the name then bound to the copy: `idx = cp.asarray(np.rint(...))`).
 * Any other use (a method call, a binding of a new name from it, an update in place) leaves the
 * array to the rewrite as before: on the device. Large arrays stay on the device (`np.arange(n)`
 * of a million elements made on the host would cost its copy's bandwidth; the device makes it).
 */
import { TRANSCENDENTAL_UFUNCS } from '../../apis/cupy';
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, isValueIdentifier, kids, operatorOf, walkTypes } from '../../syntax';
import { shapeSize } from '../../values';

/**
 * Elements at most of an array from constants kept on the host. The host makes one of 4096
 * float64s in a few microseconds (NumPy's per-call overhead dominates), and copying its 32 KiB in
 * where it meets device data costs one transfer's latency (~10 us): about one kernel launch, what
 * making it on the device would cost anyway (more for a chain of calls), so the device saves
 * nothing. Beyond that the copy's bytes start to count, and the array is data: made on the device.
 */
export const SMALL_HOST_ELEMENTS = 4096;

/** NumPy's array makers whose values are powers (`base ** linspace`): transcendental per element. */
const TRANSCENDENTAL_MAKERS: ReadonlySet<string> = new Set(['logspace', 'geomspace']);
/** NumPy's functions that round to integral values (as floats, made integers next). */
const ROUNDINGS: ReadonlySet<string> = new Set(['floor', 'ceil', 'rint', 'trunc', 'fix', 'round', 'around']);

/** A use of a kept array that meets array work: copied in there if that work runs on the device. */
export interface ArrayMeeting {
  /**
   * What to copy in: the reference to the kept name (`lags` in `lags * dt_b`), or the NumPy call
   * of it that stays NumPy's (`np.log(lags)`).
   */
  use: SyntaxNode;
  /**
   * What it meets: the call it is an argument of (device work when the rewrite makes it a CuPy
   * call), the other operand of the operator, the array the subscript indexes, or the assignment.
   */
  partner: SyntaxNode;
  /** `bind`: the binding of a name the rewrite puts on the device (copied in as it is bound). */
  kind: 'call' | 'operand' | 'index' | 'bind';
}

/** An array bound from constants that stays NumPy's. */
export interface SmallHostArray {
  /** The name bound to it; none where it is written where it is used. */
  name?: string;
  /** The value it is bound to: kept NumPy (no reference in it rewritten). */
  value: SyntaxNode;
  meetings: ArrayMeeting[];
  /** The NumPy calls reading it and no other array (`np.log(lags)`): kept NumPy too. */
  hostCalls: SyntaxNode[];
}

/** Attributes of an array that are host numbers or dtypes in NumPy and CuPy alike. */
const METADATA: ReadonlySet<string> = new Set(['shape', 'size', 'ndim', 'dtype', 'itemsize', 'nbytes']);

/**
 * The arrays of this module (see the file's documentation) in `root`. `references` lists the
 * cell's references to a module-level name (shadowed ones left out); `hostConsumer` says whether a
 * call hands its arguments to host code.
 */
export function smallHostArrays(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  references: (root: SyntaxNode, name: string) => SyntaxNode[],
  hostConsumer: (call: SyntaxNode) => boolean
): SmallHostArray[] {
  const isArray = (k: SyntaxNode): boolean => {
    const kind = model.inferValue(k, cell).kind;
    return kind === 'ndarray' || kind === 'sparse' || kind === 'rng';
  };
  // an array read for its metadata only (`traj.shape[1]`, `len(x)`) gives a Python number on
  // either side: the expression reads no array data
  const metadataOnly = (k: SyntaxNode): boolean => {
    const p = k.parent;
    if (p?.type === 'attribute' && field(p, 'object')?.id === k.id) {
      return METADATA.has(field(p, 'attribute')?.text ?? '');
    }
    const call = p?.type === 'argument_list' ? p.parent : null;
    return call?.type === 'call' && field(call, 'function')?.text === 'len' && kids(p!).length === 1;
  };
  const readsArray = (e: SyntaxNode): boolean => {
    let hit = false;
    walkTypes(e, ['identifier'], k => {
      hit ||= isValueIdentifier(k) && isArray(k) && !metadataOnly(k);
      return !hit;
    });
    return hit;
  };
  const out: SmallHostArray[] = [];
  const assignments = cell.facts?.assignments ?? [];
  for (const name of new Set(assignments.map(a => a.name))) {
    const binds = assignments.filter(a => a.name === name);
    const value = binds.length === 1 && !binds[0].augmented && !binds[0].nested ? binds[0].value : null;
    const left = value?.parent?.type === 'assignment' ? field(value.parent, 'left') : null;
    if (!value || left?.type !== 'identifier' || !(hostDraw(value, model, cell, readsArray) || (!readsArray(value) && madeByNumpy(value, model)))) {
      continue;
    }
    const v = model.inferValue(value, cell);
    if (v.kind !== 'ndarray' || v.library === 'cupy' || v.shape?.length === 0) {
      continue;
    }
    // an exact size, or the model's upper bound (np.unique's)
    const size = v.shape && !v.approx ? shapeSize(v.shape) : v.size;
    const small = size !== undefined && size <= SMALL_HOST_ELEMENTS;
    const rounded = integerOfTranscendental(value, model);
    if (!small && !rounded) {
      continue;
    }
    const meetings: ArrayMeeting[] = [];
    const hostCalls: SyntaxNode[] = [];
    const uses = references(root, name).filter(r => r.id !== left.id);
    if (uses.length === 0 || !uses.every(r => metadataOnly(r) || hostUse(r, readsArray, hostConsumer, model, meetings, hostCalls))) {
      continue;
    }
    // a metadata read costs nothing on either side: neither a host use nor a meeting
    const hostUses = uses.filter(r => !metadataOnly(r)).length - meetings.length;
    // each meeting is a copy in, each host use of a device array a copy back (a wait for the
    // device too): kept where it saves copies (`lags`: iterated once, met once), not where only
    // device work reads it (`f = np.ones(n)` solved against: `cp.ones` fills it where it is used).
    // A meeting a loop (or a function) repeats is a copy per run, which a device array made once
    // saves. Integers from a transcendental function are kept whatever the copies (their values
    // matter more), if small; a large one is copied in at one place at most, never in a loop
    const repeated = meetings.some(m => repeats(m.use, value));
    const keep = rounded ? small || (meetings.length <= 1 && !repeated) : small && !repeated && meetings.length <= hostUses;
    if (!keep) {
      continue;
    }
    out.push({ name, value, meetings, hostCalls });
  }
  // the same integers written where they are used (`x[np.logspace(0, 3, 30).astype(int)]`), or
  // bound to a name kept above for no other reason (`idx = np.rint(...)` read by a method): the
  // conversion stays NumPy's, copied in where it meets device work (as it is bound: the name is
  // then the device's), on the rules above
  walkTypes(root, ['call', 'binary_operator'], n => {
    if (out.some(s => n.startIndex >= s.value.startIndex && n.endIndex <= s.value.endIndex) || !roundsTranscendental(n, model) || readsArray(n)) {
      return true;
    }
    const v = model.inferValue(n, cell);
    const size = v.shape && !v.approx ? shapeSize(v.shape) : v.size;
    const meetings: ArrayMeeting[] = [];
    const hostCalls: SyntaxNode[] = [];
    if (v.kind === 'ndarray' && v.shape?.length !== 0 && hostUse(n, readsArray, hostConsumer, model, meetings, hostCalls, true)) {
      const small = size !== undefined && size <= SMALL_HOST_ELEMENTS;
      if (small || (meetings.length <= 1 && !meetings.some(m => repeats(m.use, n)))) {
        out.push({ value: n, meetings, hostCalls });
        return false;
      }
    }
    return true;
  });
  return out;
}

/** Python's builtins that read a NumPy array as host values (`print(lags[-1])`, `len(lags)`). */
const HOST_BUILTINS: ReadonlySet<string> = new Set(['print', 'len', 'int', 'float', 'str', 'repr', 'format', 'list', 'tuple', 'sorted', 'enumerate', 'zip', 'min', 'max', 'sum']);

/** Nodes whose body may run more than once per run of the cell. */
const REPEATING = new Set(['for_statement', 'while_statement', 'list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression', 'function_definition', 'lambda']);

/** Does `use` lie in a loop, comprehension or function that does not hold `binding`? */
function repeats(use: SyntaxNode, binding: SyntaxNode): boolean {
  for (let p = use.parent; p; p = p.parent) {
    if (REPEATING.has(p.type) && !(binding.startIndex >= p.startIndex && binding.endIndex <= p.endIndex)) {
      return true;
    }
  }
  return false;
}

/**
 * The NumPy Generator a method call draws from (`rng` of `rng.uniform(...)`: a name holding a
 * Generator that is not CuPy's), and whether this cell made it before the call (`madeHere`: the
 * rewrite makes that Generator CuPy's, and its draws with it; one an earlier cell made stays
 * NumPy's). Null for any other call. The one test of where a draw's Generator comes from, for
 * this module's host draws and cupy-rewrite.ts's (generatorCalls, drawInDtype).
 */
export function numpyGeneratorOf(call: SyntaxNode, model: NotebookModel, cell: CellModel): { name: string; madeHere: boolean } | null {
  const fn = call.type === 'call' ? field(call, 'function') : null;
  const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
  if (!obj || obj.type !== 'identifier') {
    return null;
  }
  const v = model.valueBefore(obj.text, cell, call.startIndex);
  if (v.kind !== 'rng' || v.library === 'cupy') {
    return null;
  }
  return { name: obj.text, madeHere: (cell.facts?.assignments ?? []).some(a => a.name === obj.text && a.at <= call.startIndex) };
}

/**
 * Is `e` a draw from a NumPy Generator an earlier cell made (`rng.uniform(20, 80, size=(150, 2))`),
 * of arguments reading no array? Such a draw stays NumPy's unless the rewrite moves it (it is
 * copied to the device, or drawn there from a CuPy Generator seeded from it), so small, and
 * walked by host code, it is kept as it is: no copy in, no copy back to iterate it.
 */
function hostDraw(e: SyntaxNode, model: NotebookModel, cell: CellModel, readsArray: (e: SyntaxNode) => boolean): boolean {
  const args = e.type === 'call' ? field(e, 'arguments') : null;
  // (a Generator this cell makes becomes CuPy's, and so do its draws)
  return !!args && !readsArray(args) && numpyGeneratorOf(e, model, cell)?.madeHere === false;
}

/** Does `e` make its array with NumPy (a `numpy.` call in it: not a literal list or another library's)? */
function madeByNumpy(e: SyntaxNode, model: NotebookModel): boolean {
  let hit = false;
  walkTypes(e, ['call'], c => {
    const fn = field(c, 'function');
    hit ||= !!fn && !!model.qualifiedName(fn)?.startsWith('numpy.');
    return !hit;
  });
  return hit;
}

/**
 * Does `e` convert a transcendental result to integers: `.astype(int)` (any integer dtype), a
 * rounding (np.floor, np.rint...) or a floor division (`//`) of an expression holding a pow, exp,
 * log, trigonometric function, np.logspace or np.geomspace? Such integers are kept NumPy's
 * whatever their count: the device's libm and NumPy's may differ in the last bit (both within
 * their ulp bounds), and a last-bit difference across an integer changes the integer (NumPy's
 * 10**log10(500) is 499.99999999999994, truncated to 499; 500.0 on a device truncates to 500),
 * so indices, lags or sizes made on the device could differ from NumPy's, and everything computed
 * at them.
 */
export function integerOfTranscendental(e: SyntaxNode, model: NotebookModel): boolean {
  let hit = false;
  walkTypes(e, ['call', 'binary_operator'], n => {
    hit ||= roundsTranscendental(n, model);
    return !hit;
  });
  return hit;
}

/** Is `n` itself such a conversion (the `.astype(int)` call, the `np.floor` call, the `//`)? */
function roundsTranscendental(n: SyntaxNode, model: NotebookModel): boolean {
  if (n.type === 'binary_operator') {
    return operatorOf(n) === '//' && kids(n).some(k => transcendental(k, model));
  }
  if (n.type !== 'call') {
    return false;
  }
  const fn = field(n, 'function');
  const args = callArguments(n);
  if (fn?.type === 'attribute' && field(fn, 'attribute')?.text === 'astype') {
    const dtype = args.positional[0] ?? args.keywords.get('dtype');
    const obj = field(fn, 'object');
    return !!dtype && !!obj && /(^|[^a-z])u?int(p|c|8|16|32|64|_)?\b|['"][iu]\d?['"]/.test(dtype.text) && transcendental(obj, model);
  }
  const q = fn ? model.qualifiedName(fn) : null;
  return !!q?.startsWith('numpy.') && ROUNDINGS.has(q.slice('numpy.'.length)) && [...args.positional, ...args.keywords.values()].some(a => transcendental(a, model));
}

/** Does `e` compute a transcendental function (a power included: `**`, np.logspace)? */
function transcendental(e: SyntaxNode, model: NotebookModel): boolean {
  let hit = false;
  walkTypes(e, ['call', 'binary_operator'], n => {
    if (n.type === 'binary_operator') {
      hit ||= operatorOf(n) === '**';
    } else {
      const fn = field(n, 'function');
      const q = fn ? model.qualifiedName(fn) : null;
      const name = q?.startsWith('numpy.') ? q.slice('numpy.'.length) : q?.startsWith('math.') ? q.slice('math.'.length) : null;
      hit ||= !!name && (TRANSCENDENTAL_UFUNCS.has(name) || TRANSCENDENTAL_MAKERS.has(name) || name === 'pow');
    }
    return !hit;
  });
  return hit;
}

/**
 * Is the reference `r` a use that keeps its array on the host (see the file's documentation)?
 * Uses that meet array work are added to `meetings`; with `bind`, a binding of a name is one.
 * The NumPy calls it goes through (reading no other array) are added to `hostCalls`.
 */
function hostUse(
  r: SyntaxNode,
  readsArray: (e: SyntaxNode) => boolean,
  hostConsumer: (call: SyntaxNode) => boolean,
  model: NotebookModel,
  meetings: ArrayMeeting[],
  hostCalls: SyntaxNode[],
  bind = false
): boolean {
  let n = r;
  // what a meeting copies in: `r`, or the outermost NumPy call of it kept NumPy's
  let use = r;
  for (;;) {
    const p = n.parent;
    if (!p) {
      return false;
    }
    if (p.type === 'parenthesized_expression' || p.type === 'unary_operator') {
      n = p;
    } else if (p.type === 'binary_operator' || p.type === 'comparison_operator') {
      const other = kids(p).find(k => k.id !== n.id);
      if (!other || kids(p).length !== 2) {
        return false;
      }
      if (readsArray(other)) {
        meetings.push({ use, partner: other, kind: 'operand' });
        return true;
      }
      // arithmetic with numbers: the array's, on the host; its result is used as the array is
      n = p;
    } else if (bind && p.type === 'assignment' && field(p, 'right')?.id === n.id && field(p, 'left')?.type === 'identifier') {
      meetings.push({ use, partner: p, kind: 'bind' });
      return true;
    } else if ((p.type === 'for_statement' || p.type === 'for_in_clause') && field(p, 'right')?.id === n.id) {
      return true;
    } else if (p.type === 'subscript' && field(p, 'value')?.id === n.id) {
      // a part of it picked by numbers (`lags[-1]`, `lags[:3]`): used as it is
      if (kids(p).some(k => k.id !== n.id && readsArray(k))) {
        return false;
      }
      n = p;
    } else if (p.type === 'subscript') {
      const indexed = field(p, 'value');
      if (indexed && readsArray(indexed)) {
        meetings.push({ use, partner: indexed, kind: 'index' });
        return true;
      }
      return false;
    } else if (p.type === 'argument_list' || (p.type === 'keyword_argument' && field(p, 'value')?.id === n.id && p.parent?.type === 'argument_list')) {
      const call = (p.type === 'argument_list' ? p : p.parent!).parent;
      const fn = call ? field(call, 'function') : null;
      if (!call || !fn) {
        return false;
      }
      if (hostConsumer(call) || (fn.type === 'identifier' && HOST_BUILTINS.has(fn.text))) {
        return true;
      }
      if (model.qualifiedName(fn)?.startsWith('numpy.')) {
        const args = field(call, 'arguments');
        if (args && kids(args).every(a => a.id === p.id || a.id === n.id || !readsArray(a))) {
          // `np.log(lags)`: reads no other array, stays NumPy's; its result is used as the array is
          hostCalls.push(call);
          n = call;
          use = call;
          continue;
        }
        meetings.push({ use, partner: call, kind: 'call' });
        return true;
      }
      return false;
    } else {
      return false;
    }
  }
}
