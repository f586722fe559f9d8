/** Small helpers over tree-sitter nodes, shared by the model and the rules. */
import { KIND, MEMO_ARGS, NAMED_BIT, ROW, SUBTREE_END, SyntaxNode, TYPE_MASK } from './parser';

/** Named children (a new array). */
export function kids(node: SyntaxNode): SyntaxNode[] {
  return node.namedChildren;
}

/** All children (named and anonymous; a new array). */
export function allKids(node: SyntaxNode): SyntaxNode[] {
  return node.children;
}

export function field(node: SyntaxNode, name: string): SyntaxNode | null {
  return node.childForFieldName(name);
}

/**
 * Depth-first walk over `node` and its named descendants (through named children, as
 * `namedChildren` recursion would go); return false from `visit` to skip a node's children.
 * It runs over the rows of the tree's pre-order table, without recursion.
 */
export function walk(node: SyntaxNode, visit: (n: SyntaxNode) => boolean | void): void {
  if (visit(node) === false) {
    return;
  }
  const tree = node.tree;
  // the rows read directly (SyntaxTree's layout): this loop runs over every row of most walks
  const d = tree.data;
  const end = d[node.order * ROW + SUBTREE_END];
  let k = node.order + 1;
  while (k < end) {
    // an anonymous node's subtree is skipped, and so is a visited node's when visit says so
    k = (d[k * ROW + KIND] & NAMED_BIT) === 0 || visit(new SyntaxNode(tree, k)) === false ? d[k * ROW + SUBTREE_END] : k + 1;
  }
}

/**
 * `walk`, visiting only the nodes whose type is one of `types` (the others are searched
 * through, not visited): no node object is made for the rows passed over. Return false from
 * `visit` to skip a visited node's children.
 *
 * The rows come from the tree's index of rows by type (`SyntaxTree.typeIndex`): the walk reads
 * only the rows of the types asked for, in pre-order (merged when there are several types),
 * where a loop over every row of the subtree read each row (~1.3 M rows an analysis of the
 * 1,000-cell bench notebook, in ~33 k walks).
 */
export function walkTypes(node: SyntaxNode, types: readonly string[], visit: (n: SyntaxNode) => boolean | void): void {
  const tree = node.tree;
  if (types.includes(node.type) && visit(node) === false) {
    return;
  }
  const index = tree.typeIndex();
  const d = tree.data;
  if (index.hidden[node.order] === 1 || (d[node.order * ROW + KIND] & NAMED_BIT) === 0) {
    // inside an anonymous node (or one itself): the index leaves out what is under it
    scanTypes(node, types, visit);
    return;
  }
  const end = d[node.order * ROW + SUBTREE_END];
  const from = node.order + 1;
  if (types.length === 1) {
    const rows = index.rows.get(types[0]);
    if (rows === undefined) {
      return;
    }
    // (from the row after `node`, visited above: also from the root, whose row 0 is in its own
    // type's list)
    let i = firstAtLeast(rows, from);
    while (i < rows.length) {
      const k = rows[i];
      if (k >= end) {
        return;
      }
      i++;
      if (visit(new SyntaxNode(tree, k)) === false) {
        // the visited node's subtree is skipped
        const skip = d[k * ROW + SUBTREE_END];
        while (i < rows.length && rows[i] < skip) {
          i++;
        }
      }
    }
    return;
  }
  // several types: their row lists merged in pre-order (a type named twice is read once)
  const lists: (readonly number[])[] = [];
  const at: number[] = [];
  for (let t = 0; t < types.length; t++) {
    const rows = index.rows.get(types[t]);
    if (rows !== undefined && !lists.includes(rows)) {
      lists.push(rows);
      at.push(firstAtLeast(rows, from));
    }
  }
  let skip = 0;
  for (;;) {
    let best = end;
    let which = -1;
    for (let j = 0; j < lists.length; j++) {
      const rows = lists[j];
      let i = at[j];
      while (i < rows.length && rows[i] < skip) {
        i++;
      }
      at[j] = i;
      if (i < rows.length && rows[i] < best) {
        best = rows[i];
        which = j;
      }
    }
    if (which < 0) {
      return;
    }
    at[which]++;
    if (visit(new SyntaxNode(tree, best)) === false) {
      skip = d[best * ROW + SUBTREE_END];
    }
  }
}

/** The first position in `rows` (ascending) holding a row >= `row`. */
function firstAtLeast(rows: readonly number[], row: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid] < row) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/** `walkTypes` below `node` by a loop over every row of its subtree (for a node the index does not cover). */
function scanTypes(node: SyntaxNode, types: readonly string[], visit: (n: SyntaxNode) => boolean | void): void {
  const tree = node.tree;
  const d = tree.data;
  const names = tree.typeNames;
  const end = d[node.order * ROW + SUBTREE_END];
  let k = node.order + 1;
  while (k < end) {
    const kind = d[k * ROW + KIND];
    if ((kind & NAMED_BIT) === 0) {
      k = d[k * ROW + SUBTREE_END];
      continue;
    }
    const type = names[kind & TYPE_MASK] ?? 'ERROR';
    if (types.includes(type) && visit(new SyntaxNode(tree, k)) === false) {
      k = d[k * ROW + SUBTREE_END];
    } else {
      k++;
    }
  }
}

/** The operator token of a binary/unary/augmented/comparison node. */
export function operatorOf(node: SyntaxNode): string {
  const op = field(node, 'operator');
  if (op) {
    return op.type;
  }
  const anon = allKids(node).find(c => !c.isNamed);
  return anon ? anon.type : '';
}

/**
 * Positional arguments and keyword arguments of a call. Read once per call node and kept by its
 * tree (they depend on the tree only): callers must not change the array, and the map is
 * read-only, one empty map shared by every call without keyword arguments (most calls; every
 * object kept is copied by the garbage collector's young generation, an empty Map with its table).
 */
export function callArguments(call: SyntaxNode): CallArguments {
  const memo = call.tree.memo(MEMO_ARGS, call.tree) as (CallArguments | undefined)[];
  return (memo[call.order] ??= readCallArguments(call));
}

interface CallArguments {
  positional: SyntaxNode[];
  keywords: ReadonlyMap<string, SyntaxNode>;
}

const NO_KEYWORDS: ReadonlyMap<string, SyntaxNode> = new Map();

function readCallArguments(call: SyntaxNode): CallArguments {
  const args = field(call, 'arguments');
  const positional: SyntaxNode[] = [];
  if (!args) {
    return { positional, keywords: NO_KEYWORDS };
  }
  let keywords: Map<string, SyntaxNode> | null = null;
  for (const arg of kids(args)) {
    if (arg.type === 'keyword_argument') {
      const name = field(arg, 'name');
      const value = field(arg, 'value');
      if (name && value) {
        (keywords ??= new Map()).set(name.text, value);
      }
    } else if (arg.type !== 'comment') {
      positional.push(arg);
    }
  }
  // an exact-size copy: an array grown by push holds 17 entries, and this one is kept
  return { positional: positional.slice(), keywords: keywords ?? NO_KEYWORDS };
}

/** Strips redundant parentheses. */
export function unparen(node: SyntaxNode): SyntaxNode {
  let n = node;
  while (n.type === 'parenthesized_expression' && n.namedChildren.length === 1) {
    n = n.namedChildren[0];
  }
  return n;
}

/** The top-level statements of a module/block, in order. */
export function statements(node: SyntaxNode): SyntaxNode[] {
  return kids(node).filter(c => c.type !== 'comment');
}

/** An identifier used as a value (not an attribute name, keyword name, import name...). */
export function isValueIdentifier(n: SyntaxNode): boolean {
  const p = n.parent;
  if (!p) {
    return true;
  }
  // (the node fills a field of its parent: its own field name says which, no look-up)
  const type = p.type;
  if (type === 'attribute' && n.fieldName === 'attribute') {
    return false;
  }
  if (type === 'keyword_argument' && n.fieldName === 'name') {
    return false;
  }
  if (type === 'dotted_name' || type === 'aliased_import' || type === 'import_from_statement') {
    return false;
  }
  if ((type === 'default_parameter' || type === 'typed_parameter' || type === 'typed_default_parameter') && n.fieldName === 'name') {
    return false;
  }
  return type !== 'parameters' && type !== 'lambda_parameters';
}
