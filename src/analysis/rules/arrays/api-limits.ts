/**
 * Uses of a CuPy name that exists but does not take what NumPy's takes: the arguments CuPy's
 * function rejects (apis/cupy.ts CUPY_UNSUPPORTED_ARGUMENTS) or runs as a host loop (apis/cupyx.ts
 * CUPYX_HOST_LOOP_ARGUMENTS), and the flat iterator's fancy
 * index (`a.flat[idx]`), which CuPy's `flatiter` refuses. The CPU test double runs NumPy's own
 * functions, so only these checks keep such rewrites from failing on a real GPU.
 */
import { CUPY_UNSUPPORTED_ARGUMENTS } from '../../apis/cupy';
import { CUPYX_HOST_LOOP_ARGUMENTS, CUPYX_MISSING_HOST_CALLS, SCIPY_FLOAT64_SIGNAL } from '../../apis/cupyx';
import { insert, replace } from '../../edits';
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, isValueIdentifier, kids, unparen, walkTypes } from '../../syntax';
import type { TextEdit } from '../../types';
import { formatBytes, normaliseDtype } from '../../values';

/** A NumPy reference the rewrite maps (the fields of cupy-rewrite.ts LibraryRef read here). */
interface MappedRef {
  node: SyntaxNode;
  qualified: string;
  action: string;
}

/**
 * The argument with which `call`, a call of `scipy.<path>`, makes cupyx loop on the host over
 * device values (apis/cupyx.ts CUPYX_HOST_LOOP_ARGUMENTS: `find_peaks(x, distance=50)`), with
 * why; or the `*args` / `**opts` it passes, which may carry it (not known here). Undefined for
 * other calls and where the argument is absent or None.
 */
export function hostLoopArgument(call: SyntaxNode, path: string): { keyword: string; why: string; splat?: string } | undefined {
  // a function cupyx lacks (CUPYX_MISSING_HOST_CALLS): every call, whatever it passes (keyword '')
  const missing = CUPYX_MISSING_HOST_CALLS.get(path);
  if (missing !== undefined && call.type === 'call') {
    return { keyword: '', why: missing };
  }
  const limits = CUPYX_HOST_LOOP_ARGUMENTS.get(path);
  if (!limits || call.type !== 'call') {
    return undefined;
  }
  const { positional, keywords } = callArguments(call);
  const hit = limits.find(l => {
    const arg = keywords.get(l.keyword) ?? positional[l.position];
    return !!arg && arg.text !== 'None';
  });
  if (hit) {
    return { keyword: hit.keyword, why: hit.why };
  }
  // `f(x, *args)` / `f(x, **opts)`: what they pass is not known here, and may be the argument
  const splat = positional.find(p => p.type === 'list_splat' || p.type === 'dictionary_splat');
  return splat ? { keyword: limits[0].keyword, why: limits[0].why, splat: splat.text } : undefined;
}

/**
 * The explanation of a call kept SciPy's on the host among the cell's device work because cupyx
 * would loop over device values with its arguments (hostLoopArgument; cupy-rewrite.ts
 * libraryUses): why, what it is handed (`copies`: its arguments the rewrite copies to the host,
 * with their bytes; `once`: how a copy the cell would otherwise make twice is made once, by
 * argument text; `reused`: host copies an earlier call of the cell took that it reads, by name:
 * cupy-rewrite.ts sharedHostCallCopies), and that its results are host values.
 */
export function hostLoopCallNote(
  call: SyntaxNode,
  path: string,
  copies: readonly { node: SyntaxNode; bytes: number }[],
  cp: string,
  once: ReadonlyMap<string, string> = new Map(),
  reused: readonly string[] = []
): string {
  const loop = hostLoopArgument(call, path)!;
  const fn = field(call, 'function')?.text ?? path;
  const passed = loop.splat ? `${loop.splat})\` may pass \`${loop.keyword}\` (not known here), and` : loop.keyword === '' ? '...)`:' : `${loop.keyword}=...)\`:`;
  const made = (c: { node: SyntaxNode; bytes: number }): string => [c.bytes > 0 ? formatBytes(c.bytes) : '', once.get(c.node.text) ?? `\`${cp}.asnumpy(...)\``].filter(Boolean).join(', ');
  const handed =
    copies.length > 0
      ? `it gets a host copy of ${copies.map(c => `\`${c.node.text}\` (${made(c)})`).join(', ')}, made on every run and counted in the prediction${reused.length > 0 ? `, and reads ${reused.map(t => `\`${t}\``).join(', ')} (a copy an earlier call here took)` : ''}`
      : reused.length > 0
        ? `it reads ${reused.map(t => `\`${t}\``).join(', ')}, the host copy an earlier call here took (no copy again)`
        : 'it reads host values as they are (no copy)';
  const p = call.parent;
  const left = p?.type === 'assignment' && field(p, 'right')?.id === call.id ? field(p, 'left') : null;
  const what = loop.keyword === '' ? 'host' : 'NumPy';
  const results = left ? `\`${left.text}\` ${left.type === 'identifier' ? `is a ${what} value` : `are ${what} values`}` : `its results are ${what} values`;
  return `\`${fn}(${loop.keyword === '' ? '' : '..., '}${passed} ${loop.why}. So the call stays SciPy's on the host and the rest of the cell runs on the device: ${handed}, and ${results}, as in the original.`;
}

/**
 * Why each call of a mapped NumPy function passes an argument its CuPy namesake does not take
 * (`np.packbits(bits, axis=1)`: NotImplementedError on the device), or a SciPy function an
 * argument with which cupyx loops on the host over device values (`find_peaks(x, distance=50)`,
 * hostLoopArgument) where the rewrite would move the call (a cell whose only work it is: elsewhere
 * the call stays SciPy's on the host, cupy-rewrite.ts libraryUses): one reason per call. Calls
 * `rewritten` otherwise (lastAxisBitEdits) are not.
 */
export function unsupportedArgumentRefusals(refs: readonly MappedRef[], rewritten: ReadonlySet<number> = new Set()): string[] {
  const out: string[] = [];
  for (const r of refs) {
    const call = r.node.parent;
    if (r.action !== 'cupy' || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id || rewritten.has(call.id)) {
      continue;
    }
    if (r.qualified.startsWith('scipy.')) {
      const loop = hostLoopArgument(call, r.qualified.slice('scipy.'.length));
      if (loop?.splat) {
        out.push(`\`${r.node.text}(..., ${loop.splat})\` may pass \`${loop.keyword}\`, not known here: ${loop.why}; the cell has no other work for the device: kept on the host`);
      } else if (loop?.keyword === '') {
        out.push(`scipy.${r.qualified.slice('scipy.'.length)}: ${loop.why}; the cell has no other work for the device: kept on the host`);
      } else if (loop) {
        out.push(`\`${r.node.text}(..., ${loop.keyword}=...)\`: ${loop.why}; the cell has no other work for the device: kept on the host`);
      }
      continue;
    }
    const limits = r.qualified.startsWith('numpy.') ? CUPY_UNSUPPORTED_ARGUMENTS.get(r.qualified.slice('numpy.'.length)) : undefined;
    if (!limits) {
      continue;
    }
    const { positional, keywords } = callArguments(call);
    const hit = limits.find(l => {
      const arg = keywords.get(l.keyword) ?? positional[l.position];
      return !!arg && arg.text !== 'None';
    });
    // `f(x, *args)` / `f(x, **opts)`: what they pass is not known here, and may be the argument
    const splat = hit ? undefined : positional.find(p => p.type === 'list_splat' || p.type === 'dictionary_splat');
    if (hit) {
      out.push(`\`${r.node.text}(..., ${hit.keyword}=...)\`: ${hit.why}`);
    } else if (splat) {
      const l = limits[0];
      out.push(`\`${r.node.text}(..., ${splat.text})\` may pass \`${l.keyword}\`, not known here: ${l.why}`);
    }
  }
  return out;
}

/**
 * `np.packbits(a, axis=-1)` and `np.unpackbits(a, axis=-1)` (or axis=ndim-1) of an array whose
 * shape is known, which CuPy 14.2 refuses (its packbits and unpackbits take axis=None only,
 * cupy/_binary/packing.py) but computes exactly with the flattened array reshaped: unpacking,
 * every byte becomes its 8 bits in place, so the C-ordered bits of the flattened array are the
 * rows' bits one row after another (`.reshape(d0, ..., -1)`); packing, the same holds where each
 * row fills whole bytes (a last dimension n with n % 8 == 0: no byte takes bits of two rows;
 * NumPy pads every row of another length with zeros, which the flattened packing does not).
 * Either bitorder packs each byte the same way on both. The axis argument becomes None, and the
 * reshape, to the leading dimensions and -1, is appended to the call: one reshape of a
 * C-contiguous result, a view. A 1-D array needs none. Not done for an empty array (a -1 beside a
 * zero dimension is ambiguous), a shape not known, nor `unpackbits(..., count=)` (refused).
 * Returns the edits and the ids of the calls they rewrite.
 */
export function lastAxisBitEdits(refs: readonly MappedRef[], model: NotebookModel, cell: CellModel): { edits: TextEdit[]; calls: Set<number> } {
  const edits: TextEdit[] = [];
  const calls = new Set<number>();
  for (const r of refs) {
    const call = r.node.parent;
    const packing = r.qualified === 'numpy.packbits';
    if (r.action !== 'cupy' || (!packing && r.qualified !== 'numpy.unpackbits') || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id) {
      continue;
    }
    const { positional, keywords } = callArguments(call);
    const axis = keywords.get('axis') ?? positional[1];
    const input = keywords.get('a') ?? positional[0];
    const count = keywords.get('count') ?? positional[2];
    if (!axis || !input || axis.text === 'None' || positional.some(p => p.type === 'list_splat' || p.type === 'dictionary_splat') || (!packing && count && count.text !== 'None')) {
      continue;
    }
    const v = model.inferValue(input, cell);
    const shape = v.kind === 'ndarray' && !v.approx ? v.shape : undefined;
    const k = model.constantValue(axis, cell);
    if (!shape || shape.length === 0 || !shape.every(d => d !== null && d > 0) || (k !== -1 && k !== shape.length - 1)) {
      continue;
    }
    const last = shape[shape.length - 1]!;
    if (packing && last % 8 !== 0) {
      continue;
    }
    edits.push(replace(axis.startIndex, axis.endIndex, 'None'));
    if (shape.length > 1) {
      edits.push(insert(call.endIndex, `.reshape(${[...shape.slice(0, -1), -1].join(', ')})`));
    }
    calls.add(call.id);
  }
  return { edits, calls };
}

/** The root name of `a`, `a[i]`, `a.b[...]` (what the device names are checked against). */
function baseName(n: SyntaxNode): SyntaxNode | null {
  let e = unparen(n);
  while (e.type === 'subscript' || e.type === 'attribute') {
    e = unparen(field(e, e.type === 'subscript' ? 'value' : 'object')!);
  }
  return e.type === 'identifier' ? e : null;
}

/** Does `n` read one of `names`? */
function reads(n: SyntaxNode, names: ReadonlySet<string>): boolean {
  let hit = false;
  walkTypes(n, ['identifier'], k => {
    hit = hit || (names.has(k.text) && isValueIdentifier(k));
    return !hit;
  });
  return hit;
}

/** Is the subscript the target of a plain or augmented assignment? */
function assignedTo(n: SyntaxNode): boolean {
  const p = n.parent;
  return (p?.type === 'assignment' || p?.type === 'augmented_assignment') && field(p, 'left')?.id === n.id;
}

/**
 * `a.flat[idx]` on a device array with an index CuPy's flat iterator rejects. CuPy 14.2's
 * `flatiter.__getitem__`/`__setitem__` (cupy/_indexing/iterate.py) take an integer, a slice or
 * `...` and raise `IndexError('unsupported iterator index')` for anything else: an index array,
 * a list, a boolean mask, a 0-d device array (not a NumPy scalar). Such a use becomes
 * `a.ravel()[idx]`: for a read, the same values (ravel copies a non-contiguous `a` first); for a
 * write (`a.flat[idx] = v`, `a.flat[idx] += v`), only where `a` is C-contiguous, where ravel is a
 * view of `a`'s memory and the write lands in `a` (`contiguous` decides: a C-ordered array, a row
 * of one). Elsewhere ravel is a copy and the update would be lost: refused. `a.flat[idx] += v` is
 * a buffered read-add-write in NumPy and CuPy alike (a repeated index is incremented once, not
 * once per repeat); where `v` differs between the repeats, NumPy keeps the last one, CuPy an
 * unspecified one (cupy/_core/core.pyx, `ndarray.__setitem__`: "the value that is actually stored
 * is undefined").
 */
export function flatIndexRewrites(
  root: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  deviceNames: ReadonlySet<string>,
  contiguous: (obj: SyntaxNode) => boolean
): { edits: TextEdit[]; refusals: string[]; rewritten: SyntaxNode[] } {
  const edits: TextEdit[] = [];
  const refusals: string[] = [];
  const rewritten: SyntaxNode[] = [];
  walkTypes(root, ['subscript'], n => {
    const value = field(n, 'value');
    const attr = value?.type === 'attribute' ? field(value, 'attribute') : null;
    const obj = value?.type === 'attribute' ? field(value, 'object') : null;
    const base = obj ? baseName(obj) : null;
    if (!attr || attr.text !== 'flat' || !obj || !base || !deviceNames.has(base.text) || model.inferValue(obj, cell).kind !== 'ndarray') {
      return true;
    }
    const index = kids(n).filter(k => k.id !== value!.id && k.type !== 'comment');
    const only = index.length === 1 ? unparen(index[0]) : null;
    const supported =
      !!only &&
      (only.type === 'slice' ||
        only.type === 'ellipsis' ||
        /^-?\s*\d+$/.test(only.text) ||
        (!reads(only, deviceNames) && model.inferValue(only, cell).kind === 'scalar'));
    if (supported) {
      return true;
    }
    if (assignedTo(n) && !contiguous(obj)) {
      refusals.push(
        `\`${n.text}\` writes through the flat iterator with an index array: CuPy's \`.flat\` takes only an integer, a slice or \`...\` (IndexError), and \`${obj.text}\` is not known to be C-contiguous, so \`${obj.text}.ravel()\` may be a copy and the update lost; index \`${obj.text}\` itself (\`np.unravel_index\`) or keep this cell on the host`
      );
      return true;
    }
    edits.push(replace(attr.startIndex, attr.endIndex, 'ravel()'));
    rewritten.push(n);
    return true;
  });
  return { edits, refusals, rewritten };
}

/**
 * The note for float sums CuPy accumulates with atomics: `cp.add.at`/`cp.subtract.at` (ndarray
 * `_scatter_op`, `_scatter_add_kernel` in cupy/_core/_routines_indexing.pyx, CuPy 14.2),
 * `cp.bincount(x, weights)` and `cp.histogram(..., weights=)` (`atomicAdd` in
 * cupy/_statistics/histogram.py). The threads add into each bin in whatever order they reach it,
 * so a float sum is rounded in another order than NumPy's sequential loop, and in another order
 * from one run to the next: equal to the last bits only for integers. The A/B check's float64
 * tolerance (rtol 1e-7, and norm-wise for entries near cancellation) passes such differences
 * (about 1e-16 relative to the summed magnitudes) unless a bin cancels to a billionth of them.
 */
export function atomicSumNote(refs: readonly MappedRef[], model: NotebookModel, cell: CellModel): string | null {
  for (const r of refs) {
    const call = r.node.parent;
    if (r.action !== 'cupy' || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id) {
      continue;
    }
    const { positional, keywords } = callArguments(call);
    const summed = /^numpy\.(add|subtract)\.at$/.test(r.qualified)
      ? positional[0]
      : r.qualified === 'numpy.bincount'
        ? (keywords.get('weights') ?? positional[1])
        : r.qualified === 'numpy.histogram'
          ? (keywords.get('weights') ?? positional[4])
          : undefined;
    const dtype = summed ? model.inferValue(summed, cell).dtype : undefined;
    if (summed && !/^(u?int\d*|bool)$/.test(dtype ?? '')) {
      return `\`${clipText(call.text)}\` adds ${dtype ?? 'float'} values into its bins with atomic operations on the GPU: the additions into one bin happen in no fixed order, so its sums are rounded differently from NumPy's sequential ones (in the last bits) and may differ from run to run; integer sums are exact.`;
    }
  }
  return null;
}

function clipText(text: string): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > 60 ? `${one.slice(0, 57)}...` : one;
}

/**
 * `scipy.signal.find_peaks(x, ...)` (and peak_prominences, peak_widths) with a signal not known
 * to be float64: SciPy converts it to float64 first, cupyx keeps its dtype (apis/cupyx.ts
 * SCIPY_FLOAT64_SIGNAL), so the signal is converted as SciPy does: `cp.asarray(x,
 * dtype=cp.float64)`, a no-op for a float64 array, one pass over a 1-D signal otherwise.
 */
export function float64SignalEdits(refs: readonly MappedRef[], model: NotebookModel, cell: CellModel, cp: string): TextEdit[] {
  const edits: TextEdit[] = [];
  for (const r of refs) {
    const call = r.node.parent;
    const keyword = r.qualified.startsWith('scipy.') ? SCIPY_FLOAT64_SIGNAL.get(r.qualified.slice('scipy.'.length)) : undefined;
    if (r.action !== 'cupy' || !keyword || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id) {
      continue;
    }
    const { positional, keywords } = callArguments(call);
    const signal = keywords.get(keyword) ?? positional[0];
    if (!signal || signal.type === 'list_splat' || signal.type === 'dictionary_splat' || model.inferValue(signal, cell).dtype === 'float64') {
      continue;
    }
    edits.push(insert(signal.startIndex, `${cp}.asarray(`), insert(signal.endIndex, `, dtype=${cp}.float64)`));
  }
  return edits;
}

/**
 * Why CuPy's `arange` would not give NumPy's values for `call` (`np.arange(...)`), or undefined
 * where it gives them bit for bit. NumPy (arraytypes.c.src `@NAME@_fill`, ctors.c
 * PyArray_ArangeObj) stores `a0 = T(start)` and `a1 = T(start + step)`, then fills
 * `a0 + i * (a1 - a0)` in T: the index rounded to T, the product and the sum rounded separately
 * (float16 is computed in float32, then rounded to half). CuPy 14 (cupy/_creation/ranges.py
 * `_arange_ufunc`) computes `T(start) + i * T(step)`, which NVRTC contracts to one fused
 * multiply-add. With start 0 the two are the same value, round(T(i) * T(step)), for any step and
 * length (`np.arange(n, dtype=np.float32)`, the usual case, is exact past 2**24 too); with small
 * integers every step is exact. Otherwise (a fractional step: `a1 - a0` is not `T(step)`; integers
 * past 2**24, where the separate roundings differ from the fused one) float16, float32 and
 * complex64 aranges differ by more than a rounding (NumPy's 0.5-spaced ramp from 0.5 to 4e7 in
 * float32: 4.3M of its 26.7M values differ by up to 4). float64 differs by some ulps (a fractional
 * step from a start not 0: 1e-14 relative, below any check's tolerance) and is left as it is;
 * integer aranges are exact.
 */
export function arangeValuesDiffer(call: SyntaxNode, model: NotebookModel, cell: CellModel): string | undefined {
  if (call.type !== 'call') {
    return undefined;
  }
  const { positional, keywords } = callArguments(call);
  const dtypeNode = keywords.get('dtype') ?? positional[3];
  if (!dtypeNode || positional.some(p => p.type === 'list_splat' || p.type === 'dictionary_splat')) {
    // no dtype: int64 or float64 (above)
    return undefined;
  }
  const dtype = normaliseDtype(dtypeNode.text);
  // (a dtype given by a name the analysis cannot read may be float32: NumPy's values kept)
  const narrow = dtype === undefined ? dtypeNode.type === 'identifier' || dtypeNode.type === 'attribute' || dtypeNode.type === 'call' : ['float16', 'float32', 'complex64'].includes(dtype);
  if (!narrow) {
    return undefined;
  }
  const startNode = keywords.get('start') ?? (positional.length >= 2 || keywords.has('stop') ? positional[0] : undefined);
  const stopNode = keywords.get('stop') ?? (positional.length >= 2 ? positional[1] : keywords.has('start') ? undefined : positional[0]);
  const stepNode = keywords.get('step') ?? positional[2];
  const value = (n: SyntaxNode | undefined, absent: number): number | undefined => (n === undefined || n.text === 'None' ? absent : model.constantValue(n, cell));
  const start = value(startNode, 0);
  if (start === 0) {
    return undefined;
  }
  const stop = value(stopNode, NaN);
  const step = value(stepNode, 1);
  // the same values where NumPy's separate roundings are the fused one's: every value, index and
  // product an integer T holds exactly (2**24 in float32, 2**11 in half); or (float32) a start and
  // a step T holds, their sum too (so a1 - a0 is the step), and a step of a power of two (each
  // product exact, the sum rounded once in both)
  const known = start !== undefined && step !== undefined;
  const bound = dtype === 'float16' ? 2 ** 11 : 2 ** 24;
  if (known && stop !== undefined && [start, stop, step].every(Number.isInteger) && Math.abs(start) + Math.abs(stop) + Math.abs(step) <= bound) {
    return undefined;
  }
  const held = (v: number): boolean => Math.fround(v) === v;
  if (known && dtype !== 'float16' && held(start) && held(step) && held(start + step) && step !== 0 && Number.isInteger(Math.log2(Math.abs(step)))) {
    return undefined;
  }
  const name = dtype ?? `${dtypeNode.text} (maybe float32)`;
  const why = !known
    ? `a ${start === undefined ? 'start' : 'step'} the analysis cannot read`
    : Number.isInteger(start) && Number.isInteger(step)
      ? `a start not 0 and values that may pass 2**${dtype === 'float16' ? 11 : 24}`
      : 'a start not 0 and a fractional step';
  return (
    `\`${call.text.length > 60 ? `${call.text.slice(0, 57)}...` : call.text}\` is a ${name} arange with ${why}: NumPy fills it as start + i*(T(start+step) - T(start)), ` +
    `rounding the product and the sum separately; CuPy's arange computes T(start) + i*T(step) in one fused multiply-add, so their values differ by more than a rounding ` +
    `(references/cupy.md#arange). It is made by NumPy on the host and copied to the device once, to keep NumPy's values.`
  );
}
