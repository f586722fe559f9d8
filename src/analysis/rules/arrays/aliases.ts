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
 * A call to NumPy, SciPy (not sparse), math or matplotlib, or to a method of a matplotlib object
 * (`ax[1].pcolormesh(t, lat, z)`, `fig.add_subplot(122).plot(y)`: matplotlibObject), keeps no
 * array that could change: an artist holds what it draws, and never writes to it.
 *
 * An array stored into another array's element or slice (`x[:, :2] = u[0]`, `x` an array of a
 * known dtype other than object) is copied in: `x` does not share `u`'s memory (a list's or an
 * object array's item, or a store into a value of unknown type, keeps `u` itself).
 *
 * The scan is deliberately conservative (a false alias costs one copy back, a missed one a
 * silently wrong result): every read of the name in the cells from its reaching binding to the
 * cell is classified, through the view-making steps NumPy takes without copying (subscripts other
 * than advanced indexing, `.T`/`.real`/`.imag`, `reshape`/`view`/`ravel`/`transpose`/`squeeze`...,
 * `np.asarray` and the other no-copy functions), and the reaching binding itself is checked for
 * where its array came from. Aliases of aliases are followed (a few levels).
 */
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { baseName, type AssignmentFact } from '../../facts';
import { callArguments, field, kids, walk } from '../../syntax';
import type { ValueInfo } from '../../values';

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
/*
 * What an ndarray method's result (or attribute) holds of the array, two questions apart: does it
 * share the array's memory (a view: a write to it reaches the array, and the array's writes reach
 * it), and does it hold every element (a host copy of it moves all of the array, so a copy of the
 * array itself costs no more: cupy-rewrite.ts readsWhole)? astype and copy hold every element in
 * new memory; diagonal and getfield share memory but hold part of each row or element.
 */
/**
 * Methods whose result is a view of every element: reshape, ravel, transpose... (`view` may
 * reinterpret the bytes; `conj` of a real array is the array itself, NumPy's PyArray_Conjugate).
 */
export const WHOLE_VIEW_METHODS: ReadonlySet<string> = new Set(['reshape', 'view', 'ravel', 'transpose', 'swapaxes', 'squeeze', '__array__', 'conj', 'conjugate']);
/** Methods whose result is a new array of every element, sharing no memory (`astype(copy=False)` excepted: may be the array). */
export const WHOLE_COPY_METHODS: ReadonlySet<string> = new Set(['flatten', 'copy', 'astype']);
/** ndarray methods whose result may be a view of the array (a write to it reaches the array). */
export const VIEW_METHODS: ReadonlySet<string> = new Set([...WHOLE_VIEW_METHODS, 'diagonal', 'getfield']);
/** ndarray attributes that are views of every element (`a.T`). */
export const WHOLE_VIEW_ATTRIBUTES: ReadonlySet<string> = new Set(['T', 'mT']);
/** ndarray attributes that are views of the array (or hold it). */
const VIEW_ATTRIBUTES: ReadonlySet<string> = new Set([...WHOLE_VIEW_ATTRIBUTES, 'real', 'imag', 'flat', 'base', 'data']);
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
  /** Per holder (same order), where a chained assignment mixes kinds (`a = d["k"] = u`). */
  kinds?: MemorySharer['kind'][];
}

/**
 * Whether reading the subscript `sub` (`a[...]`) certainly makes a new array rather than a view
 * of `a`: advanced indexing, which always copies, in NumPy and in CuPy alike. So `sel = a[mask]`
 * shares nothing with `a`, and a later in-place update of `a`, on the host or on a device copy,
 * is not seen through `sel` either way.
 *
 * `a` must be known to be an array (a list's or another object's `__getitem__` may hand back
 * what it holds), and one part of the index must be advanced: a list (`a[[0, 2]]`), or what the
 * notebook model knows is an array of booleans or of at least one dimension (`mask = a > 0`,
 * `idx = np.argsort(a)`, `np.nonzero(a)[0]`), or a tuple holding one (`a[np.nonzero(a)]`; one
 * such part is enough: `a[idx, 1:]`). The dtype of an index of one or more dimensions does not
 * matter (any but bool or integer raises IndexError). A 0-d integer one may be a NumPy integer
 * (the model's `np.argmax(a)`), which indexes as an integer. Integers, slices, None, `...` and
 * indices of a kind the model cannot tell count as basic indexing, a view: conservative, as
 * the scan is.
 */
function copiesOnIndexing(sub: SyntaxNode, model: NotebookModel): boolean {
  // escapingUse's callers hand it a node, not its cell: the model knows which cell holds it
  const cell = model.cellOf(sub);
  const value = field(sub, 'value');
  if (!cell || !value || model.inferValue(value, cell).kind !== 'ndarray') {
    return false;
  }
  let indices = kids(sub).filter(k => k.id !== value.id && k.type !== 'comment');
  if (indices.length === 1 && indices[0].type === 'tuple') {
    indices = kids(indices[0]).filter(k => k.type !== 'comment'); // `a[(i, j)]` is `a[i, j]`
  }
  return indices.some(k => k.type === 'list' || k.type === 'list_comprehension' || isArrayIndex(model.inferValue(k, cell)));
}

/** An array index of one or more dimensions or of booleans, or a sequence holding one (np.nonzero's tuple). */
function isArrayIndex(v: ValueInfo): boolean {
  if (v.kind === 'ndarray') {
    return v.dtype === 'bool' || (v.shape !== undefined && v.shape.length > 0);
  }
  return v.kind === 'sequence' && (v.elements ?? []).some(isArrayIndex);
}

/**
 * The targets of the chained assignment `assign` belongs to (`a = b = u`: Python binds every
 * target to the innermost right side), from the outermost down: `assign`'s own left included.
 */
function chainTargets(assign: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let a: SyntaxNode | null = chainTop(assign); a?.type === 'assignment'; a = field(a, 'right')) {
    const left = field(a, 'left');
    if (left) {
      out.push(left);
    }
  }
  return out;
}

/** The outermost assignment of the chain `assign` belongs to. */
function chainTop(assign: SyntaxNode): SyntaxNode {
  let top = assign;
  while (top.parent?.type === 'assignment' && field(top.parent, 'right')?.id === top.id) {
    top = top.parent;
  }
  return top;
}

/** Holders of a value bound by the targets of an assignment chain: names as aliases, stores as containers. */
function targetsEscape(targets: SyntaxNode[], inContainer: boolean, augmented: boolean): Escape | null {
  const entries: { holder: string; kind: MemorySharer['kind'] }[] = [];
  for (const left of targets) {
    const stored = left.type === 'subscript' || left.type === 'attribute' || inContainer || augmented;
    for (const h of identifiersIn(left)) {
      if (!entries.some(e => e.holder === h)) {
        entries.push({ holder: h, kind: stored ? 'container' : 'alias' });
      }
    }
  }
  if (entries.length === 0) {
    return null;
  }
  // aliases first: callers describe the escape by its first holder and kind
  entries.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'alias' ? -1 : 1));
  return { kind: entries[0].kind, holders: entries.map(e => e.holder), named: true, kinds: entries.map(e => e.kind) };
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

/** The class whose body the statement `stmt` (an assignment) is directly in, if any. */
function classBodyOf(stmt: SyntaxNode): SyntaxNode | null {
  const statement = stmt.parent?.type === 'expression_statement' ? stmt.parent : null;
  const block = statement?.parent;
  return block?.type === 'block' && block.parent?.type === 'class_definition' ? block.parent : null;
}

/** Is the definition (a def or class, maybe decorated) a statement of the cell's module level? */
function atModuleLevel(definition: SyntaxNode): boolean {
  const statement = definition.parent?.type === 'decorated_definition' ? definition.parent : definition;
  return statement.parent?.type === 'module';
}

/**
 * Is the array `ref` reads a column of the dict literal `dict` that `pd.DataFrame(dict)` is built
 * from (`pd.DataFrame({"a": y[:10]})`)? pandas copies dict data (its documented default, unless
 * `copy=False`), so the frame keeps none of the array's memory. A value nested deeper
 * (`{"a": [y]}`: an object column holding the array itself) is no column of it.
 */
function copiedAsColumn(ref: SyntaxNode, dict: SyntaxNode, call: SyntaxNode): boolean {
  const { positional, keywords } = callArguments(call);
  const data = positional[0] ?? keywords.get('data');
  if (dict.type !== 'dictionary' || data?.id !== dict.id || keywords.get('copy')?.text === 'False') {
    return false;
  }
  // from ref (a view of it, as escapingUse climbed) to the pair whose value it is, in no other container
  let v = ref;
  while (v.parent && v.parent.type !== 'pair') {
    v = v.parent;
    if (CONTAINERS.has(v.type) && v.type !== 'parenthesized_expression') {
      return false;
    }
  }
  return v.parent?.type === 'pair' && field(v.parent, 'value')?.id === v.id && v.parent.parent?.id === dict.id;
}

/**
 * Whether this read of an array (an identifier node) lets its memory be seen afterwards under
 * another name: bound to a name (itself or a view), stored in a container or an attribute, passed
 * to a call that may keep it, returned from a function, or iterated (rows of a 2-D array are views).
 */
export function escapingUse(ref: SyntaxNode, model: NotebookModel, ndim?: number): Escape | null {
  let n = ref;
  let inContainer = false;
  const walrusTargets: SyntaxNode[] = [];
  for (;;) {
    const p = n.parent;
    if (!p) {
      return null;
    }
    if (p.type === 'subscript' && field(p, 'value')?.id === n.id) {
      if (copiesOnIndexing(p, model)) {
        return null; // advanced indexing: a new array
      }
      n = p; // basic indexing (or an index the model cannot tell): a view
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
        // `a, b = c, d = u, w`: each pattern of the chain unpacks it; a plain name keeps the tuple
        const k = kids(p).findIndex(x => x.id === n.id);
        const targets = chainTargets(assign!).map(t =>
          (t.type === 'pattern_list' || t.type === 'tuple_pattern') && kids(t).length === kids(p).length ? { node: kids(t)[k], whole: false } : { node: t, whole: true }
        );
        const one = targetsEscape(targets.filter(t => !t.whole && t.node).map(t => t.node), false, false);
        const whole = targetsEscape(targets.filter(t => t.whole).map(t => t.node), true, false);
        if (!one || !whole) {
          return one ?? whole;
        }
        return { kind: one.kind, holders: [...one.holders, ...whole.holders], named: true, kinds: [...one.kinds!, ...whole.kinds!] };
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
      if (p.type === 'keyword_argument' && field(p, 'name')?.text === 'out') {
        n = call; // `v = np.add(a, b, out=u)`: the result is u itself
        continue;
      }
      const fn = field(call, 'function');
      const q = fn ? model.qualifiedName(fn) : null;
      if (q === 'pandas.DataFrame' && copiedAsColumn(ref, n, call)) {
        return null;
      }
      const lib = q ? q.split('.')[0] : null;
      // (a method of a matplotlib object, `ax[1].pcolormesh(t, lat, z)`, as matplotlib's functions:
      // its artist keeps the array to draw it, and never changes it)
      const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
      const retains =
        q !== null
          ? !(lib === 'numpy' || lib === 'cupy' || lib === 'cupyx' || lib === 'math' || lib === 'matplotlib' || (lib === 'scipy' && !q.startsWith('scipy.sparse')))
          : !(fn?.type === 'identifier' && NON_RETAINING_BUILTINS.has(fn.text) && !model.bindings.has(fn.text)) && !(obj && matplotlibObject(obj, model));
      if (!retains) {
        return null;
      }
      return { kind: 'call', holders: [`${fn?.text ?? 'a call'}()`], named: false };
    } else if ((p.type === 'default_parameter' || p.type === 'typed_default_parameter') && field(p, 'value')?.id === n.id) {
      // `def f(a=u)`: the function keeps the array as a default (`f.__defaults__`) for every call
      const fn = p.parent?.parent;
      if (fn?.type === 'lambda') {
        // `g = lambda a=u: ...`: the lambda holds it, and whatever the lambda goes to
        inContainer = true;
        n = fn;
        continue;
      }
      const name = fn?.type === 'function_definition' ? field(fn, 'name')?.text : undefined;
      return { kind: 'container', holders: [name ?? 'a function'], named: name !== undefined && atModuleLevel(fn!) };
    } else if (p.type === 'assignment' || p.type === 'augmented_assignment') {
      if (field(p, 'right')?.id !== n.id) {
        return null;
      }
      const left = field(p, 'left');
      if (!left) {
        return null;
      }
      const owner = classBodyOf(p);
      if (owner) {
        // `class K: field = u`: a class attribute, `K.field`
        const name = field(owner, 'name')?.text;
        return { kind: 'container', holders: [name ?? 'a class'], named: name !== undefined && atModuleLevel(owner) };
      }
      if (p.type === 'augmented_assignment' && !inContainer) {
        return null; // `w += u`: u's values, not its memory
      }
      if (p.type === 'augmented_assignment') {
        return targetsEscape([left], inContainer, true);
      }
      // `a = b = u`: every target of the chain holds it (and a walrus on the way, `a = (v := u)`),
      // except an element or slice of an array of a known dtype, not object (`x[:, :2] = u[0]`):
      // NumPy copies the values in
      const cell = model.cellOf(p);
      const intoArray = (t: SyntaxNode): boolean => {
        const base = t.type === 'subscript' ? field(t, 'value') : null;
        const v = cell && base ? model.inferValue(base, cell) : null;
        return !inContainer && v?.kind === 'ndarray' && v.dtype !== undefined && v.dtype !== 'object';
      };
      const e = targetsEscape([...chainTargets(p).filter(t => !intoArray(t)), ...walrusTargets], inContainer, false);
      return e;
    } else if (p.type === 'named_expression' && field(p, 'value')?.id === n.id) {
      const name = field(p, 'name');
      if (!name) {
        return null;
      }
      let up: SyntaxNode = p;
      while (up.parent?.type === 'parenthesized_expression') {
        up = up.parent;
      }
      if (up.parent?.type === 'assignment' && field(up.parent, 'right')?.id === up.id) {
        walrusTargets.push(name); // `a = (v := u)`: both hold it
        n = up;
        continue;
      }
      return { kind: inContainer ? 'container' : 'alias', holders: [name.text], named: true };
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

/**
 * Is `obj` (a method call's object: `ax`, `ax[1]`, `fig.axes[0]`) a matplotlib object: made by a
 * matplotlib call (`plt.gca()`), or a method of one (`fig.add_subplot(111)`), or a part of one, or
 * a name every binding of which in the notebook is such a value (`fig, ax = plt.subplots(1, 2)`)?
 * A few steps deep; anything else (a loop target, a value of unknown origin) is not.
 */
function matplotlibObject(obj: SyntaxNode, model: NotebookModel, depth = 0): boolean {
  let e: SyntaxNode | null = obj;
  while (e && (e.type === 'subscript' || e.type === 'attribute' || e.type === 'parenthesized_expression')) {
    e = e.type === 'subscript' ? field(e, 'value') : e.type === 'attribute' ? field(e, 'object') : e.namedChild(0);
  }
  if (!e || depth > 4) {
    return false;
  }
  if (e.type === 'call') {
    const fn = field(e, 'function');
    if (model.qualifiedName(fn ?? e)?.startsWith('matplotlib.')) {
      return true;
    }
    return fn?.type === 'attribute' && matplotlibObject(field(fn, 'object') ?? fn, model, depth + 1);
  }
  if (e.type !== 'identifier') {
    return false;
  }
  const name = e.text;
  const bindings = model.writers(name).flatMap(c => (c.facts?.assignments ?? []).filter(a => a.name === name));
  return (
    bindings.length > 0 &&
    bindings.every(a => {
      const from = a.value ?? a.unpacked?.from;
      return !!from && !a.augmented && !a.deleted && from.type === 'call' && matplotlibObject(from, model, depth + 1);
    })
  );
}

/** Where a binding's array came from, when that may be memory something else holds. */
interface Origin {
  holder: string;
  kind: 'view-of' | 'origin';
  name: string | null;
  /** What the holder does with the memory, for the message (default: may hand back an array held elsewhere). */
  why?: string;
}

/**
 * Does the call `q(...)` map a file into memory, writes to the array reaching the file:
 * `np.memmap(path, ...)` (default mode "r+"), `np.lib.format.open_memmap`, `np.load(path,
 * mmap_mode=...)`. A copy-on-write map (mode "c") keeps its writes in memory: its own memory.
 * A mode the analysis cannot read counts as a map that writes.
 */
function mapsFile(call: SyntaxNode, q: string): boolean {
  const keywords = callArguments(call).keywords;
  const positional = callArguments(call).positional;
  let mode: SyntaxNode | undefined;
  if (q === 'numpy.memmap' || q === 'numpy.lib.format.open_memmap') {
    mode = keywords.get('mode') ?? positional[q === 'numpy.memmap' ? 2 : 1];
    if (mode === undefined) {
      return true; // np.memmap's default "r+"; open_memmap's "r+" too
    }
  } else if (q === 'numpy.load') {
    mode = keywords.get('mmap_mode') ?? positional[1];
    if (mode === undefined || mode.type === 'none') {
      return false; // read into a new array
    }
  } else {
    return false;
  }
  return !/^(['"])(c|copyonwrite)\1$/.test(mode.text);
}

/** Where the array a binding holds came from, when that may be memory something else holds. */
function originShares(value: SyntaxNode | null, statement: SyntaxNode, model: NotebookModel, cell: CellModel): Origin | null {
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

function originOf(start: SyntaxNode, model: NotebookModel, cell: CellModel | null): Origin | null {
  let v = start;
  for (;;) {
    if (v.type === 'parenthesized_expression' && kids(v).length === 1) {
      v = kids(v)[0];
    } else if (v.type === 'assignment' || v.type === 'named_expression') {
      // `initial = u = f()` records `u = f()` as initial's value; `v = (w := u)`: the innermost right side
      const right = field(v, v.type === 'assignment' ? 'right' : 'value');
      if (!right) {
        return null;
      }
      v = right;
    } else if (v.type === 'identifier') {
      return { holder: v.text, kind: 'view-of', name: v.text };
    } else if (v.type === 'subscript') {
      const value = field(v, 'value');
      if (!value || copiesOnIndexing(v, model)) {
        return null; // advanced indexing: a new array
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
      const out = callArguments(v).keywords.get('out');
      if (out) {
        v = out; // `np.add(a, b, out=u)` hands back u itself
        continue;
      }
      const q = model.qualifiedName(fn);
      if (q !== null && mapsFile(v, q)) {
        // a memory map: NumPy's in-place updates go to the file
        return { holder: `${fn.text}()`, kind: 'origin', name: null, why: 'maps a file into memory, and NumPy\'s in-place updates go to the file' };
      }
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

/**
 * A read inside a function that has its own parameter of that name is not the global. A
 * parameter's default value or annotation is read where the function is defined, outside it.
 */
function insideScopeShadowing(n: SyntaxNode): boolean {
  let from: SyntaxNode = n;
  for (let p = n.parent; p; from = p, p = p.parent) {
    if (SCOPES.has(p.type)) {
      const params = field(p, 'parameters');
      if (params && params.id !== from.id && parameterNames(params).includes(n.text)) {
        return true;
      }
    }
  }
  return false;
}

/** The names a parameter list binds (not what its defaults or annotations read). */
export function parameterNames(params: SyntaxNode): string[] {
  // `a`, `a=1` / `a: T = 1` (the name field), `a: T`, `*a`, `**a`, `*a: T` (a splat inside)
  const nameOf = (k: SyntaxNode): string | null => {
    if (k.type === 'identifier') {
      return k.text;
    }
    const named = field(k, 'name');
    if (named) {
      return named.type === 'identifier' ? named.text : null;
    }
    const inner = kids(k).find(c => c.type === 'identifier' || c.type === 'list_splat_pattern' || c.type === 'dictionary_splat_pattern');
    return inner ? nameOf(inner) : null;
  };
  return kids(params).flatMap(k => {
    const name = nameOf(k);
    return name === null ? [] : [name];
  });
}

/** A place in the notebook: a cell and an offset in it. */
interface Point {
  cellIndex: number;
  at: number;
}

/**
 * The module-level statement of a binding when it certainly runs whenever its cell does: a plain
 * (possibly chained or unpacking) assignment, a `del`, a `def` or `class`, at the cell's top level
 * with `name` a target of its own (not in a loop, branch, `try`, `with`, function, or a walrus in
 * an expression that may be skipped). Null for every other binding.
 */
function definiteStatement(fact: AssignmentFact, name: string): SyntaxNode | null {
  if (fact.nested || fact.augmented) {
    return null;
  }
  const s = fact.statement;
  if (fact.deleted) {
    return s.type === 'delete_statement' && s.parent?.type === 'module' ? s : null;
  }
  if ((s.type === 'function_definition' || s.type === 'class_definition') && s.parent?.type === 'module') {
    return s;
  }
  const assign = s.type === 'expression_statement' ? kids(s)[0] : s;
  if (assign?.type !== 'assignment') {
    return null;
  }
  const top = chainTop(assign);
  const statement = top.parent;
  if (statement?.type !== 'expression_statement' || statement.parent?.type !== 'module') {
    return null;
  }
  const names = (t: SyntaxNode): boolean =>
    t.type === 'identifier' ? t.text === name : (t.type === 'pattern_list' || t.type === 'tuple_pattern') && kids(t).some(names);
  return chainTargets(top).some(names) ? statement : null;
}

/**
 * The bindings of `name` in the cells before `cell` that certainly end its holding what it held:
 * definite (above), and to a new object (`v = None`, `v = np.zeros(3)`, `v = v * 2`, `del v`), not
 * to a view of something (`v = v[1:]`, `v = w`) or to what a call hands back. Sorted.
 */
function droppingRebindings(name: string, cell: CellModel, model: NotebookModel): { cellIndex: number; start: number; at: number }[] {
  const out: { cellIndex: number; start: number; at: number }[] = [];
  for (const w of model.writers(name)) {
    if (w.index >= cell.index) {
      continue;
    }
    for (const a of w.facts?.assignments ?? []) {
      if (a.name !== name) {
        continue;
      }
      const statement = definiteStatement(a, name);
      if (!statement) {
        continue;
      }
      const fresh = a.deleted || statement.type === 'function_definition' || statement.type === 'class_definition' || (a.value !== null && originOf(a.value, model, w) === null);
      if (fresh) {
        out.push({ cellIndex: w.index, start: statement.startIndex, at: a.at });
      }
    }
  }
  return out.sort((x, y) => x.cellIndex - y.cellIndex || x.at - y.at);
}

const before = (a: Point, cellIndex: number, at: number): boolean => a.cellIndex < cellIndex || (a.cellIndex === cellIndex && a.at <= at);

/** Methods that change the array they are called on. */
const MUTATING = new Set(['sort', 'fill', 'resize', 'put', 'itemset', 'partition', 'setflags', 'byteswap', '__iadd__', '__isub__', '__imul__', '__itruediv__', '__setitem__']);

/**
 * Whether `cell` first binds `name` to a new array (`u = u.copy()`, `u = np.zeros(n)`) at its
 * top level, before any other use of the name: then nothing the cell does to `name` reaches the
 * memory it held when the cell started, and what shared that memory does not matter.
 */
function freshlyRebound(name: string, cell: CellModel, model: NotebookModel): boolean {
  const root = cell.tree?.rootNode;
  const first = (cell.facts?.assignments ?? []).find(a => a.name === name);
  if (!root || !first || first.deleted || first.value === null) {
    return false;
  }
  const statement = definiteStatement(first, name);
  if (!statement || statement.type !== 'expression_statement' || originOf(first.value, model, cell) !== null) {
    return false;
  }
  let ok = true;
  walk(root, n => {
    if (!ok) {
      return false;
    }
    if (n.type !== 'identifier' || n.text !== name) {
      return;
    }
    if (n.startIndex < statement.startIndex) {
      ok = false; // used (read, updated, captured by a function) before the new binding
    } else if (n.endIndex <= statement.endIndex) {
      // in the binding statement: reading the old array is fine, updating or keeping it is not
      const p = n.parent;
      const method = p?.type === 'attribute' && field(p, 'object')?.id === n.id ? field(p, 'attribute')?.text ?? '' : '';
      const target = chainTargets(chainTop(kids(statement)[0])).some(t => t.id === n.id);
      if (!target && (MUTATING.has(method) || escapingUse(n, model) !== null)) {
        ok = false;
      }
    }
  });
  return ok;
}

/**
 * Everything through which the notebook may see the memory `name` holds when `cell` starts:
 * aliases and views made from it in the cells since its reaching binding, the array it is itself
 * a view of, containers, attributes and calls that kept it. Empty when the notebook shows none,
 * and when the cell itself first binds `name` to a new array before any other use of it (the
 * cell's updates reach only that array).
 *
 * A name found holding the memory holds it from there until a definite rebinding to a new object
 * (`v = None` at a cell's top level; not `v = v[1:]`, not one in a branch or loop): its reads in
 * between are followed, and it is a sharer when the cell starts unless such a rebinding came since.
 */
export function memorySharers(name: string, cell: CellModel, model: NotebookModel): MemorySharer[] {
  if (freshlyRebound(name, cell, model)) {
    return [];
  }
  /** Found sharers, with the places the named ones took the memory. */
  const out: { s: MemorySharer; since: Point[] }[] = [];
  const seen = new Set<string>([name]);
  const queue: string[] = [name];
  /** Names found holding (a view of) the memory: where they got it. */
  const derived = new Map<string, Point[]>();
  const drops = new Map<string, { cellIndex: number; start: number; at: number }[]>();
  const dropsOf = (n: string) => {
    let d = drops.get(n);
    if (!d) {
      d = droppingRebindings(n, cell, model);
      drops.set(n, d);
    }
    return d;
  };
  /** Does `n`, got at `p`, still hold the memory at (cellIndex, at)? */
  const holdsAt = (n: string, p: Point, cellIndex: number, at: number): boolean =>
    before(p, cellIndex, at) && !dropsOf(n).some(d => (d.cellIndex > p.cellIndex || (d.cellIndex === p.cellIndex && d.start > p.at)) && before(d, cellIndex, at));
  const add = (s: MemorySharer, since: Point | null): void => {
    const had = out.find(o => o.s.reason === s.reason);
    if (!had) {
      out.push({ s, since: since ? [since] : [] });
    } else if (since && !had.since.some(x => x.cellIndex === since.cellIndex && x.at === since.at)) {
      had.since.push(since);
    }
  };
  /** `holder` took the memory at `p`: follow its reads (again, when it is a new place). */
  const derive = (holder: string, p: Point): void => {
    const points = derived.get(holder) ?? [];
    if (points.some(x => x.cellIndex === p.cellIndex && x.at === p.at)) {
      return;
    }
    points.push(p);
    derived.set(holder, points);
    seen.add(holder);
    if (!queue.includes(holder)) {
      queue.push(holder);
    }
  };
  const ndimOf = (n: string): number | undefined => model.valueBefore(n, cell, 0).shape?.length;
  for (let steps = 0; queue.length > 0 && steps < 64; steps++) {
    const current = queue.shift()!;
    const label = current === name ? `\`${name}\`` : `\`${current}\` (which shares \`${name}\`'s memory)`;
    const points = derived.get(current);
    let from = -1;
    /** In cell `from`, reads from here on (after the earliest reaching binding). */
    let fromAt = 0;
    let bound = false;
    if (points) {
      // got the memory at `points`: its reads while it holds it
      from = Math.min(...points.map(x => x.cellIndex));
      bound = true;
    } else {
      // the reaching bindings: the last plain (not augmented) binding before the cell, and the
      // ones before it while it is one that may not run (`if reset: u = np.zeros(n)`)
      const writers = model.writers(current).filter(c => c.index < cell.index).sort((a, b) => b.index - a.index);
      let definite = false;
      for (const w of writers) {
        const plain = (w.facts?.assignments ?? []).filter(a => a.name === current && !a.augmented && !isInScope(a.statement));
        for (let k = plain.length - 1; k >= 0 && !definite; k--) {
          const last = plain[k];
          from = w.index;
          fromAt = last.at;
          bound = true;
          definite = definiteStatement(last, current) !== null;
          const origin = last.deleted ? null : originShares(last.value, last.statement, model, w);
          if (origin && !(origin.name !== null && seen.has(origin.name))) {
            const reason =
              origin.kind === 'view-of'
                ? `${label} is \`${origin.holder}\` or a view of it (cell ${w.index})`
                : `${label} comes from \`${origin.holder}\` (cell ${w.index}), which ${origin.why ?? 'may hand back an array held elsewhere'}`;
            add({ holder: origin.holder, kind: origin.kind, cellIndex: w.index, reason, name: origin.name }, null);
            if (origin.name && !seen.has(origin.name)) {
              seen.add(origin.name);
              queue.push(origin.name);
            }
          }
          // `initial = u = f()`: the other targets of a chained binding hold it too
          const assign = last.statement.type === 'expression_statement' ? kids(last.statement)[0] : last.statement;
          if (assign?.type === 'assignment' && !last.deleted) {
            const top = chainTop(assign);
            const others = targetsEscape(chainTargets(top).filter(t => !(t.type === 'identifier' && t.text === current)), false, false);
            others?.holders.forEach((holder, j) => {
              if (holder === current || seen.has(holder)) {
                return;
              }
              const kind = others.kinds?.[j] ?? others.kind;
              const reason = kind === 'alias' ? `\`${holder}\` shares ${label}'s memory (cell ${w.index})` : `${label} is kept in \`${holder}\` (cell ${w.index})`;
              const p = { cellIndex: w.index, at: top.endIndex };
              add({ holder, kind, cellIndex: w.index, reason, name: holder }, p);
              derive(holder, p);
            });
          }
        }
        if (definite) {
          break;
        }
        if (plain.length === 0 && w.facts?.writes.has(current) && !(w.facts.assignments ?? []).some(a => a.name === current)) {
          // bound by a def, an import, a `global` write in a function: not an array we can follow
          from = w.index;
          fromAt = 0;
          bound = true;
          break;
        }
      }
    }
    if (!bound && current === name && model.bindings.get(name) === undefined) {
      add({ holder: 'the kernel', kind: 'origin', cellIndex: -1, reason: `${label} is bound by no cell of the notebook (the kernel's namespace), so other names may share its memory`, name: null }, null);
    }
    for (const reader of model.readers(current)) {
      if (reader.index < from || reader.index >= cell.index) {
        continue;
      }
      for (const ref of readsOf(reader, current)) {
        if (points ? !points.some(p => holdsAt(current, p, reader.index, ref.startIndex)) : reader.index === from && ref.startIndex < fromAt && !isInScope(ref)) {
          continue;
        }
        const e = escapingUse(ref, model, ndimOf(current));
        if (!e) {
          continue;
        }
        e.holders.forEach((holder, k) => {
          if (holder === current) {
            return;
          }
          const kind = e.kinds?.[k] ?? e.kind;
          const h = `\`${holder}\``;
          const reason =
            kind === 'alias'
              ? `${h} shares ${current === name ? `\`${name}\`` : `\`${current}\``}'s memory (cell ${reader.index})`
              : kind === 'container'
                ? `${label} is kept in ${h} (cell ${reader.index})`
                : kind === 'call'
                  ? `${label} is passed to ${h} (cell ${reader.index}), which may keep it`
                  : `${label} is returned by ${h} (cell ${reader.index})`;
          const p = { cellIndex: reader.index, at: ref.startIndex };
          if (e.named && holder === name) {
            return; // the memory back under its own name
          }
          add({ holder, kind, cellIndex: reader.index, reason, name: e.named ? holder : null }, e.named ? p : null);
          if (e.named) {
            derive(holder, p);
          }
        });
      }
    }
  }
  // a name rebound to a new object since it took the memory no longer holds it (what it passed
  // the memory to before was followed above)
  return out
    .filter(({ s, since }) => s.name === null || since.length === 0 || since.some(p => holdsAt(s.name!, p, cell.index, -1)))
    .map(o => o.s);
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
