/**
 * The safety net every rewrite passes before it is offered or applied: the candidate cell source
 * must parse as Python (IPython syntax masked, as cells are). Used by the engine for each rule's
 * candidate (engine.ts) and by the whole-notebook plan for every cell it rewrites (plan.ts).
 */
import { maskIPython } from './ipython';
import type { PythonParser } from './parser';

/**
 * The line (1-based) of the first syntax error in a candidate cell source, or 0 when it parses
 * cleanly. The candidate is masked like a cell (`maskIPython`: `%%time`, `!cmd`... are not
 * errors) and parsed by the engine's parser without the copy into a node table: only the root's
 * error flag is read, and the tree is walked only when it has an error. Not counted in
 * `parseCount` (which counts cell parses). A candidate that is not Python at all (a non-Python
 * cell magic) is not checked: such a cell is never analysed.
 */
export function candidateErrorLine(parser: PythonParser, candidate: string): number {
  const mask = maskIPython(candidate);
  if (mask.foreignCellMagic) {
    return 0;
  }
  const tree = parser.parseRaw(mask.masked);
  try {
    return tree.rootNode.hasError ? firstErrorLine(tree.rootNode) : 0;
  } finally {
    tree.delete();
  }
}

/** What `firstErrorLine` reads of a node: the engine's `SyntaxNode` and web-tree-sitter's `Node` both have it. */
interface ErrorSearchNode {
  readonly isError: boolean;
  readonly isMissing: boolean;
  readonly hasError: boolean;
  readonly startPosition: { row: number };
  readonly children: readonly (ErrorSearchNode | null)[];
}

/** The line (1-based) of the first ERROR or MISSING node under `root` (1 when none is found). */
export function firstErrorLine(root: ErrorSearchNode): number {
  let line = 1;
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.isError || n.isMissing) {
      line = n.startPosition.row + 1;
      break;
    }
    if (n.hasError) {
      for (const c of [...n.children].reverse()) {
        if (c) {
          stack.push(c);
        }
      }
    }
  }
  return line;
}
