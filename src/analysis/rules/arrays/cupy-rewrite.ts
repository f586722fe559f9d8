/**
 * The CuPy rewrite of one cell, shared by the GPU1xx rules.
 *
 * One analysis per cell: which NumPy/SciPy references become CuPy/cupyx ones, which inputs move
 * to the device (once, at the cell's top), which results come back (only where a host consumer
 * needs them), what breaks on the GPU (refusals), and how much work the cell does (for the cost
 * model). Each GPU1xx rule then decides whether the cell is its kind of cell.
 *
 * In-place updates and host aliases (./aliases.ts). A cell that updates an input array in place
 * (`u[1:-1, 1:-1] = ...`, `u += ...`, `u.sort()`, `out=u`, `np.copyto(u, ...)`, or through a view
 * it binds: `w = u[1:]; w[...] = 0`) rebinds it: `u = cp.asarray(u)` at the top, `u = cp.asnumpy(u)`
 * where a later cell reads it. That gives `u` a new host array. Where the notebook shows
 * something else that may share the old one (`v = u`; a view `u[1:]`, `u.T`, `u.reshape(...)`,
 * `np.asarray(u)`, rows of a loop; `u` itself a view of `big`; `u` kept in a list, a dict or an
 * attribute, passed to a call that may keep it, returned by a function, made by a function that
 * may hand back a shared array, or bound by no cell), NumPy's update is seen there and the
 * rewrite's would not be. There the candidate updates a device copy under a fresh name and
 * writes the result back into the same host array at the end of the cell
 * (`u[...] = cp.asnumpy(u_gpu)`): one copy back, what the rebinding pays anyway when a later cell
 * reads `u`, and right for every kind of sharing (NumPy writes through a view; the same object
 * stays in the list). It refuses, naming the alias, where no write-back at the end is right: the
 * cell itself reads the alias (stale until the end of the cell), or it both updates `u` in place
 * and rebinds it. A result the cell itself shares with another name (`d = {"x": x}`) is not
 * brought back as a separate copy when a later cell updates either in place: refused too. The
 * notebook-wide plan (plan.ts) never makes an array that something else may share resident
 * when anything updates it in place: each GPU cell copies it in (and writes it back where it
 * updates it), and a host cell that lets another object keep a resident array brings it back.
 */
import { CUPY_CONCATENATORS, cupyHasNumpyPath, CUPY_GENERATOR_METHODS, CUPY_RENAMED, ELEMENTWISE_UFUNCS, NUMPY_HOST_IO_CONSUMERS, NUMPY_HOST_IO_PRODUCERS, NUMPY_PASSTHROUGH_NAMES, NUMPY_REFUSED, NUMPY_UFUNC_NIN, REDUCTIONS, TRANSCENDENTAL_UFUNCS } from '../../apis/cupy';
import { CUPYX_INACCURATE, CUPYX_MISSING_HOST_CALLS, cupyxHasScipyPath, cupyxModuleOf, cupyxNeedsRapids } from '../../apis/cupyx';
import { cupyxUseKeys, firstUseCharge } from '../../apis/first-use';
import { formatSeconds, MEASURED_H200, SHORT_FFT_POINTS, WorkEstimate } from '../../costmodel';
import { applyEdits, insert, replace } from '../../edits';
import { RANDOM_PARAMETERS, type CellModel, type NotebookModel } from '../../notebook';
import { ARRAY_MUTATING_METHODS, type AssignmentFact, type CellFacts } from '../../facts';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, isValueIdentifier, kids, operatorOf, unparen, walk, walkTypes } from '../../syntax';
import type { TextEdit } from '../../types';
import { isDeviceIncompatibleDtype, isIntegerDtype, itemSize, normaliseDtype, shapeSize, ValueInfo } from '../../values';
import type { RuleContext } from '../types';
import { escapingUse, MemorySharer, memorySharers, parameterNames, VIEW_METHODS, WHOLE_COPY_METHODS, WHOLE_VIEW_ATTRIBUTES, WHOLE_VIEW_METHODS } from './aliases';
import { arangeValuesDiffer, atomicSumNote, flatIndexRewrites, float64SignalEdits, hostLoopArgument, hostLoopCallNote, lastAxisBitEdits, unsupportedArgumentRefusals } from './api-limits';
import { isNanQuantile, NAN_QUANTILE_BASE_NAME, nanQuantileDefinition, nanQuantileRewrite } from './nan-quantile';
import { callKeywordsRefusal, FLOOR_OP_BASE_NAMES, FloorDefinition, floorOpDefinition, FloorOpSite, floorUfunc, isDivmodDefinition, mayBeFloat, operatorSite, siteOperands } from './float-remainder';
import { ChainGroup, ElementwiseChain, findElementwiseChains, fuseChains, groupChains, reductionKernelPays } from './fusion';
import { functionRuns } from './function-runs';
import { broadcasts, einsumWork, factorisationWork, gatherWork, histogramWork, nanReductionSeconds, productFlops, quantileSliceWork, scipyFilterWork, shortRowSeconds, stackedLinalgWork, ufuncAtWork, whileTrips } from './loop-work';
import { iterateStructureRefusals, morphologyIterationEdits } from './morphology-iterations';
import { PER_ELEMENT_ADVICE, perElementPython, rowReduction, type RowReduction, SMALL_ITERATIONS } from './per-element';
import { integerOfTranscendental, numpyGeneratorOf, SMALL_HOST_ELEMENTS, smallHostArrays } from './small-host-arrays';
import { startsOverNext, updatedInPlaceAfter } from './rebinds';
import { isNormMethod, normRewrite } from './scipy-norm';
import { findSliceStencil, SliceStencil, stencilCode } from './stencil';

/** A reference to a NumPy or SciPy name in the cell. */
export interface LibraryRef {
  node: SyntaxNode;
  /** numpy.linalg.norm, scipy.ndimage.gaussian_filter */
  qualified: string;
  /** What the rewrite does with it. */
  action: 'cupy' | 'keep' | 'host-producer' | 'host-consumer' | 'refuse';
  replacement?: string;
  reason?: string;
}

export interface ArrayCellAnalysis {
  /** The cell does NumPy/SciPy array work this family can rewrite. */
  applicable: boolean;
  /** Why the rewrite would break or not pay (first reason). */
  refusal?: string;
  /**
   * Set when the cell runs Python once per element of an array (comprehension, map, loop):
   * refused whatever else the cell does (a kernel's job, GPU2xx).
   */
  perElement?: string;
  refs: LibraryRef[];
  /** Compute calls (not creation, not dtypes) by library. */
  numpyCompute: number;
  scipyCompute: number;
  /** Products with a scipy.sparse matrix (`M @ v`, `M.dot(v)`): cupyx.scipy.sparse runs them. */
  sparseOps: number;
  randomCalls: number;
  /** Inputs copied to the device at the top: host name -> device name. */
  transfers: Map<string, string>;
  /**
   * Read-only inputs the cell reads only through one basic index (`traj[:, -1]`): host name ->
   * that index's text; only the part is copied (`traj_gpu = cp.asarray(traj[:, -1])`).
   */
  slicedInputs: Map<string, string>;
  /** Arrays made by NumPy on the host and copied to the device where made (`np.arange(...)`: hostAranges), by call text. */
  madeOnHost?: string[];
  /** Names brought back to the host at the end of the cell. */
  bringBack: string[];
  /**
   * The copies to the host the rewrite makes once per run for host code in the cell (a host
   * consumer's argument, `pd.crosstab(cp.asnumpy(lab % 3), ...)`; a device value meeting pandas
   * data), all counted in `work.deviceToHostBytes`: what each copies, the device names it reads (by
   * their names in the original cell), and its bytes (0 where unknown). The plan charges those its
   * cell's host version would not make (plan.ts planPrediction); `node`, the expression copied
   * (plan.ts asks whether it is a view of an array an earlier cell moved in: `consumerCopiedBack`).
   */
  hostConsumerCopies: { text: string; reads: string[]; bytes: number; node: SyntaxNode }[];
  /**
   * Device arrays of which the cell binds a host copy under another name that it leaves as the
   * array's value (`env_s_host = cp.asnumpy(env_s)` for a SciPy call kept on the host,
   * sharedHostCallCopies): name -> that name. In the plan, later host cells read it rather than
   * copy the array again (plan.ts hostBoundary).
   */
  hostTwins: Map<string, string>;
  /**
   * Arrays the cell binds that stay CuPy arrays after it (no later cell reads them): the
   * explanation says so, for host code added later.
   */
  leftOnDevice: string[];
  /**
   * Inputs updated in place whose host array something else may share (an alias, a view, a
   * container): updated on a device copy and written back into the same host array at the end
   * of the cell (`u[...] = cp.asnumpy(u_gpu)`), never rebound.
   */
  writeBack: string[];
  /**
   * Array inputs copied to the device under a fresh name because another binding, view or
   * container may share their memory: the host name keeps its host array, so the notebook-wide
   * plan never makes them resident (they are copied in by each GPU cell that uses them).
   */
  hostKept: Set<string>;
  /** Names that live on the device after the rewrite. */
  deviceNames: Set<string>;
  edits: TextEdit[];
  candidate: string;
  imports: string[];
  notes: string[];
  work: WorkEstimate;
  /** The largest array the cell touches, if its size is known. */
  largest?: ValueInfo;
  /**
   * The sizes say how much work the cell does: `largest` is known, and no array of which nothing
   * is known (`np.load`'s) may dwarf it.
   */
  sizeKnown: boolean;
  /**
   * Elementwise chains fused into one kernel each (ElementwiseKernel or @cp.fuse()) in the
   * candidate, the members of `groups` included.
   */
  chains: ElementwiseChain[];
  /** Consecutive statements whose chains became one kernel together (fusion.ts ChainGroup). */
  groups: ChainGroup[];
  /**
   * The slice stencil made one kernel: its launcher's name, taps, rank, the span it replaces,
   * whether a loop repeats it in place, the other arrays its step reads, and whether it is an
   * np.roll form (SliceStencil.periodic: whether it updates the array's own memory, and the
   * temporary it inlines).
   */
  stencil: { name: string; taps: number; ndim: number; start: number; end: number; loop: boolean; reads: string[]; periodic: { inPlace: boolean; temporary: string | null } | null } | null;
  /** Sparse matrices made canonical (`M.sum_duplicates()`) where they are built on the device. */
  canonicalized?: string[];
  /**
   * Kernel definitions (ElementwiseKernel objects, fused functions, RawKernels) the candidate
   * needs; in the cell's prologue, unless the plan hoists them (`ResidencyContext.hoisted`).
   */
  definitions: { name: string; text: string }[];
  /** Operators (+, *, @, ...) applied to arrays. */
  arrayOperators: number;
  /**
   * Compute methods called on device arrays (`a.mean(axis=1)`, `a.std()`, `a.sum()`, `x.dot(y)`,
   * `a.sort()`...): array work as real as `np.mean(a)`.
   */
  arrayMethods: number;
  /** The same rewrite without fusion (what GPU101 proposes when GPU103 is switched off). */
  unfused: { edits: TextEdit[]; candidate: string; work: WorkEstimate };
}

/**
 * Python builtins that take CuPy values as they take NumPy's (not `repr`, `type`, `isinstance`:
 * a CuPy value shows and tests as what it is, `array(1.5)` and `cupy.ndarray`).
 */
const DEVICE_SAFE_BUILTINS = new Set(['print', 'len', 'float', 'int', 'bool', 'str', 'format', 'id', 'hasattr', 'getattr', 'complex']);
/**
 * Python builtins that take their integers through `__index__` (`range(n)`). NumPy's integer
 * scalars and 0-d arrays have it; CuPy's ndarray has `__int__` (`int(self.get())`) but no
 * `__index__` (cupy/_core/core.pyx, CuPy 14 and 15.0.0a1; cupyx.scipy.signal's
 * `_try_convert_to_int` notes that `operator.index(cupy.array(5))` fails), so `range(k.max())` of
 * a device array is a TypeError on CuPy. The rewrite hands them `int(...)` of a device integer
 * (hostIndexAround): one wait for the device, explicit where the host loop needs the value.
 */
const INDEX_BUILTINS = new Set(['range']);

/** Is `call` a call of Python's own INDEX_BUILTINS (`range(...)`, the name not rebound)? */
export function isIndexBuiltinCall(call: SyntaxNode, model: NotebookModel): boolean {
  const fn = field(call, 'function');
  return fn?.type === 'identifier' && INDEX_BUILTINS.has(fn.text) && !model.bindings.has(fn.text);
}

/**
 * Is `node` inside an argument of an INDEX_BUILTINS call (`k` in `range(k[3])`, in
 * `range(len(k))`)? Host code takes what reads device values there as it takes a device value it
 * computes with (the plan's host cells: a copy where it is read), not as the builtin's result.
 */
export function insideIndexArgument(node: SyntaxNode, model: NotebookModel): boolean {
  for (let p = node.parent; p && !SCOPES.has(p.type); p = p.parent) {
    if (p.type === 'argument_list' && p.parent?.type === 'call' && isIndexBuiltinCall(p.parent, model)) {
      return true;
    }
  }
  return false;
}

/** Does Python builtin `name` take a CuPy value as it takes NumPy's (`DEVICE_SAFE_BUILTINS`)? */
export function isDeviceSafeBuiltin(name: string): boolean {
  return DEVICE_SAFE_BUILTINS.has(name);
}
const MUTATING_INPLACE = new Set(['sort', 'fill', 'put', 'partition', 'resize']);
/** ndarray methods that do array work on the device (CuPy's ndarray has them all). */
const ARRAY_COMPUTE_METHODS: ReadonlySet<string> = new Set([
  ...REDUCTIONS, 'dot', 'sort', 'argsort', 'partition', 'argpartition', 'clip', 'round', 'cumsum', 'cumprod',
  'astype', 'copy', 'transpose', 'ravel', 'flatten', 'repeat', 'take', 'nonzero', 'trace', 'diagonal', 'conj', 'fill', 'put'
]);
const ARITH_OPS = new Set(['+', '-', '*', '/', '//', '%', '**', '&', '|', '^', '<<', '>>']);
const COMPARE_OPS = new Set(['<', '>', '<=', '>=', '==', '!=']);

const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);
/** Node types the typed walks (`walkTypes`) visit. */
const CALL = ['call'];
const INTERPOLATION = ['interpolation'];
const IDENTIFIER = ['identifier'];
/** A `for` loop and a comprehension's `for` clause: Python iterating over something. */
const PYTHON_ITERATION = ['for_statement', 'for_in_clause'];
const LOOPS = ['for_statement', 'while_statement'];
const ASSIGNMENTS = ['assignment', 'augmented_assignment'];
const BINARY_OR_CALL = ['binary_operator', 'call'];
/** What the walk for NumPy / SciPy references visits (imports: to skip them). */
const REF_WALK_TYPES = ['attribute', 'identifier', 'import_statement', 'import_from_statement'];
const KEYWORD_OR_CALL = ['keyword_argument', 'call'];
const OPERATORS = ['binary_operator', 'augmented_assignment'];
const CONDITIONALS = ['if_statement', 'while_statement', 'elif_clause'];
const COMPREHENSION_TYPES = new Set(['list_comprehension', 'generator_expression', 'set_comprehension', 'dictionary_comprehension']);
/** Nodes whose children may run other than once per run of the node (runsPerParentRun). */
const REPEATING_PARENTS: ReadonlySet<string> = new Set(['for_statement', 'while_statement', 'if_statement', ...COMPREHENSION_TYPES]);
/** What `globalReferences` visits: identifiers, and the nodes that may shadow a name. */
const REFERENCE_TYPES = ['identifier', ...SCOPES, ...COMPREHENSION_TYPES];

/** Identifier nodes in the cell that read or write the module-level `name`. */
export function globalReferences(root: SyntaxNode, name: string): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  // `name` as a whole word (built once, when a comprehension asks)
  let word: RegExp | null = null;
  const bindsWord = (text: string): boolean => (word ??= new RegExp(`\\b${name}\\b`)).test(text);
  const rootOrder = root.order;
  // pre-order over the named nodes; a scope or comprehension that binds `name` shadows its
  // whole subtree (nothing below it is found), so its subtree is skipped
  walkTypes(root, REFERENCE_TYPES, n => {
    const type = n.type;
    if (type === 'identifier') {
      if (
        n.endIndex - n.startIndex === name.length &&
        n.text === name &&
        // a function's own name (the def binds it: not a reference), except the root itself
        !(n.order !== rootOrder && n.fieldName === 'name' && n.parent?.type === 'function_definition') &&
        isValueIdentifier(n)
      ) {
        found.push(n);
      }
      return false;
    }
    if (SCOPES.has(type)) {
      // a parameter of that name shadows it (a default value reading it does not: evaluated
      // where the function is defined, `lambda x, F=F: x @ F` reads the module-level F once)
      const params = field(n, 'parameters');
      const defaults = (): void => {
        for (const p of params ? kids(params) : []) {
          const value = p.type === 'default_parameter' || p.type === 'typed_default_parameter' ? field(p, 'value') : null;
          if (value) {
            found.push(...globalReferences(value, name));
          }
        }
      };
      if (params && parameterNames(params).includes(name)) {
        defaults();
        return false;
      }
      const body = field(n, 'body');
      if (body && type === 'function_definition' && assignsName(body, name)) {
        defaults();
        return false;
      }
    } else {
      // a comprehension
      for (const c of kids(n)) {
        if (c.type === 'for_in_clause') {
          const left = field(c, 'left');
          if (left && bindsWord(left.text)) {
            return false;
          }
        }
      }
    }
    return true;
  });
  return found;
}

/** Is `node` inside a function, lambda or class body (code that runs when called, not where it stands), or one of `scopes`? */
export function insideFunction(node: SyntaxNode, scopes: readonly string[] = ['function_definition', 'lambda', 'class_definition']): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (scopes.includes(p.type)) {
      return true;
    }
  }
  return false;
}

/**
 * The module-level names that functions defined in other cells read as globals, where `cell`
 * calls them by name (`f(v)`, `def f(a): return a * x` in an earlier cell: x) in a call `called`
 * accepts, and in the notebook functions those call, at any depth (`def f(x): return g(x) * 2`,
 * `def g(x): return x @ F`: F); which functions that reaches: calledNotebookFunctions.
 */
export function globalsReadByCalledFunctions(root: SyntaxNode, cell: CellModel, model: NotebookModel, called: (call: SyntaxNode) => boolean = () => true): string[] {
  const found = new Set<string>();
  for (const { fn, name, cellIndex } of calledNotebookFunctions(root, cell, model, called)) {
    const other = model.cells[cellIndex];
    if (!other.facts) {
      continue;
    }
    // (its parameters and locals shadow the module-level names: globalReferences of the function;
    // a default argument's value was read when the function was defined, not when it runs:
    // defaultCaptures)
    for (const read of other.facts.reads) {
      if (read !== name && globalReferences(fn, read).some(r => !inParameterDefault(r, fn)) && model.bindings.has(read)) {
        found.add(read);
      }
    }
  }
  return [...found];
}

/**
 * Is `ref` in a default value of `fn`'s parameters (`lambda x, F=F: ...`, `def f(x, G=F.T):`),
 * which Python evaluates once, where the function is defined, in the enclosing scope?
 */
export function inParameterDefault(ref: SyntaxNode, fn: SyntaxNode): boolean {
  const params = field(fn, 'parameters');
  if (!params || !isInside(ref, params)) {
    return false;
  }
  for (let p = ref.parent; p && p.id !== params.id; p = p.parent) {
    if ((p.type === 'default_parameter' || p.type === 'typed_default_parameter') && field(p, 'value') && isInside(ref, field(p, 'value')!)) {
      return true;
    }
  }
  return false;
}

/**
 * Arrays that notebook functions of other cells the cell runs (`called`, calledNotebookFunctions)
 * took as default arguments when they were defined (`prop2 = lambda x, F=F: x @ F`,
 * `def prop3(x, G=F): ...`): the function keeps the array it got then, a host array, whatever
 * becomes of the name later. Run on device arrays, it would mix that host array with them (a
 * TypeError on CuPy), and moving the name to the device (`F = cp.asarray(F)`) would not reach
 * it, so the cell stays on the host, as the function does (a function's body reading `F` as a
 * global finds the device array instead: globalsReadByCalledFunctions). Each with the function's
 * name, its cell and the default's text.
 */
function defaultCaptures(root: SyntaxNode, cell: CellModel, model: NotebookModel, called: (call: SyntaxNode) => boolean): { fn: string; cellIndex: number; text: string }[] {
  const out: { fn: string; cellIndex: number; text: string }[] = [];
  for (const { fn, name, cellIndex } of calledNotebookFunctions(root, cell, model, called)) {
    const params = field(fn, 'parameters');
    const owner = model.cells[cellIndex];
    for (const p of params ? kids(params) : []) {
      const value = p.type === 'default_parameter' || p.type === 'typed_default_parameter' ? field(p, 'value') : null;
      const v = value ? model.inferValue(value, owner) : null;
      if (value && v && (v.kind === 'ndarray' || v.kind === 'sparse') && v.device !== 'gpu' && v.library !== 'cupy') {
        out.push({ fn: name, cellIndex, text: p.text });
      }
    }
  }
  return out;
}

/**
 * The notebook functions of other cells that `cell` calls by name in a call `called` accepts, and
 * those they call in turn, at any depth: each binding of a called name that is a module-level
 * `def` or a lambda bound to it at the top level (`prop = lambda x: x @ F`), with the name it is
 * called by and its cell; a top-level `g = f` (in any cell) leads to `f`'s bindings. A function
 * defined in `cell` itself is not among them: it runs `cell`'s own text, which the cell's facts
 * already hold.
 */
function calledNotebookFunctions(root: SyntaxNode, cell: CellModel, model: NotebookModel, called: (call: SyntaxNode) => boolean): { fn: SyntaxNode; name: string; cellIndex: number }[] {
  const out: { fn: SyntaxNode; name: string; cellIndex: number }[] = [];
  const callsIn = (node: SyntaxNode, accept: (call: SyntaxNode) => boolean): string[] => {
    const names: string[] = [];
    walkTypes(node, ['call'], n => {
      const fn = field(n, 'function');
      if (fn?.type === 'identifier' && accept(n)) {
        names.push(fn.text);
      }
      return true;
    });
    return names;
  };
  const seen = new Set<string>();
  const pending = callsIn(root, called);
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name)) {
      continue;
    }
    seen.add(name);
    for (const b of model.bindings.get(name) ?? []) {
      const defRoot = model.cells[b.cellIndex]?.tree?.rootNode;
      const statement = defRoot ? kids(defRoot).find(s => s.startIndex <= b.at && b.at <= s.endIndex) : undefined;
      const fn = statement ? notebookFunction(statement, name) : null;
      if (fn?.type === 'identifier') {
        // (`g = f`: the function under another name, here or in another cell)
        pending.push(fn.text);
        continue;
      }
      if (!fn || b.cellIndex === cell.index) {
        continue;
      }
      out.push({ fn, name, cellIndex: b.cellIndex });
      // (the notebook functions it calls in turn)
      const body = field(fn, 'body');
      if (body) {
        pending.push(...callsIn(body, () => true));
      }
    }
  }
  return out;
}

/**
 * The function a module-level statement binds to `name`: a `def name(...)`, a lambda
 * (`name = lambda x: x @ F`), or another name the function is bound to (`name = f`: that
 * identifier, to look up in turn); null for anything else.
 */
function notebookFunction(statement: SyntaxNode, name: string): SyntaxNode | null {
  if (statement.type === 'function_definition') {
    return field(statement, 'name')?.text === name ? statement : null;
  }
  const assignment = statement.type === 'expression_statement' ? kids(statement)[0] : undefined;
  const left = assignment?.type === 'assignment' ? field(assignment, 'left') : null;
  const right = assignment && left?.type === 'identifier' && left.text === name ? field(assignment, 'right') : null;
  const value = right ? unparen(right) : null;
  return value && (value.type === 'lambda' || (value.type === 'identifier' && value.text !== name)) ? value : null;
}

function assignsName(body: SyntaxNode, name: string): boolean {
  let found = false;
  walk(body, n => {
    if (found || SCOPES.has(n.type)) {
      return false;
    }
    if (n.type === 'assignment' || n.type === 'augmented_assignment' || n.type === 'for_statement') {
      // (a name bound: `x = ...`, `a, x = ...`; not `x[i] = ...` or `x.a = ...`, which change
      // the global x in place)
      const left = field(n, 'left');
      if (left && (left.type === 'identifier' ? left.text === name : /^(pattern_list|tuple_pattern|list_pattern)$/.test(left.type) && kids(left).some(k => k.type === 'identifier' && k.text === name))) {
        found = true;
      }
    }
    return true;
  });
  return found;
}

/** The names of `names` that `node` reads as values, in order, once each. */
function identifiersIn(node: SyntaxNode, names: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  walkTypes(node, IDENTIFIER, n => {
    if (names.has(n.text) && isValueIdentifier(n)) {
      out.add(n.text);
    }
    return true;
  });
  return [...out];
}

/** Does the expression mention any of these names (as module-level values)? */
function mentions(node: SyntaxNode, names: ReadonlySet<string>): boolean {
  let hit = false;
  walkTypes(node, IDENTIFIER, n => {
    if (hit) {
      return false;
    }
    if (names.has(n.text) && isValueIdentifier(n)) {
      hit = true;
    }
    return true;
  });
  return hit;
}

/** The names of the collections, in order, as one Set (no spread arrays). */
function union(...parts: Iterable<string>[]): Set<string> {
  const out = new Set<string>();
  const add = (name: string): void => {
    out.add(name);
  };
  for (const part of parts) {
    // by kind: one `for...of` over Sets and arrays alike made an iterator result per name
    if (part instanceof Set || Array.isArray(part)) {
      part.forEach(add);
    } else {
      for (const name of part) {
        out.add(name);
      }
    }
  }
  return out;
}

function isInside(node: SyntaxNode, outer: SyntaxNode): boolean {
  return node.startIndex >= outer.startIndex && node.endIndex <= outer.endIndex;
}

export const ANALYSIS_KEY = 'arrays/cupy-analysis';

/** The array analysis of the context's cell, computed once per cell per update. */
export function arrayAnalysis(ctx: RuleContext): ArrayCellAnalysis | null {
  if (ctx.shared.has(ANALYSIS_KEY)) {
    return ctx.shared.get(ANALYSIS_KEY) as ArrayCellAnalysis | null;
  }
  const result = analyseArrayCell(ctx.cell, ctx.model);
  ctx.shared.set(ANALYSIS_KEY, result);
  return result;
}

/**
 * Is a name the rewrite would introduce (device copy, kernel object, launcher, buffer) taken in
 * the notebook? Bound anywhere (assignments, walrus, for/with/except targets, defs, imports,
 * `global` names a function binds: `writers`), or read anywhere: a name some cell reads and no
 * cell binds may come from a star import, or from a cell no longer in the notebook.
 */
function takenInNotebook(name: string, model: NotebookModel): boolean {
  return model.bindings.has(name) || model.aliases.has(name) || model.writers(name).length > 0 || model.readers(name).length > 0;
}

/**
 * Adds `rw`, an edit that rewrites a span, to `edits` in place of the edits inside that span
 * (inserts at its ends stay: they belong to the code around it).
 */
function replaceSpan(edits: TextEdit[], rw: TextEdit): void {
  for (let k = edits.length - 1; k >= 0; k--) {
    const e = edits[k];
    if (e.start >= rw.start && e.end <= rw.end && !(e.start === e.end && (e.start === rw.start || e.start === rw.end))) {
      edits.splice(k, 1);
    }
  }
  edits.push(rw);
}

/**
 * Adds the insert `e` to `edits` before any other insert at its offset (applyEdits keeps inserts
 * at one offset in list order): lines put at a statement's start go ahead of the wraps that the
 * statement's own expression gets there (`cp.asarray(`, `cp.asnumpy(`, `shown = `).
 */
function insertFirst(edits: TextEdit[], e: TextEdit): void {
  const first = edits.findIndex(x => x.start === e.start && x.end === e.start);
  edits.splice(first < 0 ? edits.length : first, 0, e);
}

/**
 * Elements below which an array is small: a known largest array this small says nothing when the
 * cell has an array of unknown shape, and a chain over arrays this small gets no kernel of its own.
 */
const SMALL_ARRAY_ELEMENTS = 1 << 16;

/** `base`, or `base2`, `base3`...: the first name `used` does not reject. */
function freshName(base: string, used: (name: string) => boolean): string {
  let name = base;
  for (let k = 2; used(name); k++) {
    name = `${base}${k}`;
  }
  return name;
}

/** `base`, or `base2`...: the first name taken nowhere in the notebook (`takenInNotebook`). */
export function freshNotebookName(base: string, model: NotebookModel): string {
  return freshName(base, n => takenInNotebook(n, model));
}

/** The module alias the candidate uses for CuPy (`cp` unless the notebook already has another). */
export function cupyAlias(model: NotebookModel): { alias: string; importLine: string | null } {
  for (const [local, q] of model.aliases) {
    if (q === 'cupy') {
      return { alias: local, importLine: null };
    }
  }
  return { alias: 'cp', importLine: 'import cupy as cp' };
}

/**
 * Does the cell use CuPy itself (`cp.asarray(x)`, `cupyx.scipy.ndimage.gaussian_filter(...)`)?
 * Importing it is not using it: a setup cell may import CuPy beside NumPy work.
 */
function writtenWithCupy(cell: CellModel, model: NotebookModel): boolean {
  const facts = cell.facts!;
  for (const name of facts.reads) {
    const q = model.aliases.get(name);
    if (q !== undefined && CUPY_MODULE.test(q)) {
      return true;
    }
  }
  // `g.get()`, `g.set(x)`, `g.get(out=h)` on a CuPy array from an earlier cell: the cell moves
  // data between host and device itself
  let moves = false;
  walkTypes(cell.tree!.rootNode, CALL, n => {
    const fn = field(n, 'function');
    const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
    if (!moves && obj?.type === 'identifier' && /^(get|set)$/.test(field(fn!, 'attribute')?.text ?? '')) {
      moves = model.valueBefore(obj.text, cell, 0).library === 'cupy';
    }
    return !moves;
  });
  return moves;
}

const CUPY_MODULE = /^cupyx?(\.|$)/;

/** How the notebook-wide plan runs the analysis (plan.ts); absent for a per-cell suggestion. */
export interface ResidencyContext {
  /** Names already on the device when the cell starts (no transfer, no rename). */
  resident: ReadonlySet<string>;
  /**
   * Names of kernel definitions the plan has already hoisted from earlier cells. With this set,
   * the analysis leaves its kernel definitions out of the cell (`definitions` holds them) so the
   * plan can define each once, in the notebook's import cell.
   */
  hoisted?: ReadonlySet<string>;
  /**
   * Host arrays an earlier GPU cell also copied to the device under another name, kept there
   * (host name -> device name: `F` -> `F_gpu`, `keepOnHost`): the cell computes with the device
   * copy and hands host code the host array; nothing is copied.
   */
  deviceCopies?: ReadonlyMap<string, string>;
  /**
   * Host arrays this cell moves to the device under a fresh name (`F_gpu = cp.asarray(F)`) rather
   * than by rebinding the name: the name keeps its host array for the host cells that read it
   * later, and later GPU cells read the copy (`deviceCopies`). plan.ts picks them: arrays no cell
   * changes from here on, which a host cell would otherwise copy back.
   */
  keepOnHost?: ReadonlySet<string>;
  /**
   * Names this cell binds once, at its top level, from numbers alone (`freqs =
   * np.fft.rfftfreq(n_fft, 1 / sr)`), that only host code reads afterwards: their assignments stay
   * NumPy's, on the host, where their readers are (made on the device, each would be copied back).
   * plan.ts picks them (`madeForHost`).
   */
  hostMade?: ReadonlySet<string>;
  /**
   * Host copies of resident arrays that earlier host cells made and that still hold the array's
   * values (`x` -> `x_host`, plan.ts hostCopies): host code of this cell reading a part of one
   * (`pd.DataFrame({"x0": x[:, 0]})`) reads the copy (`x_host[:, 0]`) instead of copying again.
   */
  hostCopies?: ReadonlyMap<string, string>;
}

export function analyseArrayCell(cell: CellModel, model: NotebookModel, plan?: ResidencyContext): ArrayCellAnalysis | null {
  const root = cell.tree?.rootNode;
  const facts = cell.facts;
  if (!root || !facts || cell.syntaxError) {
    return null;
  }
  if (writtenWithCupy(cell, model)) {
    // GPU code already (the user's CuPy, or a suggestion applied): where its data lives is the
    // author's choice, which an automatic rewrite on top would get wrong (a second upload of
    // what the cell uploads shares its memory)
    return null;
  }
  const { alias: cp, importLine: cellImport } = cupyAlias(model);
  // in the plan, the import goes once into the notebook's import cell
  const importLine = plan ? null : cellImport;
  const refusals: string[] = [];
  const notes: string[] = [];
  const edits: TextEdit[] = [];
  const imports = new Set<string>(['import cupy as cp']);
  if (cp !== 'cp') {
    imports.clear();
  }

  const scope: CellRewrite = { cell, model, plan, root, facts, cp, importLine, refusals, notes, edits, imports };
  const s1 = libraryUses(scope);
  const s2 = cellArrays(scope, s1);
  const s3 = inputPlacement(scope, s1, s2);
  const s4 = rewriteEdits(scope, s1, s2, s3);
  const s5 = hostSideEdits(scope, s1, s2, s3, s4);
  const s6 = fusedCandidate(scope, s1, s2, s3, s4, s5);
  const { refs, numpyCompute, scipyCompute, sparseOps, hostLoopCalls, hostAranges } = s1;
  const { randomCalls, cellStartValue, deviceInputs, hostRngCalls, hostDrawCopies, setups, perElement } = s2;
  const { deviceNames, copiedIn: transfers, writeBack, hostKept, sliced, uploads, hostKeptOnly, pandasOperands } = s3;
  const { sizes, canonical, rowReductions } = s4;
  const { hostCopies, bringBack, leftOnDevice, rebuilt, containerItems, copiedBack, shared } = s5;
  const { chains, stencil, stencilName, groups, grouped, kernelChains, fused, unfusedEdits, hoist, candidate, unfusedCandidate } = s6;

  // 5. Work, for the cost model.
  // an input of which nothing is known (a function's result from an earlier cell) or a file read
  // here (`np.load`): it may be the cell's largest array
  const unknownArray =
    [...deviceNames].some(n => {
      const v = model.valueBefore(n, cell, 0);
      return v.kind === 'ndarray' && v.shape === undefined;
    }) || refs.some(r => r.action === 'host-producer' && model.inferValue(r.node.parent ?? r.node, cell).shape === undefined);
  // (an array copied back through the host copy a SciPy call kept on the host takes is charged
  // once, as that copy: sharedHostCallCopies)
  const broughtBack = copiedBack.filter(n => !shared.moved.has(n) && !shared.twins.has(n));
  const { work, largest, copiedOnce } = estimateWork(root, model, cell, deviceNames, transfers, broughtBack.concat(writeBack), {
    hostOnly: [...hostKeptOnly, ...setups.flatMap(s => [s.loop, s.made, ...s.inputs])],
    countedSizes: sizes.calls,
    hostDraws: hostRngCalls,
    hostDrawCopies,
    uploads: uploads.uploaded,
    hostMade: hostAranges,
    hostMadeOnce: s4.hoistedAranges,
    sliced,
    vectorised: rowReductions.map(r => ({ comprehension: r.comprehension, row: r.row })),
    itemCopies: containerItems.copied,
    hostCopies: hostCopies.copied.map((node, k) => ({ node, bytes: hostCopies.copiedBytes[k] })),
    hostCalls: hostLoopCalls
  });
  // pandas operands' copies cross PCIe too
  work.deviceToHostBytes += pandasOperands.bytes;
  // (a host input the cell copies in under another name stays the host array, which a consumer
  // handed it by name gets as it is: `plt.plot(v)` beside `v_gpu`, no copy)
  const keptHost = (node: SyntaxNode): boolean => node.type === 'identifier' && transfers.has(node.text) && transfers.get(node.text) !== node.text && !writeBack.includes(node.text);
  const hostConsumerCopies = [...copiedOnce, ...pandasOperands.copied.map((node, k) => ({ node, bytes: pandasOperands.copiedBytes[k] }))].filter(c => !keptHost(c.node)).map(({ node, bytes }) => ({
    node,
    text: node.text,
    reads: identifiersIn(node, new Set([...deviceNames, ...transfers.keys()])),
    bytes
  }));
  for (const call of hostLoopCalls) {
    const copies = hostCopies.copied.map((node, k) => ({ node, bytes: hostCopies.copiedBytes[k] })).filter(c => isInside(c.node, call));
    const path = model.qualifiedName(field(call, 'function')!)?.slice('scipy.'.length) ?? '';
    // how each copy is made where it is the cell's only copy of that array (sharedHostCallCopies)
    const once = new Map<string, string>();
    for (const { node } of copies) {
      const twin = shared.twins.get(node.text);
      if (shared.moved.has(node.text)) {
        once.set(node.text, `\`${node.text} = ${cp}.asnumpy(${node.text})\` before the call: the cell's copy back for later cells, made there rather than at its end, so one copy, not two`);
      } else if (twin !== undefined) {
        const by = plan ? 'later host cells read it too while the array stays unchanged' : bringBack.includes(node.text) ? `the end of the cell binds \`${node.text}\` to it for later cells` : 'later calls read it too';
        once.set(node.text, `bound to \`${twin}\` before the call: ${by}, so one copy`);
      }
    }
    notes.push(hostLoopCallNote(call, path, copies, cp, once, shared.reused.get(call.id)));
  }
  // kernels defined in the cell compile at its first run (the plan defines them once instead;
  // `np_divmod` only calls two of them)
  work.kernelsDefined = hoist ? 0 : fused.definitions.filter(d => !isDivmodDefinition(d)).length;
  // cupyx.scipy.signal's sos filters compile at their first call, wherever that is (no hoisting)
  const sosCalls = new Set(
    refs.filter(r => r.action === 'cupy' && /^scipy\.signal\.sosfilt(filt)?$/.test(r.qualified) && r.node.parent?.type === 'call' && field(r.node.parent, 'function')?.id === r.node.id).map(r => r.qualified)
  );
  if (sosCalls.size > 0) {
    // the compile itself is charged with the cell's other first uses (apis/first-use.ts)
    const names = [...sosCalls].map(q => `\`${q.slice(q.lastIndexOf('.') + 1)}\``).join(' and ');
    const compile = firstUseCharge({ keys: [...new Set([...sosCalls].flatMap(cupyxUseKeys))] })!.cold;
    notes.push(
      `The first call of cupyx.scipy.signal's ${names} compiles the filter kernels with NVRTC (sosfilt ~4.6 s, sosfiltfilt ~1.8 s more, measured on the H200, CuPy 14.2.0; ~${formatSeconds(compile)} counted in the first run's figure), once per machine: CuPy's kernel cache keeps them on disk for later runs and sessions.`
    );
  }
  const unfusedWork = { ...work };
  // NumPy makes every pass of the chain; only the device's count shrinks
  work.hostPasses = work.passes;
  fuseWork(work, largest, kernelChains, groups, stencil, model, cell, deviceNames);
  const arrayOperators = countArrayOperators(root, model, cell) + sparseOps;
  if (sparseOps > 0 && [...transfers.keys()].some(n => cellStartValue(n).kind === 'sparse')) {
    notes.push('The SciPy sparse matrix is converted to `cupyx.scipy.sparse.csr_matrix` (its data, indices and index pointers are copied, about 12 bytes per non-zero; the non-zero count being unknown here, the prediction assumes 10 per row); the notebook-wide plan builds the matrix on the device once instead.');
  }
  const arrayMethods = countArrayMethods(root, model, cell, deviceNames);
  const applicable = numpyCompute + scipyCompute + randomCalls + arrayMethods > 0 || work.passes > 0 || work.flops > 0 || (work.sparseNonZeros ?? 0) > 0;
  return {
    applicable,
    refusal: refusals[0],
    perElement,
    refs,
    numpyCompute,
    scipyCompute,
    sparseOps,
    randomCalls,
    transfers,
    slicedInputs: new Map([...sliced].map(([n, sub]) => [n, cell.source.slice(field(sub, 'value')!.endIndex, sub.endIndex)])),
    madeOnHost: hostAranges.map(c => c.text),
    bringBack,
    hostConsumerCopies,
    hostTwins: shared.twins,
    leftOnDevice: leftOnDevice.filter(n => !rebuilt.has(n) && !deviceInputs.includes(n)),
    writeBack,
    hostKept,
    // a group's local is never bound: nothing holds it on the device after the cell
    deviceNames: groups.length > 0 ? new Set([...deviceNames].filter(n => !groups.some(g => g.locals.includes(n)))) : deviceNames,
    edits,
    candidate,
    imports: [...imports],
    notes,
    work,
    largest,
    // an array of which nothing is known may be the cell's largest: known sizes under 64 Ki
    // elements (a statistic, a few coefficients) say nothing about the cell's work then
    sizeKnown: largest?.size !== undefined && !(unknownArray && largest.size < SMALL_ARRAY_ELEMENTS),
    // (a group's members with fewer than three operations are no chain of their own)
    chains: groups.length > 0 ? [...chains, ...[...grouped].filter(c => !chains.includes(c))].sort((a, b) => a.node.startIndex - b.node.startIndex) : chains,
    groups,
    stencil: stencil ? { name: stencilName, taps: stencil.taps, ndim: stencil.ndim, start: stencil.start, end: stencil.end, loop: !!stencil.loop, reads: stencil.reads.map(r => r.name), periodic: stencil.periodic } : null,
    canonicalized: canonical.names,
    // named after the function the cell calls (a launcher `def` after its kernel object, if any)
    definitions: fused.definitions.map(text => ({ name: (/^def (\w+)/m.exec(text) ?? /^(\w+)/.exec(text))?.[1] ?? '', text })),
    arrayOperators,
    arrayMethods,
    unfused: { edits: unfusedEdits, candidate: unfusedCandidate, work: unfusedWork }
  };
}

/** The cell `analyseArrayCell` rewrites, and the lists its stages add to (in order). */
interface CellRewrite {
  cell: CellModel;
  model: NotebookModel;
  plan: ResidencyContext | undefined;
  root: SyntaxNode;
  facts: CellFacts;
  cp: string;
  importLine: string | null;
  refusals: string[];
  notes: string[];
  edits: TextEdit[];
  imports: Set<string>;
}

/** The NumPy/SciPy references of the cell and what each becomes (stage 1 of `analyseArrayCell`). */
function libraryUses(scope: CellRewrite) {
  const { cell, model, root, cp, refusals, notes } = scope;
  // 1. NumPy / SciPy references
  const refs = libraryRefs(root, model, cp);

  // what is built only for a host consumer stays on the host, and so do small arrays made from
  // numbers that host code walks or that meet device data only where copied in (small-host-arrays.ts)
  const smallHost = refs.length > 0 ? smallHostArrays(root, model, cell, globalReferences, c => isHostConsumerCall(c, model, cell, NO_NAMES)) : [];
  const hostOnly = refs.length > 0 ? [...hostOnlyExpressions(root, model, cell), ...smallHost.flatMap(s => [s.value, ...s.hostCalls])] : [];
  // (and what the plan keeps where its host readers are: `ResidencyContext.hostMade`)
  for (const a of scope.plan?.hostMade?.size ? scope.facts.assignments : []) {
    if (a.value && !a.nested && !a.augmented && scope.plan!.hostMade!.has(a.name)) {
      hostOnly.push(a.value);
    }
  }
  // (one copied in as it is bound gives a device array all the same)
  const copiedAsBound = new Set(smallHost.filter(s => s.meetings.some(m => m.kind === 'bind')).map(s => s.value.id));
  if (hostOnly.length > 0) {
    for (const r of refs) {
      if (r.action === 'cupy' && hostOnly.some(e => isInside(r.node, e))) {
        r.action = 'keep';
      }
    }
  }

  // a NumPy call on CuPy arrays from earlier cells runs on the device already (NumPy hands it to
  // CuPy): nothing to rewrite there. A ufunc of numbers only (`np.sqrt(n)`, `np.exp(-dt)`) stays
  // NumPy too: on the device it would launch a kernel for one number and give a 0-d array where
  // NumPy gives a scalar (which CuPy's arrays take as it is)
  // calls kept NumPy whose results are host values whatever the cell's arrays are
  const hostCalls = new Set<number>();
  for (const r of refs) {
    const call = r.node.parent;
    if (r.action === 'cupy' && r.qualified.startsWith('numpy.') && call?.type === 'call' && field(call, 'function')?.id === r.node.id) {
      const args = callArguments(call);
      const values = [...args.positional, ...args.keywords.values()].map(a => model.inferValue(a, cell));
      const ufunc = NUMPY_UFUNC_NIN.has(r.qualified.slice('numpy.'.length));
      if (values.some(v => v.library === 'cupy')) {
        r.action = 'keep';
      } else if (ufunc && values.length > 0 && values.every(v => v.kind === 'scalar')) {
        r.action = 'keep';
        hostCalls.add(call.id);
      }
    }
  }
  // a float32 (float16, complex64) arange whose values CuPy's arange would not reproduce (a start
  // not 0 with a fractional step, or values past 2**24: api-limits.ts arangeValuesDiffer): NumPy's,
  // made on the host and copied to the device once
  const hostAranges: SyntaxNode[] = [];
  for (const r of refs) {
    const call = r.node.parent;
    if (r.action === 'cupy' && r.qualified === 'numpy.arange' && call?.type === 'call' && field(call, 'function')?.id === r.node.id) {
      const why = arangeValuesDiffer(call, model, cell);
      if (why) {
        Object.assign(r, { action: 'host-producer', replacement: undefined, reason: why });
        hostAranges.push(call);
        notes.push(why);
      }
    }
  }
  // a fit or solve of small arrays (tinyHostSolve): NumPy's on the host, its arguments copied
  // there, its result a host value
  for (const r of refs) {
    const call = r.node.parent;
    if (r.action === 'cupy' && call?.type === 'call' && field(call, 'function')?.id === r.node.id && tinyHostSolve(call, r.qualified.slice('numpy.'.length), model, cell) && r.qualified.startsWith('numpy.')) {
      r.action = 'keep';
      hostCalls.add(call.id);
    }
  }
  // SciPy calls that cupyx would run as a Python loop over device values (find_peaks with
  // `distance`: hostLoopArgument): where the cell has other work for the device (decided below,
  // once that is counted), each stays SciPy's on the host (hostLoopCalls)
  const hostLoopRefs = refs.filter(r => {
    const call = r.node.parent;
    return (
      r.action === 'cupy' &&
      r.qualified.startsWith('scipy.') &&
      call?.type === 'call' &&
      field(call, 'function')?.id === r.node.id &&
      hostLoopArgument(call, r.qualified.slice('scipy.'.length)) !== undefined
    );
  });
  // np.unravel_index of one flat index (`np.argmax(c)`): NumPy's, on the index made a Python int
  // (one copy back); CuPy's gives a tuple of 0-d device arrays, shown as `array(..)`, and checks
  // the index's range on the device (two more waits)
  const unravelIndices: SyntaxNode[] = [];
  for (const r of refs) {
    const call = r.node.parent;
    if (r.action === 'cupy' && r.qualified === 'numpy.unravel_index' && call?.type === 'call' && field(call, 'function')?.id === r.node.id) {
      const first = callArguments(call).positional[0];
      const v = first ? model.inferValue(first, cell) : null;
      if (first && v && (v.kind === 'scalar' || isZeroD(v))) {
        r.action = 'keep';
        unravelIndices.push(first);
        hostCalls.add(call.id);
      }
    }
  }
  // scipy.stats.norm's cdf/sf/logcdf/pdf/ppf/isf of arrays: cupyx.scipy.special arithmetic
  // (./scipy-norm.ts); of numbers only: SciPy's, on the host
  const normEdits: TextEdit[] = [];
  for (const r of refs) {
    const call = r.node.parent;
    if (r.action !== 'refuse' || !isNormMethod(r.qualified) || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id) {
      continue;
    }
    const rw = hostOnly.some(e => isInside(r.node, e)) ? null : normRewrite(r.node, call, r.qualified, model, cell, cp);
    if (rw === null) {
      r.action = 'keep';
      hostCalls.add(call.id);
    } else if (typeof rw === 'string') {
      r.reason = rw;
    } else {
      Object.assign(r, { action: 'cupy', replacement: rw.callee, qualified: rw.qualified, reason: undefined });
      normEdits.push(...rw.edits);
      if (rw.note) {
        notes.push(rw.note);
      }
    }
  }

  // np.nanpercentile / np.nanquantile along an axis, which CuPy lacks: a sort and NumPy's
  // interpolation on the device (./nan-quantile.ts), through a definition named below; of a
  // host-only value, NumPy's on the host
  const nanQuantileEdits: TextEdit[] = [];
  const nanQuantileRefs: LibraryRef[] = [];
  for (const r of refs) {
    if (r.action !== 'refuse' || !isNanQuantile(r.qualified)) {
      continue;
    }
    if (hostOnly.some(e => isInside(r.node, e))) {
      r.action = 'keep';
      continue;
    }
    const rw = nanQuantileRewrite(r.node, r.qualified, model, cell);
    if (typeof rw === 'string') {
      r.reason = rw;
    } else {
      Object.assign(r, { action: 'cupy', reason: undefined });
      nanQuantileEdits.push(...rw.edits);
      nanQuantileRefs.push(r);
    }
  }

  // a function the cell defines that later cells call runs for every caller: rewritten, it
  // would hand them CuPy arrays (no copy back reaches a return value). One only this cell calls
  // (an RK4 step's right-hand side) computes on the device for this cell's device arrays; what
  // it returns is a value the analysis does not type, refused if read later (opaqueDeviceResults)
  const definer = refs.find(r => {
    const fn = r.action === 'cupy' ? enclosingFunction(r.node) : null;
    const name = fn ? field(fn, 'name')?.text : undefined;
    return !!fn && (!name || model.readersAfter(name, cell).length > 0);
  });
  const ownFunctions = ownDeviceFunctions(refs);
  if (!definer && ownFunctions.length > 0) {
    notes.push(ownFunctionsNote(ownFunctions));
  }
  if (definer) {
    const name = field(enclosingFunction(definer.node)!, 'name')?.text ?? 'a function';
    refusals.push(`\`${name}\`, defined here, computes with ${definer.qualified.split('.')[0] === 'scipy' ? 'SciPy' : 'NumPy'}: rewritten, it would return CuPy arrays to every later caller; move the array work out of the function, or rewrite it by hand`);
  }

  let numpyCompute = 0;
  let scipyCompute = 0;
  let randomCalls = 0;
  for (const r of refs) {
    const isCall = r.node.parent?.type === 'call' && field(r.node.parent, 'function')?.id === r.node.id;
    if (r.action === 'refuse' && r.reason) {
      refusals.push(r.reason);
    }
    if (!isCall || r.action === 'keep') {
      continue;
    }
    // numpy.X / scipy.X: what follows the library's name
    const path = r.qualified.slice(r.qualified.indexOf('.') + 1);
    if (r.qualified.startsWith('scipy.')) {
      scipyCompute += 1;
    } else if (path.startsWith('random.')) {
      randomCalls += 1;
    } else if (!/^(zeros|ones|empty|full|arange|linspace|array|asarray|eye|identity|zeros_like|ones_like|empty_like|full_like|meshgrid|load|loadtxt|fromfile|genfromtxt|save|savetxt|savez)$/.test(path)) {
      numpyCompute += 1;
    }
  }

  // scipy.sparse products (`M @ v`, `M.dot(v)`, `M * v`): cupyx.scipy.sparse runs them (cuSPARSE)
  const sparseOps = countSparseProducts(root, model, cell);
  // The host-loop calls (above) in a cell with other work (library calls, array operators,
  // sparse products) stay SciPy's on the host: handed host copies of their device arguments (the
  // signal: one copy), their results host values (hostCalls), which the cell must read only as
  // host code does, or as indices (CuPy copies a NumPy index to the device itself): readOnHost.
  // Results meeting device work otherwise (`props["peak_heights"] / env.max()`: NumPy and CuPy
  // arrays do not mix) keep the cell on the host. In a cell with no other work the call stays one
  // to move, which unsupportedArgumentRefusals refuses: the cell stays on the host as it is.
  const hostLoopCalls: SyntaxNode[] = [];
  if (hostLoopRefs.length > 0 && numpyCompute + scipyCompute - hostLoopRefs.length + randomCalls + sparseOps + countArrayOperators(root, model, cell) > 0) {
    for (const r of hostLoopRefs) {
      const call = r.node.parent!;
      if (!readOnHost(call, model, cell, true)) {
        const loop = hostLoopArgument(call, r.qualified.slice('scipy.'.length))!;
        refusals.push(
          `\`${r.node.text}(${loop.keyword === '' ? '...' : `..., ${loop.splat ?? `${loop.keyword}=...`}`})\`: ${loop.why}; it could stay SciPy's on the host beside the cell's device work, but its results are not read only by host code or as indices here (a NumPy array and a CuPy one do not mix in an operator, a NumPy array takes no CuPy index or mask, and the rewrite keeps a call's results NumPy's only where a top-level statement binds them and host code reads them): kept on the host`
        );
        continue;
      }
      r.action = 'keep';
      hostCalls.add(call.id);
      hostLoopCalls.push(call);
      scipyCompute -= 1;
    }
  }
  const sparseOnDevice = scipyCompute > 0 || sparseOps > 0;
  return { refs, smallHost, hostOnly, copiedAsBound, hostCalls, hostLoopCalls, hostAranges, unravelIndices, normEdits, nanQuantileEdits, nanQuantileRefs, ownFunctions, numpyCompute, scipyCompute, randomCalls, sparseOps, sparseOnDevice };
}

/** The cell's arrays: bound here, from earlier cells, on the device already; its generators and loops (stage 2). */
function cellArrays(scope: CellRewrite, s1: ReturnType<typeof libraryUses>) {
  const { cell, model, plan, root, facts, cp, refusals, notes } = scope;
  const { refs, hostOnly, copiedAsBound, hostCalls, sparseOnDevice } = s1;
  let randomCalls = s1.randomCalls;
  // 2. What lives on the device: in-cell array bindings and host array inputs used in device work.
  const localArrays = new Set<string>();
  const cellStartValue = (name: string): ValueInfo => model.valueBefore(name, cell, 0);
  // a host call's result, or one taken from it with numbers (`np.polyfit(x, y, 1)[0] / 4`): a host value
  const hostNumbers = (e: SyntaxNode): boolean => {
    let plain = true;
    walk(e, k => {
      plain &&= k.type !== 'call' && !(k.type === 'identifier' && isValueIdentifier(k) && model.inferValue(k, cell).kind !== 'scalar');
      return plain;
    });
    return plain;
  };
  const fromHostCall = (expr: SyntaxNode): boolean => {
    const e = unparen(expr);
    if (hostCalls.has(e.id)) {
      return true;
    }
    const [l, r] = e.type === 'binary_operator' ? [field(e, 'left'), field(e, 'right')] : [null, null];
    const base = e.type === 'subscript' ? field(e, 'value') : e.type === 'unary_operator' ? field(e, 'argument') : null;
    return (
      (!!base && fromHostCall(base) && kids(e).every(k => k.id === base.id || k.type === 'comment' || hostNumbers(k))) ||
      (!!l && !!r && ((fromHostCall(l) && (hostNumbers(r) || fromHostCall(r))) || (hostNumbers(l) && fromHostCall(r))))
    );
  };
  const boundToHostCall = (a: { value: SyntaxNode | null; unpacked?: { from: SyntaxNode } }): boolean => {
    const e = a.value ?? a.unpacked?.from;
    return !!e && fromHostCall(e);
  };
  // NumPy scalars the cell computes from host numbers alone (`dt2 = dt * 0.5`, `dt` a NumPy
  // scalar input: heldAsNumpyScalar): host arithmetic, which no rewrite puts on the device
  const hostScalars = new Set<string>();
  // names unpacked from a small device array that host code reads: unpacked from its host copy
  // (containerScalarEdits), NumPy scalars on the host
  const unpackedOnHost = new Set(unpackedForHost(model, cell, shownAfter(root, model, cell)).map(f => f.id));
  for (const a of facts.assignments) {
    const v = model.valueBefore(a.name, cell, a.at);
    if (a.unpacked && unpackedOnHost.has(a.unpacked.from.id)) {
      hostScalars.add(a.name);
      localArrays.delete(a.name);
      continue;
    }
    if (a.value && v.kind === 'ndarray' && v.shape?.length === 0 && (!a.augmented || hostScalars.has(a.name)) && hostScalarArithmetic(a.value, model, cell, hostScalars, plan?.resident)) {
      hostScalars.add(a.name);
      continue;
    }
    // (not one bound to a value kept NumPy on the host: hostOnlyExpressions)
    if ((v.kind === 'ndarray' || v.kind === 'rng' || (v.kind === 'sparse' && sparseOnDevice)) && !boundToHostCall(a) && !(a.value && hostOnly.includes(a.value) && !copiedAsBound.has(a.value.id))) {
      localArrays.add(a.name);
      hostScalars.delete(a.name);
    }
  }
  const residentInputs: string[] = [];
  const arrayInputs: string[] = [];
  // CuPy arrays an earlier cell made (the user's own CuPy code, or a rewrite already applied)
  const deviceInputs: string[] = [];
  for (const name of facts.inputs) {
    if (plan?.resident.has(name)) {
      residentInputs.push(name);
      continue;
    }
    // a name only functions defined here read, which no earlier cell binds (`def sub(a): return
    // a - env_s` above the cell that makes env_s): looked up when they run, not this cell's input
    if (!(model.bindings.get(name) ?? []).some(b => b.cellIndex < cell.index) && globalReferences(root, name).every(r => insideFunction(r))) {
      continue;
    }
    const v = cellStartValue(name);
    if (v.kind === 'ndarray' && v.device === 'gpu') {
      deviceInputs.push(name);
    } else if ((v.kind === 'ndarray' && !heldAsNumpyScalar(name, cell, model)) || (v.kind === 'sparse' && sparseOnDevice)) {
      arrayInputs.push(name);
    }
  }

  // a NumPy scalar the cell binds from its arrays (`first = y[0]`, `peak = y.max()`) is a 0-d
  // device array once they are on the device: it comes back, or goes to host code, as one
  const arrayNames = union(localArrays, arrayInputs, residentInputs, deviceInputs);
  for (const a of facts.assignments) {
    if (!a.nested && !a.augmented && a.value && !localArrays.has(a.name) && !boundToHostCall(a) && mentions(a.value, arrayNames)) {
      const v = model.valueBefore(a.name, cell, a.at);
      if (v.kind === 'scalar' && v.library === 'numpy') {
        localArrays.add(a.name);
      }
    }
  }

  // dtype refusals: what the GPU cannot hold
  refusals.push(...dtypeRefusals(root, model, cell, [...arrayInputs, ...localArrays]));

  // an input the analysis cannot type that meets the cell's arrays in an operator (`img - ref`,
  // `img` from pickle.load): NumPy's array minus CuPy's is a TypeError, so it is copied to the
  // device under a fresh name (cp.asarray also takes a list or a number); later cells keep it
  const untypedOperands = untypedArrayOperands(root, model, cell, arrayNames, name => !!plan?.resident.has(name) || cellStartValue(name).kind !== 'unknown');
  arrayInputs.push(...untypedOperands);
  // a call of unknown value meeting them so (`load_frame(p) - ref`) is copied where it stands
  const untypedCalls = untypedCallOperands(root, model, cell, union(arrayNames, untypedOperands), refs);
  refusals.push(...untypedCalls.refusals);
  // an input the analysis cannot type (a dict entry, a function's result) handed to a rewritten
  // NumPy call, or updated in place from one, would reach CuPy as a host value (TypeError)
  const untyped = [...facts.inputs].find(name => {
    if (plan?.resident.has(name) || cellStartValue(name).kind !== 'unknown' || !model.writers(name).some(w => w.index < cell.index) || untypedOperands.includes(name)) {
      return false; // typed, copied in (untypedArrayOperands), or not a notebook name (a builtin such as `object`)
    }
    const arrays = union(localArrays, arrayInputs, residentInputs, deviceInputs);
    return globalReferences(root, name).some(r => {
      const args = r.parent?.type === 'keyword_argument' ? r.parent.parent : r.parent;
      const call = args?.type === 'argument_list' ? args.parent : null;
      if (call && refs.some(x => x.action === 'cupy' && field(call, 'function')?.id === x.node.id)) {
        return true;
      }
      // indexed (`frames[0]`: an array or a container of arrays, not a number) inside a rewritten
      // call's arguments (`cp.fft.fft2(frames[0] * win)`), or in arithmetic with an array the
      // rewrite puts on the device; a call nested there (`len(frames[0])`) takes any value
      const meetsDevice = (x: SyntaxNode): boolean => {
        for (let e: SyntaxNode | null = x.parent; e && e.type !== 'expression_statement' && e.type !== 'lambda'; e = e.parent) {
          if (e.type === 'binary_operator' && mentions(e, arrays)) {
            return true;
          }
          if (e.type === 'call') {
            return refs.some(x => x.action === 'cupy' && field(e!, 'function')?.id === x.node.id);
          }
        }
        return false;
      };
      if (r.parent?.type === 'subscript' && field(r.parent, 'value')?.id === r.id) {
        if (meetsDevice(r.parent)) {
          return true;
        }
        // bound to a name first (`h = props["peak_heights"]`), which then meets such an array
        // (`z[peaks] - h`): the same host value
        const bind = r.parent.parent;
        const left = bind?.type === 'assignment' && field(bind, 'right')?.id === r.parent.id ? field(bind, 'left') : null;
        if (left?.type === 'identifier' && bind!.parent?.type === 'expression_statement' && bind!.parent.parent?.id === root.id) {
          return globalReferences(root, left.text).some(h => h.startIndex >= bind!.endIndex && meetsDevice(h));
        }
      }
      const stmt = r.parent;
      const right = stmt?.type === 'augmented_assignment' && field(stmt, 'left')?.id === r.id ? field(stmt, 'right') : null;
      return !!right && refs.some(x => x.action === 'cupy' && isInside(x.node, right));
    });
  });
  if (untyped) {
    refusals.push(
      `\`${untyped}\` comes from an earlier cell as a value the analysis cannot type (a container's entry, a function's result): run the cells above so the kernel reports it, or copy it to the device in this cell (\`cp.asarray(${untyped})\`)`
    );
  }

  // Generators: cupy.random.Generator has fewer methods than NumPy's; host generators stay host.
  const generators = generatorCalls(root, model, cell, [...localArrays, ...arrayInputs, ...residentInputs], new Set(residentInputs), refs, cp, hostOnly);
  randomCalls += generators.draws;
  refusals.push(...generators.refusals);
  const { rangeRewrites, hostRngCalls, hostCopies: hostDrawCopies, seeded } = generators;
  refusals.push(...movedGeneratorRefusals(root, refs, model, cell));

  // Draws cast to float32/float64 (`np.random.rand(n).astype(np.float32)`): generated in that
  // dtype on the device (cuRAND fills float32 directly: half the bytes, no cast pass).
  const castRewrites = castDraws(root, model, cell, cp);
  const normalRewrites = rangeRewrites.length - seeded.filter(d => !d.normal).length;
  rangeRewrites.push(...castRewrites);

  // 3. Loops: element-by-element loops and recurrences belong to kernels, not to CuPy calls,
  // except a small set-up loop filling a small array, which stays on the host
  const setups = setupLoops(root, union(arrayInputs, localArrays), model, cell);
  for (const setup of setups) {
    refs.filter(r => [setup.loop, setup.made, ...setup.inputs].some(n => isInside(r.node, n))).forEach(r => (r.action = 'keep'));
    notes.push(
      `The loop filling \`${setup.name}\` (${setup.trips} iterations over a small array) is set-up work: it stays on the host, NumPy's, and \`${setup.name}\` is copied to the device once after it.`
    );
  }
  if (setups.length > 0) {
    // functions of the set-up work (`hz2mel`) stay NumPy's: their note names those still moved
    const k = notes.findIndex(n => n.endsWith(OWN_FUNCTIONS_NOTE_END));
    const own = ownDeviceFunctions(refs);
    if (k >= 0 && own.length > 0) {
      notes[k] = ownFunctionsNote(own);
    } else if (k >= 0) {
      notes.splice(k, 1);
    }
  }
  const loopRefusal = checkLoops(root, union(arrayInputs, localArrays), model, cell, new Set(setups.map(s => s.loop.id)));
  if (loopRefusal) {
    refusals.push(loopRefusal);
  }
  // Python run once per element (comprehensions, map, loops over arrays): a kernel's job
  const perElement = perElementPython(root, model, cell) ?? undefined;
  if (perElement && !loopRefusal) {
    refusals.push(perElement);
  }
  return { localArrays, cellStartValue, residentInputs, arrayInputs, deviceInputs, arrayNames, untypedOperands, untypedCalls, rangeRewrites, hostRngCalls, hostDrawCopies, seeded, castRewrites, normalRewrites, setups, perElement, randomCalls };
}

/** Where the inputs go: device copies, rebinds, write-backs, uploads; the fresh names claimed for them (stage 3). */
function inputPlacement(scope: CellRewrite, s1: ReturnType<typeof libraryUses>, s2: ReturnType<typeof cellArrays>) {
  const { cell, model, plan, root, cp, refusals, notes, edits } = scope;
  const { refs, smallHost, hostOnly, nanQuantileRefs } = s1;
  const { localArrays, residentInputs, arrayInputs, deviceInputs, untypedOperands, seeded, cellStartValue } = s2;
  // names the rewrite may not give what it adds (device copies, kernels, launchers, buffers):
  // probed one by one (a cell depends only on the names it probes, not on the whole set of bound
  // names, and nothing is built for cells that add no name)
  const takenHere = new Set<string>();
  // (nor the names of device copies earlier cells of the plan made)
  const copyNames = new Set(plan?.deviceCopies?.values() ?? []);
  const used = (name: string): boolean => takenHere.has(name) || takenInNotebook(name, model) || (plan?.hoisted?.has(name) ?? false) || copyNames.has(name);
  const claim = (name: string): string => {
    takenHere.add(name);
    return name;
  };
  seeded.forEach(d => claim(d.device));
  const nanQuantileName = nanQuantileRefs.length > 0 ? claim(freshName(NAN_QUANTILE_BASE_NAME, used)) : null;
  nanQuantileRefs.forEach(r => (r.replacement = nanQuantileName!));

  // Which inputs are read-only (get a device copy under a new name) or rebound in place.
  const deviceNames = union(localArrays, residentInputs, deviceInputs);
  const hostConsumerArgs = collectHostConsumerArgs(root, model, cell, union(localArrays, arrayInputs, residentInputs, deviceInputs));
  const argNeeds = new Map(hostConsumerArgs.map(arg => [arg, hostArgumentNeed(arg, model.inferValue(arg, cell), model, cell)]));
  // host values of cupyx calls (`shift=-est[k]`): an input read only there gets no device copy
  const hostParams = hostParameterArgs(refs);
  // host arrays a notebook function reads as a global where this cell runs it on its arrays
  // (`propagate(x0)`, `def propagate(x): return x @ F.T` in another cell; or a function the cell
  // defines): the function looks `F` up when it runs, so a device copy under another name
  // (`F_gpu`) would leave it mixing the host array with device ones (a TypeError on CuPy), and a
  // later change of the copy would not reach it. Such a name is moved in by rebinding it, also
  // where the cell's own code does not read it (`functionReads`)
  const cellArraysHere = union(localArrays, arrayInputs, residentInputs, deviceInputs);
  const callsOnArrays = (call: SyntaxNode): boolean => kids(field(call, 'arguments') ?? call).some(a => mentions(a, cellArraysHere));
  const calledReads = globalsReadByCalledFunctions(root, cell, model, callsOnArrays);
  for (const c of defaultCaptures(root, cell, model, callsOnArrays)) {
    refusals.push(
      `\`${c.fn}\` (cell ${c.cellIndex}) took a host array as a default argument when it was defined (\`${c.text}\`) and keeps it: run here on device arrays it would mix that host array with them (a TypeError on CuPy), and moving the array's name to the device would not reach the copy it keeps: keep this cell on the host, or pass the array in the call`
    );
  }
  const calledOnly = calledReads.filter(
    n => !plan?.resident.has(n) && !cellArraysHere.has(n) && !plan?.deviceCopies?.has(n) && cellStartValue(n).kind === 'ndarray' && cellStartValue(n).device !== 'gpu' && !heldAsNumpyScalar(n, cell, model)
  );
  // (a lambda handed to host code reads the host original: hostCopyEdits)
  const functionReads = new Set([...calledOnly, ...arrayInputs.filter(n => calledReads.includes(n) || globalReferences(root, n).some(r => insideFunction(r, ['function_definition'])))]);
  // host consumer arguments that read parts of host arrays only (`pd.DataFrame({"ewma_vol": ew_vol[-1]})`):
  // host code as written, the host arrays read where they are (no copy in, no copy back)
  const hostReadArgs = hostReadArguments(root, model, cell, hostConsumerArgs, argNeeds, { arrayInputs, deviceNames, functionReads, untyped: new Set(untypedOperands), hostParams, plan });
  for (const arg of hostConsumerArgs) {
    if (hostReadArgs.has(arg.id)) {
      argNeeds.set(arg, 'as-is');
      // a resident array read there through an earlier host cell's copy of it
      for (const [name, twin] of plan?.hostCopies ?? []) {
        if (plan!.resident.has(name)) {
          edits.push(...globalReferences(arg, name).map(r => replace(r.startIndex, r.endIndex, twin)));
        }
      }
    }
  }
  const inputs = placeInputs(root, model, cell, [...arrayInputs, ...calledOnly], hostConsumerArgs, hostParams, base => claim(freshName(base, used)), plan, new Set(untypedOperands), functionReads, hostReadArgs);
  refusals.push(...inputs.refusals);
  inputs.onDevice.forEach(n => deviceNames.add(n));
  const { transfers, rebound, writeBack, hostKept, sharedWith, sliced, copied } = inputs;
  // what the cell copies in: its inputs less those read through an earlier cell's device copy
  const copiedIn = copied.size > 0 ? new Map([...transfers].filter(([n]) => !copied.has(n))) : transfers;
  if (sliced.size > 0) {
    // a slice stencil's kernel indexes the arrays it reads on the grid's indices: they are
    // copied whole (found here only for its reads: its names are claimed where it is rewritten)
    findSliceStencil(root, model, cell, base => base)?.reads.forEach(r => sliced.delete(r.name));
  }
  // host arrays made from pandas data or by estimators that meet device work: copied to the device
  const uploads = hostArrayUploads(root, model, cell, refs, deviceNames, cp, base => claim(freshName(base, used)));
  uploads.moved.forEach(r => (r.action = 'cupy'));
  uploads.host.forEach(n => deviceNames.delete(n));
  const hostKeptOnly = uploads.moved.length > 0 ? hostOnly.filter(e => !uploads.moved.some(r => r.node.parent?.id === e.id)) : hostOnly;
  const pandasOperands = pandasOperandCopies(root, model, cell, refs, deviceNames, cp);
  pandasOperands.kept.forEach(r => (r.action = 'keep'));
  pandasOperands.host.forEach(n => deviceNames.delete(n));
  if (pandasOperands.copied.length > 0) {
    notes.push(
      `A device value meeting pandas data in an operator (\`${clip(pandasOperands.copied[0].parent?.text ?? '')}\`) gets a host copy: pandas takes no CuPy array, and the operator stays pandas' (its result a Series or DataFrame, as with NumPy).`
    );
  }
  if (uploads.uploaded.length > 0) {
    notes.push(
      `Arrays made from pandas data (\`.to_numpy()\`, \`.values\`, NumPy's functions of columns that give arrays) or by an estimator (\`.predict(...)\`) are NumPy arrays on the host, which CuPy's operators and functions do not take: each is copied to the device once, where it meets device work (\`${cp}.asarray(...)\`); a NumPy ufunc of such arrays runs on the device on the copies.`
    );
  }

  // small host arrays meeting device work are copied in there (`cp.asarray(lags) * dt_b`): a few
  // hundred bytes each, where making them on the device would launch kernels for them and, for
  // integers from a transcendental function, could change them (small-host-arrays.ts)
  const onDevice = (e: SyntaxNode): boolean => mentions(e, deviceNames) || refs.some(r => r.action === 'cupy' && isInside(r.node, e));
  const smallCopies = smallHost.flatMap(s => s.meetings).filter(m => {
    if (m.kind === 'bind') {
      return true;
    }
    if (m.kind !== 'call') {
      return onDevice(m.partner);
    }
    const fn = field(m.partner, 'function');
    return (!!fn && refs.some(r => r.action === 'cupy' && isInside(r.node, fn))) || kids(field(m.partner, 'arguments') ?? m.partner).some(a => mentions(a, deviceNames));
  });
  for (const m of smallCopies) {
    edits.push(replace(m.use.startIndex, m.use.endIndex, `${cp}.asarray(${m.use.text})`));
  }
  const rounded = smallHost.filter(s => integerOfTranscendental(s.value, model));
  if (rounded.length > 0) {
    const copied = smallCopies.length > 0 ? `, copied to the device where it meets device data (\`${cp}.asarray(...)\`)` : '';
    notes.push(
      `\`${rounded[0].name ?? clip(rounded[0].value.text)}\` (integers made from numbers through a transcendental function) stays NumPy's on the host${copied}: the device's pow, exp or log may differ from NumPy's in the last bit, and a last-bit difference across an integer changes the integer (an index, a lag) and everything computed at it.`
    );
  }
  if (functionReads.size > 0 && !plan) {
    const names = [...functionReads].filter(n => rebound.has(n));
    if (names.length > 0) {
      const one = names.length === 1;
      notes.push(
        `${names.map(n => `\`${n}\``).join(', ')} ${one ? 'is' : 'are'} read as a global by a notebook function this cell runs on device arrays: ${one ? 'it is' : 'they are'} moved to the device under ${one ? 'its own name' : 'their own names'} (\`${names[0]} = ${cp}.asarray(${names[0]})\`), so the function finds the device array, and copied back at the end for the host code that calls the function later.`
      );
    }
  }
  // float % and // on device arrays: NumPy's values by one small definition each (float-remainder.ts)
  // (not where host code reads host names: host-only expressions, set-up loops, host consumer
  // arguments that must be host data)
  const hostRead = [...hostKeptOnly, ...s2.setups.flatMap(s => [s.loop, s.made, ...s.inputs]), ...hostConsumerArgs.filter(a => argNeeds.get(a) === 'host')];
  const floor = floatFloorOpSites(root, model, cell, refs, onDevice, hostRead);
  refusals.push(...floor.refusals);
  const floorSites = floor.sites;
  const floorNames = new Map<FloorDefinition, string>();
  for (const site of floorSites) {
    for (const op of site.op === 'divmod' ? (['floor_divide', 'remainder', 'divmod'] as const) : [site.op]) {
      if (!floorNames.has(op)) {
        const name = claim(freshName(FLOOR_OP_BASE_NAMES[op], n => used(n) || used(`${n}_kernel`)));
        claim(`${name}_kernel`);
        floorNames.set(op, name);
      }
    }
    const ref = site.node.type === 'call' && !site.renameCallee ? refs.find(r => r.node.id === field(site.node, 'function')?.id) : undefined;
    if (ref) {
      ref.replacement = floorNames.get(site.op)!;
    }
  }
  return { used, claim, nanQuantileName, floorSites, floorNames, deviceNames, hostConsumerArgs, argNeeds, hostParams, transfers, copiedIn, rebound, writeBack, hostKept, sharedWith, sliced, uploads, hostKeptOnly, pandasOperands, functionReads, hostReadArgs };
}

/**
 * The host consumer arguments (ids) that read host arrays and nothing the device holds: parts
 * and views of this cell's host inputs (`pd.DataFrame({"ewma_vol": ew_vol[-1], "true_beta":
 * betas[:, 0]})`, `plt.plot(t[:500], x[0].T)`), with no call or operator in them (work the cost
 * model would count as the cell's device work: `lab % 3` stays device work copied back). NumPy code reads the host
 * arrays there, as the original does: copying an array to the device only to copy its part back
 * for pandas would cost two copies for nothing. Not an input the cell changes (`x[0] = ...`, `x =
 * ...`: the host array would be stale), one a notebook function reads as a global or of unknown
 * type (both rebound to the device), nor, in the plan, one the cell's device work also reads, which
 * the plan moves in by rebinding its name (unless it stays a host array beside a device copy:
 * `keepOnHost`, `deviceCopies`). Arguments with calls or operators stay device work copied back once: a NumPy
 * function of a large host array is CPU work the rewrite moves.
 */
function hostReadArguments(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  hostConsumerArgs: readonly SyntaxNode[],
  argNeeds: ReadonlyMap<SyntaxNode, 'copy' | 'as-is' | 'host'>,
  names: {
    arrayInputs: readonly string[];
    deviceNames: ReadonlySet<string>;
    functionReads: ReadonlySet<string>;
    untyped: ReadonlySet<string>;
    hostParams: readonly SyntaxNode[];
    plan: ResidencyContext | undefined;
  }
): Set<number> {
  const facts = cell.facts!;
  const inputs = new Set(names.arrayInputs);
  const unchanged = (n: string): boolean => !facts.writes.has(n) && !updatedInCell(root, n, facts.mutates, model);
  const hostInput = (n: string): boolean => inputs.has(n) && !names.deviceNames.has(n) && !names.functionReads.has(n) && !names.untyped.has(n) && unchanged(n);
  // (a resident array read through the host copy an earlier host cell made: `x_host`)
  const twinned = (n: string): boolean => !!names.plan?.resident.has(n) && !!names.plan.hostCopies?.has(n) && unchanged(n);
  // each candidate with the host arrays it reads
  const candidates = new Map<SyntaxNode, string[]>();
  for (const arg of hostConsumerArgs) {
    if (argNeeds.get(arg) !== 'copy' || unparen(arg).type === 'identifier') {
      continue; // (a bare name is the host original already: isBareOrHostSafe)
    }
    let plain = true;
    const arrays = new Set<string>();
    // (an operator in an index, `w[-1]`, `x[n - 1]`, computes the index, not array data)
    const inIndex = (n: SyntaxNode): boolean => {
      for (let k = n; k.parent && k.id !== arg.id; k = k.parent) {
        if (k.parent.type === 'subscript' && field(k.parent, 'value')?.id !== k.id) {
          return true;
        }
      }
      return false;
    };
    walk(arg, n => {
      if (!plain) {
        return false;
      }
      if (/^(call|lambda|list_comprehension|generator_expression|await)$/.test(n.type) || (/^(binary_operator|unary_operator|boolean_operator|comparison_operator|not_operator|conditional_expression)$/.test(n.type) && !inIndex(n))) {
        plain = false;
      } else if (n.type === 'identifier' && isValueIdentifier(n)) {
        const kind = model.inferValue(n, cell).kind;
        if (twinned(n.text)) {
          arrays.add(n.text);
        } else if (names.deviceNames.has(n.text) || kind === 'rng' || kind === 'unknown') {
          plain = false;
        } else if (kind === 'ndarray' || kind === 'sparse') {
          plain = hostInput(n.text);
          arrays.add(n.text);
        }
      }
      return plain;
    });
    if (plain && arrays.size > 0) {
      candidates.set(arg, [...arrays]);
    }
  }
  const plan = names.plan;
  if (plan) {
    // the plan moves a host array the cell's device work reads in by rebinding its name: host
    // code after that reads the device array (dropping one candidate may make another's array a
    // device one: repeated until none changes)
    const keepsHostName = (n: string): boolean => !!plan.deviceCopies?.has(n) || !!plan.keepOnHost?.has(n) || twinned(n);
    const hostUse = (r: SyntaxNode, name: string): boolean =>
      [...candidates.keys()].some(a => isInside(r, a)) ||
      hostConsumerArgs.some(a => isInside(r, a) && isBareOrHostSafe(a, name)) ||
      names.hostParams.some(a => isInside(r, a));
    for (let changed = true; changed; ) {
      changed = false;
      for (const [arg, arrays] of candidates) {
        if (arrays.some(n => !keepsHostName(n) && globalReferences(root, n).some(r => !hostUse(r, n)))) {
          candidates.delete(arg);
          changed = true;
        }
      }
    }
  }
  return new Set([...candidates.keys()].map(a => a.id));
}

/**
 * The cell's `%` and `//` (operators, augmented assignments, `np.remainder`/`np.mod`/
 * `np.floor_divide`/`np.divmod` calls, `out=` and `dtype=` included) that CuPy would compute on
 * device arrays and that may be of floats: CuPy's float remainder and floor division are one
 * period off where `x / y` rounds up to an integer (float-remainder.ts). Not in host-only code
 * (`host`). In the functions and lambdas the cell calls with device arrays (or that compute with
 * CuPy), those whose operands are arrays at some call (the model's values of the body at each
 * call, `model.inCall`; the builtin `divmod` too, which there gets CuPy's): rewritten where the
 * cell defines the function, refused where another cell does (this cell's rewrite cannot change
 * it), as is a call the definitions cannot take (`where=`, an `out=` tuple).
 */
function floatFloorOpSites(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  refs: readonly LibraryRef[],
  onDevice: (e: SyntaxNode) => boolean,
  host: readonly SyntaxNode[]
): { sites: FloorOpSite[]; refusals: string[] } {
  const sites = new Map<number, FloorOpSite>();
  const refusals = new Set<string>();
  const add = (site: FloorOpSite): void => {
    sites.set(site.node.id, site);
  };
  const hostCode = (n: SyntaxNode): boolean => host.some(e => isInside(n, e)) || insideFunction(n, ['function_definition', 'lambda']);
  // an operand the device holds: an array the analysis knows, on the device (not a Python
  // number computed from one: `len(x) % 3`, `x.shape[0] // 2`)
  const deviceArray = (e: SyntaxNode): boolean => onDevice(e) && model.inferValue(e, cell).kind === 'ndarray';
  const keywordsRefused = (call: SyntaxNode, divmod: boolean): boolean => {
    const why = callKeywordsRefusal(call, divmod);
    if (why) {
      refusals.add(`\`${call.text.length > 60 ? `${field(call, 'function')?.text}(...)` : call.text}\`: ${why}, which the rewrite's exact float ${divmod ? '// and %' : field(call, 'function')?.text.endsWith('floor_divide') ? '//' : '%'} does not take, and CuPy's own is one period off NumPy's where x / y rounds up to an integer (references/cupy.md#float-mod): keep this cell on the host, or drop the keyword`);
    }
    return why !== null;
  };
  walkTypes(root, ['binary_operator', 'augmented_assignment', 'function_definition', 'lambda'], n => {
    if (n.type === 'function_definition' || n.type === 'lambda') {
      return false;
    }
    const site = operatorSite(n, model, cell);
    const sides = site ? siteOperands(n) : null;
    if (site && sides && sides.some(deviceArray) && !hostCode(n)) {
      add(site);
    }
    return true;
  });
  for (const r of refs) {
    const call = r.node.parent;
    const divmod = r.qualified === 'numpy.divmod';
    const op = r.action === 'cupy' ? (divmod ? 'divmod' : floorUfunc(r.qualified)) : undefined;
    if (!op || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id || hostCode(call)) {
      continue;
    }
    const { positional } = callArguments(call);
    if (positional.length >= 2 && mayBeFloat(positional[0], positional[1], model, cell) && (!divmod || positional.slice(0, 2).some(deviceArray)) && !keywordsRefused(call, divmod)) {
      add({ op, node: call });
    }
  }
  // the builtin `divmod` of a device array: CuPy's `__divmod__` (cp.divmod), NumPy's for
  // integers only (a host consumer no more: builtinDivmodOfArrays)
  walkTypes(root, ['call', 'function_definition', 'lambda', 'class_definition'], n => {
    if (n.type !== 'call') {
      return false;
    }
    const [a, b] = callArguments(n).positional;
    if (!hostCode(n) && builtinDivmodOfArrays(n, model, cell) && mayBeFloat(a, b, model, cell) && [a, b].some(deviceArray)) {
      add({ op: 'divmod', node: n, renameCallee: true });
    }
    return true;
  });
  // the notebook functions this cell runs on device arrays, at each call
  const defined = (n: SyntaxNode): boolean => n.tree === root.tree;
  const ownDevice = new Set(refs.filter(r => r.action === 'cupy' && enclosingFunction(r.node)).map(r => field(enclosingFunction(r.node)!, 'name')?.text ?? ''));
  const seen = new Set<string>();
  const visitCall = (call: SyntaxNode, callCell: CellModel): void => {
    model.inCall(call, callCell, def => {
      const key = `${def.node.tree === root.tree ? 'here' : def.cell.index}:${def.node.startIndex}:${call.tree === root.tree ? 'here' : ''}:${call.startIndex}`;
      const body = field(def.node, 'body');
      if (seen.has(key) || !body) {
        return;
      }
      seen.add(key);
      const array = (e: SyntaxNode): boolean => model.inferValue(e, def.cell).kind === 'ndarray';
      const name = def.node.type === 'function_definition' ? field(def.node, 'name')?.text : def.node.parent?.type === 'assignment' ? field(def.node.parent, 'left')?.text : undefined;
      const found = (site: FloorOpSite): void => {
        if (defined(def.node)) {
          add(site);
        } else {
          refusals.add(
            `\`${name ?? 'a lambda'}\`, defined in another cell, computes a float ${site.op === 'remainder' ? '%' : site.op === 'floor_divide' ? '//' : 'divmod'} (\`${site.node.text.length > 60 ? site.node.text.slice(0, 57) + '...' : site.node.text}\`) on the CuPy arrays this cell would hand it: CuPy's is one period off NumPy's where x / y rounds up to an integer (references/cupy.md#float-mod), and the rewrite computes it exactly only in the cells it rewrites: kept on the host`
          );
        }
      };
      walkTypes(body, ['binary_operator', 'augmented_assignment', 'call', 'function_definition', 'lambda', 'class_definition'], n => {
        if (n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') {
          return false; // (an inner scope: its own parameters, not this call's)
        }
        if (n.type !== 'call') {
          const site = operatorSite(n, model, def.cell);
          const sides = site ? siteOperands(n) : null;
          if (site && sides?.some(array)) {
            found(site);
          }
          return true;
        }
        const fn = field(n, 'function');
        const q = fn ? model.qualifiedName(fn) : null;
        const { positional } = callArguments(n);
        const builtinDivmod = fn?.type === 'identifier' && fn.text === 'divmod' && q === null && !model.bindings.has('divmod');
        const op = builtinDivmod || q === 'numpy.divmod' ? 'divmod' : q ? floorUfunc(q) : undefined;
        if (op) {
          if (positional.length >= 2 && positional.slice(0, 2).some(array) && mayBeFloat(positional[0], positional[1], model, def.cell) && !keywordsRefused(n, op === 'divmod')) {
            found({ op, node: n, renameCallee: builtinDivmod || (defined(n) && !refs.some(r => r.node.id === fn?.id && r.action === 'cupy')) });
          }
        } else if (((fn?.type === 'identifier' && q === null) || (fn && unparen(fn).type === 'lambda')) && [...positional, ...callArguments(n).keywords.values()].some(array)) {
          visitCall(n, def.cell); // a notebook function this one hands arrays
        }
        return true;
      });
    });
  };
  walkTypes(root, ['call', 'function_definition', 'lambda', 'class_definition'], n => {
    if (n.type !== 'call') {
      return false;
    }
    const fn = field(n, 'function');
    const { positional, keywords } = callArguments(n);
    const notebookFunction = fn?.type === 'identifier' && model.qualifiedName(fn) === null;
    // (a lambda called where it is written, `(lambda a, b: a % b)(x, 2.5)`, as a named one)
    const inlineLambda = fn !== null && unparen(fn).type === 'lambda';
    if ((notebookFunction || inlineLambda) && !host.some(e => isInside(n, e)) && ((notebookFunction && ownDevice.has(fn.text)) || [...positional, ...keywords.values()].some(onDevice))) {
      visitCall(n, cell);
    }
    return true;
  });
  return { sites: [...sites.values()].sort((a, b) => a.node.startIndex - b.node.startIndex), refusals: [...refusals] };
}

/** The edits of the references, draws and inputs (stage 4). */
function rewriteEdits(scope: CellRewrite, s1: ReturnType<typeof libraryUses>, s2: ReturnType<typeof cellArrays>, s3: ReturnType<typeof inputPlacement>) {
  const { cell, model, root, cp, refusals, notes, edits, imports } = scope;
  const { refs, unravelIndices, normEdits, nanQuantileEdits } = s1;
  const { arrayNames, untypedCalls, rangeRewrites, hostRngCalls, hostDrawCopies, seeded, castRewrites, normalRewrites, setups } = s2;
  const { deviceNames, hostConsumerArgs, argNeeds, hostParams, transfers, writeBack, sliced, uploads, pandasOperands, hostReadArgs } = s3;
  // 4. Edits.
  // component sizes as a bincount: the call around the mask is replaced (placed with the other
  // edits below, once they are all made: the edits inside its spans go, the mask's own stay)
  const sizes = componentSizeRewrites(refs, model, cell, cp);
  const rewrittenRefs = refs.filter(r => !sizes.calls.some(c => isInside(r.node, c)));
  if (sizes.calls.length > 0) {
    notes.push(
      `\`${clip(sizes.calls[0].text)}\` counts each component's pixels: it became a \`${cp}.bincount\` of the labels, integer atomics over them (and bincount's own range check; cupyx's sum over labels searches the labels for every pixel: 40 ms against 0.3 ms for 4,790 components of a 4096 x 4096 image on the H200), exact, float64 as SciPy returns it.`
    );
  }
  for (const r of rewrittenRefs) {
    if (r.action === 'cupy' && r.replacement) {
      edits.push(replace(r.node.startIndex, r.node.endIndex, r.replacement));
      if (r.qualified.startsWith('scipy.')) {
        const module = cupyxModuleOf(r.qualified.slice('scipy.'.length));
        if (module) {
          imports.add(`import cupyx.scipy.${module}`);
        }
      }
    } else if (r.action === 'host-producer') {
      const call = r.node.parent;
      if (call?.type === 'call') {
        edits.push(insert(call.startIndex, `${cp}.asarray(`), insert(call.endIndex, ')'));
      }
    }
  }
  edits.push(...measurementEdits(rewrittenRefs, model, cell, cp), ...sequenceArgumentEdits(rewrittenRefs, model, cell, cp), ...uploads.edits, ...pandasOperands.edits, ...normEdits, ...nanQuantileEdits);
  const morphology = morphologyIterationEdits(rewrittenRefs, cell.source);
  edits.push(...morphology.edits);
  if (morphology.note) {
    notes.push(morphology.note);
  }
  // CuPy's lstsq still defaults to rcond='warn' (a FutureWarning, and machine epsilon as the
  // cut-off), NumPy 2's to None (epsilon times the larger dimension): the rank and the solution
  // of an ill-conditioned system could differ, so the rewrite passes NumPy's default
  for (const r of rewrittenRefs) {
    const call = r.node.parent;
    const args = call?.type === 'call' ? field(call, 'arguments') : null;
    if (r.action === 'cupy' && r.qualified === 'numpy.linalg.lstsq' && args && field(call!, 'function')?.id === r.node.id) {
      const { positional, keywords } = callArguments(call!);
      if (positional.length < 3 && !keywords.has('rcond')) {
        const inner = cell.source.slice(args.startIndex, args.endIndex - 1).trimEnd();
        edits.push(insert(args.startIndex + inner.length, `${inner.endsWith(',') || inner === '(' ? '' : ', '}rcond=None`));
      }
    }
  }
  for (const index of unravelIndices) {
    if (mentions(index, arrayNames) || refs.some(r => r.action === 'cupy' && isInside(r.node, index))) {
      edits.push(insert(index.startIndex, 'int('), insert(index.endIndex, ')'));
    }
  }
  const lastAxisBits = lastAxisBitEdits(refs, model, cell);
  edits.push(...lastAxisBits.edits, ...float64SignalEdits(refs, model, cell, cp));
  refusals.push(...binRuleRefusals(refs, model, cell), ...unsupportedArgumentRefusals(refs, lastAxisBits.calls), ...iterateStructureRefusals(refs, model, cell));
  const atomics = atomicSumNote(refs, model, cell);
  if (atomics) {
    notes.push(atomics);
  }
  const canonical = canonicalAtConstruction(root, refs, model, cell);
  edits.push(...canonical.edits);
  for (const rw of rangeRewrites) {
    replaceSpan(edits, rw);
  }
  if (castRewrites.length > 0) {
    notes.push('Random draws cast with `.astype(...)` are generated in that dtype on the device (`dtype=` argument): same distribution, no float64 intermediate and no cast pass.');
  }
  const vectors = refs.filter(r => r.action === 'cupy' && /^(numpy\.linalg\.(eigh|svd)|scipy\.sparse\.linalg\.(eigsh|svds))$/.test(r.qualified));
  if (vectors.length > 0) {
    notes.push(
      `Eigenvectors and singular vectors are unique only up to each vector's sign (a phase, for complex ones): cuSOLVER may pick other signs than LAPACK for \`${vectors[0].node.text}\`. The A/B results check compares real vectors up to each column's (or row's) sign and says so; complex ones it may report as different while both are right: check \`A @ v\` against \`v * w\` (or \`U * s @ Vt\` against \`A\`) instead.`
    );
  }
  // CuPy checks a factorisation's info (a singular matrix) only under cupyx.errstate(linalg='raise'):
  // cupy/linalg/_util.py, for the batched cuBLAS and the cuSOLVER paths alike (CuPy 14.2)
  const solves = refs.find(r => r.action === 'cupy' && /^numpy\.linalg\.(solve|inv|tensorsolve|tensorinv)$/.test(r.qualified));
  if (solves) {
    notes.push(
      `\`${solves.node.text}\` of a singular matrix raises LinAlgError in NumPy; on the device it raises nothing and gives inf or NaN (CuPy checks the factorisation only under \`cupyx.errstate(linalg='raise')\`, which waits for the device at each call).`
    );
  }
  if (normalRewrites > 0) {
    notes.push('`rng.normal(loc, scale, size)` became `loc + scale * rng.standard_normal(size)`: CuPy\'s Generator has no `normal`; the distribution is the same.');
  }
  for (const { rng, device } of new Map(seeded.map(d => [d.rng, d])).values()) {
    notes.push(
      `\`${rng}\` is a NumPy Generator made in another cell and read by no later cell: its draws here are made on the device by \`${device}\`, a CuPy Generator seeded from it, so they never cross PCIe and a rerun of the notebook draws the same numbers; \`${rng}\` itself moves on by one integer instead of by the draws.`
    );
  }
  // a set-up loop's array, filled on the host: copied to the device once, after the loop
  for (const setup of setups) {
    edits.push(insert(setup.loop.endIndex, `\n${setup.name} = ${cp}.asarray(${setup.name})`));
  }
  for (const call of untypedCalls.copied) {
    edits.push(insert(call.startIndex, `${cp}.asarray(`), insert(call.endIndex, ')'));
  }
  // draws from a host generator made in another cell: copy the draw (or the host expression
  // shrinking it) to the device once
  const drawCopyEdits = hostRngCalls.map(draw => {
    const copied = hostDrawCopies.get(draw.id) ?? draw;
    const around = { draw, open: insert(copied.startIndex, `${cp}.asarray(`), close: insert(copied.endIndex, ')') };
    edits.push(around.open, around.close);
    return around;
  });
  // The cell's shown value (displayedStatement): where it reads written-back arrays and nothing
  // else on the device (no other device name, no CuPy call), it follows the epilogue and reads
  // the host arrays, current after the write-back (hostDisplayed); any other shown value is
  // evaluated on the device before the epilogue (epilogueEdits).
  const displayed = displayedStatement(root, cell.source, model);
  const hostDisplayed = new Set(displayed ? writeBack.filter(n => globalReferences(displayed, n).length > 0) : []);
  const readsDeviceBesides = (e: SyntaxNode, host: ReadonlySet<string>): boolean =>
    [...deviceNames].some(n => !host.has(n) && globalReferences(e, n).length > 0) ||
    refs.some(r => r.action === 'cupy' && isInside(r.node, e)) ||
    [...rangeRewrites, ...castRewrites].some(x => x.start < e.endIndex && x.end > e.startIndex);
  if (displayed && readsDeviceBesides(displayed, hostDisplayed)) {
    hostDisplayed.clear();
  }
  // read-only inputs are read through their device copy, except where a host consumer takes them
  for (const [name, dev] of transfers) {
    if (dev === name) {
      continue;
    }
    for (const r of globalReferences(root, name)) {
      if (hostDisplayed.has(name) && isInside(r, displayed!)) {
        continue; // displayed after the write-back: the host array
      }
      const hostArg = hostConsumerArgs.find(arg => isInside(r, arg));
      if (hostArg && (isBareOrHostSafe(hostArg, name) || argNeeds.get(hostArg) === 'host' || hostReadArgs.has(hostArg.id)) && !writeBack.includes(name)) {
        continue; // the host original (bare, or read by host code: a lambda), unless the cell updates it (then only the device copy is current)
      }
      if (hostParams.some(arg => isInside(r, arg)) && !writeBack.includes(name)) {
        continue; // a cupyx call's host parameter (`shift=-est[k]`): the host original, no sync per value
      }
      // an input copied in part (`traj[:, -1]`): the part is the device copy; its shape and
      // dtype are the host array's
      if (sliced.has(name) && readsMetadataOnly(r)) {
        continue;
      }
      const part = sliced.has(name) ? r.parent! : r;
      edits.push(replace(part.startIndex, part.endIndex, dev));
    }
  }
  // CuPy sorts in place only C-contiguous arrays: elsewhere through cp.sort, written back
  sortsInPlace(root, model, cell, cp, deviceNames, edits);
  // CuPy's flat iterator takes no index array: `a.flat[idx]` through `a.ravel()` (./api-limits.ts)
  const flat = flatIndexRewrites(root, model, cell, deviceNames, obj => deviceCContiguous(obj, cell, model));
  edits.push(...flat.edits);
  refusals.push(...flat.refusals);
  if (flat.rewritten.length > 0) {
    notes.push(
      `\`${clip(flat.rewritten[0].text)}\`: CuPy's flat iterator takes an integer, a slice or \`...\` only, so the index array goes through \`.ravel()\` (where it is written through, a view of the C-contiguous array: the write lands in it). A repeated index is updated once, as in NumPy (a buffered \`+=\`); where the values written to it differ, NumPy keeps the last one, CuPy any one of them.`
    );
  }
  // one reduction per row in a comprehension: one reduction over all the rows
  const rowReductions = rowReductionRewrites(root, model, cell, refs, cp, name => (sliced.has(name) ? null : (transfers.get(name) ?? name)));
  rowReductions.forEach(rw => replaceSpan(edits, rw));
  if (rowReductions.length > 0) {
    notes.push(
      `\`${clip(rowReductions[0].from)}\` reduces each row in turn: it became one reduction over all the rows (\`${clip(rowReductions[0].text)}\`), a few launches and one count of the mask's elements for all the rows, instead of those and a wait per row; the same values (each row's sum taken in another order).`
    );
  }
  // a host-made arange in a loop whose arguments the loop does not change: made and copied once,
  // before the loop, not on every trip
  const hoistedAranges = hoistLoopInvariantAranges(root, model, s1.hostAranges, edits, cp, base => s3.claim(freshName(base, s3.used)));
  if (hoistedAranges.length > 0) {
    notes.push(
      `\`${clip(hoistedAranges[0].call.text)}\` is in a loop that does not change its arguments: made by NumPy and copied to the device once, before the loop (\`${hoistedAranges[0].name}\`), not on every trip${hoistedAranges.some(h => h.copied) ? '; where the loop changes the array in place, each trip takes a device copy of it' : ''}.`
    );
  }
  return { sizes, canonical, drawCopyEdits, displayed, hostDisplayed, readsDeviceBesides, rowReductions, hoistedAranges: hoistedAranges.map(h => h.call) };
}

/** Builtins of Python numbers an arange's arguments may call and stay the same on every trip (`len(x)`, `int(n / 2)`). */
const PURE_NUMBER_BUILTINS = new Set(['len', 'int', 'float', 'round', 'abs', 'min', 'max']);

/**
 * The host-made aranges (`calls`, each wrapped `cp.asarray(...)` by `edits`) inside a top-level
 * loop of the cell whose arguments the loop does not change (no name of them bound or updated in
 * place in the loop, no call but of Python numbers' builtins): made once before the loop,
 * `t_gpu = cp.asarray(np.arange(...))`, and read by that name in the loop (its `.copy()` where
 * the loop could change the array: the bound name updated in place or passed on, or the array
 * not simply bound). `edits` is changed; those with other edits inside the call stay as they are.
 */
function hoistLoopInvariantAranges(
  root: SyntaxNode,
  model: NotebookModel,
  calls: readonly SyntaxNode[],
  edits: TextEdit[],
  cp: string,
  fresh: (base: string) => string
): { call: SyntaxNode; name: string; copied: boolean }[] {
  const out: { call: SyntaxNode; name: string; copied: boolean }[] = [];
  for (const call of calls) {
    let loop: SyntaxNode | null = null;
    for (let p = call.parent; p && p.id !== root.id; p = p.parent) {
      if (p.type === 'for_statement' || p.type === 'while_statement') {
        loop = p;
      }
    }
    const body = loop ? field(loop, 'body') : null;
    const args = field(call, 'arguments');
    if (!loop || !body || !args || loop.parent?.id !== root.id || !isInside(call, body) || insideFunction(call, ['function_definition', 'lambda', 'class_definition'])) {
      continue;
    }
    // loop-invariant arguments
    let varies = false;
    walkTypes(args, ['identifier', 'call'], n => {
      if (n.type === 'call') {
        const fn = field(n, 'function');
        varies ||= !(fn?.type === 'identifier' && PURE_NUMBER_BUILTINS.has(fn.text) && model.qualifiedName(fn) === null);
        return !varies;
      }
      if (isValueIdentifier(n) && (assignsName(loop!, n.text) || globalReferences(loop!, n.text).some(r => inPlaceUpdate(r, model) !== null))) {
        varies = true;
      }
      return !varies;
    });
    const own = (e: TextEdit): boolean => e.start === e.end && ((e.start === call.startIndex && e.text === `${cp}.asarray(`) || (e.start === call.endIndex && e.text === ')'));
    const inner = edits.filter(e => e.start >= call.startIndex && e.end <= call.endIndex && !own(e));
    const wraps = edits.filter(own);
    if (varies || inner.length > 0 || wraps.length !== 2) {
      continue;
    }
    // reused as it is where the loop only reads it: bound to a name the loop reads without
    // updating it in place or passing it on, or an operand of an operator
    const parent = call.parent;
    const bound = parent?.type === 'assignment' && field(parent, 'right')?.id === call.id && field(parent, 'left')?.type === 'identifier' ? field(parent, 'left')!.text : null;
    const readOnly = bound
      ? globalReferences(loop, bound).every(r => r.id === field(parent!, 'left')?.id || (inPlaceUpdate(r, model) === null && escapingUse(r, model) === null))
      : parent?.type === 'binary_operator' || parent?.type === 'comparison_operator';
    const name = fresh(`${bound ?? 'arange'}_gpu`);
    for (const w of wraps) {
      edits.splice(edits.indexOf(w), 1);
    }
    edits.push(insert(loop.startIndex, `${name} = ${cp}.asarray(${call.text})  # made once: the loop does not change its arguments\n`));
    edits.push(replace(call.startIndex, call.endIndex, readOnly ? name : `${name}.copy()`));
    out.push({ call, name, copied: !readOnly });
  }
  return out;
}

/** Host copies, the epilogue and the shown value (stage 5). */
function hostSideEdits(scope: CellRewrite, s1: ReturnType<typeof libraryUses>, s2: ReturnType<typeof cellArrays>, s3: ReturnType<typeof inputPlacement>, s4: ReturnType<typeof rewriteEdits>) {
  const { cell, model, plan, root, facts, cp, refusals, notes, edits } = scope;
  const { refs, hostCalls, ownFunctions } = s1;
  const { randomCalls, deviceInputs, setups } = s2;
  const { used, claim, deviceNames, argNeeds, transfers, rebound, writeBack, hostKept, sharedWith, functionReads } = s3;
  const { sizes, displayed, hostDisplayed, readsDeviceBesides } = s4;
  // host consumers of device results get host copies
  const localDevice = new Set<string>();
  for (const n of deviceNames) {
    if (!transfers.has(n) || rebound.has(n)) {
      localDevice.add(n);
    }
  }
  const transferredReadOnly = new Set<string>();
  for (const [a, b] of transfers) {
    if (a !== b) {
      transferredReadOnly.add(a);
    }
  }
  // a CuPy array from an earlier cell handed to host code fails as written (CuPy refuses the
  // implicit conversion): the candidate copies it, and says so
  deviceInputs.forEach(n => localDevice.add(n));
  const hostCopies = hostCopyEdits(root, model, cell, cp, argNeeds, { deviceNames, localDevice, transferredReadOnly, writeBack });
  edits.push(...hostCopies.edits);
  const brokenHandOffs = deviceInputs.filter(n => hostCopies.copied.some(arg => globalReferences(arg, n).length > 0));
  if (hostCopies.carried.length > 0) {
    const carried = [...new Set(hostCopies.carried)].map(n => `\`${n}\``).join(', ');
    refusals.push(`host code here (a lambda or an object passed to a host library) reads ${carried}, which the rewrite would keep on the device: keep this cell on the host`);
  }
  if (brokenHandOffs.length > 0) {
    const one = brokenHandOffs.length === 1;
    notes.push(
      `${brokenHandOffs.map(n => `\`${n}\``).join(', ')} ${one ? 'is a CuPy array' : 'are CuPy arrays'} here (made on the device by an earlier cell): as written, this cell hands ${one ? 'it' : 'them'} to host code, which CuPy refuses (no implicit conversion to NumPy); the candidate passes a host copy.`
    );
  }

  // epilogue: results read by later cells go back to the host (the notebook plan can keep them)
  const bringBack: string[] = [];
  // array names nothing later reads: they stay CuPy arrays after the cell (a note says so)
  const leftOnDevice: string[] = [];
  for (const name of localDevice) {
    const v = model.valueAfter(name, cell);
    const topLevel = facts.assignments.some(a => a.name === name);
    if (!(topLevel || rebound.has(name)) || (v.kind !== 'ndarray' && v.kind !== 'sparse' && v.kind !== 'scalar')) {
      continue;
    }
    if (plan || leftAsWritten(name, cell, model)) {
      continue;
    }
    // (a value the next cell using the name replaces at once, `q = q0.copy()`, is read by none;
    // one a notebook function reads as a global may be read by any later call of it)
    if ((model.readersAfter(name, cell).length > 0 && !startsOverNext(name, cell, model)) || functionReads.has(name)) {
      bringBack.push(name);
    } else {
      leftOnDevice.push(name);
    }
  }
  // a SciPy call kept on the host among device work copies its device signal: made once where
  // the end of the cell (or, in the plan, a later host cell) would copy the same array again
  const shared = sharedHostCallCopies(root, model, cell, cp, !!plan, s1.hostLoopCalls, hostCopies, bringBack, localDevice, edits, base => claim(freshName(base, used)));
  // `x = cp.asnumpy(x)` makes a new host array: what the cell made share `x` (`v = x`,
  // `d = {"x": x}`) keeps the device array, told apart once a later cell updates either. The plan
  // brings arrays back one by one at host cells, so there every device array counts.
  refusals.push(...sharedBringBackRefusals(root, model, cell, plan ? [...deviceNames].filter(n => !hostKept.has(n)) : bringBack));
  refusals.push(...opaqueDeviceResults(root, facts, refs, model, cell, deviceNames, hostCalls));
  refusals.push(...keptThenUpdated(root, deviceNames, model, cell));
  // device copies of host-kept arrays (written back, or in the plan copied in by each cell) are
  // released at the end: nothing reads them later, and the plan counts only resident arrays
  // against device memory.
  // device -> host straight into the host array when it is known contiguous, C or Fortran order
  // (what CuPy's ndarray.get(out=...) writes into); else through a host temporary
  const writeBackLines = new Map(
    writeBack.map(n => [n, hostLayout(n, cell, model) !== null ? `${transfers.get(n)}.get(out=${n})` : `${n}[...] = ${cp}.asnumpy(${transfers.get(n)})`])
  );
  // (a shown value still reading one is evaluated before the release: epilogueEdits)
  const released = [...hostKept].filter(n => plan || writeBack.includes(n)).map(n => transfers.get(n) as string);
  // a sparse matrix built here from host arrays ends as SciPy built it: built again on the host
  // from the same arrays, not copied back (read later or not: cupyx's products change its storage)
  const rebuilt = new Map<string, string>();
  for (const n of plan ? [] : localDevice) {
    const call = model.valueAfter(n, cell).kind === 'sparse' ? sparseHostRebuild(n, cell, model, transfers) : null;
    if (call) {
      rebuilt.set(n, call);
    }
  }
  // under %%time / %%timeit the cell's time must include the GPU's work, which is queued
  // asynchronously: wait for it at the end (a copy back already waits)
  // (an array whose copy back moved up before a SciPy call kept on the host is copied there)
  const endBack = bringBack.filter(n => !shared.moved.has(n));
  const timed = /^\s*%%(time|timeit)\b/.test(cell.source) && endBack.filter(n => !rebuilt.has(n)).length + writeBack.length === 0;
  const epilogue = endBack.length + writeBack.length + released.length + rebuilt.size > 0 || timed;
  // shown on the host after the epilogue: a value reading written-back arrays (hostDisplayed), or
  // no device value at all, or only looking into arrays brought back (`y`, `y[:3]`, `y.shape`: no
  // call, no arithmetic: NumPy's own repr, nothing computed on the host)
  const lookedInto = (e: SyntaxNode): boolean => {
    let plain = true;
    walk(e, k => {
      plain &&= !(k.type === 'call' || k.type === 'binary_operator' || k.type === 'unary_operator' || k.type === 'comparison_operator' || k.type === 'boolean_operator');
      return plain;
    });
    return plain && !readsDeviceBesides(e, new Set(bringBack));
  };
  const shownOnHost = (e: SyntaxNode): boolean => hostDisplayed.size > 0 || !readsDeviceBesides(e, new Set()) || lookedInto(e);
  // a displayed 0-d device value would show CuPy's repr (`array(1.5)`): NumPy's scalar is shown
  // (`np.float64(1.5)`), each item of a displayed tuple, list, set or dict too (`y.mean(),
  // y.std()`, `{"max": y.max()}`); not where the shown value reads host arrays after the epilogue
  const shownParts = displayed && !(epilogue && shownOnHost(displayed)) && hostDisplayed.size === 0 ? displayedItems(displayed) : [];
  for (const shown of shownParts) {
    const v = model.inferValue(shown, cell);
    if (isZeroD(v) && (mentions(shown, deviceNames) || refs.some(r => r.action === 'cupy' && isInside(r.node, shown)))) {
      edits.push(...hostCopyAround(shown, v, cp, model, cell));
    }
  }
  // a 0-d device value used as a hash key is a CuPy array, which is unhashable (TypeError);
  // NumPy's is a scalar, which is hashable and equals the Python number: the key is copied back
  // as one. Keys of dict literals and comprehensions, set elements (literal or comprehension:
  // `peaks = {y.max(): "max"}`, `{y[i].argmax() for i in r}`; the shown value's keys are the
  // shown parts' above), the index of a container (`names[y.argmax()]`: not an array's, which
  // takes a 0-d device index) and the left side of `in` / `not in` over one (`y.argmax() in tops`)
  const copyKey = (key: SyntaxNode | null | undefined): void => {
    const v = key && key.type !== 'comment' ? model.inferValue(key, cell) : null;
    if (key && v && isZeroD(v) && (mentions(key, deviceNames) || refs.some(r => r.action === 'cupy' && isInside(r.node, key)))) {
      edits.push(...hostCopyAround(key, v, cp, model, cell));
    }
  };
  // range's arguments (`range(k.max())`) take an integer through `__index__`, which CuPy's
  // ndarray lacks (INDEX_BUILTINS): `int(...)` of a device integer (hostIndexAround)
  const indexOperand = (e: SyntaxNode | null | undefined): void => {
    const v = e && e.type !== 'comment' && e.type !== 'keyword_argument' ? model.inferValue(e, cell) : null;
    if (e && v && isZeroD(v) && (mentions(e, deviceNames) || refs.some(r => r.action === 'cupy' && isInside(r.node, e)))) {
      edits.push(...hostIndexAround(e, v, cp, model, cell));
    }
  };
  const hostContainer = (e: SyntaxNode | null | undefined): boolean => !!e && !mentions(e, deviceNames) && /^(sequence|unknown|string)$/.test(model.inferValue(e, cell).kind);
  walkTypes(root, ['pair', 'set', 'set_comprehension', 'subscript', 'comparison_operator', 'call'], n => {
    if (displayed && isInside(n, displayed) && (n.type === 'pair' || n.type === 'set')) {
      return false;
    }
    if (n.type === 'call') {
      if (isIndexBuiltinCall(n, model)) {
        callArguments(n).positional.forEach(indexOperand);
      }
    } else if (n.type === 'pair') {
      copyKey(field(n, 'key'));
    } else if (n.type === 'set') {
      kids(n).forEach(copyKey);
    } else if (n.type === 'set_comprehension') {
      copyKey(field(n, 'body'));
    } else if (n.type === 'subscript') {
      const index = kids(n).slice(1).filter(k => k.type !== 'comment');
      if (index.length === 1 && hostContainer(field(n, 'value'))) {
        copyKey(index[0]);
      }
    } else {
      const operands = kids(n).filter(k => k.type !== 'comment');
      if (operands.length === 2 && /^(in|not in)$/.test(operatorOf(n)) && hostContainer(operands[1])) {
        copyKey(operands[0]);
      }
    }
    return true;
  });
  // and so would a Python container of 0-d device values that is printed or shown later
  // (`print([y.mean(), y.std()])`, `stats = {"a": y.mean()}` ... `stats`), and names unpacked
  // from a small device array (`lo, hi = cp.percentile(y, [5, 95])`) that are shown
  const containerItems = containerScalarEdits(root, model, cell, cp, e => mentions(e, deviceNames) || refs.some(r => r.action === 'cupy' && isInside(r.node, e)));
  edits.push(...containerItems.edits);
  // so would an f-string field that shows a 0-d device value's repr (`{s!r}`, `{s=}`)
  walkTypes(root, INTERPOLATION, n => {
    const expr = kids(n)[0];
    const v = expr && showsRepr(n) ? model.inferValue(expr, cell) : null;
    if (v && isZeroD(v) && mentions(expr, deviceNames)) {
      edits.push(...hostCopyAround(expr, v, cp, model, cell));
    }
    return true;
  });
  if (epilogue) {
    const lines = [...endBack, ...[...rebuilt.keys()].filter(n => !bringBack.includes(n))]
      .map(n =>
        rebuilt.has(n)
          ? `${n} = ${rebuilt.get(n)}  # SciPy's own matrix again, from the host arrays (cupyx's products sum duplicate entries in place)`
          : shared.twins.has(n)
            ? `${n} = ${shared.twins.get(n)}`
            : hostCopyLine(n, cell, model, cp)
      )
      .concat(writeBack.map(n => `${writeBackLines.get(n)}  # into the same host array: ${sharerComment(sharedWith.get(n)!)}`))
      .concat(released.length > 0 ? [`del ${released.join(', ')}`] : [])
      .concat(timed ? [`${cp}.cuda.get_current_stream().synchronize()  # the cell's time includes the GPU work it queued`] : [])
      .join('\n');
    // the lines (and a trailing call's `shown = `) go before any other insert at their offset:
    // the displayed value's own edits (`cp.asnumpy(` ... `)[()]`) wrap the value, not the lines
    const end = cell.source.trimEnd().length;
    for (const e of epilogueEdits(root, cell.source, lines, model, base => claim(freshName(base, used)), shownOnHost)) {
      if (e.start < end) {
        insertFirst(edits, e);
      } else {
        edits.push(e);
      }
    }
  }
  if (writeBack.length > 0) {
    notes.push(
      `${writeBack.map(n => `\`${n}\``).join(', ')} ${writeBack.length === 1 ? 'is' : 'are'} updated in place on a device copy and written back into the same host array at the end of the cell (${writeBack.map(n => `\`${writeBackLines.get(n)}\``).join(', ')}): ${writeBack.map(n => sharedWith.get(n)!.reason).join('; ')}. Rebinding ${writeBack.length === 1 ? 'it' : 'them'} to a new array would leave that stale.`
    );
  }
  if (rebuilt.size > 0) {
    const names = [...rebuilt.keys()].map(n => `\`${n}\``).join(', ');
    notes.push(
      `${names} ${rebuilt.size === 1 ? 'ends' : 'end'} as SciPy built ${rebuilt.size === 1 ? 'it' : 'them'}: the candidate builds ${rebuilt.size === 1 ? 'it' : 'them'} again on the host from the same host arrays at the end (SciPy's construction once more: a format check, a conversion for COO input), rather than keeping or copying back the device matrix, whose \`nnz\`, \`indices\` and \`data\` cupyx's products change in place (they sum duplicate entries).`
    );
  }
  const copiedBack = bringBack.filter(n => !rebuilt.has(n));
  if (copiedBack.length > 0) {
    notes.push(
      `${copiedBack.map(n => `\`${n}\``).join(', ')} ${copiedBack.length === 1 ? 'is' : 'are'} read by later cells, so the candidate copies ${copiedBack.length === 1 ? 'it' : 'them'} back to the host; the notebook-wide plan can keep ${copiedBack.length === 1 ? 'it' : 'them'} on the device instead.`
    );
  }
  if (randomCalls > 0) {
    notes.push('Random numbers come from cuRAND, not NumPy\'s generator: results match statistically, not bit for bit (the A/B run compares them by statistics).');
  }
  // (those a SciPy call kept on the host takes have their own note: hostLoopCallNote)
  const consumerCopies = hostCopies.count - hostCopies.copied.filter(c => s1.hostLoopCalls.some(call => isInside(c, call))).length;
  if (consumerCopies > 0) {
    const one = consumerCopies === 1;
    notes.push(`${one ? 'One host consumer' : `${consumerCopies} host consumers`} (plotting, pandas, Python builtins, a small fit or solve) ${one ? 'gets' : 'get'} a host copy with \`${cp}.asnumpy\`.`);
  }
  if (hasDeviceControlFlow(root, deviceNames, setups.map(s => s.loop))) {
    notes.push('A Python `if`/`while` tests a device value: each test waits for the GPU and copies one scalar back.');
  }
  // (not the cell's own functions the rewrite moved to CuPy: their note says so)
  // (nor calls in set-up work kept on the host: `mel2hz(mpts)` in a set-up loop's inputs)
  const setupNodes = setups.flatMap(s => [s.loop, s.made, ...s.inputs]);
  const userCalls = userFunctionCallsWithDeviceArgs(root, model, deviceNames, setupNodes).filter(n => !ownFunctions.includes(n));
  if (userCalls.length > 0) {
    notes.push(`${userCalls.map(n => `\`${n}\``).join(', ')} will receive CuPy arrays; NumPy calls inside ${userCalls.length === 1 ? 'it' : 'them'} dispatch to CuPy, other libraries may not.`);
  }

  for (const rw of sizes.edits) {
    replaceSpan(edits, rw);
  }
  return { hostCopies, bringBack, leftOnDevice, rebuilt, containerItems, copiedBack, shared };
}

/** Fusion, the stencil kernel, the prologue and the candidates (stage 6). */
function fusedCandidate(scope: CellRewrite, s1: ReturnType<typeof libraryUses>, s2: ReturnType<typeof cellArrays>, s3: ReturnType<typeof inputPlacement>, s4: ReturnType<typeof rewriteEdits>, s5: ReturnType<typeof hostSideEdits>) {
  const { cell, model, plan, root, cp, importLine, refusals, edits, imports } = scope;
  const { refs } = s1;
  const { untypedOperands, hostDrawCopies, seeded } = s2;
  const { used, claim, nanQuantileName, floorSites, floorNames, deviceNames, transfers, copiedIn, sliced } = s3;
  const { drawCopyEdits } = s4;
  // fusion: elementwise chains become one @cp.fuse() kernel each
  const resolveUfunc = (fn: SyntaxNode): string | null => {
    const q = model.qualifiedName(fn);
    return q && q.startsWith('numpy.') && q.indexOf('.', 'numpy.'.length) < 0 ? q.slice('numpy.'.length) : null;
  };
  // (not over small arrays: a kernel the cell defines compiles at its first run, ~170 ms, to save
  // launches of a few microseconds: a chain whose arrays are all known to be small stays CuPy calls)
  // (nor a full reduction run once over views a generated kernel would copy first: CuPy's calls
  // read them where they are, reductionKernelPays)
  const chains = findElementwiseChains(root, model, cell, resolveUfunc).filter(c => {
    const sizes = [c.value, ...c.params.map(p => model.inferValue(p.node, cell))].filter(v => v.kind === 'ndarray');
    return (sizes.length === 0 || sizes.some(v => v.size === undefined || v.size >= SMALL_ARRAY_ELEMENTS)) && reductionKernelPays(c, model, cell);
  }).filter(c => {
    // (nor a chain with a float % or // that only `@cp.fuse()` would take: CuPy's fusion computes
    // them as CuPy's remainder and floor_divide, one period off; a typed kernel computes them as
    // NumPy does, and unfused they are the definitions' calls: float-remainder.ts)
    return c.kernel !== null || c.reduce !== null || !floorSites.some(site => isInside(site.node, c.node));
  });
  // an exactly recognised slice stencil becomes one kernel writing the whole output
  // (every name it adds, in the loop form: buffers, grid, sizes, scalar arguments, is one this
  // cell's freshName gives: not bound, imported, written or read anywhere in the notebook; a
  // scalar argument named `stencil` gets `_arg` so that `<array>_stencil` stays the launcher's)
  const stencil = findSliceStencil(root, model, cell, base => claim(freshName(/_stencil$/.test(base) ? `${base}_arg` : base, used)));
  const inStencil = (start: number, end: number): boolean => !!stencil && start >= stencil.start && end <= stencil.end;
  let stencilName = '';
  if (stencil) {
    // the launcher function and its kernel object (`<name>_kernel`) both need free names
    stencilName = claim(freshName(`${stencil.out}_stencil`, n => used(n) || used(`${n}_kernel`)));
    claim(`${stencilName}_kernel`);
  }
  // consecutive statements whose chains make one kernel (none in the stencil's span)
  // (not over small values either, as for one chain: `delta, gamma` from a few 0-d means would
  // compile a kernel, ~170 ms, to save launches of microseconds)
  const large = (g: ChainGroup): boolean => {
    const sizes = [...g.outputs.map(o => model.valueAfter(o.name, cell)), ...g.params.map(p => model.inferValue(p.node, cell))].filter(v => v.kind === 'ndarray');
    return sizes.length === 0 || sizes.some(v => v.size === undefined || v.size >= SMALL_ARRAY_ELEMENTS);
  };
  const groups = groupChains(root, chains, model, cell, resolveUfunc).filter(g => large(g) && !g.statements.some(s => stencil && s.endIndex > stencil.start && s.startIndex < stencil.end));
  const grouped = new Set(groups.flatMap(g => g.chains));
  const kernelChains = chains.filter(c => !inStencil(c.node.startIndex, c.node.endIndex) && !grouped.has(c));
  // a host draw's comparison or cast that a kernel computes (`x * (rng.random(n) < 0.5)`: the
  // kernel's input is the draw) is not the host's: the draw itself is copied
  for (const { draw, open, close } of drawCopyEdits) {
    const spans = (start: number, end: number): boolean => open.start < end && close.end > start;
    const absorbed =
      (stencil && spans(stencil.start, stencil.end)) ||
      [...kernelChains, ...grouped].some(c => spans(c.node.startIndex, c.node.endIndex) && !c.params.some(q => open.start >= q.node.startIndex && close.end <= q.node.endIndex));
    if (absorbed) {
      open.start = open.end = draw.startIndex;
      close.start = close.end = draw.endIndex;
      hostDrawCopies.set(draw.id, draw);
    }
  }
  // float % and //: the definitions' calls, in the plain edits, where a chain's typed kernel
  // computes them these go with the chain's other edits (and in an argument the chain's call
  // evaluates outside, `(x % 3).sum()`, they stay: fuseChains' sub)
  const inKernel = (site: FloorOpSite): boolean =>
    [...kernelChains.map(c => ({ span: c.writes?.replaced ?? c.node, params: c.params })), ...groups.map(g => ({ span: null, params: g.params, g }))].some(k => {
      const [start, end] = 'g' in k && k.g ? [k.g.statements[0].startIndex, k.g.statements[k.g.statements.length - 1].endIndex] : [k.span!.startIndex, k.span!.endIndex];
      return site.node.startIndex >= start && site.node.endIndex <= end && !k.params.some(p => isInside(site.node, p.node));
    });
  const floorCalled = floorSites.filter(site => !inKernel(site));
  // (not those a kernel computes: their call's `(` and `)` at the chain's ends would stay)
  const plainEdits = floorSiteEdits(cell.source, edits, floorCalled, floorNames);
  const fused = kernelChains.length + groups.length > 0 ? fuseChains(cell.source, plainEdits, kernelChains, groups, cp, used) : { edits: [...plainEdits], definitions: [] as string[] };
  if (stencil) {
    const code = stencilCode(stencil, stencilName, n => transfers.get(n) ?? n, cp);
    replaceSpan(fused.edits, replace(stencil.start, stencil.end, code.call));
    // the copy form's set-up before its loop and result put back after it (stencil.ts CopyStep)
    fused.edits.push(...code.inserts.map(i => insert(i.at, i.text)));
    fused.definitions.push(code.definition);
  }
  if (nanQuantileName) {
    fused.definitions.push(nanQuantileDefinition(nanQuantileName, cp));
  }
  // (the fused candidate defines only those its calls use: none where kernels compute them all)
  const floorDefinitions = [...floorNames.keys()].map(op => ({ op, text: floorOpDefinition(op, floorNames, cp) }));
  fused.definitions.push(...floorDefinitions.filter(d => floorCalled.some(site => site.op === d.op || site.op === 'divmod')).map(d => d.text));
  const unfusedEdits = floorCalled.length === floorSites.length ? plainEdits : floorSiteEdits(cell.source, edits, floorSites, floorNames);
  edits.length = 0;
  edits.push(...fused.edits);

  // prologue: import and transfers, after the cell's leading imports/comments
  const prologueAt = prologueOffset(root, cell.source);
  const prologue = prologueLines(root, model, cell, cp, importLine, imports, copiedIn, sliced, new Set(untypedOperands));
  prologue.push(...seededGeneratorLines(seeded, cp));
  const hoist = plan?.hoisted !== undefined;
  if (fused.definitions.length > 0 && !hoist) {
    // a blank line separates the definitions from imports/transfers above them
    prologue.push(...(prologue.length > 0 ? [''] : []), ...fused.definitions);
  }
  if (prologue.length > 0) {
    // before any other insert at the same offset (a wrap `cp.asarray(` of the cell's first expression)
    insertFirst(edits, insert(prologueAt, prologue.join('\n') + '\n'));
  }
  const plainPrologue = hoist ? prologue : prologue.slice(0, prologue.length - fusedLines(fused.definitions, prologue));
  if (nanQuantileName && !hoist) {
    // not a fused kernel: the candidate without fusion calls it too
    plainPrologue.push(...(plainPrologue.length > 0 ? [''] : []), nanQuantileDefinition(nanQuantileName, cp));
  }
  if (floorDefinitions.length > 0 && !hoist) {
    // the candidate without fusion calls them wherever a typed kernel would have computed them
    plainPrologue.push(...(plainPrologue.length > 0 ? [''] : []), ...floorDefinitions.map(d => d.text));
  }
  if (plainPrologue.length > 0) {
    insertFirst(unfusedEdits, insert(prologueAt, plainPrologue.join('\n') + '\n'));
  }

  // the cell's own timers wait for the GPU before reading the clock
  // (each before any other insert at its line's start: a shown value's `shown = ` follows it)
  for (const sync of clockSyncEdits(root, model, refs, deviceNames, cp)) {
    insertFirst(edits, sync);
    insertFirst(unfusedEdits, sync);
  }

  let candidate: string;
  let unfusedCandidate: string;
  try {
    candidate = applyEdits(cell.source, edits);
    unfusedCandidate = applyEdits(cell.source, unfusedEdits);
  } catch (e) {
    refusals.push(`internal: ${(e as Error).message}`);
    candidate = cell.source;
    unfusedCandidate = cell.source;
  }
  return { chains, stencil, stencilName, groups, grouped, kernelChains, fused, unfusedEdits, hoist, candidate, unfusedCandidate };
}


/**
 * `edits` (a copy) with the float `%` and `//` of `sites` rewritten as calls of their
 * definitions (`names`): `x % y` -> `np_remainder(x, y)`, `x %= y` -> `x = np_remainder(x, y, out=x)`
 * (NumPy's in-place update of an array, which views of `x` see; a number rebound, as Python
 * rebinds it), `a[i] //= y` -> `a[i] = np_floor_divide(a[i], y)`;
 * a call's callee is its reference's replacement already. The edits inside the operands stay.
 * The call's `(` and `)` go inside the wraps of the whole expression (`cp.asnumpy(`...`)`) and
 * around those of an operand that starts or ends it (`cp.asarray(draw)`).
 */
function floorSiteEdits(source: string, edits: readonly TextEdit[], sites: readonly FloorOpSite[], names: ReadonlyMap<FloorDefinition, string>): TextEdit[] {
  const out = edits.slice();
  const isInsert = (e: TextEdit, at: number): boolean => e.start === at && e.end === at;
  const closes = (e: TextEdit): boolean => e.start === e.end && /^\)|\);?$/.test(e.text) && !e.text.endsWith('(');
  const opens = (e: TextEdit): boolean => e.start === e.end && e.text.endsWith('(');
  const first = (at: number): number => {
    const k = out.findIndex(e => isInsert(e, at));
    return k < 0 ? out.length : k;
  };
  // outer sites first: at one offset, an enclosing site's `name(` comes before an inner one's
  const text = (n: SyntaxNode): string =>
    applyEdits(
      source.slice(n.startIndex, n.endIndex),
      out.filter(e => e.start >= n.startIndex && e.end <= n.endIndex && !(e.start === e.end && (e.start === n.startIndex || e.start === n.endIndex))).map(e => ({ ...e, start: e.start - n.startIndex, end: e.end - n.startIndex }))
    );
  for (const { op, node, renameCallee } of sites) {
    const fn = node.type === 'call' ? field(node, 'function') : null;
    const name = names.get(op);
    if (renameCallee && fn && name) {
      replaceSpan(out, replace(fn.startIndex, fn.endIndex, name));
    }
  }
  const ordered = [...sites].filter(s => s.node.type !== 'call').sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
  for (const { op, node } of ordered) {
    const sides = siteOperands(node);
    const name = names.get(op);
    if (!sides || !name) {
      continue;
    }
    const [l, r] = sides;
    const lText = text(l);
    let opener: string | null = `${name}(`;
    let middle = ', ';
    let closer = ')';
    if (node.type === 'augmented_assignment') {
      if (l.type === 'identifier') {
        // Python's `x %= y` is `x = x.__imod__(y)`: an array updated in place (views see it) and
        // the name rebound to it, a number (no __imod__) rebound to `x % y`; the definition takes
        // `out=` only where it is an array
        opener = `${lText} = ${name}(`;
        closer = `, out=${lText})`;
      } else {
        opener = null;
        middle = ` = ${name}(${lText}, `;
      }
    }
    if (opener) {
      // inside an operand's wrap that starts the expression? then before it, else after the others
      const innerOpen = out.some(e => closes(e) && e.start > node.startIndex && e.start <= l.endIndex);
      out.splice(innerOpen ? first(node.startIndex) : out.length, 0, insert(node.startIndex, opener));
    }
    out.push(replace(l.endIndex, r.startIndex, middle));
    const innerClose = out.some(e => opens(e) && e.start >= r.startIndex && e.start < node.endIndex);
    if (innerClose) {
      out.push(insert(node.endIndex, closer));
    } else {
      out.splice(first(node.endIndex), 0, insert(node.endIndex, closer));
    }
  }
  return out;
}

/**
 * The lines that open the rewritten cell: CuPy's import (`importLine`, none in the plan), the
 * cupyx modules it uses (`imports`; `import cupyx.scipy.sparse` is added there when a sparse
 * input is converted), and each input's transfer: a CSR matrix built on the device, an
 * uninitialised device array for one the cell writes whole before reading, else a copy. A value
 * of unknown type (`untyped`: `scale = json.loads(s)["scale"]`, untypedArrayOperands) is copied
 * only when it is not a scalar at run time: a Python or NumPy scalar stays as it is, because a
 * 0-d device array is no weak scalar under NEP 50 (`x * cp.asarray(2.5)` makes a float32 `x`
 * float64, `x * 2.5` keeps it float32).
 */
function prologueLines(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  cp: string,
  importLine: string | null,
  imports: Set<string>,
  transfers: ReadonlyMap<string, string>,
  sliced: ReadonlyMap<string, SyntaxNode>,
  untyped: ReadonlySet<string>
): string[] {
  const prologue: string[] = [];
  if (importLine) {
    prologue.push(importLine);
  }
  for (const imp of imports) {
    if (imp.startsWith('import cupyx') && !model.aliases.has(imp.slice('import '.length))) {
      prologue.push(imp);
    }
  }
  for (const [name, dev] of transfers) {
    if (model.valueBefore(name, cell, 0).kind === 'sparse') {
      prologue.push(`${dev} = cupyx.scipy.sparse.csr_matrix(${name})`);
      if (!prologue.includes('import cupyx.scipy.sparse')) {
        prologue.splice(importLine ? 1 : 0, 0, 'import cupyx.scipy.sparse');
        imports.add('import cupyx.scipy.sparse');
      }
    } else if (sliced.has(name)) {
      // the only part the cell reads
      prologue.push(`${dev} = ${cp}.asarray(${sliced.get(name)!.text})`);
    } else if (writtenWholeFirst(root, name, model)) {
      // its old contents are never read: an uninitialised device array, not an upload
      prologue.push(`${dev} = ${cp}.empty(${name}.shape, dtype=${name}.dtype)`);
    } else if (untyped.has(name)) {
      prologue.push(`${dev} = ${name} if ${cp}.isscalar(${name}) else ${cp}.asarray(${name})`);
    } else {
      prologue.push(`${dev} = ${cp}.asarray(${name})`);
    }
  }
  return prologue;
}

/**
 * The device's work once chains are fused and a slice stencil is one kernel: each replaces what
 * `estimateWork` counted for its operations (per run, times the runs it counted: loop trips) by
 * its own passes and one launch. NumPy still makes every pass (`hostPasses`, set before).
 */
function fuseWork(
  work: WorkEstimate,
  largest: ValueInfo | undefined,
  kernelChains: readonly ElementwiseChain[],
  groups: readonly ChainGroup[],
  stencil: SliceStencil | null,
  model: NotebookModel,
  cell: CellModel,
  deviceNames: ReadonlySet<string>
): void {
  for (const chain of kernelChains) {
    // a fused chain reads its inputs once and writes once, in one launch
    const times = timesRun(chain.node, model, cell);
    const share = largest?.size && chain.value.size ? Math.min(1, chain.value.size / largest.size) : 1;
    // scalar parameters (`dt`, `dt * 0.5`) are kernel arguments: no pass over memory
    const arrays = chain.params.filter(p => model.inferValue(p.node, cell).kind !== 'scalar').length;
    const fusedPasses = (share * (arrays + (chain.reduction ? 0 : 1))) / 3;
    work.passes = Math.max(times * fusedPasses, work.passes - times * (chain.ops * share - fusedPasses));
    work.launches = Math.max(times, work.launches - times * (chain.ops - 1));
  }
  for (const group of groups) {
    // a group's kernel reads each input array once and writes each output once (its locals never),
    // in one launch, where its statements made a pass and a launch per operation (top-level
    // statements: run once)
    const size = group.chains[0].value.size;
    const share = largest?.size && size ? Math.min(1, size / largest.size) : 1;
    const fusedPasses = (share * (group.arrays.length + group.outputs.length)) / 3;
    work.passes = Math.max(fusedPasses, work.passes - (group.ops * share - fusedPasses));
    work.launches = Math.max(1, work.launches - (group.ops - 1));
  }
  if (stencil) {
    // one kernel reading the input once and writing the output once replaces what estimateWork
    // counted for the statements of a step (stencil.step: the operations, the rolls, the copy,
    // zeros_like, the slice assignment's copy, each a pass and a launch or part of one), which
    // NumPy still makes (hostPasses)
    const times = timesRun(stencil.expr, model, cell);
    const step = stencil.step.map(s => estimateWork(s, model, cell, deviceNames, new Map(), []).work);
    const replaced = step.reduce((sum, w) => sum + w.passes, 0);
    const launches = step.reduce((sum, w) => sum + w.launches, 0);
    // each other array the loop's step reads is one more read of the grid (`f[1:-1, 1:-1]`), two
    // of a float32 grid where it is float64, next to none where it is a broadcast row or column
    const own = (2 + stencil.reads.reduce((sum, r) => sum + r.passes, 0)) / 3;
    work.passes = Math.max(times * own, work.passes - times * (replaced - own));
    work.launches = Math.max(times, work.launches - times * (launches - 1));
    // those passes are the stencil kernel's, priced at its own measured share of the bandwidth
    work.stencilPasses = (work.stencilPasses ?? 0) + times * own;
  }
}

/** Binary operators (and augmented assignments) whose result is an array. */
function countArrayOperators(root: SyntaxNode, model: NotebookModel, cell: CellModel): number {
  let count = 0;
  walkTypes(root, OPERATORS, n => {
    if (model.inferValue(n.type === 'binary_operator' ? n : field(n, 'left') ?? n, cell).kind === 'ndarray') {
      count += 1;
    }
    return true;
  });
  return count;
}

/** Calls of array compute methods (`u.sum()`, `u.sort()`...) on arrays the rewrite puts on the device. */
function countArrayMethods(root: SyntaxNode, model: NotebookModel, cell: CellModel, deviceNames: ReadonlySet<string>): number {
  let count = 0;
  walkTypes(root, CALL, n => {
    const fn = field(n, 'function');
    const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
    const method = fn?.type === 'attribute' ? field(fn, 'attribute')?.text ?? '' : '';
    if (obj && ARRAY_COMPUTE_METHODS.has(method) && mentions(obj, deviceNames) && model.inferValue(obj, cell).kind === 'ndarray') {
      count += 1;
    }
    return true;
  });
  return count;
}

/**
 * The cell's NumPy / SciPy references, each classified (rules/arrays/mapping): the outermost
 * resolvable attribute only (`np.linalg.norm`, not `np.linalg`), imports skipped. The walk
 * passes over the other node types without making node objects for them.
 */
function libraryRefs(root: SyntaxNode, model: NotebookModel, cp: string): LibraryRef[] {
  const refs: LibraryRef[] = [];
  walkTypes(root, REF_WALK_TYPES, n => {
    const type = n.type;
    if (type === 'import_statement' || type === 'import_from_statement') {
      return false;
    }
    if (type === 'attribute' || isValueIdentifier(n)) {
      const q = model.qualifiedName(n);
      if (q && (q.startsWith('numpy.') || q.startsWith('scipy.'))) {
        refs.push(classify(n, q, cp));
        return false;
      }
    }
    return true;
  });
  return refs;
}

/** How many scipy.sparse products the cell makes: `M @ v`, `M * v`, `M.dot(v)` with a sparse operand. */
function countSparseProducts(root: SyntaxNode, model: NotebookModel, cell: CellModel): number {
  let sparseOps = 0;
  walkTypes(root, BINARY_OR_CALL, n => {
    const op = n.type === 'binary_operator' ? operatorOf(n) : null;
    if (op === '@' || op === '*') {
      const l = field(n, 'left');
      const r = field(n, 'right');
      if ((l && model.inferValue(l, cell).kind === 'sparse') || (r && model.inferValue(r, cell).kind === 'sparse')) {
        sparseOps += 1;
      }
    } else if (n.type === 'call') {
      const fn = field(n, 'function');
      const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
      if (obj && field(fn!, 'attribute')?.text === 'dot' && model.inferValue(obj, cell).kind === 'sparse') {
        sparseOps += 1;
      }
    }
    return true;
  });
  return sparseOps;
}

/**
 * What the GPU cannot hold: arrays of `names` (in order) with an object, string or structured
 * dtype, and `dtype=` arguments or `.astype(...)` calls asking for one.
 */
function dtypeRefusals(root: SyntaxNode, model: NotebookModel, cell: CellModel, names: readonly string[]): string[] {
  const refusals: string[] = [];
  for (const name of names) {
    const v = model.valueAfter(name, cell);
    if (isDeviceIncompatibleDtype(v.dtype)) {
      refusals.push(`\`${name}\` has dtype ${v.dtype}: CuPy has no object, string or structured arrays`);
    }
  }
  walkTypes(root, KEYWORD_OR_CALL, n => {
    if (n.type === 'keyword_argument' && field(n, 'name')?.text === 'dtype') {
      const value = field(n, 'value');
      const d = value ? (value.type === 'list' ? 'structured' : normaliseDtype(value.text)) : undefined;
      if (isDeviceIncompatibleDtype(d)) {
        refusals.push(`dtype=${value?.text}: CuPy has no object, string or structured arrays`);
      }
    }
    if (n.type === 'call') {
      const fn = field(n, 'function');
      if (fn?.type === 'attribute' && field(fn, 'attribute')?.text === 'astype') {
        const arg = callArguments(n).positional[0];
        if (arg && isDeviceIncompatibleDtype(normaliseDtype(arg.text))) {
          refusals.push(`.astype(${arg.text}): CuPy has no object or string arrays`);
        }
      }
    }
    return true;
  });
  return refusals;
}

/**
 * Calls of Generator methods in the cell. A Generator made here becomes CuPy's: its draws count
 * (`draws`), `rng.normal(...)` is rewritten (`rangeRewrites`: CuPy's Generator has no `normal`),
 * methods CuPy's lacks are refused. A Generator made and drawn from at once
 * (`np.random.default_rng(3).normal(...)`, its constructor among the `refs` the rewrite moves) is
 * one made here, its draw rewritten around CuPy's constructor (`cp`). A NumPy Generator made in
 * another cell stays NumPy's: a call on one of `onDevice` (`resident`: already there in the plan)
 * is refused; a draw used in an expression is copied to the device (`hostRngCalls`), through
 * the host expression that shrinks it where there is one (`hostCopies`, hostDrawCopyPoint); one
 * on its own line stays as it is.
 */
function generatorCalls(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  onDevice: readonly string[],
  resident: ReadonlySet<string>,
  refs: readonly LibraryRef[],
  cp: string,
  hostOnly: readonly SyntaxNode[]
): { draws: number; refusals: string[]; rangeRewrites: TextEdit[]; hostRngCalls: SyntaxNode[]; hostCopies: Map<number, SyntaxNode>; seeded: { rng: string; device: string; normal: boolean }[] } {
  const assignments = cell.facts!.assignments;
  const out = {
    draws: 0,
    refusals: [] as string[],
    rangeRewrites: [] as TextEdit[],
    hostRngCalls: [] as SyntaxNode[],
    hostCopies: new Map<number, SyntaxNode>(),
    /**
     * Draws of host Generators made on the device (deviceDrawFrom), each also in rangeRewrites,
     * with the name of the CuPy Generator that draws them (one per host Generator and cell).
     */
    seeded: [] as { rng: string; device: string; normal: boolean }[]
  };
  /** Host Generators (by name) whose draws here may move to the device (movableHostGenerator). */
  const movable = new Map<string, boolean>();
  walkTypes(root, CALL, n => {
    if (hostOnly.length > 0 && hostOnly.some(e => isInside(n, e))) {
      return false; // a draw kept NumPy's with what it makes (small-host-arrays.ts): not moved, not copied
    }
    const fn = field(n, 'function');
    const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
    const method = fn?.type === 'attribute' ? (field(fn, 'attribute')?.text ?? '') : '';
    const made = obj?.type === 'call' ? field(obj, 'function') : null;
    const chained = made ? refs.find(r => r.node.id === made.id && r.action === 'cupy' && r.qualified === 'numpy.random.default_rng') : undefined;
    if (chained && obj) {
      // `np.random.default_rng(3).normal(...)`: the constructor becomes CuPy's, and so its Generator
      out.draws += 1;
      const parameters = drawParameterRefusal(n, method, true, model, cell);
      if (parameters) {
        out.refusals.push(parameters);
        return true;
      }
      const seed = field(obj, 'arguments')?.text ?? '()';
      const rewritten = method === 'normal' && !/\b(np|numpy)\./.test(seed) ? normalViaStandardNormal(n, `${cp}.random.default_rng${seed}`, model, cell, cp) : null;
      if (rewritten) {
        out.rangeRewrites.push(rewritten);
      } else if (!CUPY_GENERATOR_METHODS.has(method)) {
        out.refusals.push(`cupy.random.Generator has no .${method}()${method === 'normal' ? ': write loc + scale * rng.standard_normal(size)' : ''}`);
      }
      return true;
    }
    // (not a generator, or a CuPy generator from an earlier cell: its draws are on the device already)
    const legacy = fn ? /^numpy\.random\.(\w+)$/.exec(model.qualifiedName(fn) ?? '') : null;
    if (legacy) {
      // `np.random.uniform(lo_array, hi_array)`: CuPy's legacy draw of the same name
      const parameters = drawParameterRefusal(n, legacy[1], false, model, cell);
      if (parameters) {
        out.refusals.push(parameters);
      }
      return true;
    }
    const generator = numpyGeneratorOf(n, model, cell);
    if (!fn || !obj || obj.type !== 'identifier' || !generator) {
      return true;
    }
    if (generator.madeHere) {
      out.draws += 1;
      const parameters = drawParameterRefusal(n, method, true, model, cell);
      if (parameters) {
        out.refusals.push(parameters);
        return true;
      }
      if (method === 'normal') {
        const rewritten = normalViaStandardNormal(n, obj.text, model, cell, cp);
        if (rewritten) {
          out.rangeRewrites.push(rewritten);
          return true;
        }
      }
      if (!CUPY_GENERATOR_METHODS.has(method)) {
        out.refusals.push(
          method === 'normal'
            ? 'cupy.random.Generator has no .normal(); write loc + scale * rng.standard_normal(size)'
            : `cupy.random.Generator has no .${method}()`
        );
      }
    } else {
      // a NumPy Generator made in another cell: its draw is copied to the device, but it can
      // neither take a device array nor update one in place. A call on its own line (its value
      // discarded, or displayed) stays as it is: a host draw, `rng.shuffle(v)` of a host array
      const args = field(n, 'arguments');
      const arrayArg = args ? onDevice.find(a => globalReferences(args, a).some(r => !readsMetadataOnly(r))) : undefined;
      if (arrayArg) {
        // what the rewrite does with that array: made on the device here, resident there, or copied over
        const where = assignments.some(a => a.name === arrayArg && a.at <= n.startIndex)
          ? 'would make on the device'
          : resident.has(arrayArg)
            ? 'has on the device'
            : 'would copy to the device';
        out.refusals.push(
          `\`${obj.text}.${method}(...)\` calls a NumPy Generator made in another cell on \`${arrayArg}\`, which this cell ${where} (NumPy's Generator takes no CuPy array): rewrite the cell that makes \`${obj.text}\` first, or keep this cell on the host`
        );
      } else if (n.parent?.type !== 'expression_statement') {
        const name = out.seeded.find(d => d.rng === obj.text)?.device ?? freshName(`${obj.text}_gpu`, x => takenInNotebook(x, model));
        const device = deviceDrawFrom(n, obj.text, name, method, model, cell, movable, cp);
        if (device) {
          out.draws += 1;
          out.rangeRewrites.push(device);
          out.seeded.push({ rng: obj.text, device: name, normal: method === 'normal' });
        } else {
          out.hostRngCalls.push(n);
          out.hostCopies.set(n.id, hostDrawCopyPoint(n, model, cell, new Set(onDevice), refs));
        }
      }
    }
    return true;
  });
  return out;
}

/**
 * A draw from a NumPy Generator made in another cell, drawn on the device instead:
 * `rng.standard_normal(size)` -> `rng_gpu.standard_normal(size)` (`normal` through
 * standard_normal), `device` the CuPy Generator the cell's prologue seeds from the host one
 * (`rng_gpu = cp.random.default_rng(int(rng.integers(2**63)))`, seededGeneratorLines), so a rerun of
 * the notebook draws the same numbers again and the draw never crosses PCIe. Its numbers are
 * not NumPy's (cuRAND's stream; the same distribution), as for a Generator made in the cell, and
 * the host Generator moves on by one integer, not by the draw: so only where no later cell reads
 * the Generator (its later draws stay NumPy's, bit for bit) and every use of it in this cell is
 * such a draw (movableHostGenerator). Null: the draw stays on the host and is copied over.
 */
function deviceDrawFrom(call: SyntaxNode, rng: string, device: string, method: string, model: NotebookModel, cell: CellModel, movable: Map<string, boolean>, cp: string): TextEdit | null {
  if (!movable.has(rng)) {
    movable.set(rng, movableHostGenerator(rng, model, cell));
  }
  // (a draw of one number, `rng.random()`, stays NumPy's: nothing to gain on the device)
  if (!movable.get(rng) || callArguments(call).keywords.has('out') || model.inferValue(call, cell).kind !== 'ndarray') {
    return null;
  }
  // an array parameter (`rng.poisson(lam)`) may be a host array, which CuPy's Generator does not take
  const { positional, keywords } = callArguments(call);
  const parameters = RANDOM_PARAMETERS.get(method) ?? [];
  if (parameters.some((p, k) => {
    const node = keywords.get(p) ?? positional[k];
    const kind = node ? model.inferValue(node, cell).kind : 'scalar';
    return kind === 'ndarray' || kind === 'sequence';
  })) {
    return null;
  }
  if (method === 'normal') {
    return normalViaStandardNormal(call, device, model, cell, cp);
  }
  const obj = field(field(call, 'function')!, 'object')!;
  return CUPY_GENERATOR_METHODS.has(method) ? replace(obj.startIndex, obj.endIndex, device) : null;
}

/**
 * Why a draw with an array parameter (`rng.poisson(lam)`, `np.random.uniform(lo, hi)`) cannot be
 * CuPy's (CuPy 14, cupy/random/_generator_api.pyx and _generator.py), or null: the Generator's
 * `integers` and the legacy `randint` take int bounds only (`int(low)`); the Generator's
 * `exponential` is `standard_exponential(size) * scale`, one number for the whole array when no
 * `size` is given; the legacy `uniform` draws `size` numbers (one without it) before it scales
 * them; the Generator's other draws take a CuPy array or a Python number, not a list.
 * `normal` is rewritten around `standard_normal` (normalViaStandardNormal), which gives the
 * shape itself. Draws whose parameters are all scalars (or not known) are left alone.
 */
function drawParameterRefusal(call: SyntaxNode, method: string, generator: boolean, model: NotebookModel, cell: CellModel): string | null {
  const parameters = RANDOM_PARAMETERS.get(method);
  if (!parameters) {
    return null;
  }
  const { positional, keywords } = callArguments(call);
  const values = parameters.map((p, k) => keywords.get(p) ?? positional[k]).filter((n): n is SyntaxNode => n !== undefined).map(n => model.inferValue(n, cell));
  const arrays = values.filter(v => v.kind === 'ndarray' || v.kind === 'sequence');
  if (arrays.length === 0) {
    return null;
  }
  const sized = (keywords.get('size') ?? positional[parameters.length])?.type !== undefined && (keywords.get('size') ?? positional[parameters.length])?.type !== 'none';
  const what = generator ? `cupy.random.Generator.${method}` : `cupy.random.${method}`;
  if (method === 'integers' || method === 'randint') {
    return `${what} takes integer bounds only (it calls int() on them), not arrays: the draw with array bounds stays NumPy's`;
  }
  if (generator && method === 'exponential' && !sized) {
    return `${what} with an array \`scale\` and no \`size\` draws one number for the whole array (standard_exponential(size) * scale): write rng.standard_exponential(scale.shape) * scale`;
  }
  if (!generator && method === 'uniform' && !sized) {
    return `${what} with array bounds and no \`size\` draws one number, not one per element: pass size=`;
  }
  if (generator && method !== 'uniform' && values.some(v => v.kind === 'sequence')) {
    return `${what} takes a CuPy array or a Python number as its parameters, not a list: make it an array first`;
  }
  return null;
}

/** The prologue lines that make the CuPy Generators of `seeded` (deviceDrawFrom), one per host Generator. */
function seededGeneratorLines(seeded: readonly { rng: string; device: string }[], cp: string): string[] {
  return [...new Map(seeded.map(d => [d.device, d.rng]))].map(([device, rng]) => `${device} = ${cp}.random.default_rng(int(${rng}.integers(2**63)))`);
}

/**
 * May the draws of `rng`, a Generator made in another cell, move to the device (deviceDrawFrom)?
 * Yes where it was made unseeded by `np.random.default_rng()` (a seeded one promises the same
 * numbers on every run; not a RandomState: the seed is drawn with `integers`), no later cell reads it, and every use of it in
 * this cell is a draw whose value the cell uses (`rng.standard_normal(n)`, not handed on, not on
 * a line of its own), of a method CuPy's Generator has (or `normal`), with no `out=` (a host array).
 */
function movableHostGenerator(rng: string, model: NotebookModel, cell: CellModel): boolean {
  const made = model.lastWriterBefore(rng, cell)?.facts?.assignments.filter(a => a.name === rng) ?? [];
  // an unseeded `np.random.default_rng()` only: a seed is the user's promise that the notebook
  // draws the same numbers on every run, and the results (every value computed from the draws,
  // masks and counts included) are compared with the original's by value; drawing from cuRAND
  // instead would change them all (statistically equal only), so seeded draws stay NumPy's and
  // are copied over
  const generator = (a: { value: SyntaxNode | null }): boolean => {
    const fn = a.value?.type === 'call' ? field(a.value, 'function') : null;
    const args = a.value?.type === 'call' ? callArguments(a.value) : null;
    const unseeded = !!args && args.keywords.size === 0 && (args.positional.length === 0 || (args.positional.length === 1 && args.positional[0].type === 'none'));
    return !!fn && unseeded && model.qualifiedName(fn) === 'numpy.random.default_rng';
  };
  if (made.length === 0 || !made.every(generator) || model.readersAfter(rng, cell).length > 0 || !cell.tree) {
    return false;
  }
  return globalReferences(cell.tree.rootNode, rng).every(r => {
    const attribute = r.parent?.type === 'attribute' && field(r.parent, 'object')?.id === r.id ? r.parent : null;
    const call = attribute?.parent?.type === 'call' && field(attribute.parent, 'function')?.id === attribute.id ? attribute.parent : null;
    const method = attribute ? field(attribute, 'attribute')?.text ?? '' : '';
    return !!call && call.parent?.type !== 'expression_statement' && (CUPY_GENERATOR_METHODS.has(method) || method === 'normal') && !callArguments(call).keywords.has('out');
  });
}

/**
 * Where a host draw (`rng.random((4096, 4096))`, a NumPy Generator's) is copied to the device:
 * around the host expression that shrinks it, where the draw is an operand of a comparison with
 * host numbers (`rng.random(n) < 0.3`: a bool array, an eighth of the float64 bytes), and of a
 * cast of that to a dtype no wider (`.astype(np.uint8)`); else the draw itself. Arithmetic on the
 * draw keeps its size: that runs on the device.
 */
function hostDrawCopyPoint(draw: SyntaxNode, model: NotebookModel, cell: CellModel, onDevice: ReadonlySet<string>, refs: readonly LibraryRef[]): SyntaxNode {
  const hostNumber = (e: SyntaxNode): boolean =>
    model.inferValue(e, cell).kind === 'scalar' && !mentions(e, onDevice) && !refs.some(r => r.action === 'cupy' && isInside(r.node, e));
  let at = draw;
  for (;;) {
    let p = at.parent;
    while (p?.type === 'parenthesized_expression') {
      p = p.parent;
    }
    if (p?.type === 'comparison_operator' && kids(p).every(k => unparen(k).id === at.id || hostNumber(k))) {
      at = p;
      continue;
    }
    const call = p?.type === 'attribute' && field(p, 'attribute')?.text === 'astype' && p.parent?.type === 'call' ? p.parent : null;
    const { positional, keywords } = call ? callArguments(call) : { positional: [], keywords: new Map() };
    const to = positional.length === 1 && keywords.size === 0 ? normaliseDtype(positional[0].text) : undefined;
    const from = model.inferValue(at, cell).dtype;
    if (call && to && from && itemSize(to) <= itemSize(from)) {
      at = call;
      continue;
    }
    return at;
  }
}

/**
 * Is reference `r` to an array a read of its host metadata only (`x.shape`, `x.size`, `x.ndim`,
 * `x.dtype`, `len(x)`), not of its data?
 */
function readsMetadataOnly(r: SyntaxNode): boolean {
  const p = r.parent;
  if (p?.type === 'attribute' && field(p, 'object')?.id === r.id) {
    return ARRAY_METADATA.has(field(p, 'attribute')?.text ?? '');
  }
  const call = p?.type === 'argument_list' && kids(p).length === 1 ? p.parent : null;
  const fn = call?.type === 'call' ? field(call, 'function') : null;
  return fn?.type === 'identifier' && fn.text === 'len';
}

/**
 * A Generator made here becomes CuPy's for every later cell too: a later method CuPy's lacks
 * (`rng.shuffle(u)`, `rng.choice(...)`) or a consumer other than its own draws would break.
 */
function movedGeneratorRefusals(root: SyntaxNode, refs: readonly LibraryRef[], model: NotebookModel, cell: CellModel): string[] {
  const refusals: string[] = [];
  const assignments = cell.facts!.assignments;
  const movesGenerator = refs.some(r => r.action === 'cupy' && /^numpy\.random\.(default_rng|Generator)$/.test(r.qualified));
  for (const name of movesGenerator ? new Set(assignments.map(a => a.name)) : []) {
    if (model.valueAfter(name, cell).kind !== 'rng') {
      continue;
    }
    // in this cell: a use other than its methods (checked by generatorCalls) hands CuPy's Generator on
    const created = Math.min(...assignments.filter(a => a.name === name).map(a => a.at));
    const handed = globalReferences(root, name).find(
      r => r.startIndex >= created && !(r.parent?.type === 'attribute' && field(r.parent, 'object')?.id === r.id) && !(r.parent?.type === 'assignment' && field(r.parent, 'left')?.id === r.id)
    );
    if (handed) {
      refusals.push(`\`${name}\` would become a CuPy Generator, and this cell uses it other than for a draw (\`${lineOf(root, handed)}\`), which may need NumPy's Generator`);
    }
    const problem = laterGeneratorProblem(name, cell, model);
    if (problem) {
      refusals.push(`\`${name}\` would become a CuPy Generator for later cells too, and ${problem}: keep \`${name}\` NumPy's, and draw on the device from a separate \`cp.random.default_rng(...)\``);
    }
  }
  return refusals;
}

/** Draws cast with `.astype(float32|float64)`, each rewritten to draw in that dtype (`drawInDtype`). */
function castDraws(root: SyntaxNode, model: NotebookModel, cell: CellModel, cp: string): TextEdit[] {
  const rewrites: TextEdit[] = [];
  walkTypes(root, CALL, n => {
    const rw = drawInDtype(n, model, cell, cp);
    if (rw) {
      rewrites.push(rw);
      return false;
    }
    return true;
  });
  return rewrites;
}

/**
 * Does input `name`, which the model types as a 0-d NumPy array (it models NumPy's scalar
 * results as CuPy returns them), hold a NumPy scalar when this cell runs? It does when every
 * plain binding of it in its last writer cell is NumPy arithmetic, a ufunc or a whole reduction
 * (`dt = cfl * dx / np.max(np.abs(u))`): NumPy hands a 0-d result of those back as a scalar.
 * Such an input is no array to copy: CuPy's operators, fused functions and kernels take a NumPy
 * scalar as it is (typed as NumPy types it, NEP 50), and `cp.asarray(dt)` would rebind a host
 * number to a 0-d device array that every later host use (`range`, `math.*`, f-strings, a
 * library call) receives instead. A real 0-d array (`np.asarray(s)`, `np.zeros(())`, a value the
 * kernel reports as an ndarray) is still copied: CuPy refuses NumPy arrays as operands.
 */
function heldAsNumpyScalar(name: string, cell: CellModel, model: NotebookModel): boolean {
  const v = model.valueBefore(name, cell, 0);
  if (v.kind !== 'ndarray' || v.shape?.length !== 0 || v.library !== 'numpy' || v.origin === 'runtime') {
    return false;
  }
  const writer = model.lastWriterBefore(name, cell);
  const bindings = writer?.facts?.assignments.filter(a => a.name === name && !a.augmented) ?? [];
  // (an item unpacked from a 1-D array, `lo, hi = np.percentile(y, [5, 95])`, is a NumPy scalar)
  const unpackedItem = (a: AssignmentFact): boolean => {
    const from = a.unpacked && a.unpacked.index >= 0 ? model.inferValue(a.unpacked.from, writer!) : null;
    return from?.kind === 'ndarray' && from.shape?.length === 1;
  };
  return bindings.length > 0 && bindings.every(a => !a.deleted && ((a.value !== null && makesNumpyScalar(a.value)) || unpackedItem(a)));
}

/**
 * Is `e` an expression NumPy gives a scalar for when its result is 0-d: an arithmetic or unary
 * operator, a ufunc, or a reduction (`np.max(x)`, `x.sum()`, `np.linalg.norm(v)`, `np.dot(a, b)`)
 * without `out=` (which returns the array it writes). Constructors (`np.asarray`, `np.zeros`),
 * views (`reshape`, `squeeze`) and `np.where` give a 0-d array instead.
 */
function makesNumpyScalar(e: SyntaxNode): boolean {
  const u = unparen(e);
  if (u.type === 'binary_operator' || u.type === 'unary_operator') {
    return true;
  }
  if (u.type !== 'call') {
    return false;
  }
  const fn = field(u, 'function');
  const name = fn?.type === 'attribute' ? field(fn, 'attribute')?.text : fn?.type === 'identifier' ? fn.text : undefined;
  return name !== undefined && !callArguments(u).keywords.has('out') && (WHOLE_REDUCTIONS.has(name) || SCALAR_PRODUCTS.has(name) || NUMPY_UFUNC_NIN.has(name));
}

/**
 * Is `e` arithmetic on host numbers only: its names are NumPy scalar inputs (heldAsNumpyScalar),
 * names the cell bound so before (`hostScalars`), other inputs the model types as scalars, and
 * modules (`np.pi`), and each call in it gives a scalar (`float(k)`, `np.float32(0.5)`)? NumPy's
 * result is a scalar, which the rewrite leaves on the host. A call that gives an array
 * (`np.sqrt(dt)`, which becomes `cp.sqrt(dt)`), an element of an array (`u[0]`), a name the
 * cell bound otherwise, or one the plan keeps on the device (`resident`: a 0-d result an earlier
 * GPU cell left there) may be a device value.
 */
function hostScalarArithmetic(e: SyntaxNode, model: NotebookModel, cell: CellModel, hostScalars: ReadonlySet<string>, resident?: ReadonlySet<string>): boolean {
  let host = true;
  walk(e, n => {
    if (!host) {
      return false;
    }
    if (n.type === 'call' && model.inferValue(n, cell).kind !== 'scalar') {
      host = false;
    } else if (n.type === 'subscript') {
      host = false;
    } else if (n.type === 'identifier' && isValueIdentifier(n) && !hostScalars.has(n.text) && !(n.parent?.type === 'call' && field(n.parent, 'function')?.id === n.id)) {
      const boundHere = cell.facts!.assignments.some(a => a.name === n.text && a.at <= n.startIndex);
      const kind = model.inferValue(n, cell).kind;
      host = !boundHere && !resident?.has(n.text) && (kind === 'scalar' || kind === 'module' || kind === 'function' || heldAsNumpyScalar(n.text, cell, model));
    }
    return true;
  });
  return host;
}

/** NumPy functions that give a scalar for 1-d operands (products, norms, determinants). */
const SCALAR_PRODUCTS = new Set(['dot', 'vdot', 'inner', 'trace', 'norm', 'det']);

/** Where each host array input of a cell goes on the device (`placeInputs`). */
interface InputPlacement {
  /** Input -> its device name: a fresh `<name>_gpu` copy, or the name itself (rebound). */
  transfers: Map<string, string>;
  rebound: Set<string>;
  /** Updated in place on a device copy and written back into the same host array at the end. */
  writeBack: string[];
  /** Stay host arrays (another name may share their memory): the cell works on a device copy. */
  hostKept: Set<string>;
  /** Per written-back name: what else sees its host array (for the comment and the note). */
  sharedWith: Map<string, MemorySharer>;
  /** The inputs used in device work, in order. */
  onDevice: string[];
  /** Read-only inputs read only through one basic index: name -> one of those subscripts (basicPart). */
  sliced: Map<string, SyntaxNode>;
  /** Inputs read through a device copy an earlier cell made (`ResidencyContext.deviceCopies`): in `transfers` for the renames, never copied. */
  copied: Set<string>;
  refusals: string[];
}

/**
 * Which host array inputs are used on the device, and how: read-only ones get a device copy
 * under a fresh name; one the cell rebinds or updates is rebound to its device array (in the
 * plan, for the rest of the notebook); one another name may share (aliases.ts) and the cell (or,
 * in the plan, a later one) updates in place stays a host array, updated on a device copy and
 * written back. One read only by host code (bare, in `hostConsumerArgs`) or in a cupyx call's host
 * parameters (`hostParams`: `shift=-est[k]`) stays on the host. `fresh` gives (and claims) a name
 * not taken in the notebook.
 */
function placeInputs(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  arrayInputs: readonly string[],
  hostConsumerArgs: readonly SyntaxNode[],
  hostParams: readonly SyntaxNode[],
  fresh: (base: string) => string,
  plan: ResidencyContext | undefined,
  untyped: ReadonlySet<string>,
  functionReads: ReadonlySet<string> = new Set(),
  hostRead: ReadonlySet<number> = new Set()
): InputPlacement {
  const facts = cell.facts!;
  const out: InputPlacement = { transfers: new Map(), rebound: new Set(), writeBack: [], hostKept: new Set(), sharedWith: new Map(), onDevice: [], sliced: new Map(), copied: new Set(), refusals: [] };
  for (const name of arrayInputs) {
    const refsToName = globalReferences(root, name);
    const deviceUses = refsToName.filter(
      r => !hostConsumerArgs.some(arg => isInside(r, arg) && (isBareOrHostSafe(arg, name) || hostRead.has(arg.id))) && !hostParams.some(arg => isInside(r, arg))
    );
    if (deviceUses.length === 0 && !functionReads.has(name)) {
      continue;
    }
    // on the device already, under another name (the plan passes none this cell changes)
    const copy = plan?.deviceCopies?.get(name);
    if (copy !== undefined) {
      out.transfers.set(name, copy);
      out.copied.add(name);
      out.onDevice.push(name);
      continue;
    }
    if (untyped.has(name)) {
      // a value of unknown type: a copy under a fresh name, never rebound (no later cell, nor
      // the plan, knows it as a device array)
      out.transfers.set(name, fresh(`${name}_gpu`));
      out.onDevice.push(name);
      continue;
    }
    // Host aliases (aliases.ts): rebinding `name` to a device array would leave every other
    // holder of its host memory (`v = u`, a view, a list...) stale once the array is updated in
    // place, by this cell or (in the plan, where the name would stay on the device) a later one
    const updated = updatedInCell(root, name, facts.mutates, model);
    // `u += 1` binds `u` to the same (updated) array; `u = u * 2` to a new one
    const bindings = facts.assignments.filter(a => a.name === name);
    const rebinds = facts.writes.has(name) && (bindings.length === 0 || bindings.some(a => !a.augmented));
    const sharers = (updated || plan) && (updated || !rebinds) ? memorySharers(name, cell, model) : [];
    if (sharers.length > 0 && (updated || updatedFrom(name, sharers, cell.index, model))) {
      const stale = sharers.find(s => s.name !== null && s.name !== name && facts.reads.has(s.name));
      if (functionReads.has(name)) {
        out.refusals.push(`${sharers[0].reason}, and a notebook function this cell runs on device arrays reads \`${name}\` as a global: it would find the host array beside the cell's device copy (a TypeError on CuPy), and rebinding \`${name}\` would leave the other holder stale`);
      } else if (updated && rebinds) {
        out.refusals.push(`${sharers[0].reason}: this cell both updates \`${name}\` in place and rebinds it, so no write-back into the host array keeps that in step; updating a device copy would leave it stale`);
      } else if (updated && stale) {
        out.refusals.push(`${stale.reason}, and this cell reads \`${stale.name}\`: updating a device copy of \`${name}\` would leave \`${stale.name}\` stale within the cell`);
      }
      if (updated) {
        // the device copy's result goes back into the same host array, at the end of the cell
        out.writeBack.push(name);
        out.sharedWith.set(name, sharers[0]);
      }
      out.hostKept.add(name);
      out.transfers.set(name, fresh(`${name}_gpu`));
    } else if (plan?.keepOnHost?.has(name) && !facts.writes.has(name) && !updated && !functionReads.has(name)) {
      // in the plan, a copy under a fresh name that stays for later GPU cells: the name keeps its
      // host array for later host cells (read whole by those GPU cells: never a part)
      out.transfers.set(name, fresh(`${name}_gpu`));
    } else if (plan || facts.writes.has(name) || updated || functionReads.has(name)) {
      // rebinding: the name now holds the device array (in the plan, for the rest of the
      // notebook; a function reading it as a global finds the device array)
      out.rebound.add(name);
      out.transfers.set(name, name);
    } else {
      out.transfers.set(name, fresh(`${name}_gpu`));
      const part = basicPart(name, deviceUses, model, cell);
      if (part) {
        out.sliced.set(name, part);
      }
    }
    out.onDevice.push(name);
  }
  return out;
}

/**
 * The one part of read-only input `name` that all its device `uses` read (`traj[:, -1]`, `a[2:]`,
 * `x[k0]`; its metadata, `traj.shape`, aside), where that is a basic index (integers, slices,
 * `...`, scalars the cell does not rebind: a view, the same each time) of a known size at most
 * half the array's: only that part need be copied to the device. Else null.
 */
function basicPart(name: string, uses: readonly SyntaxNode[], model: NotebookModel, cell: CellModel): SyntaxNode | null {
  const parts = uses.filter(r => !readsMetadataOnly(r)).map(r => (r.parent?.type === 'subscript' && field(r.parent, 'value')?.id === r.id ? r.parent : null));
  const first = parts[0];
  const indexText = (sub: SyntaxNode): string => cell.source.slice(field(sub, 'value')!.endIndex, sub.endIndex).replace(/\s+/g, '');
  if (!first || parts.some(p => !p || indexText(p) !== indexText(first))) {
    return null;
  }
  let basic = true;
  for (const k of kids(first).slice(1)) {
    walk(k, n => {
      if (n.type === 'identifier') {
        basic &&= !cell.facts!.writes.has(n.text) && model.valueBefore(n.text, cell, 0).kind === 'scalar';
      } else if (!['slice', 'integer', 'unary_operator', 'ellipsis', 'comment'].includes(n.type) && n.isNamed) {
        basic = false;
      }
      return basic;
    });
  }
  const whole = model.valueBefore(name, cell, 0);
  const part = model.inferValue(first, cell);
  // a part as large as half the array or more (a stencil's interior, `f[1:-1, 1:-1]`) is copied
  // whole: one contiguous copy, not a host gather of most of it
  return basic && part.kind === 'ndarray' && part.size !== undefined && whole.size !== undefined && part.size * 2 <= whole.size ? first : null;
}

/**
 * Inputs of unknown type (`img = pickle.load(f)`) that are a bare operand of an arithmetic or
 * comparison operator whose other side reads the cell's arrays (`img - ref`): they are copied to
 * the device. Not one the cell rebinds or updates (what it holds after the cell would be
 * unknown), nor a typed one (`typed`).
 */
function untypedArrayOperands(root: SyntaxNode, model: NotebookModel, cell: CellModel, arrays: ReadonlySet<string>, typed: (name: string) => boolean): string[] {
  const facts = cell.facts!;
  return [...facts.inputs].filter(name => {
    if (typed(name) || arrays.has(name) || facts.writes.has(name) || facts.mutates.has(name) || !model.writers(name).some(w => w.index < cell.index)) {
      return false;
    }
    return globalReferences(root, name).some(r => {
      const op = r.parent;
      if (op?.type !== 'binary_operator' || !(ARITH_OPS.has(operatorOf(op)) || COMPARE_OPS.has(operatorOf(op)))) {
        return false;
      }
      const other = field(op, 'left')?.id === r.id ? field(op, 'right') : field(op, 'left');
      return !!other && other.id !== r.id && mentions(other, arrays);
    });
  });
}

/** Python's number constructors and builtins that give a Python number. */
const PYTHON_NUMBER_BUILTINS: ReadonlySet<string> = new Set(['int', 'float', 'complex', 'bool', 'len', 'ord']);
/**
 * Every function of math and cmath gives a number but frexp, modf and polar (tuples); of random,
 * time and statistics only these do. random.choice and statistics.mode give an item of the data
 * (any type), random.sample and random.choices a list, statistics.quantiles a list: those are
 * untyped operands like any call (untypedCallOperands).
 */
const PYTHON_NUMBER_FUNCTIONS = new RegExp(
  [
    '^(math|cmath)\\.(?!(frexp|modf|polar)$)\\w+$',
    '^random\\.(random|uniform|triangular|randint|randrange|getrandbits|betavariate|binomialvariate|expovariate|gammavariate|gauss|lognormvariate|normalvariate|vonmisesvariate|paretovariate|weibullvariate)$',
    '^time\\.(time|perf_counter|monotonic|process_time|thread_time)(_ns)?$',
    '^statistics\\.(mean|fmean|geometric_mean|harmonic_mean|median|median_low|median_high|median_grouped|pstdev|pvariance|stdev|variance|covariance|correlation)$'
  ].join('|')
);

/** Whether callee `fn` gives a Python number whatever its arguments (`complex(dt, 0.5)`, `math.exp(x)`). */
function pythonNumberCall(fn: SyntaxNode, model: NotebookModel): boolean {
  if (fn.type === 'identifier' && PYTHON_NUMBER_BUILTINS.has(fn.text)) {
    return true;
  }
  const q = model.qualifiedName(fn);
  return !!q && PYTHON_NUMBER_FUNCTIONS.test(q);
}

/**
 * The Python functions that give a list (random.sample, random.choices): never a number, so
 * copying one to the device where it meets a device array is exact whatever that array's dtype
 * (NumPy and CuPy make the same int64 or float64 array of it).
 */
const PYTHON_LIST_FUNCTIONS: ReadonlySet<string> = new Set(['random.sample', 'random.choices']);

/** dtypes a Python number promotes to as a 0-d array does: copying one to the device changes nothing. */
const PYTHON_NUMBER_SAFE_DTYPES: ReadonlySet<string> = new Set(['bool', 'int64', 'float64', 'complex128']);

/**
 * Calls whose value the analysis cannot type (a notebook function returning pickle.load's data,
 * an object's method) that are a bare operand of an arithmetic or comparison operator whose other
 * side reads the cell's arrays or a rewritten call (`load_frame(p) - ref`): NumPy's array meeting
 * CuPy's is a TypeError, so the call's value is copied to the device where it stands
 * (`cp.asarray(load_frame(p))`; a list too). The call runs once, so the `isscalar` form the
 * prologue uses for names (prologueLines) is not open to it: a Python number made a 0-d device
 * array is no weak scalar under NEP 50, which is exact only where the other side is bool, int64,
 * float64 or complex128 (what the number promotes to anyway). Elsewhere (a float32 `ref`) the
 * cell is refused. A call known to give a list (PYTHON_LIST_FUNCTIONS) is copied whatever the
 * other side's dtype. A name the cell bound to such a call (untypedLocalCall) is copied where it
 * is an operand, as the call would be, and keeps its host value elsewhere. Calls in a def or
 * lambda (their names are locals), calls giving a Python number (pythonNumberCall) and calls
 * handed the cell's device arrays are not looked at.
 */
function untypedCallOperands(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  arrays: ReadonlySet<string>,
  refs: readonly LibraryRef[]
): { copied: SyntaxNode[]; refusals: string[] } {
  const out = { copied: [] as SyntaxNode[], refusals: [] as string[] };
  const onDevice = (e: SyntaxNode): boolean => mentions(e, arrays) || refs.some(r => r.action === 'cupy' && isInside(r.node, e));
  walkTypes(root, ['binary_operator', 'comparison_operator', 'function_definition', 'lambda'], op => {
    if (op.type === 'function_definition' || op.type === 'lambda') {
      return false;
    }
    if (op.type === 'binary_operator' && !ARITH_OPS.has(operatorOf(op))) {
      return true;
    }
    const operands = op.type === 'binary_operator' ? [field(op, 'left'), field(op, 'right')].filter((o): o is SyntaxNode => !!o) : kids(op).filter(k => k.type !== 'comment');
    for (const operand of operands) {
      const bare = unparen(operand);
      // a name the cell bound to such a call (`frame = load_frame(p)`, then `frame - ref`) is
      // copied where it is an operand, as the call would be: the name keeps the host value
      const local = bare.type === 'identifier' ? untypedLocalCall(bare, model, cell) : null;
      const call = local ?? bare;
      const fn = call.type === 'call' ? field(call, 'function') : null;
      if (!fn || refs.some(r => isInside(r.node, fn)) || model.inferValue(call, cell).kind !== 'unknown' || out.copied.some(c => c.id === bare.id) || pythonNumberCall(fn, model)) {
        continue;
      }
      // a notebook function handed the cell's device arrays (`decimate(sig_gpu, 2)`) computes
      // with them: its value is taken to be on the device, as the note on such calls says
      const args = field(call, 'arguments');
      if (args && onDevice(args)) {
        continue;
      }
      const others = operands.filter(o => o.id !== operand.id && onDevice(o));
      if (others.length === 0) {
        continue;
      }
      const q = model.qualifiedName(fn);
      const list = !!q && PYTHON_LIST_FUNCTIONS.has(q);
      const unsafe = list ? undefined : others.map(o => model.inferValue(o, cell)).find(v => v.kind !== 'ndarray' || v.dtype === undefined || !PYTHON_NUMBER_SAFE_DTYPES.has(v.dtype));
      if (unsafe) {
        const what = local ? `\`${bare.text}\` (\`${clip(call.text)}\`)` : `\`${clip(call.text)}\``;
        out.refusals.push(
          `${what} gives a value the analysis cannot type and meets device arrays${unsafe.dtype ? ` of ${unsafe.dtype}` : ''} in \`${operatorOf(op)}\`: a NumPy array there is a TypeError on CuPy, and a Python number copied to the device would change the result's dtype; bind it in a cell of its own (\`${local ? bare.text : 'v'} = ${clip(call.text)}\`) so this cell copies it only where it is an array`
        );
      } else {
        out.copied.push(bare);
      }
    }
    return true;
  });
  return out;
}

/**
 * The call whose value name `n` holds where it is read, when the cell bound it so at top level
 * (`frame = load_frame(p)`) and binds it nowhere inside a loop, branch or function, nor updates
 * it: what reaches `n` is that call's value. Else null.
 */
function untypedLocalCall(n: SyntaxNode, model: NotebookModel, cell: CellModel): SyntaxNode | null {
  const facts = cell.facts!;
  if (facts.localIds.has(n.startIndex)) {
    return null; // a comprehension's or lambda's own name
  }
  const bindings = facts.assignments.filter(a => a.name === n.text);
  const reaching = bindings.filter(a => a.at <= n.startIndex).pop();
  const value = reaching?.value ? unparen(reaching.value) : null;
  if (!value || value.type !== 'call' || bindings.some(a => a.nested || a.augmented) || facts.mutates.has(n.text) || model.inferValue(n, cell).kind !== 'unknown') {
    return null;
  }
  return value;
}

/**
 * Host copies for host consumers (plotting, pandas, Python builtins: `hostConsumerArgs`, each
 * with what it needs, hostArgumentNeed) of array values the rewrite keeps on the device, and for loops iterating over a device array
 * (one small copy per element otherwise): the edits, how many copies, and each copy's bytes and
 * edits (in the order of `copied`).
 */
function hostCopyEdits(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  cp: string,
  hostConsumerArgs: ReadonlyMap<SyntaxNode, 'copy' | 'as-is' | 'host'>,
  names: {
    deviceNames: ReadonlySet<string>;
    /** Device arrays under their own name (made in the cell, or rebound to the device). */
    localDevice: ReadonlySet<string>;
    /** Inputs read through a device copy under another name. */
    transferredReadOnly: ReadonlySet<string>;
    writeBack: readonly string[];
  }
): { edits: TextEdit[]; count: number; copiedBytes: number[]; copied: SyntaxNode[]; copyEdits: TextEdit[][]; carried: string[] } {
  const out = { edits: [] as TextEdit[], count: 0, copiedBytes: [] as number[], copied: [] as SyntaxNode[], copyEdits: [] as TextEdit[][], carried: [] as string[] };
  for (const [arg, need] of hostConsumerArgs) {
    const v = model.inferValue(arg, cell);
    if (need === 'as-is') {
      continue;
    }
    if (need === 'host') {
      // a lambda or an object reading a device array made here: host code would get it
      out.carried.push(...[...names.localDevice].filter(n => globalReferences(arg, n).length > 0));
      continue;
    }
    if (
      mentions(arg, names.localDevice) ||
      (mentions(arg, names.transferredReadOnly) && (!isBareOrHostSafe(arg, arg.text) || names.writeBack.includes(arg.text)))
    ) {
      const copy = hostCopyAround(arg, v, cp, model, cell);
      out.edits.push(...copy);
      out.copyEdits.push(copy);
      out.copied.push(arg);
      out.count += 1;
      out.copiedBytes.push(v.kind === 'ndarray' && v.size !== undefined ? v.size * itemSize(v.dtype) : 0);
    }
  }
  // iterating over a 1-D device array in Python (a loop, a comprehension's clause): one small
  // copy per element, and each item a 0-d device array where NumPy gives a host scalar (a slice
  // bound `x[:, lag:]` then waits for the device); iterate on the host. The rows of a 2-D array
  // stay device arrays: copied, each would be a NumPy row meeting device data (`cp.dot(row, w)`).
  // An array of a shape not known here is mostly 1-D (np.unique, x[mask], np.nonzero(...)[0])
  walkTypes(root, PYTHON_ITERATION, n => {
    const right = field(n, 'right');
    const v = right && mentions(right, names.localDevice) ? model.inferValue(right, cell) : undefined;
    if (right && v?.kind === 'ndarray' && (v.shape === undefined || v.shape.length === 1)) {
      out.edits.push(insert(right.startIndex, `${cp}.asnumpy(`), insert(right.endIndex, ')'));
    }
    return true;
  });
  return out;
}

/**
 * Is `arg` all of array `name` as a host consumer receives it: the array itself, or a view or
 * copy of all its elements, also a chain of them (`R.ravel()`, `R.T`, `R.reshape(-1)`,
 * `R.astype(float).T`: aliases.ts WHOLE_VIEW_METHODS, WHOLE_COPY_METHODS, WHOLE_VIEW_ATTRIBUTES)?
 * A copy of such an argument moves the whole array, so a host copy of the array costs no more.
 */
export function readsWhole(arg: SyntaxNode, name: string): boolean {
  return wholeArrayName(arg)?.text === name;
}

/**
 * The array's name in an argument that is all of it (`R`; `R.ravel()`, `(R.T).copy()`: `R`), or
 * null: the name under a chain of methods and attributes that each keep every element.
 */
function wholeArrayName(arg: SyntaxNode): SyntaxNode | null {
  const u = unparen(arg);
  if (u.type === 'identifier') {
    return u;
  }
  if (u.type === 'attribute') {
    const obj = field(u, 'object');
    return obj && WHOLE_VIEW_ATTRIBUTES.has(field(u, 'attribute')?.text ?? '') ? wholeArrayName(obj) : null;
  }
  const fn = u.type === 'call' ? field(u, 'function') : null;
  const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
  const method = fn?.type === 'attribute' ? field(fn, 'attribute')?.text ?? '' : '';
  return obj && (WHOLE_VIEW_METHODS.has(method) || WHOLE_COPY_METHODS.has(method)) ? wholeArrayName(obj) : null;
}

/**
 * The host copies that SciPy calls kept on the host among device work take (libraryUses'
 * hostLoopCalls: `find_peaks(cp.asnumpy(env_s), distance=50)`), made once where the cell would
 * copy the same array back again: SciPy gets it by name, and
 * - the end of the cell, which brings the array back for later cells (`bringBack`), reuses it:
 *   where nothing after the call reads the array but such calls, the cell's own
 *   `env_s = cp.asnumpy(env_s)` moves up before the call (`moved`), else the copy is bound to a
 *   fresh `env_s_host` (the host-copy name of plan.ts hostBoundary) and the end binds
 *   `env_s = env_s_host`;
 * - in the plan, where a later cell reads the array: `env_s_host`, which later host cells read
 *   while the array stays unchanged (`twins`, registered by plan.ts as a host cell's copy);
 * - a second such call on the array reads the first one's copy (`reused`: not copied again).
 * The copies of host consumers get the same: in the plan, `pd.DataFrame({"flux": flux})` binds
 * `flux_host` before the statement where a later host cell reads flux (one copy, not two); in a
 * cell's own suggestion, a consumer of an array the end of the cell brings back gets the moved-up
 * copy back (`y = cp.asnumpy(y)` before `plt.plot(y)`) or `y_host`, which the end binds; and in
 * both, two consumers of one array in the cell (`plt.plot(y)`, `plt.hist(y)`) share one copy.
 * Only a bare device array under its own name (`localDevice`; not 0-d, no other edit on it) handed
 * to calls in top-level statements, which nothing after the first of them changes (rebinds,
 * updates in place, reads in a function or lambda): the copy is then the array's value at the end
 * of the cell. The copy edits of `hostCopies` are replaced in
 * `edits`, and the second and later copies of one array leave `hostCopies` (charged once).
 */
function sharedHostCallCopies(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  cp: string,
  inPlan: boolean,
  hostLoopCalls: readonly SyntaxNode[],
  hostCopies: ReturnType<typeof hostCopyEdits>,
  bringBack: readonly string[],
  localDevice: ReadonlySet<string>,
  edits: TextEdit[],
  fresh: (base: string) => string
): { moved: Set<string>; twins: Map<string, string>; reused: Map<number, string[]> } {
  const out = { moved: new Set<string>(), twins: new Map<string, string>(), reused: new Map<number, string[]>() };
  // the top-level statement running `call` unconditionally (none inside a lambda), or null
  const statementOf = (call: SyntaxNode): SyntaxNode | null => {
    let n = call;
    for (; n.parent && n.parent.id !== root.id; n = n.parent) {
      if (/^(lambda|function_definition|class_definition|block|generator_expression|list_comprehension|set_comprehension|dictionary_comprehension)$/.test(n.parent.type)) {
        return null;
      }
    }
    return n.parent && n.type === 'expression_statement' ? n : null;
  };
  const groups = new Map<string, { arg: SyntaxNode; ref: SyntaxNode; call: SyntaxNode; stmt: SyntaxNode; k: number }[]>();
  hostCopies.copied.forEach((arg, k) => {
    // a host consumer's copy too, keyed by the copied argument: in the plan where a later host
    // cell reads the array (`pd.DataFrame({"flux": flux})`: k_audio), and in a cell's own
    // suggestion where a second consumer takes it (`plt.plot(y)`, `plt.hist(y)`) or the end of
    // the cell copies it back for later cells
    const call = hostLoopCalls.find(c => isInside(arg, c)) ?? arg;
    const stmt = call ? statementOf(call) : null;
    // the array's name where the argument is all of it (`R`, or `R.ravel()`, `R.T`: `readsWhole`),
    // which the shared copy's name replaces
    const ref = wholeArrayName(arg);
    const v = ref ? model.inferValue(ref, cell) : null;
    // (a device array under its own name, which no other edit touches: `cp.asnumpy(` ... `)` only)
    const own = ref !== null && localDevice.has(ref.text) && edits.every(e => hostCopies.copyEdits[k].includes(e) || e.end < arg.startIndex || e.start > arg.endIndex);
    if (call && stmt && own && v?.kind === 'ndarray' && !isZeroD(v)) {
      groups.set(ref.text, [...(groups.get(ref.text) ?? []), { arg, ref, call, stmt, k }]);
    }
  });
  const dropped: number[] = [];
  // one copy for `group` (consumers of `name` in order), where nothing changes the array between
  // them; false when none may be made
  const share = (name: string, group: readonly { arg: SyntaxNode; ref: SyntaxNode; call: SyntaxNode; stmt: SyntaxNode; k: number }[]): boolean => {
    const first = group[0].stmt;
    const handed = new Set(group.map(g => g.ref.id));
    const after = globalReferences(root, name).filter(r => r.startIndex >= first.startIndex && !handed.has(r.id));
    // notebook functions of other cells called from the first call on that read `name` as a
    // global (`resid = sub(env)`, `def sub(a): return a - env_s`): a read after the call, where
    // the array must still be the device one (no copy back moved up before the call); one that
    // may change it (`clear_start()`, `def clear_start(): env_s[:1000] = 0.0`) changes it
    const viaFunctions = calledNotebookFunctions(root, cell, model, call => call.startIndex >= first.startIndex).map(f => f.fn).filter(d => globalReferences(d, name).length > 0 || declaresGlobal(d, name));
    // may the array change from the first consumer's statement on, before `to`? (what the plan
    // counts as changing a host copy's array: changedWithin; the consumers' own reads left out)
    const changedBefore = (to: number): boolean => changedWithin(root, cell, model, name, first.startIndex, to, r => handed.has(r.id));
    const changed = changedBefore(Infinity);
    const back = !inPlan && bringBack.includes(name);
    const later = inPlan && model.readersAfter(name, cell).length > 0;
    // (changed only after its last consumer: they still share one copy, and the end of the cell
    // or a later host cell copies the new value)
    const lastStart = group[group.length - 1].stmt.startIndex;
    const sharedOnly = changed && group.length >= 2 && !changedBefore(lastStart);
    if ((changed && !sharedOnly) || (group.length < 2 && !back && !later)) {
      return false;
    }
    const line = hostCopyLine(name, cell, model, cp);
    const moveUp = !sharedOnly && back && after.length === 0 && viaFunctions.length === 0 && line === `${name} = ${cp}.asnumpy(${name})`;
    const host = moveUp ? name : fresh(`${name}_host`);
    edits.push(insert(first.startIndex, `${moveUp ? line : `${host} = ${cp}.asnumpy(${name})`}\n`));
    for (const g of group) {
      for (const e of hostCopies.copyEdits[g.k]) {
        const at = edits.indexOf(e);
        if (at >= 0) {
          edits.splice(at, 1);
        }
      }
      if (!moveUp) {
        edits.push(replace(g.ref.startIndex, g.ref.endIndex, host));
      }
      if (g !== group[0]) {
        dropped.push(g.k);
        out.reused.set(g.call.id, [...(out.reused.get(g.call.id) ?? []), host]);
      }
    }
    if (moveUp) {
      out.moved.add(name);
    } else if (!sharedOnly) {
      out.twins.set(name, host);
    }
    return true;
  };
  // (where the array changes between its consumers, those after the last change share one copy:
  // `plt.plot(w)`, `w /= w.max()`, `plt.hist(w)` copies w for the plot, then once for the
  // histogram and the end of the cell)
  for (const [name, group] of groups) {
    for (let k = 0; k < group.length && !share(name, group.slice(k)); k++) {
      // a later suffix
    }
  }
  for (const k of dropped.sort((a, b) => b - a)) {
    hostCopies.copied.splice(k, 1);
    hostCopies.copiedBytes.splice(k, 1);
    hostCopies.copyEdits.splice(k, 1);
    hostCopies.count -= 1;
  }
  return out;
}

/**
 * May running function `def` change module-level `name` (rebind it under `global`, update it in
 * place, or let something else keep or change it: an escaping use, a lambda reading it)?
 */
function functionMayChange(def: SyntaxNode, name: string, model: NotebookModel): boolean {
  return declaresGlobal(def, name) || globalReferences(def, name).some(r => inPlaceUpdate(r, model) !== null || escapingUse(r, model) !== null || insideFunction(r, ['lambda']));
}

/** Does function `def` declare `global name` (anywhere in its body, not in a nested scope)? */
function declaresGlobal(def: SyntaxNode, name: string): boolean {
  let found = false;
  walk(field(def, 'body') ?? def, n => {
    if (found || SCOPES.has(n.type)) {
      return false;
    }
    if (n.type === 'global_statement' && kids(n).some(k => k.type === 'identifier' && k.text === name)) {
      found = true;
    }
    return !found;
  });
  return found;
}

/**
 * `x = cp.asnumpy(x)` makes a new host array: what the cell made share `x` (`v = x`,
 * `d = {"x": x}`, a call that may keep it) keeps the device array, told apart once a later cell
 * updates either. Refuses bringing back any of `names` so shared.
 */
function sharedBringBackRefusals(root: SyntaxNode, model: NotebookModel, cell: CellModel, names: Iterable<string>): string[] {
  const refusals: string[] = [];
  for (const name of names) {
    const escapes = globalReferences(root, name).map(r => escapingUse(r, model)).filter(e => e !== null);
    const holders = [name, ...escapes.flatMap(e => (e.named ? e.holders : []))];
    if (escapes.length > 0 && updatedInPlaceAfter(holders, cell, model)) {
      const e = escapes[0];
      const holder = e.holders[0];
      const how =
        e.kind === 'alias'
          ? `\`${holder}\` shares \`${name}\`'s memory in this cell`
          : e.kind === 'container'
            ? `\`${name}\` is kept in \`${holder}\` in this cell`
            : e.kind === 'call'
              ? `\`${name}\` is passed to \`${holder}\` in this cell, which may keep it,`
              : `\`${name}\` is returned by \`${holder}\` in this cell`;
      refusals.push(`${how} and a later cell updates it in place: bringing \`${name}\` back to the host makes a copy that \`${holder}\` does not share`);
    }
  }
  return refusals;
}

/**
 * `M = cupyx.scipy.sparse.csr_matrix(...)` (a top-level assignment) is followed by
 * `M.sum_duplicates()`: a matrix with duplicate entries (SciPy allows them) is otherwise sorted
 * and merged inside its first product, and again in every fresh copy of it (measured on the H200:
 * 28 ms for 20M non-zeros, where the product itself takes 0.22 ms). Once, where it is built,
 * and only when nothing after it (later in the cell, or a later cell) reads the attributes that
 * merging duplicates changes (`nnz`, `data`, `indices`, `indptr`, `has_canonical_format`).
 */
function canonicalAtConstruction(root: SyntaxNode, refs: LibraryRef[], model: NotebookModel, cell: CellModel): { edits: TextEdit[]; names: string[] } {
  const out: TextEdit[] = [];
  const names: string[] = [];
  for (const r of refs) {
    if (r.action !== 'cupy' || !/^scipy\.sparse\.(csr|csc)_(matrix|array)$/.test(r.qualified)) {
      continue;
    }
    const call = r.node.parent;
    const assign = call?.type === 'call' && field(call, 'function')?.id === r.node.id ? call.parent : null;
    const left = assign?.type === 'assignment' && field(assign, 'right')?.id === call?.id ? field(assign, 'left') : null;
    const stmt = assign?.parent;
    if (left?.type === 'identifier' && stmt?.type === 'expression_statement' && stmt.parent?.id === root.id) {
      const later = model.readersAfter(left.text, cell).map(c => c.tree?.rootNode);
      if (readsStructure(root, left.text, stmt.endIndex) || later.some(r => !r || readsStructure(r, left.text, 0))) {
        continue;
      }
      out.push(insert(stmt.endIndex, `\n${left.text}.sum_duplicates()  # canonical once, here (products would sort it at first use)`));
      names.push(left.text);
    }
  }
  return { edits: out, names };
}

/**
 * The statement that brings device value `name`, as `cell` (the cell that last bound it) leaves
 * it, back to the host as NumPy code would have it: a sparse matrix as SciPy's (`.get()`;
 * `cp.asnumpy` would wrap it in an object array), a full reduction's 0-d array as what NumPy
 * returns, a Python number (`.item()`: np.allclose's bool) or a NumPy scalar of its dtype
 * (`.get()[()]`), an array with `cp.asnumpy`. The per-cell rewrite and the notebook plan share it.
 */
export function hostCopyLine(name: string, cell: CellModel, model: NotebookModel, cp: string): string {
  const v = model.valueAfter(name, cell);
  if (v.kind === 'sparse') {
    return `${name} = ${name}.get()`;
  }
  if (returnsPythonScalar(name, cell, model)) {
    return `${name} = ${name}.item()`;
  }
  return isZeroD(v) ? `${name} = ${name}.get()[()]` : `${name} = ${cp}.asnumpy(${name})`;
}

/**
 * Edits that hand host consumer argument `arg` (a device value, inferred as `v`) to the host as
 * NumPy code would: a sparse matrix through `.get()`, a 0-d result as a NumPy scalar of its dtype
 * (`cp.asnumpy(...)[()]`; `float()` would make an int a float), an array with `cp.asnumpy`.
 */
export function hostCopyAround(arg: SyntaxNode, v: ValueInfo, cp: string, model: NotebookModel, cell: CellModel): TextEdit[] {
  const u = unparen(arg);
  const primary = PRIMARY_EXPRESSIONS.has(u.type) || arg.type === 'parenthesized_expression';
  if (v.kind === 'sparse') {
    return primary ? [insert(arg.endIndex, '.get()')] : [insert(arg.startIndex, '('), insert(arg.endIndex, ').get()')];
  }
  if (isPythonScalarCall(u, model) || (u.type === 'identifier' && boundToPythonScalar(u.text, arg.startIndex, cell, model))) {
    // np.allclose's Python bool (CuPy's is a 0-d array)
    return [insert(arg.endIndex, '.item()')];
  }
  // `u.copy()` handed to host code: the copy to the host is a new array already, so the device
  // copy (a pass over `u`) goes: `cp.asnumpy(u)`
  const fn = u.id === arg.id && u.type === 'call' ? field(u, 'function') : null;
  const copied = fn?.type === 'attribute' && field(fn, 'attribute')?.text === 'copy' ? field(fn, 'object') : null;
  if (copied && kids(field(u, 'arguments') ?? u).length === 0 && !isZeroD(v) && model.inferValue(copied, cell).kind === 'ndarray') {
    return [insert(arg.startIndex, `${cp}.asnumpy(`), replace(copied.endIndex, arg.endIndex, ')')];
  }
  return [insert(arg.startIndex, `${cp}.asnumpy(`), insert(arg.endIndex, isZeroD(v) ? ')[()]' : ')')];
}

/**
 * Edits that hand 0-d device value `arg` (inferred as `v`) to Python code that takes it as an
 * integer through `__index__` (INDEX_BUILTINS' arguments): `int(...)` of an
 * integer, which gives what NumPy's scalar's `__index__` gives; of another dtype NumPy's scalar
 * itself (hostCopyAround), which Python takes or refuses as it did on the host.
 */
export function hostIndexAround(arg: SyntaxNode, v: ValueInfo, cp: string, model: NotebookModel, cell: CellModel): TextEdit[] {
  return v.dtype !== undefined && isIntegerDtype(v.dtype) ? [insert(arg.startIndex, 'int('), insert(arg.endIndex, ')')] : hostCopyAround(arg, v, cp, model, cell);
}

/** The `def` whose body holds `node`, if any (not a lambda: its body is one expression, used in place). */
function enclosingFunction(node: SyntaxNode): SyntaxNode | null {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === 'function_definition') {
      return p;
    }
  }
  return null;
}

/** A 0-d value: a NumPy scalar, or a 0-d array (a full reduction: a 0-d CuPy array on the device). */
export function isZeroD(v: ValueInfo): boolean {
  return (v.kind === 'scalar' && v.library === 'numpy') || (v.kind === 'ndarray' && v.shape?.length === 0);
}

/**
 * The values a displayed expression statement shows each with its own repr: the expression, or
 * the items of a tuple (`a, b` or `(a, b)`), list, set or dict (its keys and values), nested ones opened.
 * Assignments show nothing.
 */
function displayedItems(stmt: SyntaxNode): SyntaxNode[] {
  const parts = kids(stmt).filter(k => k.type !== 'comment');
  if (parts.length === 1 && (parts[0].type === 'assignment' || parts[0].type === 'augmented_assignment')) {
    return [];
  }
  const out: SyntaxNode[] = [];
  const open = (e: SyntaxNode): void => {
    const u = unparen(e);
    if (u.type === 'tuple' || u.type === 'list' || u.type === 'set' || u.type === 'dictionary') {
      for (const k of kids(u)) {
        // a dict's keys too: a 0-d CuPy array is no key NumPy's scalar would equal
        const items = k.type === 'pair' ? [field(k, 'key'), field(k, 'value')] : k.type === 'comment' ? [] : [k];
        for (const item of items) {
          if (item) {
            open(item);
          }
        }
      }
    } else {
      out.push(e);
    }
  };
  parts.forEach(open);
  return out;
}

/** Calls that show their arguments as text (a container's items with their repr). */
const SHOWING_CALLS = new Set(['print', 'repr', 'str', 'display']);

/** The argument of a showing call (`print(x)`) that `e` is, bare; else null. */
function shownBy(e: SyntaxNode): SyntaxNode | null {
  const call = e.parent?.type === 'argument_list' ? e.parent.parent : null;
  const fn = call?.type === 'call' ? field(call, 'function') : null;
  return fn?.type === 'identifier' && SHOWING_CALLS.has(fn.text) ? call : null;
}

/**
 * The values held by a container display or comprehension, opened into nested ones: a list or
 * tuple's items, a dict's values, a comprehension's element or value. Not a dict's keys nor a
 * set's elements: those are copied wherever they are 0-d device values (hashing needs NumPy's
 * scalar). Empty for anything else.
 */
function containerValues(e: SyntaxNode): SyntaxNode[] {
  const u = unparen(e);
  const out: SyntaxNode[] = [];
  if (u.type === 'list_comprehension' || u.type === 'dictionary_comprehension') {
    const body = field(u, 'body');
    const value = body?.type === 'pair' ? field(body, 'value') : body;
    return value ? (containerValues(value).length > 0 ? containerValues(value) : [value]) : [];
  }
  if (!CONTAINERS.has(u.type) || u.type === 'set') {
    return out;
  }
  for (const k of kids(u)) {
    const item = k.type === 'pair' ? field(k, 'value') : k.type === 'comment' ? null : k;
    if (item) {
      const inner = containerValues(item);
      out.push(...(inner.length > 0 || CONTAINERS.has(unparen(item).type) ? inner : [item]));
    }
  }
  return out;
}

/**
 * Host copies of 0-d device values that NumPy code has as NumPy scalars inside Python containers
 * (a 0-d CuPy array shows as `array(1.5)` there, NumPy's scalar as `np.float64(1.5)`): the items of
 * a container printed as it is made (`print([y.mean(), y.std()])`), and those of one bound to a
 * name (`stats = {"a": y.mean()}`) that the cell shows (its last line, printed, in an f-string) or
 * a later cell reads. Names unpacked from a 1-D device array (`lo, hi = cp.percentile(y, [5,
 * 95])`) that are shown or read later are unpacked from its host copy (`.get()`: one copy, NumPy
 * scalars as NumPy's unpacking gives). `onDevice` says whether an expression computes on the device.
 * `copied`: the values copied one by one (each copy waits for the device: the work estimate
 * charges them, as often as they run; a comprehension's element once per item).
 */
function containerScalarEdits(root: SyntaxNode, model: NotebookModel, cell: CellModel, cp: string, onDevice: (e: SyntaxNode) => boolean): { edits: TextEdit[]; copied: SyntaxNode[] } {
  const edits: TextEdit[] = [];
  const copied: SyntaxNode[] = [];
  const shown = shownAfter(root, model, cell);
  const copyItems = (container: SyntaxNode): void => {
    for (const item of containerValues(container)) {
      const v = model.inferValue(item, cell);
      if (isZeroD(v) && onDevice(item)) {
        edits.push(...hostCopyAround(item, v, cp, model, cell));
        copied.push(item);
      }
    }
  };
  walkTypes(root, CALL, n => {
    const fn = field(n, 'function');
    if (fn?.type === 'identifier' && SHOWING_CALLS.has(fn.text)) {
      callArguments(n).positional.forEach(copyItems);
    }
    return true;
  });
  for (const a of cell.facts!.assignments) {
    // (a value that is no container has no items: whether it is shown is not asked)
    if (a.value && !a.augmented && containerValues(a.value).length > 0 && shown(a.name, a.at)) {
      copyItems(a.value);
    }
  }
  for (const from of unpackedForHost(model, cell, shown)) {
    if (onDevice(from)) {
      edits.push(...(PRIMARY_EXPRESSIONS.has(unparen(from).type) ? [insert(from.endIndex, '.get()')] : [insert(from.startIndex, '('), insert(from.endIndex, ').get()')]));
      copied.push(from);
    }
  }
  // a container filled item by item (`areas[name] = cp.trapz(...)` in a loop) that is shown,
  // handed to host code (`pd.DataFrame(areas)`, which refuses CuPy arrays) or read later: each
  // stored device value is copied back, an array whole, a 0-d one as NumPy's scalar, so that the
  // container holds what NumPy's does (`vals.append(y.mean())` is a host consumer's argument,
  // collectHostConsumerArgs, copied as such)
  const store = (container: SyntaxNode | null | undefined, value: SyntaxNode | null | undefined): void => {
    if (container?.type !== 'identifier' || !value || onDevice(container) || !/^(sequence|unknown)$/.test(model.inferValue(container, cell).kind) || !shown(container.text, value.endIndex)) {
      return;
    }
    const v = model.inferValue(value, cell);
    if ((isZeroD(v) || v.kind === 'ndarray') && onDevice(value)) {
      edits.push(...hostCopyAround(value, v, cp, model, cell));
      copied.push(value);
    }
  };
  walkTypes(root, ['assignment'], n => {
    const left = field(n, 'left');
    if (left?.type === 'subscript') {
      store(field(left, 'value'), field(n, 'right'));
    }
    return true;
  });
  return { edits, copied };
}

/**
 * Is `name`, bound at `at`, shown by the cell after that (its last line, printed, in an f-string
 * field), handed to host code (a host consumer's argument: pandas, matplotlib, a file), or read by
 * a later cell? Such a 0-d device value would be copied back where it is read, each time.
 */
function shownAfter(root: SyntaxNode, model: NotebookModel, cell: CellModel): (name: string, at: number) => boolean {
  const displayed = displayedStatement(root, cell.source, model);
  const shownBare = new Set(displayed ? displayedItems(displayed).filter(e => e.type === 'identifier').map(e => e.id) : []);
  return (name, at) =>
    model.readersAfter(name, cell).length > 0 ||
    globalReferences(root, name).some(r => r.startIndex > at && (shownBare.has(r.id) || shownBy(r) !== null || r.parent?.type === 'interpolation')) ||
    collectHostConsumerArgs(root, model, cell, new Set([name])).some(arg => arg.startIndex > at);
}

/**
 * The 1-D arrays the cell unpacks into names (`lo, hi = np.percentile(y, [5, 95])`, items the
 * model knows: NumPy scalars) of which one name is shown or read by host code (`shown`): on the
 * device they are unpacked from the array's host copy (`cp.percentile(...).get()`: one copy for
 * all of them, NumPy scalars as NumPy's unpacking gives), so they are host values; names of one
 * that only device work reads stay 0-d device arrays (no copy).
 */
function unpackedForHost(model: NotebookModel, cell: CellModel, shown: (name: string, at: number) => boolean): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const seen = new Set<number>();
  for (const a of cell.facts!.assignments) {
    const from = a.unpacked?.from;
    if (!from || a.unpacked!.index < 0 || seen.has(from.id) || !isZeroD(model.valueBefore(a.name, cell, a.at)) || !shown(a.name, a.at)) {
      continue;
    }
    const v = model.inferValue(from, cell);
    if (v.kind === 'ndarray' && v.shape?.length === 1) {
      seen.add(from.id);
      out.push(from);
    }
  }
  return out;
}

/**
 * Does f-string field `interpolation` show its value's repr (`{s!r}`, `{s!a}`, `{s=}` with no
 * format)? A 0-d CuPy array's repr (`array(1.5)`) is not NumPy's scalar's (`np.float64(1.5)`);
 * `{s}`, `{s!s}`, `{s:.3f}`, `{s=:.3f}` format the value and show the same text.
 */
export function showsRepr(interpolation: SyntaxNode): boolean {
  const parts = kids(interpolation);
  const conversion = parts.find(k => k.type === 'type_conversion');
  if (conversion) {
    return conversion.text === '!r' || conversion.text === '!a';
  }
  const expr = parts[0];
  return !!expr && !parts.some(k => k.type === 'format_specifier') && /^\s*=\s*$/.test(interpolation.text.slice(expr.endIndex - interpolation.startIndex, -1));
}

/** No names (isHostConsumerCall's arrays, where none are device arrays it could be called on). */
const NO_NAMES: ReadonlySet<string> = new Set();

/** Expressions a method call can follow without parentheses. */
const PRIMARY_EXPRESSIONS = new Set(['identifier', 'attribute', 'call', 'subscript']);

/**
 * What host consumer argument `arg` (reading device values, inferred as `v`) needs: `copy`, a
 * host copy as NumPy code has it (an array, a matrix, an element, a 0-d result); `as-is`, host
 * data already (text or a number a Python builtin makes of CuPy values, `str(M.sum())`,
 * `f"{s:.3f}"`, `float(s)`; a copy the cell makes, `w.get()`; or a host consumer's own call,
 * `repr(s)`, `pd.DataFrame(y)`, whose arguments are host consumer arguments themselves);
 * `host`, anything else (a lambda, an object) would carry device arrays into host code, so what
 * it reads must be there. An f-string field that shows a 0-d value's repr (`{s!r}`) gets its own
 * copy (showsRepr).
 */
export function hostArgumentNeed(arg: SyntaxNode, v: ValueInfo, model: NotebookModel, cell: CellModel): 'copy' | 'as-is' | 'host' {
  const u = unparen(arg);
  if (u.type === 'string' || u.type === 'concatenated_string') {
    return 'as-is'; // text; a field showing a 0-d value's repr gets its own copy (showsRepr)
  }
  const fn = u.type === 'call' ? field(u, 'function') : null;
  if (fn?.type === 'identifier' && fn.text !== 'print' && isDeviceSafeBuiltin(fn.text)) {
    return 'as-is'; // str(M.sum()), float(s), len(y): host data made of CuPy values
  }
  if (u.type === 'call' && isIndexBuiltinCall(u, model)) {
    // list(range(k.max())): a host range once its device integers are Python ones (the rewrite's
    // `int(...)`; the plan's host cells copy what reads device values there: insideIndexArgument)
    return 'as-is';
  }
  if (u.type === 'call' && isHostConsumerCall(u, model, cell, NO_NAMES)) {
    return 'as-is'; // a host consumer itself: its own arguments get the copies
  }
  if (v.device === 'host' && v.library === 'numpy' && isHostCopy(u, model)) {
    return 'as-is';
  }
  return v.kind === 'ndarray' || v.kind === 'sparse' || v.kind === 'scalar' || u.type === 'identifier' ? 'copy' : 'host';
}

/**
 * NumPy functions that return a Python scalar where CuPy's return a 0-d array (`numpy.X`, no
 * axis). Not `count_nonzero`: since NumPy 2.3 it returns a NumPy integer (numpy.int64) too.
 */
const PYTHON_SCALAR_RESULTS = new Set(['numpy.allclose', 'numpy.array_equal', 'numpy.array_equiv']);

/**
 * Does NumPy give `name` (bound in the cell to a full reduction) as a Python number
 * (`np.allclose`: a bool) rather than a NumPy scalar? NumPy's
 * scalars keep their dtype (and NEP 50 promotion in later cells); a Python number does not.
 */
function returnsPythonScalar(name: string, cell: CellModel, model: NotebookModel): boolean {
  const bindings = cell.facts!.assignments.filter(a => a.name === name);
  const value = bindings.length > 0 ? bindings[bindings.length - 1].value : null;
  return value !== null && isPythonScalarCall(value, model);
}

/** Is `node` a call of a NumPy function that returns a Python number (`np.allclose(a, b)`)? */
function isPythonScalarCall(node: SyntaxNode, model: NotebookModel): boolean {
  const fn = node.type === 'call' ? field(node, 'function') : null;
  const q = fn ? model.qualifiedName(fn) : null;
  return q !== null && PYTHON_SCALAR_RESULTS.has(q);
}

/**
 * Was `name`, where `at` in `cell` reads it, last bound to what NumPy returns as a Python
 * number (`ok = np.allclose(a, b)`), in this cell or the last earlier cell that binds it?
 */
export function boundToPythonScalar(name: string, at: number, cell: CellModel, model: NotebookModel): boolean {
  if (cell.facts!.assignments.some(a => a.name === name && a.at <= at)) {
    return returnsPythonScalar(name, cell, model);
  }
  const writer = model.lastWriterBefore(name, cell);
  return writer !== undefined && returnsPythonScalar(name, writer, model);
}

/**
 * The SciPy constructor call that built sparse matrix `name` in this cell, to run again on the
 * host at the end instead of copying the device matrix back: cupyx's products sum duplicate
 * entries in place (`sum_duplicates`), so the device matrix may differ from SciPy's in `nnz`,
 * `indices` and `data` layout, and rebuilding from the unchanged host arrays costs SciPy's
 * construction (a format check; a conversion for COO input), timed with the candidate, where
 * the copy costs the whole matrix over PCIe. Null unless the matrix is bound once, at the
 * cell's top level, by `scipy.sparse.X_matrix/X_array(...)` whose arrays are host arrays the cell
 * leaves as they were (copied to the device under another name), and nothing changes it in place.
 */
function sparseHostRebuild(name: string, cell: CellModel, model: NotebookModel, transfers: ReadonlyMap<string, string>): string | null {
  const facts = cell.facts!;
  const bindings = facts.assignments.filter(a => a.name === name);
  if (bindings.length !== 1 || bindings[0].augmented || facts.mutates.has(name)) {
    return null;
  }
  const { value, statement } = bindings[0];
  if (value?.type !== 'call' || statement.parent?.type !== 'module') {
    return null;
  }
  const fn = field(value, 'function');
  const q = fn ? model.qualifiedName(fn) : null;
  if (!q || !/^scipy\.sparse\.(csr|csc|coo|bsr)_(matrix|array)$/.test(q)) {
    return null;
  }
  const args = field(value, 'arguments');
  let hostOnly = !!args;
  walkTypes(args ?? value, IDENTIFIER, n => {
    if (!isValueIdentifier(n)) {
      return true;
    }
    const v = model.valueBefore(n.text, cell, value.startIndex);
    // arrays: host inputs the cell copies under another name; scalars (`n`): not rebound since
    const arrayKept = (v.kind === 'ndarray' || v.kind === 'sparse') && transfers.has(n.text) && transfers.get(n.text) !== n.text && !facts.mutates.has(n.text);
    const plain = v.kind !== 'ndarray' && v.kind !== 'sparse' && !facts.assignments.some(a => a.name === n.text && a.at > value.startIndex);
    if (!(arrayKept || plain) || (v.kind === 'unknown' && !plain)) {
      hostOnly = false;
    }
    return true;
  });
  // only names, literals and tuples: array arithmetic or a call (a random draw, np.exp(data))
  // would be computed again on the host, maybe to another value
  if (hostOnly && args) {
    walk(args, n => {
      if (n.type === 'call' || (OPERATORS.includes(n.type) && model.inferValue(n, cell).kind === 'ndarray')) {
        hostOnly = false;
      }
      return hostOnly;
    });
  }
  // after its construction the cell only reads it: products, attributes, read-only methods; a
  // method that changes it (`M.setdiag(1.0)`), an in-place operator or another name holding it
  // (`N = M; N.data *= 2`) would be lost by the rebuild
  if (hostOnly) {
    for (const r of globalReferences(cell.tree!.rootNode, name)) {
      if (r.startIndex < statement.endIndex) {
        continue;
      }
      const p = r.parent;
      const attr = p?.type === 'attribute' && field(p, 'object')?.id === r.id ? field(p, 'attribute')?.text ?? '' : null;
      const called = attr !== null && p!.parent?.type === 'call' && field(p!.parent, 'function')?.id === p!.id;
      const readOnly =
        (attr !== null && (called ? SPARSE_READ_ONLY_METHODS.has(attr) : !isAssignedTo(p!))) ||
        (p?.type === 'binary_operator' && (operatorOf(p) === '@' || operatorOf(p) === '*')) ||
        (p?.type === 'argument_list' && escapingUse(r, model) === null);
      if (!readOnly) {
        return null;
      }
    }
  }
  return hostOnly ? cell.source.slice(value.startIndex, value.endIndex) : null;
}

/** Sparse-matrix methods that leave the matrix as it is. */
const SPARSE_READ_ONLY_METHODS = new Set(['dot', 'multiply', 'sum', 'mean', 'max', 'min', 'getnnz', 'count_nonzero', 'diagonal', 'toarray', 'todense', 'tocsr', 'tocsc', 'tocoo', 'copy', 'get', 'getrow', 'getcol', 'transpose', 'power', 'astype', 'nonzero', 'trace']);

/** Is the attribute (or subscript) node the target of an assignment, plain or augmented (`M.data *= 2`, `M.data[0] = 1`)? */
function isAssignedTo(n: SyntaxNode): boolean {
  let t = n;
  while (t.parent?.type === 'subscript' && field(t.parent, 'value')?.id === t.id) {
    t = t.parent;
  }
  const p = t.parent;
  return (p?.type === 'assignment' || p?.type === 'augmented_assignment') && field(p, 'left')?.id === t.id;
}

/** Sparse-matrix attributes that `sum_duplicates()` changes when the matrix had duplicates. */
const SPARSE_STRUCTURE = new Set(['nnz', 'data', 'indices', 'indptr', 'has_canonical_format']);

/** Whether `root` reads `name.<structural attribute>` at or after offset `from`. */
function readsStructure(root: SyntaxNode, name: string, from: number): boolean {
  let found = false;
  walk(root, n => {
    if (found || n.endIndex < from) {
      return !found && n.endIndex >= from;
    }
    if (n.type === 'attribute' && n.startIndex >= from && field(n, 'object')?.type === 'identifier' && field(n, 'object')?.text === name && SPARSE_STRUCTURE.has(field(n, 'attribute')?.text ?? '')) {
      found = true;
    }
    return !found;
  });
  return found;
}

/** Decides what the rewrite does with `numpy.X` / `scipy.X`. */
function classify(node: SyntaxNode, qualified: string, cp: string): LibraryRef {
  // what a name becomes depends on the name (and CuPy's alias) alone, except for r_/c_, which
  // read their subscript: one answer per name, kept
  if (qualified.startsWith('numpy.') && CUPY_CONCATENATORS.has(qualified.slice('numpy.'.length))) {
    return classifyAt(node, qualified, cp);
  }
  if ((qualified === 'scipy.signal.lfilter' || qualified === 'scipy.signal.filtfilt') && lowOrderBa(node)) {
    return { node, qualified, action: 'cupy', replacement: `cupyx.scipy.${qualified.slice('scipy.'.length)}` };
  }
  let byName = CLASSIFIED.get(cp);
  if (byName === undefined) {
    byName = new Map();
    CLASSIFIED.set(cp, byName);
  }
  let known = byName.get(qualified);
  if (known === undefined) {
    // (kept without the node: a kept node would keep its cell's tree)
    const { action, replacement, reason } = classifyAt(node, qualified, cp);
    known = { action, replacement, reason };
    byName.set(qualified, known);
  }
  // a new reference each time (the analysis changes its action)
  if (known.replacement !== undefined) {
    return { node, qualified, action: known.action, replacement: known.replacement };
  }
  return known.reason !== undefined ? { node, qualified, action: known.action, reason: known.reason } : { node, qualified, action: known.action };
}

/** IIR designs whose `(b, a)` output's order is the order they are given (twice that for a band). */
const IIR_DESIGNS = /(^|\.)(butter|cheby1|cheby2|ellip|bessel)$/;
/** Band designs: their polynomials are of twice the order given. */
const BAND_TYPES = new Set(['bandpass', 'bandstop', 'band', 'pass', 'stop', 'bp', 'bs', 'bands']);
/**
 * The highest `(b, a)` polynomial order cupyx.scipy.signal's lfilter/filtfilt match SciPy at for
 * every cut-off: 2. Measured on the H200 (bench/results/2026-12-02-h200-run27/iir_7.txt, 32 x 200k
 * float64, cupyx's butter + lfilter against SciPy's, relative L2): order 1 and 2 low-passes at
 * Wn 0.2 down to 0.0005 within 3.4e-10, an order-1 band within 5e-15; order 3 from 5.6e-7 at Wn
 * 0.002 to 4.4e-4 at 0.0005, order 4 4.7e-3 at 0.002 and overflowing at 0.0005 (poles near the
 * unit circle), the order-8 band-pass of CUPYX_INACCURATE off by 3x.
 */
const BA_ORDER_MEASURED = 2;

/**
 * Whether the `(b, a)` of the lfilter/filtfilt call whose function is `fn` are made in the same
 * cell by one IIR design of a literal order (`baDesignOrder`) of polynomial order at most
 * BA_ORDER_MEASURED: then the recursion is one measured to match SciPy on the device, and the
 * call is not kept on the host for accuracy.
 */
function lowOrderBa(fn: SyntaxNode): boolean {
  const order = baDesignOrder(fn);
  return order !== null && order <= BA_ORDER_MEASURED;
}

/** `baDesignOrder` of an lfilter/filtfilt call (`q` its qualified name), null for other calls. */
function filterDesignOrder(q: string, call: SyntaxNode): number | null {
  const fn = field(call, 'function');
  return fn && (q === 'scipy.signal.lfilter' || q === 'scipy.signal.filtfilt') ? baDesignOrder(fn) : null;
}

/**
 * The polynomial order of the `(b, a)` the lfilter/filtfilt call whose function is `fn` filters
 * with, where they are made in the same cell by one IIR design of a literal order, `b, a =
 * signal.butter(2, 0.2)`, digital, in the (b, a) form (a band design's is twice the order given),
 * and bound nowhere else in the cell; null otherwise.
 */
export function baDesignOrder(fn: SyntaxNode): number | null {
  const call = fn.parent;
  if (call?.type !== 'call' || field(call, 'function')?.id !== fn.id) {
    return null;
  }
  const { positional, keywords } = callArguments(call);
  const b = keywords.get('b') ?? positional[0];
  const a = keywords.get('a') ?? positional[1];
  if (b?.type !== 'identifier' || a?.type !== 'identifier' || b.text === a.text) {
    return null;
  }
  let root = call;
  while (root.parent) {
    root = root.parent;
  }
  // every binding of b or a in the cell: one `b, a = design(...)` statement, at top level, before the call
  const bindings: SyntaxNode[] = [];
  walkTypes(root, ['assignment', 'augmented_assignment', 'for_statement', 'named_expression', 'with_item', 'as_pattern'], n => {
    const left = field(n, 'left') ?? field(n, 'name') ?? field(n, 'alias') ?? n;
    if (globalReferences(left, b.text).length > 0 || globalReferences(left, a.text).length > 0 || new RegExp(`\\b(${b.text}|${a.text})\\b`).test(left.text)) {
      bindings.push(n);
    }
  });
  const only = bindings.length === 1 && bindings[0].type === 'assignment' ? bindings[0] : null;
  if (!only || only.parent?.type !== 'expression_statement' || only.parent.parent?.type !== 'module' || only.endIndex > call.startIndex) {
    return null;
  }
  const left = field(only, 'left');
  const names = left && (left.type === 'pattern_list' || left.type === 'tuple_pattern') ? kids(left).filter(k => k.type === 'identifier').map(k => k.text) : [];
  const design = field(only, 'right');
  if (names.length !== 2 || names[0] !== b.text || names[1] !== a.text || design?.type !== 'call' || !IIR_DESIGNS.test(field(design, 'function')?.text ?? '')) {
    return null;
  }
  const args = callArguments(design);
  const order = args.keywords.get('N') ?? args.positional[0];
  const btype = args.keywords.get('btype') ?? (/(^|\.)(butter|bessel)$/.test(field(design, 'function')!.text) ? args.positional[2] : undefined);
  const output = args.keywords.get('output');
  const analog = args.keywords.get('analog');
  // cheby1/cheby2/ellip take ripples before Wn: their positional btype is further on
  if (order?.type !== 'integer' || (!args.keywords.has('btype') && args.positional.length > (/(^|\.)(butter|bessel)$/.test(field(design, 'function')!.text) ? 2 : 3))) {
    return null;
  }
  if ((output && !/^['"]ba['"]$/.test(output.text)) || (analog && analog.text !== 'False') || (btype && btype.type !== 'string')) {
    return null;
  }
  const band = btype ? BAND_TYPES.has(btype.text.slice(1, -1)) : false;
  const n = Number(order.text.replace(/_/g, ''));
  return Number.isInteger(n) && n > 0 ? (band ? 2 * n : n) : null;
}

/** `classify`'s answers by CuPy's alias and qualified name (their nodes are not read). */
const CLASSIFIED = new Map<string, Map<string, Pick<LibraryRef, 'action' | 'replacement' | 'reason'>>>();

function classifyAt(node: SyntaxNode, qualified: string, cp: string): LibraryRef {
  const [lib, ...rest] = qualified.split('.');
  const path = rest.join('.');
  if (lib === 'numpy') {
    const top = rest[0];
    if (NUMPY_PASSTHROUGH_NAMES.has(path) || (rest.length === 1 && NUMPY_PASSTHROUGH_NAMES.has(top))) {
      return { node, qualified, action: 'keep' };
    }
    const refusedWhy = NUMPY_REFUSED.get(path) ?? NUMPY_REFUSED.get(top);
    if (refusedWhy) {
      return { node, qualified, action: 'refuse', reason: refusedWhy };
    }
    if (rest.length === 1 && NUMPY_HOST_IO_PRODUCERS.has(top)) {
      return { node, qualified, action: 'host-producer', reason: `numpy.${top} reads a file on the host; the result is copied to the device once` };
    }
    if (rest.length === 1 && NUMPY_HOST_IO_CONSUMERS.has(top)) {
      return { node, qualified, action: 'host-consumer' };
    }
    if (cupyHasNumpyPath(path)) {
      return { node, qualified, action: 'cupy', replacement: `${cp}.${path}` };
    }
    const renamed = rest.length === 1 ? CUPY_RENAMED.get(top) : undefined;
    if (renamed) {
      return { node, qualified, action: 'cupy', replacement: `${cp}.${renamed}` };
    }
    if (rest.length === 1 && CUPY_CONCATENATORS.has(top)) {
      // CuPy's r_/c_ take arrays and scalars: a slice or a string directive stays NumPy's
      const sub = node.parent?.type === 'subscript' && field(node.parent, 'value')?.id === node.id ? node.parent : null;
      const items = sub ? kids(sub).filter(k => k.id !== node.id && k.type !== 'comment').flatMap(k => (k.type === 'tuple' || k.type === 'expression_list' ? kids(k) : [k])) : [];
      return sub && !items.some(k => k.type === 'slice' || k.type === 'string' || k.type === 'concatenated_string')
        ? { node, qualified, action: 'cupy', replacement: `${cp}.${top}` }
        : { node, qualified, action: 'refuse', reason: `numpy.${top} with slice notation or a string directive: CuPy's ${top} takes arrays and scalars only (NotImplementedError)` };
    }
    if (rest.length === 1 && (top === 'linalg' || top === 'fft' || top === 'random')) {
      return { node, qualified, action: 'cupy', replacement: `${cp}.${path}` };
    }
    return { node, qualified, action: 'refuse', reason: `numpy.${path} has no CuPy equivalent (not in CuPy's comparison table)` };
  }
  // scipy
  const rapids = cupyxNeedsRapids(path);
  if (rapids) {
    return { node, qualified, action: 'refuse', reason: `cupyx.scipy.${path} ${rapids}: kept on the host` };
  }
  // a refused reference refuses the whole cell (as every SciPy function cupyx lacks does): the
  // call's inputs and results then stay host arrays, with no copies in and out around it
  const inaccurate = CUPYX_INACCURATE.get(path);
  if (inaccurate) {
    return { node, qualified, action: 'refuse', reason: `scipy.${path} is kept on the host: ${inaccurate}` };
  }
  if (cupyxHasScipyPath(path)) {
    return { node, qualified, action: 'cupy', replacement: `cupyx.scipy.${path}` };
  }
  // one cupyx lacks that a cell with other device work keeps SciPy's on the host (libraryUses'
  // hostLoopCalls; a cell with no other work is refused: unsupportedArgumentRefusals); never
  // rewritten to this replacement
  if (CUPYX_MISSING_HOST_CALLS.has(path)) {
    return { node, qualified, action: 'cupy', replacement: `scipy.${path}` };
  }
  const module = cupyxModuleOf(path);
  if (module && rest.length === module.split('.').length) {
    // a reference to the module itself (`from scipy import ndimage`; `ndimage.x` resolves deeper)
    return { node, qualified, action: 'cupy', replacement: `cupyx.scipy.${path}` };
  }
  return {
    node,
    qualified,
    action: 'refuse',
    reason: module
      ? `scipy.${path} has no cupyx.scipy.${module} equivalent`
      : `scipy.${path.split('.')[0]} has no cupyx.scipy counterpart`
  };
}

/** Offset after the cell's leading imports, comments and docstring (a top-level line start). */
export function prologueOffset(root: SyntaxNode, source: string): number {
  let at = 0;
  let seenCode = false;
  for (const stmt of kids(root)) {
    const isImport = stmt.type === 'import_statement' || stmt.type === 'import_from_statement' || stmt.type === 'future_import_statement';
    const isDoc = stmt.type === 'expression_statement' && kids(stmt)[0]?.type === 'string' && !seenCode;
    const isMaskedNoop = stmt.type === 'expression_statement' && kids(stmt)[0]?.type === 'ellipsis';
    if (isImport || isDoc || (isMaskedNoop && !seenCode)) {
      at = lineEnd(source, stmt.endIndex);
      continue;
    }
    if (stmt.type === 'comment') {
      continue;
    }
    seenCode = true;
    return at === 0 ? lineStart(source, stmt.startIndex) : at;
  }
  return at;
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
}

/**
 * The cell's last statement when it shows a value: an expression statement (one expression, or
 * a tuple of them: `a, b`) that is no assignment, not silenced by a `;`, and no call known to
 * return None (`print(...)`, `plt.savefig(...)`).
 */
export function displayedStatement(root: SyntaxNode, source: string, model: NotebookModel): SyntaxNode | undefined {
  const last = kids(root)
    .filter(s => s.type !== 'comment')
    .pop();
  const exprs = last?.type === 'expression_statement' ? kids(last).filter(k => k.type !== 'comment') : [];
  if (exprs.length === 0 || /^[ \t]*;/.test(source.slice(last!.endIndex))) {
    return undefined;
  }
  const only = exprs.length === 1 ? exprs[0] : null;
  if (only && (only.type === 'assignment' || only.type === 'augmented_assignment' || (only.type === 'call' && returnsNone(only, root, model)))) {
    return undefined;
  }
  return last;
}

/** Clock reads a cell times its own work with. */
const CLOCKS = /^(time\.(perf_counter|perf_counter_ns|time|time_ns|monotonic|monotonic_ns)|timeit\.default_timer)$/;

/**
 * A cell that times its own work (`t0 = time.perf_counter()` ... `time.perf_counter() - t0`)
 * would, on the GPU, time only the queuing of kernels: CuPy's calls return before the device
 * has run them. Before each statement that reads a clock after device work (a CuPy call or a
 * device array read earlier in the cell), the candidate waits for the GPU's queue, at the
 * statement's indentation (inside a loop too); a `while` condition's clock is read again after
 * each pass of the loop's body, which waits at its end (loopEndSyncs).
 */
function clockSyncEdits(root: SyntaxNode, model: NotebookModel, refs: readonly LibraryRef[], deviceNames: ReadonlySet<string>, cp: string): TextEdit[] {
  const edits: TextEdit[] = [];
  const clocks: SyntaxNode[] = [];
  walkTypes(root, CALL, n => {
    const fn = field(n, 'function');
    if (fn && CLOCKS.test(model.qualifiedName(fn) ?? '')) {
      clocks.push(n);
    }
    return true;
  });
  if (clocks.length === 0) {
    return edits; // (most cells: the device references below are not looked for)
  }
  const synced = new Set<number>();
  const loopsSynced = new Set<number>();
  const source = root.text;
  const sync = `${cp}.cuda.get_current_stream().synchronize()`;
  let firstDeviceWork = Infinity;
  for (const r of refs) {
    if (r.action === 'cupy') {
      firstDeviceWork = Math.min(firstDeviceWork, r.node.startIndex);
    }
  }
  for (const name of deviceNames) {
    for (const ref of globalReferences(root, name)) {
      firstDeviceWork = Math.min(firstDeviceWork, ref.startIndex);
    }
  }
  for (const n of clocks) {
    // the statement the clock is read in: its parent is the module or a block
    let stmt = n;
    while (stmt.parent && stmt.parent.type !== 'module' && stmt.parent.type !== 'block') {
      stmt = stmt.parent;
    }
    if (stmt.startIndex > firstDeviceWork && !synced.has(stmt.startIndex)) {
      synced.add(stmt.startIndex);
      const start = lineStart(source, stmt.startIndex);
      const indent = source.slice(start, stmt.startIndex);
      if (/^[ \t]*$/.test(indent)) {
        edits.push(insert(start, `${indent}${sync}  # the clock waits for the GPU's queued work\n`));
      }
    }
    // a `while` whose condition reads the clock reads it again after each pass of its body: the
    // body's device work is waited for at the body's end, and before each `continue` of it
    const body = stmt.type === 'while_statement' && isInside(n, field(stmt, 'condition') ?? n) && !loopsSynced.has(stmt.id) ? field(stmt, 'body') : null;
    if (body && (refs.some(r => r.action === 'cupy' && isInside(r.node, body)) || [...deviceNames].some(name => globalReferences(body, name).length > 0))) {
      loopsSynced.add(stmt.id);
      edits.push(...loopEndSyncs(source, body, sync));
    }
  }
  return edits;
}

/**
 * The waits for the GPU before a `while` condition's clock read comes round again: a line at the
 * end of the loop's `body` (at its indentation; `; <sync>` after a body on the `while` line), and
 * one before each `continue` of this loop (not of a loop nested in it), inline after an `if c:`.
 */
function loopEndSyncs(source: string, body: SyntaxNode, sync: string): TextEdit[] {
  const comment = "  # the loop's clock read waits for the GPU's queued work";
  const edits: TextEdit[] = [];
  const first = kids(body).find(k => k.type !== 'comment');
  const indent = first ? source.slice(lineStart(source, first.startIndex), first.startIndex) : '';
  const ownLines = /^[ \t]+$/.test(indent);
  if (ownLines) {
    const end = lineEnd(source, body.endIndex);
    edits.push(insert(end, end === source.length && !source.endsWith('\n') ? `\n${indent}${sync}${comment}` : `${indent}${sync}${comment}\n`));
  } else {
    edits.push(insert(body.endIndex, `; ${sync}`));
  }
  walkTypes(body, ['continue_statement', 'for_statement', 'while_statement', ...SCOPES], n => {
    if (n.type !== 'continue_statement') {
      return false; // a nested loop's continue is its own; a function's body is not the loop's
    }
    const start = lineStart(source, n.startIndex);
    const before = source.slice(start, n.startIndex);
    edits.push(/^[ \t]*$/.test(before) ? insert(start, `${before}${sync}${comment}\n`) : insert(n.startIndex, `${sync}; `));
    return false;
  });
  return edits;
}

/** Builtins whose value is None: a cell ending in one of them shows nothing. */
const RETURNS_NONE_BUILTINS: ReadonlySet<string> = new Set(['print', 'display', 'exec', 'setattr', 'delattr']);
/** Module functions whose value is None (writers, plotting calls that only draw or save). */
const RETURNS_NONE_FUNCTIONS =
  /^(numpy\.(save|savez|savez_compressed|savetxt|copyto|put|place|putmask|fill_diagonal|random\.shuffle|random\.seed)|matplotlib\.pyplot\.(show|savefig|close|clf|cla|tight_layout)|IPython\.display\.display)$/;
/**
 * Methods whose value is None on the objects that have them (ndarray.fill/tofile/dump, list.extend,
 * clear, savefig/show); not sort/update/append/insert/resize, which return values on some libraries'
 * objects (a binding of a None shows nothing anyway).
 */
const RETURNS_NONE_METHODS = /^(fill|tofile|dump|extend|clear|savefig|show)$/;

/**
 * Does the call return None for sure (so a cell ending in it displays nothing)? Known builtins,
 * library functions and methods, and a function the cell itself defines (last, at top level)
 * with no `return <value>` and no `yield` (one defined in another cell may change without this
 * cell being analysed again: its value is kept).
 */
function returnsNone(call: SyntaxNode, root: SyntaxNode, model: NotebookModel): boolean {
  const fn = field(call, 'function');
  if (!fn) {
    return false;
  }
  if (fn.type === 'identifier') {
    const def = kids(root)
      .filter(s => s.startIndex < call.startIndex && s.type === 'function_definition' && field(s, 'name')?.text === fn.text)
      .pop();
    if (def) {
      return !returnsValue(field(def, 'body'));
    }
    if (RETURNS_NONE_BUILTINS.has(fn.text) && !model.bindings.has(fn.text)) {
      return true;
    }
  }
  const q = model.qualifiedName(fn);
  if (q) {
    return RETURNS_NONE_FUNCTIONS.test(q);
  }
  return fn.type === 'attribute' && RETURNS_NONE_METHODS.test(field(fn, 'attribute')?.text ?? '');
}

/** Does a function body return a value (`return x`, `yield`), nested functions and classes aside? */
function returnsValue(body: SyntaxNode | null): boolean {
  let found = !body;
  if (body) {
    walk(body, n => {
      if (found || n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda') {
        return false;
      }
      if ((n.type === 'return_statement' && n.namedChildCount > 0) || n.type === 'yield') {
        found = true;
      }
      return !found;
    });
  }
  return found;
}

/**
 * The edits that end a cell with `lines` (bring-back, write-back, release...) and keep what the
 * cell shows (displayedStatement). A shown value that reads only host data once the lines ran
 * (`displayOnHost`: a written-back array, nothing else on the device) follows the lines, as the
 * cell wrote it. Any other is evaluated first, where the cell evaluated it: bound to a fresh name
 * (`shown = <value>`; a tuple `shown = a, b`), then the lines, then `shown` as the cell's last
 * expression, so it shows what it showed (nothing for None) and reads the device values before
 * the lines rebind or release them. The lines simply end a cell that shows nothing.
 */
export function epilogueEdits(
  root: SyntaxNode,
  source: string,
  lines: string,
  model: NotebookModel,
  fresh: (base: string) => string,
  displayOnHost: (shown: SyntaxNode) => boolean = () => false
): TextEdit[] {
  const end = source.trimEnd().length;
  const shown = displayedStatement(root, source, model);
  if (!shown) {
    return [insert(end, `\n${lines}`)];
  }
  if (displayOnHost(shown)) {
    return [insert(lineStart(source, shown.startIndex), `${lines}\n`)];
  }
  const name = fresh('shown');
  return [insert(shown.startIndex, `${name} = `), insert(end, `\n${lines}\n${name}`)];
}

/**
 * Does the cell's own code leave `name` on the device: NumPy calls on CuPy arrays from earlier
 * cells, which NumPy hands to CuPy (`h = np.sqrt(g)`)? Later cells read that CuPy array, so the
 * candidate copies nothing back.
 */
function leftAsWritten(name: string, cell: CellModel, model: NotebookModel): boolean {
  return model.valueAfter(name, cell).library === 'cupy';
}

/** `cp.asnumpy(...)`, `x.get()`: an expression that copies to the host. */
function isHostCopy(arg: SyntaxNode, model: NotebookModel): boolean {
  const u = unparen(arg);
  const fn = u.type === 'call' ? field(u, 'function') : null;
  if (!fn) {
    return false;
  }
  if (fn.type === 'attribute' && field(fn, 'attribute')?.text === 'get') {
    return callArguments(u).positional.length === 0; // CuPy's get() takes keywords only (dict.get a key)
  }
  return model.qualifiedName(fn) === 'cupy.asnumpy';
}

/** Is `arg` just the host name itself (so the host original can be passed, no copy back)? */
function isBareOrHostSafe(arg: SyntaxNode, name: string): boolean {
  return unparen(arg).type === 'identifier' && unparen(arg).text === name;
}

/** NumPy functions that write into their first argument. */
const NUMPY_WRITES_FIRST_ARGUMENT = /^numpy\.(copyto|put|place|putmask|fill_diagonal|put_along_axis|random\.shuffle)$/;

/**
 * The statement or call through which this reference changes its array in place, or null: a
 * target of an assignment through a view (`u[...] = v`, `u.flat[:] = 0`, `u[0], w = ...`) or of
 * an augmented assignment (`u += 1`), a mutating method (`u.sort()`, `u[:10].fill(0)`), an output
 * (`out=u`, `out=(u,)`, scipy.ndimage's `output=u`, views `out=u[1:]`), NumPy's writes into
 * their first argument (`np.copyto(u, v)`, `np.put_along_axis(u, ...)`), a ufunc's positional
 * output (`np.add(u, 1, u)`), `np.add.at(u, idx, 1)`, `rng.shuffle(u)`, `np.nan_to_num(u, copy=False)`. The one detector that
 * the rewrite (`updatedInCell`, `inPlaceUpdates`) and the plan (a function that updates its
 * parameter) share, so that their lists cannot drift apart. A plain rebinding (`u = v`) is none.
 */
export function inPlaceUpdate(ref: SyntaxNode, model: NotebookModel): SyntaxNode | null {
  let t = ref;
  while (t.parent && ((t.parent.type === 'subscript' && field(t.parent, 'value')?.id === t.id) || (t.parent.type === 'attribute' && field(t.parent, 'object')?.id === t.id))) {
    const call = t.parent.parent;
    if (t.parent.type === 'attribute' && ARRAY_MUTATING_METHODS.has(field(t.parent, 'attribute')?.text ?? '') && call?.type === 'call' && field(call, 'function')?.id === t.parent.id) {
      return call;
    }
    t = t.parent;
  }
  for (let p: SyntaxNode = t; p.parent; p = p.parent) {
    const up = p.parent;
    if (/^(augmented_assignment|assignment|for_statement|for_in_clause)$/.test(up.type) && field(up, 'left')?.id === p.id) {
      return up.type === 'augmented_assignment' || t.id !== ref.id ? up : null;
    }
    if (!/^(pattern_list|tuple_pattern|list_pattern|tuple|list|parenthesized_expression)$/.test(up.type)) {
      break;
    }
  }
  let p = t.parent;
  if (p?.type === 'tuple' && p.parent?.type === 'keyword_argument') {
    t = p; // out=(u,)
    p = p.parent;
  }
  if (p?.type === 'keyword_argument') {
    const call = p.parent?.parent;
    return /^out(put)?$/.test(field(p, 'name')?.text ?? '') && field(p, 'value')?.id === t.id && call?.type === 'call' ? call : null;
  }
  const call = p?.type === 'argument_list' ? p.parent : null;
  const fn = call?.type === 'call' ? field(call, 'function') : null;
  if (!call || !fn) {
    return null;
  }
  const at = callArguments(call).positional.findIndex(a => a.id === t.id);
  const q = model.qualifiedName(fn) ?? '';
  const ufunc = /^numpy\.(\w+)(\.at)?$/.exec(q);
  const nin = ufunc ? NUMPY_UFUNC_NIN.get(ufunc[1]) : undefined;
  const shuffle = fn.type === 'attribute' && field(fn, 'attribute')?.text === 'shuffle';
  // (`np.nan_to_num(u, copy=False)` replaces in u itself)
  const noCopy = q === 'numpy.nan_to_num' && callArguments(call).keywords.get('copy')?.text === 'False';
  return (at === 0 && (NUMPY_WRITES_FIRST_ARGUMENT.test(q) || shuffle || noCopy)) || (nin !== undefined && at >= 0 && (ufunc![2] ? at === 0 : at >= nin)) ? call : null;
}

/** NumPy functions whose result may be a view of their first argument (the last part of the name). */
const VIEW_FUNCTIONS: ReadonlySet<string> = new Set([
  'reshape', 'ravel', 'transpose', 'swapaxes', 'moveaxis', 'rollaxis', 'squeeze', 'expand_dims', 'diagonal', 'as_strided', 'asarray', 'asanyarray',
  'ascontiguousarray', 'asfortranarray', 'require', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'real', 'imag', 'flip', 'fliplr', 'flipud', 'rot90',
  'matrix_transpose', 'permute_dims', 'broadcast_to', 'sliding_window_view', 'split', 'array_split', 'hsplit', 'vsplit', 'dsplit', 'unstack', 'frombuffer'
]);

/**
 * Does `ref` reach an in-place update through a view a call makes of it, which `inPlaceUpdate`
 * (indexing and attributes only) does not follow: `F.reshape(-1)[0] = 5.0`, `F.ravel()[0] = v`,
 * `np.lib.stride_tricks.as_strided(F)[0, 0] = v`, `F.T.view()[...] = 0`, `np.copyto(F.ravel(),
 * v)`, `F.setfield(v, F.dtype)`? A call that may return a view counts (a copy would not change
 * the array: counted all the same, the conservative side).
 */
function updatedThroughMadeView(ref: SyntaxNode, model: NotebookModel): boolean {
  let made: SyntaxNode | null = null;
  for (let t = ref; t.parent; ) {
    const p: SyntaxNode = t.parent;
    if ((p.type === 'subscript' && field(p, 'value')?.id === t.id) || p.type === 'parenthesized_expression') {
      t = p;
    } else if (p.type === 'attribute' && field(p, 'object')?.id === t.id) {
      const attr = field(p, 'attribute')?.text ?? '';
      const call = p.parent;
      if (call?.type !== 'call' || field(call, 'function')?.id !== p.id) {
        t = p; // `.T`, `.real`, `.flat`: views
      } else if (attr === 'setfield' || attr === 'itemset') {
        return true;
      } else if (VIEW_METHODS.has(attr) || (attr === 'astype' && /\bcopy\s*=\s*False\b/.test(call.text))) {
        t = made = call;
      } else {
        break;
      }
    } else if (p.type === 'argument_list' && p.parent?.type === 'call' && callArguments(p.parent).positional[0]?.id === t.id) {
      const fn = field(p.parent, 'function');
      const q = fn ? model.qualifiedName(fn) ?? '' : '';
      if (!/^numpy\./.test(q) || !VIEW_FUNCTIONS.has(q.slice(q.lastIndexOf('.') + 1))) {
        break;
      }
      t = made = p.parent;
    } else {
      break;
    }
  }
  // from the last view made, what inPlaceUpdate follows (indexing, `.fill(0)`, `out=`, np.copyto)
  return made !== null && inPlaceUpdate(made, model) !== null;
}

/**
 * Does the cell change the array `name` holds in place (the cell's `mutates`, any
 * `inPlaceUpdate` of a reference to it), or through a view that a cell name holds and the cell
 * changes (`w = u[1:-1]; w[...] = 0`)?
 */
export function updatedInCell(root: SyntaxNode, name: string, mutates: ReadonlySet<string>, model: NotebookModel): boolean {
  if (mutates.has(name)) {
    return true;
  }
  return globalReferences(root, name).some(r => {
    if (inPlaceUpdate(r, model) !== null || updatedThroughMadeView(r, model)) {
      return true;
    }
    // through a view only when the cell updates some name in place (`mutates`: most cells none)
    if (mutates.size === 0) {
      return false;
    }
    const e = escapingUse(r, model);
    return e?.kind === 'alias' && e.holders.some(h => h !== name && mutates.has(h));
  });
}

/**
 * May the array `name` holds change while `cell` runs, between source offsets `from` and `to` of
 * it (the whole cell by default)? The one notion of "changed" that the plan (forgetChanged: may a
 * host copy made before the cell still stand for the array after it) and a cell's shared host copy
 * (sharedHostCallCopies: may consumers after `from` read one copy made there) share:
 * - a rebinding (`name = ...`) in the range;
 * - an in-place update of it (`inPlaceUpdate`: `w[0] = 0`, `w += 1`, `out=w`, `np.copyto(w, v)`),
 *   one through a view a call makes of it (`w.reshape(4000, 5000)[:, 0] = 0.0`,
 *   `np.fill_diagonal(w.reshape(n, n), 0)`) or through a name the cell made share it
 *   (`v = w[1:]; v[...] = 0`), or one the cell's facts know and no reference shows (anywhere);
 * - a use in the range that lets other code keep or change it (escapingUse), except a call of a
 *   notebook function that keeps none of its arguments and changes none (keepsNoArgument: not
 *   `def clip_inplace(a): np.clip(a, 0, 0.5, out=a)`), and a read in a function or lambda (which
 *   may run anywhere after: before `from`, only one that may change it);
 * - an update of another name sharing its memory since earlier cells (memorySharers);
 * - a call in the range of a notebook function of another cell that may change it
 *   (`clear_start()`, `def clear_start(): env_s[:1000] = 0.0`).
 * References `skip` accepts are left out (the consumers that read the copy itself).
 */
export function changedWithin(
  root: SyntaxNode,
  cell: CellModel,
  model: NotebookModel,
  name: string,
  from = 0,
  to = Infinity,
  skip: (ref: SyntaxNode) => boolean = () => false
): boolean {
  const facts = cell.facts!;
  const inRange = (n: SyntaxNode): boolean => n.endIndex > from && n.startIndex < to;
  const whole = from <= 0 && to === Infinity;
  // the updates in place of the array `n` holds that references show (through aliases the cell makes too)
  const located = (n: string): SyntaxNode[] => [...inPlaceUpdates(root, n, model), ...globalReferences(root, n).filter(r => updatedThroughMadeView(r, model))];
  const updatedAt = (n: string): boolean => {
    const at = located(n);
    return (facts.mutates.has(n) && at.length === 0) || at.some(inRange);
  };
  const updated = (n: string): boolean =>
    updatedAt(n) ||
    (facts.mutates.size > 0 &&
      globalReferences(root, n).some(r => {
        const e = r.startIndex < to ? escapingUse(r, model) : null;
        return e?.kind === 'alias' && e.holders.some(h => h !== n && facts.mutates.has(h) && updatedAt(h));
      }));
  // a use through which other code may keep or change the array
  const escapes = (r: SyntaxNode): boolean => {
    const e = escapingUse(r, model);
    return e !== null && !(e.kind === 'call' && keepsNoArgument(r, e.holders[0], model));
  };
  const rebound = facts.writes.has(name) && (whole || !facts.assignments.some(a => a.name === name) || facts.assignments.some(a => a.name === name && inRange(a.statement)));
  return (
    rebound ||
    updated(name) ||
    globalReferences(root, name).some(r => {
      if (skip(r) || r.startIndex >= to) {
        return false;
      }
      const scoped = insideFunction(r, ['function_definition', 'lambda', 'class_definition']);
      if (inRange(r)) {
        return scoped || escapes(r);
      }
      // (a function of the cell defined before the range, which may run in it)
      return scoped && (inPlaceUpdate(r, model) !== null || updatedThroughMadeView(r, model) || escapes(r));
    }) ||
    memorySharers(name, cell, model).some(m => m.name !== null && m.name !== name && updated(m.name)) ||
    calledNotebookFunctions(root, cell, model, call => inRange(call)).some(f => functionMayChange(f.fn, name, model))
  );
}

/**
 * Does the call that `ref` escapes into (`holder`, escapingUse's `f()`) go to a function the
 * notebook defines that keeps none of its arguments? Every binding of the name must be a
 * module-level `def` (not decorated) whose body defines no function, lambda or class (which could
 * capture a parameter) and in which no reference to a parameter escapes (escapingUse: not
 * returned, stored, yielded or handed to code that may keep it). Such a call only reads the array
 * (`def psnr(a, ref): return 10 * np.log10(ref.max() ** 2 / np.mean((a - ref) ** 2))`): a host
 * copy passed in (`psnr(cp.asnumpy(noisy), cp.asnumpy(clean))`) gives the same result, and
 * nothing is left holding the copy that a later change of the array should reach. A function that
 * updates a parameter in place (`inPlaceUpdate`, or through a view it makes: `a.reshape(-1)[0] = 0`)
 * is no such call: the change would reach the copy.
 */
export function keepsNoArgument(ref: SyntaxNode, holder: string, model: NotebookModel): boolean {
  let call: SyntaxNode | null = null;
  for (let p = ref.parent; p && !call; p = p.parent) {
    const args = p.type === 'call' ? field(p, 'arguments') : null;
    if (args && isInside(ref, args) && `${field(p, 'function')?.text}()` === holder) {
      call = p;
    }
  }
  const fn = call ? field(call, 'function') : null;
  const bindings = fn?.type === 'identifier' ? model.bindings.get(fn.text) ?? [] : [];
  return (
    bindings.length > 0 &&
    bindings.every(b => {
      const root = model.cells[b.cellIndex]?.tree?.rootNode;
      const def = root ? kids(root).find(s => s.type === 'function_definition' && field(s, 'name')?.text === fn!.text && s.startIndex <= b.at && b.at <= s.endIndex) : undefined;
      const params = def ? field(def, 'parameters') : null;
      const body = def ? field(def, 'body') : null;
      if (!params || !body) {
        return false;
      }
      const names = new Set(parameterNames(params));
      // (nor changes one in place: the copy would take the change, the array not)
      let keeps = false;
      walk(body, n => {
        if (keeps) {
          return false;
        }
        if (n.type === 'function_definition' || n.type === 'lambda' || n.type === 'class_definition') {
          keeps = true;
        } else if (n.type === 'identifier' && names.has(n.text) && (escapingUse(n, model) !== null || inPlaceUpdate(n, model) !== null || updatedThroughMadeView(n, model))) {
          keeps = true;
        }
        return !keeps;
      });
      return !keeps;
    })
  );
}

/**
 * Whether the memory `name` shares with `sharers` may be updated in place from cell `from` on
 * (by any cell at or after it, through `name` or a named sharer): then a copy of it is told
 * apart from the array itself. A sharer with no name (a call that kept it, a function that
 * returns it, an unknown origin) may be updated anywhere: yes.
 */
export function updatedFrom(name: string, sharers: readonly MemorySharer[], from: number, model: NotebookModel): boolean {
  return sharers.some(s => s.name === null) || updatedInPlaceFrom([name, ...sharers.map(s => s.name as string)], from, model);
}

/**
 * Is the array one of `holders` names updated in place (`updatedInCell`) by a cell at index
 * `from` or later? Only cells that read a holder can update through it (`x[i] = v`, `x += 1`,
 * `out=x`, `x.sort()` all read `x`), so the holders' readers are asked: a tracked rule depends on
 * those names' readers, not on every cell.
 */
export function updatedInPlaceFrom(holders: readonly string[], from: number, model: NotebookModel): boolean {
  return holders.some(h => model.readers(h).some(c => c.index >= from && !!c.tree && !!c.facts && updatedInCell(c.tree.rootNode, h, c.facts.mutates, model)));
}

/** The write-back line's comment: what else sees the host array. */
function sharerComment(s: MemorySharer): string {
  switch (s.kind) {
    case 'alias':
    case 'container':
    case 'view-of':
      return `${s.holder} shares its memory (cell ${s.cellIndex})`;
    case 'call':
      return `${s.holder} may have kept it (cell ${s.cellIndex})`;
    case 'returned':
      return `${s.holder} returns it (cell ${s.cellIndex})`;
    default:
      return s.cellIndex < 0 ? 'bound outside the notebook, it may be shared' : `it comes from ${s.holder} (cell ${s.cellIndex})`;
  }
}

/**
 * Arguments of calls that need host data: plotting, pandas, other libraries, file writes,
 * Python builtins that iterate (sum, list, sorted...). Excludes NumPy/SciPy calls (rewritten),
 * methods on arrays, and builtins CuPy arrays satisfy (print, len, float...).
 */
export function collectHostConsumerArgs(root: SyntaxNode, model: NotebookModel, cell: CellModel, arrays: ReadonlySet<string>): SyntaxNode[] {
  const args: SyntaxNode[] = [];
  walkTypes(root, CALL, n => {
    if (isHostConsumerCall(n, model, cell, arrays)) {
      for (const inner of hostArguments(n)) {
        if (mentions(inner, arrays)) {
          args.push(inner);
        }
      }
    }
    return true;
  });
  // a value stored into pandas data (`df["y"] = y.sum(axis=0)`, `df.loc[:, "v"] = v`, `s.iloc[:3]
  // += d`): pandas takes it as NumPy data (a CuPy array is a TypeError there), a host consumer's
  // argument like `df.assign(y=...)`'s
  walkTypes(root, ASSIGNMENTS, n => {
    const right = field(n, 'right');
    // (not pandas data computed there, `s - df["m"]`: pandas' own, its device operand copied)
    if (right && storesIntoPandas(field(n, 'left'), model, cell) && mentions(right, arrays) && !readsPandasData(right, model, cell)) {
      args.push(right);
    }
    return true;
  });
  return args;
}

/** Is `target` an item of a pandas DataFrame or Series (`df["y"]`, `df.loc[...]`, `s.iloc[...]`)? */
function storesIntoPandas(target: SyntaxNode | null, model: NotebookModel, cell: CellModel): boolean {
  if (target?.type !== 'subscript') {
    return false;
  }
  let base = unparen(field(target, 'value') ?? target);
  if (base.type === 'attribute' && /^(loc|iloc|at|iat)$/.test(field(base, 'attribute')?.text ?? '')) {
    base = unparen(field(base, 'object') ?? base);
  }
  const kind = model.inferValue(base, cell).kind;
  return kind === 'dataframe' || kind === 'series';
}

/**
 * NumPy's fits, solves and factorisations (`numpy.` paths) that a small problem runs on the host:
 * `tinyHostSolve`.
 */
const SMALL_PROBLEM_CALLS: ReadonlySet<string> = new Set([
  'polyfit', 'linalg.lstsq', 'linalg.solve', 'linalg.inv', 'linalg.pinv', 'linalg.det', 'linalg.slogdet', 'linalg.eig', 'linalg.eigh',
  'linalg.eigvals', 'linalg.eigvalsh', 'linalg.svd', 'linalg.qr', 'linalg.cholesky', 'linalg.matrix_rank'
]);

/**
 * Is `call` (`numpy.<path>`) a fit, solve or factorisation of arrays all known to be small (at
 * most SMALL_HOST_ELEMENTS elements each, as the model knows them: an exact shape or an upper
 * bound), such as a line fitted to 30 points (`np.polyfit(lags * dt_b, msd, 1)`)? On the device
 * it would be CuPy's polyfit or solve through cuSOLVER and cuBLAS: several launches and syncs
 * (and, in a fresh session, loading those libraries) for microseconds of LAPACK work on the host.
 * It stays NumPy's, a host consumer: device arguments are copied to the host where they are
 * passed (`cp.asnumpy(msd)`, a few hundred bytes), and its result is a host value, as NumPy gives
 * it. Batched or large problems (l_kalman's 20,000 2x2 solves) stay on the device.
 */
function tinyHostSolve(call: SyntaxNode, path: string, model: NotebookModel, cell: CellModel): boolean {
  if (!SMALL_PROBLEM_CALLS.has(path)) {
    return false;
  }
  const { positional, keywords } = callArguments(call);
  const arrays = [...positional, ...keywords.values()].filter(a => ['ndarray', 'sparse', 'unknown'].includes(model.inferValue(a, cell).kind));
  return arrays.length > 0 && arrays.every(a => (elementsAtMost(a, call, model, cell) ?? Infinity) <= SMALL_HOST_ELEMENTS) && readOnHost(call, model, cell);
}

/**
 * Does the cell take the value of `e` (a small solve's result) only as host code takes it: the
 * value itself, indexed by numbers or combined with them (`np.polyfit(x, y, 1)[0] / 4`), shown,
 * formatted, printed, handed to a Python builtin or a host consumer, or bound to names the cell
 * reads only so? A value meeting device work (`r = w / w.sum()` with `w` from an eigh) keeps the
 * call on the device: the rewrite does not follow host values through later statements. With
 * `indexes`, a value used as an index (`env[peaks]`, `env[peaks] = 0`) counts as read on the host
 * too: CuPy copies a NumPy index array to the device itself, reading or writing
 * (`_prepare_slice_list` in `_ndarray_getitem` and `_scatter_op`, cupy/_core/_routines_indexing.pyx),
 * NumPy takes it as it is.
 */
function readOnHost(e: SyntaxNode, model: NotebookModel, cell: CellModel, indexes = false, host: ReadonlySet<string> = NO_NAMES): boolean {
  // numbers, slices, string keys, or names bound to the host value itself (`props` beside
  // `peaks`): no device value (`peaks[env[peaks] > 1.2]` would index a NumPy array with a CuPy
  // mask, which CuPy refuses to convert implicitly)
  const hostIndex = (sub: SyntaxNode, value: SyntaxNode): boolean => kids(sub).every(k => k.id === value.id || readsOnlyNumbers(k, model, cell, host));
  let n = e;
  for (let p = n.parent; p; n = p, p = n.parent) {
    if (p.type === 'subscript' && field(p, 'value')?.id === n.id) {
      if (!hostIndex(p, n)) {
        return false;
      }
      continue;
    }
    if (p.type === 'parenthesized_expression' || p.type === 'unary_operator') {
      continue;
    }
    if (indexes && p.type === 'subscript') {
      return true; // an index, which CuPy copies over where it indexes a device array
    }
    if (p.type === 'binary_operator' || p.type === 'comparison_operator') {
      const other = kids(p).find(k => k.id !== n.id);
      if (!other || !readsOnlyNumbers(other, model, cell)) {
        return false;
      }
      continue;
    }
    if (p.type === 'interpolation' || (p.type === 'expression_statement' && p.parent?.type === 'module')) {
      return true; // formatted, or the cell's shown value (NumPy's, as the original shows)
    }
    // iterated by a comprehension that computes Python values from its items alone
    // (`[[s.stop - s.start for s in sl] for sl in ndi.find_objects(labels)]`): the comprehension's
    // list is a host value in turn
    if (p.type === 'for_in_clause' && field(p, 'right')?.id === n.id) {
      const comp = p.parent;
      if (!comp || !COMPREHENSIONS.has(comp.type) || !computesFromItems(comp, n, model, cell)) {
        return false;
      }
      p = comp;
      continue;
    }
    if (p.type === 'argument_list' || p.type === 'keyword_argument') {
      const call = p.type === 'argument_list' ? p.parent : p.parent?.parent;
      const fn = call?.type === 'call' ? field(call, 'function') : null;
      // (a list of Python numbers made into an array: `np.array([...])` builds it on the device
      // from the host values, as cp.array takes nested lists; not a set, of which NumPy makes a
      // 0-d object array holding it and CuPy, which has no object dtype, nothing)
      const listToArray = n.type === 'list_comprehension' && p.type === 'argument_list' && kids(p)[0]?.id === n.id && !!fn && /^numpy\.(array|asarray)$/.test(model.qualifiedName(fn) ?? '');
      return !!fn && (listToArray || (fn.type === 'identifier' && HOST_VALUE_BUILTINS.has(fn.text)) || isHostConsumerCall(call!, model, cell, NO_NAMES));
    }
    if (p.type === 'assignment' && field(p, 'right')?.id === n.id && p.parent?.type === 'expression_statement' && p.parent.parent?.type === 'module') {
      const left = field(p, 'left');
      const names = left?.type === 'identifier' ? [left] : left?.type === 'pattern_list' || left?.type === 'tuple_pattern' ? kids(left) : [];
      if (names.length === 0 || !names.every(t => t.type === 'identifier')) {
        return false;
      }
      const root = cell.tree!.rootNode;
      const bound = new Set([...host, ...names.map(t => t.text)]);
      return names.every(t => globalReferences(root, t.text).every(r => r.startIndex < p.endIndex || readOnHost(r, model, cell, indexes, bound)));
    }
    return false;
  }
  return false;
}

/**
 * The number of elements of array expression `e` (read at `at`), or an upper bound of it, as far
 * as the model knows it: its inferred size, or, for a name the cell binds before `at` once to
 * `np.array([<number> for v in <array>])` (one value per item of an array of known size: an
 * MSD per lag), that array's size. Undefined when unknown.
 */
function elementsAtMost(e: SyntaxNode, at: SyntaxNode, model: NotebookModel, cell: CellModel): number | undefined {
  const v = model.inferValue(e, cell);
  const size = v.kind === 'ndarray' ? (v.shape && !v.approx ? shapeSize(v.shape) : v.size) : undefined;
  const u = unparen(e);
  if (size !== undefined || u.type !== 'identifier') {
    return size;
  }
  const binds = cell.facts!.assignments.filter(a => a.name === u.text);
  const value = binds.length === 1 && !binds[0].augmented && !binds[0].nested && binds[0].at < at.startIndex ? binds[0].value : null;
  const fn = value?.type === 'call' ? field(value, 'function') : null;
  const args = value?.type === 'call' ? callArguments(value) : null;
  const list = args?.positional.length === 1 && args.keywords.size === 0 ? unparen(args.positional[0]) : null;
  if (!fn || !/^numpy\.(array|asarray)$/.test(model.qualifiedName(fn) ?? '') || list?.type !== 'list_comprehension') {
    return undefined;
  }
  const clauses = kids(list).filter(k => k.type === 'for_in_clause' || k.type === 'if_clause');
  const body = field(list, 'body');
  const over = clauses.length === 1 ? field(clauses[0], 'right') : null;
  const item = body ? model.inferValue(body, cell) : null;
  const one = item?.kind === 'scalar' || (item?.kind === 'ndarray' && item.shape?.length === 0);
  const n = over && one ? model.inferValue(over, cell) : null;
  // (an array yields at most as many items as it has elements: rows of a 2-D one are fewer)
  return n?.kind === 'ndarray' ? (n.shape && !n.approx ? shapeSize(n.shape) : n.size) : undefined;
}

/**
 * Does this call need its arguments on the host (plotting, pandas, files, iterating builtins, a
 * small solve, a SciPy call cupyx would run as a loop over device values: hostLoopArgument)?
 */
function isHostConsumerCall(n: SyntaxNode, model: NotebookModel, cell: CellModel, arrays: ReadonlySet<string>): boolean {
  const fn = field(n, 'function');
  if (!fn) {
    return false;
  }
  const q = model.qualifiedName(fn);
  if (q) {
    const dot = q.indexOf('.');
    const lib = dot < 0 ? q : q.slice(0, dot);
    const path = q.slice(lib.length + 1);
    // (scipy.stats.norm's methods of arrays become cupyx.scipy.special arithmetic: scipy-norm.ts)
    return lib === 'numpy'
      ? NUMPY_HOST_IO_CONSUMERS.has(path) || tinyHostSolve(n, path, model, cell)
      : lib === 'scipy'
        ? (!cupyxHasScipyPath(path) || hostLoopArgument(n, path) !== undefined) && !isNormMethod(q)
        : lib !== 'cupy' && lib !== 'cupyx' && lib !== 'math';
  }
  if (fn.type === 'identifier') {
    const defined = model.bindings.get(fn.text)?.some(b => b.value.kind === 'function');
    // (`abs(x)` of an array, not a 0-d one, is `x.__abs__()`: np.absolute on the host,
    // cp.absolute on the device, an array either way, not host data; CuPy's fusion has no
    // __abs__, so fused chains take it as an argument computed outside)
    const arg = fn.text === 'abs' ? callArguments(n).positional[0] : undefined;
    const av = arg ? model.inferValue(arg, cell) : null;
    const arrayAbs = !defined && av?.kind === 'ndarray' && !isZeroD(av);
    // (range's arguments are Python integers, a device one made one by hostIndexAround)
    return !DEVICE_SAFE_BUILTINS.has(fn.text) && !INDEX_BUILTINS.has(fn.text) && !arrayAbs && !builtinDivmodOfArrays(n, model, cell) && !defined && !arrays.has(fn.text) && !sumsItems(n);
  }
  if (fn.type === 'attribute') {
    const obj = field(fn, 'object');
    const objValue = obj ? model.inferValue(obj, cell) : undefined;
    const onArray = obj ? mentions(obj, arrays) || objValue?.kind === 'ndarray' : false;
    const onString = obj?.type === 'string';
    return !onArray && !onString && objValue?.kind !== 'rng';
  }
  return false;
}

/**
 * Is `call` Python's `divmod(x, y)` (the builtin, not rebound) of arrays, one operand an array of
 * one or more dimensions? It is `x.__divmod__(y)`: NumPy's `np.divmod` on the host, CuPy's
 * `cp.divmod` on the device, a pair of arrays either way, not host data (as `abs(x)` is). Float
 * operands get `np_divmod` on the device (floatFloorOpSites: CuPy's float divmod is one period
 * off), integer ones CuPy's, which is NumPy's; a 0-d operand (a NumPy scalar there) stays a host
 * consumer.
 */
function builtinDivmodOfArrays(call: SyntaxNode, model: NotebookModel, cell: CellModel): boolean {
  const fn = field(call, 'function');
  if (fn?.type !== 'identifier' || fn.text !== 'divmod' || model.qualifiedName(fn) !== null || model.bindings.has('divmod')) {
    return false;
  }
  const { positional, keywords } = callArguments(call);
  if (positional.length !== 2 || keywords.size > 0 || positional.some(a => a.type === 'list_splat' || a.type === 'dictionary_splat')) {
    return false;
  }
  return positional.some(a => {
    const v = model.inferValue(a, cell);
    return v.kind === 'ndarray' && !isZeroD(v);
  });
}

/** Literal collections whose items Python's `sum` adds (`sum(a * k for k in ks)`, `sum([a, b])`). */
const ITEM_COLLECTIONS: ReadonlySet<string> = new Set(['generator_expression', 'list_comprehension', 'list', 'tuple']);

/**
 * Is `call` Python's `sum` over a collection written in place (a generator, a comprehension, a
 * list or tuple display)? It is `start + item0 + item1 + ...`: each `+` takes CuPy arrays and
 * 0-d values as it takes NumPy's and gives a CuPy value, so the items stay on the device (a host
 * copy of each, mixed with device arrays later, is a TypeError on CuPy and a copy per item).
 * `sum(y)` of one array still iterates it element by element on the host: a host consumer.
 */
function sumsItems(call: SyntaxNode): boolean {
  const fn = field(call, 'function');
  if (fn?.text !== 'sum') {
    return false;
  }
  const args = field(call, 'arguments');
  const first = args?.type === 'generator_expression' ? args : callArguments(call).positional[0];
  return !!first && ITEM_COLLECTIONS.has(unparen(first).type);
}

/**
 * The values a host call receives: its arguments, and the elements of literal containers among
 * them (`pd.DataFrame({"a": y})` receives `y`), so each array gets its own host copy.
 */
function hostArguments(call: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const add = (a: SyntaxNode): void => {
    const inner = a.type === 'list_splat' || a.type === 'dictionary_splat' ? kids(a)[0] ?? a : a;
    const u = unparen(inner);
    if (u.type === 'dictionary') {
      for (const pair of kids(u)) {
        const value = pair.type === 'pair' ? field(pair, 'value') : pair;
        if (value) {
          add(value);
        }
      }
    } else if (u.type === 'list' || u.type === 'tuple' || u.type === 'set') {
      kids(u).forEach(add);
    } else {
      out.push(inner);
    }
  };
  const { positional, keywords } = callArguments(call);
  for (const a of [...positional, ...keywords.values()]) {
    add(a);
  }
  return out;
}

/**
 * NumPy/SciPy expressions built only for a host consumer (`pd.DataFrame({"k": np.random.rand(n)})`,
 * `plt.plot(np.linspace(0, 1, 100))`): they read no array, so they stay NumPy on the host
 * (moving them would hand the consumer a device array, or cost a copy back for nothing).
 */
function hostOnlyExpressions(root: SyntaxNode, model: NotebookModel, cell: CellModel): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const none: ReadonlySet<string> = new Set();
  const readsArray = (e: SyntaxNode): boolean => {
    let hit = false;
    walkTypes(e, IDENTIFIER, k => {
      if (hit) {
        return false;
      }
      if (isValueIdentifier(k)) {
        const kind = model.inferValue(k, cell).kind;
        if (kind === 'ndarray' || kind === 'sparse' || kind === 'rng') {
          hit = true;
        }
      }
      return true;
    });
    return hit;
  };
  // a NumPy/SciPy call on pandas data (`np.log10(df["mag"])`, `np.abs(t["a"] - t["b"])`): CuPy's
  // functions take no Series or DataFrame (TypeError), and pandas keeps its own on the host
  // (looked for only in notebooks that import pandas; one that reaches device work is moved
  // there by hostArrayUploads)
  const usesPandas = importsAny(model, ['pandas']);
  const readsPandas = (e: SyntaxNode): boolean => readsPandasData(e, model, cell);
  walkTypes(root, CALL, n => {
    if (isHostConsumerCall(n, model, cell, none)) {
      for (const inner of hostArguments(n)) {
        if (!readsArray(inner)) {
          out.push(inner);
        }
      }
      return true;
    }
    const fn = field(n, 'function');
    const q = usesPandas && fn ? model.qualifiedName(fn) : null;
    if (q && (q.startsWith('numpy.') || q.startsWith('scipy.'))) {
      const args = callArguments(n);
      const all = [...args.positional, ...args.keywords.values()];
      if (all.some(readsPandas) && !all.some(readsArray)) {
        out.push(n);
        return false;
      }
    }
    return true;
  });
  // a small parameter array a host loop walks (`for s in np.linspace(0.5, 2, 4)`, a comprehension
  // over one): made on the device, each item would be a 0-d device array, and every call taking
  // it as a host parameter (a cupyx filter's sigma, a Python `if`) would wait for the GPU; kept
  // NumPy, its items are host scalars (small by construction: at most SMALL_ITERATIONS items)
  // (one bound to a name first, `sigmas = np.linspace(...)`, is small-host-arrays.ts's)
  walkTypes(root, ['for_statement', 'for_in_clause'], n => {
    const right = field(n, 'right');
    if (right && !readsArray(right) && isSmallHostParameterArray(right, model, cell)) {
      out.push(right);
    }
    return true;
  });
  // a container the cell binds (`d = {"x": np.random.rand(n)}`) hands its elements to later
  // cells, which no copy back reaches: elements that read no array are made on the host
  walkTypes(root, ASSIGNMENTS, n => {
    const value = field(n, 'right');
    const u = value ? unparen(value) : null;
    if (u && CONTAINERS.has(u.type)) {
      for (const element of containerElements(u)) {
        if (!readsArray(element)) {
          out.push(element);
        }
      }
    }
    return true;
  });
  return out;
}

/**
 * Is `it` a NumPy array made in place (`np.linspace(0.5, 2, 4)`, `np.array([1, 2, 4])`) of at most
 * SMALL_ITERATIONS items, the model knowing its length: a loop's parameters, not data?
 */
function isSmallHostParameterArray(it: SyntaxNode, model: NotebookModel, cell: CellModel): boolean {
  const n = unparen(it);
  const fn = n.type === 'call' ? field(n, 'function') : null;
  if (!fn || !model.qualifiedName(fn)?.startsWith('numpy.')) {
    return false;
  }
  const v = model.inferValue(n, cell);
  const first = v.kind === 'ndarray' && v.shape && !v.approx ? v.shape[0] : undefined;
  return typeof first === 'number' && first <= SMALL_ITERATIONS;
}

/** The `for` and `while` statements whose body holds `node`, within `root`. */
function loopsAround(node: SyntaxNode, root: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let child = node, p = node.parent; p && child.id !== root.id; child = p, p = p.parent) {
    if ((p.type === 'for_statement' || p.type === 'while_statement') && child.fieldName === 'body') {
      out.push(p);
    }
  }
  return out;
}

/**
 * Does the notebook import one of `libraries` (or a part of one)? Pandas' and scikit-learn's
 * objects hand out host arrays.
 */
function importsAny(model: NotebookModel, libraries: readonly string[]): boolean {
  let uses = false;
  model.aliases.forEach(q => {
    uses ||= libraries.some(l => q === l || q.startsWith(`${l}.`));
  });
  return uses;
}

/**
 * Can the cell hold pandas data at all: does it read the pandas module (or a name imported from
 * it), or a name that is a Series or DataFrame when the cell starts? The values pandasValued finds
 * come from pandas calls or from such names, so a cell that reads neither needs no walk over its
 * operators (most cells of a notebook that imports pandas somewhere).
 */
function readsPandas(cell: CellModel, model: NotebookModel): boolean {
  if (model.starImports.has('pandas')) {
    return true;
  }
  for (const name of cell.facts?.reads ?? []) {
    const q = model.aliases.get(name);
    const kind = q === undefined ? model.valueBefore(name, cell, 0).kind : undefined;
    if (q === 'pandas' || q?.startsWith('pandas.') || kind === 'series' || kind === 'dataframe') {
      return true;
    }
  }
  return false;
}

/** Does `e` read a DataFrame or a Series? */
function readsPandasData(e: SyntaxNode, model: NotebookModel, cell: CellModel): boolean {
  let hit = false;
  walkTypes(e, IDENTIFIER, k => {
    if (!hit && isValueIdentifier(k)) {
      const kind = model.inferValue(k, cell).kind;
      hit = kind === 'dataframe' || kind === 'series';
    }
    return !hit;
  });
  return hit;
}

/** NumPy functions that hand pandas data back as pandas data (a ufunc's `__array_ufunc__`, or the object's own method). */
const PANDAS_KEEPING = new Set(['clip', 'round', 'around', 'cumsum', 'cumprod', 'squeeze', 'transpose', 'repeat', 'take']);

/**
 * Is `e` a pandas Series or DataFrame: pandas data itself, a NumPy ufunc (or a function pandas
 * answers with its own method) of one (`np.log10(df["m"])`), an operator with one (pandas wins an
 * operator with a NumPy array), or a name the cell bound to one before `e`?
 */
function pandasValued(e: SyntaxNode, model: NotebookModel, cell: CellModel, depth = 0): boolean {
  const u = unparen(e);
  const kind = model.inferValue(u, cell).kind;
  if (kind === 'series' || kind === 'dataframe') {
    return true;
  }
  if (depth > 4) {
    return false;
  }
  if (u.type === 'binary_operator' || u.type === 'unary_operator') {
    return kids(u).some(k => pandasValued(k, model, cell, depth + 1));
  }
  const fn = u.type === 'call' ? field(u, 'function') : null;
  const name = fn ? /^numpy\.(\w+)$/.exec(model.qualifiedName(fn) ?? '')?.[1] : undefined;
  if (name !== undefined && (NUMPY_UFUNC_NIN.has(name) || PANDAS_KEEPING.has(name))) {
    // a ufunc of any pandas input; the method-backed functions of their first argument
    const inputs = callArguments(u).positional.slice(0, NUMPY_UFUNC_NIN.get(name) ?? 1);
    return inputs.some(a => pandasValued(a, model, cell, depth + 1));
  }
  if (u.type === 'identifier' && cell.facts) {
    const binding = cell.facts.assignments.filter(a => a.name === u.text && a.at <= u.startIndex && a.value).pop();
    return !!binding?.value && !binding.augmented && pandasValued(binding.value, model, cell, depth + 1);
  }
  return false;
}

/** NumPy's reductions that give one value of an array when no axis is given. */
const WHOLE_REDUCTIONS = new Set(
  'sum prod mean std var max min amax amin argmax argmin nansum nanmean nanstd nanvar nanmax nanmin all any count_nonzero median average ptp'.split(' ')
);

/** NumPy's functions that make an array of their argument: on pandas data, CuPy's take it as they do (through NumPy). */
const NUMPY_ARRAY_MAKERS = new Set(['numpy.asarray', 'numpy.array', 'numpy.asanyarray', 'numpy.ascontiguousarray']);

/**
 * Host arrays made from pandas data (or by a scikit-learn estimator) that meet device work in the
 * cell, and how each reaches the device. They are `df["m"].to_numpy()`, `s.values`,
 * `np.asarray(s)`, NumPy calls on columns whose result is an array (`np.sort(df["m"])`,
 * `np.log10(df["m"].to_numpy())`; kept NumPy by hostOnlyExpressions for pandas' own use; a ufunc
 * of a Series is a Series, left to pandasOperandCopies), and `model.predict(X)`. They meet device
 * work as an operand of arithmetic with a device value, an argument of a CuPy call or of an update
 * of a device array, or through a name the cell binds to them (`m = s.to_numpy()` ... `y * m`).
 * CuPy takes no host array there (TypeError), so each is copied to the device once, where it is
 * made: `cp.asarray(df["m"].to_numpy())`. A NumPy ufunc of such arrays runs on the device on the
 * copies (`cp.log10(cp.asarray(df["m"].to_numpy()))`: the same bytes cross, and the device
 * computes), `np.asarray(s)` becomes `cp.asarray(s)` (CuPy reads a Series through NumPy). A name
 * later cells read, or that the model does not know as an array (no copy back would reach later
 * cells), stays the host value and is copied where it meets device work (`y + cp.asarray(m)`; once,
 * after its binding, where it is used so more than once). Host arrays that meet only host code
 * stay.
 */
function hostArrayUploads(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  refs: readonly LibraryRef[],
  deviceNames: ReadonlySet<string>,
  cp: string,
  fresh: (base: string) => string
): { edits: TextEdit[]; moved: LibraryRef[]; uploaded: SyntaxNode[]; host: string[] } {
  const none = { edits: [], moved: [], uploaded: [], host: [] };
  if (!importsAny(model, ['pandas', 'sklearn'])) {
    return none;
  }
  const onPandas = (n: SyntaxNode): boolean => {
    const kind = model.inferValue(n, cell).kind;
    return kind === 'dataframe' || kind === 'series';
  };
  // the host arrays the cell makes from pandas data, with the NumPy call's reference if one is
  const made = new Map<number, { node: SyntaxNode; ref?: LibraryRef }>();
  walkTypes(root, ['call', 'attribute'], n => {
    if (n.type === 'attribute') {
      const obj = field(n, 'object');
      const isCallee = n.parent?.type === 'call' && field(n.parent, 'function')?.id === n.id;
      if (!isCallee && field(n, 'attribute')?.text === 'values' && obj && onPandas(obj)) {
        made.set(n.id, { node: n });
      }
      return true;
    }
    const fn = field(n, 'function');
    const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
    const of = obj ? model.inferValue(obj, cell).kind : null;
    if (obj && ((of === 'estimator' && /^(predict|transform)$/.test(field(fn!, 'attribute')?.text ?? '')) || (field(fn!, 'attribute')?.text === 'to_numpy' && onPandas(obj)))) {
      made.set(n.id, { node: n });
      return true;
    }
    const ref = fn ? refs.find(r => r.node.id === fn.id && r.action === 'keep' && r.replacement !== undefined) : undefined;
    const args = callArguments(n);
    if (ref && ref.qualified.startsWith('numpy.') && [...args.positional, ...args.keywords.values()].some(a => readsPandasData(a, model, cell))) {
      // (a whole-column reduction is a NumPy scalar, which CuPy's arrays take as it is)
      // (a ufunc of a Series is a Series: pandasOperandCopies keeps it pandas')
      const scalar = WHOLE_REDUCTIONS.has(ref.qualified.slice('numpy.'.length)) && args.positional.length === 1 && !args.keywords.has('axis');
      if (!scalar && model.inferValue(n, cell).kind !== 'scalar' && !pandasValued(n, model, cell)) {
        made.set(n.id, { node: n, ref });
      }
    }
    return true;
  });
  if (made.size === 0) {
    return none;
  }
  // names bound to values made from them (`m = s.to_numpy()`, `z = m * 2`): host arrays, device
  // ones once a host array in their value is copied or their value reads device data
  const bound = new Map<string, SyntaxNode>();
  walkTypes(root, ['assignment'], a => {
    const left = field(a, 'left');
    const right = field(a, 'right');
    const inside = (e: SyntaxNode): boolean => [...made.values()].some(m => isInside(m.node, e)) || [...bound.keys()].some(k => mentions(e, new Set([k])));
    if (left?.type === 'identifier' && right && inside(right)) {
      bound.set(left.text, right);
    }
    return true;
  });
  // where host arrays are copied to the device: a made value, or the host expression around it
  // (`np.diff(m)[:10]`: the part used), or a reference to a name bound to one
  const chosen = new Map<number, SyntaxNode>();
  // names copied once after their binding, under a fresh name their device uses read (`m_gpu`)
  const copies = new Map<string, { statement: SyntaxNode; uses: SyntaxNode[] }>();
  const copiedRefs = new Set<number>();
  const assigned = new Map<string, number>();
  walkTypes(root, ASSIGNMENTS, a => {
    walkTypes(field(a, 'left') ?? a, IDENTIFIER, k => {
      assigned.set(k.text, (assigned.get(k.text) ?? 0) + 1);
      return false;
    });
    return true;
  });
  const isDevice = (e: SyntaxNode, depth = 0): boolean => {
    if (refs.some(r => r.action === 'cupy' && isInside(r.node, e)) || model.inferValue(e, cell).library === 'cupy' || [...chosen.values()].some(c => isInside(c, e))) {
      return true;
    }
    // (what a host array is made of is not device work: `model.predict(X)` is a host array
    // whatever `X` is)
    const hostMade = [...made.values()].filter(m => isInside(m.node, e)).map(m => m.node);
    let hit = false;
    walkTypes(e, IDENTIFIER, k => {
      const value = bound.get(k.text);
      hit ||=
        copiedRefs.has(k.id) ||
        (isValueIdentifier(k) && deviceNames.has(k.text) && !hostMade.some(h => isInside(k, h)) && (value === undefined || (depth < 4 && isDevice(value, depth + 1))));
      return !hit;
    });
    return hit;
  };
  const cupyCall = (call: SyntaxNode): boolean => {
    const fn = field(call, 'function');
    return !!fn && refs.some(r => r.action === 'cupy' && r.node.id === fn.id);
  };
  const scalarMethod = (call: SyntaxNode, name: string): boolean =>
    (WHOLE_REDUCTIONS.has(name) && callArguments(call).positional.length === 0 && !callArguments(call).keywords.has('axis')) || model.inferValue(call, cell).kind === 'scalar';
  // where the host array `e` meets device work, as the points to copy it at: the host expression
  // that reaches an operator or call with device data (arithmetic on it on the way stays `e`'s:
  // `cp.asarray(m) + 1` runs on the device), the references that do so of a name bound to it, or
  // none
  const deviceUses = (e: SyntaxNode, seen: Set<string>): SyntaxNode[] => {
    let n = e;
    let at = e;
    for (;;) {
      const p = n.parent;
      if (!p) {
        return [];
      }
      const method = p.type === 'attribute' && field(p, 'object')?.id === n.id && p.parent?.type === 'call' ? p.parent : null;
      if (p.type === 'parenthesized_expression' || p.type === 'unary_operator') {
        n = p;
      } else if ((p.type === 'subscript' && field(p, 'value')?.id === n.id) || (method && !scalarMethod(method, field(p, 'attribute')?.text ?? ''))) {
        // a part of the host array (`np.diff(m)[:10]`) is copied, not the whole; what its methods
        // make too (`m.astype(np.float32)`), but for a number (`m.sum()`: CuPy's arrays take it);
        // one picked by device values (`m[order]`, order a device array) is copied whole first
        const picks = method ? field(method, 'arguments') : p;
        if (picks && kids(picks).some(k => k.id !== n.id && isDevice(k))) {
          return [at];
        }
        n = method ?? p;
        if (at.id === e.id || isInside(at, n)) {
          at = n;
        }
      } else if (p.type === 'binary_operator' || p.type === 'comparison_operator') {
        if (kids(p).some(k => k.id !== n.id && isDevice(k))) {
          return [at];
        }
        n = p;
      } else if (p.type === 'argument_list' || (p.type === 'keyword_argument' && p.parent?.type === 'argument_list')) {
        const call = (p.type === 'argument_list' ? p : p.parent!).parent;
        return call && cupyCall(call) ? [at] : [];
      } else if (p.type === 'augmented_assignment' || (p.type === 'assignment' && field(p, 'left')?.type !== 'identifier')) {
        // `y += m`, `y[:n] = m` of a device array
        const left = field(p, 'left');
        return field(p, 'right')?.id === n.id && left && isDevice(left) ? [at] : [];
      } else if (p.type === 'assignment') {
        const name = field(p, 'left')!.text;
        if (seen.has(name)) {
          return [];
        }
        seen.add(name);
        const later = globalReferences(root, name).filter(r => r.startIndex >= p.endIndex);
        const uses = later.flatMap(r => deviceUses(r, seen));
        // copied once where it is made if only this cell reads the name and the model types it
        // as an array and the cell does not update it in place (NumPy's `to_numpy()` may be a
        // view of the table, which the update changes too); else where each use meets device
        // work (a later cell keeps the host array, with no copy back)
        const updated = inPlaceUpdates(root, name, model).length > 0;
        if (uses.length > 0 && deviceNames.has(name) && model.readersAfter(name, cell).length === 0 && !updated) {
          return [at];
        }
        // ... once, after the binding, under a fresh name, where the name itself is used on the
        // device more than once or in a loop the binding is not in (`y * m` in each pass)
        const statement = p.parent?.type === 'expression_statement' ? p.parent : p;
        const own = /^[ \t]*$/.test(root.text.slice(lineStart(root.text, statement.startIndex), statement.startIndex));
        const bare = uses.length > 0 && uses.every(u => u.type === 'identifier' && u.text === name);
        const looped = uses.some(u => loopsAround(u, root).some(l => !isInside(statement, l)));
        if (own && bare && !updated && assigned.get(name) === 1 && (uses.length > 1 || looped)) {
          copies.set(name, { statement, uses });
          uses.forEach(u => copiedRefs.add(u.id));
          return [];
        }
        return uses;
      } else {
        return [];
      }
    }
  };
  // bound names that become device arrays may make others meet device work: to a fixed point
  for (let changed = true; changed; ) {
    const copied = copies.size;
    changed = false;
    for (const { node } of made.values()) {
      if ([...chosen.values()].some(c => isInside(node, c))) {
        continue;
      }
      for (const use of deviceUses(node, new Set())) {
        changed ||= !chosen.has(use.id);
        chosen.set(use.id, use);
      }
    }
    changed ||= copies.size > copied;
  }
  const edits: TextEdit[] = [];
  const moved: LibraryRef[] = [];
  const uploaded: SyntaxNode[] = [];
  const wrap = (e: SyntaxNode): void => {
    edits.push(insert(e.startIndex, `${cp}.asarray(`), insert(e.endIndex, ')'));
    uploaded.push(e);
  };
  for (const c of chosen.values()) {
    // (outermost only: a column inside a chosen call is copied with it)
    if ([...chosen.values()].some(o => o.id !== c.id && isInside(c, o))) {
      continue;
    }
    const ref = made.get(c.id)?.ref;
    if (ref && NUMPY_ARRAY_MAKERS.has(ref.qualified)) {
      moved.push(ref);
      uploaded.push(c);
    } else if (ref && NUMPY_UFUNC_NIN.has(ref.qualified.slice('numpy.'.length))) {
      moved.push(ref);
      callArguments(c).positional.filter(a => readsPandasData(a, model, cell)).forEach(wrap);
    } else {
      wrap(c);
    }
  }
  for (const [name, { statement, uses }] of copies) {
    const source = root.text;
    const start = lineStart(source, statement.startIndex);
    const end = lineEnd(source, statement.endIndex);
    const copy = fresh(`${name}_gpu`);
    const line = `${source.slice(start, statement.startIndex)}${copy} = ${cp}.asarray(${name})`;
    edits.push(insert(end, end === source.length && !source.endsWith('\n') ? `\n${line}` : `${line}\n`));
    uses.forEach(u => edits.push(replace(u.startIndex, u.endIndex, copy)));
    uploaded.push(field(statement.type === 'expression_statement' ? kids(statement)[0] : statement, 'right') ?? statement);
  }
  // names only ever bound here to host values that stay host arrays: no device names (nothing to
  // copy back, no host copy for host code)
  const host = [...bound].filter(([name, value]) => assigned.get(name) === 1 && !isDevice(value)).map(([name]) => name);
  return { edits, moved, uploaded, host };
}

/**
 * Device values meeting pandas data in an operator (`s * df["m"]`, `df["m"] - y.max()`,
 * `df["w"] = s - df["m"]`): with NumPy, pandas wins the operator (the result is a Series or a
 * DataFrame, which the cell's later code may rely on), and pandas takes no CuPy array (TypeError):
 * the device operand gets a host copy (`cp.asnumpy(s) * df["m"]`; a 0-d one as NumPy's scalar)
 * and the operator stays pandas'; a NumPy ufunc of pandas data stays NumPy's (`kept`), on host
 * copies of its device arguments. The edits, the operands copied, the bytes copied, and the
 * names bound to pandas results only (no device names).
 */
function pandasOperandCopies(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  refs: readonly LibraryRef[],
  deviceNames: ReadonlySet<string>,
  cp: string
): { edits: TextEdit[]; copied: SyntaxNode[]; copiedBytes: number[]; bytes: number; kept: LibraryRef[]; host: string[] } {
  const out = { edits: [] as TextEdit[], copied: [] as SyntaxNode[], copiedBytes: [] as number[], bytes: 0, kept: [] as LibraryRef[], host: [] as string[] };
  if (!importsAny(model, ['pandas']) || !readsPandas(cell, model)) {
    return out;
  }
  const onDevice = (e: SyntaxNode): boolean =>
    mentions(e, deviceNames) || refs.some(r => r.action === 'cupy' && isInside(r.node, e)) || model.inferValue(e, cell).library === 'cupy';
  /** `e` (a device value) copied to the host where it stands, its bytes counted. */
  const copyToHost = (e: SyntaxNode): void => {
    const v = model.inferValue(e, cell);
    out.edits.push(...hostCopyAround(e, v, cp, model, cell));
    out.copied.push(e);
    out.copiedBytes.push(v.kind === 'ndarray' && v.size !== undefined ? v.size * itemSize(v.dtype) : 0);
    out.bytes += out.copiedBytes[out.copiedBytes.length - 1];
  };
  walkTypes(root, ['binary_operator', 'comparison_operator'], n => {
    if (out.copied.some(c => isInside(n, c))) {
      return false; // inside an operand copied whole
    }
    const operands = kids(n).filter(k => k.type !== 'comment');
    const pandas = operands.map(k => pandasValued(k, model, cell));
    if (!pandas.some(p => p)) {
      return true;
    }
    for (const [i, k] of operands.entries()) {
      if (!pandas[i] && onDevice(k)) {
        copyToHost(k);
      }
    }
    return true;
  });
  // so does a NumPy ufunc of pandas data and device values (`np.maximum(s, df["m"])`): NumPy's,
  // on a host copy of the device values (CuPy's takes no Series)
  for (const r of refs) {
    const call = r.node.parent;
    const name = /^numpy\.(\w+)$/.exec(r.qualified)?.[1];
    if (r.action !== 'cupy' || !name || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id || !pandasValued(call, model, cell)) {
      continue;
    }
    out.kept.push(r);
    for (const a of callArguments(call).positional) {
      if (!pandasValued(a, model, cell) && onDevice(a) && !out.copied.some(c => isInside(a, c) || isInside(c, a))) {
        copyToHost(a);
      }
    }
  }
  // names the cell binds only to pandas results (`v = s / lk`): no device names
  const bindings = cell.facts?.assignments ?? [];
  out.host = [...new Set(bindings.map(a => a.name))].filter(n => bindings.every(a => a.name !== n || (!!a.value && !a.augmented && pandasValued(a.value, model, cell))));
  return out;
}

const CONTAINERS = new Set(['dictionary', 'list', 'tuple', 'set']);

/** The values of a container literal, nested containers opened (`{"a": [x, y]}`: x, y). */
function containerElements(container: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (const k of kids(container)) {
    const value = k.type === 'pair' ? field(k, 'value') : k;
    const u = value ? unparen(value) : null;
    if (u && CONTAINERS.has(u.type)) {
      out.push(...containerElements(u));
    } else if (value && value.type !== 'comment') {
      out.push(value);
    }
  }
  return out;
}

/**
 * Refuses element-by-element loops: a `for` whose body assigns `x[i]` with `i` the loop
 * variable. When the body also reads `x` at another index (x[i-1]), it is a sequential
 * recurrence: each step needs the previous one, which no elementwise GPU rewrite preserves.
 */
function checkLoops(root: SyntaxNode, arrays: ReadonlySet<string>, model: NotebookModel, cell: CellModel, setups: ReadonlySet<number>): string | null {
  let reason: string | null = null;
  // only loops (and in their bodies, assignments) are visited: no node objects for other rows
  walkTypes(root, LOOPS, n => {
    if (reason || setups.has(n.id)) {
      return false;
    }
    const loopVars = new Set<string>();
    const left = field(n, 'left');
    if (left) {
      walk(left, k => {
        if (k.type === 'identifier') {
          loopVars.add(k.text);
        }
      });
    }
    const body = field(n, 'body');
    if (!body) {
      return true;
    }
    walkTypes(body, ASSIGNMENTS, s => {
      if (reason) {
        return false;
      }
      const target = field(s, 'left');
      if (target?.type !== 'subscript') {
        return true;
      }
      const arr = field(target, 'value');
      const index = field(target, 'subscript');
      if (!arr || !index || arr.type !== 'identifier') {
        return true;
      }
      const indexUsesLoop = loopVars.size === 0 || mentions(index, loopVars);
      if (!indexUsesLoop) {
        return true;
      }
      const right = field(s, 'right');
      let recurrence = false;
      if (right) {
        walk(right, r => {
          if (r.type === 'subscript' && field(r, 'value')?.text === arr.text && field(r, 'subscript')?.text !== index.text) {
            recurrence = true;
          }
          return !recurrence;
        });
      }
      if (s.type === 'augmented_assignment' && recurrence === false && right && mentions(right, new Set([arr.text]))) {
        recurrence = true;
      }
      if (recurrence) {
        reason = `sequential recurrence: \`${target.text}\` depends on another element of \`${arr.text}\` computed earlier in the loop; elementwise GPU code cannot preserve that order (use a scan such as cp.cumsum if it is one, or a sequential kernel)`;
      } else if (right && wholeArrayUse(right, arrays, loopVars)) {
        // each iteration does array work and stores its result: a large slice (`est[k] = x`, a
        // time step over (200000, 4) arrays) is GPU-sized work each step, and its store an
        // asynchronous device copy; a number or a small array (a bootstrap, a parameter scan) is
        // kernel launches for little work, which only batching the iterations pays for. A small
        // array stored from a step that rebinds a large one (a Kalman step over 20000 (4, 4)
        // covariances storing each track's (20000,) innovation statistic) is GPU-sized work too.
        const item = model.inferValue(right, cell);
        const isLarge = (v: typeof item): boolean => v.kind === 'ndarray' && v.size !== undefined && v.size >= SMALL_ARRAY_ELEMENTS;
        const large = isLarge(item) || (item.kind === 'ndarray' && !isZeroD(item) && rebindsLargeArray(body, model, cell, isLarge));
        if (!large) {
          reason = `a Python loop that stores ${isZeroD(item) || item.kind === 'scalar' ? 'one number' : item.kind === 'ndarray' ? 'one small array' : 'one result'} per iteration in \`${target.text}\`, each from array work: on the GPU every iteration would be several kernel launches for little data; batch the iterations into one array computation (all resamples or parameters at once) for the GPU, or keep the loop on the host`;
        }
      } else if (arrays.has(arr.text) || loopVars.size > 0) {
        reason = `element-by-element Python loop over \`${arr.text}\`: as CuPy calls each element would be a kernel launch; ${PER_ELEMENT_ADVICE} (or a vectorised rewrite)`;
      }
      return false;
    });
    return !reason;
  });
  return reason;
}

/**
 * Does a loop body bind a name to a large array each iteration (`P = np.einsum("ij,njk,lk->nil",
 * F, P, F) + Q` over 20000 stacked (4, 4) matrices)? Then each iteration is GPU-sized array work,
 * whatever the size of what it stores.
 */
function rebindsLargeArray(body: SyntaxNode, model: NotebookModel, cell: CellModel, isLarge: (v: ReturnType<NotebookModel['inferValue']>) => boolean): boolean {
  let hit = false;
  walkTypes(body, ['assignment'], s => {
    const target = field(s, 'left');
    const right = field(s, 'right');
    hit ||= target?.type === 'identifier' && !!right && isLarge(model.inferValue(right, cell));
    return !hit;
  });
  return hit;
}

/**
 * `np.array([np.nanmean(X[k][M]) for k in range(N)])` (see rowReduction) as the rows' reductions
 * in one, `cp.nanmean(X[:, M], axis=1)` (`cp.nanmean(X, axis=1)`), the same values in the same
 * dtype, without a launch, a mask's nonzero count and a wait per row. `device` names an array's
 * device name (null where the cell does not copy it whole).
 */
function rowReductionRewrites(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  refs: readonly LibraryRef[],
  cp: string,
  device: (name: string) => string | null
): (TextEdit & { from: string; row: RowReduction; comprehension: SyntaxNode })[] {
  const out: (TextEdit & { from: string; row: RowReduction; comprehension: SyntaxNode })[] = [];
  const moved = (fn: SyntaxNode | null): boolean => fn !== null && refs.some(r => r.node.id === fn.id && r.action === 'cupy');
  walkTypes(root, CALL, call => {
    const row = rowReduction(call, model, cell);
    if (!row || !moved(field(call, 'function')) || (row.reducer && !moved(row.reducer))) {
      return true;
    }
    const dx = device(row.x.text);
    const dm = row.mask ? device(row.mask.text) : null;
    if (!dx || (row.mask && !dm)) {
      return true;
    }
    const text = row.mask ? `${cp}.${row.red}(${dx}[:, ${dm}], axis=1)` : `${cp}.${row.red}(${dx}, axis=1)`;
    out.push({ start: call.startIndex, end: call.endIndex, text, from: call.text, row, comprehension: unparen(callArguments(call).positional[0]) });
    return false;
  });
  return out;
}

/**
 * Top-level `for` loops of a known count of at most SMALL_ARRAY_ELEMENTS that write elements of
 * one small array (under SMALL_ARRAY_ELEMENTS elements) the cell makes with NumPy just before
 * them (`fb = np.zeros((64, 513))`, then `fb[m, k] = 1.0` for 64 filters): set-up work, which
 * stays on the host with the array's creation; the array is copied to the device once after the
 * loop (`made`: its creation call). The body may bind scalar locals (`lo = m * 8`, `l, c, r =
 * bins[m - 1], ...`) and nest loops (`for k in range(l, c)`); of the cell's other arrays it reads
 * only small ones (`params`) made with NumPy before the loop and used nowhere else (this cell or
 * later), which stay on the host with it (`inputs`: their creations). Such an input may itself be
 * computed from other small arrays of the same kind (k_audio: `mpts = np.linspace(hz2mel(0), ...)`,
 * then `bins = np.floor((n_fft + 1) * mel2hz(mpts) / sr).astype(int)`), by NumPy calls, array
 * methods and notebook functions only: the whole chain stays on the host (a few hundred numbers,
 * where the device would launch kernels for each step and copy `bins` back to iterate it).
 */
function setupLoops(
  root: SyntaxNode,
  arrays: ReadonlySet<string>,
  model: NotebookModel,
  cell: CellModel
): { name: string; loop: SyntaxNode; made: SyntaxNode; trips: number; inputs: SyntaxNode[] }[] {
  const out: { name: string; loop: SyntaxNode; made: SyntaxNode; trips: number; inputs: SyntaxNode[] }[] = [];
  /**
   * The NumPy creation of a small `name` bound once before `at` (a creator call reading no array),
   * or its computation from other such arrays (`reads`: their names), or null.
   */
  /**
   * The definition in this cell of a notebook function `name` a chain may call on the host: its
   * body reads none of the cell's arrays and calls only NumPy's functions and array methods (kept
   * NumPy's with the chain: `hz2mel` is not rewritten for the device), or null.
   */
  const hostFunction = (name: string): SyntaxNode | null => {
    const def = kids(root).find(k => k.type === 'function_definition' && field(k, 'name')?.text === name) ?? null;
    const body = def ? field(def, 'body') : null;
    if (!def || !body || [...arrays].some(n => globalReferences(body, n).length > 0)) {
      return null;
    }
    let ok = true;
    walkTypes(body, CALL, c => {
      const fn = field(c, 'function');
      ok &&= fn?.type === 'attribute' && !!(model.qualifiedName(fn)?.startsWith('numpy.') || !model.qualifiedName(fn));
      return ok;
    });
    return ok ? def : null;
  };
  const smallHostMade = (name: string, at: number): { made: SyntaxNode; reads: string[]; functions: string[] } | null => {
    const binds = cell.facts!.assignments.filter(a => a.name === name);
    const made = binds.length === 1 && binds[0].at < at && !binds[0].augmented && !binds[0].nested ? binds[0].value : null;
    const size = model.valueBefore(name, cell, at).size;
    if (!made || size === undefined || size >= SMALL_ARRAY_ELEMENTS) {
      return null;
    }
    const reads = [...arrays].filter(n => n !== name && globalReferences(made, n).length > 0);
    let numpy = false;
    let other = false;
    const functions: string[] = [];
    walkTypes(made, CALL, c => {
      const fn = field(c, 'function');
      const q = fn ? model.qualifiedName(fn) ?? '' : '';
      numpy ||= NUMPY_CONTIGUOUS_CREATORS.test(q);
      // computed from other small host arrays: NumPy's calls, array methods, this cell's
      // notebook functions of NumPy's calls (kept NumPy's: see the chain's checks below)
      if (fn?.type === 'identifier' && hostFunction(fn.text)) {
        functions.push(fn.text);
      } else {
        other ||= !(q.startsWith('numpy.') || (fn?.type === 'attribute' && !q.startsWith('cupy')));
      }
      return true;
    });
    return (reads.length === 0 ? numpy : !other) ? { made, reads, functions } : null;
  };
  /** The small host arrays `names` read, and those their computations read, bound before `at`; null if one is not. */
  const smallHostChain = (names: string[], at: number): { name: string; made: SyntaxNode }[] | null => {
    const out: { name: string; made: SyntaxNode }[] = [];
    const todo = names.map(name => ({ name, at }));
    for (let next = todo.shift(); next; next = todo.shift()) {
      const { name } = next;
      if (out.some(o => o.name === name)) {
        continue;
      }
      const m = smallHostMade(name, next.at);
      if (!m) {
        return null;
      }
      out.push({ name, made: m.made });
      todo.push(...m.reads.map(n => ({ name: n, at: m.made.startIndex })));
      for (const f of m.functions.filter(f => !out.some(o => o.name === f))) {
        out.push({ name: f, made: hostFunction(f)! });
      }
    }
    return out;
  };
  for (const loop of kids(root).filter(k => k.type === 'for_statement')) {
    const right = field(loop, 'right');
    const body = field(loop, 'body');
    const trips = right ? loopCount(right, model, cell) : undefined;
    if (!body || trips === undefined || trips > SMALL_ARRAY_ELEMENTS) {
      continue;
    }
    // the arrays whose elements the loop writes, and the scalar locals it binds (a plain name
    // bound to anything but a number or a 0-d value refuses the loop: '')
    const written = new Set<string>();
    const locals = new Set<string>();
    walkTypes(body, ASSIGNMENTS, a => {
      const target = field(a, 'left');
      if (target?.type === 'subscript') {
        const arr = field(target, 'value');
        written.add(arr?.type === 'identifier' ? arr.text : '');
      } else if (target) {
        walkTypes(target, IDENTIFIER, id => {
          const v = model.inferValue(id, cell);
          if (v.kind === 'ndarray' && !isZeroD(v)) {
            written.add('');
          }
          locals.add(id.text);
          return true;
        });
      }
      return false;
    });
    const name = written.size === 1 ? [...written][0] : '';
    if (!arrays.has(name)) {
      continue;
    }
    // the other arrays it reads: small parameters made on the host, read nowhere else
    const others = [...arrays].filter(n => n !== name && !locals.has(n) && globalReferences(body, n).length > 0);
    const chain = smallHostChain(others, loop.startIndex);
    // each read only by the loop and the chain's computations (its own binding included)
    const elsewhere = (n: string): boolean =>
      model.readers(n).some(c => c.index > cell.index) ||
      globalReferences(root, n).some(r => !isInside(r, loop) && !chain!.some(i => isInside(r, i.made.type === 'function_definition' ? i.made : i.made.parent ?? i.made)));
    if (!chain || chain.some(i => elsewhere(i.name))) {
      continue;
    }
    const inputs = chain.map(i => i.made);
    // made by a NumPy creation call just before the loop, small
    const made = cell.facts!.assignments.filter(a => a.name === name && a.at < loop.startIndex).pop();
    const call = made?.value && !made.augmented ? unparen(made.value) : null;
    const fn = call?.type === 'call' ? field(call, 'function') : null;
    const size = model.valueBefore(name, cell, loop.startIndex).size;
    const between = made ? globalReferences(root, name).filter(r => r.startIndex >= made.at && r.startIndex < loop.startIndex) : [];
    if (call && fn && NUMPY_CONTIGUOUS_CREATORS.test(model.qualifiedName(fn) ?? '') && size !== undefined && size < SMALL_ARRAY_ELEMENTS && between.length === 0) {
      out.push({ name, loop, made: call, trips, inputs });
    }
  }
  return out;
}

/**
 * Does `expr` use one of `arrays` whole (or a slice, a gather: `xb.mean()`, `a[idx]`), not only
 * element by element with an index of the loop's variables (`x[i]`)?
 */
function wholeArrayUse(expr: SyntaxNode, arrays: ReadonlySet<string>, loopVars: ReadonlySet<string>): boolean {
  let hit = false;
  walkTypes(expr, IDENTIFIER, n => {
    if (hit || !arrays.has(n.text) || !isValueIdentifier(n)) {
      return !hit;
    }
    const p = n.parent;
    if (p?.type === 'attribute' && ARRAY_METADATA.has(field(p, 'attribute')?.text ?? '')) {
      return true; // `y.shape`, `y.size`: no array work
    }
    const index = p?.type === 'subscript' && field(p, 'value')?.id === n.id ? field(p, 'subscript') : null;
    // an element `x[i]` (an index of the loop's variables, no slice): not array work
    const element = !!index && mentions(index, loopVars) && !kids(p!).some(k => k.type === 'slice');
    hit = !element;
    return !hit;
  });
  return hit;
}

/**
 * Does an `if`/`while` condition read a device value (not only a device array's host metadata:
 * `if (n := int(x.size)) > 100`)? Conditions inside `hostLoops` (set-up loops, kept NumPy on the
 * host) read host values.
 */
function hasDeviceControlFlow(root: SyntaxNode, deviceNames: ReadonlySet<string>, hostLoops: readonly SyntaxNode[]): boolean {
  let hit = false;
  walkTypes(root, CONDITIONALS, n => {
    if (hit) {
      return false;
    }
    const cond = field(n, 'condition');
    if (cond && !hostLoops.some(l => isInside(n, l))) {
      walkTypes(cond, IDENTIFIER, id => {
        hit ||= deviceNames.has(id.text) && isValueIdentifier(id) && !readsMetadataOnly(id);
        return !hit;
      });
    }
    return true;
  });
  return hit;
}

/** The cell's own functions the rewrite moves to CuPy (a reference in them rewritten). */
function ownDeviceFunctions(refs: readonly LibraryRef[]): string[] {
  return [...new Set(refs.filter(r => r.action === 'cupy' && enclosingFunction(r.node) !== null).map(r => field(enclosingFunction(r.node)!, 'name')?.text ?? ''))].filter(n => n !== '');
}

const OWN_FUNCTIONS_NOTE_END = 'CuPy arrays, also to cells added later.';

function ownFunctionsNote(own: readonly string[]): string {
  return `${own.map(n => `\`${n}\``).join(', ')}, defined here and called only here, ${own.length === 1 ? 'computes' : 'compute'} with CuPy: ${own.length === 1 ? 'it returns' : 'they return'} ${OWN_FUNCTIONS_NOTE_END}`;
}

function userFunctionCallsWithDeviceArgs(root: SyntaxNode, model: NotebookModel, deviceNames: ReadonlySet<string>, hostWork: readonly SyntaxNode[] = []): string[] {
  const names = new Set<string>();
  walkTypes(root, CALL, n => {
    const fn = field(n, 'function');
    if (hostWork.some(h => isInside(n, h))) {
      return false;
    }
    if (fn?.type === 'identifier' && model.bindings.get(fn.text)?.some(b => b.value.kind === 'function' && b.value.library !== 'cupy')) {
      const args = field(n, 'arguments');
      if (args && mentions(args, deviceNames)) {
        names.add(fn.text);
      }
    }
    return true;
  });
  return [...names];
}

/**
 * Names the cell binds, from work the rewrite moves to the device, to values the analysis cannot
 * take apart: a tuple (`res = np.linalg.eigh(A)`: CuPy's holds device arrays), an array unpacked
 * into names (`lo, hi = np.percentile(a, [5, 95])`), an object it does not know. The rewrite
 * cannot bring such a value back as NumPy code has it, so when a later cell or host code in this
 * cell reads one, the cell is refused (with what to write instead) rather than handing host code
 * CuPy arrays. Tuples whose items are known (`w, v = np.linalg.eigh(A)`, `labels, n =
 * ndimage.label(mask)`) bind arrays, which come back one by one.
 */
function opaqueDeviceResults(
  root: SyntaxNode,
  facts: CellFacts,
  refs: readonly LibraryRef[],
  model: NotebookModel,
  cell: CellModel,
  deviceNames: ReadonlySet<string>,
  hostCalls: ReadonlySet<number>
): string[] {
  const moved = refs.filter(r => r.action === 'cupy');
  // may the expression's value be, or hold, device arrays?
  const onDevice = (expr: SyntaxNode): boolean => {
    const e = unparen(expr);
    if (e.type === 'call') {
      const fn = field(e, 'function');
      if (hostCalls.has(e.id)) {
        return false; // kept NumPy on host values (`np.unravel_index(int(...), shape)`)
      }
      if (moved.some(r => r.node.id === fn?.id)) {
        return true; // a library call the rewrite moves to the device
      }
      if ((fn?.type === 'identifier' && HOST_VALUE_BUILTINS.has(fn.text)) || isHostConsumerCall(e, model, cell, deviceNames)) {
        return false; // a host value (`str(y.max())`, `len(y)`), or a host call whose arguments get host copies
      }
    } else if (e.type === 'attribute' || e.type === 'subscript') {
      // an array's metadata (`y.shape`, `y.shape[0]`, `y.dtype`) lives on the host
      const base = e.type === 'subscript' ? unparen(field(e, 'value') ?? e) : e;
      if (base.type === 'attribute' && ARRAY_METADATA.has(field(base, 'attribute')?.text ?? '')) {
        return false;
      }
    } else if (CONTAINERS.has(e.type) || e.type === 'list_comprehension' || e.type === 'dictionary_comprehension') {
      // a display holds what its items are; its 0-d device items are copied to the host as NumPy
      // scalars where it is read later (containerScalarEdits)
      return containerValues(e).some(item => !isZeroD(model.inferValue(item, cell)) && onDevice(item));
    }
    return moved.some(r => isInside(r.node, e)) || mentions(e, deviceNames);
  };
  // values that may hold device arrays the analysis cannot see into: unknown, or a tuple with
  // arrays or unknowns among its items
  const opaqueValue = (v: ValueInfo): boolean =>
    v.kind === 'unknown' || (v.kind === 'sequence' && v.elements !== undefined && v.elements.some(e => e.kind === 'ndarray' || opaqueValue(e)));
  const opaque = facts.assignments.filter(a => {
    const expr = a.value ?? a.unpacked?.from ?? null;
    return !!expr && !a.augmented && opaqueValue(model.valueBefore(a.name, cell, a.at)) && onDevice(expr);
  });
  if (opaque.length === 0) {
    return [];
  }
  // host code of this cell reading them: what host consumers get (a DataFrame, a plot...)
  const hostArgs = collectHostConsumerArgs(root, model, cell, new Set(opaque.map(a => a.name)));
  const out: string[] = [];
  const seen = new Set<string>();
  for (const a of opaque) {
    const expr = (a.value ?? a.unpacked?.from) as SyntaxNode;
    if (seen.has(a.name)) {
      continue;
    }
    const later = model.readersAfter(a.name, cell);
    const here = hostArgs.some(arg => arg.startIndex >= a.at && globalReferences(arg, a.name).length > 0);
    if (later.length === 0 && !here) {
      continue;
    }
    seen.add(a.name);
    const tuple = model.valueBefore(a.name, cell, a.at).kind === 'sequence';
    const what = a.unpacked
      ? `is unpacked from \`${clip(expr.text)}\`, whose items the analysis does not know`
      : tuple
        ? `holds the tuple \`${clip(expr.text)}\` returns, with arrays among its items`
        : `holds what \`${clip(expr.text)}\` returns, a value whose type the analysis does not model`;
    const reader = later.length > 0 ? `cell ${later[0].index} reads it` : 'host code in this cell reads it';
    out.push(
      `\`${a.name}\` ${what}: on the GPU it would hold CuPy data, and ${reader} as NumPy data, which the rewrite cannot bring back ${tuple ? 'as a whole' : 'without knowing what it is'}: keep this cell on the host${tuple ? ', or unpack the arrays into names in this cell (`w, v = np.linalg.eigh(A)`)' : ''}`
    );
  }
  return out;
}

/** Methods that keep their argument in their object (a list's, a set's, a deque's). */
const KEEPING_METHODS = /^(append|appendleft|insert|add)$/;

/**
 * `frames.append(u)` keeps `u` itself: where the cell then changes `u` in place (later in the
 * cell, or in the same loop; any update inPlaceUpdates finds: `u[...] = v`, `u.sort()`,
 * `u.fill(0)`, `np.add(u, 1, out=u)`, `np.copyto(u, v)`...), NumPy's container sees every change (all its entries are the final
 * array), while the rewrite could only hand it host copies taken at each call (snapshots).
 * Refused: keep the cell on the host, or append `u.copy()` (then the rewrite's copies match).
 */
function keptThenUpdated(root: SyntaxNode, deviceNames: ReadonlySet<string>, model: NotebookModel, cell: CellModel): string[] {
  const out: string[] = [];
  walkTypes(root, CALL, call => {
    const fn = field(call, 'function');
    const method = fn?.type === 'attribute' ? field(fn, 'attribute')?.text ?? '' : '';
    if (!KEEPING_METHODS.test(method)) {
      return true;
    }
    for (const arg of callArguments(call).positional) {
      const name = unparen(arg).type === 'identifier' ? unparen(arg).text : null;
      if (!name || !deviceNames.has(name)) {
        continue;
      }
      let loop: SyntaxNode | null = call.parent;
      while (loop && loop.type !== 'for_statement' && loop.type !== 'while_statement') {
        loop = loop.parent;
      }
      const changedAfter = inPlaceUpdates(root, name, model).some(w => w.startIndex > call.endIndex || (loop !== null && isInside(w, loop)));
      if (changedAfter) {
        out.push(
          `\`${clip(call.text)}\` keeps \`${name}\` itself, which this cell then changes in place: NumPy's container sees every change, while on the GPU it could only get host copies taken at each call; keep this cell on the host, or keep \`${name}.copy()\``
        );
        return false;
      }
    }
    return true;
  });
  return out;
}

/**
 * Where the cell changes the array `name` holds in place, as the statements or calls that do
 * (`inPlaceUpdate` of each reference), and the same through a view the cell binds from it
 * (`w = u[1:-1]` ... `w[...] = 0`; a few levels). (`updatedInCell` answers whether; this says
 * where, for an order against other statements.)
 */
function inPlaceUpdates(root: SyntaxNode, name: string, model: NotebookModel, depth = 0): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (const r of globalReferences(root, name)) {
    const w = inPlaceUpdate(r, model);
    if (w) {
      out.push(w);
      continue;
    }
    const e = depth < 3 ? escapingUse(r, model) : null;
    if (e?.kind === 'alias') {
      for (const h of e.holders.filter(h => h !== name)) {
        out.push(...inPlaceUpdates(root, h, model, depth + 1).filter(w => w.startIndex > r.startIndex));
      }
    }
  }
  return out;
}

/**
 * Where each measurement takes its `index` (the labels to measure): `(input, labels, index)`,
 * `histogram`'s after its range and bins.
 */
const LABEL_INDEX_POSITION: ReadonlyMap<string, number> = new Map([
  ...'sum sum_labels mean variance standard_deviation minimum maximum median minimum_position maximum_position extrema center_of_mass labeled_comprehension'
    .split(' ')
    .map(n => [n, 2] as [string, number]),
  ['histogram', 5]
]);

/**
 * `np.histogram(x, bins='auto')` (a rule naming how to choose the bins): CuPy's histogram raises
 * NotImplementedError for a string `bins`.
 */
function binRuleRefusals(refs: readonly LibraryRef[], model: NotebookModel, cell: CellModel): string[] {
  const out: string[] = [];
  for (const r of refs) {
    const call = r.node.parent;
    if (r.action !== 'cupy' || !/^numpy\.(histogram|histogram_bin_edges)$/.test(r.qualified) || call?.type !== 'call') {
      continue;
    }
    const { positional, keywords } = callArguments(call);
    const bins = keywords.get('bins') ?? positional[1];
    if (bins?.type === 'string') {
      out.push(`\`${r.node.text}(..., bins=${bins.text})\`: CuPy's histogram takes a bin count or the edges, not a rule's name; compute the edges on the host (\`np.histogram_bin_edges\`) and pass them`);
    }
    // counts with weights: NumPy sums in the weights' dtype, CuPy in float64 (int64 for
    // integers): float32, int32 or bool weights give other counts' dtype (run 18, plan/host-reads)
    const weights = keywords.get('weights') ?? positional[4];
    const density = (keywords.get('density') ?? positional[5])?.text === 'True';
    const wd = weights ? model.inferValue(weights, cell).dtype : undefined;
    if (r.qualified === 'numpy.histogram' && weights && !density && wd !== 'float64' && wd !== 'int64' && wd !== 'complex128') {
      out.push(
        `\`${clip(call.text)}\`: with ${wd ?? 'these'} weights NumPy counts in the weights' dtype, CuPy in float64 or int64: pass \`weights=w.astype(np.float64)\` (as CuPy sums) or keep this cell on the host`
      );
    }
  }
  return out;
}

/**
 * Pixel counts per component, the idiom of image analysis: `labels, n = ndi.label(mask)` and
 * then `ndi.sum(mask, labels, range(1, n + 1))` (or `sum_labels`, `index=np.arange(1, n + 1)`),
 * `mask` a bool array. Each label's sum of a bool array is a count, and label gives every True
 * pixel of its input a label in 1..n and nothing else one, so the sizes are
 * `cp.bincount(labels.ravel(), minlength=n + 1)[1:]`: one pass of integer atomics (0.29 ms for
 * 16.7M pixels and 4,790 labels on the H200, against 40 ms for cupyx's sum, which scans the
 * labels for each pixel: bench/results/2026-12-01-h200-run16). Another bool array counted over
 * the same labels (`ndi.sum(bright, labels, range(1, n + 1))`) is the bincount of
 * `cp.where(bright, labels, 0)` (its False pixels go to label 0, dropped; broadcast as SciPy
 * broadcasts input and labels). Exact, as float64 like SciPy's result. Only where the labels and
 * their count come unpacked from one `label` call of this cell, at top level before the call,
 * nothing rebinds or changes them (or the labelled mask) in between, and the index is exactly
 * 1..n (a bincount indexed by other labels would read past its end unchecked).
 * Returns the rewrites (the call around the mask, kept as the cell wrote it) and the calls.
 */
function componentSizeRewrites(refs: readonly LibraryRef[], model: NotebookModel, cell: CellModel, cp: string): { edits: TextEdit[]; calls: SyntaxNode[] } {
  const edits: TextEdit[] = [];
  const calls: SyntaxNode[] = [];
  const facts = cell.facts;
  const labelInput = (call: SyntaxNode): SyntaxNode | undefined => {
    const { positional, keywords } = callArguments(call);
    return positional.length + keywords.size === 1 ? (keywords.get('input') ?? positional[0]) : undefined;
  };
  for (const r of refs) {
    const call = r.node.parent;
    if (!facts || r.action !== 'cupy' || !/^scipy\.ndimage\.(measurements\.)?(sum|sum_labels)$/.test(r.qualified) || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id) {
      continue;
    }
    const { positional, keywords } = callArguments(call);
    const input = keywords.get('input') ?? positional[0];
    const labels = keywords.get('labels') ?? positional[1];
    const index = keywords.get('index') ?? positional[2];
    if (!input || labels?.type !== 'identifier' || !index || positional.length + keywords.size !== 3) {
      continue;
    }
    // labels, n = ndi.label(m) in this cell, at top level, before the call (label's one-argument
    // form: a structure may not change what it labels, an output= array changes what it returns)
    const labelled = facts.assignments.find(
      a =>
        a.name === labels.text &&
        !a.nested &&
        a.unpacked?.index === 0 &&
        a.at <= call.startIndex &&
        a.unpacked.from.type === 'call' &&
        /^scipy\.ndimage\.(measurements\.)?label$/.test(model.qualifiedName(field(a.unpacked.from, 'function')!) ?? '') &&
        labelInput(a.unpacked.from) !== undefined
    );
    const count = labelled && facts.assignments.find(a => a.unpacked?.from.id === labelled.unpacked!.from.id && a.unpacked.index === 1);
    if (!labelled || !count || !isOneToN(index, count.name, model) || model.inferValue(input, cell).dtype !== 'bool') {
      continue;
    }
    // the labelled mask itself: a bare name label read, bound nowhere in between
    const mask = labelInput(labelled.unpacked!.from)!;
    const same = input.type === 'identifier' && mask.type === 'identifier' && input.text === mask.text;
    const names = same ? [input.text, labels.text, count.name] : [labels.text, count.name];
    const from = labelled.statement.startIndex;
    if (
      names.some(n => facts.mutates.has(n)) ||
      facts.assignments.some(a => names.includes(a.name) && a !== labelled && a !== count && a.at > from && a.statement.startIndex < call.endIndex)
    ) {
      continue;
    }
    const tail = `minlength=${count.name} + 1)[1:].astype(${cp}.float64)`;
    if (same) {
      edits.push(replace(call.startIndex, call.endIndex, `${cp}.bincount(${labels.text}.ravel(), ${tail}`));
    } else if (!isInside(labels, input) && !isInside(index, input)) {
      edits.push(replace(call.startIndex, input.startIndex, `${cp}.bincount(${cp}.where(`), replace(input.endIndex, call.endIndex, `, ${labels.text}, 0).ravel(), ${tail}`));
    } else {
      continue;
    }
    calls.push(call);
  }
  return { edits, calls };
}

/** Is `index` exactly the labels 1..n: `range(1, n + 1)`, `np.arange(1, n + 1)`? */
function isOneToN(index: SyntaxNode, n: string, model: NotebookModel): boolean {
  const u = unparen(index);
  const fn = u.type === 'call' ? field(u, 'function') : null;
  if (!fn || !((fn.type === 'identifier' && fn.text === 'range' && !model.bindings.has('range')) || model.qualifiedName(fn) === 'numpy.arange')) {
    return false;
  }
  const { positional, keywords } = callArguments(u);
  if (positional.length !== 2 || keywords.size > 0 || positional[0].text !== '1') {
    return false;
  }
  const stop = unparen(positional[1]);
  return stop.type === 'binary_operator' && operatorOf(stop) === '+' && [field(stop, 'left')?.text, field(stop, 'right')?.text].sort().join(' ') === `1 ${n}`;
}

/**
 * NumPy functions whose array arguments CuPy takes only as CuPy arrays (or scalars), by the
 * positions of those arguments: a Python list there is a TypeError (or NotImplementedError) on
 * the device, where NumPy converts it. 'seq': the first argument is a sequence of arrays
 * (`concatenate(([0.0], x))`), whose list items need the same. Ufuncs take every input
 * positionally (NUMPY_UFUNC_NIN).
 */
/** The input positions of a ufunc of 1, 2 or 3 inputs (made once: read per call). */
const UFUNC_ARGUMENT_POSITIONS: readonly (readonly number[] | undefined)[] = [[], [0], [0, 1], [0, 1, 2]];
const ARRAY_ARGUMENT_POSITIONS: ReadonlyMap<string, readonly number[] | 'seq'> = new Map<string, readonly number[] | 'seq'>([
  ['searchsorted', [0, 1]],
  ['interp', [0, 1, 2]],
  ['digitize', [0, 1]],
  ['isin', [0, 1]],
  ['in1d', [0, 1]],
  ['setdiff1d', [0, 1]],
  ['intersect1d', [0, 1]],
  ['union1d', [0, 1]],
  ['where', [0, 1, 2]],
  ['dot', [0, 1]],
  ['vdot', [0, 1]],
  ['inner', [0, 1]],
  ['outer', [0, 1]],
  ['matmul', [0, 1]],
  ['cross', [0, 1]],
  ['convolve', [0, 1]],
  ['correlate', [0, 1]],
  ['allclose', [0, 1]],
  ['isclose', [0, 1]],
  ['array_equal', [0, 1]],
  ['append', [0, 1]],
  ['concatenate', 'seq'],
  ['stack', 'seq'],
  ['vstack', 'seq'],
  ['hstack', 'seq'],
  ['dstack', 'seq'],
  ['column_stack', 'seq'],
  // CuPy's reductions and sorts call the argument's own method (`cupy.mean(a)` is `a.mean()`):
  // a Python list there is an AttributeError, where NumPy converts it
  ...['sum', 'prod', 'mean', 'std', 'var', 'max', 'min', 'amax', 'amin', 'argmax', 'argmin', 'ptp', 'all', 'any', 'cumsum', 'cumprod', 'median', 'average', 'nansum', 'nanmean', 'nanstd', 'nanvar', 'nanmax', 'nanmin', 'sort', 'argsort', 'diff', 'clip', 'round', 'around'].map(
    name => [name, [0]] as [string, readonly number[]]
  )
]);

/**
 * Python lists (and tuples) of numbers passed where CuPy wants an array (`cp.searchsorted(x,
 * [1000, 2000])`, `cp.interp(t, [0, 1], [0.0, 2.0])`, `cp.concatenate(([0.0], c))`, a ufunc's
 * `[1, 2]`): wrapped in `cp.asarray(...)`, which converts them as NumPy does (same dtype, so
 * the same promotion).
 */
function sequenceArgumentEdits(refs: readonly LibraryRef[], model: NotebookModel, cell: CellModel, cp: string): TextEdit[] {
  const edits: TextEdit[] = [];
  const numbers = (seq: SyntaxNode): boolean =>
    kids(seq).length > 0 && kids(seq).every(k => (k.type === 'list' || k.type === 'tuple' ? numbers(k) : k.type !== 'comment' && model.inferValue(k, cell).kind === 'scalar'));
  const wrap = (a: SyntaxNode | undefined): void => {
    const u = a ? unparen(a) : undefined;
    // a literal of numbers, or a name bound to a Python list or tuple (`w = [0.5, 1.5]`; of
    // numbers or of arrays alike: cp.asarray takes both)
    const listed = u && (u.type === 'list' || u.type === 'tuple') && numbers(u);
    const named = u?.type === 'identifier' && ((v): boolean => v.kind === 'sequence' && v.dtype === undefined)(model.inferValue(u, cell));
    if (listed || named) {
      edits.push(insert(a!.startIndex, `${cp}.asarray(`), insert(a!.endIndex, ')'));
    }
  };
  for (const r of refs) {
    const call = r.node.parent;
    if (r.action !== 'cupy' || !r.qualified.startsWith('numpy.') || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id) {
      continue;
    }
    const name = r.qualified.slice('numpy.'.length);
    const { positional } = callArguments(call);
    const nin = NUMPY_UFUNC_NIN.get(name);
    const at = nin !== undefined ? UFUNC_ARGUMENT_POSITIONS[nin] ?? Array.from({ length: nin }, (_, k) => k) : ARRAY_ARGUMENT_POSITIONS.get(name);
    if (at === 'seq') {
      const seq = positional[0] ? unparen(positional[0]) : undefined;
      if (seq && (seq.type === 'list' || seq.type === 'tuple')) {
        kids(seq).forEach(wrap);
      }
    } else if (at) {
      at.forEach(k => wrap(positional[k]));
    }
  }
  return edits;
}

/**
 * Parameters of cupyx.scipy.ndimage's functions that are host values: numbers, strings and
 * sequences of them (`shift`, `zoom`, `sigma`, `angle`, `order`, `size`, `axes`, `offset`,
 * `output_shape`, `mode`...), which cupyx reads on the host (`_util._fix_sequence_arg`: `float()`
 * or `int()` of each value, `numpy.deg2rad(angle)`, `cupy.linspace(min, max, bins + 1)`), and
 * `label`'s `structure`, which cupyx itself turns into a NumPy array (`cupy.asnumpy(structure)`).
 * A device array there costs a copy back per value (one wait for the GPU each), so an array read
 * only there stays on the host. The arrays (`input`, `weights`, `footprint`, `structure` of the
 * morphology functions, `mask`, `labels`, `matrix`, `coordinates`, `output`, `distances`) are not
 * among them: cupyx computes with them on the device. Written from each signature of cupyx 14.2.0
 * (cupyx/scipy/ndimage/_filters.py, _fourier.py, _interpolation.py, _measurements.py,
 * _morphology.py, _distance_transform.py): the parameters in order, keyword-only ones after `*`
 * (gaussian_laplace's and gaussian_gradient_magnitude's `truncate` and `radius` reach
 * gaussian_filter through `**kwargs`), then the host ones; a generic name (`n`, `size`, `axis`,
 * `mode`) is a host parameter only where that function has it.
 */
export const NDIMAGE_HOST_PARAMETERS: ReadonlyMap<string, { positions: readonly number[]; keywords: readonly string[] }> = (() => {
  const signatures: [names: string, parameters: string, host: string][] = [
    // _interpolation.py
    ['spline_filter1d', 'input order axis output mode', 'order axis mode'],
    ['spline_filter', 'input order output mode', 'order mode'],
    ['map_coordinates', 'input coordinates output order mode cval prefilter', 'order mode cval prefilter'],
    ['affine_transform', 'input matrix offset output_shape output order mode cval prefilter * texture_memory float64_coords', 'offset output_shape order mode cval prefilter texture_memory float64_coords'],
    ['rotate', 'input angle axes reshape output order mode cval prefilter', 'angle axes reshape order mode cval prefilter'],
    ['shift', 'input shift output order mode cval prefilter', 'shift order mode cval prefilter'],
    ['zoom', 'input zoom output order mode cval prefilter * grid_mode', 'zoom order mode cval prefilter grid_mode'],
    // _filters.py
    ['correlate convolve', 'input weights output mode cval origin * axes', 'mode cval origin axes'],
    ['correlate1d convolve1d', 'input weights axis output mode cval origin', 'axis mode cval origin'],
    ['uniform_filter1d minimum_filter1d maximum_filter1d', 'input size axis output mode cval origin', 'size axis mode cval origin'],
    ['uniform_filter', 'input size output mode cval origin axes', 'size mode cval origin axes'],
    ['gaussian_filter1d', 'input sigma axis order output mode cval truncate', 'sigma axis order mode cval truncate'],
    ['gaussian_filter', 'input sigma order output mode cval truncate radius axes', 'sigma order mode cval truncate radius axes'],
    ['sobel prewitt', 'input axis output mode cval', 'axis mode cval'],
    ['laplace', 'input output mode cval * axes', 'mode cval axes'],
    ['gaussian_laplace gaussian_gradient_magnitude', 'input sigma output mode cval * axes truncate radius', 'sigma mode cval axes truncate radius'],
    ['minimum_filter maximum_filter median_filter', 'input size footprint output mode cval origin axes', 'size mode cval origin axes'],
    ['rank_filter', 'input rank size footprint output mode cval origin axes', 'rank size mode cval origin axes'],
    ['percentile_filter', 'input percentile size footprint output mode cval origin axes', 'percentile size mode cval origin axes'],
    ['generic_filter', 'input function size footprint output mode cval origin * axes', 'size mode cval origin axes'],
    ['generic_filter1d', 'input function filter_size axis output mode cval origin', 'filter_size axis mode cval origin'],
    // _fourier.py
    ['fourier_gaussian', 'input sigma n axis output', 'sigma n axis'],
    ['fourier_uniform fourier_ellipsoid', 'input size n axis output', 'size n axis'],
    ['fourier_shift', 'input shift n axis output', 'shift n axis'],
    // _measurements.py (the label `index` of the measurements: measurementEdits)
    ['label', 'input structure output', 'structure'],
    ['histogram', 'input min max bins labels index', 'min max bins'],
    ['labeled_comprehension', 'input labels index func out_dtype default pass_positions', 'out_dtype default pass_positions'],
    ['value_indices', 'arr * ignore_value adaptive_index_dtype', 'ignore_value adaptive_index_dtype'],
    // _morphology.py
    ['generate_binary_structure', 'rank connectivity', 'rank connectivity'],
    ['iterate_structure', 'structure iterations origin', 'iterations origin'],
    ['binary_erosion binary_dilation', 'input structure iterations mask output border_value origin brute_force * axes', 'iterations border_value origin brute_force axes'],
    ['binary_opening binary_closing', 'input structure iterations output origin mask border_value brute_force * axes', 'iterations origin border_value brute_force axes'],
    ['binary_hit_or_miss', 'input structure1 structure2 output origin1 origin2 * axes', 'origin1 origin2 axes'],
    ['binary_propagation', 'input structure mask output border_value origin * axes', 'border_value origin axes'],
    ['binary_fill_holes', 'input structure output origin * axes', 'origin axes'],
    [
      'grey_erosion grey_dilation grey_opening grey_closing morphological_gradient morphological_laplace white_tophat black_tophat',
      'input size footprint structure output mode cval origin * axes',
      'size mode cval origin axes'
    ],
    // _distance_transform.py
    ['distance_transform_edt', 'image sampling return_distances return_indices distances indices * block_params float64_distances', 'sampling return_distances return_indices block_params float64_distances']
  ];
  const table = new Map<string, { positions: number[]; keywords: string[] }>();
  for (const [names, parameters, host] of signatures) {
    const keywords = host.split(' ');
    const positional = parameters.split(' * ')[0].split(' ');
    const positions = positional.flatMap((p, k) => (keywords.includes(p) ? [k] : []));
    for (const name of names.split(' ')) {
      table.set(name, { positions, keywords });
    }
  }
  return table;
})();

/** The arguments of the cell's cupyx.scipy.ndimage calls that are host parameters (NDIMAGE_HOST_PARAMETERS). */
function hostParameterArgs(refs: readonly LibraryRef[]): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (const r of refs) {
    const m = r.action === 'cupy' ? /^scipy\.ndimage\.(?:\w+\.)?(\w+)$/.exec(r.qualified) : null;
    const call = r.node.parent;
    if (!m || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id) {
      continue;
    }
    const host = NDIMAGE_HOST_PARAMETERS.get(m[1]);
    const { positional, keywords } = callArguments(call);
    for (const k of host?.positions ?? []) {
      if (positional[k]) {
        out.push(positional[k]);
      }
    }
    keywords.forEach((value, name) => {
      if (host?.keywords.includes(name)) {
        out.push(value);
      }
    });
  }
  return out;
}

/** The measurements whose fast cupyx kernels want an int32, uint32/64 or float input. */
const FAST_SUM_INPUT = new Set(['sum', 'sum_labels', 'mean', 'variance', 'standard_deviation']);

/**
 * `cupyx.scipy.ndimage`'s measurements as SciPy's behave: they take the labels to measure
 * (`index`) as a CuPy array or one int, where SciPy takes any sequence (`range(1, n + 1)`, a
 * list): a TypeError on the device. An index the analysis does not know to be an array or a
 * number is wrapped in `cp.asarray(...)` (a few labels' worth of copy). And an input of a dtype
 * their fast kernels do not take is widened (FAST_SUM_INPUT).
 */
function measurementEdits(refs: readonly LibraryRef[], model: NotebookModel, cell: CellModel, cp: string): TextEdit[] {
  const edits: TextEdit[] = [];
  for (const r of refs) {
    const m = /^scipy\.ndimage\.(?:measurements\.)?(\w+)$/.exec(r.qualified);
    const at = m && r.action === 'cupy' ? LABEL_INDEX_POSITION.get(m[1]) : undefined;
    const call = r.node.parent;
    if (at === undefined || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id) {
      continue;
    }
    const { positional, keywords } = callArguments(call);
    // cupyx sums, means and variances run a kernel per batch of four labels (seconds for
    // thousands of labels; H200, bench label_measure: 5.4 s against SciPy's 0.42 s) unless the
    // input is int32, uint32/64 or a float: small integers and bools are widened to int32
    // (exact), int64 to float64 (what SciPy sums in: np.bincount's weights)
    const input = keywords.get('input') ?? positional[0];
    const dtype = input && FAST_SUM_INPUT.has(m![1]) ? model.inferValue(input, cell).dtype : undefined;
    const index = keywords.get('index') ?? positional[at];
    const v = index ? model.inferValue(index, cell) : null;
    // SciPy sums int64 as float64 only over an array of labels (np.bincount's weights); with
    // one label, or none, it sums int64 as int64
    const labelArray = !!index && index.text !== 'None' && v?.kind !== 'scalar';
    const widen =
      dtype === undefined ? null : /^(bool|u?int8|u?int16)$/.test(dtype) ? 'int32' : dtype === 'int64' && (m![1] !== 'sum' && m![1] !== 'sum_labels' ? true : labelArray) ? 'float64' : null;
    if (input && widen) {
      // a primary expression takes the method as it is; anything else (`a > b`) in parentheses
      const primary = input.type === 'identifier' || input.type === 'attribute' || input.type === 'subscript' || input.type === 'call' || input.type === 'parenthesized_expression';
      edits.push(insert(input.startIndex, primary ? '' : '('), insert(input.endIndex, `${primary ? '' : ')'}.astype(${cp}.${widen})`));
    }
    // a Python int passes as it is (a NumPy integer does not: `isinstance(index, int)` in CuPy)
    const pythonInt = v?.kind === 'scalar' && v.library === undefined && (v.dtype === undefined || v.dtype === 'int64');
    if (index && v && v.kind !== 'ndarray' && !pythonInt && index.text !== 'None') {
      edits.push(insert(index.startIndex, `${cp}.asarray(`), insert(index.endIndex, ')'));
    }
  }
  return edits;
}

const COMPREHENSIONS: ReadonlySet<string> = new Set(['list_comprehension', 'set_comprehension', 'generator_expression']);

/**
 * Does comprehension `comp`, iterating `iterable` (a host value), compute from its loop variables,
 * numbers and attributes of those alone (`[[s.stop - s.start for s in sl] for sl in ...]`), so
 * that its items are Python values too? Calls other than builtins returning Python values (`len`,
 * `int`...) and names that are not scalars are not (readsOnlyNumbers).
 */
function computesFromItems(comp: SyntaxNode, iterable: SyntaxNode, model: NotebookModel, cell: CellModel): boolean {
  const loopVars = new Set<string>();
  walkTypes(comp, ['for_in_clause'], c => {
    walk(field(c, 'left')!, x => {
      if (x.type === 'identifier') {
        loopVars.add(x.text);
      }
      return true;
    });
  });
  return readsOnlyNumbers(comp, model, cell, loopVars, NUMBER_BUILTINS, iterable);
}

/**
 * Does `e` read Python numbers only: literals, names the model infers as scalars or that are in
 * `names` (loop variables, host values the caller vouches for), their attributes and operators,
 * and calls of `builtins` (none by default)? No other call, no array. `skip`, a subtree left
 * unread (a comprehension's own iterable). readOnHost's indexes (`peaks[k + 1]`) and operands
 * (`props["peak_heights"] > 1.2`), computesFromItems' comprehensions.
 */
function readsOnlyNumbers(e: SyntaxNode, model: NotebookModel, cell: CellModel, names: ReadonlySet<string> = NO_NAMES, builtins: ReadonlySet<string> = NO_NAMES, skip?: SyntaxNode): boolean {
  let plain = true;
  walk(e, x => {
    if (!plain || x.id === skip?.id) {
      return false;
    }
    if (x.type === 'call') {
      const fn = field(x, 'function');
      plain = fn?.type === 'identifier' && builtins.has(fn.text);
    } else if (x.type === 'identifier' && isValueIdentifier(x) && !names.has(x.text) && !(x.parent?.type === 'call' && x.fieldName === 'function')) {
      // (a builtin's own name, `len` in `len(s)`, was judged with its call)
      plain = model.inferValue(x, cell).kind === 'scalar';
    }
    return plain;
  });
  return plain;
}

/** Builtins whose result is a host value whatever they are given (a string, a number, a type). */
const HOST_VALUE_BUILTINS: ReadonlySet<string> = new Set(['str', 'repr', 'int', 'float', 'bool', 'complex', 'len', 'type', 'isinstance', 'format', 'hash', 'id', 'print']);
/** HOST_VALUE_BUILTINS that return a value (not `print`'s None). */
const NUMBER_BUILTINS: ReadonlySet<string> = new Set([...HOST_VALUE_BUILTINS].filter(b => b !== 'print'));

/** Array attributes that are host values (metadata, not data). */
const ARRAY_METADATA: ReadonlySet<string> = new Set(['shape', 'dtype', 'ndim', 'size', 'nbytes', 'itemsize', 'strides', 'flags']);

/** A one-line excerpt of source text for a message. */
function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/** Counts memory passes, launches, flops and transfers of the cell's array work. */
export function estimateWork(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  deviceNames: ReadonlySet<string>,
  transfers: ReadonlyMap<string, string>,
  bringBack: readonly string[],
  kept: {
    /** Expressions that stay NumPy on the host (hostOnlyExpressions): no work at all. */
    hostOnly?: readonly SyntaxNode[];
    /** Measurements rewritten as a bincount (componentSizeRewrites). */
    countedSizes?: readonly SyntaxNode[];
    /** Draws from a host Generator, copied to the device (generatorCalls' hostRngCalls). */
    hostDraws?: readonly SyntaxNode[];
    /** What is copied for each host draw (its id): the draw or the host expression shrinking it (hostDrawCopyPoint). */
    hostDrawCopies?: ReadonlyMap<number, SyntaxNode>;
    /** Host values copied to the device where they are made (hostArrayUploads). */
    uploads?: readonly SyntaxNode[];
    /**
     * Arrays the rewrite makes with NumPy on the host and copies to the device where they are made,
     * on every run (float32 aranges CuPy would not reproduce: libraryUses' hostAranges); their
     * making is priced in neither version.
     */
    hostMade?: readonly SyntaxNode[];
    /** Those of `hostMade` made once before the loop holding them (hoistLoopInvariantAranges). */
    hostMadeOnce?: readonly SyntaxNode[];
    /** Inputs copied in part: name -> the part (basicPart). */
    sliced?: ReadonlyMap<string, SyntaxNode>;
    /**
     * Per-row reductions the rewrite makes one reduction over all the rows (rowReductionRewrites):
     * the comprehension and what it reduces.
     */
    vectorised?: readonly { comprehension: SyntaxNode; row: RowReduction }[];
    /** Values copied back to the host one by one where they are made (containerScalarEdits). */
    itemCopies?: readonly SyntaxNode[];
    /** Host consumers' arguments copied to the host (`cp.asnumpy(y)` for pandas, matplotlib...), with their bytes. */
    hostCopies?: readonly { node: SyntaxNode; bytes: number }[];
    /**
     * SciPy calls kept on the host among device work (libraryUses' hostLoopCalls: find_peaks with
     * `distance`): their host time, which both versions pay; their arguments are walked (device
     * work in them, and their copies to the host: `hostCopies`).
     */
    hostCalls?: readonly SyntaxNode[];
  } = {}
): { work: WorkEstimate; largest?: ValueInfo; copiedOnce: { node: SyntaxNode; bytes: number }[] } {
  const hostOnly = kept.hostOnly ?? [];
  const countedSizes = kept.countedSizes ?? [];
  const hostDraws = kept.hostDraws ?? [];
  let largest: ValueInfo | undefined;
  // the passes are priced at the largest array's item size: of arrays as large, the widest of
  // known dtype (a bool mask met before the float32 data it masks priced the cell at 1 byte an
  // element); an unknown dtype neither displaces nor is displaced by a known one
  const consider = (v: ValueInfo): void => {
    if (
      v.kind === 'ndarray' &&
      v.size !== undefined &&
      (largest?.size === undefined || v.size > largest.size || (v.size === largest.size && v.dtype !== undefined && largest.dtype !== undefined && itemSize(v.dtype) > itemSize(largest.dtype)))
    ) {
      largest = v;
    }
  };
  const sliced = kept.sliced ?? new Map<string, SyntaxNode>();
  // an input copied in part is as large as that part on the device
  const inputValue = (name: string): ValueInfo => (sliced.has(name) ? model.inferValue(sliced.get(name)!, cell) : model.valueBefore(name, cell, 0));
  for (const name of deviceNames) {
    consider(inputValue(name));
    consider(sliced.has(name) ? inputValue(name) : model.valueAfter(name, cell));
  }
  const work: WorkEstimate = {
    elements: 0,
    itemBytes: 8,
    passes: 0,
    transcendentalOps: 0,
    drawSeconds: 0,
    flops: 0,
    launches: 0,
    hostToDeviceBytes: 0,
    deviceToHostBytes: 0,
    // every field present from the start (0 where absent reads as 0; hostPasses and
    // hostPassFactor stay undefined, their defaults): one object shape for the cost model's reads
    hostPasses: undefined,
    hostPassFactor: undefined,
    fftFlops: 0,
    shortFftFlops: 0,
    sortOps: 0,
    filterFlops: 0,
    sparseNonZeros: 0,
    sparseNonZerosFromHost: 0,
    stencilPasses: 0,
    kernelsDefined: 0,
    uniformDraws: 0,
    normalDraws: 0,
    itemCopies: 0,
    itemCopyBytes: 0,
    hostLoopSeconds: 0,
    loopFlops: 0,
    deviceLoopSeconds: 0,
    // (set later, where there are any: withFirstUses gives a copy its first uses, which was a
    // shape change per suggestion, ~1% of an analysis of the bench notebook)
    hostKept: undefined,
    firstUse: undefined
  };

  let sparseRows = 0;
  const countDraws = (count: number, nonUniform: boolean): void => {
    if (nonUniform) {
      work.normalDraws = (work.normalDraws ?? 0) + count;
    } else {
      work.uniformDraws = (work.uniformDraws ?? 0) + count;
    }
  };
  const hostOnlyIds = hostOnly.length > 0 ? new Set(hostOnly.map(h => h.id)) : null;
  const runs = functionRuns(root, (p, c) => runsPerParentRun(p, c, model, cell));
  const vectorised = new Map((kept.vectorised ?? []).map(v => [v.comprehension.id, v.row]));
  const copiedItems = new Set((kept.itemCopies ?? []).map(c => c.id));
  const hostCopies = new Map((kept.hostCopies ?? []).map(c => [c.node.id, c.bytes]));
  // the host consumers' copies counted once in deviceToHostBytes (not those made on every step of
  // a loop or inside a host call, which are itemCopyBytes): the plan weighs which of them its own
  // host version would make too (plan.ts planPrediction)
  const copiedOnce: { node: SyntaxNode; bytes: number }[] = [];
  const hostCallIds = new Set((kept.hostCalls ?? []).map(c => c.id));
  const hostMadeIds = new Set((kept.hostMade ?? []).map(c => c.id));
  const hostMadeOnceIds = new Set((kept.hostMadeOnce ?? []).map(c => c.id));
  const insideHostCall = (x: SyntaxNode): boolean => {
    for (let p = x.parent; p && hostCallIds.size > 0; p = p.parent) {
      if (hostCallIds.has(p.id)) {
        return true;
      }
    }
    return false;
  };
  // notebook functions' bodies are priced at their calls, with the values of each call's
  // arguments (`model.inCall`): those being walked (no recursion), and how deep
  const walking = new Set<number>();
  let inFunction = 0;
  const walkBody = (definition: { node: SyntaxNode; cell: CellModel }, times: number): void => {
    const body = field(definition.node, 'body');
    if (!body || walking.has(definition.node.id)) {
      return;
    }
    walking.add(definition.node.id);
    // (the body's nodes are inferred in the cell that defines it)
    const site = cell;
    cell = definition.cell;
    inFunction += 1;
    try {
      rec(body, times);
    } finally {
      cell = site;
      inFunction -= 1;
      walking.delete(definition.node.id);
    }
  };
  /** A top-level definition of this cell by name that `functionRuns` counts (its body is priced at its calls). */
  const ownDefinition = (name: string): SyntaxNode | undefined =>
    root.namedChildren.find(d => d.type === 'function_definition' && runs.has(d.id) && field(d, 'name')?.text === name);
  const rec = (n: SyntaxNode, times: number): void => {
    if (hostOnlyIds !== null && hostOnlyIds.has(n.id)) {
      // stays NumPy on the host (built for a host consumer): no device work
      return;
    }
    const type = n.type;
    // the launches this node's own work adds (a notebook function's body, walked at its call,
    // counts its own): each is a NumPy call on the host too, at its per-call cost
    let launchesBefore = work.launches;
    // a function's body runs at its calls in the cell (function-runs.ts)
    const called = type === 'function_definition' ? runs.get(n.id) : undefined;
    // children that may run other than once per run of `n` (loops, comprehensions, ifs)
    const repeats = REPEATING_PARENTS.has(type);
    if (copiedItems.has(n.id)) {
      // copied back on its own, a wait for the device each time (containerScalarEdits)
      work.itemCopies = (work.itemCopies ?? 0) + times;
    }
    const copyBytes = hostCopies.get(n.id);
    if (copyBytes !== undefined) {
      // a host consumer's copy: once, with the cell's other copies back; one made in a loop or
      // a comprehension is made (and waits for the device) each time it runs, and so is one a
      // call kept on the host among device work takes (`find_peaks(cp.asnumpy(env), distance=50)`):
      // its copy is made on every run, the data resident or not
      hostCopies.delete(n.id);
      if (times > 1 || insideHostCall(n)) {
        work.itemCopies = (work.itemCopies ?? 0) + times;
        work.itemCopyBytes = (work.itemCopyBytes ?? 0) + times * copyBytes;
      } else {
        work.deviceToHostBytes += copyBytes;
        copiedOnce.push({ node: n, bytes: copyBytes });
      }
    }
    const row = vectorised.get(n.id);
    if (row) {
      // the rows' reductions, one after the other on the host (each row, and the mask over it,
      // read once) and in one reduction over all the rows on the device (`cp.red(X[:, M],
      // axis=1)`): a reduction over the whole of X either way, in one launch (and one to gather
      // the mask's elements). Counted from X, not from the items: the value of a row picked with
      // a mask (`X[k, M]`) is not known
      const x = model.inferValue(row.x, cell);
      consider(x);
      work.passes += times * fraction(x, largest) * (1 / 3 + extraReductionPasses(row.red));
      work.launches += times * (row.mask ? 2 : 1);
      return;
    }
    if (type === 'assignment') {
      // `u[1:-1, 1:-1] = <array expression>`: NumPy evaluates the expression into a temporary,
      // then copies it into the slice (one more read and write of the slice: 2/3 of a pass).
      // CuPy does the same (its kernels return a new array; `__setitem__` copies it); the slice
      // stencils, which write their output directly, take it off again (analyseArrayCell).
      const copy = sliceAssignmentCopy(n, model, cell);
      if (copy) {
        consider(copy);
        work.passes += times * (2 / 3) * fraction(copy, largest);
        work.launches += times;
      }
    }
    if (type === 'subscript') {
      // a fancy-index gather (`a[idx]`): item by item on the host (./loop-work.ts), one kernel
      // reading and writing the result on the device
      const g = gatherWork(n, model, cell);
      if (g) {
        work.hostLoopSeconds = (work.hostLoopSeconds ?? 0) + times * g.hostSeconds;
        work.passes += (times * (maskSelected(n) ? 0 : fraction(g.result, largest))) / 3;
        work.launches += times * (g.launches ?? 1);
        // (a mask's count read back to size the result: a wait for the device)
        work.itemCopies = (work.itemCopies ?? 0) + times * (g.itemCopies ?? 0);
      }
    }
    if (type === 'unary_operator') {
      // `-x`, `~mask`: one elementwise pass and launch, as the fused chain counts it (fuseWork
      // takes the chain's operations off again)
      const v = model.inferValue(n, cell);
      if (v.kind === 'ndarray') {
        consider(v);
        work.passes += times * (maskSelected(n) ? 0 : fraction(v, largest));
        work.launches += times;
      }
    }
    if (type === 'binary_operator' || type === 'augmented_assignment') {
      const v = type === 'binary_operator' ? model.inferValue(n, cell) : updatedElements(n, model, cell);
      consider(v);
      const op = type === 'binary_operator' ? operatorOf(n) : operatorOf(n).replace('=', '');
      const isSparse = (o: SyntaxNode | null): boolean => o !== null && model.inferValue(o, cell).kind === 'sparse';
      const sparseOperand = type === 'binary_operator' && (isSparse(field(n, 'left')) || isSparse(field(n, 'right')));
      if (sparseOperand && (op === '@' || op === '*')) {
        // sparse matrix-vector product: the non-zero count is not tracked, so assume
        // SPARSE_NONZEROS_PER_ROW per row of the dense operand; the cost model prices them
        const left = field(n, 'left');
        const right = field(n, 'right');
        const lv = left ? model.inferValue(left, cell) : undefined;
        const rv = right ? model.inferValue(right, cell) : undefined;
        const dense = lv?.kind === 'ndarray' ? lv : rv?.kind === 'ndarray' ? rv : undefined;
        const rows = dense?.size ?? largest?.size ?? 0;
        sparseRows = Math.max(sparseRows, rows);
        work.sparseNonZeros = (work.sparseNonZeros ?? 0) + times * rows * SPARSE_NONZEROS_PER_ROW;
        work.launches += times * 2;
      } else if (v.kind === 'ndarray') {
        if (op === '@') {
          // (CuPy's `@` costs more than an elementwise launch: MEASURED_H200.deviceMatmulLaunches)
          work.flops += matmulFlops(n, model, cell) * times;
          work.launches += times * MEASURED_H200.deviceMatmulLaunches;
        } else if (ARITH_OPS.has(op) || COMPARE_OPS.has(op)) {
          work.passes += times * (type === 'binary_operator' && maskSelected(n) ? 0 : fraction(v, largest));
          work.launches += times;
          const [l, r] = type === 'binary_operator' ? [field(n, 'left'), field(n, 'right')] : [null, null];
          if (l && r && broadcasts(model.inferValue(l, cell), model.inferValue(r, cell))) {
            work.hostLoopSeconds = (work.hostLoopSeconds ?? 0) + times * shortRowSeconds('broadcast', v, undefined, model, cell, largest?.size);
          }
          if (op === '**') {
            const right = field(n, 'right');
            if (!right || !/^[234]$/.test(right.text)) {
              work.transcendentalOps += times;
            }
          }
        }
      }
    } else if (type === 'call') {
      const fn = field(n, 'function');
      const q = fn ? model.qualifiedName(fn) : null;
      if (((fn?.type === 'identifier' && q === null) || (fn && unparen(fn).type === 'lambda')) && times > 0) {
        // a notebook function (or a lambda called where it is written): its body's work at this
        // call, with the call's argument values (a definition in another cell too); where they
        // cannot be bound (recursion, a call that does not fit), a definition of this cell is
        // priced without them, as before
        if (model.inCall(n, cell, d => (walkBody(d, times), true)) === undefined && fn?.type === 'identifier') {
          const own = ownDefinition(fn.text);
          if (own) {
            walkBody({ node: own, cell }, times);
          }
        }
        launchesBefore = work.launches;
      }
      const argValue = (k: number): ValueInfo => {
        const a = callArguments(n).positional[k];
        return a ? model.inferValue(a, cell) : { kind: 'unknown', origin: 'inferred' };
      };
      if (fn?.type === 'identifier' && builtinDivmodOfArrays(n, model, cell)) {
        // `divmod(x, y)` of arrays: np.divmod's elementwise pass, on the device where it moves
        const operand = argValue(0).kind === 'ndarray' ? argValue(0) : argValue(1);
        consider(operand);
        work.passes += times * fraction(operand, largest);
        work.launches += times;
      }
      if (hostMadeIds.has(n.id)) {
        const made = model.inferValue(n, cell);
        consider(made);
        const k = (work.hostKept ??= { passes: 0, transcendentalOps: 0, bytes: 0 });
        k.bytes += (hostMadeOnceIds.has(n.id) ? 1 : times) * (made.size ?? 0) * itemSize(made.dtype);
      }
      if (q && hostCallIds.has(n.id)) {
        // SciPy's on the host in both versions, at its measured rate (./loop-work.ts): the CPU's
        // time, and the GPU version's too (WorkEstimate.hostKept.seconds)
        const seconds = times * (scipyFilterWork(q, n, model, cell, filterDesignOrder(q, n))?.hostSeconds ?? 0);
        work.hostLoopSeconds = (work.hostLoopSeconds ?? 0) + seconds;
        const k = (work.hostKept ??= { passes: 0, transcendentalOps: 0, bytes: 0 });
        k.seconds = (k.seconds ?? 0) + seconds;
      } else if (q && (q.startsWith('numpy.') || q.startsWith('scipy.'))) {
        // the names after numpy./scipy., without splitting: the first (`head`), the last, how many
        const rest = q.slice(q.indexOf('.') + 1);
        const single = rest.indexOf('.') < 0;
        const head = single ? rest : rest.slice(0, rest.indexOf('.'));
        const name = rest.slice(rest.lastIndexOf('.') + 1);
        const a0 = argValue(0);
        consider(a0);
        const result = model.inferValue(n, cell);
        consider(result);
        const args = callArguments(n);
        // what the call's passes and transcendentals are counted over: one element only where
        // every argument is a scalar (`np.exp(-r * T)`); else its largest array argument, whichever
        // position it holds (`np.arctan2(0.5, r)`, `np.power(1.7, r)`, `jv(0.3, r)`: an order or
        // base first); an argument of unknown kind beside a scalar first one, a whole array
        // (a function first: `curve_fit(f, x, y)`, `minimize(f, x0)`, `quad(f, a, b)`: the
        // arrays after it, not the whole largest array a function's unknown size stood for)
        const operand = a0.kind === 'scalar' || a0.kind === 'function' ? (largestArgument(args.positional.slice(1)) ?? a0) : a0;
        consider(operand);
        // over a mask's selection (`np.trapezoid(x[:, m], w[m], axis=1)`): nothing beyond the
        // selection itself, priced at its subscript (maskSelected)
        const fraction = (v: ValueInfo, big: ValueInfo | undefined): number => (maskSelected(n) ? 0 : ownFraction(v, big));
        // (over a selection: its lower bound, as `fraction` prices it)
        const elems = operand.kind === 'ndarray' && operand.selection ? 0 : (operand.size ?? result.size ?? 0);
        // NumPy loops priced per item (./loop-work.ts); null where the shapes are not known
        const loop =
          single && name === 'einsum'
            ? einsumWork(n, model, cell)
            : head === 'linalg' && !single
              ? (stackedLinalgWork(name, a0) ?? factorisationWork(name, n, model, cell))
              : single && (name === 'nanpercentile' || name === 'nanquantile')
                ? quantileSliceWork(n, a0, model, cell)
                : name === 'at' && rest.split('.').length === 2
                  ? ufuncAtWork(n, model, cell)
                  : single && /^histogram(2d|dd)?$/.test(name)
                    ? histogramWork(name, n, model, cell)
                    : null;
        if (q.startsWith('numpy.random.') || head === 'random') {
          work.passes += (times * fraction(result, largest)) / 3;
          work.drawSeconds = (work.drawSeconds ?? 0) + times * fraction(result, largest) * hostDrawSeconds(name, true, result.dtype);
          work.launches += times;
          countDraws(times * (result.size ?? 0), /normal|randn|gamma|poisson|exponential/.test(name));
        } else if (loop !== null) {
          // the host's loop at its measured per-item rate; the device's batched form by its
          // arithmetic, launches and the elements it reads and writes
          const blas = loop.hostBlasFlops ?? 0;
          work.hostLoopSeconds = (work.hostLoopSeconds ?? 0) + times * loop.hostSeconds;
          work.flops += times * loop.deviceFlops;
          work.loopFlops = (work.loopFlops ?? 0) + times * Math.max(0, loop.deviceFlops - blas);
          work.launches += times * loop.launches;
          work.deviceLoopSeconds = (work.deviceLoopSeconds ?? 0) + times * (loop.deviceSeconds ?? 0);
          work.passes += (times * (largest?.size ? Math.min(1, loop.elementsMoved / largest.size) : 1)) / 3;
        } else if (single && ELEMENTWISE_UFUNCS.has(name)) {
          work.passes += times * fraction(result.kind === 'ndarray' ? result : a0, largest);
          work.launches += times;
          if (TRANSCENDENTAL_UFUNCS.has(name)) {
            work.transcendentalOps += times * fraction(operand, largest);
          }
        } else if (single && REDUCTIONS.has(name)) {
          work.passes += (times * fraction(operand, largest)) * (1 / 3 + extraReductionPasses(name));
          work.launches += times;
          work.hostLoopSeconds =
            (work.hostLoopSeconds ?? 0) + times * (shortRowSeconds('reduce', a0, args.keywords.get('axis') ?? args.positional[1], model, cell, largest?.size) + nanReductionSeconds(name, a0));
        } else if (single && /^(concatenate|stack|vstack|hstack|row_stack|column_stack|dstack)$/.test(name) && result.kind === 'ndarray') {
          // a join reads its items and writes the result: a copy of the result's bytes
          work.passes += (times * 2 * fraction(result, largest)) / 3;
          work.launches += times * Math.max(1, kids(args.positional[0] ?? n).length);
        } else if (name === 'norm' && head === 'linalg' && (args.keywords.has('axis') || args.positional.length > 2)) {
          // a norm along an axis is a reduction (squares summed, one sqrt per result): memory-bound
          work.passes += (times * fraction(operand, largest)) / 3;
          work.launches += times * 2;
          // (of a view, `est[:, :, 2:]`, NumPy squares it row by row too: loop-work.ts)
          const view = args.positional[0] !== undefined && unparen(args.positional[0]).type === 'subscript';
          const rowKind = view ? 'norm' : 'reduce';
          work.hostLoopSeconds = (work.hostLoopSeconds ?? 0) + times * shortRowSeconds(rowKind, a0, args.keywords.get('axis') ?? args.positional[2], model, cell, largest?.size);
        } else if ((single && (name === 'dot' || name === 'matmul' || name === 'tensordot' || name === 'einsum' || name === 'inner' || name === 'vdot')) || head === 'linalg') {
          const n3 = elems > 0 ? Math.pow(Math.sqrt(elems), 3) : 0;
          const product = single && name !== 'tensordot' && name !== 'einsum' ? productFlops(a0, argValue(1)) : null;
          work.flops += times * (product ?? (name === 'norm' ? 2 * elems : 2 * n3));
          // (CuPy's inverse or solve of one matrix: a factorisation, a solve and the copies and
          // checks around them, MEASURED_H200.deviceSmallSolveLaunches)
          work.launches += times * (head === 'linalg' && (name === 'inv' || name === 'solve') ? MEASURED_H200.deviceSmallSolveLaunches : 2);
        } else if ((head === 'fft' || q.startsWith('scipy.fft.')) && /^(r?fftfreq)$/.test(name)) {
          // the sample frequencies: a ramp written once, as np.arange is (no transform)
          work.passes += (times * fraction(result, largest)) / 3;
          work.launches += times;
        } else if ((head === 'fft' || q.startsWith('scipy.fft.')) && /^i?fftshift$/.test(name)) {
          // a roll of the data by half along its axes: one copy, read and written (no transform)
          work.passes += (times * 2 * fraction(operand, largest)) / 3;
          work.launches += times;
        } else if (head === 'fft' || (q.startsWith('scipy.fft') || q.startsWith('scipy.signal.fftconvolve'))) {
          const t = transformFlops(name, a0, args, model, cell);
          const f = times * (t?.flops ?? 5 * elems * Math.log2(Math.max(2, elems)));
          work.flops += f;
          work.fftFlops = (work.fftFlops ?? 0) + f;
          if (t?.short) {
            work.shortFftFlops = (work.shortFftFlops ?? 0) + f;
          }
          work.passes += (times * 2 * fraction(operand, largest)) / 3;
          work.launches += times * 2;
        } else if (/^(sort|argsort|unique|median|percentile|nanpercentile|nanquantile)$/.test(name)) {
          // (a nan-quantile's device form sorts along its axis: ./nan-quantile.ts)
          const f = times * 4 * elems * Math.log2(Math.max(2, elems));
          work.flops += f;
          work.sortOps = (work.sortOps ?? 0) + f;
          work.passes += times * fraction(operand, largest);
          work.launches += times * 3;
        } else if (/^scipy\.ndimage\.(measurements\.)?label$/.test(q)) {
          // connected components: measured per element (costmodel.ts), one pass to read the image
          work.labelElements = (work.labelElements ?? 0) + times * elems;
          work.passes += times * fraction(operand, largest);
          work.launches += times * 4;
        } else if (/^scipy\.ndimage\.(measurements\.)?(sum|sum_labels|mean|variance|standard_deviation)$/.test(q) && (args.positional.length > 1 || args.keywords.has('labels'))) {
          // a measurement over labels: measured per element (costmodel.ts); component sizes
          // rewritten as a bincount (componentSizeRewrites) at the bincount's own rate
          if (countedSizes.some(c => c.id === n.id)) {
            work.countElements = (work.countElements ?? 0) + times * elems;
          } else {
            work.measureElements = (work.measureElements ?? 0) + times * elems;
          }
          work.passes += times * fraction(operand, largest);
          work.launches += times * 2;
        } else if (/^scipy\.signal\.hilbert2?$/.test(q)) {
          // the analytic signal: a complex FFT of the data, half its spectrum doubled and the rest
          // zeroed, an inverse FFT: two transforms, priced as np.fft's are (`analyticSignalFlops`)
          const t = analyticSignalFlops(name, a0, args, model, cell);
          const f = times * (t?.flops ?? 10 * elems * Math.log2(Math.max(2, elems)));
          work.flops += f;
          work.fftFlops = (work.fftFlops ?? 0) + f;
          if (t?.short) {
            work.shortFftFlops = (work.shortFftFlops ?? 0) + f;
          }
          // streams in units of the real data: read it, write the complex spectrum (two), scale
          // half of it in place (two), read it and write the complex result (four): three passes
          work.passes += times * 3 * fraction(operand, largest);
          work.launches += times * 4;
        } else if (q.startsWith('scipy.') && scipyFilterWork(q, n, model, cell, filterDesignOrder(q, n)) !== null) {
          // a filter at its own measured rate (./loop-work.ts); the device streams its data twice
          const filter = scipyFilterWork(q, n, model, cell, filterDesignOrder(q, n)) as NonNullable<ReturnType<typeof scipyFilterWork>>;
          consider(filter.data);
          work.hostLoopSeconds = (work.hostLoopSeconds ?? 0) + times * filter.hostSeconds;
          work.deviceLoopSeconds = (work.deviceLoopSeconds ?? 0) + times * filter.deviceSeconds;
          work.passes += times * 2 * fraction(filter.data, largest);
          work.launches += times * 2;
        } else if (q.startsWith('scipy.')) {
          // filters, special functions: several passes with real arithmetic per element
          work.passes += times * 2 * fraction(operand, largest);
          work.flops += times * 20 * elems;
          work.filterFlops = (work.filterFlops ?? 0) + times * 20 * elems;
          work.launches += times * 2;
        } else if (a0.kind === 'ndarray') {
          work.passes += times * fraction(operand, largest);
          work.launches += times;
        }
      } else if (fn?.type === 'attribute') {
        const obj = field(fn, 'object');
        const method = field(fn, 'attribute')?.text ?? '';
        const v = obj ? model.inferValue(obj, cell) : undefined;
        // (in a notebook function's body, its arrays are the arguments it was called with)
        if (v?.kind === 'ndarray' && obj && (inFunction > 0 || mentions(obj, deviceNames))) {
          consider(v);
          // (`x[m].sum()`: over a mask's selection, nothing beyond the selection: maskSelected)
          const fraction = (u: ValueInfo, big: ValueInfo | undefined): number => (maskSelected(obj) ? 0 : ownFraction(u, big));
          if (REDUCTIONS.has(method)) {
            work.passes += (times * fraction(v, largest)) * (1 / 3 + extraReductionPasses(method));
            work.launches += times;
            const axis = callArguments(n).keywords.get('axis') ?? callArguments(n).positional[0];
            work.hostLoopSeconds = (work.hostLoopSeconds ?? 0) + times * shortRowSeconds('reduce', v, axis, model, cell, largest?.size);
          } else if (method === 'dot') {
            work.flops += times * 2 * Math.pow(Math.sqrt(v.size ?? 0), 3);
            work.launches += times;
          } else if (method === 'sort' || method === 'argsort') {
            // a sort, priced as np.sort / np.argsort are (a.sort() sorts in place, same work; of
            // a selection, its lower bound)
            const elems = v.selection ? 0 : (v.size ?? 0);
            const f = times * 4 * elems * Math.log2(Math.max(2, elems));
            work.flops += f;
            work.sortOps = (work.sortOps ?? 0) + f;
            work.passes += times * fraction(v, largest);
            work.launches += times * 3;
          } else if (MUTATING_INPLACE.has(method) || method === 'astype' || method === 'copy') {
            work.passes += times * fraction(v, largest);
            work.launches += times;
          }
        } else if (v?.kind === 'rng') {
          const result = model.inferValue(n, cell);
          consider(result);
          const passes = (times * fraction(result, largest)) / 3;
          const draw = times * fraction(result, largest) * hostDrawSeconds(method, false, result.dtype);
          work.passes += passes;
          work.drawSeconds = (work.drawSeconds ?? 0) + draw;
          if (hostDraws.some(d => d.id === n.id)) {
            // drawn on the host by NumPy in the rewrite too, then copied to the device
            const k = (work.hostKept ??= { passes: 0, transcendentalOps: 0, bytes: 0 });
            k.passes += passes;
            k.drawSeconds = (k.drawSeconds ?? 0) + draw;
            const copied = model.inferValue(kept.hostDrawCopies?.get(n.id) ?? n, cell);
            k.bytes += times * (copied.size ?? 0) * itemSize(copied.dtype);
          } else {
            work.launches += times;
            countDraws(times * (result.size ?? 0), /normal|gamma|poisson|exponential/.test(method));
          }
        }
      }
    }
    if (work.launches > launchesBefore && times > 0) {
      // NumPy's own cost per call, whatever the size (Python's call, the ufunc's dispatch): what a
      // loop of calls on tiny arrays costs (MEASURED_H200.hostSecondsPerCall)
      work.hostLoopSeconds = (work.hostLoopSeconds ?? 0) + times * hostCallSeconds(n, model);
    }
    // the named children (rows of the node table: no array of children)
    const body = called !== undefined ? field(n, 'body') : null;
    const tree = n.tree;
    const end = n.subtreeEnd;
    for (let c = n.order + 1; c < end; c = tree.subtreeEndAt(c)) {
      if (tree.isNamedAt(c)) {
        const child = tree.node(c);
        if (called !== undefined && c === body?.order) {
          continue; // a function's body is priced at its calls (walkBody)
        }
        rec(child, times * (repeats ? runsPerParentRun(n, child, model, cell) : 1));
      }
    }
  };
  rec(root, 1);
  // (one the walk does not reach, in code it leaves to the host: once)
  for (const c of kept.hostCopies ?? []) {
    if (hostCopies.delete(c.node.id)) {
      work.deviceToHostBytes += c.bytes;
      copiedOnce.push(c);
    }
  }

  if (largest?.size !== undefined) {
    work.elements = largest.size;
    work.itemBytes = itemSize(largest.dtype);
  }
  for (const [name] of transfers) {
    const v = inputValue(name);
    // a CSR matrix copies its data (8 bytes), column indices (4) and row pointers (4 a row); a
    // value of unknown type meeting the arrays in an operator (untypedArrayOperands) is taken
    // to be as large as the largest of them
    const sparseBytes = v.kind === 'sparse' ? sparseRows * (SPARSE_NONZEROS_PER_ROW * 12 + 4) : 0;
    const untypedBytes = v.kind === 'unknown' && largest?.size !== undefined ? largest.size * itemSize(largest.dtype) : 0;
    work.hostToDeviceBytes += v.size !== undefined ? v.size * itemSize(v.dtype) : sparseBytes + untypedBytes;
    if (v.kind === 'sparse') {
      // converted in the cell, so not known to be canonical: its product sorts it first
      work.sparseNonZerosFromHost = (work.sparseNonZerosFromHost ?? 0) + sparseRows * SPARSE_NONZEROS_PER_ROW;
    }
  }
  for (const name of bringBack) {
    const v = model.valueAfter(name, cell);
    work.deviceToHostBytes += v.size !== undefined ? v.size * itemSize(v.dtype) : 0;
  }
  // a pandas column copied to meet device arrays elementwise: as large as the largest of them
  // where its own size is not known (a DataFrame's length seldom is, before the kernel reports it)
  for (const e of kept.uploads ?? []) {
    const v = model.inferValue(e, cell);
    work.hostToDeviceBytes += v.size !== undefined ? v.size * itemSize(v.dtype) : (largest?.size ?? 0) * 8;
  }
  return { work, largest, copiedOnce };

  /**
   * The value of the largest non-scalar among `nodes` (an array of unknown size, or a value of
   * unknown kind, counts as the largest: a whole array), or undefined where all are scalars.
   */
  function largestArgument(nodes: SyntaxNode[]): ValueInfo | undefined {
    let best: ValueInfo | undefined;
    for (const a of nodes) {
      const v = model.inferValue(a, cell);
      if (v.kind === 'scalar') {
        continue;
      }
      if (v.kind !== 'ndarray' || v.size === undefined) {
        return v;
      }
      if (best === undefined || (best.size ?? 0) < v.size) {
        best = v;
      }
    }
    return best;
  }

  /**
   * Passes are counted in units of the largest array: a smaller operand costs less, a scalar
   * (`np.exp(-r * T)`, `norm.cdf(d1)` of a number) one element; what is not known, a whole one.
   */
  function fraction(v: ValueInfo, big: ValueInfo | undefined): number {
    if (v.kind === 'scalar') {
      return big?.size ? Math.min(1, 1 / big.size) : 1;
    }
    // positions a mask selects and what is made of them (`np.nonzero`'s: values.ts `selection`):
    // priced at the lower bound, as a selection in the expression is (`maskSelected`);
    // their count is the data's, and the bound (the mask's size) priced n_seismic cell 9 (work
    // over 30.7M trigger positions, gathers, logs, a median) at 0.77 s against 5-7 ms measured
    // (run 27, calls 3 and 6)
    if (v.kind === 'ndarray' && v.selection) {
      return 0;
    }
    if (v.size === undefined || big?.size === undefined || big.size === 0) {
      return 1;
    }
    return Math.min(1, v.size / big.size);
  }

  /** `fraction` (what a block that redefines it for a mask's selection falls back on). */
  function ownFraction(v: ValueInfo, big: ValueInfo | undefined): number {
    return fraction(v, big);
  }

  /**
   * Is `node` a boolean mask's selection (`x[m]`, `x[:, m]`, `x[y > 0]`), or arithmetic, a call or
   * a method over such selections only (`x[m] * 2`, `np.trapezoid(x[:, m], w[m], axis=1)`,
   * `x[m].mean()`)? Its size is known only as a bound, the masked array's (notebook.ts marks it
   * `approx`), and how many elements the mask selects is the data's: the three bands of
   * h_spectro cell 14 select ~20 of 2,048 columns each, and priced at the bound (3 x 65.5 MB)
   * the cell was 0.074 s on the CPU against 0.027 s measured (run 25), and moved to the GPU at a
   * predicted 7.3x for 0.95x measured. Pricing the bound prices the CPU side far above the GPU's
   * (on the device such work is launches, counted either way), so it tilts the ratio toward
   * moving on work nobody knows exists. The work over a selection is therefore priced at the
   * lower bound, none beyond the selection itself (its mask read and gather: gatherWork, per mask
   * element, measured), on both sides: a cell moves on the work the analysis knows. A slice with
   * bounds the model cannot read (`traj[:, lag:]`) is not a selection: it keeps the bound, which
   * for slices is most of the array (m_pic cell 12's lags: 8.8 s measured against 2.97 s priced
   * at the bound already).
   */
  function maskSelected(node: SyntaxNode): boolean {
    const x = unparen(node);
    if (x.type === 'subscript') {
      const value = field(x, 'value');
      let indices = kids(x).filter(k => k.id !== value?.id && k.type !== 'comment');
      if (indices.length === 1 && indices[0].type === 'tuple') {
        indices = kids(indices[0]).filter(k => k.type !== 'comment');
      }
      return indices.some(k => {
        if (k.type === 'slice' || k.type === 'ellipsis' || k.type === 'none') {
          return false;
        }
        const v = model.inferValue(k, cell);
        return v.kind === 'ndarray' && v.dtype === 'bool' && (v.shape === undefined || v.shape.length > 0);
      });
    }
    if (x.type === 'unary_operator') {
      const operand = field(x, 'argument') ?? kids(x).find(k => k.type !== 'comment');
      return operand !== undefined && operand !== null && maskSelected(operand);
    }
    // (a function, a number, a string beside them do not count; one other array operand does)
    const ofSelections = (operands: (SyntaxNode | null | undefined)[]): boolean => {
      let any = false;
      for (const o of operands) {
        if (!o) {
          continue;
        }
        if (maskSelected(o)) {
          any = true;
        } else if (model.inferValue(o, cell).kind === 'ndarray' || model.inferValue(o, cell).kind === 'unknown') {
          return false;
        }
      }
      return any;
    };
    if (x.type === 'binary_operator') {
      return ofSelections([field(x, 'left'), field(x, 'right')]);
    }
    if (x.type === 'call') {
      const fn = field(x, 'function');
      if (fn?.type === 'attribute') {
        const obj = field(fn, 'object');
        const q = model.qualifiedName(fn);
        if (q === null && obj && model.inferValue(obj, cell).kind === 'ndarray') {
          return maskSelected(obj); // `x[m].mean()`, `x[m].astype(...)`
        }
      }
      const q = fn ? model.qualifiedName(fn) : null;
      return q !== null && /^(numpy|scipy)\./.test(q) && ofSelections(callArguments(x).positional);
    }
    return false;
  }
}

/** NumPy's matrix products, by qualified name (their per-call cost is a matmul's). */
const NUMPY_PRODUCTS = /^numpy\.(dot|matmul|inner|vdot)$/;

/**
 * What an augmented assignment `n` updates: its target's value, or, where the target is an
 * indexed subscript whose size is only a bound (fancy indices: `data[rows, cols] += w`, a window
 * of 256 x 200 positions in a 256 x 120,000 array), the value added when its size is known and
 * smaller: NumPy reads, adds and writes back as many elements as the indices select (the right
 * side broadcast to them), not the whole array. n_seismic cell 2's 24 such updates were priced at
 * 24 passes over its 245.8 MB array (1.34 s) before, and that cell took 0.84-1.20 s in all on
 * the H200's host (run 27).
 */
function updatedElements(n: SyntaxNode, model: NotebookModel, cell: CellModel): ValueInfo {
  const left = field(n, 'left');
  const target = model.inferValue(left ?? n, cell);
  if (left?.type !== 'subscript' || target.kind !== 'ndarray' || !target.approx || target.selection) {
    return target;
  }
  const right = field(n, 'right');
  const added = right ? model.inferValue(right, cell) : null;
  return added?.kind === 'ndarray' && !added.approx && added.size !== undefined && (target.size === undefined || added.size < target.size) ? added : target;
}

/**
 * NumPy's cost per call of the operation at `n`, beyond its work on the data
 * (`MEASURED_H200.hostSecondsPer*Call`, measured on tiny arrays): a matrix product (`@`,
 * `np.dot`), a linear-algebra routine on one matrix (`np.linalg.inv`...), a reduction called as a
 * NumPy function (`np.mean(x)`: Python-level wrappers), anything else (an operator, a ufunc, a
 * method).
 */
export function hostCallSeconds(n: SyntaxNode, model: NotebookModel): number {
  const rates = MEASURED_H200;
  if (n.type === 'binary_operator' || n.type === 'augmented_assignment') {
    return operatorOf(n).replace('=', '') === '@' ? rates.hostSecondsPerMatmulCall : rates.hostSecondsPerCall;
  }
  const fn = n.type === 'call' ? field(n, 'function') : null;
  const q = fn ? model.qualifiedName(fn) : null;
  if (q === null) {
    return rates.hostSecondsPerCall;
  }
  if (NUMPY_PRODUCTS.test(q)) {
    return rates.hostSecondsPerMatmulCall;
  }
  if (/^(numpy|scipy)\.linalg\./.test(q)) {
    return rates.hostSecondsPerLinalgCall;
  }
  return q.startsWith('numpy.') && REDUCTIONS.has(q.slice('numpy.'.length)) ? rates.hostSecondsPerReductionCall : rates.hostSecondsPerCall;
}

/**
 * Host seconds of one draw of NumPy's beyond writing it (the write is a third of a pass, ~0.6 ns
 * for 8 bytes at the model's 13.2 GB/s, counted in `passes`), whatever the cell's largest dtype:
 * measured on the H200's host by bench/host_probe.py --parts draws
 * (bench/results/2026-12-02-h200-host-probe/host_probe_2.json, draws_ns: 20M values each; the
 * write taken off): a Generator's random 4.29 ns a value (float32 4.11), standard_normal 15.6
 * (float32 13.8), normal(loc, scale) 17.5, uniform(low, high) 6.75, integers(0, 12) 4.64 (int64),
 * exponential(scale) 9.12; the legacy np.random.randn 20.9 and np.random.rand 6.59. A float32 draw
 * costs about what a float64 one does (the generator's work, not the bytes): before, draws were
 * host transcendentals at 3 ns, halved for float32 cells, and exponential, random, uniform and
 * integers one each (3.6 ns a float64 value against 4.3-9.1 measured; standard_normal of a float32
 * cell 7.8 ns against 13.8). Not measured, kept as they were priced: standard_exponential as
 * exponential (the same ziggurat less a multiply), np.random.normal/standard_normal as randn,
 * np.random.random/random_sample as rand; a Generator's other non-uniform draws (lognormal,
 * gamma, poisson...) and a legacy function's 12 ns (4 transcendentals), anything else 3 ns (one).
 * `legacy`: a `np.random.<name>` function, else a Generator's method; `dtype`: the draw's.
 */
export function hostDrawSeconds(name: string, legacy: boolean, dtype: string | undefined): number {
  const ns = (measured: number, bytes: number): number => (measured - bytes / 13.2) * 1e-9;
  const f32 = dtype === 'float32';
  if (legacy) {
    if (/^(randn|normal|standard_normal)$/.test(name)) {
      return ns(20.87, 8);
    }
    if (/^(rand|random|random_sample)$/.test(name)) {
      return ns(6.59, 8);
    }
    return /normal|gamma|poisson|exponential/.test(name) ? 12e-9 : 3e-9;
  }
  switch (name) {
    case 'random':
      return f32 ? ns(4.11, 4) : ns(4.29, 8);
    case 'standard_normal':
      return f32 ? ns(13.82, 4) : ns(15.61, 8);
    case 'normal':
      return ns(17.47, 8);
    case 'uniform':
      return ns(6.75, 8);
    case 'integers':
      return ns(4.64, 8);
    case 'exponential':
    case 'standard_exponential':
      return ns(9.12, 8);
    default:
      return /normal|gamma|poisson|exponential/.test(name) ? 12e-9 : 3e-9;
  }
}

/**
 * The slice a computed array is copied into (`u[1:-1, 1:-1] = 0.25 * (...)`, `lap[1:-1] = f(x)`),
 * or null: a scalar fill (`u[0, :] = 1.0`) or a plain copy (`u[1:] = v`, `u[:] = v[::2]`) makes
 * no temporary, and neither does an assignment to a name, nor a store into a dictionary the
 * notebook makes from a literal (`areas[name] = np.trapezoid(...)`: the dict keeps a reference;
 * priced as a copy of the whole array where the result's size was only a bound, h_spectro cell
 * 14's three stores were 2 of its 5 passes).
 */
export function sliceAssignmentCopy(n: SyntaxNode, model: NotebookModel, cell: CellModel): ValueInfo | null {
  const left = field(n, 'left');
  const right = field(n, 'right');
  if (left?.type !== 'subscript' || !right) {
    return null;
  }
  const r = unparen(right);
  if (r.type === 'identifier' || r.type === 'subscript' || r.type === 'attribute' || r.type === 'integer' || r.type === 'float') {
    return null;
  }
  const container = field(left, 'value');
  if (container && dictionaryPairs(unparen(container), model, cell) !== undefined) {
    return null;
  }
  const value = model.inferValue(r, cell);
  if (value.kind !== 'ndarray' || (value.shape !== undefined && value.shape.length === 0)) {
    return null;
  }
  const target = model.inferValue(left, cell);
  return target.kind === 'ndarray' && target.size !== undefined ? target : value;
}

/**
 * Non-zeros a row of a SciPy sparse matrix is assumed to hold (the count is not tracked):
 * bench/workloads/sparse_matvec_csr.py's 10.
 */
const SPARSE_NONZEROS_PER_ROW = 10;

/** Passes beyond the one read: std/var subtract the mean and square into temporaries. */
function extraReductionPasses(name: string): number {
  return name === 'std' || name === 'var' || name === 'nanstd' || name === 'nanvar' ? 2 : 0;
}

/** The 1-D transforms (along one axis), 2-D and n-D, of complex and of real data. */
const FFT_TRANSFORM = /^(i?r?fft|i?hfft|i?dct|i?dst)([2n]?)$/;

/**
 * Flops of an FFT of `a` (5 N log2 N per transform of N points; 2.5 for the transforms of real
 * data, rfft/hfft/dct/dst, half the work): N is the length along `axis` (the last by default) for
 * the 1-D transforms, so a batch of 25,836 frames of 1024 costs 25,836 transforms of 1024 points,
 * not one of 26M; the last two axes' for the 2-D ones, every axis for the n-D ones. `short`: 1-D
 * transforms of at most `SHORT_FFT_POINTS` points, which the host runs in cache (costmodel.ts).
 * Null for anything else, an unknown shape, or `axes`/`s` given (the caller's one transform of
 * every element).
 */
function transformFlops(name: string, a: ValueInfo, args: ReturnType<typeof callArguments>, model: NotebookModel, cell: CellModel): { flops: number; short: boolean } | null {
  const m = FFT_TRANSFORM.exec(name);
  const shape = a.kind === 'ndarray' && !a.approx ? a.shape : undefined;
  if (!m || !shape || shape.length === 0 || !shape.every(d => typeof d === 'number') || args.keywords.has('axes') || args.keywords.has('s')) {
    return null;
  }
  const dims = shape as number[];
  const size = dims.reduce((p, d) => p * d, 1);
  let points = size;
  if (m[2] === '') {
    const axisNode = args.keywords.get('axis') ?? (/dct|dst/.test(name) ? undefined : args.positional[2]);
    const axis = axisNode ? model.constantValue(axisNode, cell) : -1;
    if (axis === undefined || !Number.isInteger(axis) || axis >= dims.length || axis < -dims.length) {
      return null;
    }
    points = dims[axis < 0 ? axis + dims.length : axis];
  } else if (m[2] === '2') {
    points = dims.length >= 2 ? dims[dims.length - 1] * dims[dims.length - 2] : size;
  }
  const perPoint = /r|h|dct|dst/.test(m[1]) ? 2.5 : 5;
  return { flops: perPoint * size * Math.log2(Math.max(2, points)), short: m[2] === '' && points <= SHORT_FFT_POINTS };
}

/**
 * Flops of `scipy.signal.hilbert(x, N, axis)`'s two complex transforms of N points (the length
 * along `axis`, the last by default, where N is not given) per 1-D signal, 5 N log2 N each as
 * `transformFlops` prices a complex FFT; `short` where N is at most `SHORT_FFT_POINTS` (rows the
 * host transforms in cache). `hilbert2(x, N)`: two 2-D transforms of the (first two axes of the)
 * 2-D data, never short. Null where the shape, N or the axis is not known. A shape that is a
 * bound is taken as it is (SciPy's filters give results shaped like their data, typed with its
 * shape as a bound: n_seismic's envelope of `sosfiltfilt`'s output); a selection's (unknown
 * lengths) is not.
 */
function analyticSignalFlops(name: string, a: ValueInfo, args: ReturnType<typeof callArguments>, model: NotebookModel, cell: CellModel): { flops: number; short: boolean } | null {
  const shape = a.kind === 'ndarray' ? a.shape : undefined;
  if (!shape || shape.length === 0 || !shape.every(d => typeof d === 'number' && d > 0)) {
    return null;
  }
  const dims = shape as number[];
  const size = dims.reduce((p, d) => p * d, 1);
  const nNode = args.keywords.get('N') ?? args.positional[1];
  const given = nNode && nNode.type !== 'none' ? unparen(nNode) : null;
  if (name === 'hilbert2') {
    if (dims.length !== 2) {
      return null;
    }
    const sides = given === null ? dims : given.type === 'tuple' || given.type === 'list' ? kids(given).map(k => model.constantValue(k, cell)) : [model.constantValue(given, cell), model.constantValue(given, cell)];
    if (sides.length !== 2 || sides.some(k => k === undefined || !Number.isInteger(k) || k <= 0)) {
      return null;
    }
    const points = (sides as number[])[0] * (sides as number[])[1];
    return { flops: 2 * 5 * points * Math.log2(Math.max(2, points)), short: false };
  }
  const axisNode = args.keywords.get('axis') ?? args.positional[2];
  const axis = axisNode ? model.constantValue(axisNode, cell) : -1;
  if (axis === undefined || !Number.isInteger(axis) || axis >= dims.length || axis < -dims.length) {
    return null;
  }
  const length = dims[axis < 0 ? axis + dims.length : axis];
  const points = given === null ? length : model.constantValue(given, cell);
  if (points === undefined || !Number.isInteger(points) || points <= 0) {
    return null;
  }
  return { flops: 2 * 5 * (size / length) * points * Math.log2(Math.max(2, points)), short: points <= SHORT_FFT_POINTS };
}

function matmulFlops(n: SyntaxNode, model: NotebookModel, cell: CellModel): number {
  const left = field(n, 'left');
  const right = field(n, 'right');
  const a = left ? model.inferValue(left, cell) : undefined;
  const b = right ? model.inferValue(right, cell) : undefined;
  if (a?.shape?.length === 2 && b?.shape?.length === 2 && a.shape.every(d => d !== null) && b.shape[1] !== null) {
    return 2 * (a.shape[0] as number) * (a.shape[1] as number) * (b.shape[1] as number);
  }
  const product = a && b ? productFlops(a, b) : null;
  if (product !== null) {
    return product;
  }
  const size = a?.size ?? b?.size;
  return size ? 2 * Math.pow(Math.sqrt(size), 3) : 0;
}

/**
 * How often a loop's body runs: its iterable's count (`iterations`), a `while` loop's counter
 * bound (`whileTrips`), else (unknown count) 10.
 */
function loopTrips(loop: SyntaxNode, model: NotebookModel, cell: CellModel): number {
  const right = loop.type === 'for_statement' ? field(loop, 'right') : null;
  return (right ? iterations(right, model, cell) : loop.type === 'while_statement' ? whileTrips(loop, model, cell) : undefined) ?? 10;
}

/**
 * How many items iterating over `iter` yields, where the model knows: `range(...)` of constants,
 * of `len(X)` or `X.shape[k]` of a typed array; a typed array itself (its rows); a list, tuple or
 * set display (its items); `enumerate`/`reversed` of one of these, `zip` of several (the
 * shortest). Undefined otherwise.
 */
function iterations(iter: SyntaxNode, model: NotebookModel, cell: CellModel): number | undefined {
  const n = unparen(iter);
  if (n.type === 'list' || n.type === 'tuple' || n.type === 'set') {
    const items = kids(n).filter(k => k.type !== 'comment');
    return items.some(k => k.type === 'list_splat') ? undefined : items.length;
  }
  const fn = n.type === 'call' ? field(n, 'function') : null;
  if (fn?.type === 'identifier' && (fn.text === 'range' || fn.text === 'enumerate' || fn.text === 'reversed' || fn.text === 'zip')) {
    const args = callArguments(n).positional;
    if (fn.text === 'range') {
      return loopCount(n, model, cell, a => model.constantValue(a, cell) ?? lengthOf(a, model, cell));
    }
    const counts = (fn.text === 'zip' ? args : args.slice(0, 1)).map(a => iterations(a, model, cell));
    return counts.length > 0 && counts.every(c => c !== undefined) ? Math.min(...(counts as number[])) : undefined;
  }
  const pairs = dictionaryPairs(n, model, cell) ?? literalItems(n, model, cell);
  if (pairs !== undefined) {
    return pairs;
  }
  const head = slicedIterations(n, model, cell);
  if (head !== undefined) {
    return head;
  }
  const v = model.inferValue(n, cell);
  const rows = v.kind === 'ndarray' && !v.approx ? v.shape?.[0] : undefined;
  if (typeof rows === 'number') {
    return rows;
  }
  // a 1-D array whose length is known only as a bound (`np.unique(x)`: at most x's size; `x[mask]`:
  // at most the mask's). A bound is not a trip count: the distinct values of integers drawn from
  // or reduced to a literal range are at most that range (`rng.integers(0, 50, ...)`: 50), which
  // is sound and, for an input far larger than its range, what the loop runs; otherwise the bound
  // where it is at most BOUNDED_LOOP_TRIPS, else that many (see there)
  const oneD = v.kind === 'ndarray' && v.approx && (v.shape === undefined || v.shape.length === 1);
  if (!oneD || v.size === undefined) {
    return undefined;
  }
  const range = distinctValuesAtMost(n, model, cell, 0);
  return range !== undefined ? Math.min(v.size, range) : Math.min(v.size, BOUNDED_LOOP_TRIPS);
}

/**
 * Trips priced for a loop over an array known only by a bound (`np.unique(x)` of values the model
 * cannot range, `x[mask]`) where that bound is larger: 100. The bound is the input's size (4.2M
 * for np.unique of a 2048^2 label image: 1.4M passes priced, 177 min, for a cell that ran 0.71 s
 * over its 50 labels). A Python loop over distinct values or selected items whose every trip
 * passes over the input (`img[labels == lab]`) is written for categories (labels, classes,
 * bands, lags), tens to hundreds of them: m_pic cell 12's 30 log-spaced lags (27 distinct) keep
 * their bound; the model's count for a loop it cannot count at all (10) would price that cell
 * at a third of its 7.6-9.1 s.
 */
const BOUNDED_LOOP_TRIPS = 100;

/** How many names `distinctValuesAtMost` follows to their assignments. */
const DISTINCT_VALUES_DEPTH = 4;

/**
 * At most how many distinct values the array `n` holds, where its values come from a literal
 * integer range: `rng.integers(lo, hi, ...)`, `np.random.randint(lo, hi, ...)` (hi - lo; hi alone:
 * hi), `rng.choice(k, ...)` of an integer k (k), an integer array `% k` for a positive constant k
 * (k: NumPy's remainder takes the divisor's sign), a bool array (2); through `np.unique(x)`,
 * `x.ravel()`, `x.flatten()`, `x.reshape(...)`, `x.astype(<integer type>)`, a subscript of x (a subset of its
 * values) and names bound once (a plain assignment in this cell before, or in the last earlier
 * cell binding it). Undefined where not known.
 */
function distinctValuesAtMost(node: SyntaxNode, model: NotebookModel, cell: CellModel, depth: number): number | undefined {
  const n = unparen(node);
  if (depth > DISTINCT_VALUES_DEPTH) {
    return undefined;
  }
  const v = model.inferValue(n, cell);
  if (v.kind === 'ndarray' && v.dtype === 'bool') {
    return 2;
  }
  const integer = v.kind === 'ndarray' && /^u?int/.test(v.dtype ?? '');
  const positive = (a: SyntaxNode | undefined): number | undefined => {
    const c = a ? model.constantValue(a, cell) : undefined;
    return c !== undefined && Number.isInteger(c) ? c : undefined;
  };
  if (n.type === 'identifier') {
    const writer = cell.facts?.writes.has(n.text) ? cell : model.lastWriterBefore(n.text, cell);
    const bound = writer?.facts?.assignments.filter(a => a.name === n.text && (writer !== cell || a.at <= n.startIndex)) ?? [];
    const last = bound[bound.length - 1];
    return last?.value && !last.augmented && writer ? distinctValuesAtMost(last.value, model, writer, depth + 1) : undefined;
  }
  if (n.type === 'subscript') {
    const value = field(n, 'value');
    return value ? distinctValuesAtMost(value, model, cell, depth + 1) : undefined;
  }
  if (n.type === 'binary_operator' && operatorOf(n) === '%') {
    const k = positive(field(n, 'right') ?? undefined);
    return integer && k !== undefined && k > 0 ? k : undefined;
  }
  if (n.type !== 'call') {
    return undefined;
  }
  const fn = field(n, 'function');
  const { positional, keywords } = callArguments(n);
  const q = fn ? model.qualifiedName(fn) : null;
  if (q === 'numpy.unique' || q === 'numpy.ravel') {
    return positional[0] ? distinctValuesAtMost(positional[0], model, cell, depth + 1) : undefined;
  }
  if (fn?.type !== 'attribute') {
    return undefined;
  }
  const obj = field(fn, 'object');
  const method = field(fn, 'attribute')?.text ?? '';
  if (obj && (method === 'ravel' || method === 'flatten' || method === 'reshape' || (method === 'astype' && integer))) {
    return distinctValuesAtMost(obj, model, cell, depth + 1);
  }
  const drawn = q === 'numpy.random.randint' || q === 'numpy.random.choice' || (obj !== null && model.inferValue(obj, cell).kind === 'rng');
  if (!drawn || !integer) {
    return undefined;
  }
  if (method === 'integers' || method === 'randint') {
    const lo = positive(keywords.get('low') ?? positional[0]);
    const hiNode = keywords.get('high') ?? positional[1];
    const hi = hiNode && hiNode.type !== 'none' ? positive(hiNode) : undefined;
    const count = hiNode && hiNode.type !== 'none' ? (hi !== undefined && lo !== undefined ? hi - lo : undefined) : lo;
    return count !== undefined && count > 0 ? count : undefined;
  }
  if (method === 'choice') {
    const k = positive(keywords.get('a') ?? positional[0]);
    return k !== undefined && k > 0 ? k : undefined;
  }
  return undefined;
}

/**
 * How many items `d`, `d.items()`, `d.keys()` or `d.values()` yields where `d` is a name bound to
 * a dictionary literal (its last plain assignment in this cell before the loop, or in the last
 * earlier cell binding it; no `**` unpacking): its pairs. Undefined otherwise. (Keys added to it in
 * between are not seen.)
 */
function dictionaryPairs(n: SyntaxNode, model: NotebookModel, cell: CellModel): number | undefined {
  const fn = n.type === 'call' ? field(n, 'function') : null;
  const viewed = fn?.type === 'attribute' && /^(items|keys|values)$/.test(field(fn, 'attribute')?.text ?? '') && callArguments(n).positional.length === 0 ? field(fn, 'object') : null;
  const name = viewed ?? n;
  if (name.type !== 'identifier') {
    return undefined;
  }
  const writer = cell.facts?.writes.has(name.text) ? cell : model.lastWriterBefore(name.text, cell);
  const bound = writer?.facts?.assignments.filter(a => a.name === name.text && !a.augmented && (writer !== cell || a.at <= name.startIndex)) ?? [];
  const value = bound.length > 0 ? bound[bound.length - 1].value : null;
  const literal = value ? unparen(value) : null;
  if (literal?.type !== 'dictionary') {
    return undefined;
  }
  const items = kids(literal).filter(k => k.type !== 'comment');
  return items.every(k => k.type === 'pair') ? items.length : undefined;
}

/**
 * `len(X)` of an array whose first dimension the model knows: that dimension; of a name bound to
 * a literal (`len(names)`, `names = ["a", "b", "c"]`; a dictionary's pairs too): its items.
 */
function lengthOf(n: SyntaxNode, model: NotebookModel, cell: CellModel): number | undefined {
  const u = unparen(n);
  const arg = u.type === 'call' && field(u, 'function')?.text === 'len' ? callArguments(u).positional : [];
  const v = arg.length === 1 ? model.inferValue(arg[0], cell) : null;
  const rows = v?.kind === 'ndarray' && !v.approx ? v.shape?.[0] : undefined;
  if (typeof rows === 'number') {
    return rows;
  }
  return arg.length === 1 ? (dictionaryPairs(unparen(arg[0]), model, cell) ?? literalItems(unparen(arg[0]), model, cell)) : undefined;
}

/**
 * How many items a name bound to a list, tuple or set display holds (its last plain assignment in
 * this cell before `n`, or in the last earlier cell binding it; no `*` unpacking): a tuple's
 * always; a list's or set's where it is not empty and neither that cell nor this one grows it
 * (`names.append(...)`, `.extend`, `.insert`, `.add`, `.update`, `names +=`), since `fits = []`
 * filled in a loop is the common list a later loop walks. Undefined otherwise.
 */
function literalItems(n: SyntaxNode, model: NotebookModel, cell: CellModel): number | undefined {
  if (n.type !== 'identifier') {
    return undefined;
  }
  const writer = cell.facts?.writes.has(n.text) ? cell : model.lastWriterBefore(n.text, cell);
  const bound = writer?.facts?.assignments.filter(a => a.name === n.text && !a.augmented && (writer !== cell || a.at <= n.startIndex)) ?? [];
  const value = bound.length > 0 ? bound[bound.length - 1].value : null;
  const literal = value ? unparen(value) : null;
  if (!writer || !literal || (literal.type !== 'list' && literal.type !== 'tuple' && literal.type !== 'set')) {
    return undefined;
  }
  const items = kids(literal).filter(k => k.type !== 'comment');
  if (items.some(k => k.type === 'list_splat')) {
    return undefined;
  }
  if (literal.type !== 'tuple') {
    const name = n.text.replace(/[^A-Za-z0-9_]/g, '');
    const grows = new RegExp(`\\b${name}\\s*(\\.\\s*(append|extend|insert|add|update)\\s*\\(|\\+=|\\|=)`);
    if (items.length === 0 || [writer, cell].some(c => grows.test(c.tree?.rootNode.text ?? ''))) {
      return undefined;
    }
  }
  return items.length;
}

/**
 * Items of `X[a:b]` / `X[:b]` / `X[a:b:s]` (one slice, its bounds constants the model knows,
 * non-negative, a positive step) where X's own length is not known to the model (`peaks[:5]` of
 * find_peaks' result): at most ceil((b - a) / s), the count the loop is priced at; X's count where
 * that is known (then clamped as Python clamps). Undefined otherwise.
 */
function slicedIterations(n: SyntaxNode, model: NotebookModel, cell: CellModel): number | undefined {
  if (n.type !== 'subscript') {
    return undefined;
  }
  const value = field(n, 'value');
  const index = kids(n).filter(k => k.id !== value?.id && k.type !== 'comment');
  if (!value || index.length !== 1 || index[0].type !== 'slice') {
    return undefined;
  }
  const parts: (SyntaxNode | null)[] = [null, null, null];
  let part = 0;
  for (const c of index[0].children) {
    if (c.type === ':') {
      part++;
    } else if (c.isNamed && c.type !== 'comment' && part <= 2) {
      parts[part] = c.type === 'none' ? null : c;
    }
  }
  const number = (c: SyntaxNode | null, dflt: number | undefined): number | undefined => {
    if (c === null) {
      return dflt;
    }
    const k = model.constantValue(c, cell);
    return k !== undefined && Number.isInteger(k) && k >= 0 ? k : undefined;
  };
  const start = number(parts[0], 0);
  const stop = number(parts[1], undefined);
  const step = number(parts[2], 1);
  if (start === undefined || stop === undefined || step === undefined || step === 0) {
    return undefined;
  }
  const length = iterations(value, model, cell);
  const [a, b] = length === undefined ? [start, stop] : [Math.min(start, length), Math.min(stop, length)];
  return Math.max(0, Math.ceil((b - a) / step));
}

/**
 * How often `child` runs per run of its parent `p`, as far as the syntax and the model say:
 * - a loop's body: the loop's trips (`loopTrips`);
 * - a comprehension's element: the product of its `for` clauses' counts (an unknown count taken
 *   as a loop's, 10); an `if` or `for` clause: the product of the `for` clauses before it (the
 *   first iterable is evaluated once, a condition once per item of the clauses it follows);
 * - the body of `if i % K == 0:` (a literal K, `i` the variable of a loop around it, `i + c` or
 *   `i - c` for a literal c too): once every K steps, 1/K. Any other `if` runs its branches every
 *   time (the estimate does not know how often a condition holds: both branches are charged);
 * - anything else: as often as the parent.
 * A function's body (function-runs.ts) is the caller's to multiply.
 */
export function runsPerParentRun(p: SyntaxNode, child: SyntaxNode, model: NotebookModel, cell: CellModel): number {
  const type = p.type;
  if (type === 'for_statement' || type === 'while_statement') {
    return child.fieldName === 'body' ? loopTrips(p, model, cell) : 1;
  }
  if (COMPREHENSION_TYPES.has(type)) {
    // (the element comes first in the text, but runs for every item: the whole product)
    const element = child.fieldName === 'body';
    let product = 1;
    for (const clause of kids(p)) {
      if (clause.id === child.id && !element) {
        return product;
      }
      if (clause.type === 'for_in_clause') {
        const right = field(clause, 'right');
        product *= (right ? iterations(right, model, cell) : undefined) ?? 10;
      }
    }
    return product;
  }
  if (type === 'if_statement' && child.fieldName === 'consequence') {
    const every = everyKthStep(p);
    return every === null ? 1 : 1 / every;
  }
  return 1;
}

/**
 * K of `if i % K == c:` with K an integer literal above 1, c an integer literal and `i` the
 * variable of a `for` loop around the `if` (or `i + c` / `i - c`, parentheses allowed); else null.
 */
function everyKthStep(ifStatement: SyntaxNode): number | null {
  const condition = unparen(field(ifStatement, 'condition') ?? ifStatement);
  const sides = condition.type === 'comparison_operator' ? kids(condition).filter(k => k.type !== 'comment') : [];
  if (sides.length !== 2 || operatorOf(condition) !== '==') {
    return null;
  }
  const [mod, rest] = unparen(sides[0]).type === 'binary_operator' ? [unparen(sides[0]), sides[1]] : [unparen(sides[1]), sides[0]];
  const k = field(mod, 'right');
  let i = unparen(field(mod, 'left') ?? mod);
  if (mod.type !== 'binary_operator' || operatorOf(mod) !== '%' || k?.type !== 'integer' || Number(k.text) < 2 || unparen(rest).type !== 'integer') {
    return null;
  }
  if (i.type === 'binary_operator' && /^[+-]$/.test(operatorOf(i)) && field(i, 'right')?.type === 'integer') {
    i = unparen(field(i, 'left') ?? i);
  }
  for (let p = ifStatement.parent; p && i.type === 'identifier'; p = p.parent) {
    if (p.type === 'for_statement' && field(p, 'left')?.text === i.text) {
      return Number(k.text);
    }
    if (p.type === 'function_definition' || p.type === 'class_definition') {
      return null;
    }
  }
  return null;
}

/**
 * How often `node` runs per run of the cell: the product of `runsPerParentRun` over its
 * ancestors (loop trips, comprehension items, every-K-step branches), and of the calls of the
 * cell's function whose body holds it (the multiplier `estimateWork` counts its work with).
 */
function timesRun(node: SyntaxNode, model: NotebookModel, cell: CellModel): number {
  let times = 1;
  let runs: ReadonlyMap<number, number> | undefined;
  for (let child = node, p = node.parent; p; child = p, p = p.parent) {
    if (p.type === 'function_definition') {
      if (child.fieldName === 'body') {
        runs ??= functionRuns(node.tree.rootNode, (q, c) => runsPerParentRun(q, c, model, cell));
        times *= runs.get(p.id) ?? 1;
      }
    } else {
      times *= runsPerParentRun(p, child, model, cell);
    }
  }
  return times;
}

/**
 * Iterations of `range(K)` / `range(a, b)` / `range(a, b, s)` when constant (`value`: what an
 * argument is as a number; the model's constant by default).
 */
function loopCount(iter: SyntaxNode, model: NotebookModel, cell: CellModel, value: (a: SyntaxNode) => number | undefined = a => model.constantValue(a, cell)): number | undefined {
  if (iter.type !== 'call' || field(iter, 'function')?.text !== 'range') {
    return undefined;
  }
  const args = callArguments(iter).positional.map(value);
  if (args.length === 1) {
    return args[0];
  }
  if (args.length >= 2 && args[0] !== undefined && args[1] !== undefined) {
    return Math.max(0, Math.ceil((args[1] - args[0]) / (args[2] ?? 1)));
  }
  return undefined;
}

/**
 * What breaks in a later cell when the Generator `name` made in `cell` becomes CuPy's: the first
 * later use (up to the cell that surely rebinds `name`), said in words; null when there is none.
 * A draw CuPy's Generator has counts too: that cell would get a CuPy array.
 */
function laterGeneratorProblem(name: string, cell: CellModel, model: NotebookModel): string | null {
  // the first later cell that surely rebinds it (a top-level, unconditional binding)
  const rebinds = (c: CellModel): number => {
    const at = (c.facts?.assignments ?? []).filter(a => a.name === name && !a.nested).map(a => a.at);
    return at.length > 0 ? Math.min(...at) : Infinity;
  };
  const stop = model.writers(name).filter(c => c.index > cell.index && rebinds(c) < Infinity).sort((a, b) => a.index - b.index)[0];
  const later = [...new Set([...model.readersAfter(name, cell), ...(stop ? [stop] : [])])]
    .filter(c => !stop || c.index <= stop.index)
    .sort((a, b) => a.index - b.index);
  for (const c of later) {
    if (!c.tree) {
      continue;
    }
    const until = c === stop ? rebinds(c) : Infinity;
    for (const r of globalReferences(c.tree.rootNode, name)) {
      if (r.startIndex >= until) {
        break;
      }
      const p = r.parent;
      if (p?.type === 'assignment' && field(p, 'left')?.id === r.id) {
        continue; // a nested rebinding (the name is not read there)
      }
      const where = `cell ${c.index}`;
      if (p?.type === 'attribute' && field(p, 'object')?.id === r.id) {
        const method = field(p, 'attribute')?.text ?? '';
        const called = p.parent?.type === 'call' && field(p.parent, 'function')?.id === p.id;
        if (called && CUPY_GENERATOR_METHODS.has(method)) {
          // (the plan too: it brings device values back to host cells with cp.asnumpy, which a
          // Generator is not)
          return `${where} draws \`${name}.${method}(...)\`, which would hand that cell a CuPy array where it may expect NumPy's`;
        }
        return called
          ? `${where} calls \`${name}.${method}(...)\`, which cupy.random.Generator does not have`
          : `${where} reads \`${name}.${method}\`, which cupy.random.Generator does not have`;
      }
      return `${where} uses \`${name}\` other than for a draw (\`${lineOf(c.tree.rootNode, r)}\`), which may need NumPy's Generator`;
    }
  }
  return null;
}

/**
 * NumPy calls whose result is a new array laid out contiguously, C or Fortran order (`order=`
 * picks which; `np.array` copies into a contiguous layout unless `copy=` says it may not copy).
 */
const NUMPY_CONTIGUOUS_CREATORS = /^numpy\.(zeros|ones|empty|full|arange|linspace|array|ascontiguousarray|asfortranarray|random\.(rand|randn|random|random_sample|standard_normal|uniform|normal|randint))$/;
/** Generator methods that draw a new (C-contiguous) array. */
const GENERATOR_DRAWS = new Set([
  'random', 'standard_normal', 'normal', 'uniform', 'integers', 'exponential', 'standard_exponential', 'gamma', 'standard_gamma', 'beta',
  'binomial', 'poisson', 'lognormal', 'laplace', 'logistic', 'chisquare', 'geometric', 'permutation', 'choice'
]);

/**
 * The memory layout of the host array `name` when `cell` starts, where known: 'C' or 'F' (what
 * CuPy's `ndarray.get(out=...)` writes into). Only where one earlier cell binds it, once,
 * unconditionally, to a NumPy creator or a Generator draw, and rebinds it after that only by
 * augmented assignment (in place).
 */
function hostLayout(name: string, cell: CellModel, model: NotebookModel): 'C' | 'F' | null {
  const writers = model.writers(name).filter(c => c.index < cell.index);
  if (writers.length !== 1 || !writers[0].facts) {
    return null;
  }
  const bindings = writers[0].facts.assignments.filter(a => a.name === name);
  const plain = bindings.filter(a => !a.augmented);
  if (plain.length !== 1 || bindings.some(a => a.nested || a.deleted) || bindings.some(a => a.augmented && a.at < plain[0].at)) {
    return null;
  }
  return plain[0].value ? creationLayout(unparen(plain[0].value), writers[0], model) : null;
}

/** The layout of the new array `value` (a call in `cell`) makes, if it is a creator or a draw. */
function creationLayout(value: SyntaxNode, cell: CellModel, model: NotebookModel): 'C' | 'F' | null {
  const fn = value.type === 'call' ? field(value, 'function') : null;
  if (!fn) {
    return null;
  }
  const q = model.qualifiedName(fn) ?? '';
  const { keywords, positional } = callArguments(value);
  const orderText = keywords.get('order')?.text;
  const order = orderText === undefined ? undefined : orderText.replace(/^(['"])(.*)\1$/, '$2');
  if (NUMPY_CONTIGUOUS_CREATORS.test(q)) {
    if (q === 'numpy.asfortranarray') {
      return 'F';
    }
    if (q === 'numpy.array' || q === 'numpy.linspace') {
      // np.array copies in the input's layout (order 'K': neither C nor F for a 3-D transpose)
      // unless order= says; linspace with axis= puts the samples on another axis
      if (q === 'numpy.linspace') {
        return keywords.has('axis') ? null : 'C';
      }
      return keywords.has('copy') ? null : order === 'C' ? 'C' : order === 'F' ? 'F' : null;
    }
    return order === undefined || order === 'C' ? 'C' : order === 'F' ? 'F' : null;
  }
  // rng.standard_normal(...), np.random.default_rng(0).random(...); permutation/choice of an
  // array (or along an axis) keep the input's layout
  const obj = fn.type === 'attribute' ? field(fn, 'object') : null;
  const method = obj ? field(fn, 'attribute')?.text ?? '' : '';
  if (!obj || !GENERATOR_DRAWS.has(method) || model.inferValue(obj, cell).kind !== 'rng') {
    return null;
  }
  const ofArray = (method === 'permutation' || method === 'choice') && (keywords.has('axis') || (positional[0] !== undefined && model.inferValue(positional[0], cell).kind !== 'scalar'));
  return ofArray ? null : 'C';
}

/**
 * Is the device array `obj` (a name or a leading-axis slice of one, as the cell reads it) known
 * C-contiguous, what CuPy's in-place `ndarray.sort()` demands? A host input keeps its layout on
 * the device (`cp.asarray`); one made in the cell by a creator or a draw is C order; a slice of
 * the first axis only (`u[:10]`, `u[i]`) of a C-ordered array is too.
 */
function deviceCContiguous(obj: SyntaxNode, cell: CellModel, model: NotebookModel): boolean {
  let n = unparen(obj);
  if (n.type === 'subscript') {
    const index = kids(n).filter(k => k.id !== field(n, 'value')?.id);
    // one index on the first axis: a slice without a step, an integer literal or a name typed as
    // an integer scalar (a row: `frames[i]` in `for i in range(n)`); not a name that may be an
    // index array (a copy: `u[idx].sort()` sorts a temporary)
    const row = (k: SyntaxNode): boolean => {
      const v = k.type === 'identifier' ? model.inferValue(k, cell) : null;
      return /^-?\s*\d+$/.test(k.text) || (v?.kind === 'scalar' && /^(u?int\d*)?$/.test(v.dtype ?? '')) || rangeVariable(k);
    };
    const leading = index.length === 1 && (index[0].type === 'slice' ? (index[0].text.match(/:/g) ?? []).length === 1 : row(index[0]));
    const value = field(n, 'value');
    if (!leading || !value) {
      return false;
    }
    n = unparen(value);
  }
  if (n.type !== 'identifier') {
    return false;
  }
  const facts = cell.facts!;
  // in a loop, a binding later in the cell (`x = x.T`) reaches the sort on the next trip
  let inLoop = false;
  for (let a = obj.parent; a && !inLoop; a = a.parent) {
    inLoop = a.type === 'for_statement' || a.type === 'while_statement';
  }
  if (inLoop && facts.assignments.some(a => a.name === n.text && a.at > obj.startIndex)) {
    return false;
  }
  const bindings = facts.assignments.filter(a => a.name === n.text && a.at < obj.startIndex);
  if (bindings.length > 0) {
    const last = bindings[bindings.length - 1];
    return !last.augmented && !last.nested && !!last.value && creationLayout(unparen(last.value), cell, model) === 'C';
  }
  return hostLayout(n.text, cell, model) === 'C';
}

/**
 * Is `k` the variable of an enclosing `for k in range(...)` (a Python int on every trip, which the
 * value model leaves untyped), used in the loop's body? Not past a function or lambda, whose
 * parameters could shadow it.
 */
function rangeVariable(k: SyntaxNode): boolean {
  for (let p = k.parent; p && k.type === 'identifier' && p.type !== 'function_definition' && p.type !== 'lambda'; p = p.parent) {
    const left = p.type === 'for_statement' ? field(p, 'left') : null;
    const right = p.type === 'for_statement' ? field(p, 'right') : null;
    const body = p.type === 'for_statement' ? field(p, 'body') : null;
    if (left?.text === k.text && body && isInside(k, body)) {
      return left.type === 'identifier' && right?.type === 'call' && field(right, 'function')?.text === 'range';
    }
  }
  return false;
}

/**
 * Is `obj` a name, or a view of one by basic indexing (slices, integers, `...`, `None`)? An index
 * array makes a copy (`u[idx].sort()` sorts a temporary, C-contiguous on the device too).
 */
function basicView(obj: SyntaxNode, model: NotebookModel, cell: CellModel): boolean {
  const n = unparen(obj);
  if (n.type === 'identifier') {
    return true;
  }
  if (n.type !== 'subscript') {
    return false;
  }
  const value = field(n, 'value');
  return (
    !!value &&
    basicView(value, model, cell) &&
    kids(n)
      .filter(k => k.id !== value.id)
      .every(k => k.type === 'slice' || k.type === 'ellipsis' || k.type === 'none' || /^-?\s*\d+$/.test(k.text) || model.inferValue(k, cell).kind === 'scalar')
  );
}

/**
 * `a.sort(...)` on a device array CuPy cannot sort in place (`ndarray.sort` raises
 * NotImplementedError unless the array is C-contiguous: a Fortran-ordered array, a column slice
 * `u[:, :10]`, a strided view) becomes `a[...] = cp.sort(a, ...)` (a slice: `u[:, :10] =
 * cp.sort(u[:, :10])`): sorted into a contiguous copy and written back through the view, as
 * NumPy's in-place sort would leave it. Replaces the statement's edits made so far (`edits`) by
 * one carrying them.
 */
function sortsInPlace(root: SyntaxNode, model: NotebookModel, cell: CellModel, cp: string, deviceNames: ReadonlySet<string>, edits: TextEdit[]): void {
  walkTypes(root, CALL, call => {
    const fn = field(call, 'function');
    const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
    const args = field(call, 'arguments');
    if (
      !obj ||
      !args ||
      field(fn!, 'attribute')?.text !== 'sort' ||
      call.parent?.type !== 'expression_statement' ||
      !mentions(obj, deviceNames) ||
      model.inferValue(obj, cell).kind !== 'ndarray' ||
      !basicView(obj, model, cell) ||
      deviceCContiguous(obj, cell, model)
    ) {
      return true;
    }
    // the texts of the array and the arguments as the rewrite has them so far: the edits inside a
    // node (an insertion at its edge belongs to what surrounds it)
    const within = (e: TextEdit, n: SyntaxNode): boolean =>
      e.start >= n.startIndex && e.end <= n.endIndex && !(e.start === e.end && (e.start === n.startIndex || e.start === n.endIndex));
    const rewritten = (n: SyntaxNode): string =>
      applyEdits(
        cell.source.slice(n.startIndex, n.endIndex),
        edits.filter(e => within(e, n)).map(e => ({ ...e, start: e.start - n.startIndex, end: e.end - n.startIndex }))
      );
    const target = rewritten(obj);
    const inner = rewritten(args).slice(1, -1).trim();
    const text = `${unparen(obj).type === 'subscript' ? target : `${target}[...]`} = ${cp}.sort(${target}${inner ? `, ${inner}` : ''})`;
    for (let k = edits.length - 1; k >= 0; k--) {
      if (within(edits[k], call)) {
        edits.splice(k, 1);
      }
    }
    edits.push(replace(call.startIndex, call.endIndex, text));
    return false;
  });
}

/**
 * Is the cell's first use of the array `name` (in source order, at top level, so it runs first
 * and once) a whole-array output that does not read it: `ndimage.uniform_filter(src, 9,
 * output=u)`, `np.multiply(a, b, out=u)` (a NumPy ufunc without `where=`)? Then its contents
 * before the cell do not matter.
 */
function writtenWholeFirst(root: SyntaxNode, name: string, model: NotebookModel): boolean {
  const first = globalReferences(root, name)[0];
  const kw = first?.parent;
  if (!first || kw?.type !== 'keyword_argument' || !/^out(put)?$/.test(field(kw, 'name')?.text ?? '') || field(kw, 'value')?.id !== first.id) {
    return false;
  }
  const call = kw.parent?.type === 'argument_list' ? kw.parent.parent : null;
  const fn = call?.type === 'call' ? field(call, 'function') : null;
  if (!call || !fn || call.parent?.type !== 'expression_statement' || call.parent.parent?.id !== root.id) {
    return false;
  }
  const q = model.qualifiedName(fn) ?? '';
  const output = field(kw, 'name')?.text === 'output';
  return output
    ? /^scipy\.ndimage\.\w+$/.test(q)
    : q.startsWith('numpy.') && NUMPY_UFUNC_NIN.has(q.slice('numpy.'.length)) && !callArguments(call).keywords.has('where');
}

/** The source line that holds `node`, trimmed. */
function lineOf(root: SyntaxNode, node: SyntaxNode): string {
  const text = root.text;
  const start = text.lastIndexOf('\n', node.startIndex - 1 - root.startIndex) + 1;
  const end = text.indexOf('\n', node.startIndex - root.startIndex);
  return text.slice(start, end < 0 ? undefined : end).trim();
}

/**
 * `rng.normal(loc, scale, size)` -> `(loc + scale * rng.standard_normal(size))` for CuPy's
 * Generator, which lacks `normal`. Only for plain arguments (names, numbers, tuples).
 */
function normalViaStandardNormal(call: SyntaxNode, rng: string, model: NotebookModel, cell: CellModel, cp: string): TextEdit | null {
  const { positional, keywords } = callArguments(call);
  const arg = (k: number, kw: string): SyntaxNode | undefined => keywords.get(kw) ?? positional[k];
  const loc = arg(0, 'loc');
  const scale = arg(1, 'scale');
  const size = arg(2, 'size');
  const plain = [loc, scale, size].every(a => !a || !/\b(np|numpy)\./.test(a.text));
  if (!plain || keywords.has('out') || keywords.has('dtype') || positional.length > 3 || model.aliases.has(rng)) {
    return null;
  }
  // no size: the draw's shape is the parameters' (an array among them), which `standard_normal()`
  // (one number) would not give; an array parameter that is a plain name lends its shape, two
  // their broadcast; anything else is not rewritten
  let shape = size && size.type !== 'none' ? size.text : '';
  if (!shape) {
    const kinds = [loc, scale].map(a => (a ? model.inferValue(a, cell).kind : 'scalar'));
    const arrays = [loc, scale].filter((a, k): a is SyntaxNode => !!a && kinds[k] === 'ndarray');
    if (kinds.includes('sequence') || arrays.some(a => !/^[A-Za-z_][\w.]*$/.test(a.text))) {
      return null;
    }
    shape = arrays.length === 1 ? `${arrays[0].text}.shape` : arrays.length === 2 ? `${cp}.broadcast(${arrays[0].text}, ${arrays[1].text}).shape` : '';
  }
  const draw = `${rng}.standard_normal(${shape})`;
  const scaled = scale ? `${wrapOperand(scale.text)} * ${draw}` : draw;
  const text = loc && loc.text !== '0' && loc.text !== '0.0' ? `(${wrapOperand(loc.text)} + ${scaled})` : `(${scaled})`;
  return { start: call.startIndex, end: call.endIndex, text };
}

function wrapOperand(text: string): string {
  return /^[\w.]+$/.test(text) ? text : `(${text})`;
}

/** How many prologue entries the fused definitions (and their separating blank) take. */
function fusedLines(definitions: string[], prologue: string[]): number {
  if (definitions.length === 0) {
    return 0;
  }
  return definitions.length + (prologue.length > definitions.length ? 1 : 0);
}

/** Legacy draws with a float dtype argument in CuPy: numpy name -> (cupy name, size from positional dims?). */
const LEGACY_DTYPE_DRAWS: ReadonlyMap<string, { to: string; dims: boolean }> = new Map([
  ['rand', { to: 'random', dims: true }],
  ['random', { to: 'random', dims: false }],
  ['random_sample', { to: 'random', dims: false }],
  ['ranf', { to: 'random', dims: false }],
  ['sample', { to: 'random', dims: false }],
  ['randn', { to: 'standard_normal', dims: true }],
  ['standard_normal', { to: 'standard_normal', dims: false }]
]);

/**
 * `np.random.rand(n).astype(np.float32)` -> `cp.random.random(n, dtype=np.float32)`;
 * `rng.standard_normal(size).astype('float32')` -> `rng.standard_normal(size, dtype='float32')`
 * for a Generator made in the cell. Only for float32/float64 targets and plain arguments.
 */
function drawInDtype(call: SyntaxNode, model: NotebookModel, cell: CellModel, cp: string): TextEdit | null {
  const fn = field(call, 'function');
  if (fn?.type !== 'attribute' || field(fn, 'attribute')?.text !== 'astype') {
    return null;
  }
  const castArgs = callArguments(call);
  const target = castArgs.positional[0] ?? castArgs.keywords.get('dtype');
  if (!target || castArgs.positional.length + castArgs.keywords.size !== 1 || !/^(float32|float64)$/.test(normaliseDtype(target.text) ?? '')) {
    return null;
  }
  const draw = field(fn, 'object');
  if (draw?.type !== 'call') {
    return null;
  }
  const drawFn = field(draw, 'function');
  const { positional, keywords } = callArguments(draw);
  const plain = [...positional, ...keywords.values()].every(a => !/\b(np|numpy)\./.test(a.text) && a.type !== 'list_splat' && a.type !== 'dictionary_splat');
  if (!drawFn || !plain) {
    return null;
  }
  const q = model.qualifiedName(drawFn);
  const dtype = target.text;
  if (q?.startsWith('numpy.random.')) {
    const spec = LEGACY_DTYPE_DRAWS.get(q.slice('numpy.random.'.length));
    if (!spec || [...keywords.keys()].some(k => k !== 'size')) {
      return null;
    }
    let size: string;
    if (spec.dims) {
      if (keywords.size > 0) {
        return null;
      }
      size = positional.length === 0 ? '' : positional.length === 1 ? positional[0].text : `(${positional.map(a => a.text).join(', ')})`;
    } else {
      if (positional.length > 1) {
        return null;
      }
      size = (positional[0] ?? keywords.get('size'))?.text ?? '';
    }
    const args = size ? `${size}, dtype=${dtype}` : `dtype=${dtype}`;
    return { start: call.startIndex, end: call.endIndex, text: `${cp}.random.${spec.to}(${args})` };
  }
  // a Generator made in this cell (the rewrite makes it a cupy Generator)
  const obj = drawFn.type === 'attribute' ? field(drawFn, 'object') : null;
  const method = drawFn.type === 'attribute' ? field(drawFn, 'attribute')?.text : undefined;
  if (!obj || obj.type !== 'identifier' || (method !== 'random' && method !== 'standard_normal')) {
    return null;
  }
  if (!numpyGeneratorOf(draw, model, cell)?.madeHere) {
    return null;
  }
  if (keywords.has('dtype') || keywords.has('out') || [...keywords.keys()].some(k => k !== 'size') || positional.length > 1) {
    return null;
  }
  const size = (positional[0] ?? keywords.get('size'))?.text;
  return { start: call.startIndex, end: call.endIndex, text: `${obj.text}.${method}(${size ? `${size}, ` : ''}dtype=${dtype})` };
}
