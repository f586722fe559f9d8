/**
 * Per-element Python over arrays: code that calls Python (a function, an expression, a loop
 * body) once per element of an array. CuPy runs whole-array calls; it cannot run a Python
 * function per element, and writing the same loop over a device array makes every element a
 * device round trip. Such cells want a kernel (Numba CUDA `@cuda.jit`, `@vectorize(target=
 * 'cuda')`, a CuPy `ElementwiseKernel`): the GPU2xx family, not GPU1xx.
 *
 * Recognised (any array size, the iterable's value per the notebook model):
 * - comprehensions and generator expressions over an array (`[f(v) for v in arr]`,
 *   `np.array([...])`, `[... for a in np.linspace(...)]`), over `enumerate/zip/reversed(arr)`,
 *   `arr.tolist()`, `arr.flat`, or over `range(len(arr))` / `range(arr.size)` /
 *   `range(arr.shape[k])`;
 * - `map(f, arr)` / `filter(f, arr)`; `np.fromiter(...)`;
 * - a `for` loop over a one-dimensional array, or over `range(len(arr))` (and the like) whose
 *   body indexes an array with the loop variable.
 * (`np.vectorize`, `np.frompyfunc`, `np.apply_along_axis`, `np.nditer`... are refused through
 * the NumPy refusal table.)
 *
 * Not per element: iterating over an array the model knows to be small, such as a handful of
 * parameters (`[np.exp(-x / s).sum() for s in np.linspace(0.5, 2, 4)]`, `for s in sigmas` of 8
 * values): the host loop runs SMALL_ITERATIONS times at most, each iteration whole-array work on
 * the device. Nested clauses count together (their product).
 *
 * Nor a per-row reduction the rewrite makes one whole-array reduction (rowReduction).
 */
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, kids, unparen, walkTypes } from '../../syntax';
import { shapeSize } from '../../values';

export const PER_ELEMENT_ADVICE =
  "needs a kernel (Numba CUDA @cuda.jit or @vectorize(target='cuda')), not CuPy array calls; kernel rules (GPU2xx) are a later family";

const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);
/** What `perElementPython` visits. */
const PER_ELEMENT_TYPES = [...COMPREHENSIONS, 'call', 'for_statement'];
const WRAPPERS = new Set(['enumerate', 'zip', 'reversed', 'sorted', 'list', 'tuple', 'iter']);
const TO_PYTHON = new Set(['tolist', 'flat', 'ravel', 'flatten']);

/**
 * The most iterations over arrays (the product of a comprehension's clauses over arrays) that
 * are taken for a loop over parameters, not over data. Each iteration of such a loop on the
 * device costs a few kernel launches (~10 us each) and its host round of Python: 64 iterations
 * stay within a millisecond or two, which whole-array work per iteration (the reason to rewrite)
 * outweighs; an array of more elements than that is data, and a loop over it per-element work.
 */
export const SMALL_ITERATIONS = 64;

/** Reductions a per-row comprehension may make, as NumPy functions or array methods. */
const ROW_REDUCTIONS = new Set(['sum', 'mean', 'max', 'min', 'std', 'var', 'nansum', 'nanmean', 'nanmax', 'nanmin', 'nanstd', 'nanvar']);

/** A per-row reduction comprehension: the array, its mask, the reduction. */
export interface RowReduction {
  /** The array whose rows are reduced (a name). */
  x: SyntaxNode;
  /** The boolean mask over the rest of its axes (a name), or null (`X[k]` of a 2-D X). */
  mask: SyntaxNode | null;
  /** The reduction's NumPy name (`nanmean`). */
  red: string;
  /** The function of `np.red(...)`, or null for the method `E.red()`. */
  reducer: SyntaxNode | null;
}

/**
 * `np.array([np.nanmean(X[k][M]) for k in range(N)])` (or `np.asarray`, `X[k, M]`,
 * `X[k][M].mean()`, and `X[k]` for a 2-D X), with N X's number of rows (the number, `len(X)` or
 * `X.shape[0]`) and M a boolean mask over the rest of X's axes that does not depend on k: whole-row
 * work per item, which cupy-rewrite makes one reduction over all the rows, so not per-element
 * Python (perElementPython skips it); null for any other call.
 */
export function rowReduction(call: SyntaxNode, model: NotebookModel, cell: CellModel): RowReduction | null {
  const maker = field(call, 'function');
  const args = callArguments(call);
  const comp = args.positional.length === 1 && args.keywords.size === 0 ? unparen(args.positional[0]) : null;
  if (!maker || !/^numpy\.(array|asarray)$/.test(model.qualifiedName(maker) ?? '') || comp?.type !== 'list_comprehension') {
    return null;
  }
  const clauses = kids(comp).filter(k => k.type === 'for_in_clause' || k.type === 'if_clause');
  const k = clauses.length === 1 ? field(clauses[0], 'left') : null;
  const range = clauses.length === 1 ? field(clauses[0], 'right') : null;
  const rangeArgs = range?.type === 'call' && field(range, 'function')?.text === 'range' ? callArguments(range).positional : [];
  const body = field(comp, 'body');
  if (k?.type !== 'identifier' || rangeArgs.length !== 1 || body?.type !== 'call') {
    return null;
  }
  // the reduction: `np.red(E)` or `E.red()`
  const fn = field(body, 'function');
  const bodyArgs = callArguments(body);
  const q = fn ? model.qualifiedName(fn) : null;
  const reducer = q?.startsWith('numpy.') ? fn : null;
  const method = fn?.type === 'attribute' && !q ? field(fn, 'attribute')?.text : undefined;
  const red = reducer ? q!.slice('numpy.'.length) : method;
  const e = reducer ? bodyArgs.positional[0] : method ? field(fn!, 'object') : null;
  if (!red || !ROW_REDUCTIONS.has(red) || !e || bodyArgs.keywords.size > 0 || bodyArgs.positional.length !== (reducer ? 1 : 0)) {
    return null;
  }
  // the row and the mask: `X[k][M]`, `X[k, M]` or `X[k]`
  const u = unparen(e);
  const inner = u.type === 'subscript' ? unparen(field(u, 'value')!) : null;
  const picks = (sub: SyntaxNode): SyntaxNode[] => kids(sub).slice(1).filter(c => c.type !== 'comment');
  let x: SyntaxNode | null = null;
  let mask: SyntaxNode | null = null;
  if (inner?.type === 'subscript' && picks(inner).length === 1 && picks(u).length === 1) {
    if (picks(inner)[0].text !== k.text) {
      return null;
    }
    [x, mask] = [field(inner, 'value'), picks(u)[0]];
  } else if (u.type === 'subscript' && picks(u)[0]?.text === k.text && picks(u).length <= 2) {
    [x, mask] = [field(u, 'value'), picks(u)[1] ?? null];
  }
  const xv = x?.type === 'identifier' ? model.inferValue(x, cell) : null;
  if (!x || !xv?.shape || !isRowCount(rangeArgs[0], x.text, xv.shape[0], model, cell)) {
    return null;
  }
  if (!mask) {
    return xv.shape.length === 2 ? { x, mask, red, reducer } : null;
  }
  const mv = mask.type === 'identifier' ? model.inferValue(mask, cell) : null;
  const fits = mv?.kind === 'ndarray' && mv.dtype === 'bool' && JSON.stringify(mv.shape) === JSON.stringify(xv.shape.slice(1));
  return fits ? { x, mask, red, reducer } : null;
}

/** Is `n` the number of rows of the array `x` (`len(x)`, `x.shape[0]`, or `rows`, the number)? */
function isRowCount(n: SyntaxNode, x: string, rows: number | null, model: NotebookModel, cell: CellModel): boolean {
  const u = unparen(n);
  if (u.type === 'call' && field(u, 'function')?.text === 'len') {
    const a = callArguments(u).positional;
    return a.length === 1 && unparen(a[0]).text === x;
  }
  if (u.type === 'subscript') {
    const v = field(u, 'value');
    const picks = kids(u).slice(1).filter(c => c.type !== 'comment');
    return v?.type === 'attribute' && field(v, 'attribute')?.text === 'shape' && field(v, 'object')?.text === x && picks.length === 1 && picks[0].text === '0';
  }
  return rows !== null && rows === model.constantValue(n, cell);
}

function short(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 60 ? `${one.slice(0, 57)}...` : one;
}

/**
 * The reason a cell runs Python per element of an array, or null. `isArrayName` says whether a
 * bare name holds an array where it is used (defaults to the model's inference).
 */
export function perElementPython(root: SyntaxNode, model: NotebookModel, cell: CellModel): string | null {
  const isArray = (n: SyntaxNode): boolean => {
    const k = model.inferValue(n, cell).kind;
    return k === 'ndarray';
  };
  /**
   * How many items iterating over `n` yields at most, as far as the model knows its shape: the
   * length of its first dimension (`elements`: all its elements, `a.flat`), or null (not an
   * array, or neither shape nor size known). Where the model knows only a bound on the size (the
   * `np.unique` of 30 values: at most 30), that bound bounds the items too: no axis is longer
   * than the size of a non-empty array.
   */
  const arrayCount = (n: SyntaxNode, elements = false): number | null => {
    const v = model.inferValue(n, cell);
    if (v.kind !== 'ndarray' || v.shape?.length === 0) {
      return null;
    }
    if (v.shape && !v.approx) {
      return elements ? shapeSize(v.shape) ?? null : v.shape[0];
    }
    // (a size of 0 says nothing about the first dimension: shape (5, 0))
    return v.size !== undefined && v.size > 0 ? v.size : null;
  };
  /**
   * The items of an iterable whose items are an array's elements (or rows): `count` how many (an
   * upper bound; null where the model does not know), or null when it iterates no array.
   */
  const arrayItems = (it: SyntaxNode): { count: number | null } | null => {
    const n = unparen(it);
    if (n.type === 'call') {
      const fn = field(n, 'function');
      if (fn?.type === 'identifier' && WRAPPERS.has(fn.text)) {
        return shortest(callArguments(n).positional);
      }
      const method = fn?.type === 'attribute' ? field(fn, 'attribute')?.text ?? '' : '';
      if (TO_PYTHON.has(method)) {
        const obj = field(fn!, 'object');
        return obj && isArray(obj) ? { count: arrayCount(obj, method !== 'tolist') } : null;
      }
    }
    if (n.type === 'attribute' && field(n, 'attribute')?.text === 'flat') {
      const obj = field(n, 'object');
      return obj && isArray(obj) ? { count: arrayCount(obj, true) } : null;
    }
    return isArray(n) ? { count: arrayCount(n) } : null;
  };
  /**
   * The items of iterables walked together (`zip(a, b)`, `map(f, a, b)`; one alone, `enumerate(a)`)
   * that iterate arrays: as many as the shortest one known, or null when none iterates an array.
   */
  const shortest = (iterables: SyntaxNode[]): { count: number | null } | null => {
    const items = iterables.map(a => arrayItems(a)).filter((x): x is { count: number | null } => x !== null);
    const counts = items.map(x => x.count).filter((c): c is number => c !== null);
    return items.length === 0 ? null : { count: counts.length > 0 ? Math.min(...counts) : null };
  };
  /**
   * `range(len(a))`, `range(a.size)`, `range(a.shape[0])`, `range(n, len(a))`...: the items as
   * for arrayItems (the array's length bounds the count), or null.
   */
  const rangeOverArray = (it: SyntaxNode): { count: number | null } | null => {
    const n = unparen(it);
    if (n.type !== 'call' || field(n, 'function')?.text !== 'range') {
      return null;
    }
    for (const a of callArguments(n).positional) {
      const x = unparen(a);
      if (x.type === 'call' && field(x, 'function')?.text === 'len') {
        const arg = callArguments(x).positional[0];
        if (arg && isArray(arg)) {
          return { count: arrayCount(arg) };
        }
      }
      if (x.type === 'attribute' && field(x, 'attribute')?.text === 'size') {
        const obj = field(x, 'object');
        if (obj && isArray(obj)) {
          return { count: arrayCount(obj, true) };
        }
      }
      if (x.type === 'subscript') {
        const v = field(x, 'value');
        if (v?.type === 'attribute' && field(v, 'attribute')?.text === 'shape') {
          const obj = field(v, 'object');
          if (obj && isArray(obj)) {
            const k = unparen(field(x, 'subscript') ?? x);
            const shape = model.inferValue(obj, cell).shape;
            const d = k.type === 'integer' && shape ? shape[Number(k.text)] : undefined;
            return { count: typeof d === 'number' ? d : null };
          }
        }
      }
    }
    return null;
  };
  /** Iterations over arrays beyond SMALL_ITERATIONS, or of a count the model does not know. */
  const large = (items: ({ count: number | null } | null)[]): boolean => {
    const over = items.filter((x): x is { count: number | null } => x !== null);
    return over.length > 0 && !(over.every(x => x.count !== null) && over.reduce((p, x) => p * x.count!, 1) <= SMALL_ITERATIONS);
  };
  const loopVars = (left: SyntaxNode | null): Set<string> => {
    const vars = new Set<string>();
    const rec = (n: SyntaxNode): void => {
      if (n.type === 'identifier') {
        vars.add(n.text);
      }
      recChildren(n, rec);
    };
    if (left) {
      rec(left);
    }
    return vars;
  };
  /** Does `body` index something with one of `vars` (`a[i]`, `a[i, j]`, `a[i + 1]`)? */
  const indexesWith = (body: SyntaxNode, vars: ReadonlySet<string>): boolean => {
    let hit = false;
    const rec = (n: SyntaxNode): void => {
      if (hit) {
        return;
      }
      if (n.type === 'subscript') {
        const sub = field(n, 'subscript');
        if (sub && mentionsAny(sub, vars)) {
          hit = true;
          return;
        }
      }
      recChildren(n, rec);
    };
    rec(body);
    return hit;
  };

  let reason: string | null = null;
  const found = (what: string, node: SyntaxNode): void => {
    reason = `per-element Python loop/function (${what}: \`${short(node.text)}\`): ${PER_ELEMENT_ADVICE}`;
  };
  // pre-order over the nodes that may run Python per element (no node object for the others);
  // the first one found gives the reason, and the walk stops descending once it has one
  walkTypes(root, PER_ELEMENT_TYPES, n => {
    if (reason) {
      return false;
    }
    const type = n.type;
    if (COMPREHENSIONS.has(type)) {
      const items = kids(n)
        .filter(c => c.type === 'for_in_clause')
        .map(c => field(c, 'right'))
        .map(right => (right ? arrayItems(right) ?? rangeOverArray(right) : null));
      if (large(items)) {
        found('a comprehension over an array runs Python once per element', n);
        return false;
      }
    } else if (type === 'call') {
      if (rowReduction(n, model, cell)) {
        // one whole-array reduction after the rewrite (its comprehension is not visited)
        return false;
      }
      const fn = field(n, 'function');
      if (fn?.type === 'identifier' && (fn.text === 'map' || fn.text === 'filter')) {
        if (large([shortest(callArguments(n).positional.slice(1))])) {
          found(`${fn.text}() calls a Python function once per element`, n);
          return false;
        }
      }
      const q = fn ? model.qualifiedName(fn) : null;
      if (q === 'numpy.fromiter') {
        found('np.fromiter consumes a Python iterable element by element', n);
        return false;
      }
    } else {
      // a for statement
      const right = field(n, 'right');
      const body = field(n, 'body');
      if (right && body) {
        const v = model.inferValue(right, cell);
        const oneD = v.kind === 'ndarray' && v.shape !== undefined && v.shape.length === 1;
        const vars = loopVars(field(n, 'left'));
        const range = rangeOverArray(right);
        if ((oneD && large([{ count: arrayCount(right) }])) || (range && large([range]) && indexesWith(body, vars))) {
          found('a Python for loop visits the array element by element', right);
          return false;
        }
      }
    }
    return true;
  });
  return reason;
}

/** `visit` on each named child (an index loop: no iterator or callback per child). */
function recChildren(n: SyntaxNode, visit: (c: SyntaxNode) => void): void {
  const cs = kids(n);
  for (let k = 0; k < cs.length; k++) {
    visit(cs[k]);
  }
}

function mentionsAny(n: SyntaxNode, names: ReadonlySet<string>): boolean {
  if (n.type === 'identifier') {
    return names.has(n.text);
  }
  return kids(n).some(k => mentionsAny(k, names));
}
