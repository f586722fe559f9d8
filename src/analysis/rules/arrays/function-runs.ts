/**
 * How often the functions a cell defines run when the cell runs, for the work estimate
 * (`estimateWork` and `timesRun` in cupy-rewrite.ts).
 *
 * A function's body is array work done at each call, not at its definition: a cell that
 * defines `def rhs(y): ...` and steps `for _ in range(20): y = y + dt * rhs(y)` runs the body 20
 * times, an RK4 step calling it for k1..k4 four times. The estimate counts the body once, times
 * the runs found here.
 */
import type { SyntaxNode } from '../../parser';
import { field, walkTypes } from '../../syntax';

/**
 * For each function the cell defines at its top level, without decorators and under a name it
 * defines once, that the cell also calls by that name: how often its body runs per run of the
 * cell (keyed by the definition's node id). A call runs as often as the nodes around it up to its
 * function say (`runsPer(parent, child)`: how often `child` runs per run of `parent`, a loop's
 * trips for its body, a comprehension's items for its element, 1/K for the body of an
 * every-K-steps `if`...) times that function's runs when it is one of these (a call at the top
 * level: once); the function runs as often as its calls together.
 * A call from inside the function itself (recursion, also through others) adds nothing: its depth
 * is not known. A function absent from the map (not called in the cell, decorated, a method,
 * nested) has its body counted once, as one call.
 *
 * Empty, at the cost of one look at the top-level statements, for a cell that defines none.
 */
export function functionRuns(root: SyntaxNode, runsPer: (parent: SyntaxNode, child: SyntaxNode) => number): ReadonlyMap<number, number> {
  const defs = new Map<string, SyntaxNode | null>();
  for (const statement of root.namedChildren) {
    const name = statement.type === 'function_definition' ? field(statement, 'name')?.text : undefined;
    if (name !== undefined) {
      // a name defined twice: which body a call runs depends on where it is (left out)
      defs.set(name, defs.has(name) ? null : statement);
    }
  }
  const runs = new Map<number, number>();
  if (defs.size === 0) {
    return runs;
  }
  const calls = new Map<number, SyntaxNode[]>();
  walkTypes(root, ['call'], call => {
    const fn = field(call, 'function');
    const def = fn?.type === 'identifier' ? defs.get(fn.text) : undefined;
    // (a call in its own body is recursion: how deep is not known)
    if (def && !(call.startIndex >= def.startIndex && call.endIndex <= def.endIndex)) {
      const list = calls.get(def.id) ?? [];
      list.push(call);
      calls.set(def.id, list);
    }
  });

  const byId = new Map([...defs.values()].flatMap(d => (d && calls.has(d.id) ? [[d.id, d] as const] : [])));
  // definitions being worked out: a call from inside one of them closes a cycle (recursion
  // through other functions) and adds nothing; a figure worked out inside a cycle is not kept
  const open = new Set<number>();
  const runsOf = (def: SyntaxNode): number => {
    const known = runs.get(def.id);
    if (known !== undefined) {
      return known;
    }
    open.add(def.id);
    let total = 0;
    for (const call of calls.get(def.id) ?? []) {
      total += callRuns(call);
    }
    open.delete(def.id);
    if (open.size === 0) {
      runs.set(def.id, total);
    }
    return total;
  };
  /** How often a call runs: the nodes around it (`runsPer`), times the runs of the function it is in. */
  const callRuns = (call: SyntaxNode): number => {
    let times = 1;
    for (let child = call, p = call.parent; p; child = p, p = p.parent) {
      if (p.type === 'function_definition' || p.type === 'lambda' || p.type === 'class_definition') {
        const outer = byId.get(p.id);
        if (outer === undefined) {
          return times; // a scope whose runs are not known: counted once, as its body is
        }
        return open.has(outer.id) ? 0 : times * runsOf(outer);
      }
      times *= runsPer(p, child);
    }
    return times;
  };
  for (const def of byId.values()) {
    if (runsOf(def) === 0) {
      runs.delete(def.id); // called only from a cycle of functions no one else calls: once
    }
  }
  return runs;
}
