/**
 * Per-cell facts read from one parse: imports, which names the cell reads before writing them
 * (its inputs), which names it binds (its outputs), what it mutates, its assignments.
 *
 * Facts depend on the cell's text only, so they are cached with the parse; what the names
 * hold is worked out by the notebook model, which sees all cells.
 */
import type { SyntaxNode, SyntaxTree } from './parser';
import { callArguments, field, kids } from './syntax';

export interface ImportFact {
  /** The name bound in the namespace (`np`, `fft2`, `ndi`); '*' for a star import. */
  local: string;
  /** What it refers to: `numpy`, `numpy.fft.fft2`, `scipy.ndimage`; for '*', the module. */
  qualified: string;
  start: number;
  end: number;
}

export interface AssignmentFact {
  name: string;
  /** The assigned expression; null when unknown (unpacking, loop targets, with-as). */
  value: SyntaxNode | null;
  /**
   * For a name unpacked from one expression (`w, v = np.linalg.eigh(A)`): the expression and
   * the position of the item the name gets, -1 where it cannot be told (a starred target, a
   * nested pattern). `value` is null.
   */
  unpacked?: { from: SyntaxNode; index: number };
  /** The statement (for augmented assignment: the whole statement). */
  statement: SyntaxNode;
  /** Offset where the binding takes effect (end of the statement). */
  at: number;
  augmented: boolean;
  /** True when the binding sits inside a loop, branch, function... (not top level). */
  nested: boolean;
  /**
   * The name is unbound here, not given a value: `del x`, and the end of an `except E as x:`
   * handler (Python deletes `x` when the handler ends). `value` is null.
   */
  deleted?: boolean;
}

/**
 * Kept with the cell's parse while the cell is unchanged. The sets are read-only, and the empty
 * ones are one shared set: every object kept is copied by the garbage collector's young
 * generation (twice, before it is old), and an empty Set still holds its table.
 */
export interface CellFacts {
  imports: ImportFact[];
  /** Names read before this cell binds them (what the cell needs from the namespace). */
  inputs: ReadonlySet<string>;
  /** Every name read anywhere in the cell. */
  reads: ReadonlySet<string>;
  /**
   * Names the cell binds or unbinds at module level (assignments, walrus targets, defs, imports,
   * loop, with and except targets, `match` capture patterns, `del`), and names a function or
   * class body declares `global` and binds (bound when it runs).
   */
  writes: ReadonlySet<string>;
  /** Names whose object the cell changes in place (`x[i] = v`, `x += 1` on arrays, `x.sort()`). */
  mutates: ReadonlySet<string>;
  /** Functions and classes the cell defines. */
  defines: ReadonlySet<string>;
  assignments: AssignmentFact[];
  /** The last top-level statement when it is an expression (the cell's displayed value). */
  lastExpression: SyntaxNode | null;
  /**
   * Start offsets of identifiers that name a local of a function, lambda or comprehension
   * (parameters, names assigned in a function body, comprehension variables): what they hold
   * is not the module-level binding of the same name.
   */
  localIds: ReadonlySet<number>;
  /**
   * Every identifier read as a value (module level or local; not attribute or keyword names,
   * not import names), in visiting order: what a cheap rule prefilter looks at.
   */
  valueIds: SyntaxNode[];
}

/** An empty set: the locals of module level (for reads), and every empty set of every cell's facts. */
const NONE: ReadonlySet<never> = new Set<never>();

/** `CellFacts` while `collectFacts` fills it in. */
interface GrowingFacts extends CellFacts {
  inputs: Set<string>;
  reads: Set<string>;
  writes: Set<string>;
  mutates: Set<string>;
  defines: Set<string>;
  localIds: Set<number>;
}

/**
 * ndarray methods that change the array they are called on (`byteswap(True)` among them); the
 * list that the rewrite's and the plan's in-place detector (`inPlaceUpdate`) uses too.
 */
export const ARRAY_MUTATING_METHODS: ReadonlySet<string> = new Set(['sort', 'fill', 'put', 'partition', 'resize', 'itemset', 'setflags', 'byteswap']);
/** Methods that change the object they are called on: an array's, a list's or a dict's. */
const MUTATING_METHODS = new Set([...ARRAY_MUTATING_METHODS, 'append', 'extend', 'update']);
const SCOPE_NODES = new Set(['function_definition', 'lambda', 'class_definition']);
const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);
const NESTING = new Set([
  'for_statement',
  'while_statement',
  'if_statement',
  'try_statement',
  'with_statement',
  'function_definition',
  'class_definition',
  'match_statement'
]);

/**
 * The node types `collectFacts`'s `visit` has a case for (keep in step with its switch): a node
 * of any other type is only a path to its named children.
 */
const VISITED_TYPES: ReadonlySet<string> = new Set([
  'identifier',
  'attribute',
  'keyword_argument',
  'import_statement',
  'import_from_statement',
  'assignment',
  'augmented_assignment',
  'for_statement',
  'for_in_clause',
  'named_expression',
  'as_pattern',
  'except_clause',
  'delete_statement',
  'case_pattern',
  'function_definition',
  'class_definition',
  'lambda',
  'global_statement',
  'nonlocal_statement',
  'call',
  ...COMPREHENSIONS
]);

/** Reads the facts of one parsed cell. */
export function collectFacts(root: SyntaxNode): CellFacts {
  const facts: GrowingFacts = {
    imports: [],
    inputs: new Set(),
    reads: new Set(),
    writes: new Set(),
    mutates: new Set(),
    defines: new Set(),
    assignments: [],
    lastExpression: null,
    localIds: new Set(),
    valueIds: []
  };
  const written = new Set<string>();
  /** Names a function's (or class body's) locals set declares `global`. */
  // (both made when first needed: most cells define no function and have no comprehension)
  let declaredGlobal: Map<Set<string>, ReadonlySet<string>> | null = null;
  /**
   * A comprehension's locals -> the scope its walrus targets bind in (PEP 572: the enclosing
   * function, or the module: null), not the comprehension itself.
   */
  let comprehensionOwner: Map<Set<string>, Set<string> | null> | null = null;
  /** Where a walrus in `locals` binds: a comprehension's owner, else `locals` itself. */
  const walrusScope = (locals: Set<string> | null): Set<string> | null =>
    locals !== null && comprehensionOwner !== null && comprehensionOwner.has(locals) ? comprehensionOwner.get(locals) ?? null : locals;
  const isGlobalIn = (locals: Set<string> | null, name: string): boolean => !!locals && (declaredGlobal?.get(locals)?.has(name) ?? false);

  const read = (name: string, locals: ReadonlySet<string>): void => {
    if (locals.has(name)) {
      return;
    }
    facts.reads.add(name);
    if (!written.has(name)) {
      facts.inputs.add(name);
    }
  };
  const write = (name: string, locals: Set<string> | null): void => {
    if (locals && !isGlobalIn(locals, name)) {
      locals.add(name);
      return;
    }
    facts.writes.add(name);
    // declared `global` in a function: bound when the function runs, which may be never, so the
    // cell's later reads still read the namespace's value (not `written`; and no assignment fact)
    if (!locals) {
      written.add(name);
    }
  };

  const isNested = (node: SyntaxNode): boolean => {
    let p = node.parent;
    while (p) {
      if (NESTING.has(p.type)) {
        return true;
      }
      p = p.parent;
    }
    return false;
  };

  /** Binds the names of an assignment target; reads what a target reads (x[i] reads x, i). */
  const bindTarget = (
    target: SyntaxNode,
    value: SyntaxNode | null,
    statement: SyntaxNode,
    locals: Set<string> | null,
    augmented: boolean,
    unpacked?: AssignmentFact['unpacked']
  ): void => {
    switch (target.type) {
      case 'identifier':
        if (!locals) {
          facts.assignments.push({
            name: target.text,
            value,
            statement,
            at: statement.endIndex,
            augmented,
            nested: isNested(statement),
            ...(unpacked ? { unpacked } : {})
          });
        }
        if (locals && !isGlobalIn(locals, target.text)) {
          facts.localIds.add(target.startIndex);
        }
        write(target.text, locals);
        return;
      case 'pattern_list':
      case 'tuple_pattern':
      case 'list_pattern':
      case 'tuple':
      case 'list':
      case 'expression_list': {
        const targets = kids(target);
        const values = value && (value.type === 'tuple' || value.type === 'expression_list' || value.type === 'list') ? kids(value) : null;
        // one expression unpacked (`w, v = np.linalg.eigh(A)`): each name is told which item it
        // gets where positions are known; under a starred target, or unpacked again (`(w, v), n
        // = ...`), only what it was unpacked from (index -1: an item the analysis cannot tell)
        const whole = !values && value ? value : null;
        const starred = targets.some(t => t.type === 'list_splat_pattern');
        targets.forEach((t, k) => {
          const item = values && values.length === targets.length ? values[k] : null;
          const from = whole ?? (item ? null : unpacked?.from ?? null);
          bindTarget(t, item, statement, locals, augmented, from ? { from, index: whole && !starred && t.type === 'identifier' ? k : -1 } : undefined);
        });
        return;
      }
      case 'list_splat_pattern':
      case 'parenthesized_expression':
        kids(target).forEach(t => bindTarget(t, null, statement, locals, augmented, unpacked ? { from: unpacked.from, index: -1 } : undefined));
        return;
      case 'subscript':
      case 'attribute': {
        // x[i] = v and x.a = v change x in place
        const base = baseName(target);
        if (base && !locals?.has(base)) {
          facts.mutates.add(base);
        }
        visit(target, locals ?? new Set());
        return;
      }
      default:
        visit(target, locals ?? new Set());
    }
  };

  const params = (node: SyntaxNode | null, into: Set<string>, locals: Set<string> | null): void => {
    if (!node) {
      return;
    }
    for (const p of kids(node)) {
      if (p.type === 'identifier') {
        into.add(p.text);
      } else {
        const name = field(p, 'name') ?? kids(p).find(c => c.type === 'identifier') ?? null;
        if (name) {
          into.add(name.text);
        }
        const dflt = field(p, 'value');
        if (dflt) {
          visit(dflt, locals ?? new Set());
        }
      }
    }
  };

  /** Marks mutated the names an `out=` argument (`u`, `u[0]`, or a tuple of them) writes in place. */
  const writtenInPlace = (value: SyntaxNode | undefined, locals: Set<string> | null): void => {
    if (!value) {
      return;
    }
    const targets = value.type === 'tuple' ? kids(value) : [value];
    for (let k = 0; k < targets.length; k++) {
      const updated = baseName(targets[k]);
      if (updated && !locals?.has(updated)) {
        facts.mutates.add(updated);
      }
    }
  };

  /** `locals` is null at module level, else the enclosing function's (or comprehension's) names. */
  function visit(node: SyntaxNode, locals: Set<string> | null): void {
    const scope: ReadonlySet<string> = locals ?? NONE;
    const type = node.type;
    switch (type) {
      case 'identifier': {
        facts.valueIds.push(node);
        const text = node.text;
        if (scope.has(text)) {
          facts.localIds.add(node.startIndex);
        } else {
          read(text, scope);
        }
        return;
      }
      case 'attribute': {
        const obj = field(node, 'object');
        if (obj) {
          visit(obj, locals);
        }
        return;
      }
      case 'keyword_argument': {
        const value = field(node, 'value');
        if (value) {
          visit(value, locals);
        }
        return;
      }
      case 'import_statement':
      case 'import_from_statement':
        collectImport(node, facts);
        for (const imp of facts.imports) {
          if (imp.local !== '*' && imp.start >= node.startIndex && imp.end <= node.endIndex) {
            write(imp.local, locals);
          }
        }
        return;
      case 'assignment': {
        const left = field(node, 'left');
        const right = field(node, 'right');
        if (right) {
          visit(right, locals);
        }
        if (left) {
          const statement = node.parent?.type === 'expression_statement' ? node.parent : node;
          // a chained assignment (`NX = NY = 512`): every target gets the last value
          let value = right;
          while (value?.type === 'assignment') {
            value = field(value, 'right');
          }
          bindTarget(left, value, statement, locals, false);
        }
        return;
      }
      case 'augmented_assignment': {
        const left = field(node, 'left');
        const right = field(node, 'right');
        if (right) {
          visit(right, locals);
        }
        if (left) {
          // a function's local (`R /= s` in a body that binds R) is not the global of that name;
          // one declared `global` is (not in `scope`: the global is updated, and rebound)
          if (left.type === 'identifier' && !scope.has(left.text)) {
            read(left.text, scope);
            facts.mutates.add(left.text);
          }
          const statement = node.parent?.type === 'expression_statement' ? node.parent : node;
          bindTarget(left, node, statement, locals, true);
        }
        return;
      }
      case 'for_statement':
      case 'for_in_clause': {
        const right = field(node, 'right');
        if (right) {
          visit(right, locals);
        }
        const left = field(node, 'left');
        if (left) {
          bindTarget(left, null, node, node.type === 'for_in_clause' ? locals ?? new Set<string>() : locals, false);
        }
        const cs = kids(node);
        for (let k = 0; k < cs.length; k++) {
          if (cs[k].id !== left?.id && cs[k].id !== right?.id) {
            visit(cs[k], locals);
          }
        }
        return;
      }
      case 'named_expression': {
        // `(n := v)`: n binds in the enclosing function or module, even from inside a
        // comprehension (PEP 572), and from where the expression ends
        const value = field(node, 'value');
        if (value) {
          visit(value, locals);
        }
        const name = field(node, 'name');
        if (name) {
          bindTarget(name, value, node, walrusScope(locals), false);
        }
        return;
      }
      case 'as_pattern': {
        const value = kids(node)[0];
        if (value) {
          visit(value, locals);
        }
        const alias = field(node, 'alias');
        const target = alias ? kids(alias)[0] ?? alias : null;
        if (target) {
          bindTarget(target, null, node, locals, false);
        }
        return;
      }
      case 'except_clause': {
        // `except E as e:` binds e for the handler, and Python deletes e when the handler ends
        // (PEP 3110): after the try statement e is unbound, or still what it was before when no
        // exception ran, so a later read is of that (or of nothing), never of the handler's e
        const as = kids(node).find(c => c.type === 'as_pattern');
        const alias = as ? field(as, 'alias') : null;
        const target = alias ? kids(alias)[0] ?? alias : null;
        const name = target?.type === 'identifier' ? target.text : null;
        const before = name !== null && written.has(name);
        kids(node).forEach(c => visit(c, locals));
        if (name !== null && !locals) {
          facts.assignments.push({ name, value: null, statement: node, at: node.endIndex, augmented: false, nested: isNested(node), deleted: true });
          if (!before) {
            written.delete(name);
          }
        }
        return;
      }
      case 'delete_statement': {
        // `del x` reads x (it must be bound) and unbinds it; `del x[i]`, `del x.a` change x
        const statement = node;
        const targets = kids(node).flatMap(t => (t.type === 'expression_list' ? kids(t) : [t]));
        for (const t of targets) {
          const target = t.type === 'parenthesized_expression' ? kids(t)[0] ?? t : t;
          visit(target, locals);
          if (target.type === 'identifier' && !scope.has(target.text)) {
            facts.writes.add(target.text);
            // in a function (a name declared global): unbound when it runs, which may be never
            if (!locals) {
              written.add(target.text);
              facts.assignments.push({ name: target.text, value: null, statement, at: statement.endIndex, augmented: false, nested: isNested(statement), deleted: true });
            }
          } else if (target.type === 'subscript' || target.type === 'attribute') {
            const base = baseName(target);
            if (base && !scope.has(base)) {
              facts.mutates.add(base);
            }
          }
        }
        return;
      }
      case 'case_pattern': {
        // a `case` pattern (PEP 634): its capture names bind in the enclosing scope from where
        // the pattern ends; class names and value patterns (`Color.RED`) are read
        patternNames(
          node,
          id => bindTarget(id, null, node, locals, false),
          id => visit(id, locals)
        );
        return;
      }
      case 'function_definition':
      case 'class_definition': {
        const name = field(node, 'name');
        for (const d of kids(node).filter(c => c.type === 'decorator')) {
          visit(d, locals);
        }
        const inner = new Set<string>();
        params(field(node, 'parameters'), inner, locals);
        const superclasses = field(node, 'superclasses');
        if (superclasses) {
          visit(superclasses, locals);
        }
        const body = field(node, 'body');
        if (body) {
          // names assigned anywhere in the body are locals of the function, unless declared global
          collectLocalBindings(body, inner);
          const globals = globalDeclarations(body);
          if (globals.size > 0) {
            globals.forEach(g => inner.delete(g));
            (declaredGlobal ??= new Map()).set(inner, globals);
          }
          visit(body, inner);
        }
        if (name) {
          facts.defines.add(name.text);
          if (!locals) {
            facts.assignments.push({
              name: name.text,
              value: node,
              statement: node,
              at: node.endIndex,
              augmented: false,
              nested: isNested(node)
            });
          }
          write(name.text, locals);
        }
        return;
      }
      case 'lambda': {
        const inner = new Set(scope);
        params(field(node, 'parameters'), inner, locals);
        const body = field(node, 'body');
        if (body) {
          visit(body, inner);
        }
        return;
      }
      case 'global_statement':
      case 'nonlocal_statement':
        return;
      case 'call': {
        const fn = field(node, 'function');
        if (fn?.type === 'attribute') {
          const method = field(fn, 'attribute')?.text;
          const base = baseName(fn);
          // `u.sort()`, and through a view of it: `u[:10].sort()`, `u.T.sort()`
          if (method && MUTATING_METHODS.has(method) && base && !locals?.has(base) && field(fn, 'object')?.type !== 'call') {
            facts.mutates.add(base);
          }
          // `rng.shuffle(u)`, `np.add.at(u, idx, 1)` (ufunc.at): the first argument in place
          const first = method === 'shuffle' || (method === 'at' && field(fn, 'object')?.type === 'attribute') ? callArguments(node).positional[0] : undefined;
          const updated = first ? baseName(first) : null;
          if (updated && !locals?.has(updated)) {
            facts.mutates.add(updated);
          }
        }
        // `out=u` (`out=(u,)`), scipy.ndimage's `output=u`: written in place
        const keywords = callArguments(node).keywords;
        if (keywords.size > 0) {
          writtenInPlace(keywords.get('out'), locals);
          writtenInPlace(keywords.get('output'), locals);
        }
        break;
      }
      default:
        if (COMPREHENSIONS.has(type)) {
          // comprehension variables are local: visit the clauses first, in the order Python runs
          // them (`for`s and `if`s as written, then the element)
          const inner = new Set(scope);
          (comprehensionOwner ??= new Map()).set(inner, walrusScope(locals));
          const isClause = (c: SyntaxNode): boolean => c.type === 'for_in_clause' || c.type === 'if_clause';
          for (const c of kids(node).filter(isClause)) {
            visit(c, inner);
          }
          for (const c of kids(node).filter(c => !isClause(c))) {
            visit(c, inner);
          }
          return;
        }
    }
    visitChildren(node.tree, node.order, locals);
  }

  /**
   * Visits the named children of row `row`, by rows of the node table (no array of children).
   * A child of a type `visit` has no case for is passed through here, row by row, without a
   * node object: `visit` would only visit its named children.
   */
  function visitChildren(tree: SyntaxTree, row: number, locals: Set<string> | null): void {
    const end = tree.subtreeEndAt(row);
    for (let c = row + 1; c < end; c = tree.subtreeEndAt(c)) {
      if (tree.isNamedAt(c)) {
        if (VISITED_TYPES.has(tree.typeAt(c))) {
          visit(tree.node(c), locals);
        } else {
          visitChildren(tree, c, locals);
        }
      }
    }
  }

  visitChildren(root.tree, root.order, null);
  const top = kids(root).filter(c => c.type !== 'comment');
  const last = top[top.length - 1];
  if (last && last.type === 'expression_statement') {
    const expr = kids(last)[0];
    if (expr && expr.type !== 'assignment' && expr.type !== 'augmented_assignment' && expr.type !== 'ellipsis') {
      facts.lastExpression = expr;
    }
  }
  // what is kept: empty sets shared, arrays copied to their exact size (grown by push, an array
  // holds 17 entries or more)
  const shared = <T>(set: ReadonlySet<T>): ReadonlySet<T> => (set.size === 0 ? NONE : set);
  return {
    imports: facts.imports.slice(),
    inputs: shared(facts.inputs),
    reads: shared(facts.reads),
    writes: shared(facts.writes),
    mutates: shared(facts.mutates),
    defines: shared(facts.defines),
    assignments: facts.assignments.slice(),
    lastExpression: facts.lastExpression,
    localIds: shared(facts.localIds),
    valueIds: facts.valueIds.slice()
  };
}

/** Names assigned in a function body (Python makes them local to the function). */
function collectLocalBindings(body: SyntaxNode, into: Set<string>): void {
  const visitTarget = (t: SyntaxNode): void => {
    if (t.type === 'identifier') {
      into.add(t.text);
    } else if (['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'expression_list'].includes(t.type)) {
      kids(t).forEach(visitTarget);
    }
  };
  const rec = (n: SyntaxNode): void => {
    if (SCOPE_NODES.has(n.type)) {
      const name = field(n, 'name');
      if (name) {
        into.add(name.text);
      }
      return;
    }
    if (n.type === 'assignment' || n.type === 'augmented_assignment' || n.type === 'for_statement') {
      const left = field(n, 'left');
      if (left) {
        visitTarget(left);
      }
    } else if (n.type === 'named_expression') {
      // a walrus in the body, or in a comprehension in it, binds in the function
      const name = field(n, 'name');
      if (name) {
        visitTarget(name);
      }
    } else if (n.type === 'case_pattern') {
      patternNames(n, id => into.add(id.text), () => undefined);
      return;
    }
    const cs = kids(n);
    for (let k = 0; k < cs.length; k++) {
      rec(cs[k]);
    }
  };
  rec(body);
}

/**
 * Walks a `case` pattern: `capture` gets each capture name (`case Point(x=a)`, `case [a, *rest]`,
 * `case {"k": v, **kw}`, `case _ as w`, `case (p | q)`; never the wildcard `_`), `read` each name
 * the pattern reads (the class of a class pattern, the first name of a value pattern
 * `Color.RED`). Keyword names (`x=` of `Point(x=a)`) are attribute names: neither.
 */
function patternNames(pattern: SyntaxNode, capture: (id: SyntaxNode) => void, read: (id: SyntaxNode) => void): void {
  const rec = (n: SyntaxNode): void => {
    switch (n.type) {
      case 'identifier':
        if (n.text !== '_') {
          capture(n);
        }
        return;
      case 'dotted_name': {
        const parts = kids(n);
        if (parts.length === 1) {
          rec(parts[0]);
        } else if (parts[0]) {
          read(parts[0]);
        }
        return;
      }
      case 'class_pattern': {
        const [cls, ...args] = kids(n);
        const first = cls ? (cls.type === 'dotted_name' ? kids(cls)[0] : cls) : null;
        if (first) {
          read(first);
        }
        args.forEach(rec);
        return;
      }
      case 'keyword_pattern':
        kids(n).slice(1).forEach(rec);
        return;
      case 'string':
      case 'concatenated_string':
      case 'integer':
      case 'float':
        return;
      default:
        // case_pattern, list/tuple/dict/union/splat/as patterns...
        kids(n).forEach(rec);
    }
  };
  rec(pattern);
}

/** Names a function or class body declares `global` (not those of the functions inside it). */
function globalDeclarations(body: SyntaxNode): Set<string> {
  const names = new Set<string>();
  const rec = (n: SyntaxNode): void => {
    if (SCOPE_NODES.has(n.type)) {
      return;
    }
    if (n.type === 'global_statement') {
      kids(n).forEach(id => names.add(id.text));
      return;
    }
    const cs = kids(n);
    for (let k = 0; k < cs.length; k++) {
      rec(cs[k]);
    }
  };
  rec(body);
  return names;
}

/** `x` of `x`, `x.a.b`, `x[i]`, `x[i].a`. */
export function baseName(node: SyntaxNode): string | null {
  let n: SyntaxNode | null = node;
  while (n) {
    if (n.type === 'identifier') {
      return n.text;
    }
    if (n.type === 'attribute') {
      n = field(n, 'object');
    } else if (n.type === 'subscript') {
      n = field(n, 'value');
    } else {
      return null;
    }
  }
  return null;
}

/** Imports inside functions bind names too; they resolve the same way, so all are kept. */
function collectImport(node: SyntaxNode, facts: GrowingFacts): void {
  if (node.type === 'import_statement') {
    for (const item of kids(node)) {
      if (item.type === 'dotted_name') {
        // `import scipy.ndimage` binds `scipy`
        const first = item.text.split('.')[0];
        facts.imports.push({ local: first, qualified: first, start: item.startIndex, end: item.endIndex });
      } else if (item.type === 'aliased_import') {
        const name = field(item, 'name');
        const alias = field(item, 'alias');
        if (name && alias) {
          facts.imports.push({ local: alias.text, qualified: name.text, start: item.startIndex, end: item.endIndex });
        }
      }
    }
    return;
  }
  const moduleNode = field(node, 'module_name');
  if (!moduleNode) {
    return;
  }
  const module = moduleNode.text;
  for (const item of kids(node)) {
    if (item.id === moduleNode.id) {
      continue;
    }
    if (item.type === 'wildcard_import') {
      facts.imports.push({ local: '*', qualified: module, start: item.startIndex, end: item.endIndex });
    } else if (item.type === 'dotted_name') {
      facts.imports.push({ local: item.text, qualified: `${module}.${item.text}`, start: item.startIndex, end: item.endIndex });
    } else if (item.type === 'aliased_import') {
      const name = field(item, 'name');
      const alias = field(item, 'alias');
      if (name && alias) {
        facts.imports.push({
          local: alias.text,
          qualified: `${module}.${name.text}`,
          start: item.startIndex,
          end: item.endIndex
        });
      }
    }
  }
}
