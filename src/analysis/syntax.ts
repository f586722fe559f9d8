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
 */
export function walkTypes(node: SyntaxNode, types: readonly string[], visit: (n: SyntaxNode) => boolean | void): void {
  const tree = node.tree;
  if (types.includes(node.type) && visit(node) === false) {
    return;
  }
  // the rows read directly (SyntaxTree's layout, as `typeAt` reads them): ~1 M rows an analysis
  const d = tree.data;
  const names = tree.typeNames;
  const end = d[node.order * ROW + SUBTREE_END];
  const one = types.length === 1 ? types[0] : null;
  let k = node.order + 1;
  while (k < end) {
    const kind = d[k * ROW + KIND];
    if ((kind & NAMED_BIT) === 0) {
      k = d[k * ROW + SUBTREE_END];
      continue;
    }
    const type = names[kind & TYPE_MASK] ?? 'ERROR';
    if ((one !== null ? type === one : types.includes(type)) && visit(new SyntaxNode(tree, k)) === false) {
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
