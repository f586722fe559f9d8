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
  /** NumPy dtype name: float64, float32, int64, bool, complex128, object, str, structured... */
  dtype?: string;
  /** Element count, when every dimension is known. */
  size?: number;
  /** The value of a numeric constant (`N = 4000`). */
  value?: number;
  /** Where the figure comes from: the kernel (runtime) wins over literals and inference. */
  origin: 'runtime' | 'literal' | 'inferred';
  /** Library of the object's type: numpy, cupy, pandas, networkx, sklearn, scipy... */
  library?: string;
  /** Where the data lives (cupy arrays, runtime reports). */
  device?: 'host' | 'gpu';
  /** The size is an upper bound (a slice of a known array). */
  approx?: boolean;
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

/** Normalises a dtype spelling (`np.float32`, `'f4'`, `float`) to NumPy's name. */
export function normaliseDtype(text: string): string | undefined {
  const t = text.replace(/^['"]|['"]$/g, '').replace(/^(np|numpy|cp|cupy)\./, '');
  const aliases: Record<string, string> = {
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
  };
  if (t in aliases) {
    return aliases[t];
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

/** A readable size: "4000x4000 float64 (128 MB)". */
export function describeArray(v: ValueInfo): string {
  const shape = v.shape ? v.shape.map(d => (d === null ? '?' : String(d))).join('x') : '?';
  const bytes = valueBytes(v);
  return `${shape} ${v.dtype ?? 'float64'}${bytes !== undefined ? ` (${formatBytes(bytes)})` : ''}`;
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
