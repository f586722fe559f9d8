/**
 * The notebook model: imports and aliases, what each name holds (ndarray with shape and dtype,
 * DataFrame, Graph, estimator...), and which cells read and write each name.
 *
 * Parsing is cached per cell (id + source): editing one cell re-parses that cell only. What
 * names hold is recomputed on every update from the cached facts, because a constant in one
 * cell (`N = 4000`) sizes arrays in another. Runtime information from the kernel, when given,
 * overrides what literals suggest.
 */
import { AssignmentFact, CellFacts, collectFacts, ImportFact } from './facts';
import { FunctionPlan, functionPlan } from './function-plan';
import { maskIPython, MaskResult } from './ipython';
import { MEMO_NAMES, MEMO_VALUES } from './parser';
import type { PythonParser, SyntaxNode, SyntaxTree } from './parser';
import { callArguments, field, kids, operatorOf, unparen, walkTypes } from './syntax';
import type { CellInput, RuntimeValueInfo } from './types';
import {
  CUPY_NUMPY_FUNCTIONS,
  ELEMENTWISE_UFUNCS,
  NUMPY_PASSTHROUGH_NAMES,
  REDUCTIONS
} from './apis/cupy';
import { isDeviceIncompatibleDtype, normaliseDtype, promoteTypes, promoteWeak, scalarType, shapeSize, trueDivideDtype, UNKNOWN, ValueInfo } from './values';

/** Cells larger than this are not analysed (a clear diagnostic instead of a slow parse). */
export const MAX_CELL_CHARS = 200_000;

/** One cell, parsed (code cells only have a tree). */
export interface CellModel {
  id: string;
  index: number;
  kind: CellInput['kind'];
  source: string;
  mask: MaskResult | null;
  tree: SyntaxTree | null;
  facts: CellFacts | null;
  /** Why the cell is not analysed (non-Python cell magic, too large, syntax error...). */
  skipped?: string;
  /** The cell has syntax errors (tree-sitter recovered; rules stay away from ERROR nodes). */
  syntaxError?: boolean;
  /**
   * Set (with the reason) for a `%%gpuoptimize` A/B cell that holds its own GPU version: the
   * model sees its baseline only, and no rule runs on it.
   */
  abCell?: string;
}

interface CacheEntry {
  source: string;
  cell: CellModel;
  /** The `sweep` round the entry was last asked for in. */
  round: number;
}

/** Parses cells, caching by id and source. */
export class CellCache {
  private entries = new Map<string, CacheEntry>();
  private round = 0;

  constructor(private readonly parser: PythonParser) {}

  /** The parsed model of a cell, re-parsing only if its source changed. */
  get(input: CellInput): CellModel {
    const hit = this.entries.get(input.id);
    if (hit && hit.source === input.source && hit.cell.kind === input.kind) {
      // written only when it moves: V8 treats a field never rewritten as a constant, and the
      // first rewrite of any cell's index throws away the optimised code of whatever reads one
      if (hit.cell.index !== input.index) {
        hit.cell.index = input.index;
      }
      hit.round = this.round;
      return hit.cell;
    }
    if (hit?.cell.tree) {
      hit.cell.tree.delete();
    }
    const cell = parseCell(this.parser, input);
    this.entries.set(input.id, { source: input.source, cell, round: this.round });
    return cell;
  }

  /**
   * Frees the trees of the cells not asked for (`get`) since the last sweep: after one `get` per
   * cell of the notebook, the cells that are gone.
   */
  sweep(): void {
    const round = this.round++;
    this.entries.forEach((entry, id) => {
      if (entry.round !== round) {
        entry.cell.tree?.delete();
        this.entries.delete(id);
      }
    });
  }
}

export function parseCell(parser: PythonParser, input: CellInput): CellModel {
  // literals, not spreads: every cell model starts with the same shape (the rules read them a lot)
  const cell: CellModel = { id: input.id, index: input.index, kind: input.kind, source: input.source, mask: null, tree: null, facts: null };
  if (input.kind !== 'code') {
    return cell;
  }
  if (input.source.length > MAX_CELL_CHARS) {
    cell.skipped = `cell is ${input.source.length} characters; cells over ${MAX_CELL_CHARS} are not analysed`;
    return cell;
  }
  const mask = maskIPython(input.source);
  cell.mask = mask;
  if (mask.foreignCellMagic) {
    cell.skipped = `%%${mask.foreignCellMagic} cell: not Python, not analysed`;
    return cell;
  }
  let masked = mask.masked;
  let abCell: string | undefined;
  if (mask.cellMagic === 'gpuoptimize') {
    // `%%gpuoptimize` with a `# %% gpu` line holds its own GPU version below that line (the
    // magic's candidate): only the baseline above it is the notebook's code, and the cell is
    // not offered another rewrite
    const split = AB_SPLIT_LINE.exec(masked);
    if (split) {
      masked = masked.slice(0, split.index) + masked.slice(split.index).replace(/[^\r\n]/g, ' ');
      abCell = '%%gpuoptimize cell with its own GPU version (below `# %% gpu`): the magic benchmarks it; not analysed for another rewrite';
    }
  }
  const tree = parser.parse(masked);
  cell.tree = tree;
  cell.facts = collectFacts(tree.rootNode);
  cell.syntaxError = tree.rootNode.hasError;
  if (abCell) {
    cell.abCell = abCell;
  }
  return cell;
}

/** The line that splits a `%%gpuoptimize` cell into baseline and candidate (as magic.py's SPLIT_LINE). */
const AB_SPLIT_LINE = /^[ \t]*#[ \t]*%%[ \t]*gpu[ \t]*$/m;

/** A binding of a name by a cell, with what it holds. */
export interface Binding {
  name: string;
  cellIndex: number;
  cellId: string;
  at: number;
  value: ValueInfo;
}

const ARRAY_CREATORS_SHAPE_ARG = new Set(['zeros', 'ones', 'empty', 'full']);
const RANDOM_VARIADIC = new Set(['rand', 'randn']);
/** The positional index of `size` in each random draw (a Map: a method's name is user text). */
const RANDOM_SIZE_LAST: ReadonlyMap<string, number> = new Map(Object.entries({
  random: 0,
  random_sample: 0,
  ranf: 0,
  sample: 0,
  standard_normal: 0,
  standard_exponential: 0,
  normal: 2,
  uniform: 2,
  lognormal: 2,
  randint: 2,
  integers: 2,
  exponential: 1,
  poisson: 1,
  standard_t: 1,
  binomial: 2,
  gamma: 2,
  beta: 2,
  laplace: 2,
  logistic: 2,
  gumbel: 2
}));
const INT_RANDOM = new Set(['randint', 'integers', 'poisson', 'binomial']);
/**
 * The keyword names of each random draw's distribution parameters, in positional order (those
 * before `size`, RANDOM_SIZE_LAST): without `size`, an array among them gives the draw its
 * broadcast shape (`rng.poisson(lam_array)`, `rng.normal(mu_array, 1.0)`), as in NumPy 2.4.
 */
export const RANDOM_PARAMETERS: ReadonlyMap<string, readonly string[]> = new Map(Object.entries({
  normal: ['loc', 'scale'],
  uniform: ['low', 'high'],
  lognormal: ['mean', 'sigma'],
  randint: ['low', 'high'],
  integers: ['low', 'high'],
  exponential: ['scale'],
  poisson: ['lam'],
  standard_t: ['df'],
  binomial: ['n', 'p'],
  gamma: ['shape', 'scale'],
  beta: ['a', 'b'],
  laplace: ['loc', 'scale'],
  logistic: ['loc', 'scale'],
  gumbel: ['loc', 'scale']
}));
/** Where SciPy functions that take coefficients first take their data (`filtfilt(b, a, x)`). */
const SCIPY_DATA_ARGUMENT: ReadonlyMap<string, number> = new Map([
  ['scipy.signal.lfilter', 2],
  ['scipy.signal.filtfilt', 2],
  ['scipy.signal.sosfilt', 1],
  ['scipy.signal.sosfiltfilt', 1]
]);
/** SciPy functions that return tuples, scalars or objects rather than one array. */
const SCIPY_NON_ARRAY_RESULTS =
  /^(butter|cheby1|cheby2|ellip|bessel|iirfilter|iirdesign|freqz|sosfreqz|welch|periodogram|csd|coherence|spectrogram|stft|istft|find_peaks|peak_widths|peak_prominences|argrel\w*|cg|cgs|gmres|minres|lsqr|lsmr|bicg\w*|qmr|eigs|eigsh|svds|lobpcg|lu|qr|svd|eig\w*|label|find|find_objects|value_indices|center_of_mass|extrema|minimum_position|maximum_position|labeled_comprehension|histogram|pearsonr|spearmanr|ttest\w*|describe|linregress|mode|norm|det|factorized|splu|spilu|[A-Z]\w*)$/;

/**
 * What a rule read of the notebook while it looked at one cell. The engine keys its per-cell
 * cache on it: the cell's outcome stays valid while none of these changed.
 */
export interface ModelReads {
  /** Names whose bindings (list, values) or runtime report were read. */
  names: Set<string>;
  /** Names whose readers or writers were asked for. */
  users: Set<string>;
  /** The set (and order) of bound names was enumerated (`bindings.keys()`, `size`). */
  boundNames: boolean;
  /** Something wider was read: every cell, every binding's values, the whole runtime report. */
  everything: boolean;
}

export function emptyReads(): ModelReads {
  return { names: new Set(), users: new Set(), boundNames: false, everything: false };
}

/** What differs between two models of the same notebook (see `NotebookModel.changesSince`). */
export interface ModelChanges {
  /** Names whose binding list (cells, offsets, values) or runtime report differ. */
  names: Set<string>;
  /** Names whose reading or writing cells differ (a reader's source counts). */
  users: Set<string>;
  /** The bound names, in order, differ. */
  boundNames: boolean;
}

/** Bindings per name; records the names looked up while a `ModelReads` is attached. */
class BindingMap extends Map<string, Binding[]> {
  reads: ModelReads | null = null;

  override get(name: string): Binding[] | undefined {
    this.reads?.names.add(name);
    return super.get(name);
  }

  override has(name: string): boolean {
    this.reads?.names.add(name);
    return super.has(name);
  }

  override keys(): MapIterator<string> {
    if (this.reads) {
      this.reads.boundNames = true;
    }
    return super.keys();
  }

  override get size(): number {
    if (this.reads) {
      this.reads.boundNames = true;
    }
    return super.size;
  }

  override values(): MapIterator<Binding[]> {
    this.readAll();
    return super.values();
  }

  override entries(): MapIterator<[string, Binding[]]> {
    this.readAll();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, Binding[]]> {
    this.readAll();
    return super.entries();
  }

  override forEach(fn: (value: Binding[], key: string, map: Map<string, Binding[]>) => void, thisArg?: unknown): void {
    this.readAll();
    super.forEach(fn, thisArg);
  }

  /** Iterates without recording (the model's own diff). */
  rawEntries(): MapIterator<[string, Binding[]]> {
    return super.entries();
  }

  rawGet(name: string): Binding[] | undefined {
    return super.get(name);
  }

  /** Appends `b` to its name's list, without recording a read. */
  add(b: Binding): void {
    const list = super.get(b.name);
    if (list) {
      list.push(b);
    } else {
      this.set(b.name, [b]);
    }
  }

  rawSize(): number {
    return super.size;
  }

  rawKeys(): string[] {
    return [...super.keys()];
  }

  private readAll(): void {
    if (this.reads) {
      this.reads.everything = true;
    }
  }
}

const NO_BINDINGS: readonly Binding[] = [];
const NO_IMPORTS: readonly ImportFact[] = [];
const NO_ASSIGNMENTS: readonly AssignmentFact[] = [];

/**
 * One `memoized` run. The object itself is the owner of the values the run infers (trees keep
 * them by row, `SyntaxTree.memo`); `trees` lists the trees holding some, to drop them when the
 * run ends.
 */
interface RunMemo {
  trees: SyntaxTree[];
}

/**
 * The `def` or `lambda` (and its cell) whose inference gave a function value: what a call of a
 * name holding that value runs. Keyed by the value object, which bindings keep (and the next
 * model reuses with the binding while the cell is unchanged).
 */
const DEFINITIONS = new WeakMap<ValueInfo, { node: SyntaxNode; cell: CellModel }>();

/** A call of a notebook-defined function being inferred (`NotebookModel.callValue`). */
interface CallFrame {
  definition: SyntaxNode;
  /** What the parameters (bound to the call's arguments) and the locals assigned so far hold. */
  locals: Map<string, ValueInfo>;
  /** The outermost call's cell and offset: where the function's globals are looked up (when it runs). */
  site: CellModel;
  at: number;
  /**
   * What the nodes inferred in this call hold, by node id: each is inferred at one point of the
   * body's replay, so one value per node and call (without it, repeated inference of nested
   * arguments would grow with their depth).
   */
  values: Map<number, ValueInfo>;
}

/** Calls of notebook functions followed inside one another at most (a deeper one is unknown). */
const MAX_CALL_DEPTH = 8;

/** Syntax that opens a scope of its own inside a function: its locals are not the function's. */
const INNER_SCOPES: ReadonlySet<string> = new Set(['function_definition', 'class_definition', 'lambda', 'list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);

/** One cell's bindings, and the names whose bindings or runtime reports computing them read. */
interface CellBindings {
  cell: CellModel;
  index: number;
  entries: Binding[];
  /** Null when the computation read more than names (not reusable). */
  deps: Set<string> | null;
}

/** Cells that read / write one name, in notebook order, with their indices when the model was built. */
interface NameUsers {
  readers: CellModel[];
  writers: CellModel[];
  /** `index` of each reader, then of each writer, at construction (cells are renumbered in place later). */
  indices: number[];
}

/** The whole notebook, as the rules see it. */
export class NotebookModel {
  /** Local name -> qualified name (`np` -> `numpy`, `fft2` -> `numpy.fft.fft2`). */
  readonly aliases = new Map<string, string>();
  /** Modules star-imported somewhere (`from numpy import *`). */
  readonly starImports = new Set<string>();
  /** Bindings per name, in notebook order. */
  readonly bindings: Map<string, Binding[]> = new BindingMap();

  private readonly cellList: CellModel[];
  /** Each cell by its tree (`cellOf`). */
  private cellsByTree: Map<SyntaxTree, CellModel> | null = null;
  private readonly rt: Readonly<Record<string, RuntimeValueInfo>>;
  /** Whether `rt` has any own key (read once: the engine hands each model its reports as they are). */
  private readonly hasReports: boolean;
  private reads: ModelReads | null = null;
  private runtimeView: Readonly<Record<string, RuntimeValueInfo>> | null = null;
  private readonly usersIndex: UsersIndex;

  /** What differs from the model this one was built after (null: no earlier model, or not comparable). */
  readonly changes: ModelChanges | null;
  /** Each cell's bindings and what computing them read, by position (reused by the next model). */
  private readonly perCell: CellBindings[] = [];

  /**
   * `prev`, an earlier model of the same notebook, makes construction incremental: a cell whose
   * source and position are unchanged keeps its bindings unless a name its values were inferred
   * from was rebound differently above it. The result is the same as without `prev`.
   */
  constructor(cells: CellModel[], runtime: Readonly<Record<string, RuntimeValueInfo>> = {}, prev?: NotebookModel) {
    this.cellList = cells;
    this.rt = runtime;
    this.hasReports = Reflect.ownKeys(runtime).length > 0;
    for (const cell of cells) {
      const imports = cell.facts?.imports ?? NO_IMPORTS;
      for (let k = 0; k < imports.length; k++) {
        const imp = imports[k];
        if (imp.local === '*') {
          this.starImports.add(imp.qualified);
        } else {
          this.aliases.set(imp.local, imp.qualified);
        }
      }
    }
    const comparable =
      prev !== undefined &&
      sameOrderedEntries(this.aliases, prev.aliases) &&
      sameOrderedValues(this.starImports, prev.starImports) &&
      sameIds(cells, prev.cellList);
    // names whose binding list (so far, in cell order) or runtime report differ from prev's
    const dirty = new Set<string>();
    if (comparable && this.rt !== prev.rt) {
      for (const key of new Set([...Object.keys(this.rt), ...Object.keys(prev.rt)])) {
        if (!deepEqual(ownReport(this.rt, key), ownReport(prev.rt, key))) {
          dirty.add(key);
        }
      }
    }
    const bindings = this.bindings as BindingMap;
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[k];
      // comparable: the same ids in the same order
      const old = comparable ? prev.perCell[k] : undefined;
      let rec: CellBindings;
      if (old && old.cell === cell && old.index === cell.index && old.deps && !intersects(old.deps, dirty)) {
        rec = old;
        for (let j = 0; j < old.entries.length; j++) {
          bindings.add(old.entries[j]);
        }
      } else {
        const reads = emptyReads();
        // memoised per cell: one value per node (a value is a function of the node and of the
        // bindings before it, which the cell's later statements do not change), so a call's
        // arguments, asked again by the library-call inference, are inferred once
        const entries = cell.facts ? this.track(reads, () => this.memoized(() => this.bindCell(cell))) : [];
        rec = { cell, index: cell.index, entries, deps: reads.everything || reads.boundNames ? null : reads.names };
        if (comparable) {
          markChanged(old?.entries ?? [], entries, dirty);
        }
      }
      this.perCell.push(rec);
    }
    if (comparable) {
      // the names the changed cells (before and after the change) read or write; no other
      // name's readers or writers differ, unless a cell kept but renumbered (then all are rebuilt)
      const users = new Set<string>();
      let renumbered = false;
      for (let k = 0; k < cells.length; k++) {
        const cell = cells[k];
        const before = prev.cellList[k];
        if (before !== cell) {
          before.facts?.reads.forEach(n => users.add(n));
          before.facts?.writes.forEach(n => users.add(n));
          cell.facts?.reads.forEach(n => users.add(n));
          cell.facts?.writes.forEach(n => users.add(n));
        } else if (prev.perCell[k].index !== cell.index) {
          renumbered = true;
        }
      }
      this.usersIndex = renumbered ? new UsersIndex(buildUsers(cells)) : prev.usersIndex.update(cells, users);
      const boundNames = dirty.size > 0 && !sameList(bindings.rawKeys(), (prev.bindings as BindingMap).rawKeys());
      this.changes = { names: dirty, users, boundNames };
    } else {
      this.usersIndex = new UsersIndex(buildUsers(cells));
      this.changes = prev ? this.changesSince(prev) : null;
    }
  }

  /** Infers and records the values a cell binds (in statement order: later ones see earlier ones). */
  private bindCell(cell: CellModel): Binding[] {
    const entries: Binding[] = [];
    const bindings = this.bindings as BindingMap;
    const assignments = cell.facts?.assignments ?? NO_ASSIGNMENTS;
    for (let k = 0; k < assignments.length; k++) {
      const a = assignments[k];
      const value = a.augmented
        ? this.augmentedBinding(a, cell)
        : a.value
          ? this.inferValue(a.value, cell)
          : a.unpacked
            ? this.unpackedValue(a.unpacked.from, a.unpacked.index, cell)
            : UNKNOWN;
      const b: Binding = { name: a.name, cellIndex: cell.index, cellId: cell.id, at: a.at, value };
      entries.push(b);
      bindings.add(b);
    }
    return entries;
  }

  /**
   * What a module-level `name op= value` (assignment fact `a`) leaves in `name`: an array updated
   * in place (or anything but a number) what it was; a number `name op value` (`N = 4` then
   * `N *= 2`: 8), without its value where the statement may run other than once (in a loop or a
   * branch: `a.nested`).
   */
  private augmentedBinding(a: AssignmentFact, cell: CellModel): ValueInfo {
    const before = this.valueBefore(a.name, cell, a.statement.startIndex);
    const n = a.value;
    const right = n?.type === 'augmented_assignment' ? field(n, 'right') : null;
    const op = n ? operatorOf(n) : '';
    if (before.kind !== 'scalar' || !right || !op.endsWith('=') || field(n!, 'left')?.type !== 'identifier') {
      return before;
    }
    const after = this.binaryValue(before, this.inferValue(right, cell), op.slice(0, -1));
    if (after.kind !== 'scalar') {
      return UNKNOWN;
    }
    return a.nested ? { ...after, value: undefined } : after;
  }

  /**
   * Item `index` of what `from` gives when unpacked: a tuple's known item, or a row of the new
   * array a grid maker builds (`yy, xx = np.mgrid[0:N, 0:M]`, `np.indices((N, M))`: each (N, M)),
   * converted by `.astype(...)` too (a new array: `np.mgrid[0:N, 0:M].astype(np.float32)`), or an
   * item of a new 1-D array of as many items as names (`lo, hi = np.percentile(a, [5, 95])`,
   * `var99, var95 = -np.quantile(pnl, [0.01, 0.05])`, `slope, icpt = np.polyfit(x, y, 1)`): a
   * NumPy scalar of its dtype, modelled 0-d as the rules model NumPy's scalars (CuPy's unpacking
   * gives 0-d arrays, views of an array no name holds). Other arrays' rows stay unknown: they are
   * views of a named array, which the rules would have to treat as aliases of it.
   */
  private unpackedValue(from: SyntaxNode, index: number, cell: CellModel): ValueInfo {
    const v = this.inferValue(from, cell);
    let f = unparen(from);
    for (let m = astypeObject(f); m; m = astypeObject(f)) {
      f = m;
    }
    const maker = f.type === 'subscript' ? field(f, 'value') : f.type === 'call' ? field(f, 'function') : undefined;
    const grid = maker && (f.type === 'subscript' ? this.gridName(maker)?.name === 'mgrid' : /^(numpy|cupy)\.indices$/.test(this.qualifiedName(maker) ?? ''));
    // as many names as rows (else a ValueError): `yy, xx = ...`, not under a starred name
    const targets = unpackingTargets(from);
    const names = targets && (targets.type === 'pattern_list' || targets.type === 'tuple_pattern' || targets.type === 'list_pattern') ? kids(targets) : [];
    const rows = names.every(t => t.type === 'identifier') ? names.length : 0;
    if (grid && v.kind === 'ndarray' && v.shape && v.shape.length >= 2 && index >= 0 && index < rows && rows === v.shape[0]) {
      return arrayValue(v.shape.slice(1), v.dtype, v.library ?? 'numpy', 'inferred');
    }
    if (v.kind === 'ndarray' && v.shape?.length === 1 && index >= 0 && index < rows && rows === v.shape[0] && this.newSmallVector(from)) {
      return zeroD(v.dtype, v.library ?? 'numpy');
    }
    return itemOf(v, index);
  }

  /**
   * Is `e` a new 1-D array no name holds, whose items unpacked are no views of a named array: an
   * order statistic for a list of q (`np.percentile`, `np.quantile`, their nan- forms), a fit's
   * coefficients (`np.polyfit`), or an arithmetic operator over one (`-np.quantile(...)`,
   * `100 * np.percentile(...)`: operators make new arrays)?
   */
  private newSmallVector(e: SyntaxNode): boolean {
    const n = unparen(e);
    if (n.type === 'unary_operator') {
      const arg = field(n, 'argument');
      return !!arg && this.newSmallVector(arg);
    }
    if (n.type === 'binary_operator') {
      const [l, r] = [field(n, 'left'), field(n, 'right')];
      return (!!l && this.newSmallVector(l)) || (!!r && this.newSmallVector(r));
    }
    const fn = n.type === 'call' ? field(n, 'function') : undefined;
    return !!fn && /^(numpy|cupy)\.(nan)?(percentile|quantile)$|^(numpy|cupy)\.polyfit$/.test(this.qualifiedName(fn) ?? '');
  }

  /** `np.mgrid` / `np.ogrid` (CuPy's too): the grid maker's name and library, else undefined. */
  private gridName(node: SyntaxNode): { name: 'mgrid' | 'ogrid'; library: string } | undefined {
    const q = this.qualifiedName(node);
    const m = q ? /^(numpy|cupy)\.(mgrid|ogrid)$/.exec(q) : null;
    return m ? { name: m[2] as 'mgrid' | 'ogrid', library: m[1] } : undefined;
  }

  /** Every cell, in notebook order (reading it makes a tracked rule depend on everything). */
  get cells(): CellModel[] {
    if (this.reads) {
      this.reads.everything = true;
    }
    return this.cellList;
  }

  /** The kernel's reports by name (a tracked rule depends on each name it looks up). */
  get runtime(): Readonly<Record<string, RuntimeValueInfo>> {
    if (!this.reads) {
      return this.rt;
    }
    if (!this.runtimeView) {
      this.runtimeView = new Proxy(this.rt, {
        // a Python name is looked up among the report's own keys only (`constructor`,
        // `toString`, `__proto__` are names a notebook may use, not the object's members)
        get: (target, key) => {
          if (typeof key === 'string') {
            this.reads?.names.add(key);
            return ownReport(target, key);
          } else if (this.reads) {
            this.reads.everything = true;
          }
          return Reflect.get(target, key);
        },
        has: (target, key) => {
          if (typeof key === 'string') {
            this.reads?.names.add(key);
            return Object.hasOwn(target, key);
          }
          return Reflect.has(target, key);
        },
        ownKeys: target => {
          if (this.reads) {
            this.reads.everything = true;
          }
          return Reflect.ownKeys(target);
        },
        getOwnPropertyDescriptor: (target, key) => {
          if (typeof key === 'string') {
            this.reads?.names.add(key);
          }
          return Reflect.getOwnPropertyDescriptor(target, key);
        }
      });
    }
    return this.runtimeView;
  }

  /**
   * Runs `fn` recording into `reads` what it reads of the notebook beyond the cell it is given
   * (bindings, runtime reports, readers and writers). Aliases and star imports are not
   * recorded: the engine drops every cached outcome when they change.
   */
  track<T>(reads: ModelReads, fn: () => T): T {
    const outer = this.reads;
    this.setReads(reads);
    try {
      return fn();
    } finally {
      this.setReads(outer);
    }
  }

  private setReads(reads: ModelReads | null): void {
    this.reads = reads;
    (this.bindings as BindingMap).reads = reads;
  }

  /**
   * What differs from `prev` (an earlier model of the same notebook), or null when the two
   * are not comparable name by name (aliases or star imports changed: everything may differ).
   */
  changesSince(prev: NotebookModel): ModelChanges | null {
    if (!sameOrderedEntries(this.aliases, prev.aliases) || !sameOrderedValues(this.starImports, prev.starImports)) {
      return null;
    }
    const names = new Set<string>();
    const now = this.bindings as BindingMap;
    const before = prev.bindings as BindingMap;
    let boundNames = now.rawSize() !== before.rawSize();
    const beforeKeys = before.rawKeys();
    let k = 0;
    for (const [name, list] of now.rawEntries()) {
      if (!boundNames && beforeKeys[k] !== name) {
        boundNames = true;
      }
      k++;
      if (!sameBindings(list, before.rawGet(name))) {
        names.add(name);
      }
    }
    for (const name of beforeKeys) {
      if (now.rawGet(name) === undefined) {
        names.add(name);
      }
    }
    if (this.rt !== prev.rt) {
      for (const key of new Set([...Object.keys(this.rt), ...Object.keys(prev.rt)])) {
        if (!deepEqual(ownReport(this.rt, key), ownReport(prev.rt, key))) {
          names.add(key);
        }
      }
    }
    const users = new Set<string>();
    const nowUsers = this.users().all();
    const beforeUsers = prev.users().all();
    for (const [name, u] of nowUsers) {
      const b = beforeUsers.get(name);
      if (!b || !sameUsers(u, b)) {
        users.add(name);
      }
    }
    for (const name of beforeUsers.keys()) {
      if (!nowUsers.has(name)) {
        users.add(name);
      }
    }
    return { names, users, boundNames };
  }

  private users(): UsersIndex {
    return this.usersIndex;
  }

  /**
   * The cell whose syntax tree holds `node`; undefined for a node of another parse. For code
   * handed a node without its cell (aliases.ts's escapingUse) that needs to infer values around
   * it. Not a tracked read: the caller got the node through the cell it already depends on.
   */
  cellOf(node: SyntaxNode): CellModel | undefined {
    // by tree, indexed when first asked: a scan of the cells per call was ~2% of a cold analysis
    // (escapingUse asks once per subscripted reference)
    if (!this.cellsByTree) {
      this.cellsByTree = new Map();
      for (const c of this.cellList) {
        if (c.tree && !this.cellsByTree.has(c.tree)) {
          this.cellsByTree.set(c.tree, c);
        }
      }
    }
    return this.cellsByTree.get(node.tree);
  }

  /** Cells that bind `name`. */
  writers(name: string): CellModel[] {
    this.reads?.users.add(name);
    return [...(this.users().get(name)?.writers ?? [])];
  }

  /** Cells that read `name`. */
  readers(name: string): CellModel[] {
    this.reads?.users.add(name);
    return [...(this.users().get(name)?.readers ?? [])];
  }

  /** The last cell before `cell` that binds `name`, if any. */
  lastWriterBefore(name: string, cell: CellModel): CellModel | undefined {
    const writers = this.writers(name);
    for (let k = writers.length - 1; k >= 0; k--) {
      if (writers[k].index < cell.index) {
        return writers[k];
      }
    }
    return undefined;
  }

  /** Cells after `cell` (in notebook order) that read `name`. */
  readersAfter(name: string, cell: CellModel): CellModel[] {
    this.reads?.users.add(name);
    return (this.users().get(name)?.readers ?? []).filter(c => c.index > cell.index);
  }

  /**
   * What `name` holds just before offset `at` of `cell`: the cell's own earlier binding, else
   * the last binding in an earlier cell, else any binding (cells run out of order), else what
   * the kernel reported. The kernel's report wins for a name no earlier statement of this cell
   * rebinds.
   */
  valueBefore(name: string, cell: CellModel, at: number): ValueInfo {
    return this.lookUp(name, cell, at, true);
  }

  /** `valueBefore`, with the kernel's report of the name or (`runtime` false) without it. */
  private lookUp(name: string, cell: CellModel, at: number, runtime: boolean): ValueInfo {
    // every answer depends on the name's bindings (and most on its runtime report): one read
    this.reads?.names.add(name);
    const list = (this.bindings as BindingMap).rawGet(name) ?? NO_BINDINGS;
    // the last binding of each kind, scanning from the end (no intermediate arrays)
    const id = cell.id;
    for (let k = list.length - 1; k >= 0; k--) {
      const b = list[k];
      if (b.cellId === id && b.at <= at) {
        return b.value;
      }
    }
    // (most analyses have no kernel reports: no look-up, which would hash the name's fresh text)
    const rt = runtime && this.hasReports ? ownReport(this.rt, name) : undefined;
    let earlier: ValueInfo | undefined;
    for (let k = list.length - 1; k >= 0; k--) {
      if (list[k].cellIndex < cell.index) {
        earlier = list[k].value;
        break;
      }
    }
    // the kernel names a list's or tuple's type only; an earlier cell's binding of a sequence
    // knows its items (strings, numbers): that is kept
    if (rt && !(earlier?.kind === 'sequence' && PYTHON_SEQUENCE_TYPES.has(rt.type))) {
      return fromRuntime(rt);
    }
    if (earlier) {
      return earlier;
    }
    for (let k = list.length - 1; k >= 0; k--) {
      if (list[k].cellId !== id) {
        return list[k].value;
      }
    }
    return this.moduleValue(name);
  }

  /**
   * What an imported name holds (`np`: the module numpy; `pi` from `from numpy import pi`: its
   * float), else UNKNOWN. One value per name and model: the aliases are fixed once the model is
   * built, and values are never changed in place.
   */
  private moduleValue(name: string): ValueInfo {
    let v = this.moduleValues.get(name);
    if (v === undefined) {
      const qualified = this.aliases.get(name);
      v = qualified ? floatConstant(qualified) ?? { kind: 'module', origin: 'literal', library: firstPart(qualified) } : UNKNOWN;
      this.moduleValues.set(name, v);
    }
    return v;
  }

  private readonly moduleValues = new Map<string, ValueInfo>();

  /** What `name` holds at the end of `cell`. */
  valueAfter(name: string, cell: CellModel): ValueInfo {
    return this.valueBefore(name, cell, Number.MAX_SAFE_INTEGER);
  }

  /**
   * The qualified name a reference resolves to: `np.fft.fft2` -> `numpy.fft.fft2`, `fft2`
   * (from numpy.fft import fft2) -> `numpy.fft.fft2`, `sin` (from numpy import *) ->
   * `numpy.sin`. Null for anything that is not a module member.
   */
  qualifiedName(node: SyntaxNode): string | null {
    // aliases and star imports are fixed once the model is built: one answer per node and model
    // (resolving keeps the tree's memo for the same owner: the slots stay the same array)
    const names = node.tree.memo(MEMO_NAMES, this.aliases) as (string | null | undefined)[];
    const known = names[node.order];
    if (known !== undefined) {
      return known;
    }
    const q = this.resolveName(node);
    names[node.order] = q;
    return q;
  }

  private resolveName(node: SyntaxNode): string | null {
    const n = unparen(node);
    if (n.type === 'identifier') {
      const alias = this.aliases.get(n.text);
      if (alias) {
        return alias;
      }
      if (this.starImports.has('numpy') && isNumpyTopLevelName(n.text)) {
        return `numpy.${n.text}`;
      }
      return null;
    }
    if (n.type === 'attribute') {
      const obj = field(n, 'object');
      const attr = field(n, 'attribute');
      if (!obj || !attr) {
        return null;
      }
      const base = this.qualifiedName(obj);
      return base ? `${base}.${attr.text}` : null;
    }
    return null;
  }

  /** Evaluates a numeric constant expression (`4000`, `2**12`, `N * 2`, `int(1e6)`). */
  constantValue(node: SyntaxNode, cell: CellModel): number | undefined {
    const v = this.inferValue(node, cell);
    return v.kind === 'scalar' ? v.value : undefined;
  }

  /**
   * Runs `fn` with `inferValue` memoised per node: for the rules of one cell, once the model is
   * built (bindings no longer change). The first inference of a node records its reads in the
   * tracked `ModelReads`, so `fn` must run under one `track` for the memo's whole life.
   */
  memoized<T>(fn: () => T): T {
    const outer = this.memo;
    // a fresh key per run: values a tree holds for another run (or another model) are stale
    const memo: RunMemo = { trees: [] };
    this.memo = memo;
    try {
      return fn();
    } finally {
      this.memo = outer;
      // the values die with the run (nothing can ask for them again): drop them now, young
      for (const tree of memo.trees) {
        tree.forget(MEMO_VALUES, memo);
      }
    }
  }

  /** The running `memoized` (each tree keeps the values it infers for it: `SyntaxTree.memo`). */
  private memo: RunMemo | null = null;

  /** What an expression holds, as far as literals, calls and the kernel tell. */
  inferValue(node: SyntaxNode, cell: CellModel): ValueInfo {
    // inside a call of a notebook function, the body's values depend on the call's arguments:
    // they are the call's, not the node's own
    const frames = this.frames;
    if (frames.length > 0) {
      const values = frames[frames.length - 1].values;
      let v = values.get(node.id);
      if (v === undefined) {
        v = this.infer(node, cell);
        values.set(node.id, v);
      }
      return v;
    }
    const memo = this.memo;
    if (memo === null) {
      return this.infer(node, cell);
    }
    const tree = node.tree;
    const values = tree.memo(MEMO_VALUES, memo) as (ValueInfo | undefined)[];
    const known = values[node.order];
    if (known !== undefined) {
      return known;
    }
    const v = this.infer(node, cell);
    // the inference may have started the tree's memo afresh (another run): store in the current one
    const now = tree.memo(MEMO_VALUES, memo) as (ValueInfo | undefined)[];
    if (now.length === 0) {
      memo.trees.push(tree);
    }
    now[node.order] = v;
    return v;
  }

  private infer(node: SyntaxNode, cell: CellModel): ValueInfo {
    const n = unparen(node);
    switch (n.type) {
      case 'integer': {
        const text = n.text;
        if (isImaginary(text)) {
          return { kind: 'scalar', dtype: 'complex128', origin: 'literal' }; // `2j`: a Python complex
        }
        const v = Number(withoutLongSuffix(withoutUnderscores(text)));
        return { kind: 'scalar', value: Number.isFinite(v) ? v : undefined, dtype: 'int64', origin: 'literal' };
      }
      case 'float': {
        const text = n.text;
        if (isImaginary(text)) {
          return { kind: 'scalar', dtype: 'complex128', origin: 'literal' }; // `2.5j`, `1e3J`
        }
        const v = Number(withoutUnderscores(text));
        return { kind: 'scalar', value: Number.isFinite(v) ? v : undefined, dtype: 'float64', origin: 'literal' };
      }
      case 'true':
      case 'false':
        return { kind: 'scalar', value: n.type === 'true' ? 1 : 0, dtype: 'bool', origin: 'literal' };
      case 'string':
      case 'concatenated_string':
        return { kind: 'string', origin: 'literal' };
      case 'list':
      case 'tuple': {
        // items that make np.array a unicode or object array (a string, None: literalArray) are
        // kept as the sequence's dtype, so that `np.array(labels)` of a name bound to it is one
        // too; a list of numbers gets none (its items may be names of any type)
        const lit = literalArray(n);
        return lit && isDeviceIncompatibleDtype(lit.dtype)
          ? { kind: 'sequence', origin: 'literal', size: kids(n).length, dtype: lit.dtype }
          : { kind: 'sequence', origin: 'literal', size: kids(n).length };
      }
      case 'identifier': {
        const frame = this.frames.length > 0 ? this.frames[this.frames.length - 1] : undefined;
        if (frame && n.tree === frame.definition.tree && n.startIndex >= frame.definition.startIndex && n.endIndex <= frame.definition.endIndex) {
          return this.frameValue(frame, n, cell);
        }
        // a function's, lambda's or comprehension's local is not the module-level name
        return cell.facts?.localIds.has(n.startIndex) ? UNKNOWN : this.valueBefore(n.text, cell, n.startIndex);
      }
      case 'unary_operator': {
        const arg = field(n, 'argument');
        const v = arg ? this.inferValue(arg, cell) : UNKNOWN;
        if (v.kind === 'scalar' && v.value !== undefined) {
          const op = operatorOf(n);
          const out = copyOf(v);
          out.value = op === '-' ? -v.value : op === '~' ? ~v.value : v.value;
          return out;
        }
        // an array, or a scalar of known type but no value (`-np.float32(x)`, `-2j`): same type
        if (v.kind === 'ndarray' || (v.kind === 'scalar' && v.dtype !== undefined)) {
          const out = copyOf(v);
          out.origin = 'inferred';
          return out;
        }
        return UNKNOWN;
      }
      case 'binary_operator':
        return this.inferBinary(n, cell);
      case 'attribute':
        return this.inferAttribute(n, cell);
      case 'subscript': {
        const value = field(n, 'value');
        const grid = value ? this.gridName(value) : undefined;
        if (grid) {
          return gridValue(grid.name, kids(n).filter(c => c.id !== value?.id && c.type !== 'comment'), grid.library, this, cell);
        }
        const joined = value && /^(numpy|cupy)\.r_$/.test(this.qualifiedName(value) ?? '') ? rowJoinValue(n, value, this, cell) : undefined;
        if (joined) {
          return joined;
        }
        const v = value ? this.inferValue(value, cell) : UNKNOWN;
        if (v.kind === 'sequence' && v.elements) {
          // `res[0]` of a tuple whose items are known (`res = np.linalg.eigh(A)`)
          const index = kids(n).filter(c => c.id !== value?.id);
          const k = index.length === 1 ? this.constantValue(index[0], cell) : undefined;
          return k !== undefined && Number.isInteger(k) ? itemOf(v, k < 0 ? v.elements.length + k : k) : UNKNOWN;
        }
        if (v.kind === 'ndarray') {
          const indexed = v.shape ? basicIndexShape(n, v.shape, this, cell) : undefined;
          if (indexed === 'element') {
            // `a[0, 0]`: NumPy gives a NumPy scalar of the array's dtype, CuPy a 0-d array
            return v.library === 'cupy'
              ? { kind: 'ndarray', shape: [], size: 1, dtype: v.dtype, origin: 'inferred', library: v.library, device: v.device }
              : { kind: 'scalar', dtype: v.dtype, origin: 'inferred', library: 'numpy' };
          }
          if (indexed) {
            // basic slicing (a view of the array): its exact shape; of a selection along its
            // axis of unknown length (`rows[:, None]`), a selection of the same bound
            if (v.selection && indexed.includes(null)) {
              return { kind: 'ndarray', dtype: v.dtype, shape: indexed, size: v.size, origin: 'inferred', approx: true, selection: true, library: v.library, device: v.device };
            }
            return { kind: 'ndarray', dtype: v.dtype, shape: indexed, size: shapeSize(indexed), origin: 'inferred', library: v.library, device: v.device };
          }
          const fancy = v.shape ? fancyIndexValue(n, v, this, cell) : undefined;
          if (fancy) {
            return fancy;
          }
          // fancy or boolean indexing, bounds the analysis cannot read: at most its size (a
          // selection where an index is one, or a mask: `env[rows[:, None], cols]`)
          const out: ValueInfo = { kind: 'ndarray', dtype: v.dtype, size: v.size, shape: undefined, origin: 'inferred', approx: true, library: v.library };
          const value = field(n, 'value');
          const parts = kids(n).filter(k => k.id !== value?.id && k.type !== 'comment');
          const flat = parts.length === 1 && parts[0].type === 'tuple' ? kids(parts[0]).filter(k => k.type !== 'comment') : parts;
          if (flat.some(k => k.type !== 'slice' && k.type !== 'ellipsis' && k.type !== 'none' && this.inferValue(k, cell).selection)) {
            out.selection = true;
          }
          return out;
        }
        if (v.kind === 'dataframe') {
          return { kind: 'series', origin: 'inferred', library: v.library };
        }
        return UNKNOWN;
      }
      case 'call':
        return this.inferCall(n, cell);
      case 'comparison_operator': {
        const parts = kids(n).map(k => this.inferValue(k, cell));
        return parts.some(v => v.kind === 'ndarray') ? broadcastValues(parts, 'bool') : { kind: 'scalar', dtype: 'bool', origin: 'inferred' };
      }
      case 'conditional_expression': {
        // either branch may run: what both give
        const [then, , otherwise] = kids(n).filter(k => k.type !== 'comment');
        return then && otherwise ? eitherValue(this.inferValue(then, cell), this.inferValue(otherwise, cell)) : UNKNOWN;
      }
      case 'function_definition':
      case 'lambda': {
        const v: ValueInfo = { kind: 'function', origin: 'literal', definition: n.text };
        DEFINITIONS.set(v, { node: n, cell });
        return v;
      }
      default:
        return UNKNOWN;
    }
  }

  /** Calls of notebook functions being inferred, innermost last. */
  private readonly frames: CallFrame[] = [];

  /**
   * What identifier `n` of the body of the function being called holds: a parameter's or local's
   * value in the call, else the global's where the outermost call runs (a local of an inner
   * lambda, comprehension or def is unknown).
   */
  private frameValue(frame: CallFrame, n: SyntaxNode, cell: CellModel): ValueInfo {
    if (!cell.facts?.localIds.has(n.startIndex)) {
      return this.valueBefore(n.text, frame.site, frame.at);
    }
    const definition = frame.definition;
    for (let p = n.parent; p && !(p.startIndex === definition.startIndex && p.type === definition.type); p = p.parent) {
      if (INNER_SCOPES.has(p.type)) {
        return UNKNOWN;
      }
    }
    return frame.locals.get(n.text) ?? UNKNOWN;
  }

  /**
   * The notebook definition a call's callee `fn` (a name) runs, if any. A name the kernel reports
   * as a function is looked up among the notebook's bindings (the report has no body to read).
   */
  private calledDefinition(fn: SyntaxNode, cell: CellModel): { node: SyntaxNode; cell: CellModel } | undefined {
    const v = this.inferValue(fn, cell);
    if (v.kind === 'function') {
      return DEFINITIONS.get(v);
    }
    if (v.origin === 'runtime' && ownReport(this.rt, fn.text)?.type === 'function' && !cell.facts?.localIds.has(fn.startIndex)) {
      const bound = this.lookUp(fn.text, cell, fn.startIndex, false);
      return bound.kind === 'function' ? DEFINITIONS.get(bound) : undefined;
    }
    return undefined;
  }

  /**
   * What a call of notebook function `definition` returns: its return expressions inferred with
   * the parameters bound to the call's arguments (positional, keyword, defaults) and its locals
   * assigned as the body goes; unknown unless every return agrees (a bare `return` or the end of
   * the body gives None, unknown), and for a recursive call, or a call the arguments do not fit.
   */
  private callValue(
    definition: { node: SyntaxNode; cell: CellModel },
    call: SyntaxNode,
    positional: SyntaxNode[],
    keywords: ReadonlyMap<string, SyntaxNode>,
    cell: CellModel
  ): ValueInfo {
    const frames = this.frames;
    const node = definition.node;
    if (frames.length >= MAX_CALL_DEPTH || frames.some(f => f.definition.tree === node.tree && f.definition.startIndex === node.startIndex)) {
      return UNKNOWN;
    }
    const plan = functionPlan(node);
    const locals = plan ? this.boundArguments(plan, positional, keywords, cell, definition.cell) : null;
    if (!plan || !locals) {
      return UNKNOWN;
    }
    const outer = frames.length > 0 ? frames[frames.length - 1] : undefined;
    frames.push({ definition: node, locals, site: outer ? outer.site : cell, at: outer ? outer.at : call.startIndex, values: new Map() });
    try {
      return this.returnValue(plan, locals, definition.cell);
    } finally {
      frames.pop();
    }
  }

  /**
   * Runs `visit` while the body of the notebook function that `call` (in `cell`) calls is inferred
   * as in that call: `inferValue` of the body's nodes then gives their values with the parameters
   * bound to the call's arguments and the locals as the body assigns them (their last values),
   * as `callValue` infers a call's result. For the work estimate (rules/arrays/cupy-rewrite.ts
   * `estimateWork`), which prices a function's body at its calls. Undefined, `visit` not run,
   * where the call is not of a notebook function, the arguments do not fit it, or the function is
   * being inferred already (recursion) or calls nest deeper than `MAX_CALL_DEPTH`.
   */
  inCall<T>(call: SyntaxNode, cell: CellModel, visit: (definition: { node: SyntaxNode; cell: CellModel }) => T): T | undefined {
    const fn = field(call, 'function');
    const definition = fn?.type === 'identifier' ? this.calledDefinition(fn, cell) : fn ? inlineLambda(fn, cell) : undefined;
    const frames = this.frames;
    const node = definition?.node;
    if (!definition || !node || frames.length >= MAX_CALL_DEPTH || frames.some(f => f.definition.tree === node.tree && f.definition.startIndex === node.startIndex)) {
      return undefined;
    }
    const plan = functionPlan(node);
    const { positional, keywords } = callArguments(call);
    const locals = plan ? this.boundArguments(plan, positional, keywords, cell, definition.cell) : null;
    if (!plan || !locals) {
      return undefined;
    }
    const outer = frames.length > 0 ? frames[frames.length - 1] : undefined;
    frames.push({ definition: node, locals, site: outer ? outer.site : cell, at: outer ? outer.at : call.startIndex, values: new Map() });
    try {
      // (the body replayed: its locals assigned)
      this.returnValue(plan, locals, definition.cell);
      return visit(definition);
    } finally {
      frames.pop();
    }
  }

  /**
   * The parameters' values for one call (arguments inferred where the call is, defaults where the
   * function is defined); `*args` a sequence, `**kwargs` unknown, every parameter unknown after an
   * unpacked argument (`f(*xs)`). Null when the arguments do not fit (Python raises TypeError).
   */
  private boundArguments(
    plan: FunctionPlan,
    positional: SyntaxNode[],
    keywords: ReadonlyMap<string, SyntaxNode>,
    cell: CellModel,
    defined: CellModel
  ): Map<string, ValueInfo> | null {
    const locals = new Map<string, ValueInfo>();
    if (positional.some(a => a.type === 'list_splat' || a.type === 'dictionary_splat')) {
      return locals;
    }
    let next = 0;
    let gathersKeywords = false;
    for (const p of plan.parameters) {
      if (p.gathers === 'args') {
        locals.set(p.name, { kind: 'sequence', origin: 'inferred', size: Math.max(0, positional.length - next) });
        next = positional.length;
        continue;
      }
      if (p.gathers === 'kwargs') {
        gathersKeywords = true;
        continue;
      }
      const arg = p.positional && next < positional.length ? positional[next++] : keywords.get(p.name);
      if (arg) {
        locals.set(p.name, this.inferValue(arg, cell));
      } else if (p.default) {
        locals.set(p.name, this.inferValue(p.default, defined));
      } else {
        return null;
      }
    }
    if (next < positional.length || (!gathersKeywords && [...keywords.keys()].some(k => !plan.parameters.some(p => p.name === k && p.gathers === null)))) {
      return null;
    }
    return locals;
  }


  /** Replays `plan`'s body steps in the current frame: the join of what its returns give. */
  private returnValue(plan: FunctionPlan, locals: Map<string, ValueInfo>, cell: CellModel): ValueInfo {
    let out: ValueInfo | undefined;
    const join = (value: SyntaxNode | null): boolean => {
      const v = value ? this.inferValue(value, cell) : UNKNOWN;
      out = out === undefined || sameValue(out, v) ? v : UNKNOWN;
      return out.kind !== 'unknown';
    };
    for (const step of plan.steps) {
      if (step.kind === 'assign') {
        locals.set(step.name, this.inferValue(step.value, cell));
      } else if (step.kind === 'augment') {
        locals.set(step.name, this.augmentedValue(step.node, cell));
      } else if (step.kind === 'return') {
        join(step.value);
      } else {
        // the returns inside a branch or loop see the names it rebinds as unknown, and so does the rest
        for (const name of step.rebinds) {
          locals.set(name, UNKNOWN);
        }
        if (!step.returns.every(join)) {
          return UNKNOWN;
        }
      }
    }
    return plan.fallsThrough || out === undefined ? UNKNOWN : out;
  }

  /**
   * What the name `x` of `x op= value` (`n`, in a notebook function's body being replayed) holds
   * after it: an array updated in place keeps its shape, dtype and library (NumPy casts the result
   * back into it, or raises); a number is rebound to `x op value`; anything else is unknown.
   */
  private augmentedValue(n: SyntaxNode, cell: CellModel): ValueInfo {
    const left = field(n, 'left');
    const right = field(n, 'right');
    if (!left || !right) {
      return UNKNOWN;
    }
    const before = this.inferValue(left, cell);
    if (before.kind === 'ndarray') {
      return before;
    }
    const op = operatorOf(n);
    if (before.kind !== 'scalar' || !op.endsWith('=')) {
      return UNKNOWN;
    }
    const after = this.binaryValue(before, this.inferValue(right, cell), op.slice(0, -1));
    return after.kind === 'scalar' ? after : UNKNOWN;
  }

  private inferBinary(n: SyntaxNode, cell: CellModel): ValueInfo {
    const left = field(n, 'left');
    const right = field(n, 'right');
    if (!left || !right) {
      return UNKNOWN;
    }
    return this.binaryValue(this.inferValue(left, cell), this.inferValue(right, cell), operatorOf(n));
  }

  /** What `a op b` gives (a binary operator's operands' values). */
  private binaryValue(a: ValueInfo, b: ValueInfo, op: string): ValueInfo {
    if (a.kind === 'scalar' && b.kind === 'scalar') {
      const x = a.value;
      const y = b.value;
      const numpy = scalarBinaryDtype(a, b, op);
      if (numpy) {
        // a NumPy scalar meeting a scalar: a NumPy scalar (NEP 50), no value computed
        return { kind: 'scalar', dtype: numpy, origin: 'inferred', library: 'numpy' };
      }
      const complex = a.dtype === 'complex128' || b.dtype === 'complex128';
      const dtype = complex ? 'complex128' : a.dtype === 'float64' || b.dtype === 'float64' || op === '/' || (op === '**' && y !== undefined && y < 0) ? 'float64' : 'int64';
      if (x === undefined || y === undefined || complex) {
        return { kind: 'scalar', dtype, origin: 'inferred' };
      }
      const value = scalarArithmetic(op, x, y);
      return { kind: 'scalar', value: Number.isFinite(value) ? value : undefined, dtype, origin: 'inferred' };
    }
    if (op === '@') {
      return matmulValue(a, b);
    }
    if (a.kind === 'ndarray' || b.kind === 'ndarray') {
      const out = broadcastValues([a, b], COMPARISONS.has(op) ? 'bool' : undefined);
      if (op === '/' && out.dtype) {
        const divided = copyOf(out);
        divided.dtype = trueDivideDtype(out.dtype);
        return divided;
      }
      return out;
    }
    if (a.kind === 'dataframe' || b.kind === 'dataframe') {
      return { kind: 'dataframe', origin: 'inferred', library: 'pandas' };
    }
    return UNKNOWN;
  }

  private inferAttribute(n: SyntaxNode, cell: CellModel): ValueInfo {
    const q = this.qualifiedName(n);
    if (q) {
      return floatConstant(q) ?? { kind: 'module', origin: 'literal', library: firstPart(q) };
    }
    const obj = field(n, 'object');
    const attr = field(n, 'attribute')?.text;
    if (!obj || !attr) {
      return UNKNOWN;
    }
    const v = this.inferValue(obj, cell);
    if (v.kind === 'ndarray') {
      if (attr === 'T') {
        const out = copyOf(v);
        out.shape = v.shape ? [...v.shape].reverse() : undefined;
        out.origin = 'inferred';
        return out;
      }
      if (attr === 'shape') {
        // a tuple of Python ints, one per axis, with their values where the shape is known
        return v.shape
          ? tupleOf(v.shape.map(d => ({ kind: 'scalar', dtype: 'int64', ...(d === null ? {} : { value: d }), origin: 'inferred' }) as ValueInfo), 'builtins')
          : { kind: 'sequence', origin: 'inferred' };
      }
      if (attr === 'size' || attr === 'ndim' || attr === 'nbytes' || attr === 'itemsize') {
        const value = attr === 'size' ? v.size : attr === 'ndim' ? v.shape?.length : undefined;
        return { kind: 'scalar', dtype: 'int64', value, origin: 'inferred' };
      }
      if (attr === 'real' || attr === 'imag') {
        const out = copyOf(v);
        out.dtype = v.dtype === 'complex64' ? 'float32' : 'float64';
        out.origin = 'inferred';
        return out;
      }
    }
    return UNKNOWN;
  }

  private inferCall(n: SyntaxNode, cell: CellModel): ValueInfo {
    const fn = field(n, 'function');
    if (!fn) {
      return UNKNOWN;
    }
    const { positional, keywords } = callArguments(n);
    const q = this.qualifiedName(fn);
    if (q) {
      return this.inferLibraryCall(q, positional, keywords, cell);
    }
    const inline = inlineLambda(fn, cell);
    if (inline) {
      return this.callValue(inline, n, positional, keywords, cell);
    }
    if (fn.type === 'identifier') {
      const called = this.calledDefinition(fn, cell);
      if (called) {
        return this.callValue(called, n, positional, keywords, cell);
      }
      const name = fn.text;
      if ((name === 'int' || name === 'float' || name === 'round') && positional[0]) {
        const v = this.inferValue(positional[0], cell);
        if (v.kind === 'scalar') {
          const value = v.value === undefined ? undefined : name === 'float' ? v.value : Math.round(v.value);
          return { kind: 'scalar', value, dtype: name === 'float' ? 'float64' : 'int64', origin: 'inferred' };
        }
        return { kind: 'scalar', dtype: name === 'float' ? 'float64' : 'int64', origin: 'inferred' };
      }
      if (name === 'sum') {
        return pythonSumValue(this, n, cell) ?? { kind: 'scalar', origin: 'inferred' };
      }
      if (name === 'len' && positional.length === 1) {
        // of an array whose first axis is known: that length
        const v = this.inferValue(positional[0], cell);
        const rows = v.kind === 'ndarray' && !v.approx ? v.shape?.[0] : undefined;
        return typeof rows === 'number' ? { kind: 'scalar', value: rows, origin: 'inferred' } : { kind: 'scalar', origin: 'inferred' };
      }
      if (name === 'abs' && positional.length === 1) {
        // of an array: `x.__abs__()`, np.absolute's value (float magnitudes of complex values)
        const v = this.inferValue(positional[0], cell);
        if (v.kind === 'ndarray') {
          return this.inferLibraryCall('numpy.absolute', positional, keywords, cell);
        }
      }
      if (name === 'divmod' && positional.length === 2 && keywords.size === 0 && positional.some(a => this.inferValue(a, cell).kind === 'ndarray')) {
        // of an array: `x.__divmod__(y)`, np.divmod's pair of arrays
        return this.inferLibraryCall('numpy.divmod', positional, keywords, cell);
      }
      if (name === 'len' || name === 'max' || name === 'min' || name === 'abs') {
        return { kind: 'scalar', origin: 'inferred' };
      }
      if (name === 'list' || name === 'range' || name === 'tuple') {
        return { kind: 'sequence', origin: 'inferred' };
      }
      return UNKNOWN;
    }
    if (fn.type === 'attribute') {
      const obj = field(fn, 'object');
      const method = field(fn, 'attribute')?.text ?? '';
      if (!obj) {
        return UNKNOWN;
      }
      const v = this.inferValue(obj, cell);
      if (v.kind === 'rng') {
        return randomValue(method, positional, keywords, this, cell, v.library ?? 'numpy');
      }
      if (v.kind === 'ndarray') {
        return arrayMethodValue(v, method, positional, keywords, this, cell);
      }
      if (v.kind === 'module' && v.library === 'cupy' && method === 'get_function') {
        return { kind: 'function', origin: 'literal', library: 'cupy' }; // a RawModule's kernel
      }
      if (v.kind === 'dataframe' || v.kind === 'series') {
        if (method === 'to_numpy' || method === 'values') {
          return { kind: 'ndarray', origin: 'inferred', library: 'numpy', device: 'host' };
        }
        return { kind: v.kind, origin: 'inferred', library: v.library };
      }
      if (v.kind === 'estimator' && (method === 'predict' || method === 'transform')) {
        return { kind: 'ndarray', origin: 'inferred', library: 'numpy', device: 'host' };
      }
    }
    return UNKNOWN;
  }

  /**
   * A qualified name's parts, as the library calls read them: worked out once per name text and
   * model (a pure function of the text: nothing can make an entry stale; per model so that
   * nothing outlives it).
   */
  private libraryName(q: string): LibraryName {
    let parts = this.libraryNames.get(q);
    if (parts === undefined) {
      parts = libraryNameOf(q);
      this.libraryNames.set(q, parts);
    }
    return parts;
  }

  private readonly libraryNames = new Map<string, LibraryName>();

  private inferLibraryCall(
    q: string,
    positional: SyntaxNode[],
    keywords: ReadonlyMap<string, SyntaxNode>,
    cell: CellModel
  ): ValueInfo {
    if (q.startsWith('cupyx.scipy.')) {
      // cupyx mirrors SciPy's signatures and results, on the device (a rewritten cell read again)
      return onDevice(this.inferLibraryCall(`scipy.${q.slice('cupyx.scipy.'.length)}`, positional, keywords, cell));
    }
    const parts = this.libraryName(q);
    const lib = parts.lib;
    if (lib === 'cupy' && parts.single && parts.name === 'asnumpy') {
      // a host copy of a device array: NumPy's, same shape and dtype
      const base = positional[0] ? this.inferValue(positional[0], cell) : UNKNOWN;
      if (base.kind !== 'ndarray') {
        return { kind: 'ndarray', origin: 'inferred', library: 'numpy', device: 'host' };
      }
      const out = copyOf(base);
      out.library = 'numpy';
      out.device = 'host';
      out.origin = 'inferred';
      return out;
    }
    if (lib === 'cupy' && CUPY_KERNEL_MAKERS.test(q)) {
      // a kernel object (or a fused function): called like a function, on device arrays
      return { kind: 'function', origin: 'literal', library: 'cupy' };
    }
    if (q === 'cupy.RawModule') {
      return { kind: 'module', origin: 'literal', library: 'cupy' }; // its kernels: get_function
    }
    if (lib === 'numpy' || lib === 'cupy') {
      const v = numpyCallValue(parts, positional, keywords, this, cell);
      // NumPy hands a call on CuPy arrays to CuPy (__array_ufunc__, __array_function__): `np.sqrt(u)`
      // of a CuPy array is a CuPy array on the device
      if (lib === 'numpy' && v.kind === 'ndarray' && v.library !== 'cupy' && positional.some(p => this.inferValue(p, cell).library === 'cupy')) {
        const out = copyOf(v);
        out.library = 'cupy';
        out.device = 'gpu';
        return out;
      }
      return v;
    }
    if (lib === 'pandas') {
      const name = parts.last;
      if (name === 'Series') {
        return { kind: 'series', origin: 'inferred', library: 'pandas' };
      }
      if (name === 'DataFrame' || name.startsWith('read_') || name === 'concat' || name === 'merge') {
        return { kind: 'dataframe', origin: 'inferred', library: 'pandas' };
      }
      return UNKNOWN;
    }
    if (lib === 'networkx') {
      const name = parts.last;
      if (/^[A-Z]/.test(name) || /graph|_graph$|^read_|^from_/.test(name)) {
        return { kind: 'graph', origin: 'inferred', library: 'networkx' };
      }
      return UNKNOWN;
    }
    if (lib === 'sklearn') {
      const name = parts.last;
      return /^[A-Z]/.test(name) ? { kind: 'estimator', origin: 'inferred', library: 'sklearn' } : UNKNOWN;
    }
    if (lib === 'scipy' && q.startsWith('scipy.sparse.') && /_matrix$|_array$|^scipy\.sparse\.(random|rand|eye|diags|identity)$/.test(q)) {
      return { kind: 'sparse', origin: 'inferred', library: 'scipy' };
    }
    if (lib === 'scipy') {
      // most scipy array functions return an array shaped like their first argument
      // (a filter's result is shaped like its data, which comes after the coefficients)
      const at = SCIPY_DATA_ARGUMENT.get(q) ?? 0;
      const first = positional[at] ? this.inferValue(positional[at], cell) : UNKNOWN;
      const name = parts.last;
      const tuple = scipyTupleValue(q, first, positional, keywords, n => this.constantValue(n, cell), n => this.inferValue(n, cell));
      if (tuple) {
        return tuple;
      }
      const measured = labeledMeasurementValue(q, first, positional, keywords, n => this.inferValue(n, cell));
      if (measured) {
        return measured;
      }
      if (SCIPY_NON_ARRAY_RESULTS.test(name) || /^scipy\.(optimize|integrate|stats)\./.test(q)) {
        return UNKNOWN;
      }
      // scipy.fft's transforms are NumPy's (complex results; fftpack's complex ones too: its
      // rfft packs real values); the analytic signal is complex
      if (first.kind === 'ndarray' && (q.startsWith('scipy.fft.') ? COMPLEX_FFTS.test(name) || REAL_FFTS.test(name) || /^i?fftshift$/.test(name) : q.startsWith('scipy.fftpack.') && /^i?fft[2n]?$/.test(name))) {
        return fftValue(name, first, positional, keywords, 'numpy');
      }
      if (first.kind === 'ndarray' && /^scipy\.signal\.hilbert2?$/.test(q)) {
        return { ...copyOf(first), dtype: undefined, origin: 'inferred', approx: true };
      }
      if (first.kind === 'ndarray') {
        const out = copyOf(first);
        out.origin = 'inferred';
        out.approx = true;
        return out;
      }
      // filter design and windows (numbers, a window's name): float64 arrays of a size the
      // literals rarely tell; data the analysis cannot type (np.load's, a pickle's) keeps a dtype
      // it does not know (ndimage filters return their input's)
      const designed = positional.length === 0 || first.kind === 'scalar' || first.kind === 'string';
      return { kind: 'ndarray', origin: 'inferred', library: 'numpy', device: 'host', dtype: designed ? 'float64' : undefined };
    }
    return UNKNOWN;
  }
}

/**
 * What Python's `sum` gives over a collection written in place whose items are arrays or NumPy
 * scalars (`sum(a * k for k in ks)`, `sum([a, b])`): `0 + item0 + item1 + ...`, an array of the
 * items' shape (the first array item's) whose dtype is the item's with a Python int added
 * (NEP 50: uint8 stays uint8, bool becomes int64), or a NumPy scalar. Null for anything else.
 */
function pythonSumValue(model: NotebookModel, call: SyntaxNode, cell: CellModel): ValueInfo | null {
  const args = field(call, 'arguments');
  const first = args?.type === 'generator_expression' ? args : callArguments(call).positional[0];
  const collection = first ? unparen(first) : null;
  if (!collection) {
    return null;
  }
  const items = collection.type === 'generator_expression' || collection.type === 'list_comprehension'
    ? [field(collection, 'body')].filter((b): b is SyntaxNode => !!b)
    : collection.type === 'list' || collection.type === 'tuple' ? kids(collection) : [];
  const values = items.map(i => model.inferValue(i, cell));
  const array = values.find(v => v.kind === 'ndarray');
  if (array) {
    return { ...array, dtype: array.dtype === undefined ? undefined : promoteWeak(array.dtype, 'int'), origin: 'inferred' };
  }
  const scalar = values.find(v => v.kind === 'scalar' && v.library === 'numpy');
  return scalar ? { kind: 'scalar', library: 'numpy', dtype: scalar.dtype === undefined ? undefined : promoteWeak(scalar.dtype, 'int'), origin: 'inferred' } : null;
}

/**
 * The dtype of a NumPy reduction of an array of `dtype`: indices and counts are int64 (intp), all/any
 * bool, means and spreads float (float32 stays float32), sums and products of bool and small
 * integers the platform integer (int64; uint64 for unsigned), anything else its input's dtype.
 */
function reductionDtype(name: string, dtype: string): string;
function reductionDtype(name: string, dtype: string | undefined): string | undefined;
function reductionDtype(name: string, dtype: string | undefined): string | undefined {
  if (/^(nan)?arg(max|min)$|^count_nonzero$/.test(name)) {
    return 'int64';
  }
  if (name === 'all' || name === 'any') {
    return 'bool';
  }
  if (dtype === undefined) {
    return undefined;
  }
  if (/^(nan)?(mean|std|var|median)$|^(average|percentile|quantile)$/.test(name)) {
    return floatResult(dtype);
  }
  if (/^(nan)?(sum|prod)$|^(nan)?cum(sum|prod)$/.test(name)) {
    return dtype === 'bool' || /^int(8|16|32)$/.test(dtype) ? 'int64' : /^uint(8|16|32)$/.test(dtype) ? 'uint64' : dtype;
  }
  return dtype;
}

/**
 * NEP 50's result dtype of numbers alone: NumPy scalars promote; with none, the Python numbers'
 * highest kind at its default dtype (bool, int64, float64, complex128); then each Python number
 * takes part weakly. Undefined where a number's type is not known.
 */
function scalarsDtype(values: readonly ValueInfo[]): string | undefined {
  const types = values.map(scalarType);
  if (types.some(t => t === null)) {
    return undefined;
  }
  let dtype: string | undefined;
  for (const t of types) {
    if (t?.strong) {
      dtype = dtype === undefined ? t.dtype : promoteTypes(dtype, t.dtype);
    }
  }
  const defaults = { bool: 'bool', int: 'int64', float: 'float64', complex: 'complex128' } as const;
  for (const t of types) {
    if (t && !t.strong) {
      dtype = dtype === undefined ? defaults[t.python] : promoteWeak(dtype, t.python);
    }
  }
  return dtype;
}

/** CuPy calls that make kernels or fused functions (`cp.ElementwiseKernel(...)`, `cp.fuse(...)`). */
const CUPY_KERNEL_MAKERS = /^cupy\.(ElementwiseKernel|ReductionKernel|RawKernel|fuse)$/;

/**
 * A copy of `v` to change. Inference derives values as `const out = copyOf(v); out.dtype = ...`
 * rather than `{ ...v, dtype: ... }`: the same object (same keys, in the same order), but V8
 * defines a literal's properties listed after a spread through a slow generic path when the
 * spread values come in many shapes (measured: ~1.5 µs a value, 5x the copy and assignments),
 * and an analysis derives thousands.
 */
function copyOf(v: ValueInfo): ValueInfo {
  return { ...v };
}

/** `numpy` of `numpy.fft.fft2` (the whole name when it has no dot). */
function firstPart(dotted: string): string {
  const dot = dotted.indexOf('.');
  return dot < 0 ? dotted : dotted.slice(0, dot);
}

/** `fft2` of `numpy.fft.fft2`. */
function lastPart(dotted: string): string {
  return dotted.slice(dotted.lastIndexOf('.') + 1);
}

/** No readers or no writers (shared: an entry's lists are never changed once built). */
const NO_CELLS: CellModel[] = [];

/** Readers and writers of every name (one pass over the cells' facts). */
function buildUsers(cells: readonly CellModel[]): Map<string, NameUsers> {
  const index = new Map<string, NameUsers>();
  // Set.forEach and index loops: no iterator object per name; a name's first reader (writer)
  // starts an array of one, and most names have one (this runs for every cold update)
  for (let k = 0; k < cells.length; k++) {
    const cell = cells[k];
    cell.facts?.reads.forEach(name => {
      const e = index.get(name);
      if (e) {
        e.readers.push(cell);
      } else {
        index.set(name, { readers: [cell], writers: NO_CELLS, indices: NO_INDICES });
      }
    });
  }
  for (let k = 0; k < cells.length; k++) {
    const cell = cells[k];
    cell.facts?.writes.forEach(name => {
      const e = index.get(name);
      if (!e) {
        index.set(name, { readers: NO_CELLS, writers: [cell], indices: NO_INDICES });
      } else if (e.writers === NO_CELLS) {
        e.writers = [cell];
      } else {
        e.writers.push(cell);
      }
    });
  }
  index.forEach(setIndices);
  return index;
}

const NO_INDICES: number[] = [];

/** Fills `e.indices`: each reader's index, then each writer's. */
function setIndices(e: NameUsers): void {
  const r = e.readers.length;
  const indices = new Array<number>(r + e.writers.length);
  for (let k = 0; k < r; k++) {
    indices[k] = e.readers[k].index;
  }
  for (let k = 0; k < e.writers.length; k++) {
    indices[r + k] = e.writers[k].index;
  }
  e.indices = indices;
}

/**
 * Readers and writers by name: a full index (`base`, shared with earlier models) and the entries
 * rebuilt since it was made (`overlay`; null for a name no cell reads or writes any more). An
 * update after a small edit then costs the names the edit touched, not a copy of every name.
 */
class UsersIndex {
  constructor(
    private readonly base: ReadonlyMap<string, NameUsers>,
    // always a map (an empty one for a full index): look-ups take one path from the first update on
    private readonly overlay: ReadonlyMap<string, NameUsers | null> = NO_OVERLAY
  ) {}

  get(name: string): NameUsers | undefined {
    const e = this.overlay.get(name);
    if (e !== undefined) {
      return e ?? undefined;
    }
    return this.base.get(name);
  }

  /** Every entry (a new map when there is an overlay). */
  all(): ReadonlyMap<string, NameUsers> {
    if (this.overlay.size === 0) {
      return this.base;
    }
    const all = new Map(this.base);
    this.overlay.forEach((e, name) => {
      if (e === null) {
        all.delete(name);
      } else {
        all.set(name, e);
      }
    });
    return all;
  }

  /**
   * The index of `cells` given this one, of an earlier model of the same cells (same ids, in
   * order; the cells both have keep their index), and `touched`, the names the changed cells
   * read or write (before and after): only those names' entries are rebuilt.
   */
  update(cells: readonly CellModel[], touched: ReadonlySet<string>): UsersIndex {
    if (touched.size > 64 || this.overlay.size + touched.size > MAX_USERS_OVERLAY) {
      return new UsersIndex(buildUsers(cells));
    }
    const overlay = new Map(this.overlay);
    touched.forEach(name => overlay.set(name, usersOf(cells, name)));
    return new UsersIndex(this.base, overlay);
  }
}

const NO_OVERLAY: ReadonlyMap<string, NameUsers | null> = new Map();

/** Names rebuilt over a shared index before the next update builds a full one. */
const MAX_USERS_OVERLAY = 256;

/** The readers and writers of one name (null: none), as `buildUsers` would list them. */
function usersOf(cells: readonly CellModel[], name: string): NameUsers | null {
  let readers = NO_CELLS;
  let writers = NO_CELLS;
  for (let k = 0; k < cells.length; k++) {
    const facts = cells[k].facts;
    if (facts === null) {
      continue;
    }
    if (facts.reads.has(name)) {
      if (readers === NO_CELLS) {
        readers = [];
      }
      readers.push(cells[k]);
    }
    if (facts.writes.has(name)) {
      if (writers === NO_CELLS) {
        writers = [];
      }
      writers.push(cells[k]);
    }
  }
  if (readers === NO_CELLS && writers === NO_CELLS) {
    return null;
  }
  const e: NameUsers = { readers, writers, indices: NO_INDICES };
  setIndices(e);
  return e;
}

function sameIds(a: readonly CellModel[], b: readonly CellModel[]): boolean {
  if (a.length !== b.length) {
    return false;
  }
  for (let k = 0; k < a.length; k++) {
    if (a[k].id !== b[k].id) {
      return false;
    }
  }
  return true;
}

function intersects(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (b.size === 0) {
    return false;
  }
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) {
    if (large.has(x)) {
      return true;
    }
  }
  return false;
}

/** Adds to `into` every name whose bindings differ between one cell's old and new entries. */
function markChanged(before: readonly Binding[], after: readonly Binding[], into: Set<string>): void {
  const group = (entries: readonly Binding[]): BindingMap => {
    const m = new BindingMap();
    entries.forEach(b => m.add(b));
    return m;
  };
  const a = group(before);
  const b = group(after);
  for (const [name, list] of a) {
    if (!sameBindings(list, b.get(name))) {
      into.add(name);
    }
  }
  for (const name of b.keys()) {
    if (!a.has(name)) {
      into.add(name);
    }
  }
}

function sameUsers(a: NameUsers, b: NameUsers): boolean {
  return sameList(a.readers, b.readers) && sameList(a.writers, b.writers) && sameList(a.indices, b.indices);
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) {
    return false;
  }
  for (let k = 0; k < a.length; k++) {
    if (a[k] !== b[k]) {
      return false;
    }
  }
  return true;
}

function sameOrderedEntries(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) {
    return false;
  }
  const bs = [...b];
  let k = 0;
  for (const [key, value] of a) {
    if (bs[k][0] !== key || bs[k][1] !== value) {
      return false;
    }
    k++;
  }
  return true;
}

function sameOrderedValues(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return sameList([...a], [...b]);
}

function sameBindings(a: readonly Binding[], b: readonly Binding[] | undefined): boolean {
  if (!b || a.length !== b.length) {
    return false;
  }
  for (let k = 0; k < a.length; k++) {
    const x = a[k];
    const y = b[k];
    if (x.name !== y.name || x.cellId !== y.cellId || x.cellIndex !== y.cellIndex || x.at !== y.at || !deepEqual(x.value, y.value)) {
      return false;
    }
  }
  return true;
}

/** The dtype NumPy gives each Python number type. */
const PYTHON_NUMBER_DTYPES = { bool: 'bool', int: 'int64', float: 'float64', complex: 'complex128' } as const;

/**
 * The value of `a if c else b` without knowing `c`: the branches' own where they agree (origin
 * aside); else what holds for both. Two numbers of one dtype keep it where both are Python numbers
 * (weak) or both NumPy scalars (strong); two strings are a string. Two arrays of one dtype,
 * library and device keep their rank, each dimension the branches share (the others unknown) and
 * their size where equal (an upper bound only where both are the same bound). Branches whose kind,
 * dtype, library or device differ give unknown: a dtype left out would read as float64 to the cost
 * model and the rewrite's NEP 50 checks, and an array on either side of the device boundary is no
 * one thing.
 */
function eitherValue(a: ValueInfo, b: ValueInfo): ValueInfo {
  if (sameValue(a, b)) {
    return a.origin === b.origin ? a : { ...a, origin: 'inferred' };
  }
  if (a.kind === 'string' && b.kind === 'string') {
    return { kind: 'string', origin: 'inferred' };
  }
  const t = scalarType(a);
  if (t && t === scalarType(b)) {
    // two numbers of one type (`2.0 if big else 0.5`): that type, the value not known
    return t.strong ? { kind: 'scalar', dtype: t.dtype, origin: 'inferred', library: 'numpy' } : { kind: 'scalar', dtype: PYTHON_NUMBER_DTYPES[t.python], origin: 'inferred' };
  }
  if (a.kind !== 'ndarray' || b.kind !== 'ndarray' || a.dtype === undefined || a.dtype !== b.dtype || a.library !== b.library || a.device !== b.device) {
    return UNKNOWN;
  }
  const shape = a.shape && b.shape && a.shape.length === b.shape.length ? a.shape.map((d, k) => (d === b.shape![k] ? d : null)) : undefined;
  const size = a.size === b.size && !!a.approx === !!b.approx ? a.size : undefined;
  const out: ValueInfo = { kind: 'ndarray', shape, dtype: a.dtype, size, origin: 'inferred', library: a.library, device: a.device };
  if (size !== undefined && a.approx) {
    out.approx = true;
  }
  return out;
}

/** The same value, wherever each figure comes from (`origin` aside). */
function sameValue(a: ValueInfo, b: ValueInfo): boolean {
  return a.origin === b.origin ? deepEqual(a, b) : deepEqual({ ...a, origin: b.origin }, b);
}

/** Structural equality of plain data (JSON-like values; numbers compared with Object.is). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) {
    return true;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) {
    return false;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const key of ka) {
    if (!Object.prototype.hasOwnProperty.call(rb, key) || !deepEqual(ra[key], rb[key])) {
      return false;
    }
  }
  return true;
}

/**
 * The kernel's report on `name`: an own key of the reports only. The reports (the engine's
 * runtime map, an inspect reply's values) may be plain objects, and a Python name may be one
 * of their inherited members (`constructor`, `toString`, `valueOf`, `__proto__`...), which
 * are no report.
 */
export function ownReport<T>(reports: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(reports, name) ? reports[name] : undefined;
}

/** Converts the kernel's report on a name. */
/** The kernel's type names of Python sequences, which its reports describe no further. */
const PYTHON_SEQUENCE_TYPES: ReadonlySet<string> = new Set(['list', 'tuple']);
/** Python displays NumPy takes as one object, not as a sequence of items (`np.array({1, 2})`). */
const UNORDERED_COLLECTIONS: ReadonlySet<string> = new Set(['set', 'set_comprehension', 'dictionary', 'dictionary_comprehension']);

export function fromRuntime(rt: RuntimeValueInfo): ValueInfo {
  const t = rt.type.toLowerCase();
  const shape = rt.shape;
  const size = shape ? shapeSize(shape) : undefined;
  const dtype = rt.dtype ? normaliseDtype(rt.dtype) ?? rt.dtype : undefined;
  let kind: ValueInfo['kind'] = 'unknown';
  if (/ndarray/.test(t)) {
    kind = 'ndarray';
  } else if (/dataframe/.test(t)) {
    kind = 'dataframe';
  } else if (/series/.test(t)) {
    kind = 'series';
  } else if (/graph/.test(t)) {
    kind = 'graph';
  } else if (/^(int|float|complex|bool)$/.test(t) || /numpy\.(int|float)/.test(t)) {
    kind = 'scalar';
  } else if (/sparse|_matrix|_array/.test(t)) {
    kind = 'sparse';
  } else if (/generator|randomstate/.test(t)) {
    kind = 'rng';
  }
  const library = t.startsWith('cupy') ? 'cupy' : t.split('.')[0];
  return {
    kind,
    shape,
    dtype,
    size,
    origin: 'runtime',
    library,
    device: rt.device ?? (library === 'cupy' ? 'gpu' : 'host')
  };
}

/** Names `from numpy import *` brings in that the model resolves. */
function isNumpyTopLevelName(name: string): boolean {
  return CUPY_NUMPY_FUNCTIONS.has(name) || NUMPY_PASSTHROUGH_NAMES.has(name) || name === 'random' || name === 'linalg' || name === 'fft';
}

/** Reads a shape argument: `(N, N)`, `[4000, 3]`, `N`. */
export function shapeOf(node: SyntaxNode, model: NotebookModel, cell: CellModel): (number | null)[] | undefined {
  const n = unparen(node);
  if (n.type === 'tuple' || n.type === 'list') {
    return kids(n).map(k => model.constantValue(k, cell) ?? null);
  }
  const v = model.inferValue(n, cell);
  if (v.kind === 'scalar') {
    return [v.value ?? null];
  }
  return undefined;
}

function arrayValue(shape: (number | null)[] | undefined, dtype: string | undefined, library: string, origin: ValueInfo['origin'] = 'literal'): ValueInfo {
  return {
    kind: 'ndarray',
    shape,
    dtype,
    size: shape ? shapeSize(shape) : undefined,
    origin,
    library,
    device: library === 'cupy' ? 'gpu' : 'host'
  };
}

/**
 * What `np.tile(a, reps)`, `np.repeat(a, n, axis=)` and `np.broadcast_to(a, shape)` give: `a`'s
 * dtype, and the shape NumPy makes where the counts are constants. `tile` pads the shorter of
 * `a`'s shape and `reps` with leading 1s and multiplies them; `repeat` multiplies one axis (the
 * flattened array without `axis`) by an integer count (an array of counts gives a length the data
 * decides); `broadcast_to` has the shape it is given.
 */
function repeatedValue(
  name: 'tile' | 'repeat' | 'broadcast_to',
  a: ValueInfo,
  positional: SyntaxNode[],
  keywords: ReadonlyMap<string, SyntaxNode>,
  library: string,
  model: NotebookModel,
  cell: CellModel
): ValueInfo {
  const countNode = keywords.get(name === 'tile' ? 'reps' : name === 'repeat' ? 'repeats' : 'shape') ?? positional[1];
  let shape: (number | null)[] | undefined;
  if (countNode && name === 'broadcast_to') {
    shape = shapeOf(countNode, model, cell);
  } else if (countNode && name === 'tile' && a.shape) {
    const reps = shapeOf(countNode, model, cell);
    if (reps) {
      const rank = Math.max(a.shape.length, reps.length);
      const pad = (dims: (number | null)[]): (number | null)[] => [...Array<number>(rank - dims.length).fill(1), ...dims];
      const [dims, times] = [pad(a.shape), pad(reps)];
      shape = dims.map((d, k) => (d === null || times[k] === null ? null : d * (times[k] as number)));
    }
  } else if (countNode && name === 'repeat' && a.shape) {
    const count = model.inferValue(countNode, cell);
    const n = count.kind === 'scalar' && count.value !== undefined && Number.isInteger(count.value) ? count.value : null;
    const axisNode = keywords.get('axis') ?? positional[2];
    const axis = axisNode && axisNode.type !== 'none' ? model.constantValue(axisNode, cell) : null;
    if (axis === null) {
      shape = [a.size !== undefined && n !== null ? a.size * n : null];
    } else if (axis !== undefined) {
      const k = axis < 0 ? axis + a.shape.length : axis;
      shape = k >= 0 && k < a.shape.length ? a.shape.map((d, j) => (j !== k ? d : d === null || n === null ? null : d * n)) : undefined;
    }
  }
  return arrayValue(shape, a.dtype, library, 'inferred');
}

/** NumPy's functions joining a list of arrays into one. */
const JOINS = new Set(['concatenate', 'stack', 'vstack', 'hstack', 'row_stack', 'column_stack', 'dstack']);

/**
 * What joining `items` (`np.concatenate([a, b])`, `np.stack([a, b], axis=1)`, `np.vstack`...)
 * gives: the items' promoted dtype, and the shape NumPy makes where every item's shape is known
 * and they agree (else only the total size, as an upper bound).
 */
/**
 * `np.r_[0, x]` (`cp.r_`) of numbers and 1-d arrays: a 1-d array of them all, in order; the
 * numbers are weak (NumPy 2: `np.r_[0, f32]` is float32), the arrays' dtypes promote. Undefined
 * (not read here) for slices, string directives and arrays of another rank.
 */
function rowJoinValue(n: SyntaxNode, value: SyntaxNode, model: NotebookModel, cell: CellModel): ValueInfo | undefined {
  let items = kids(n).filter(c => c.id !== value.id && c.type !== 'comment');
  if (items.length === 1 && (items[0].type === 'tuple' || items[0].type === 'expression_list')) {
    items = kids(items[0]).filter(c => c.type !== 'comment');
  }
  let size: number | undefined = 0;
  let dtype: string | undefined;
  let numbers: string | undefined;
  for (const item of items) {
    if (item.type === 'slice' || item.type === 'string') {
      return undefined;
    }
    const v = model.inferValue(item, cell);
    if (v.kind === 'scalar') {
      size = size === undefined ? undefined : size + 1;
      numbers = numbers && v.dtype && numbers !== v.dtype ? promoteTypes(numbers, v.dtype) : numbers ?? v.dtype;
    } else if (v.kind === 'ndarray' && v.shape?.length === 1) {
      const k = v.shape[0];
      size = size === undefined || k === null ? undefined : size + k;
      dtype = dtype && v.dtype ? promoteTypes(dtype, v.dtype) : dtype ?? v.dtype;
    } else {
      return undefined;
    }
  }
  const library = /^cupy\./.test(model.qualifiedName(value) ?? '') ? 'cupy' : 'numpy';
  return arrayValue([size ?? null], dtype ?? numbers, library, 'inferred');
}

function joinedValue(
  name: string,
  items: ValueInfo[],
  axisNode: SyntaxNode | undefined,
  library: string,
  model: NotebookModel,
  cell: CellModel
): ValueInfo {
  if (items.length === 0 || !items.every(v => v.kind === 'ndarray')) {
    return UNKNOWN;
  }
  let dtype: string | undefined = items[0].dtype;
  for (const v of items.slice(1)) {
    dtype = dtype && v.dtype ? promoteTypes(dtype, v.dtype) : undefined;
  }
  const sizes = items.map(v => v.size);
  const total = sizes.every(n => n !== undefined) ? (sizes as number[]).reduce((a, b) => a + b, 0) : undefined;
  const out: ValueInfo = { kind: 'ndarray', dtype, size: total, origin: 'inferred', library, device: library === 'cupy' ? 'gpu' : 'host' };
  const shapes = items.map(v => v.shape);
  const ndim = shapes[0]?.length;
  const axisValue = axisNode ? (axisNode.text === 'None' ? null : model.constantValue(axisNode, cell)) : 0;
  if (ndim === undefined || !shapes.every(sh => sh && sh.length === ndim && sh.every(d => d !== null)) || axisValue === undefined) {
    out.approx = true;
    return out;
  }
  const dims = shapes as number[][];
  // `np.concatenate` along an axis: that axis adds up, the others must agree
  const along = (axis: number, of: number[][]): number[] | null => {
    const rank = of[0].length;
    const a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank || !of.every(sh => sh.length === rank && sh.every((d, k) => k === a || d === of[0][k]))) {
      return null;
    }
    return of[0].map((d, k) => (k === a ? of.reduce((sum, sh) => sum + sh[a], 0) : d));
  };
  const same = dims.every(sh => sh.every((d, k) => d === dims[0][k]));
  let shape: number[] | null = null;
  if (name === 'concatenate') {
    shape = axisValue === null ? [total ?? 0] : ndim === 0 ? null : along(axisValue, dims);
  } else if (name === 'stack') {
    const a = axisValue === null ? null : axisValue < 0 ? axisValue + ndim + 1 : axisValue;
    shape = same && a !== null && a >= 0 && a <= ndim ? [...dims[0].slice(0, a), items.length, ...dims[0].slice(a)] : null;
  } else if (name === 'vstack' || name === 'row_stack') {
    shape = along(0, dims.map(sh => (sh.length === 1 ? [1, sh[0]] : sh)));
  } else if (name === 'hstack') {
    shape = ndim === 1 ? along(0, dims) : along(1, dims);
  } else if (name === 'column_stack') {
    shape = along(1, dims.map(sh => (sh.length === 1 ? [sh[0], 1] : sh)));
  } else if (name === 'dstack') {
    shape = along(2, dims.map(sh => (sh.length === 1 ? [1, sh[0], 1] : sh.length === 2 ? [...sh, 1] : sh)));
  }
  if (shape === null) {
    out.approx = true;
    return out;
  }
  out.shape = shape;
  out.size = shapeSize(shape);
  return out;
}

/**
 * What each item of a list comprehension `[body for t in iterable]` is, and how many there are,
 * for NumPy to join (`np.stack([ndi.shift(ref, s) for s in shifts])`): `body`'s value, which
 * stays untyped where it computes with the loop variable (an identifier the comprehension binds
 * is unknown); the count where the iterable's length is known. Undefined for a filtered or
 * nested comprehension and for a body that is not an array of a known dtype (what NumPy stacks
 * then is not modelled: the join stays untyped, as for an untyped operand).
 */
function comprehensionItems(node: SyntaxNode, model: NotebookModel, cell: CellModel): { item: ValueInfo; count: number | undefined } | undefined {
  const body = field(node, 'body');
  const clauses = kids(node).filter(k => k.id !== body?.id);
  if (!body || clauses.length !== 1 || clauses[0].type !== 'for_in_clause') {
    return undefined;
  }
  const item = model.inferValue(body, cell);
  return item.kind === 'ndarray' && item.dtype !== undefined ? { item, count: iterationCount(field(clauses[0], 'right'), model, cell) } : undefined;
}

/**
 * How many times `for t in iterable` runs where the analysis can tell: `range(...)` of constants,
 * an array's first axis, a list or tuple literal's length.
 */
function iterationCount(iterable: SyntaxNode | null, model: NotebookModel, cell: CellModel): number | undefined {
  const it = iterable ? unparen(iterable) : undefined;
  if (!it) {
    return undefined;
  }
  if (it.type === 'list' || it.type === 'tuple') {
    return kids(it).length;
  }
  if (it.type === 'call' && field(it, 'function')?.text === 'range') {
    const { positional, keywords } = callArguments(it);
    const nums = positional.map(p => model.constantValue(p, cell));
    if (keywords.size > 0 || nums.length === 0 || nums.length > 3 || nums.some(v => v === undefined || !Number.isInteger(v))) {
      return undefined;
    }
    const [start, stop, step] = nums.length === 1 ? [0, nums[0] as number, 1] : [nums[0] as number, nums[1] as number, (nums[2] ?? 1) as number];
    return step === 0 ? undefined : Math.max(0, Math.ceil((stop - start) / step));
  }
  const v = model.inferValue(it, cell);
  const first = v.kind === 'ndarray' ? v.shape?.[0] : undefined;
  return first === null || first === undefined ? undefined : first;
}

/**
 * The target pattern `from` is unpacked into: the assignment's left side (`lo, hi = from`), or the
 * pattern at its position of a tuple of them (`(lo, hi), n = from, 3`); else undefined.
 */
function unpackingTargets(from: SyntaxNode): SyntaxNode | undefined {
  const parent = from.parent;
  if (parent?.type === 'assignment') {
    return field(parent, 'left') ?? undefined;
  }
  const assignment = parent && (parent.type === 'expression_list' || parent.type === 'tuple') ? parent.parent : undefined;
  const left = assignment?.type === 'assignment' && field(assignment, 'right')?.id === parent!.id ? field(assignment, 'left') : undefined;
  const values = parent ? kids(parent) : [];
  const targets = left && (left.type === 'pattern_list' || left.type === 'tuple_pattern') ? kids(left) : [];
  const k = values.findIndex(v => v.id === from.id);
  const target = targets.length === values.length && k >= 0 ? targets[k] : undefined;
  return target && (target.type === 'tuple_pattern' || target.type === 'list_pattern' || target.type === 'parenthesized_expression') ? target : undefined;
}

/**
 * Item `k` of what a tuple-returning call gave (a `sequence` with known items); unknown past its
 * end, or for anything else unpacked (an array's rows are views of it: not modelled).
 */
function itemOf(v: ValueInfo, k: number): ValueInfo {
  return v.kind === 'sequence' && v.elements && k >= 0 && k < v.elements.length ? v.elements[k] : UNKNOWN;
}

/**
 * The module constants that are Python floats (`np.pi`, `math.tau`, `np.inf`...: weak under NEP
 * 50, as a literal), with their value where finite; undefined for any other name.
 */
const FLOAT_CONSTANTS: ReadonlyMap<string, number> = new Map([
  ['pi', Math.PI],
  ['e', Math.E],
  ['tau', 2 * Math.PI],
  ['euler_gamma', 0.5772156649015329],
  ['inf', Infinity],
  ['nan', NaN]
]);

function floatConstant(q: string): ValueInfo | undefined {
  const m = /^(numpy|cupy|math)\.(\w+)$/.exec(q);
  if (!m) {
    return undefined;
  }
  const [, module, name] = m;
  const value = FLOAT_CONSTANTS.get(name);
  // (math has no euler_gamma; NumPy 2 and CuPy no tau)
  if (value === undefined || (module === 'math' ? name === 'euler_gamma' : name === 'tau')) {
    return undefined;
  }
  return { kind: 'scalar', value: Number.isFinite(value) ? value : undefined, dtype: 'float64', origin: 'literal' };
}

/** `x` of `x.astype(...)` (a call of the method with its dtype), else undefined. */
function astypeObject(n: SyntaxNode): SyntaxNode | undefined {
  const fn = n.type === 'call' ? field(n, 'function') : undefined;
  return fn?.type === 'attribute' && field(fn, 'attribute')?.text === 'astype' ? unparen(field(fn, 'object') ?? fn) : undefined;
}

/** The lambda a call's callee is where it is written there (`(lambda a, b: a % b)(x, y)`): the definition it runs. */
function inlineLambda(fn: SyntaxNode, cell: CellModel): { node: SyntaxNode; cell: CellModel } | undefined {
  const callee = unparen(fn);
  return callee.type === 'lambda' ? { node: callee, cell } : undefined;
}

/** A tuple of known items. */
function tupleOf(elements: ValueInfo[], library: string): ValueInfo {
  return { kind: 'sequence', elements, origin: 'inferred', library };
}

/** SciPy's result as cupyx returns it: its arrays and sparse matrices (a tuple's too) on the device. */
function onDevice(v: ValueInfo): ValueInfo {
  if (v.kind === 'ndarray' || v.kind === 'sparse') {
    return { ...v, library: 'cupy', device: 'gpu' };
  }
  if (v.kind === 'sequence' && v.elements) {
    return { ...v, library: 'cupy', elements: v.elements.map(onDevice) };
  }
  return v;
}

/** A 0-d array: what NumPy's scalar results are once on the device (CuPy returns 0-d arrays). */
function zeroD(dtype: string | undefined, library: string): ValueInfo {
  return { kind: 'ndarray', shape: [], size: 1, dtype, origin: 'inferred', library, device: library === 'cupy' ? 'gpu' : 'host' };
}

/**
 * `np.round(x, decimals)` / `np.around`: elementwise, x's shape and dtype whatever `decimals`
 * (NumPy 2.4: an integer array stays integer, float32 stays float32). A number gives a NumPy scalar
 * (`np.round(2.5)` is a float64, `np.round(3)` an int64), a 0-d device array in CuPy. A bool array
 * raises in NumPy (the multiply by 10**decimals cannot be cast back): unknown.
 */
function roundedValue(x: ValueInfo, library: string): ValueInfo {
  if (x.kind === 'scalar') {
    const dtype = scalarsDtype([x]);
    return dtype === undefined || dtype === 'bool' ? UNKNOWN : library === 'cupy' ? zeroD(dtype, library) : { kind: 'scalar', dtype, origin: 'inferred', library: 'numpy' };
  }
  if (x.kind !== 'ndarray' || x.dtype === 'bool') {
    return UNKNOWN;
  }
  const out = copyOf(x);
  out.origin = 'inferred';
  out.library = library;
  out.device = library === 'cupy' ? 'gpu' : 'host';
  return out;
}

/** The keyword's value when it is the literal True (False, absent or not a literal: false). */
function keywordTrue(keywords: ReadonlyMap<string, SyntaxNode>, name: string): boolean {
  return keywords.get(name)?.text === 'True';
}

/** The real dtype of a (possibly complex) float dtype: eigenvalues of a Hermitian matrix, singular values. */
function realOf(dtype: string | undefined): string | undefined {
  return dtype === undefined ? undefined : dtype === 'complex64' || dtype === 'float32' ? 'float32' : 'float64';
}

/**
 * The matrix factorisations' results from a 2-D input's shape (m, n): NumPy's `linalg.svd`
 * (full_matrices=True by default), `qr` (mode 'reduced' by default; SciPy's default is 'full'),
 * `eigh`, `eig`, `slogdet`. Null where the call returns one array (`compute_uv=False`,
 * `mode='r'`) or the input is not a known 2-D array.
 */
function factorisationValue(
  name: string,
  a: ValueInfo,
  positional: SyntaxNode[],
  keywords: ReadonlyMap<string, SyntaxNode>,
  library: string,
  scipyDefaults: boolean
): ValueInfo | null {
  if (a.kind !== 'ndarray' || !a.shape || a.shape.length !== 2) {
    return null;
  }
  // options that change how many items come back, or their shapes: not modelled
  if (['eigvals_only', 'subset_by_index', 'subset_by_value', 'pivoting', 'left', 'right', 'hermitian', 'overwrite_a'].some(k => keywords.has(k))) {
    return null;
  }
  // NumPy's second positional of svd (full_matrices) and qr (mode); SciPy's are other options
  const second = scipyDefaults ? undefined : positional[1];
  const [m, n] = a.shape;
  const k = m !== null && n !== null ? Math.min(m, n) : null;
  const dtype = floatResult(a.dtype);
  const arr = (shape: (number | null)[], d: string | undefined): ValueInfo => arrayValue(shape, d, library, 'inferred');
  if (name === 'eigh') {
    return tupleOf([arr([n], realOf(dtype)), arr([m, n], dtype)], library);
  }
  if (name === 'eig') {
    const c = dtype === undefined ? undefined : dtype === 'float32' || dtype === 'complex64' ? 'complex64' : 'complex128';
    return tupleOf([arr([n], c), arr([m, n], c)], library);
  }
  if (name === 'svd') {
    if (keywords.has('compute_uv') || positional.length > 2 || (scipyDefaults && positional.length > 1)) {
      return null;
    }
    const fullNode = keywords.get('full_matrices') ?? second;
    if (fullNode && fullNode.text !== 'True' && fullNode.text !== 'False') {
      return null;
    }
    const full = fullNode?.text !== 'False';
    return tupleOf([arr([m, full ? m : k], dtype), arr([k], realOf(dtype)), arr([full ? n : k, n], dtype)], library);
  }
  if (name === 'qr') {
    const modeNode = keywords.get('mode') ?? second;
    if (scipyDefaults && positional.length > 1) {
      return null;
    }
    const mode = modeNode?.text.replace(/['"]/g, '') ?? (scipyDefaults ? 'full' : 'reduced');
    if (mode === 'complete' || mode === 'full') {
      return tupleOf([arr([m, m], dtype), arr([m, n], dtype)], library);
    }
    return mode === 'reduced' || mode === 'economic' ? tupleOf([arr([m, k], dtype), arr([k, n], dtype)], library) : null;
  }
  if (name === 'slogdet') {
    // NumPy: two NumPy scalars (sign, log|det|); CuPy: two 0-d arrays
    return tupleOf([zeroD(dtype, library), zeroD(realOf(dtype), library)], library);
  }
  return null;
}

/**
 * What a NumPy (or CuPy) function returning a tuple gives, item by item: `histogram` (counts,
 * edges) and `histogram2d`, `unique` with `return_index/inverse/counts`, `meshgrid`, `nonzero`
 * and one-argument `where`, `divmod`/`modf`/`frexp`, `gradient` of an n-D array, the linalg
 * factorisations and `linalg.lstsq`.
 * Null for anything else (one array, or items the analysis does not know).
 */
function numpyTupleValue(
  parts: LibraryName,
  positional: SyntaxNode[],
  keywords: ReadonlyMap<string, SyntaxNode>,
  args: ValueInfo[],
  model: NotebookModel,
  cell: CellModel
): ValueInfo | null {
  const library = parts.lib;
  const name = parts.name;
  const a = args[0];
  if (parts.twoNames && parts.head === 'linalg' && a) {
    if (name === 'lstsq') {
      return lstsqValue(a, args[1], library);
    }
    return factorisationValue(name, a, positional, keywords, library, false);
  }
  if (!parts.single || !a) {
    return null;
  }
  const arr = (shape: (number | null)[] | undefined, dtype: string | undefined, approx = false): ValueInfo => {
    const v = arrayValue(shape, dtype, library, 'inferred');
    if (approx) {
      v.approx = true;
      v.size = a.size;
    }
    return v;
  };
  switch (name) {
    case 'histogram': {
      if (a.kind !== 'ndarray') {
        return null;
      }
      const binsNode = keywords.get('bins') ?? positional[1];
      const bins = binsNode ? model.constantValue(binsNode, cell) : 10;
      const densityNode = keywords.get('density') ?? positional[3];
      if (densityNode && densityNode.text !== 'False' && densityNode.text !== 'True') {
        return null; // density not told: not modelled
      }
      const counts = histogramCounts(densityNode?.text === 'True', keywords.get('weights') ?? positional[4], model, cell);
      if (counts === null) {
        return null;
      }
      if (bins !== undefined && Number.isInteger(bins) && binsNode?.type !== 'list') {
        return tupleOf([arr([bins], counts), arr([bins + 1], floatResult(a.dtype))], library);
      }
      // edges given (a list, an array): returned as they are, as an array (a list of ints: int64)
      const lit = binsNode ? literalArray(binsNode) : undefined;
      const edges = lit ? arrayValue(lit.shape, lit.dtype, library, 'inferred') : binsNode ? model.inferValue(binsNode, cell) : UNKNOWN;
      if (edges.kind !== 'ndarray' || edges.shape?.length !== 1) {
        return tupleOf([arr([null], counts), arr([null], floatResult(a.dtype))], library);
      }
      const n = edges.shape[0];
      return tupleOf([arr([n === null ? null : n - 1], counts), arr(edges.shape, edges.dtype)], library);
    }
    case 'histogram2d':
      return histogram2dValue(a, args[1], keywords.get('bins') ?? positional[2], library, model, cell);
    case 'unravel_index': {
      // one int64 index per axis of the shape: NumPy scalars for one flat index (0-d arrays on
      // the device), arrays shaped like the indices for an array of them (NumPy 2.4.6)
      const shapeNode = keywords.get('shape') ?? positional[1];
      const dims = shapeNode ? unparen(shapeNode) : undefined;
      const given = dims ? model.inferValue(dims, cell) : UNKNOWN;
      const axes = dims && (dims.type === 'tuple' || dims.type === 'list') ? kids(dims).length : given.kind === 'sequence' ? given.elements?.length : given.kind === 'scalar' ? 1 : undefined;
      const t = scalarType(a);
      const integer = t ? (t.strong ? /^u?int/.test(t.dtype) : t.python === 'int') : a.kind === 'ndarray' && /^u?int/.test(a.dtype ?? '');
      const flat = !integer ? undefined : t ? [] : a.shape;
      if (axes === undefined || flat === undefined) {
        return null;
      }
      const item = flat.length === 0 ? zeroD('int64', library) : arrayValue(flat, 'int64', library, 'inferred');
      return tupleOf(Array.from({ length: axes }, () => item), library);
    }
    case 'unique': {
      const flags = ['return_index', 'return_inverse', 'return_counts'].filter(f => keywordTrue(keywords, f));
      if (flags.length === 0 || a.kind !== 'ndarray' || keywords.has('axis')) {
        return null;
      }
      // NumPy 2 shapes the inverse like an n-D input, CuPy may not: not modelled there (a later
      // reader of it refuses the rewrite)
      const nd = !a.shape || a.shape.length !== 1;
      return tupleOf([arr(undefined, a.dtype, true), ...flags.map(f => (f === 'return_inverse' && nd ? UNKNOWN : arr(undefined, 'int64', true)))], library);
    }
    case 'meshgrid': {
      const sparse = keywords.get('sparse');
      if ((sparse && sparse.text !== 'False') || !args.every(x => x.kind === 'ndarray' && x.shape?.length === 1)) {
        return null;
      }
      const sizes = args.map(x => x.shape![0]);
      const xy = (keywords.get('indexing')?.text.replace(/['"]/g, '') ?? 'xy') === 'xy';
      const shape = xy && sizes.length >= 2 ? [sizes[1], sizes[0], ...sizes.slice(2)] : sizes;
      return tupleOf(args.map(x => arr(shape, x.dtype)), library);
    }
    case 'nonzero':
    case 'where':
      if (positional.length !== 1) {
        return null;
      }
      if (a.kind !== 'ndarray' || !a.shape) {
        // a tuple of int64 (intp) position arrays, one per axis of a mask whose rank is not known
        // (not the mask's own array, which the other array functions' rule below would give)
        return { kind: 'unknown', origin: 'inferred' };
      }
      // the positions the mask selects: as many as the data decide, at most the mask's size
      return tupleOf(a.shape.map(() => ({ ...arr([null], 'int64', true), selection: true })), library);
    case 'divmod':
    case 'modf':
    case 'frexp': {
      const out = broadcastValues(args, undefined);
      if (out.kind !== 'ndarray') {
        return null;
      }
      const shape = out.shape;
      if (name === 'divmod') {
        return tupleOf([arr(shape, out.dtype), arr(shape, out.dtype)], library);
      }
      const f = floatResult(out.dtype);
      return tupleOf([arr(shape, f), arr(shape, name === 'frexp' ? 'int32' : f)], library);
    }
    case 'gradient':
      if (a.kind !== 'ndarray' || !a.shape || a.shape.length < 2 || keywords.has('axis')) {
        return null;
      }
      return tupleOf(a.shape.map(() => arr(a.shape, floatResult(a.dtype))), library);
    default:
      return null;
  }
}

/**
 * The dtype of `np.histogram`'s counts: int64, float64 with `density=True` (complex128 for complex
 * weights), else the weights' dtype. Null where CuPy's counts would differ (it sums integer and
 * bool weights as int64, real ones as float64, complex ones as complex128: NumPy keeps float32,
 * int32, bool... weights' dtype) or the weights' dtype is not known: not modelled there.
 */
function histogramCounts(density: boolean, weightsNode: SyntaxNode | undefined, model: NotebookModel, cell: CellModel): string | null {
  if (!weightsNode || weightsNode.type === 'none') {
    return density ? 'float64' : 'int64';
  }
  const w = model.inferValue(weightsNode, cell);
  if (w.kind !== 'ndarray' || w.dtype === undefined) {
    return null;
  }
  const complex = w.dtype.startsWith('complex');
  if (density) {
    return complex ? 'complex128' : 'float64';
  }
  return w.dtype === 'float64' || w.dtype === 'int64' || w.dtype === 'complex128' ? w.dtype : null;
}

/**
 * `np.histogram2d(x, y, bins)`: (H, xedges, yedges), H float64 of (nx, ny) bins whatever the
 * weights or density, the edges nx + 1 and ny + 1 values in the samples' float dtype (NumPy
 * stacks x and y: float32 only where both are). Bins as one count or a pair of counts; null for
 * edges given as arrays, or complex samples.
 */
function histogram2dValue(
  x: ValueInfo,
  y: ValueInfo | undefined,
  binsNode: SyntaxNode | undefined,
  library: string,
  model: NotebookModel,
  cell: CellModel
): ValueInfo | null {
  if (x.kind !== 'ndarray' || y?.kind !== 'ndarray') {
    return null;
  }
  // (the samples' dtype decides the edges'; one not known leaves the edges' unknown)
  const known = x.dtype !== undefined && y.dtype !== undefined;
  const sample = known ? promoteTypes(x.dtype as string, y.dtype as string) : undefined;
  if ((known && sample === undefined) || sample?.startsWith('complex')) {
    return null;
  }
  // a bin count: its value, null for an integer of unknown value, undefined for anything else
  const count = (n: SyntaxNode): number | null | undefined => {
    const t = scalarType(model.inferValue(n, cell));
    if (!t || !(t.strong ? /^u?int/.test(t.dtype) : t.python === 'int')) {
      return undefined;
    }
    return model.constantValue(n, cell) ?? null;
  };
  const b = binsNode ? unparen(binsNode) : undefined;
  // one count for both, or a pair of counts (arrays of edges: not modelled)
  const pair = b && (b.type === 'list' || b.type === 'tuple') ? kids(b) : undefined;
  const [nx, ny] = !b ? [10, 10] : pair ? (pair.length === 2 ? pair.map(count) : [undefined]) : [count(b), count(b)];
  if (nx === undefined || ny === undefined) {
    return null;
  }
  const edges = floatResult(sample);
  const plus = (n: number | null): number | null => (n === null ? null : n + 1);
  return tupleOf([arrayValue([nx, ny], 'float64', library, 'inferred'), arrayValue([plus(nx)], edges, library, 'inferred'), arrayValue([plus(ny)], edges, library, 'inferred')], library);
}

/**
 * `np.linalg.lstsq(a, b)`: (x, residuals, rank, s). For a (m, n) `a`: x (n,) for a 1-D b, (n, k)
 * for a (m, k) one; residuals: one per column of b (one for a 1-D b) at full rank when m > n,
 * none otherwise, so their count depends on the data unless m <= n; the rank an int32 (a NumPy
 * scalar; CuPy's is a 0-d array, as `zeroD` models both); s the min(m, n) singular values.
 * NumPy computes in float32 only where a and b both are, else float64. Null where that is not
 * a's own precision (CuPy computes s, and empty residuals, in a's: float32 a with float64 b),
 * for complex or float16 data, or shapes not known.
 */
function lstsqValue(a: ValueInfo, b: ValueInfo | undefined, library: string): ValueInfo | null {
  if (a.kind !== 'ndarray' || a.shape?.length !== 2 || b?.kind !== 'ndarray' || !b.shape || (b.shape.length !== 1 && b.shape.length !== 2)) {
    return null;
  }
  const real = (d: string | undefined): boolean => d === 'bool' || (d !== undefined && /^u?int|^float(32|64)$/.test(d));
  if (!real(a.dtype) || !real(b.dtype)) {
    return null; // complex, float16 or not known (float32 data gives float32 results)
  }
  const own = a.dtype === 'float32' ? 'float32' : 'float64';
  const dtype = a.dtype === 'float32' && b.dtype === 'float32' ? 'float32' : 'float64';
  if (own !== dtype) {
    return null;
  }
  const [m, n] = a.shape;
  const k = m !== null && n !== null ? Math.min(m, n) : null;
  const x = arrayValue(b.shape.length === 1 ? [n] : [n, b.shape[1]], dtype, library, 'inferred');
  const residuals = arrayValue([m !== null && n !== null && m <= n ? 0 : null], dtype, library, 'inferred');
  return tupleOf([x, residuals, zeroD('int32', library), arrayValue([k], dtype, library, 'inferred')], library);
}

/**
 * What a labelled measurement of scipy.ndimage gives with an `index` (`ndi.sum(x, labels, idx)`):
 * one value per index, float64 for the sums and moments (the median of floats: their dtype; SciPy accumulates them with
 * np.bincount's float64 weights; cupyx returns float64 too) and the input's dtype for minimum
 * and maximum; shaped like the index array (length unknown for a `range`). Not the input's shape
 * and dtype, which the generic SciPy rule would give. Null for anything else (no index: a scalar,
 * left to the generic rule's callers as before).
 */
function labeledMeasurementValue(
  q: string,
  first: ValueInfo,
  positional: SyntaxNode[],
  keywords: ReadonlyMap<string, SyntaxNode>,
  value: (n: SyntaxNode) => ValueInfo
): ValueInfo | null {
  const m = /^scipy\.ndimage\.(?:measurements\.)?(sum|sum_labels|mean|variance|standard_deviation|median|minimum|maximum)$/.exec(q);
  const index = keywords.get('index') ?? positional[2];
  if (!m || !index || index.type === 'none' || !(keywords.get('labels') ?? positional[1])) {
    return null;
  }
  const iv = value(index);
  const shape = iv.kind === 'ndarray' ? iv.shape ?? [null] : index.type === 'call' && field(index, 'function')?.text === 'range' ? [null] : index.type === 'list' ? [kids(index).length] : null;
  if (shape === null) {
    return null; // a scalar index gives a scalar; an unknown one is not modelled
  }
  // (the median of float values keeps their dtype: the middle value or the mean of two, in SciPy
  // 1.17 and cupyx alike; of integers it is float64)
  const dtype = m[1] === 'minimum' || m[1] === 'maximum' ? first.dtype : m[1] === 'median' && (first.dtype === 'float32' || first.dtype === 'float64') ? first.dtype : 'float64';
  return arrayValue(shape, dtype, 'numpy', 'inferred');
}

/**
 * What a SciPy function returning a tuple gives: `ndimage.label` (the labels, int32 shaped like
 * the input or of the dtype `output=` names, and their count, a Python int; with an `output=`
 * array only the count), `linalg.lu_factor`, and `scipy.linalg`'s factorisations (SciPy's
 * defaults; unknown where their items are not modelled). Null for anything else.
 */
function scipyTupleValue(
  q: string,
  first: ValueInfo,
  positional: SyntaxNode[],
  keywords: ReadonlyMap<string, SyntaxNode>,
  constant: (n: SyntaxNode) => number | undefined,
  value: (n: SyntaxNode) => ValueInfo
): ValueInfo | null {
  const name = lastPart(q);
  if ((q === 'scipy.signal.lfilter' && (keywords.has('zi') || positional.length > 4)) || (q === 'scipy.signal.sosfilt' && (keywords.has('zi') || positional.length > 3))) {
    // (y, zf): the filtered data and the final state; not modelled item by item
    return UNKNOWN;
  }
  if ((q === 'scipy.signal.welch' || q === 'scipy.signal.periodogram') && first.kind === 'ndarray') {
    // (frequencies, power): a one-sided spectrum of real data has nfft // 2 + 1 bins along the
    // axis (the last by default); nfft is nperseg (welch, 256 by default, at most the data's
    // length along the axis) or that length; the power keeps the data's other dimensions
    const ndim = first.shape?.length ?? null;
    const axisNode = keywords.get('axis');
    const axisValue = axisNode ? constant(axisNode) : -1;
    const axis = ndim !== null && axisValue !== undefined && Number.isInteger(axisValue) && axisValue >= -ndim && axisValue < ndim ? (axisValue + ndim) % ndim : null;
    const length = axis !== null ? first.shape![axis] : null;
    // a window given as an array sets nperseg; an nfft or a side changes the bins
    const window = keywords.get('window');
    const usual =
      positional.length <= 2 &&
      (!window || window.type === 'string') &&
      [...keywords.keys()].every(k => k === 'fs' || k === 'nperseg' || k === 'window' || k === 'noverlap' || k === 'scaling' || k === 'detrend' || k === 'axis');
    const npersegNode = keywords.get('nperseg');
    const asked = npersegNode ? constant(npersegNode) ?? null : q === 'scipy.signal.welch' ? 256 : length;
    // SciPy shortens a longer nperseg to the data's length (with a warning)
    const nperseg = asked !== null && length !== null ? Math.min(asked, length) : null;
    const bins = usual && nperseg !== null && !first.dtype?.startsWith('complex') ? Math.floor(nperseg / 2) + 1 : null;
    const power = axis !== null ? first.shape!.map((d, k) => (k === axis ? bins : d)) : [bins];
    return tupleOf([arrayValue([bins], 'float64', 'numpy', 'inferred'), arrayValue(power, floatResult(first.dtype), 'numpy', 'inferred')], 'scipy');
  }
  if (/^scipy\.ndimage\.(measurements\.)?label$/.test(q)) {
    const count: ValueInfo = { kind: 'scalar', dtype: 'int64', origin: 'inferred' };
    const output = keywords.get('output') ?? positional[2];
    const dtype = output && output.type !== 'none' ? labelDtype(output, value) : 'int32';
    if (dtype === null) {
      return count; // labels written into the array given: only their count comes back
    }
    if (dtype === undefined) {
      return UNKNOWN;
    }
    return tupleOf([arrayValue(first.kind === 'ndarray' ? first.shape : undefined, dtype, 'numpy', 'inferred'), count], 'scipy');
  }
  if (!q.startsWith('scipy.linalg.')) {
    return null;
  }
  if (name === 'lu_factor' && first.kind === 'ndarray' && first.shape?.length === 2) {
    const [m, n] = first.shape;
    return tupleOf([arrayValue([m, n], floatResult(first.dtype), 'numpy', 'inferred'), arrayValue([m !== null && n !== null ? Math.min(m, n) : null], 'int32', 'numpy', 'inferred')], 'scipy');
  }
  const factors = factorisationValue(name, first, positional, keywords, 'numpy', true);
  return factors ?? (returnsTuple(name, positional, keywords, true) ? UNKNOWN : null);
}

/**
 * The labels' dtype `ndimage.label(x, output=...)` returns them in when `output` is a dtype
 * (`np.int32`, `'uint16'`, `int`): an integer dtype; null when it is an array (the labels go
 * there and only their count comes back); undefined when the analysis cannot tell.
 */
function labelDtype(output: SyntaxNode, value: (n: SyntaxNode) => ValueInfo): string | null | undefined {
  const o = unparen(output);
  const named = o.type === 'string' || (o.type === 'attribute' && /^(np|numpy|cp|cupy)\./.test(o.text)) || (o.type === 'identifier' && o.text === 'int');
  const dtype = named ? normaliseDtype(o.text) : undefined;
  if (dtype !== undefined) {
    return /^u?int(8|16|32|64)$/.test(dtype) ? dtype : undefined;
  }
  return value(o).kind === 'ndarray' ? null : undefined;
}

function dtypeArg(keywords: ReadonlyMap<string, SyntaxNode>, positionalDtype: SyntaxNode | undefined): string | undefined {
  const node = keywords.get('dtype') ?? positionalDtype;
  if (!node) {
    return undefined;
  }
  if (node.type === 'list') {
    return 'structured';
  }
  return normaliseDtype(node.text) ?? node.text;
}

/** Counts the elements of a nested list literal and notes strings / None (object arrays). */
/** Whether `node` is a (nested) list or tuple of int and float literals, signs allowed. */
function numberLiterals(node: SyntaxNode): boolean {
  const n = unparen(node);
  if (n.type === 'list' || n.type === 'tuple') {
    return kids(n).every(numberLiterals);
  }
  return literalArithmetic(n) !== undefined;
}

/**
 * The dtype NumPy gives a number written with literals and arithmetic (`0.3**2`, `-2`, `1/4`,
 * `2*3`): int64 where the expression is an integer (every literal an integer, the operators
 * `+ - * // %` and `**` with a non-negative exponent) that fits in int64 (NumPy makes 2**63 a
 * uint64 and 10**20 an object), float64 where a float literal, `/` or a negative integer power
 * appears; undefined for anything else: names, calls, complex literals, and a power with a
 * non-integer exponent of a base that may be negative (`(-2) ** 0.5` is complex in Python).
 */
function literalArithmetic(node: SyntaxNode): 'int64' | 'float64' | undefined {
  const n = unparen(node);
  const exact = integerLiteralValue(n);
  if (exact !== undefined) {
    return exact >= -(2n ** 63n) && exact < 2n ** 63n ? 'int64' : undefined;
  }
  if (n.type === 'float') {
    return /[jJ]$/.test(n.text) ? undefined : 'float64';
  }
  if (n.type === 'unary_operator') {
    const arg = field(n, 'argument');
    return arg && n.text.trimStart()[0] !== '~' ? literalArithmetic(arg) : undefined;
  }
  if (n.type === 'binary_operator') {
    const l = field(n, 'left');
    const r = field(n, 'right');
    const op = field(n, 'operator')?.text;
    const a = l ? literalArithmetic(l) : undefined;
    const b = r ? literalArithmetic(r) : undefined;
    if (!a || !b || !op || !['+', '-', '*', '/', '//', '%', '**'].includes(op)) {
      return undefined;
    }
    if (op === '**' && integerLiteralValue(unparen(r!)) === undefined) {
      // a fractional power is real only of a base known not to be negative: a literal
      const base = unparen(l!);
      return base.type === 'integer' || base.type === 'float' ? 'float64' : undefined;
    }
    // (an integer ** a negative integer is a float: exact above gave no integer)
    return 'float64';
  }
  return undefined;
}

/**
 * The exact value of an integer expression of literals (`2**10`, `-(7 // 2)`, `0x1F * 3`), as
 * Python computes it (floor division and modulo), or undefined: not all integers, a negative
 * power, division by zero, or a power too large to be worth computing.
 */
function integerLiteralValue(node: SyntaxNode): bigint | undefined {
  const n = unparen(node);
  if (n.type === 'integer') {
    if (/[jJ]$/.test(n.text)) {
      return undefined;
    }
    try {
      return BigInt(n.text.replace(/_/g, '').replace(/^0+(?=\d)/, ''));
    } catch {
      return undefined;
    }
  }
  if (n.type === 'unary_operator') {
    const arg = field(n, 'argument');
    const v = arg ? integerLiteralValue(arg) : undefined;
    const op = n.text.trimStart()[0];
    return v === undefined ? undefined : op === '-' ? -v : op === '+' ? v : op === '~' ? -v - 1n : undefined;
  }
  if (n.type !== 'binary_operator') {
    return undefined;
  }
  const l = field(n, 'left');
  const r = field(n, 'right');
  const x = l ? integerLiteralValue(l) : undefined;
  const y = r ? integerLiteralValue(r) : undefined;
  if (x === undefined || y === undefined) {
    return undefined;
  }
  const floorDiv = (p: bigint, q: bigint): bigint => {
    const d = p / q;
    return (p % q !== 0n && (p < 0n) !== (q < 0n)) ? d - 1n : d;
  };
  switch (field(n, 'operator')?.text) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '//':
      return y === 0n ? undefined : floorDiv(x, y);
    case '%':
      return y === 0n ? undefined : x - y * floorDiv(x, y);
    case '**':
      return y < 0n || y > 4096n ? undefined : x ** y;
    default:
      return undefined;
  }
}

function literalArray(node: SyntaxNode): { shape: number[]; dtype: string } | undefined {
  const n = unparen(node);
  if (n.type !== 'list' && n.type !== 'tuple') {
    return undefined;
  }
  const items = kids(n);
  const shape = [items.length];
  let dtype = 'int64';
  let inner: number[] | undefined;
  for (const item of items) {
    const sub = literalArray(item);
    if (sub) {
      inner = sub.shape;
      dtype = widen(dtype, sub.dtype);
    } else if (literalArithmetic(item) === 'float64') {
      dtype = widen(dtype, 'float64');
    } else if (isStringExpression(item)) {
      dtype = 'str';
    } else if (item.type === 'none' || item.type === 'dictionary') {
      dtype = 'object';
    } else if (item.type === 'true' || item.type === 'false') {
      dtype = widen(dtype, 'bool');
    }
  }
  return { shape: inner ? [...shape, ...inner] : shape, dtype };
}

/**
 * Whether `node` is written to give a Python str: a literal or f-string, `str(...)`/`repr(...)`,
 * `<str>.format(...)`, `<str> % args`, `+` with a str operand, or a conditional of two of these.
 * NumPy makes a unicode array of such items, which CuPy cannot hold.
 */
function isStringExpression(node: SyntaxNode): boolean {
  const n = unparen(node);
  switch (n.type) {
    case 'string':
    case 'concatenated_string':
      return true;
    case 'call': {
      const fn = field(n, 'function');
      if (fn?.type === 'identifier') {
        return fn.text === 'str' || fn.text === 'repr';
      }
      const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
      return !!obj && field(fn!, 'attribute')?.text === 'format' && isStringExpression(obj);
    }
    case 'binary_operator': {
      const left = field(n, 'left');
      const right = field(n, 'right');
      const op = operatorOf(n);
      return (op === '%' && !!left && isStringExpression(left)) || (op === '+' && [left, right].some(side => !!side && isStringExpression(side)));
    }
    case 'conditional_expression': {
      const [then, , otherwise] = kids(n).filter(k => k.type !== 'comment');
      return !!then && !!otherwise && isStringExpression(then) && isStringExpression(otherwise);
    }
    default:
      return false;
  }
}

/**
 * A list comprehension of strings (`[f"r{i}" for i in range(n)]`, `[str(k) for k in keys]`) for
 * `np.array` to make a unicode array of: how many items where one unfiltered `for` tells.
 */
function stringComprehension(node: SyntaxNode, model: NotebookModel, cell: CellModel): { count: number | undefined } | undefined {
  const n = unparen(node);
  const body = n.type === 'list_comprehension' ? field(n, 'body') : null;
  if (!body || !isStringExpression(body)) {
    return undefined;
  }
  const clauses = kids(n).filter(k => k.id !== body.id && k.type !== 'comment');
  return { count: clauses.length === 1 && clauses[0].type === 'for_in_clause' ? iterationCount(field(clauses[0], 'right'), model, cell) : undefined };
}

function widen(a: string, b: string): string {
  const order = ['bool', 'int64', 'float64', 'complex128', 'str', 'object'];
  return order.indexOf(b) > order.indexOf(a) ? b : a;
}

function floatResult(dtype: string): string;
function floatResult(dtype: string | undefined): string | undefined;
function floatResult(dtype: string | undefined): string | undefined {
  // an array whose dtype the analysis does not know may be float32 (or an integer that wraps):
  // its float result is not known either
  if (dtype === undefined) {
    return undefined;
  }
  return dtype === 'float32' || dtype === 'complex64' || dtype === 'complex128' ? dtype : 'float64';
}

/**
 * Broadcast of several array/scalar values: NumPy's broadcast shape where every array's shape is
 * known (else the largest array's), and NumPy 2's result dtype (NEP 50: arrays and NumPy scalars
 * promote, a Python number then takes that dtype unless its kind is higher; `dtype` overrides).
 */
export function broadcastValues(values: ValueInfo[], dtype?: string): ValueInfo {
  // one pass, no intermediate arrays: the largest array (the first of the largest size), how
  // many arrays, whether one is float64 / complex128, and whether a value's dtype is not known
  let largest: ValueInfo | undefined;
  let arrays = 0;
  let float64 = false;
  let complex128 = false;
  let untyped = false;
  for (let k = 0; k < values.length; k++) {
    const v = values[k];
    if (v.kind !== 'ndarray') {
      untyped ||= untypedOperand(v);
      continue;
    }
    arrays++;
    if (largest === undefined || (v.size ?? -1) > (largest.size ?? -1)) {
      largest = v;
    }
    untyped ||= v.dtype === undefined;
    float64 ||= v.dtype === 'float64';
    complex128 ||= v.dtype === 'complex128';
  }
  if (largest === undefined) {
    return UNKNOWN;
  }
  // an operand of unknown dtype (np.load's data, a pickle's, a helper's result) may be float32,
  // float64 or an integer that wraps: the result's dtype is not the others' alone
  const promoted = dtype ?? (untyped ? undefined : resultDtype(values) ?? (float64 ? 'float64' : complex128 ? 'complex128' : largest.dtype));
  // one array keeps its own shape: the broadcast is only worked out for two or more
  const shape = arrays > 1 ? broadcastShape(values) : undefined;
  const out = copyOf(largest);
  // a length the data decide (`x[x > 0.5] * 2.0`): the largest's bound on the size still holds
  // where the result has its shape
  const bounded = largest.approx && largest.size !== undefined && shape?.length === largest.shape?.length && shape?.every((d, k) => d === largest.shape?.[k]);
  if (shape && !bounded) {
    out.shape = shape;
    out.size = shapeSize(shape);
    out.approx = undefined;
    out.selection = undefined;
    if (largest.selection && shape.includes(null)) {
      // a selection broadcast against other arrays (`rows[:, None] + win[None, :]`): still as
      // many rows as the data decide (its size not known: the bound times the axes added would
      // stand for more memory than the data ever take)
      out.approx = true;
      out.selection = true;
    }
  }
  out.dtype = promoted;
  out.origin = 'inferred';
  return out;
}

/**
 * Whether a value that is not an array leaves an operation's dtype unknown: anything but a scalar
 * (a value the analysis cannot type, a list), or a NumPy scalar of unknown dtype (`a[0, 0]` of
 * such an array). A scalar of unknown type that may be a Python number is not (resultDtype).
 */
function untypedOperand(v: ValueInfo): boolean {
  return v.kind !== 'scalar' || (v.library === 'numpy' && v.dtype === undefined);
}

/**
 * NumPy 2's result dtype of arrays and scalars computed together (numeric dtypes only: undefined
 * otherwise, where a value is neither an array nor a scalar, and where an array's dtype is not
 * known): arrays and NumPy scalars promote (`np.promote_types`), then each Python number (weak) takes part.
 * A scalar whose type the analysis cannot tell is left out (as if weak and of a lower kind).
 */
function resultDtype(values: ValueInfo[]): string | undefined {
  let strong: string | undefined;
  let weak = false;
  for (let k = 0; k < values.length; k++) {
    const v = values[k];
    if (v.kind === 'ndarray') {
      if (v.dtype === undefined) {
        return undefined;
      }
      strong = strong === undefined ? v.dtype : promoteTypes(strong, v.dtype);
    } else if (v.kind === 'scalar') {
      const t = scalarType(v);
      if (t?.strong) {
        strong = strong === undefined ? t.dtype : promoteTypes(strong, t.dtype);
      } else if (t) {
        weak = true;
      }
      continue;
    } else {
      return undefined;
    }
    if (strong === undefined) {
      return undefined;
    }
  }
  // then the Python numbers (weak), in order: a second pass instead of a list of them
  for (let k = 0; weak && k < values.length; k++) {
    const t = scalarType(values[k]);
    if (t && !t.strong) {
      strong = strong === undefined ? undefined : promoteWeak(strong, t.python);
    }
  }
  return strong;
}

/**
 * NumPy's broadcast of the known shapes of the arrays among `values` (a dimension not known:
 * `null`); undefined when one is unknown or they do not broadcast.
 */
function broadcastShape(values: ValueInfo[]): (number | null)[] | undefined {
  let out: (number | null)[] = [];
  for (let v = 0; v < values.length; v++) {
    const a = values[v];
    if (a.kind !== 'ndarray') {
      continue;
    }
    const shape = a.shape;
    if (!shape) {
      return undefined;
    }
    const n = Math.max(out.length, shape.length);
    const next: (number | null)[] = new Array(n);
    const dx = n - out.length;
    const dy = n - shape.length;
    for (let i = 0; i < n; i++) {
      const x = i - dx >= 0 ? out[i - dx] : 1;
      const y = i - dy >= 0 ? shape[i - dy] : 1;
      if (x === 1 || x === y) {
        next[i] = y;
      } else if (y === 1) {
        next[i] = x;
      } else if (x === null || y === null) {
        next[i] = x ?? y; // the unknown one is 1 or the other's size (anything else does not broadcast)
      } else {
        return undefined;
      }
    }
    out = next;
  }
  return out;
}

/**
 * The dtype of `a op b` for two scalars when one is a NumPy scalar (NEP 50: two NumPy scalars
 * promote, a Python number takes the NumPy scalar's dtype unless its kind is higher); undefined
 * when neither is one or a type is not known.
 */
function scalarBinaryDtype(a: ValueInfo, b: ValueInfo, op: string): string | undefined {
  const ta = scalarType(a);
  const tb = scalarType(b);
  if (!ta || !tb || (!ta.strong && !tb.strong) || COMPARISONS.has(op)) {
    return undefined;
  }
  const d = ta.strong && tb.strong ? promoteTypes(ta.dtype, tb.dtype) : ta.strong ? promoteWeak(ta.dtype, (tb as { python: 'bool' | 'int' | 'float' | 'complex' }).python) : promoteWeak((tb as { dtype: string }).dtype, (ta as { python: 'bool' | 'int' | 'float' | 'complex' }).python);
  return d && op === '/' ? trueDivideDtype(d) : d;
}

/** The comparison operators (their result is bool). */
const COMPARISONS: ReadonlySet<string> = new Set(['<', '>', '<=', '>=', '==', '!=']);

/** `x op y` for two Python numbers of known value (undefined for an operator not evaluated). */
function scalarArithmetic(op: string, x: number, y: number): number | undefined {
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    case '//':
      return Math.floor(x / y);
    case '%':
      return x % y;
    case '**':
      return x ** y;
    case '<<':
      return x * 2 ** y;
    case '>>':
      return Math.floor(x / 2 ** y);
    default:
      return undefined;
  }
}

/** Whether a number literal's text is imaginary (`2j`, `2.5J`, `1e3j`). */
function isImaginary(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  return last === 0x6a || last === 0x4a; // j J
}

/** A number literal's text without its digit separators (`4_000_000`: `4000000`). */
function withoutUnderscores(text: string): string {
  return text.indexOf('_') < 0 ? text : text.replace(/_/g, '');
}

/** An integer literal's text without a Python 2 long suffix (`10L`: `10`). */
function withoutLongSuffix(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last === 0x6c || last === 0x4c ? text.slice(0, -1) : text; // l L
}

/** NumPy's scalar types that `np.<type>(x)` makes (of a real scalar x: a NumPy scalar of that dtype). */
const NUMPY_SCALAR_TYPES: ReadonlyMap<string, string> = new Map([
  ['float16', 'float16'], ['half', 'float16'], ['float32', 'float32'], ['single', 'float32'], ['float64', 'float64'], ['double', 'float64'],
  ['int8', 'int8'], ['int16', 'int16'], ['int32', 'int32'], ['int64', 'int64'], ['intp', 'int64'],
  ['uint8', 'uint8'], ['uint16', 'uint16'], ['uint32', 'uint32'], ['uint64', 'uint64'],
  ['complex64', 'complex64'], ['csingle', 'complex64'], ['complex128', 'complex128'], ['cdouble', 'complex128']
]);

/**
 * The shape `a[...]` takes under basic indexing (slices with bounds that are integer constants,
 * omitted or None; integers; `...`; `None`), given `a`'s shape: a dimension the analysis cannot
 * work out (unknown size or bound) is null. `element` where every dimension is taken by an
 * integer (`a[0, 0]`: a scalar). Undefined for anything else (fancy or boolean indexing, an
 * index the analysis cannot type, too many indices, an integer out of range).
 */
function basicIndexShape(n: SyntaxNode, shape: (number | null)[], model: NotebookModel, cell: CellModel): (number | null)[] | 'element' | undefined {
  const value = field(n, 'value');
  let indices = kids(n).filter(k => k.id !== value?.id && k.type !== 'comment');
  if (indices.length === 1 && indices[0].type === 'tuple') {
    indices = kids(indices[0]).filter(k => k.type !== 'comment'); // `a[(1, 2)]` is `a[1, 2]`
  }
  const consumed = indices.filter(k => k.type !== 'ellipsis' && k.type !== 'none').length;
  const ellipses = indices.filter(k => k.type === 'ellipsis').length;
  if (consumed > shape.length || ellipses > 1) {
    return undefined;
  }
  const out: (number | null)[] = [];
  let dim = 0;
  let integers = 0;
  for (const k of indices) {
    if (k.type === 'ellipsis') {
      const skip = shape.length - consumed;
      out.push(...shape.slice(dim, dim + skip));
      dim += skip;
    } else if (k.type === 'none') {
      out.push(1);
    } else if (k.type === 'slice') {
      const bounds = sliceBounds(k, model, cell);
      if (bounds === undefined) {
        return undefined;
      }
      out.push(sliceLength(shape[dim], bounds));
      dim++;
    } else {
      const v = model.inferValue(k, cell);
      const t = scalarType(v);
      // a 0-d integer array (`f[np.argmax(S)]`) indexes as an integer does
      const integer = t
        ? t.strong
          ? /^u?int/.test(t.dtype)
          : t.python === 'int'
        : (v.kind === 'ndarray' && v.shape?.length === 0 && /^u?int/.test(v.dtype ?? '')) || rangeLoopVariable(k);
      if (!integer) {
        return undefined; // an array, a list, a bool, a name the analysis cannot type: not basic
      }
      const size = shape[dim];
      if (v.value !== undefined && size !== null && (v.value >= size || v.value < -size)) {
        return undefined; // IndexError
      }
      integers++;
      dim++;
    }
  }
  out.push(...shape.slice(dim));
  return integers === indices.length && out.length === 0 ? 'element' : out;
}

/**
 * Whether `node` is the variable of an enclosing `for k in range(...)` loop or comprehension
 * clause (a Python int at every iteration: `meas[k]` drops meas' first axis), which the value
 * model leaves untyped (a loop's or comprehension's variable has no single value). The search
 * stops at a function or lambda, whose parameters could shadow the name.
 */
function rangeLoopVariable(node: SyntaxNode): boolean {
  const u = unparen(node);
  if (u.type === 'binary_operator' && /^[+-]$/.test(operatorOf(u))) {
    // `k - 1`, `k + 1`, `1 + k`: an int too (l_kalman cell 3's `truth[k - 1] @ F.T`, a row: was
    // priced as a square matmul of the whole 64 MB array, 8.3 s against 0.27 s measured)
    const [l, r] = [field(u, 'left'), field(u, 'right')];
    const term = (x: SyntaxNode | null): boolean => x !== null && (unparen(x).type === 'integer' || rangeLoopVariable(x));
    return term(l) && term(r) && (unparen(l!).type !== 'integer' || unparen(r!).type !== 'integer');
  }
  if (node.type !== 'identifier') {
    return false;
  }
  const overRange = (left: SyntaxNode | null, right: SyntaxNode | null): boolean =>
    left?.type === 'identifier' && left.text === node.text && right?.type === 'call' && field(right, 'function')?.text === 'range';
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'lambda') {
      return false;
    }
    if (p.type === 'for_statement' && overRange(field(p, 'left'), field(p, 'right'))) {
      const body = field(p, 'body');
      return body !== null && node.startIndex >= body.startIndex && node.endIndex <= body.endIndex;
    }
    if (/comprehension$|^generator_expression$/.test(p.type) && kids(p).some(c => c.type === 'for_in_clause' && overRange(field(c, 'left'), field(c, 'right')))) {
      return true;
    }
  }
  return false;
}

/**
 * `np.mgrid[...]` and `np.ogrid[...]` (NumPy's `nd_grid`, 2.4.6): per slice `start:stop:step`,
 * ceil((stop - start) / step) points, or |step| points for a complex step (`0:1:100j`). One slice
 * gives a 1-D array; k slices give mgrid's dense (k, n1, ..., nk) array and ogrid's tuple of k
 * arrays, n_i along axis i and 1 elsewhere. int64 for integer bounds, float64 once a bound or
 * step is a float or the step complex. Unknown for anything but slices; counts unknown where a
 * bound is.
 */
function gridValue(name: 'mgrid' | 'ogrid', indices: SyntaxNode[], library: string, model: NotebookModel, cell: CellModel): ValueInfo {
  const slices = indices.length === 1 && indices[0].type === 'tuple' ? kids(indices[0]) : indices;
  if (slices.length === 0 || !slices.every(s => s.type === 'slice')) {
    return UNKNOWN;
  }
  let dtype: string | undefined = 'int64';
  const counts = slices.map(s => {
    const bounds: (SyntaxNode | undefined)[] = [undefined, undefined, undefined];
    let part = 0;
    for (const c of s.children) {
      if (c.type === ':') {
        part++;
      } else if (c.isNamed && c.type !== 'comment' && c.type !== 'none') {
        bounds[part] = c;
      }
    }
    const [start, stop, step] = bounds.map(b => (b ? model.inferValue(b, cell) : undefined));
    [start, stop, step].forEach((b, k) => {
      const t = b ? scalarType(b) : undefined;
      if (t === null || t?.strong || (t?.python === 'complex' && k < 2)) {
        dtype = undefined; // not a Python number, a complex bound: NumPy's result_type not modelled
      } else if ((t?.python === 'float' || t?.python === 'complex') && dtype) {
        dtype = 'float64'; // a float bound, or a complex step (its magnitude is what counts)
      }
    });
    if (step?.dtype === 'complex128') {
      const text = bounds[2]?.text ?? '';
      const points = isImaginary(text) ? Number(withoutUnderscores(text.slice(0, -1))) : NaN;
      return Number.isFinite(points) ? Math.trunc(Math.abs(points)) : null;
    }
    const a = start ? start.value : 0;
    const b = stop?.value;
    const st = step ? step.value : 1;
    return a === undefined || b === undefined || st === undefined || st === 0 ? null : Math.max(0, Math.ceil((b - a) / st));
  });
  const out = (shape: (number | null)[]): ValueInfo => {
    const v = arrayValue(shape, dtype ?? 'float64', library, 'inferred');
    v.dtype = dtype;
    return v;
  };
  if (indices.length === 1 && indices[0].type === 'slice') {
    return out(counts); // one slice: a 1-D array (ogrid's too)
  }
  if (name === 'mgrid') {
    return out([counts.length, ...counts]);
  }
  return tupleOf(counts.map((c, k) => out(counts.map((_, j) => (j === k ? c : 1)))), library);
}

/**
 * `a[idx]` with one integer index array of known shape (`evals[order]`, `X[rng.choice(n, 12)]`,
 * a list of ints): idx's shape then a's other axes. With a boolean mask over a's first k axes:
 * one axis of a length the data decides then a's other axes (its size at most a's). Undefined
 * for anything else (several indices, an index the analysis cannot type).
 */
function fancyIndexValue(n: SyntaxNode, v: ValueInfo, model: NotebookModel, cell: CellModel): ValueInfo | undefined {
  const value = field(n, 'value');
  const indices = kids(n).filter(k => k.id !== value?.id && k.type !== 'comment');
  const shape = v.shape;
  if (indices.length === 2 && shape && shape.length >= 2 && Number.isInteger(model.constantValue(indices[1], cell))) {
    // `X[idx, 0]`: the integer broadcasts against the index array, so the result has idx's shape
    // then X's axes after the second
    const index = model.inferValue(indices[0], cell);
    return index.kind === 'ndarray' && !index.approx && index.shape && /^u?int/.test(index.dtype ?? '')
      ? arrayValue([...index.shape, ...shape.slice(2)], v.dtype, v.library ?? 'numpy', 'inferred')
      : undefined;
  }
  if (indices.length !== 1 || !shape) {
    return undefined;
  }
  const lit = literalArray(indices[0]);
  const index = lit ? arrayValue(lit.shape, lit.dtype, 'numpy', 'inferred') : model.inferValue(indices[0], cell);
  if (index.kind !== 'ndarray' || !index.shape || index.shape.length === 0 || shape.length === 0) {
    return undefined;
  }
  if (/^u?int/.test(index.dtype ?? '')) {
    const out = [...index.shape, ...shape.slice(1)];
    const rows = shapeSize(shape.slice(1));
    if (index.approx && index.size !== undefined && rows !== undefined) {
      // positions of a masked selection (`en[np.argsort(t[good])]`): its bound on the count holds
      const gathered: ValueInfo = { kind: 'ndarray', dtype: v.dtype, shape: out, size: index.size * rows, origin: 'inferred', approx: true, library: v.library, device: v.device };
      if (index.selection) {
        gathered.selection = true;
      }
      return gathered;
    }
    return { kind: 'ndarray', dtype: v.dtype, shape: out, size: shapeSize(out), origin: 'inferred', library: v.library, device: v.device };
  }
  if (index.dtype === 'bool' && index.shape.length <= shape.length) {
    const out = [null, ...shape.slice(index.shape.length)];
    return { kind: 'ndarray', dtype: v.dtype, shape: out, size: v.size, origin: 'inferred', approx: true, library: v.library, device: v.device };
  }
  return undefined;
}

/** A slice's start, stop and step: a number, `null` for omitted (or None), `undefined` for unknown. */
function sliceBounds(s: SyntaxNode, model: NotebookModel, cell: CellModel): (number | null | undefined)[] | undefined {
  const bounds: (number | null | undefined)[] = [null, null, null];
  let part = 0;
  for (const c of s.children) {
    if (c.type === ':') {
      part++;
    } else if (c.isNamed && c.type !== 'comment') {
      if (part > 2) {
        return undefined;
      }
      if (c.type === 'none') {
        continue;
      }
      const v = model.inferValue(c, cell);
      const t = scalarType(v);
      if (t && !(t.strong ? /^u?int/.test(t.dtype) : t.python === 'int')) {
        return undefined; // a float bound: TypeError
      }
      bounds[part] = v.kind === 'scalar' && v.value !== undefined && Number.isInteger(v.value) ? v.value : undefined;
    }
  }
  return bounds;
}

/** The length of `slice(start, stop, step)` over `size` elements (Python's `slice.indices`). */
function sliceLength(size: number | null, [start, stop, step]: (number | null | undefined)[]): number | null {
  if (step === undefined || start === undefined || stop === undefined) {
    return null;
  }
  const st = step ?? 1;
  if (size === null) {
    return null;
  }
  if (st === 0) {
    return null; // ValueError
  }
  const lower = st < 0 ? -1 : 0;
  const upper = st < 0 ? size - 1 : size;
  const clamp = (x: number | null, dflt: number): number => {
    if (x === null) {
      return dflt;
    }
    if (x < 0) {
      return Math.max(x + size, lower);
    }
    return Math.min(x, upper);
  };
  const a = clamp(start, st < 0 ? upper : lower);
  const b = clamp(stop, st < 0 ? lower : upper);
  if (st < 0) {
    return b < a ? Math.floor((a - b - 1) / -st) + 1 : 0;
  }
  return a < b ? Math.floor((b - a - 1) / st) + 1 : 0;
}

/**
 * `a @ b`, `np.matmul(a, b)` and (`dot`) `np.dot(a, b)`, as NumPy 2.4 computes them. matmul
 * treats the last two axes as matrices and broadcasts the axes before them as a stack
 * ((50000, 20, 8) @ (8, 8) is (50000, 20, 8)); a 1-D operand is a row (left) or a column (right)
 * whose axis is dropped from the result (two vectors: a number, modelled 0-d as the reductions'
 * are). `np.dot` sums over the last axis of `a` and the second-to-last of `b` (the last of a
 * vector), and keeps all the other axes of both: `a`'s then `b`'s. The dtype is the operands'
 * promoted one (int32 @ int32 is int32). Shape unknown where an operand's is, or for a 0-d operand
 * (a matmul error, a product for dot) or a stack that does not broadcast.
 */
function matmulValue(a: ValueInfo, b: ValueInfo, dot = false): ValueInfo {
  // scipy.sparse @ dense -> dense (rows of the sparse matrix: not tracked); sparse @ sparse -> sparse
  if (a.kind === 'sparse' && b.kind === 'sparse') {
    return { kind: 'sparse', origin: 'inferred', library: a.library };
  }
  if ((a.kind === 'sparse' && b.kind === 'ndarray') || (a.kind === 'ndarray' && b.kind === 'sparse')) {
    const dense = a.kind === 'ndarray' ? a : b;
    return arrayValue(dense.shape?.length === 2 ? [null, null] : [null], dense.dtype, dense.library ?? 'numpy', 'inferred');
  }
  if (a.kind !== 'ndarray' || b.kind !== 'ndarray') {
    return UNKNOWN;
  }
  const dtype = a.dtype && b.dtype ? promoteTypes(a.dtype, b.dtype) : undefined;
  return arrayValue(matmulShape(a.shape, b.shape, dot), dtype, a.library ?? 'numpy', 'inferred');
}

/** The shape of `matmulValue`'s product; undefined where it cannot be worked out. */
function matmulShape(a: (number | null)[] | undefined, b: (number | null)[] | undefined, dot: boolean): (number | null)[] | undefined {
  if (!a || !b || a.length === 0 || b.length === 0) {
    return undefined;
  }
  if (dot) {
    return b.length === 1 ? a.slice(0, -1) : [...a.slice(0, -1), ...b.slice(0, -2), b[b.length - 1]];
  }
  const rows = a.length >= 2 ? [a[a.length - 2]] : [];
  const columns = b.length >= 2 ? [b[b.length - 1]] : [];
  const stack = broadcastShape([
    arrayValue(a.slice(0, Math.max(0, a.length - 2)), 'float64', 'numpy'),
    arrayValue(b.slice(0, Math.max(0, b.length - 2)), 'float64', 'numpy')
  ]);
  return stack ? [...stack, ...rows, ...columns] : undefined;
}

/**
 * A qualified name (`numpy.fft.fft2`) in the parts the library calls read: its library (first
 * name) and last name; for NumPy and CuPy, of the path after the library (`fft.fft2`): its
 * first name, last name, whether it is one name or two, and what the name-pattern tests of
 * `numpyCallValue` say of its last name.
 */
interface LibraryName {
  lib: string;
  last: string;
  head: string;
  name: string;
  single: boolean;
  twoNames: boolean;
  /** A comparison or predicate ufunc (bool result). */
  compare: boolean;
  /** A ufunc whose result keeps the inputs' dtype (no float result). */
  keepsDtype: boolean;
}

function libraryNameOf(q: string): LibraryName {
  const lib = firstPart(q);
  const numpy = lib === 'numpy' || lib === 'cupy';
  // the path's first and last names, and how many it has, without splitting it
  const path = numpy ? q.slice(lib.length + 1) : '';
  const dot = path.indexOf('.');
  const single = dot < 0;
  const name = lastPart(path);
  return {
    lib,
    last: lastPart(q),
    head: single ? path : path.slice(0, dot),
    name,
    single,
    twoNames: !single && path.indexOf('.', dot + 1) < 0,
    compare: /^(greater|less|equal|not_equal|isnan|isinf|isfinite|logical_|signbit)/.test(name),
    keepsDtype: /^(add|subtract|multiply|maximum|minimum|negative|positive|absolute|abs|fabs|sign|square)$/.test(name)
  };
}

/** The discrete Fourier transforms giving complex values (NumPy's and scipy.fft's names). */
const COMPLEX_FFTS = /^(fft|ifft|fft2|ifft2|fftn|ifftn|rfft|rfft2|rfftn|ihfft|ihfft2|ihfftn)$/;
/** Those giving real values from a Hermitian (half) spectrum. */
const REAL_FFTS = /^(irfft|irfft2|irfftn|hfft|hfft2|hfftn)$/;

/**
 * A transform's result (NumPy 2's numpy.fft and scipy.fft keep single precision): complex64 for
 * float32 or complex64 data, complex128 otherwise, the real ones float32 / float64 alike;
 * fftshift the data's dtype. Not known for data of unknown dtype. The shape where only the data
 * is passed: the real-input ones keep n // 2 + 1 values of the last axis, their inverses give
 * 2 (m - 1); with `n`, `s`, `axis` or `axes` not worked out.
 */
function fftValue(name: string, data: ValueInfo, positional: SyntaxNode[], keywords: ReadonlyMap<string, SyntaxNode>, library: string): ValueInfo {
  const d = data.dtype;
  const single = d === 'float32' || d === 'complex64';
  const complex = COMPLEX_FFTS.test(name);
  const real = REAL_FFTS.test(name);
  const dtype = d === undefined || (!complex && !real) ? d : complex ? (single ? 'complex64' : 'complex128') : single ? 'float32' : 'float64';
  const out = copyOf(data);
  out.dtype = dtype;
  out.library = library;
  out.device = library === 'cupy' ? 'gpu' : 'host';
  out.origin = 'inferred';
  // a 1-d transform along an axis written as an integer literal (`axis=1`: k_audio's frames) is
  // worked out like one along the last axis
  const axisText = keywords.get('axis')?.text;
  const axisLiteral = axisText !== undefined && /^-?\d+$/.test(axisText) && !/[2n]$/.test(name) ? Number(axisText) : undefined;
  const options = positional.length > 1 || ['n', 's', 'axes'].some(k => keywords.has(k)) || (axisText !== undefined && axisLiteral === undefined);
  const halves = /^(rfft|ihfft)/.test(name);
  const doubles = /^(irfft|hfft)/.test(name);
  const rank = data.shape?.length ?? 0;
  const axis = axisLiteral === undefined ? rank - 1 : axisLiteral < 0 ? rank + axisLiteral : axisLiteral;
  if ((halves || doubles) && data.shape && rank > 0 && axis >= 0 && axis < rank) {
    const shape = [...data.shape];
    const last = shape[axis];
    shape[axis] = options || last === null ? null : halves ? Math.floor(last / 2) + 1 : 2 * (last - 1);
    out.shape = shape;
    out.size = shapeSize(shape);
    out.approx = undefined;
  } else if (options && name !== 'fftshift' && name !== 'ifftshift') {
    out.shape = undefined;
    out.size = undefined;
  }
  return out;
}

/** What `numpy.<path>(...)` (or `cupy.<path>(...)`) returns. */
/**
 * The array `np.load(path)` reads when an earlier cell of the notebook wrote that file with
 * `np.save(path, x)` (the same string literal; np.save adds `.npy` to a path without it): x's
 * shape and dtype as that cell has it, a NumPy array. The last such save before the load wins; a
 * save in a function or a loop counts as well (it ran, or the file would not be there). Null when
 * no earlier cell saves it, or x is not an array of known shape. So a notebook that writes its data
 * and reads it back (the CLI has no kernel to ask) is sized as the panel would size it.
 */
function savedArray(pathNode: SyntaxNode, model: NotebookModel, cell: CellModel): ValueInfo | null {
  const plain = (n: SyntaxNode): string | null => /^[rRuU]?(['"])([^'"\\{}]*)\1$/.exec(unparen(n).text)?.[2] ?? null;
  const path = plain(pathNode);
  if (path === null || !path.endsWith('.npy')) {
    return null;
  }
  for (const earlier of model.cells.slice(0, cell.index).reverse()) {
    const root = earlier.tree?.rootNode;
    let found: ValueInfo | null | undefined;
    if (root) {
      walkTypes(root, ['call'], call => {
        const fn = field(call, 'function');
        const args = callArguments(call);
        const file = args.positional[0] ? plain(args.positional[0]) : null;
        const saved = file === null ? null : file.endsWith('.npy') ? file : `${file}.npy`;
        if (fn && saved === path && args.positional[1] && model.qualifiedName(fn) === 'numpy.save') {
          const v = model.inferValue(args.positional[1], earlier);
          found = v.kind === 'ndarray' && v.shape !== undefined && v.dtype !== undefined ? arrayValue([...v.shape], v.dtype, 'numpy', 'inferred') : null;
        }
        return true;
      });
    }
    if (found !== undefined) {
      return found;
    }
  }
  return null;
}

function numpyCallValue(
  parts: LibraryName,
  positional: SyntaxNode[],
  keywords: ReadonlyMap<string, SyntaxNode>,
  model: NotebookModel,
  cell: CellModel
): ValueInfo {
  const library = parts.lib;
  const single = parts.single;
  const head = parts.head;
  const name = parts.name;
  const twoNames = parts.twoNames;
  if (head === 'random' && twoNames) {
    if (name === 'default_rng' || name === 'RandomState' || name === 'Generator') {
      return { kind: 'rng', origin: 'literal', library };
    }
    return randomValue(name, positional, keywords, model, cell, library);
  }
  if (single && NUMPY_SCALAR_TYPES.has(name) && positional.length === 1 && keywords.size === 0) {
    // np.float32(0.2): a NumPy scalar of that type; np.float32(arr): the array converted
    const dtype = NUMPY_SCALAR_TYPES.get(name) as string;
    const arg = model.inferValue(positional[0], cell);
    if ((arg.kind === 'scalar' && (dtype.startsWith('complex') || !arg.dtype?.startsWith('complex'))) || arg.kind === 'string') {
      return { kind: 'scalar', dtype, origin: 'inferred', library: 'numpy' };
    }
    if (arg.kind === 'ndarray') {
      const out = copyOf(arg);
      out.dtype = dtype;
      out.origin = 'inferred';
      out.library = library;
      out.device = library === 'cupy' ? 'gpu' : 'host';
      return out;
    }
    return UNKNOWN;
  }
  if (single && ARRAY_CREATORS_SHAPE_ARG.has(name) && positional[0]) {
    const shape = shapeOf(positional[0], model, cell);
    const dtype = dtypeArg(keywords, positional[name === 'full' ? 2 : 1]) ?? 'float64';
    return arrayValue(shape, dtype, library);
  }
  if (single && (name === 'zeros_like' || name === 'ones_like' || name === 'empty_like' || name === 'full_like' || name === 'copy' || name === 'ascontiguousarray')) {
    const base = positional[0] ? model.inferValue(positional[0], cell) : UNKNOWN;
    if (base.kind === 'ndarray') {
      const out = copyOf(base);
      out.dtype = dtypeArg(keywords, undefined) ?? base.dtype;
      out.origin = 'inferred';
      out.library = library;
      out.device = library === 'cupy' ? 'gpu' : 'host';
      return out;
    }
    return arrayValue(undefined, dtypeArg(keywords, undefined), library, 'inferred');
  }
  if (single && (name === 'array' || name === 'asarray')) {
    const lit = positional[0] ? literalArray(positional[0]) : undefined;
    const dtype = dtypeArg(keywords, positional[1]);
    if (positional[0] && UNORDERED_COLLECTIONS.has(unparen(positional[0]).type)) {
      // a set or dict is no sequence to NumPy: `np.array({...})` is a 0-d object array holding
      // it (CuPy, with no object dtype, refuses it)
      return arrayValue([], dtype ?? 'object', library);
    }
    if (lit) {
      return arrayValue(lit.shape, dtype ?? lit.dtype, library);
    }
    const strings = positional[0] ? stringComprehension(positional[0], model, cell) : undefined;
    if (strings) {
      return arrayValue([strings.count ?? null], dtype ?? 'str', library, 'inferred');
    }
    const base = positional[0] ? model.inferValue(positional[0], cell) : UNKNOWN;
    if (base.kind === 'ndarray') {
      const out = copyOf(base);
      out.dtype = dtype ?? base.dtype;
      out.library = library;
      out.device = library === 'cupy' ? 'gpu' : 'host';
      out.origin = 'inferred';
      return out;
    }
    // a list of strings bound to a name (`labels = ["a", "b"]`): a unicode array, of a length
    // the list's later appends may change
    return arrayValue(undefined, dtype ?? (base.kind === 'sequence' ? base.dtype : undefined), library, 'inferred');
  }
  if (single && name === 'arange') {
    const nums = positional.map(p => model.constantValue(p, cell));
    let count: number | null = null;
    if (nums.length === 1 && nums[0] !== undefined) {
      count = Math.max(0, Math.ceil(nums[0]));
    } else if (nums.length >= 2 && nums[0] !== undefined && nums[1] !== undefined) {
      const step = nums.length >= 3 ? nums[2] : 1;
      count = step ? Math.max(0, Math.ceil((nums[1] - nums[0]) / step)) : null;
    }
    const isFloat = positional.some(p => model.inferValue(p, cell).dtype === 'float64');
    return arrayValue([count], dtypeArg(keywords, undefined) ?? (isFloat ? 'float64' : 'int64'), library);
  }
  if (single && (name === 'linspace' || name === 'logspace')) {
    const numNode = keywords.get('num') ?? positional[2];
    const num = numNode ? model.constantValue(numNode, cell) ?? null : 50;
    return arrayValue([num], dtypeArg(keywords, undefined) ?? 'float64', library);
  }
  if (single && /^(bartlett|blackman|hamming|hanning|kaiser)$/.test(name) && positional[0]) {
    // window functions: M float64 samples (none for M < 1), kaiser's beta a number; an unknown
    // value here left `win = np.outer(np.hanning(N), ...)` off the arrays the rewrite tracks,
    // though it became a CuPy array (a host function reading it got the device array)
    const m = model.constantValue(positional[0], cell);
    return arrayValue([m === undefined || !Number.isInteger(m) ? null : Math.max(0, m)], 'float64', library);
  }
  if (single && (name === 'eye' || name === 'identity')) {
    const nn = positional[0] ? model.constantValue(positional[0], cell) ?? null : null;
    const m = positional[1] && name === 'eye' ? model.constantValue(positional[1], cell) ?? null : nn;
    return arrayValue([nn, m], dtypeArg(keywords, undefined) ?? 'float64', library);
  }
  if (single && name === 'polyfit' && positional.length >= 2 && positional.length <= 4 && !keywords.has('full') && !keywords.has('cov')) {
    // the coefficients, highest power first: deg + 1 of them (a column of them per column of a
    // 2-d y), float64 as NumPy's least squares gives them (float32 for float32 x and y)
    const degNode = keywords.get('deg') ?? positional[2];
    const deg = degNode ? model.constantValue(degNode, cell) : undefined;
    const [x, y] = [model.inferValue(positional[0], cell), model.inferValue(positional[1], cell)];
    const rows = deg !== undefined && Number.isInteger(deg) && deg >= 0 ? deg + 1 : null;
    const dims = y?.kind === 'ndarray' ? y.shape?.length : undefined;
    const dtype = y?.dtype === 'complex128' || x?.dtype === 'complex128' ? 'complex128' : y?.dtype === 'float32' && x?.dtype === 'float32' ? 'float32' : 'float64';
    return arrayValue(dims === 1 ? [rows] : dims === 2 ? [rows, y!.shape![1]] : undefined, dtype, library, 'inferred');
  }
  if (single && (name === 'loadtxt' || name === 'fromfile' || name === 'genfromtxt')) {
    return arrayValue(undefined, dtypeArg(keywords, undefined) ?? 'float64', 'numpy', 'inferred');
  }
  if (single && name === 'load') {
    // the dtype the file was saved with (float32 images, int16 samples...): not known here,
    // unless an earlier cell of the notebook saved it (`savedArray`)
    return (positional[0] && savedArray(positional[0], model, cell)) ?? arrayValue(undefined, undefined, 'numpy', 'inferred');
  }
  const args = positional.map(p => model.inferValue(p, cell));
  const tuple = numpyTupleValue(parts, positional, keywords, args, model, cell);
  if (tuple) {
    return tuple;
  }
  if (single && JOINS.has(name) && positional[0] && (positional[0].type === 'list' || positional[0].type === 'tuple')) {
    // NumPy makes an array of each item: a list of numbers too (`np.concatenate(([0.0], c))`)
    const items = kids(positional[0]).map(item => {
      const lit = literalArray(item);
      return lit ? arrayValue(lit.shape, lit.dtype, 'numpy', 'inferred') : model.inferValue(item, cell);
    });
    return joinedValue(name, items, keywords.get('axis') ?? positional[1], library, model, cell);
  }
  if (single && JOINS.has(name) && positional[0]?.type === 'list_comprehension') {
    const made = comprehensionItems(positional[0], model, cell);
    if (!made) {
      return UNKNOWN;
    }
    const axis = keywords.get('axis') ?? positional[1];
    if (made.count !== undefined) {
      // an item whose size is an upper bound (a SciPy result shaped like its input) keeps it one
      const joined = joinedValue(name, Array.from({ length: made.count }, () => made.item), axis, library, model, cell);
      return made.item.approx && joined.kind === 'ndarray' ? { ...joined, approx: true } : joined;
    }
    // a count the analysis does not know: NumPy's `np.stack` shape is (n, *item) all the same
    const stacked = name === 'stack' && !axis && made.item.shape ? [null, ...made.item.shape] : undefined;
    return { kind: 'ndarray', shape: stacked, dtype: made.item.dtype, origin: 'inferred', library, device: library === 'cupy' ? 'gpu' : 'host', approx: true };
  }
  if (single && (name === 'cov' || name === 'corrcoef') && args[0]) {
    const y = keywords.get('y') ?? positional[1];
    return covarianceValue(name, args[0], y && y.type !== 'none' ? model.inferValue(y, cell) : undefined, keywords.get('rowvar') ?? positional[2], dtypeArg(keywords, undefined), library);
  }
  if (single && QUANTILES.has(name) && args[0]?.kind === 'ndarray') {
    return quantileValue(name, args[0], positional, keywords, library, model, cell);
  }
  if (single && name === 'diag' && positional[0]) {
    // of an array, or of a list of number literals (`np.diag([1.0, 2.0])`: NumPy makes it an
    // array first; a name among the items could be of any type)
    const lit = numberLiterals(positional[0]) ? literalArray(positional[0]) : undefined;
    const of = lit ? arrayValue(lit.shape, lit.dtype, library, 'inferred') : args[0];
    if (of.kind === 'ndarray') {
      return diagValue(of, keywords.get('k') ?? positional[1], library, model, cell);
    }
  }
  if (single && (name === 'tile' || name === 'repeat' || name === 'broadcast_to') && args[0]?.kind === 'ndarray') {
    return repeatedValue(name, args[0], positional, keywords, library, model, cell);
  }
  if (single && name === 'bincount' && args[0]) {
    // one count (or sum of weights) per value 0..max(x): a length the data decides (at least
    // `minlength`); int64 counts, float64 sums of weights whatever their dtype (NumPy 2.4)
    const weights = keywords.get('weights') ?? positional[1];
    return arrayValue([null], weights && weights.type !== 'none' ? 'float64' : 'int64', library, 'inferred');
  }
  if (single && name === 'indices' && positional[0] && !keywords.has('sparse')) {
    // a grid of each axis' positions stacked: (len(dimensions), *dimensions), int64 by default
    const dims = shapeOf(positional[0], model, cell);
    return arrayValue(dims ? [dims.length, ...dims] : undefined, dtypeArg(keywords, positional[1]) ?? 'int64', library, 'inferred');
  }
  if (single && name === 'diff' && args[0]?.kind === 'ndarray') {
    return diffValue(args[0], keywords.get('n') ?? positional[1], keywords.get('axis') ?? positional[2], keywords, library, model, cell);
  }
  if (single && (name === 'dot' || name === 'matmul') && args.length >= 2) {
    return matmulValue(args[0], args[1], name === 'dot');
  }
  if (single && (name === 'real' || name === 'imag') && args[0]?.kind === 'ndarray') {
    // the real or imaginary part, in the matching real dtype (of a real array: itself, or zeros)
    const out = copyOf(args[0]);
    out.dtype = realOf(args[0].dtype);
    out.library = library;
    out.origin = 'inferred';
    return out;
  }
  if (single && name === 'einsum' && positional.length >= 2) {
    return einsumValue(positional[0], args.slice(1), library);
  }
  if (single && name === 'argsort' && args[0]?.kind === 'ndarray') {
    return argsortValue(args[0], keywords.get('axis') ?? positional[1], library);
  }
  if (single && (name === 'allclose' || name === 'array_equal' || name === 'array_equiv')) {
    // NumPy returns a Python bool, CuPy a 0-d bool array: modelled as the 0-d result the rewrite
    // has on the device (and brings back with `.item()`, rules/arrays/cupy-rewrite.ts)
    return zeroD('bool', library);
  }
  if (single && (name === 'round' || name === 'around') && args[0] && !keywords.has('out')) {
    return roundedValue(args[0], library);
  }
  if (single && ELEMENTWISE_UFUNCS.has(name) && args.length > 0 && args.every(a => a.kind === 'scalar')) {
    // a ufunc of numbers: NumPy gives a NumPy scalar (strong under NEP 50: `np.exp(2.0) * f32` is
    // float64), CuPy a 0-d device array
    const dtype = parts.compare ? 'bool' : scalarsDtype(args);
    if (dtype === undefined) {
      return UNKNOWN;
    }
    const result = parts.keepsDtype || parts.compare || name === 'where' || name === 'clip' ? dtype : floatResult(dtype);
    return library === 'cupy' ? zeroD(result, library) : { kind: 'scalar', dtype: result, origin: 'inferred', library: 'numpy' };
  }
  if (single && ELEMENTWISE_UFUNCS.has(name)) {
    const isCompare = parts.compare;
    const out = broadcastValues(args, isCompare ? 'bool' : undefined);
    if (out.kind === 'ndarray' && !isCompare && name !== 'where' && name !== 'clip' && !parts.keepsDtype) {
      const float = copyOf(out);
      float.dtype = floatResult(out.dtype);
      float.library = library;
      return float;
    }
    if (out.kind === 'ndarray') {
      const same = copyOf(out);
      same.library = library;
      // the magnitude of complex values is real: |complex64| is float32 (k_audio's power spectrum)
      if ((name === 'abs' || name === 'absolute') && (out.dtype === 'complex64' || out.dtype === 'complex128')) {
        same.dtype = out.dtype === 'complex64' ? 'float32' : 'float64';
      }
      return same;
    }
    return out;
  }
  if (single && (REDUCTIONS.has(name) || name === 'nancumsum' || name === 'nancumprod')) {
    const base = args[0];
    if (base?.kind === 'ndarray') {
      return reductionValue(name, base, keywords.get('axis') ?? positional[1], keywords, reductionDtype(name, base.dtype), library, model, cell);
    }
  }
  if (twoNames && ELEMENTWISE_UFUNCS.has(head) && (name === 'reduce' || name === 'accumulate') && args[0]?.kind === 'ndarray') {
    return ufuncReductionValue(head, name, args[0], keywords.get('axis') ?? positional[1], keywords, library, model, cell);
  }
  if (single && name === 'outer' && args.length === 2 && args.every(a => a.kind === 'ndarray')) {
    // every element of the flattened a against every one of the flattened b
    const length = (v: ValueInfo): number | null => (v.approx || v.size === undefined ? null : v.size);
    return arrayValue([length(args[0]), length(args[1])], args[0].dtype && args[1].dtype ? promoteTypes(args[0].dtype, args[1].dtype) : undefined, library, 'inferred');
  }
  if (single && name === 'vander' && args[0]?.kind === 'ndarray' && (args[0].shape === undefined || args[0].shape.length === 1)) {
    // the powers of each element of the 1-D x: (len(x), N), N = len(x) where not given; in x's
    // dtype promoted with int (NumPy 2.4: float32 data gives float64, bool and ints int64)
    const nNode = keywords.get('N') ?? positional[1];
    const len = args[0].approx || args[0].size === undefined ? null : args[0].size;
    const n = nNode && nNode.type !== 'none' ? model.constantValue(nNode, cell) : len ?? undefined;
    const dtype = args[0].dtype ? promoteTypes(args[0].dtype, 'int64') : undefined;
    return arrayValue([len, n !== undefined && Number.isInteger(n) && n >= 0 ? n : null], dtype, library, 'inferred');
  }
  if (twoNames && head === 'fft' && (name === 'fftfreq' || name === 'rfftfreq')) {
    // the sample frequencies of an n-point transform: n of them, or n // 2 + 1 (real input)
    const nNode = keywords.get('n') ?? positional[0];
    const n = nNode ? model.constantValue(nNode, cell) : undefined;
    const count = n === undefined || !Number.isInteger(n) ? null : name === 'fftfreq' ? n : Math.floor(n / 2) + 1;
    return arrayValue([count], 'float64', library, 'inferred');
  }
  if (head === 'fft' && args[0]?.kind === 'ndarray') {
    return fftValue(name, args[0], positional, keywords, library);
  }
  if (head === 'linalg' && returnsTuple(name, positional, keywords, false)) {
    return UNKNOWN; // a tuple whose items the analysis does not know (not an array)
  }
  if (head === 'linalg' && name === 'solve' && twoNames) {
    return solveValue(args[0], args[1], library);
  }
  if (head === 'linalg' && args[0]?.kind === 'ndarray') {
    if (name === 'norm') {
      // a vector norm over an axis, a matrix norm over two, or the whole array's
      return reductionValue(name, args[0], keywords.get('axis') ?? positional[2], keywords, floatResult(args[0].dtype), library, model, cell);
    }
    if (name === 'det' || name === 'matrix_rank' || name === 'slogdet') {
      const hasAxis = keywords.has('axis') || positional.length > 2;
      return hasAxis
        ? { kind: 'ndarray', dtype: floatResult(args[0].dtype), origin: 'inferred', library, approx: true }
        : { kind: 'ndarray', shape: [], size: 1, dtype: floatResult(args[0].dtype), origin: 'inferred', library };
    }
    const out = copyOf(args[0]);
    out.dtype = floatResult(args[0].dtype);
    out.library = library;
    out.origin = 'inferred';
    return out;
  }
  if (single && name === 'sort' && positional.length <= 2 && args[0]?.kind === 'ndarray') {
    // the same elements in order along an axis (the last by default): the input's shape and
    // dtype; with axis=None, flattened
    const axisNode = keywords.get('axis') ?? positional[1];
    const out = copyOf(args[0]);
    out.library = library;
    out.origin = 'inferred';
    out.device = library === 'cupy' ? 'gpu' : 'host';
    if (axisNode?.type === 'none') {
      out.shape = args[0].approx || args[0].size === undefined ? [null] : [args[0].size];
    }
    return out;
  }
  if (single && (name === 'flatnonzero' || name === 'argwhere') && positional.length === 1 && args[0]?.kind === 'ndarray') {
    // the positions of the non-zero elements, int64 (intp) whatever the input's dtype: flat
    // indices, or a row of indices per element (a column per axis); as many as the data decide,
    // at most the input's size (a selection, as np.nonzero's positions are)
    const of = args[0];
    const rank = of.shape?.length;
    const shape = name === 'flatnonzero' ? [null] : rank !== undefined ? [null, rank] : undefined;
    const out = arrayValue(shape, 'int64', library, 'inferred');
    out.size = name === 'flatnonzero' ? of.size : of.size !== undefined && rank !== undefined ? of.size * rank : undefined;
    out.approx = true;
    out.selection = true;
    return out;
  }
  const firstArray = args.find(a => a.kind === 'ndarray');
  if (single && name === 'append' && firstArray && positional.length === 2 && !keywords.has('axis')) {
    // without an axis both are flattened and joined: one axis of both sizes (a number counts
    // one); the dtype as the rule below gives it (the first array's)
    const sizes = args.map(a => (a.kind === 'ndarray' && !a.approx ? a.size : a.kind === 'scalar' ? 1 : undefined));
    if (sizes.every(k => k !== undefined)) {
      const total = (sizes as number[]).reduce((x, y) => x + y, 0);
      const out: ValueInfo = { ...copyOf(firstArray), shape: [total], size: total, library, origin: 'inferred', device: library === 'cupy' ? 'gpu' : 'host' };
      delete out.approx;
      return out;
    }
  }
  if (firstArray) {
    // other array functions: an array of roughly the input's size
    const out = copyOf(firstArray);
    out.library = library;
    out.origin = 'inferred';
    out.approx = true;
    out.shape = undefined;
    return out;
  }
  return UNKNOWN;
}

/**
 * `np.cov(m, y, rowvar)`, `np.corrcoef(m, y, rowvar)`: a (k, k) matrix over the k variables of m
 * and y together. A 1-D array is one variable; a 2-D one has one per row, or per column with
 * `rowvar=False` (NumPy keeps a single row as one variable: CuPy transposes it, so that case is
 * left unknown). NumPy squeezes the result: one variable gives a 0-d array from `cov`, and from
 * `corrcoef` (which divides that by itself) a NumPy scalar (`np.float64(1.0)`; CuPy's is a 0-d
 * array). float64 whatever the data (float32 and integers included; complex128 for complex data)
 * unless `dtype=` is given (NumPy 2.4.6, run here).
 */
function covarianceValue(
  name: 'cov' | 'corrcoef',
  m: ValueInfo,
  y: ValueInfo | undefined,
  rowvarNode: SyntaxNode | undefined,
  dtype: string | undefined,
  library: string
): ValueInfo {
  const data = [m, ...(y ? [y] : [])];
  if (!data.every(v => v.kind === 'ndarray')) {
    return UNKNOWN;
  }
  const complex = data.some(v => v.dtype?.startsWith('complex'));
  const out = arrayValue(undefined, dtype ?? (complex ? 'complex128' : 'float64'), library, 'inferred');
  const rowvar = rowvarNode === undefined || rowvarNode.text === 'True' || rowvarNode.text === '1' ? true : rowvarNode.text === 'False' || rowvarNode.text === '0' ? false : undefined;
  // the variables of one array (null: not known)
  const variables = (v: ValueInfo): number | null => {
    const shape = v.shape;
    if (shape?.length === 1) {
      return 1;
    }
    if (shape?.length !== 2 || rowvar === undefined) {
      return null;
    }
    return rowvar ? shape[0] : shape[0] === null || shape[0] === 1 ? null : shape[1];
  };
  let k: number | null = 0;
  for (const v of data) {
    const n = variables(v);
    k = k === null || n === null ? null : k + n;
  }
  if (k === 1 && name === 'corrcoef' && library !== 'cupy') {
    return { kind: 'scalar', dtype: out.dtype, origin: 'inferred', library: 'numpy' };
  }
  if (k !== null) {
    // (a count not known leaves the rank unknown too: one variable would give a 0-d array)
    out.shape = k === 1 ? [] : [k, k];
    out.size = shapeSize(out.shape);
  }
  return out;
}

/**
 * `np.diff(a, n, axis, prepend, append)`: `a`'s shape less n along the axis (the last by default;
 * none left past its length), a prepended or appended number adding one there; `a`'s dtype (bool
 * stays bool), promoted with what is prepended or appended (NumPy makes an array of it: a Python
 * int is int64). Shape not worked out where an argument is not known.
 */
function diffValue(
  a: ValueInfo,
  nNode: SyntaxNode | undefined,
  axisNode: SyntaxNode | undefined,
  keywords: ReadonlyMap<string, SyntaxNode>,
  library: string,
  model: NotebookModel,
  cell: CellModel
): ValueInfo {
  const out = copyOf(a);
  out.library = library;
  out.device = library === 'cupy' ? 'gpu' : 'host';
  out.origin = 'inferred';
  const n = nNode ? model.constantValue(nNode, cell) : 1;
  const axis = axisNode ? model.constantValue(axisNode, cell) : -1;
  let dtype = a.dtype;
  let extra: number | undefined = 0;
  for (const key of ['prepend', 'append']) {
    const node = keywords.get(key);
    if (!node || node.type === 'none') {
      continue;
    }
    const v = model.inferValue(node, cell);
    const t = scalarType(v);
    // (a Python number's type names the dtype NumPy gives it: int is int64)
    const d = t ? (t.strong ? t.dtype : normaliseDtype(t.python)) : v.kind === 'ndarray' ? v.dtype : undefined;
    dtype = dtype && d ? promoteTypes(dtype, d) : undefined;
    extra = t && extra !== undefined ? extra + 1 : undefined; // an array along the axis: not worked out
  }
  out.dtype = dtype;
  const shape = a.shape;
  const at = shape && axis !== undefined && Number.isInteger(axis) ? (axis < 0 ? axis + shape.length : axis) : -1;
  if (!shape || at < 0 || at >= shape.length || n === undefined || !Number.isInteger(n) || n < 0 || extra === undefined) {
    out.shape = undefined;
    out.approx = true;
    return out;
  }
  const length = shape[at];
  out.shape = shape.map((d, k) => (k !== at ? d : length === null ? null : Math.max(0, length + extra - n)));
  out.size = shapeSize(out.shape);
  return out;
}

/**
 * A reduction or a scan of `base` (`np.sum(x, axis=1)`, `x.mean()`, `x.cumsum()`), of `dtype`.
 * A reduction's shape is `base`'s reduced over `axis` (every axis when there is none: 0-d, the
 * NumPy scalar modelled as CuPy returns it), the reduced axes kept as 1 with `keepdims=True`. A
 * scan (cumsum, cumprod) keeps `base`'s shape along an axis and flattens it without one
 * (`x.cumsum()` of a 2-D array is 1-D, of the same size). A reduction's shape is unknown where
 * the axis, `keepdims` or `base`'s shape is (its size too: at most `base`'s).
 */
function reductionValue(
  name: string,
  base: ValueInfo,
  axisNode: SyntaxNode | undefined,
  keywords: ReadonlyMap<string, SyntaxNode>,
  dtype: string | undefined,
  library: string | undefined,
  model: NotebookModel,
  cell: CellModel
): ValueInfo {
  if (/^(nan)?cum/.test(name)) {
    const out = copyOf(base);
    out.dtype = dtype;
    out.library = library;
    out.origin = 'inferred';
    if (!axisNode || axisNode.type === 'none') {
      // (a bounded selection flattens to one axis of a length not known, as `ravel` does)
      out.shape = base.approx && base.shape ? [null] : base.size !== undefined ? [base.size] : undefined;
    }
    return out;
  }
  const keepdims = keywords.get('keepdims');
  const keep = keepdims === undefined || keepdims.text === 'False' ? false : keepdims.text === 'True' ? true : undefined;
  const shape = keep === undefined ? undefined : reducedShape(base.shape, axisNode, keep, model, cell);
  const out: ValueInfo = shape ? { kind: 'ndarray', shape, size: shapeSize(shape), dtype, origin: 'inferred', library } : { kind: 'ndarray', dtype, origin: 'inferred', library, approx: true };
  if (base.selection && axisNode !== undefined && axisNode.type !== 'none' && (shape === undefined || shape.includes(null))) {
    // along an axis of a selection (`env[rows[:, None], cols].max(axis=1)`): one value per
    // selected row, as many as the data decide
    out.approx = true;
    out.selection = true;
  }
  return out;
}

/**
 * `np.<ufunc>.reduce(a, axis)` and `.accumulate(a, axis)`: the reduction over `axis` (the first by
 * default; None for every axis) or the scan along it (`a`'s shape). add and multiply sum and
 * multiply bools and small integers in int64 (as `np.sum` does), the logical ufuncs give bool, the
 * others keep `a`'s dtype (NumPy 2.4.6).
 */
function ufuncReductionValue(
  ufunc: string,
  method: 'reduce' | 'accumulate',
  base: ValueInfo,
  axisNode: SyntaxNode | undefined,
  keywords: ReadonlyMap<string, SyntaxNode>,
  library: string,
  model: NotebookModel,
  cell: CellModel
): ValueInfo {
  const d = base.dtype;
  const dtype = ufunc === 'add' || ufunc === 'multiply' ? reductionDtype('sum', d) : ufunc.startsWith('logical_') ? 'bool' : d;
  if (method === 'accumulate') {
    const out = copyOf(base);
    out.dtype = dtype;
    out.library = library;
    out.origin = 'inferred';
    return out;
  }
  if (axisNode === undefined) {
    const keepdims = keywords.get('keepdims');
    const keep = keepdims === undefined || keepdims.text === 'False' ? false : keepdims.text === 'True' ? true : undefined;
    const shape = base.shape && base.shape.length > 0 && keep !== undefined ? (keep ? [1, ...base.shape.slice(1)] : base.shape.slice(1)) : undefined;
    return shape
      ? { kind: 'ndarray', shape, size: shapeSize(shape), dtype, origin: 'inferred', library }
      : { kind: 'ndarray', dtype, origin: 'inferred', library, approx: true };
  }
  return reductionValue('reduce', base, axisNode, keywords, dtype, library, model, cell);
}

/** NumPy's order statistics: a reduction, over `axis` (all by default), for each of the q asked. */
const QUANTILES = new Set(['percentile', 'quantile', 'nanpercentile', 'nanquantile', 'median', 'nanmedian']);

/**
 * `np.percentile(a, q, axis, keepdims=)` and `quantile`, `median` (no q), their nan- forms: q's
 * shape (none for one number) then `a`'s reduced over the axis: a single q and no axis gives a
 * NumPy scalar (modelled 0-d, as CuPy returns it). The dtype (NumPy 2.4.6, run here): float16,
 * float32 and float64 data keep theirs, integers and bools give float64, then a q array (a list
 * too) or NumPy scalar promotes with it (float32 data with `[5, 95]` gives float64); a Python
 * number q does not. Shape unknown where the axis, keepdims or q's shape is not known.
 */
function quantileValue(
  name: string,
  a: ValueInfo,
  positional: SyntaxNode[],
  keywords: ReadonlyMap<string, SyntaxNode>,
  library: string,
  model: NotebookModel,
  cell: CellModel
): ValueInfo {
  const median = name.endsWith('median');
  const axisNode = keywords.get('axis') ?? positional[median ? 1 : 2];
  let dtype: string | undefined = a.dtype === undefined || a.dtype.startsWith('complex') ? undefined : /^float(16|32|64)$/.test(a.dtype) ? a.dtype : 'float64';
  let qShape: (number | null)[] | undefined = [];
  if (!median) {
    const qNode = keywords.get('q') ?? positional[1];
    const lit = qNode ? literalArray(qNode) : undefined;
    const q = lit ? arrayValue(lit.shape, lit.dtype, 'numpy', 'inferred') : qNode ? model.inferValue(qNode, cell) : UNKNOWN;
    const t = scalarType(q);
    if (q.kind === 'ndarray' || t?.strong) {
      qShape = q.shape ?? (t ? [] : undefined);
      dtype = dtype && q.dtype ? promoteTypes(dtype, q.dtype) : undefined;
    } else if (!t) {
      qShape = undefined; // q not known: neither its shape nor its dtype's part
      dtype = undefined;
    }
  }
  const method = keywords.get('method') ?? keywords.get('interpolation');
  if ((method && !/^['"]linear['"]$/.test(method.text)) || keywords.has('out')) {
    dtype = undefined; // the discontinuous methods keep integer data's dtype, or give float32: not modelled
  }
  const keepdims = keywords.get('keepdims');
  const keep = keepdims === undefined || keepdims.text === 'False' ? false : keepdims.text === 'True' ? true : undefined;
  const reduced = keep === undefined ? undefined : reducedShape(a.shape, axisNode, keep, model, cell);
  const out = arrayValue(qShape && reduced ? [...qShape, ...reduced] : undefined, dtype, library, 'inferred');
  return out;
}

/**
 * A reduction's shape over `axis` (an integer or a tuple of them; None or absent: every axis),
 * the reduced axes kept as 1 with `keepdims`. Undefined where the axis or the shape it needs is
 * not known, or an axis is out of range.
 */
function reducedShape(shape: (number | null)[] | undefined, axisNode: SyntaxNode | undefined, keepdims: boolean, model: NotebookModel, cell: CellModel): (number | null)[] | undefined {
  if (!axisNode || axisNode.type === 'none') {
    return keepdims ? shape?.map(() => 1) : [];
  }
  const n = unparen(axisNode);
  const axes = (n.type === 'tuple' ? kids(n) : [n]).map(k => model.constantValue(k, cell));
  if (!shape) {
    return undefined;
  }
  const rank = shape.length;
  const at = new Set<number>();
  for (const x of axes) {
    if (x === undefined || !Number.isInteger(x) || x >= rank || x < -rank) {
      return undefined;
    }
    at.add(x < 0 ? x + rank : x);
  }
  return keepdims ? shape.map((d, k) => (at.has(k) ? 1 : d)) : shape.filter((_, k) => !at.has(k));
}

/**
 * `np.diag(v, k)`: a 1-D v of n values makes the (n + |k|, n + |k|) matrix with them on diagonal
 * k; a 2-D (m, n) v gives its diagonal k, min(m, n - k) values (min(m + k, n) below the main
 * one; none past the corner). v's dtype. Sizes unknown where k or v's shape is not known.
 */
function diagValue(v: ValueInfo, kNode: SyntaxNode | undefined, library: string, model: NotebookModel, cell: CellModel): ValueInfo {
  const k = kNode ? model.constantValue(kNode, cell) : 0;
  const known = k !== undefined && Number.isInteger(k);
  const dtype = v.dtype;
  let out: ValueInfo;
  if (v.shape?.length === 1) {
    const n = v.shape[0];
    const m = n === null || !known ? null : n + Math.abs(k);
    out = arrayValue([m, m], dtype, library, 'inferred');
  } else if (v.shape?.length === 2) {
    const [rows, cols] = v.shape;
    const count = rows === null || cols === null || !known ? null : Math.max(0, k >= 0 ? Math.min(rows, cols - k) : Math.min(rows + k, cols));
    out = arrayValue([count], dtype, library, 'inferred');
  } else if (v.shape === undefined) {
    out = arrayValue(undefined, dtype, library, 'inferred');
  } else {
    return UNKNOWN; // ValueError: only 1-D and 2-D input
  }
  out.dtype = v.dtype;
  return out;
}

/**
 * `np.linalg.solve(a, b)`: shaped like b (NumPy 2 takes a 1-D b as one vector: (..., M) for a
 * stack of matrices; an n-D b stacked with a: modelled for a 2-D a only). Computed in float32
 * where a and b promote to float32 (complex64 likewise), else float64 / complex128: integer,
 * bool and float16 data give float64 (NumPy 2.4.6, run here).
 */
function solveValue(a: ValueInfo | undefined, b: ValueInfo | undefined, library: string): ValueInfo {
  if (a?.kind !== 'ndarray') {
    return UNKNOWN;
  }
  const promoted = a.dtype && b?.kind === 'ndarray' && b.dtype ? promoteTypes(a.dtype, b.dtype) : undefined;
  const dtype = promoted ? floatResult(promoted) : undefined;
  let shape: (number | null)[] | undefined;
  if (b?.kind === 'ndarray' && b.shape?.length === 1 && a.shape && a.shape.length >= 2) {
    shape = [...a.shape.slice(0, -2), b.shape[0] ?? a.shape[a.shape.length - 2]];
  } else if (b?.kind === 'ndarray' && b.shape && b.shape.length >= 2 && b.shape.length === a.shape?.length) {
    // one matrix, or a stack of right-hand sides for a stack of the same length
    shape = b.shape;
  }
  return arrayValue(shape, dtype, library, 'inferred');
}

/**
 * `np.einsum(subscripts, *operands)` with a literal subscripts string (no ellipsis) and operands
 * of known rank, one subscript letter per axis: the output letters' lengths (explicit after
 * `->`, else the letters used once, sorted, as NumPy does; a length of 1 broadcasts against the
 * others, null where none is known) in the operands' promoted dtype. Unknown otherwise.
 */
function einsumValue(subscripts: SyntaxNode, operands: ValueInfo[], library: string): ValueInfo {
  const m = /^[rRuU]?(['"])([a-zA-Z,\->\s]*)\1$/.exec(unparen(subscripts).text);
  const [lhs, rhs] = m ? m[2].replace(/\s+/g, '').split('->') : [];
  const inputs = lhs !== undefined ? lhs.split(',') : [];
  if (inputs.length !== operands.length || operands.some((o, k) => o.kind !== 'ndarray' || o.shape?.length !== inputs[k].length)) {
    return UNKNOWN;
  }
  const length = new Map<string, number | null>();
  inputs.forEach((letters, k) =>
    [...letters].forEach((l, d) => {
      const n = operands[k].shape?.[d] ?? null;
      const had = length.get(l);
      length.set(l, had === undefined ? n : had === null || n === null ? (had ?? n) : Math.max(had, n));
    })
  );
  const all = inputs.join('');
  const output = rhs ?? [...length.keys()].filter(l => all.split(l).length === 2).sort().join('');
  if ([...output].some(l => !length.has(l))) {
    return UNKNOWN;
  }
  let dtype = operands[0].dtype;
  for (const o of operands.slice(1)) {
    dtype = dtype && o.dtype ? promoteTypes(dtype, o.dtype) : undefined;
  }
  return arrayValue([...output].map(l => length.get(l) ?? null), dtype, library, 'inferred');
}

/**
 * Whether `linalg.<name>(...)` returns a tuple (NumPy's, or SciPy's with `scipy`): the
 * factorisations and `lstsq`, unless an option may ask for one array (`compute_uv=False`,
 * NumPy's `mode='r'`, SciPy's `eigvals_only=True`, `left`/`right`).
 */
function returnsTuple(name: string, positional: SyntaxNode[], keywords: ReadonlyMap<string, SyntaxNode>, scipy: boolean): boolean {
  switch (name) {
    case 'eigh':
      return !scipy || !keywords.has('eigvals_only');
    case 'eig':
      return !scipy || (!keywords.has('right') && !keywords.has('left'));
    case 'svd': {
      const uv = keywords.get('compute_uv') ?? positional[2];
      return !uv || uv.text === 'True';
    }
    case 'qr': {
      const mode = keywords.get('mode') ?? (scipy ? undefined : positional[1]);
      return scipy || mode?.text.replace(/['"]/g, '') !== 'r';
    }
    case 'slogdet':
    case 'lstsq':
    case 'lu_factor':
      return true;
    default:
      return false;
  }
}

/**
 * `np.argsort(a)`, `a.argsort()`: positions in `a` (NumPy's intp, int64 here), shaped like `a`,
 * flattened by `axis=None`. An integer array, which aliases.ts tells apart from an integer index.
 */
function argsortValue(a: ValueInfo, axis: SyntaxNode | undefined, library: string | undefined): ValueInfo {
  const out = copyOf(a);
  out.dtype = 'int64';
  out.library = library;
  out.origin = 'inferred';
  if (axis?.type === 'none') {
    out.shape = [a.size ?? null];
  }
  return out;
}

/** What a random draw returns (legacy `np.random.rand` or a Generator's methods). */
function randomValue(
  name: string,
  positional: SyntaxNode[],
  keywords: ReadonlyMap<string, SyntaxNode>,
  model: NotebookModel,
  cell: CellModel,
  library: string
): ValueInfo {
  const dtype = dtypeArg(keywords, undefined) ?? (INT_RANDOM.has(name) ? 'int64' : 'float64');
  if (RANDOM_VARIADIC.has(name)) {
    const shape = positional.map(p => model.constantValue(p, cell) ?? null);
    return arrayValue(shape.length ? shape : [], dtype, library);
  }
  const sizeAt = RANDOM_SIZE_LAST.get(name);
  if (sizeAt !== undefined) {
    const sizeNode = keywords.get('size') ?? positional[sizeAt];
    if (!sizeNode || sizeNode.type === 'none') {
      // no size: one draw per element of the parameters broadcast together (a scalar where all
      // are scalars); a list or other array-like parameter gives an array of a shape not known here
      const params = RANDOM_PARAMETERS.get(name) ?? [];
      const values: ValueInfo[] = [];
      let arrayLike = false;
      for (let k = 0; k < params.length; k++) {
        const node = keywords.get(params[k]) ?? positional[k];
        if (!node) {
          continue;
        }
        const v = model.inferValue(node, cell);
        values.push(v);
        arrayLike ||= v.kind === 'sequence';
      }
      if (values.some(v => v.kind === 'ndarray')) {
        return arrayValue(arrayLike ? undefined : broadcastShape(values), dtype, library, 'inferred');
      }
      if (arrayLike) {
        return arrayValue(undefined, dtype, library, 'inferred');
      }
      return { kind: 'scalar', dtype, origin: 'inferred' };
    }
    return arrayValue(shapeOf(sizeNode, model, cell), dtype, library);
  }
  if (name === 'choice' || name === 'permutation') {
    // from an int n: int64 positions; from an array: its items, of its dtype. `choice` draws
    // `size` of them (along the first axis), `permutation` all n (NumPy 2.4.6)
    const from = positional[0] ? model.inferValue(positional[0], cell) : UNKNOWN;
    const t = scalarType(from);
    const count = t && (t.strong ? /^u?int/.test(t.dtype) : t.python === 'int');
    const items = from.kind === 'ndarray' ? from.dtype : count ? 'int64' : undefined;
    const sizeNode = name === 'choice' ? keywords.get('size') ?? positional[1] : undefined;
    const drawn = sizeNode && sizeNode.type !== 'none' ? shapeOf(sizeNode, model, cell) : name === 'permutation' && count ? [from.value ?? null] : undefined;
    const rows = from.kind !== 'ndarray' ? [] : keywords.has('axis') ? undefined : from.shape?.slice(1);
    const shape = drawn && rows ? [...drawn, ...rows] : name === 'permutation' && from.kind === 'ndarray' ? from.shape : undefined;
    return arrayValue(shape, items ?? dtype, library, 'inferred');
  }
  return UNKNOWN;
}

/** What `arr.method(...)` returns. */
function arrayMethodValue(
  v: ValueInfo,
  method: string,
  positional: SyntaxNode[],
  keywords: ReadonlyMap<string, SyntaxNode>,
  model: NotebookModel,
  cell: CellModel
): ValueInfo {
  if (method === 'astype' && positional[0]) {
    const out = copyOf(v);
    out.dtype = dtypeArg(keywords, positional[0]) ?? v.dtype;
    out.origin = 'inferred';
    return out;
  }
  if (method === 'reshape') {
    const given = positional.length === 1 ? shapeOf(positional[0], model, cell) : positional.map(p => model.constantValue(p, cell) ?? null);
    const out = copyOf(v);
    // the same elements in a new shape: a size the shape gives where the array's is not known
    // (np.load(...).reshape(n, m)); one -1 is what the other dimensions leave of a known size
    const size = v.approx ? undefined : v.size;
    const rest = given ? shapeSize(given.map(d => (d === -1 ? 1 : d))) : undefined;
    const inferred = size !== undefined && rest && given?.filter(d => d === -1).length === 1 ? size / rest : null;
    out.shape = given?.map(d => (d === -1 ? inferred : d));
    const exact = out.shape ? shapeSize(out.shape) : undefined;
    out.size = size ?? exact ?? v.size;
    if (exact !== undefined) {
      out.approx = undefined;
    }
    out.origin = 'inferred';
    return out;
  }
  if (method === 'copy' || method === 'clip' || method === 'round' || method === 'conj') {
    const out = copyOf(v);
    out.origin = 'inferred';
    return out;
  }
  if (method === 'transpose' && v.shape && keywords.size === 0) {
    // no axes: reversed; axes given one by one or as a tuple of constants: in that order
    const rank = v.shape.length;
    const listed = positional.length === 1 && unparen(positional[0]).type === 'tuple' ? kids(unparen(positional[0])) : positional;
    const order = listed.length === 0 ? v.shape.map((_, k) => rank - 1 - k) : listed.map(a => model.constantValue(a, cell));
    if (order.length === rank && order.every(k => k !== undefined && Number.isInteger(k) && k >= -rank && k < rank)) {
      const out = copyOf(v);
      out.shape = order.map(k => (v.shape as (number | null)[])[((k as number) + rank) % rank]);
      out.origin = 'inferred';
      return out;
    }
  }
  if (method === 'ravel' || method === 'flatten') {
    const out = copyOf(v);
    // (of a masked selection, whose size is only a bound: one axis of a length not known)
    out.shape = v.approx && v.shape ? [null] : v.size !== undefined ? [v.size] : undefined;
    out.origin = 'inferred';
    return out;
  }
  if (method === 'get') {
    const out = copyOf(v);
    out.library = 'numpy';
    out.device = 'host';
    out.origin = 'inferred';
    return out;
  }
  if (method === 'argsort') {
    return argsortValue(v, keywords.get('axis') ?? positional[0], v.library);
  }
  if (method === 'tolist' || method === 'item') {
    return method === 'item' ? { kind: 'scalar', origin: 'inferred' } : { kind: 'sequence', origin: 'inferred' };
  }
  if (REDUCTIONS.has(method)) {
    const dtype = v.dtype === undefined ? undefined : reductionDtype(method, v.dtype);
    return reductionValue(method, v, keywords.get('axis') ?? positional[0], keywords, dtype, v.library, model, cell);
  }
  return { kind: 'unknown', origin: 'inferred' };
}
