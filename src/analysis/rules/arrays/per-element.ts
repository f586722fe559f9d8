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
 */
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, kids, unparen, walkTypes } from '../../syntax';

export const PER_ELEMENT_ADVICE =
  "needs a kernel (Numba CUDA @cuda.jit or @vectorize(target='cuda')), not CuPy array calls; kernel rules (GPU2xx) are a later family";

const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);
/** What `perElementPython` visits. */
const PER_ELEMENT_TYPES = [...COMPREHENSIONS, 'call', 'for_statement'];
const WRAPPERS = new Set(['enumerate', 'zip', 'reversed', 'sorted', 'list', 'tuple', 'iter']);
const TO_PYTHON = new Set(['tolist', 'flat', 'ravel', 'flatten']);

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
  /** An iterable whose items are an array's elements (or rows). */
  const iteratesArray = (it: SyntaxNode): boolean => {
    const n = unparen(it);
    if (n.type === 'call') {
      const fn = field(n, 'function');
      if (fn?.type === 'identifier' && WRAPPERS.has(fn.text)) {
        return callArguments(n).positional.some(a => iteratesArray(a));
      }
      if (fn?.type === 'attribute' && TO_PYTHON.has(field(fn, 'attribute')?.text ?? '')) {
        const obj = field(fn, 'object');
        return !!obj && isArray(obj);
      }
    }
    if (n.type === 'attribute' && field(n, 'attribute')?.text === 'flat') {
      const obj = field(n, 'object');
      return !!obj && isArray(obj);
    }
    return isArray(n);
  };
  /** `range(len(a))`, `range(a.size)`, `range(a.shape[0])`, `range(n, len(a))`... */
  const rangeOverArray = (it: SyntaxNode): boolean => {
    const n = unparen(it);
    if (n.type !== 'call' || field(n, 'function')?.text !== 'range') {
      return false;
    }
    return callArguments(n).positional.some(a => {
      const x = unparen(a);
      if (x.type === 'call' && field(x, 'function')?.text === 'len') {
        const arg = callArguments(x).positional[0];
        return !!arg && isArray(arg);
      }
      if (x.type === 'attribute' && field(x, 'attribute')?.text === 'size') {
        const obj = field(x, 'object');
        return !!obj && isArray(obj);
      }
      if (x.type === 'subscript') {
        const v = field(x, 'value');
        if (v?.type === 'attribute' && field(v, 'attribute')?.text === 'shape') {
          const obj = field(v, 'object');
          return !!obj && isArray(obj);
        }
      }
      return false;
    });
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
      for (const clause of kids(n)) {
        if (clause.type !== 'for_in_clause') {
          continue;
        }
        const right = field(clause, 'right');
        if (right && (iteratesArray(right) || rangeOverArray(right))) {
          found('a comprehension over an array runs Python once per element', n);
          return false;
        }
      }
    } else if (type === 'call') {
      const fn = field(n, 'function');
      if (fn?.type === 'identifier' && (fn.text === 'map' || fn.text === 'filter')) {
        const iterables = callArguments(n).positional.slice(1);
        if (iterables.some(a => iteratesArray(a))) {
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
        if (oneD || (rangeOverArray(right) && indexesWith(body, vars))) {
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
