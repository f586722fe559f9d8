/**
 * What the notebook model needs to know of a notebook-defined function (`def` or `lambda`) to
 * work out what a call of it returns: its parameters (to bind the call's arguments), and its
 * body as steps the model replays in order: top-level assignments of one name (`mse = ...`), the
 * return statements, and the names that branches and loops rebind (their value is then unknown).
 *
 * A plan depends on the syntax alone, so it is read once per definition and kept with its tree.
 * Null for a function whose calls do not return its `return` expressions: a generator (`yield`),
 * a coroutine (`async def`), a decorated function (the decorator may wrap it in anything).
 */
import type { SyntaxNode, SyntaxTree } from './parser';
import { field, kids, walkTypes } from './syntax';

/** One parameter, in declaration order. */
export interface FunctionParameter {
  name: string;
  /** The default value's expression (evaluated where the function is defined). */
  default: SyntaxNode | null;
  /** Takes positional arguments (not after `*` or `*args`). */
  positional: boolean;
  /** `*args` or `**kwargs`: what gathers the remaining arguments. */
  gathers: 'args' | 'kwargs' | null;
}

/** A step of the body, replayed in order. */
export type FunctionStep =
  /** `name = value` at the top level of the body. */
  | { kind: 'assign'; name: string; value: SyntaxNode }
  /**
   * `name op= value` at the top level of the body (`node`, the augmented assignment): an array
   * local updated in place keeps what it is, a number is rebound to the operation's result.
   */
  | { kind: 'augment'; name: string; node: SyntaxNode }
  /** A `return` at the top level: the steps after it never run. */
  | { kind: 'return'; value: SyntaxNode | null }
  /**
   * Any other statement: the returns inside it (each seeing the names it rebinds as unknown),
   * and the names it rebinds. When every path through it returns or raises, it is the last step.
   */
  | { kind: 'other'; returns: (SyntaxNode | null)[]; rebinds: string[] };

export interface FunctionPlan {
  parameters: FunctionParameter[];
  steps: FunctionStep[];
  /** The body can end without a `return` (the call gives None). */
  fallsThrough: boolean;
}

/** Statements and expressions that open a scope of their own (their names are not the function's). */
const INNER_SCOPES = ['function_definition', 'class_definition', 'lambda', 'list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression'];

const PLANS = new WeakMap<SyntaxTree, Map<number, FunctionPlan | null>>();

/** The plan of `def` or `lambda` node `fn` (kept with its tree), or null (see the module doc). */
export function functionPlan(fn: SyntaxNode): FunctionPlan | null {
  let plans = PLANS.get(fn.tree);
  if (plans === undefined) {
    plans = new Map();
    PLANS.set(fn.tree, plans);
  }
  let plan = plans.get(fn.order);
  if (plan === undefined) {
    plan = readPlan(fn);
    plans.set(fn.order, plan);
  }
  return plan;
}

function readPlan(fn: SyntaxNode): FunctionPlan | null {
  const parameters = readParameters(field(fn, 'parameters'));
  const body = field(fn, 'body');
  if (!parameters || !body) {
    return null;
  }
  if (fn.type === 'lambda') {
    return { parameters, steps: [{ kind: 'return', value: body }], fallsThrough: false };
  }
  if (fn.parent?.type === 'decorated_definition' || fn.children.some(c => c.type === 'async') || contains(body, ['yield'])) {
    return null;
  }
  const steps: FunctionStep[] = [];
  for (const stmt of kids(body)) {
    if (stmt.type === 'comment' || stmt.type === 'pass_statement') {
      continue;
    }
    const assigned = simpleAssignment(stmt);
    const rebinds = rebound(stmt);
    if (assigned && rebinds.length === 1) {
      steps.push({ kind: 'assign', name: assigned.name, value: assigned.value });
      continue;
    }
    const augmented = augmentedAssignment(stmt);
    if (augmented && rebinds.length === 1) {
      steps.push({ kind: 'augment', name: augmented.name, node: augmented.node });
      continue;
    }
    if (stmt.type === 'return_statement') {
      steps.push({ kind: 'return', value: kids(stmt)[0] ?? null });
      return { parameters, steps, fallsThrough: false };
    }
    steps.push({ kind: 'other', returns: returnsIn(stmt), rebinds });
    if (alwaysExits(stmt)) {
      return { parameters, steps, fallsThrough: false };
    }
  }
  return { parameters, steps, fallsThrough: true };
}

/** The parameters of a `def` or `lambda`; null for a form not read here (a tuple parameter). */
function readParameters(list: SyntaxNode | null): FunctionParameter[] | null {
  const out: FunctionParameter[] = [];
  if (!list) {
    return out; // `lambda: 1`
  }
  let positional = true;
  for (const p of kids(list)) {
    const inner = p.type === 'typed_parameter' ? kids(p)[0] : p;
    if (!inner) {
      return null;
    }
    switch (inner.type) {
      case 'identifier':
        out.push({ name: inner.text, default: null, positional, gathers: null });
        break;
      case 'default_parameter':
      case 'typed_default_parameter': {
        const name = field(inner, 'name');
        if (name?.type !== 'identifier') {
          return null;
        }
        out.push({ name: name.text, default: field(inner, 'value'), positional, gathers: null });
        break;
      }
      case 'list_splat_pattern':
      case 'dictionary_splat_pattern': {
        const name = kids(inner)[0];
        if (name?.type !== 'identifier') {
          return null;
        }
        out.push({ name: name.text, default: null, positional: false, gathers: inner.type === 'list_splat_pattern' ? 'args' : 'kwargs' });
        positional = false;
        break;
      }
      case 'keyword_separator':
        positional = false;
        break;
      case 'positional_separator':
      case 'comment':
        break;
      default:
        return null;
    }
  }
  return out;
}

/** `name = value` (annotated or not) as a statement: its name and value; else null. */
function simpleAssignment(stmt: SyntaxNode): { name: string; value: SyntaxNode } | null {
  if (stmt.type !== 'expression_statement') {
    return null;
  }
  const parts = kids(stmt);
  const a = parts.length === 1 && parts[0].type === 'assignment' ? parts[0] : null;
  const left = a ? field(a, 'left') : null;
  const value = a ? field(a, 'right') : null;
  return left?.type === 'identifier' && value && value.type !== 'assignment' && value.type !== 'expression_list' ? { name: left.text, value } : null;
}

/** `name op= value` as a statement (a plain name updated): its name and the augmented assignment; else null. */
function augmentedAssignment(stmt: SyntaxNode): { name: string; node: SyntaxNode } | null {
  if (stmt.type !== 'expression_statement') {
    return null;
  }
  const parts = kids(stmt);
  const a = parts.length === 1 && parts[0].type === 'augmented_assignment' ? parts[0] : null;
  const left = a ? field(a, 'left') : null;
  return a && left?.type === 'identifier' && field(a, 'right') ? { name: left.text, node: a } : null;
}

/** Does every path through `stmt` end in a `return` or `raise` (an `if` with an `else`, each branch ending so)? */
function alwaysExits(stmt: SyntaxNode): boolean {
  if (stmt.type === 'return_statement' || stmt.type === 'raise_statement') {
    return true;
  }
  if (stmt.type !== 'if_statement') {
    return false;
  }
  const blocks = [field(stmt, 'consequence')];
  let hasElse = false;
  for (const clause of kids(stmt)) {
    if (clause.type === 'elif_clause') {
      blocks.push(field(clause, 'consequence'));
    } else if (clause.type === 'else_clause') {
      blocks.push(field(clause, 'body'));
      hasElse = true;
    }
  }
  return hasElse && blocks.every(b => {
    const last = b ? kids(b).filter(s => s.type !== 'comment').pop() : undefined;
    return last !== undefined && alwaysExits(last);
  });
}

/** The values of the `return` statements in `stmt` (null for a bare `return`), not those of inner functions. */
function returnsIn(stmt: SyntaxNode): (SyntaxNode | null)[] {
  const out: (SyntaxNode | null)[] = [];
  walkTypes(stmt, ['return_statement', ...INNER_SCOPES], n => {
    if (n.type === 'return_statement') {
      out.push(kids(n)[0] ?? null);
    }
    return false;
  });
  return out;
}

/**
 * The names `stmt` may rebind or unbind in the function's scope: assignment, loop, `with`/`except`
 * and walrus targets (a comprehension's too), `del`, imports, inner definitions. A name listed that is not a local of the function
 * (declared `global`) costs nothing: only locals are looked up in the plan's bindings.
 */
function rebound(stmt: SyntaxNode): string[] {
  const names = new Set<string>();
  const targets = (t: SyntaxNode | null): void => {
    if (!t) {
      return;
    }
    if (t.type === 'identifier') {
      names.add(t.text);
    } else if (t.type !== 'subscript' && t.type !== 'attribute') {
      kids(t).forEach(targets);
    }
  };
  walkTypes(stmt, ['assignment', 'augmented_assignment', 'for_statement', 'named_expression', 'as_pattern_target', 'delete_statement', 'import_statement', 'import_from_statement', ...INNER_SCOPES], n => {
    switch (n.type) {
      case 'delete_statement':
        kids(n).forEach(targets);
        return false;
      case 'assignment':
      case 'augmented_assignment':
      case 'for_statement':
        targets(field(n, 'left'));
        return true;
      case 'named_expression':
        targets(field(n, 'name'));
        return true;
      case 'as_pattern_target':
        targets(n);
        return true;
      case 'import_statement':
      case 'import_from_statement':
        // conservative: every identifier of the statement (module parts included)
        walkTypes(n, ['identifier'], id => {
          names.add(id.text);
        });
        return false;
      case 'function_definition':
      case 'class_definition':
        // an inner def or class binds its name here; its own names are its own
        targets(field(n, 'name'));
        return false;
      case 'lambda':
        return false;
      default:
        // a comprehension: its variables are its own, a walrus inside binds in the function
        walkTypes(n, ['named_expression'], w => targets(field(w, 'name')));
        return false;
    }
  });
  return [...names];
}

function contains(node: SyntaxNode, types: string[]): boolean {
  let found = false;
  walkTypes(node, [...types, 'function_definition', 'class_definition', 'lambda'], n => {
    if (types.includes(n.type)) {
      found = true;
    }
    return false;
  });
  return found;
}
