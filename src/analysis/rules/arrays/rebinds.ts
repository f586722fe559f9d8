/**
 * Where a cell lets go of the array a name held before it: `q = q0.copy()` as the cell's first
 * use of `q` binds `q` to a new array, so nothing the cell (or a later one) does through `q`
 * touches the array `q` held before. updatedInPlaceAfter stops following a holder there: a later
 * cell that starts over (`q = q0.copy()` then `q[:] = ...` in a loop) updates its own array, not
 * the one an earlier cell shared; startsOverNext finds a value no later cell reads.
 */
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, kids, unparen } from '../../syntax';
import { globalReferences, updatedInCell } from './cupy-rewrite';

/**
 * NumPy calls that return a new array that shares no memory with their arguments (`np.array`
 * only without a `copy=` keyword: `copy=False` may hand back the argument).
 */
const FRESH_NUMPY = /^numpy\.(array|copy|zeros|ones|empty|full|zeros_like|ones_like|empty_like|full_like|arange|linspace)$/;

/**
 * Does the module-level code of `root` bind `name` to a new array before it uses `name` in any
 * other way? Only a top-level `name = <fresh>` counts (not one inside an `if`, a loop or a
 * `with`: it may not run), before which no statement mentions `name`, and whose right side
 * neither reads `name` nor may hand back memory it shares: a `.copy()`, a NumPy constructor
 * (`FRESH_NUMPY`) or an operator expression (NumPy makes a new array for each). `q = w`,
 * `q = w[1:]` or `q = np.asarray(w)` may keep the old memory: no.
 */
export function rebindsFreshFirst(root: SyntaxNode, name: string, model: NotebookModel): boolean {
  for (const statement of kids(root)) {
    const assignment = statement.type === 'expression_statement' ? statement.namedChild(0) : null;
    const left = assignment?.type === 'assignment' ? field(assignment, 'left') : null;
    const right = assignment ? field(assignment, 'right') : null;
    if (left?.type === 'identifier' && left.text === name && right && !field(assignment!, 'type')) {
      return globalReferences(right, name).length === 0 && isFreshArray(right, model);
    }
    if (globalReferences(statement, name).length > 0) {
      return false;
    }
  }
  return false;
}

/** Is `expr` an array NumPy makes anew, sharing no memory with what it reads (see rebindsFreshFirst)? */
function isFreshArray(expr: SyntaxNode, model: NotebookModel): boolean {
  const n = unparen(expr);
  if (n.type === 'binary_operator' || n.type === 'unary_operator') {
    return true;
  }
  if (n.type !== 'call') {
    return false;
  }
  const fn = field(n, 'function');
  const args = callArguments(n);
  if (fn?.type === 'attribute' && field(fn, 'attribute')?.text === 'copy' && args.positional.length === 0 && args.keywords.size === 0 && !model.qualifiedName(fn)) {
    return true;
  }
  return !!fn && FRESH_NUMPY.test(model.qualifiedName(fn) ?? '') && !args.keywords.has('copy');
}

/**
 * Is what `name` holds after `cell` dead: does the next cell that uses `name` first bind it to a
 * new array (rebindsFreshFirst)? Then no later cell reads that value, and bringing it back to
 * the host would copy it for nothing.
 */
export function startsOverNext(name: string, cell: CellModel, model: NotebookModel): boolean {
  const next = [...model.readersAfter(name, cell), ...model.writers(name).filter(c => c.index > cell.index)].sort((a, b) => a.index - b.index)[0];
  return !!next?.tree && rebindsFreshFirst(next.tree.rootNode, name, model);
}

/**
 * Is the array one of `holders` holds after `cell` updated in place by a later cell
 * (`updatedInCell`)? updatedInPlaceFrom (cupy-rewrite.ts) asks each later reader of a holder; here
 * a holder is followed only until the first later cell that binds it to a new array before any
 * other use (rebindsFreshFirst): from there on it holds another array. A later reader or writer
 * of each holder is asked, in notebook order.
 */
export function updatedInPlaceAfter(holders: readonly string[], cell: CellModel, model: NotebookModel): boolean {
  return holders.some(h => {
    const readers = new Set(model.readersAfter(h, cell));
    const later = [...new Set([...readers, ...model.writers(h).filter(c => c.index > cell.index)])].sort((a, b) => a.index - b.index);
    for (const c of later) {
      if (!c.tree || !c.facts) {
        continue;
      }
      if (rebindsFreshFirst(c.tree.rootNode, h, model)) {
        return false;
      }
      if (readers.has(c) && updatedInCell(c.tree.rootNode, h, c.facts.mutates, model)) {
        return true;
      }
    }
    return false;
  });
}
