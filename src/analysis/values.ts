/** What a name or an expression holds, as far as the analysis can tell. */

export type ValueKind =
  | 'ndarray'
  | 'scalar'
  | 'dataframe'
  | 'series'
  | 'graph'
  | 'estimator'
  | 'rng'
  | 'sparse'
  | 'module'
  | 'function'
  | 'string'
  | 'sequence'
  | 'unknown';

export interface ValueInfo {
  kind: ValueKind;
  /** Dimensions; `null` where a dimension is not known. */
  shape?: (number | null)[];
  /**
   * NumPy dtype name: float64, float32, int64, bool, complex128, object, str, structured... For a
   * list or tuple literal (`sequence`), only the str or object dtype `np.array` makes of it (items
   * that are strings, None): what keeps an array of it off the device.
   */
  dtype?: string;
  /** Element count, when every dimension is known. */
  size?: number;
  /** The value of a numeric constant (`N = 4000`). */
  value?: number;
  /** Where the figure comes from: the kernel (runtime) wins over literals and inference. */
  origin: 'runtime' | 'literal' | 'inferred';
  /**
   * Library of the object's type: numpy, cupy, pandas, networkx, sklearn, scipy... For a scalar,
   * `numpy` marks a NumPy scalar (`np.float32(0.2)`, a kernel-reported `numpy.float64`: strong
   * under NEP 50, its dtype decides); a Python number has none (or, from the kernel, its type:
   * `float`, `int`, `complex`, `bool`: weak, the array's dtype decides).
   */
  library?: string;
  /** Where the data lives (cupy arrays, runtime reports). */
  device?: 'host' | 'gpu';
  /**
   * The size is an upper bound (a subscript of a known array whose shape the analysis cannot
   * work out: fancy or boolean indexing, bounds it cannot evaluate). A basic slice with known
   * bounds gets its exact shape instead. Whether a value shares another array's memory (a view)
   * is not recorded here: rules/arrays/aliases.ts reads it from the syntax.
   */
  approx?: boolean;
  /**
   * The size is a count the data decide, of the positions a mask selects: what `np.nonzero` (and a
   * one-argument `np.where`) give, a gather through them (`x[rows]`), and what elementwise work and
   * reductions along an axis make of them. `size` then holds the bound (the mask's size), with
   * `approx`. The cost model prices work over such a value at its lower bound
   * (rules/arrays/cupy-rewrite.ts `fraction`), as it does a mask's selection written in the same
   * expression (`maskSelected`): how many positions the mask selects is the data's, and positions
   * are taken where they are few (events, triggers, peaks). A named boolean selection (`x_g =
   * x[good]`, most of `x` where `good` drops outliers) keeps its bound.
   */
  selection?: boolean;
  /**
   * A `sequence` whose items the analysis knows, in order: what a call returning a tuple gives
   * (`np.linalg.eigh`: eigenvalues and eigenvectors; `ndimage.label`: labels and their count),
   * each item as what unpacking it binds.
   */
  elements?: ValueInfo[];
  /**
   * A function the notebook defines (`def`, `lambda`): its source text. Editing the definition
   * changes the value, so the cells whose values its calls gave are analysed again.
   */
  definition?: string;
}

export const UNKNOWN: ValueInfo = { kind: 'unknown', origin: 'inferred' };

/** Bytes per element of a NumPy dtype name (8 when unknown: NumPy's float64 default). */
export function itemSize(dtype: string | undefined): number {
  switch (dtype) {
    case 'bool':
    case 'int8':
    case 'uint8':
      return 1;
    case 'float16':
    case 'int16':
    case 'uint16':
      return 2;
    case 'float32':
    case 'int32':
    case 'uint32':
      return 4;
    case 'complex128':
      return 16;
    case 'complex64':
    case 'float64':
    case 'int64':
    case 'uint64':
    default:
      return 8;
  }
}

/** Bytes held by an array value, when known. */
export function valueBytes(v: ValueInfo): number | undefined {
  return v.size === undefined ? undefined : v.size * itemSize(v.dtype);
}

/**
 * The bytes a copy of `v` between host and device is priced at: its size's, except a selection
 * (`ValueInfo.selection`: positions a mask selects, whose `size` is only the mask's), priced at its
 * lower bound as its work is (0). Memory checks use `valueBytes`, the bound.
 */
export function copyBytes(v: ValueInfo): number | undefined {
  return v.kind === 'ndarray' && v.selection ? 0 : valueBytes(v);
}

/** dtypes the GPU cannot hold (CuPy has no object, string or structured arrays). */
export function isDeviceIncompatibleDtype(dtype: string | undefined): boolean {
  if (!dtype) {
    return false;
  }
  const d = dtype.replace(/^[<>|=]/, '');
  return (
    d === 'object' ||
    d === 'O' ||
    d === 'str' ||
    d === 'bytes' ||
    d === 'structured' ||
    d.startsWith('datetime') ||
    d.startsWith('timedelta') ||
    /^[USVOMm]\d*$/.test(d) ||
    d.startsWith('[')
  );
}

/**
 * NumPy's name for each dtype spelling `normaliseDtype` knows (a Map: the spelling is user text,
 * and `constructor` or `toString` must not find an object's members).
 */
const DTYPE_ALIASES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    float: 'float64',
    double: 'float64',
    float_: 'float64',
    f8: 'float64',
    d: 'float64',
    float64: 'float64',
    single: 'float32',
    f4: 'float32',
    f: 'float32',
    float32: 'float32',
    half: 'float16',
    f2: 'float16',
    float16: 'float16',
    int: 'int64',
    int_: 'int64',
    i8: 'int64',
    int64: 'int64',
    intp: 'int64',
    i4: 'int32',
    int32: 'int32',
    int16: 'int16',
    i2: 'int16',
    int8: 'int8',
    i1: 'int8',
    uint8: 'uint8',
    u1: 'uint8',
    uint16: 'uint16',
    uint32: 'uint32',
    uint64: 'uint64',
    bool: 'bool',
    bool_: 'bool',
    '?': 'bool',
    complex: 'complex128',
    complex128: 'complex128',
    c16: 'complex128',
    complex64: 'complex64',
    c8: 'complex64',
    object: 'object',
    object_: 'object',
    O: 'object',
    str: 'str',
    str_: 'str',
    unicode: 'str',
    bytes: 'bytes',
    bytes_: 'bytes'
  })
);

/** Normalises a dtype spelling (`np.float32`, `'f4'`, `float`) to NumPy's name. */
export function normaliseDtype(text: string): string | undefined {
  const t = text.replace(/^['"]|['"]$/g, '').replace(/^(np|numpy|cp|cupy)\./, '');
  const alias = DTYPE_ALIASES.get(t);
  if (alias !== undefined) {
    return alias;
  }
  if (/^[<>|=]?[USV]\d*$/.test(t)) {
    return t.replace(/^[<>|=]/, '');
  }
  if (/^datetime64|^timedelta64|^[<>]?[Mm]8/.test(t)) {
    return 'datetime64';
  }
  return undefined;
}

/** Element count of a shape, or undefined if a dimension is unknown. */
export function shapeSize(shape: (number | null)[]): number | undefined {
  let size = 1;
  for (const d of shape) {
    if (d === null) {
      return undefined;
    }
    size *= d;
  }
  return size;
}

/**
 * A readable size: "4000x4000 float64 (128 MB)"; "2048x2048, dtype not known (33.6 MB if float64)"
 * for data whose dtype only the kernel can tell (np.load's: the bytes are priced as float64).
 */
export function describeArray(v: ValueInfo): string {
  const shape = v.shape ? v.shape.map(d => (d === null ? '?' : String(d))).join('x') : '?';
  const bytes = valueBytes(v);
  if (v.dtype === undefined) {
    return `${shape}, dtype not known${bytes !== undefined ? ` (${formatBytes(bytes)} if float64)` : ''}`;
  }
  return `${shape} ${v.dtype}${bytes !== undefined ? ` (${formatBytes(bytes)})` : ''}`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) {
    return `${(bytes / 1e9).toFixed(1)} GB`;
  }
  if (bytes >= 1e6) {
    return `${(bytes / 1e6).toFixed(1)} MB`;
  }
  if (bytes >= 1e3) {
    return `${(bytes / 1e3).toFixed(1)} kB`;
  }
  return `${bytes} B`;
}

const SIGNED_INTS = ['int8', 'int16', 'int32', 'int64'];
const UNSIGNED_INTS = ['uint8', 'uint16', 'uint32', 'uint64'];
const FLOATS = ['float16', 'float32', 'float64'];
const COMPLEXES = ['complex64', 'complex128'];

/** NumPy's numeric dtypes, each with its row in the promotion tables below. */
const NUMERIC_DTYPES = ['bool', ...SIGNED_INTS, ...UNSIGNED_INTS, ...FLOATS, ...COMPLEXES];
const NUMERIC_INDEX: ReadonlyMap<string, number> = new Map(NUMERIC_DTYPES.map((d, k) => [d, k]));

/** Whether a dtype name is bool, an integer, a float or a complex (NumPy's numeric types). */
export function isNumericDtype(d: string): boolean {
  return NUMERIC_INDEX.has(d);
}

/** Whether a dtype name is a signed or unsigned integer (not bool). */
export function isIntegerDtype(d: string): boolean {
  return SIGNED_INTS.includes(d) || UNSIGNED_INTS.includes(d);
}

/** The smallest float that holds every value of an integer dtype (NumPy's promotion). */
function floatFor(d: string): string {
  return d === 'int8' || d === 'uint8' ? 'float16' : d === 'int16' || d === 'uint16' ? 'float32' : 'float64';
}

function maxOf(order: string[], a: string, b: string): string {
  return order.indexOf(a) >= order.indexOf(b) ? a : b;
}

/** `promoteTypes`, worked out from NumPy's rules (it fills the table `promoteTypes` reads). */
function promoteTypesByRules(a: string, b: string): string | undefined {
  if (!isNumericDtype(a) || !isNumericDtype(b)) {
    return undefined;
  }
  if (a === b || b === 'bool') {
    return a;
  }
  if (a === 'bool') {
    return b;
  }
  if (COMPLEXES.includes(a) || COMPLEXES.includes(b)) {
    // the real parts promote; the complex type of that float
    const real = promoteTypesByRules(a === 'complex64' ? 'float32' : a === 'complex128' ? 'float64' : a, b === 'complex64' ? 'float32' : b === 'complex128' ? 'float64' : b);
    return real === 'float64' ? 'complex128' : 'complex64';
  }
  if (FLOATS.includes(a) || FLOATS.includes(b)) {
    const fa = FLOATS.includes(a) ? a : floatFor(a);
    const fb = FLOATS.includes(b) ? b : floatFor(b);
    return maxOf(FLOATS, fa, fb);
  }
  const sa = SIGNED_INTS.includes(a);
  const sb = SIGNED_INTS.includes(b);
  if (sa === sb) {
    return maxOf(sa ? SIGNED_INTS : UNSIGNED_INTS, a, b);
  }
  const signed = sa ? a : b;
  const unsigned = sa ? b : a;
  const ui = UNSIGNED_INTS.indexOf(unsigned);
  if (SIGNED_INTS.indexOf(signed) > ui) {
    return signed;
  }
  return ui + 1 < SIGNED_INTS.length ? SIGNED_INTS[ui + 1] : 'float64';
}

/** `promoteWeak`, worked out from NEP 50's rules (it fills the table `promoteWeak` reads). */
function promoteWeakByRules(a: string, python: PythonNumber): string | undefined {
  if (!isNumericDtype(a)) {
    return undefined;
  }
  switch (python) {
    case 'bool':
      return a;
    case 'int':
      return a === 'bool' ? 'int64' : a;
    case 'float':
      return a === 'bool' || isIntegerDtype(a) ? 'float64' : a;
    case 'complex':
      return COMPLEXES.includes(a) ? a : a === 'float16' || a === 'float32' ? 'complex64' : 'complex128';
  }
}

type PythonNumber = 'bool' | 'int' | 'float' | 'complex';
const PYTHON_NUMBERS: readonly PythonNumber[] = ['bool', 'int', 'float', 'complex'];

/**
 * The promotion tables, filled once at load from the rules above (they depend on nothing else):
 * `PROMOTED[i * n + j]` is `promoteTypes` of the numeric dtypes of rows i and j, `WEAK[i * 4 + p]`
 * `promoteWeak` of row i and the p-th Python number type. Inference promotes on every binary
 * operation, ufunc call and broadcast: a look-up instead of list scans.
 */
const PROMOTED: readonly string[] = NUMERIC_DTYPES.flatMap(a => NUMERIC_DTYPES.map(b => promoteTypesByRules(a, b) as string));
const WEAK: readonly string[] = NUMERIC_DTYPES.flatMap(a => PYTHON_NUMBERS.map(p => promoteWeakByRules(a, p) as string));

/**
 * `np.promote_types(a, b)` for NumPy's numeric dtypes (NumPy 2; checked against 2.4): the dtype
 * two arrays (or NumPy scalars, strong under NEP 50) of these dtypes compute in. Undefined for
 * any other dtype (str, object, datetime...).
 */
export function promoteTypes(a: string, b: string): string | undefined {
  const i = NUMERIC_INDEX.get(a);
  const j = NUMERIC_INDEX.get(b);
  return i === undefined || j === undefined ? undefined : PROMOTED[i * NUMERIC_DTYPES.length + j];
}

/**
 * The dtype an array (or NumPy scalar) of dtype `a` computes in with a Python number of type
 * `python` (`bool`, `int`, `float`, `complex`): NEP 50's weak scalar, which takes the array's
 * dtype unless its kind is higher (float32 * 0.5 is float32, int64 * 1.5 float64, float32 * 1j
 * complex64, bool * 2 int64). Undefined for a non-numeric `a`.
 */
export function promoteWeak(a: string, python: PythonNumber): string | undefined {
  const i = NUMERIC_INDEX.get(a);
  if (i === undefined) {
    return undefined;
  }
  const p = python === 'bool' ? 0 : python === 'int' ? 1 : python === 'float' ? 2 : 3;
  return WEAK[i * 4 + p];
}

/** `a / b`'s dtype from the operands' promoted one: integers and bool divide into float64. */
export function trueDivideDtype(d: string): string {
  return d === 'bool' || isIntegerDtype(d) ? 'float64' : d;
}

/** What `scalarType` answers (shared, read-only: one object per answer). */
export type ScalarType = Readonly<{ strong: true; dtype: string }> | Readonly<{ strong: false; python: PythonNumber }>;

const STRONG_SCALARS: ReadonlyMap<string, ScalarType> = new Map(NUMERIC_DTYPES.map(d => [d, Object.freeze({ strong: true as const, dtype: d })]));
const WEAK_BOOL: ScalarType = Object.freeze({ strong: false as const, python: 'bool' as const });
const WEAK_INT: ScalarType = Object.freeze({ strong: false as const, python: 'int' as const });
const WEAK_FLOAT: ScalarType = Object.freeze({ strong: false as const, python: 'float' as const });
const WEAK_COMPLEX: ScalarType = Object.freeze({ strong: false as const, python: 'complex' as const });

/**
 * What a scalar value is under NEP 50: `strong` a NumPy scalar of `dtype`, or a Python number of
 * `python` type (weak); null when not a scalar or its type is not known. The answers are shared
 * frozen objects (no allocation per call).
 */
export function scalarType(v: ValueInfo): ScalarType | null {
  if (v.kind !== 'scalar') {
    return null;
  }
  if (v.library === 'numpy') {
    return v.dtype !== undefined ? STRONG_SCALARS.get(v.dtype) ?? null : null;
  }
  const t = v.library === 'float' || v.library === 'int' || v.library === 'bool' || v.library === 'complex' ? v.library : v.dtype;
  switch (t) {
    case 'bool':
      return WEAK_BOOL;
    case 'int':
    case 'int64':
      return WEAK_INT;
    case 'float':
    case 'float64':
      return WEAK_FLOAT;
    case 'complex':
    case 'complex128':
      return WEAK_COMPLEX;
    default:
      return null;
  }
}
