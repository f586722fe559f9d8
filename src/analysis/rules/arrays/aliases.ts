/**
 * Host aliases of an array: the other bindings, views, containers and calls through which the
 * notebook may see the same memory as a name.
 *
 * A rewrite that updates an array in place on the device (`u[1:-1, 1:-1] = ...` on a device copy)
 * and rebinds the name to the copy (`u = cp.asarray(u)` ... `u = cp.asnumpy(u)`) leaves every
 * other holder of the original memory stale: `v = u` earlier, a view (`v = u[1:]`, `u.T`,
 * `u.reshape(...)`), `u` itself a view of `big`, `u` kept in a list, a dict, an attribute, or by a
 * function it was passed to. NumPy's update is seen through all of them; the device copy's is not.
 *
 * The scan is deliberately conservative (a false alias costs one copy back, a missed one a
 * silently wrong result): every read of the name in the cells from its reaching binding to the
 * cell is classified, through the view-making steps NumPy takes without copying (subscripts,
 * `.T`/`.real`/`.imag`, `reshape`/`view`/`ravel`/`transpose`/`squeeze`..., `np.asarray` and the
 * other no-copy functions), and the reaching binding itself is checked for where its array
 * came from. Aliases of aliases are followed (a few levels).
 */
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, kids } from '../../syntax';

/** One way the notebook may see an array's memory other than through its name. */
export interface MemorySharer {
  /** `v`, `big`, `lst`, `f()`: what holds or provides the memory. */
  holder: string;
  kind: 'alias' | 'view-of' | 'container' | 'call' | 'returned' | 'origin';
  /** The cell where the sharing starts. */
  cellIndex: number;
  /** A clause for messages: "`v` shares `u`'s memory (cell 3)". */
  reason: string;
  /** A module-level name a later read of which would see the memory (v, big, lst); null for calls. */
  name: string | null;
}

/** numpy.X functions whose result may be the argument itself or a view of it (no copy). */
const NUMPY_NO_COPY = new Set([
  'asarray', 'asanyarray', 'ascontiguousarray', 'asfortranarray', 'asarray_chkfinite', 'require', 'asmatrix', 'reshape', 'ravel',
  'transpose', 'squeeze', 'swapaxes', 'moveaxis', 'rollaxis', 'expand_dims', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'broadcast_to',
  'broadcast_arrays', 'diagonal', 'real', 'imag', 'split', 'array_split', 'hsplit', 'vsplit', 'dsplit', 'flip', 'fliplr', 'flipud',
  'rot90', 'frombuffer', 'ndarray', 'lib.stride_tricks.as_strided', 'lib.stride_tricks.sliding_window_view', 'matrix'
]);
/** ndarray methods whose result is a view of the array. */
const VIEW_METHODS = new Set(['reshape', 'view', 'ravel', 'transpose', 'swapaxes', 'squeeze', 'diagonal', '__array__', 'getfield']);
/** ndarray attributes that are views of the array (or hold it). */
const VIEW_ATTRIBUTES = new Set(['T', 'mT', 'real', 'imag', 'flat', 'base', 'data']);
/** Builtins that return without keeping their arguments. */
const NON_RETAINING_BUILTINS = new Set([
  'print', 'len', 'float', 'int', 'bool', 'str', 'repr', 'format', 'type', 'isinstance', 'id', 'hasattr', 'abs', 'round', 'range', 'sum',
  'min', 'max', 'any', 'all', 'complex', 'divmod', 'pow', 'hash', 'callable', 'display'
]);
const CONTAINERS = new Set(['list', 'tuple', 'set', 'dictionary', 'pair', 'expression_list', 'list_splat', 'dictionary_splat', 'parenthesized_expression']);
const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);

/** How one read of a name lets its memory outlive the statement, if it does. */
interface Escape {
  kind: MemorySharer['kind'];
  /** Names now holding (a view of) the memory; or the call/function that received it. */
  holders: string[];
  named: boolean;
}

function isNoCopyCall(call: SyntaxNode, model: NotebookModel): boolean {
  const fn = field(call, 'function');
  if (!fn) {
    return false;
  }
  const q = model.qualifiedName(fn);
  if (q?.startsWith('numpy.')) {
    const path = q.slice('numpy.'.length);
    if (path === 'array') {
      // np.array(x, copy=False) (NumPy 1) / copy=None (NumPy 2) may hand back x itself
      const copy = callArguments(call).keywords.get('copy')?.text;
      return copy === 'False' || copy === 'None';
    }
    return NUMPY_NO_COPY.has(path);
  }
  return false;
}

function identifiersIn(target: SyntaxNode): string[] {
  if (target.type === 'identifier') {
    return [target.text];
  }
  if (target.type === 'subscript' || target.type === 'attribute') {
    const base = baseName(target);
    return base ? [base] : [];
  }
  return kids(target).flatMap(identifiersIn);
}

function baseName(n: SyntaxNode): string | null {
  let k: SyntaxNode | null = n;
  while (k && (k.type === 'subscript' || k.type === 'attribute')) {
    k = field(k, k.type === 'subscript' ? 'value' : 'object');
  }
  return k?.type === 'identifier' ? k.text : null;
}

function enclosingFunction(n: SyntaxNode): string | null {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'function_definition') {
      return field(p, 'name')?.text ?? 'a function';
    }
    if (p.type === 'lambda') {
      return 'a lambda';
    }
  }
  return null;
}

/**
 * Whether this read of an array (an identifier node) lets its memory be seen afterwards under
 * another name: bound to a name (itself or a view), stored in a container or an attribute, passed
 * to a call that may keep it, returned from a function, or iterated (rows of a 2-D array are views).
 */
export function escapingUse(ref: SyntaxNode, model: NotebookModel, ndim?: number): Escape | null {
  let n = ref;
  let inContainer = false;
  for (;;) {
    const p = n.parent;
    if (!p) {
      return null;
    }
    if (p.type === 'subscript' && field(p, 'value')?.id === n.id) {
      n = p; // basic indexing is a view (fancy indexing copies; not told apart: conservative)
    } else if (p.type === 'attribute' && field(p, 'object')?.id === n.id) {
      const attr = field(p, 'attribute')?.text ?? '';
      const call = p.parent?.type === 'call' && field(p.parent, 'function')?.id === p.id ? p.parent : null;
      if (call && (VIEW_METHODS.has(attr) || (attr === 'astype' && callArguments(call).keywords.get('copy')?.text === 'False'))) {
        n = call;
      } else if (!call && VIEW_ATTRIBUTES.has(attr)) {
        n = p;
      } else {
        return null; // a method computing a new value (sum, copy, astype, tolist...), or a scalar attribute
      }
    } else if (p.type === 'conditional_expression' || p.type === 'boolean_operator') {
      n = p; // `u if c else w`, `u or w`: may be u itself
    } else if (CONTAINERS.has(p.type)) {
      // `a, b = u, w`: unpacked at once, `a` is u (not a tuple kept somewhere)
      const assign = p.parent;
      const left = assign?.type === 'assignment' && field(assign, 'right')?.id === p.id ? field(assign, 'left') : null;
      if (!inContainer && (p.type === 'expression_list' || p.type === 'tuple') && left && (left.type === 'pattern_list' || left.type === 'tuple_pattern') && kids(left).length === kids(p).length) {
        const target = kids(left)[kids(p).findIndex(k => k.id === n.id)];
        const names = target ? identifiersIn(target) : [];
        return names.length === 0 ? null : { kind: target.type === 'identifier' ? 'alias' : 'container', holders: names, named: true };
      }
      inContainer ||= p.type !== 'parenthesized_expression';
      n = p;
    } else if (p.type === 'argument_list' || (p.type === 'keyword_argument' && field(p, 'value')?.id === n.id)) {
      const call = p.type === 'argument_list' ? p.parent : p.parent?.parent;
      if (!call || call.type !== 'call') {
        return null;
      }
      if (!inContainer && isNoCopyCall(call, model)) {
        n = call;
        continue;
      }
      const fn = field(call, 'function');
      const q = fn ? model.qualifiedName(fn) : null;
      const lib = q ? q.split('.')[0] : null;
      const retains =
        q !== null
          ? !(lib === 'numpy' || lib === 'cupy' || lib === 'cupyx' || lib === 'math' || lib === 'matplotlib' || (lib === 'scipy' && !q.startsWith('scipy.sparse')))
          : !(fn?.type === 'identifier' && NON_RETAINING_BUILTINS.has(fn.text) && !model.bindings.has(fn.text));
      if (!retains) {
        return null;
      }
      return { kind: 'call', holders: [`${fn?.text ?? 'a call'}()`], named: false };
    } else if (p.type === 'assignment' || p.type === 'augmented_assignment') {
      if (field(p, 'right')?.id !== n.id) {
        return null;
      }
      const left = field(p, 'left');
      if (!left) {
        return null;
      }
      if (p.type === 'augmented_assignment' && !inContainer) {
        return null; // `w += u`: u's values, not its memory
      }
      const names = identifiersIn(left);
      const stored = left.type === 'subscript' || left.type === 'attribute' || inContainer || p.type === 'augmented_assignment';
      return names.length === 0 ? null : { kind: stored ? 'container' : 'alias', holders: names, named: true };
    } else if (p.type === 'named_expression' && field(p, 'value')?.id === n.id) {
      const name = field(p, 'name')?.text;
      return name ? { kind: inContainer ? 'container' : 'alias', holders: [name], named: true } : null;
    } else if (p.type === 'return_statement' || p.type === 'yield' || (p.type === 'lambda' && field(p, 'body')?.id === n.id)) {
      return { kind: 'returned', holders: [enclosingFunction(n) ?? 'a function'], named: false };
    } else if ((p.type === 'for_statement' || p.type === 'for_in_clause') && field(p, 'right')?.id === n.id) {
      if (ndim === 1 && n.id === ref.id) {
        return null; // the elements of a 1-D array are scalars
      }
      if (p.type === 'for_statement') {
        const left = field(p, 'left');
        const names = left ? identifiersIn(left) : [];
        return names.length === 0 ? null : { kind: 'alias', holders: names, named: true };
      }
      // a comprehension whose elements are the rows themselves (or views of them) keeps them
      const comprehension = p.parent;
      const body = comprehension ? field(comprehension, 'body') : null;
      const left = field(p, 'left');
      const targets = new Set(left ? identifiersIn(left) : []);
      const elements = body ? (['tuple', 'list', 'pair', 'expression_list'].includes(body.type) ? kids(body) : [body]) : [];
      const keeps = elements.some(e => {
        const o = originOf(e, model, null);
        return o?.kind === 'view-of' && o.name !== null && targets.has(o.name);
      });
      return keeps ? { kind: 'container', holders: ['a comprehension'], named: false } : null;
    } else {
      return null; // an operand, an index, a condition, `with u:`...: no reference kept
    }
  }
}

/** Where the array a binding holds came from, when that may be memory something else holds. */
function originShares(value: SyntaxNode | null, statement: SyntaxNode, model: NotebookModel, cell: CellModel): { holder: string; kind: 'view-of' | 'origin'; name: string | null } | null {
  let v = value;
  if (!v) {
    // unpacking (`a, b = f(x)`), loop and with targets: read the statement's right side
    const assign = statement.type === 'expression_statement' ? kids(statement)[0] : statement;
    v = assign?.type === 'assignment' ? field(assign, 'right') : null;
    if (!v) {
      return { holder: statement.type === 'for_statement' ? 'a loop' : 'a statement', kind: 'origin', name: null };
    }
  }
  return originOf(v, model, cell);
}

function originOf(start: SyntaxNode, model: NotebookModel, cell: CellModel | null): { holder: string; kind: 'view-of' | 'origin'; name: string | null } | null {
  let v = start;
  for (;;) {
    if (v.type === 'parenthesized_expression' && kids(v).length === 1) {
      v = kids(v)[0];
    } else if (v.type === 'identifier') {
      return { holder: v.text, kind: 'view-of', name: v.text };
    } else if (v.type === 'subscript') {
      const value = field(v, 'value');
      if (!value) {
        return null;
      }
      v = value;
    } else if (v.type === 'attribute') {
      const attr = field(v, 'attribute')?.text ?? '';
      if (!VIEW_ATTRIBUTES.has(attr)) {
        // a module attribute (np.pi) or an object's attribute: may be an array the object holds
        return model.qualifiedName(v) ? null : { holder: v.text, kind: 'view-of', name: baseName(v) };
      }
      const obj = field(v, 'object');
      if (!obj) {
        return null;
      }
      v = obj;
    } else if (v.type === 'call') {
      const fn = field(v, 'function');
      if (!fn) {
        return null;
      }
      if (isNoCopyCall(v, model)) {
        const arg = callArguments(v).positional[0];
        if (!arg) {
          return null;
        }
        v = arg;
        continue;
      }
      if (fn.type === 'attribute') {
        const attr = field(fn, 'attribute')?.text ?? '';
        const obj = field(fn, 'object');
        if (obj && (VIEW_METHODS.has(attr) || (attr === 'astype' && callArguments(v).keywords.get('copy')?.text === 'False'))) {
          v = obj;
          continue;
        }
      }
      const q = model.qualifiedName(fn);
      if (q !== null && /^(numpy|cupy|cupyx|scipy)\./.test(q)) {
        return null; // a library call computing a new array
      }
      if (fn.type === 'attribute') {
        const obj = field(fn, 'object');
        // methods of arrays (u.copy(), u.sum(), u.astype(...)) and of generators make new arrays
        const kind = obj && cell ? model.inferValue(obj, cell).kind : 'unknown';
        if (kind === 'ndarray' || kind === 'rng') {
          return null;
        }
      }
      return { holder: `${fn.text}()`, kind: 'origin', name: null };
    } else if (v.type === 'conditional_expression' || v.type === 'boolean_operator') {
      return { holder: v.text.length > 40 ? `${v.text.slice(0, 37)}...` : v.text, kind: 'origin', name: null };
    } else {
      return null; // operators, literals, comprehensions: a new array
    }
  }
}

/** Reads of the module-level `name` in a cell (not locals of functions or comprehensions). */
function readsOf(cell: CellModel, name: string): SyntaxNode[] {
  const facts = cell.facts;
  if (!facts) {
    return [];
  }
  return facts.valueIds.filter(n => n.text === name && !facts.localIds.has(n.startIndex) && !insideScopeShadowing(n));
}

/** A read inside a function that has its own parameter of that name is not the global. */
function insideScopeShadowing(n: SyntaxNode): boolean {
  for (let p = n.parent; p; p = p.parent) {
    if (SCOPES.has(p.type)) {
      const params = field(p, 'parameters');
      if (params && identifiersIn(params).includes(n.text)) {
        return true;
      }
    }
  }
  return false;
}

/**
 * Everything through which the notebook may see the memory `name` holds when `cell` starts:
 * aliases and views made from it in the cells since its reaching binding, the array it is itself
 * a view of, containers, attributes and calls that kept it. Empty when the notebook shows none.
 */
export function memorySharers(name: string, cell: CellModel, model: NotebookModel): MemorySharer[] {
  const out: MemorySharer[] = [];
  const seen = new Set<string>([name]);
  const queue: string[] = [name];
  /** Names found holding (a view of) the memory: where they got it (cell, offset). */
  const derived = new Map<string, { cellIndex: number; at: number }>();
  const ndimOf = (n: string): number | undefined => model.valueBefore(n, cell, 0).shape?.length;
  for (let depth = 0; queue.length > 0 && depth < 8; depth++) {
    const current = queue.shift()!;
    const label = current === name ? `\`${name}\`` : `\`${current}\` (which shares \`${name}\`'s memory)`;
    // the reaching binding: the last plain (not augmented) binding before the cell
    const writers = model.writers(current).filter(c => c.index < cell.index).sort((a, b) => b.index - a.index);
    let from = -1;
    let bound = false;
    let dropped = false;
    for (const w of writers) {
      const plain = (w.facts?.assignments ?? []).filter(a => a.name === current && !a.augmented && !isInScope(a.statement));
      if (plain.length > 0) {
        const last = plain[plain.length - 1];
        from = w.index;
        bound = true;
        const got = derived.get(current);
        if (got && (w.index > got.cellIndex || (w.index === got.cellIndex && last.statement.startIndex > got.at))) {
          // rebound since it took the memory: it no longer holds it
          dropped = true;
          break;
        }
        const origin = got ? null : originShares(last.value, last.statement, model, w);
        if (origin && !(origin.name !== null && seen.has(origin.name))) {
          const reason =
            origin.kind === 'view-of'
              ? `${label} is \`${origin.holder}\` or a view of it (cell ${w.index})`
              : `${label} comes from \`${origin.holder}\` (cell ${w.index}), which may hand back an array held elsewhere`;
          out.push({ holder: origin.holder, kind: origin.kind, cellIndex: w.index, reason, name: origin.name });
          if (origin.name && !seen.has(origin.name)) {
            seen.add(origin.name);
            queue.push(origin.name);
          }
        }
        break;
      }
      if (w.facts?.writes.has(current) && !(w.facts.assignments ?? []).some(a => a.name === current)) {
        // bound by a def, an import, a `global` write in a function: not an array we can follow
        from = w.index;
        bound = true;
        break;
      }
    }
    if (dropped) {
      // its entries go (what it kept before it was rebound is found through the names it gave it)
      for (let k = out.length - 1; k >= 0; k--) {
        if (out[k].name === current && (out[k].kind === 'alias' || out[k].kind === 'container')) {
          out.splice(k, 1);
        }
      }
      continue;
    }
    if (!bound && current === name && model.bindings.get(name) === undefined) {
      out.push({ holder: 'the kernel', kind: 'origin', cellIndex: -1, reason: `${label} is bound by no cell of the notebook (the kernel's namespace), so other names may share its memory`, name: null });
    }
    for (const reader of model.readers(current)) {
      if (reader.index < from || reader.index >= cell.index) {
        continue;
      }
      for (const ref of readsOf(reader, current)) {
        if (reader.index === from && !isAfterBinding(reader, current, ref)) {
          continue;
        }
        const e = escapingUse(ref, model, ndimOf(current));
        if (!e) {
          continue;
        }
        for (const holder of e.holders) {
          if (holder === current || (e.named && seen.has(holder))) {
            continue;
          }
          const h = e.named ? `\`${holder}\`` : `\`${holder}\``;
          const reason =
            e.kind === 'alias'
              ? `${h} shares ${current === name ? `\`${name}\`` : `\`${current}\``}'s memory (cell ${reader.index})`
              : e.kind === 'container'
                ? `${label} is kept in ${h} (cell ${reader.index})`
                : e.kind === 'call'
                  ? `${label} is passed to ${h} (cell ${reader.index}), which may keep it`
                  : `${label} is returned by ${h} (cell ${reader.index})`;
          if (!out.some(o => o.reason === reason)) {
            out.push({ holder, kind: e.kind, cellIndex: reader.index, reason, name: e.named ? holder : null });
          }
          if (e.named && !seen.has(holder)) {
            seen.add(holder);
            derived.set(holder, { cellIndex: reader.index, at: ref.startIndex });
            queue.push(holder);
          }
        }
      }
    }
  }
  return out;
}

/** Does this binding statement sit in a function or class body (not the module's binding)? */
function isInScope(statement: SyntaxNode): boolean {
  for (let p = statement.parent; p; p = p.parent) {
    if (SCOPES.has(p.type)) {
      return true;
    }
  }
  return false;
}

/** In the binding cell, only reads after the reaching (last plain) binding count. */
function isAfterBinding(cell: CellModel, name: string, ref: SyntaxNode): boolean {
  const plain = (cell.facts?.assignments ?? []).filter(a => a.name === name && !a.augmented);
  const last = plain[plain.length - 1];
  return !last || ref.startIndex >= last.at || isInScope(ref);
}
