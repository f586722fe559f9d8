/**
 * `np.nanpercentile(a, q, axis=k)` / `np.nanquantile(a, q, axis=k)` on the device. CuPy 14.2 has
 * no nan-quantile (it has `percentile`, `quantile` and `nanmedian`: cupy/_statistics/order.py,
 * meanvar.py), and NumPy computes one along an axis slice by slice (`np.apply_along_axis` of its
 * 1-d quantile: a Python call per slice, 11.8 s for the 259200 slices of a (240, 360, 720) float32
 * field). The device form sorts along the axis once (the axis moved last first, so that the sort
 * works on contiguous rows: one copy of the array, where sorting along another axis makes three)
 * and interpolates every slice at once:
 *
 * - CuPy's sort puts NaNs last, as NumPy's does (cupy/cuda/cupy_thrust.cu), so a slice's j-th
 *   valid value is its j-th sorted one, and `n`, its count of valid values, is the axis length
 *   less its NaNs;
 * - NumPy's 'linear' method (its default; numpy/lib/_function_base_impl.py `_quantile`,
 *   `_get_indexes`, `_get_gamma`, `_lerp`, NumPy 2.4) takes the virtual index `v = (n - 1) * q`
 *   in float64, the sorted values at `floor(v)` and `floor(v) + 1` (both the last valid one where
 *   `v >= n - 1`, the weight then counted from index -1: `v + 1`), and interpolates in the array's
 *   dtype: `above - (above - below) * (1 - g)` where the weight `g >= 0.5`, else
 *   `below + (above - below) * g`. A q given as a Python number is a weak scalar there, so the
 *   weights are rounded to the array's dtype and a float32 field gives float32 values;
 * - an all-NaN slice has only NaNs to take: NaN, as NumPy gives (without its RuntimeWarning).
 *
 * The same values as NumPy's bit for bit (float32 and float64, infinities included: checked
 * against NumPy 2.4.6 over random fields with NaNs, all-NaN and one-value slices). Only what this
 * form reproduces is rewritten: a float32 or float64 array, a q written as a number (an array of
 * quantiles, or a NumPy scalar, which NumPy does not treat as weak, is not), an integer axis or
 * none (axis=None: the quantile of the flattened array's valid values, the same form along axis 0
 * of `a.ravel()`; an all-NaN array gives NaN, as NumPy's does with its RuntimeWarning), and no
 * argument besides (method=, interpolation=, keepdims=, out= are not rewritten). Anything else
 * keeps the cell's refusal, with the reason.
 */
import { insert, replace } from '../../edits';
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, unparen } from '../../syntax';
import type { TextEdit } from '../../types';

/** The NumPy functions this form replaces, with the factor that makes their q a quantile. */
const NAN_QUANTILES: ReadonlyMap<string, string> = new Map([
  ['numpy.nanpercentile', ' / 100'],
  ['numpy.nanquantile', '']
]);

/** The name the definition is given where it is free (cupy-rewrite.ts picks a fresh one). */
export const NAN_QUANTILE_BASE_NAME = 'nanquantile_linear';

export function isNanQuantile(qualified: string): boolean {
  return NAN_QUANTILES.has(qualified);
}

/**
 * The rewrite of one `np.nanpercentile`/`np.nanquantile` call (`fn` is its callee): the edits
 * besides the callee's replacement (`q` -> `q / 100` for a percentile, which is NumPy's own
 * `np.true_divide(q, 100)` in float64), or why the call stays NumPy's.
 */
export function nanQuantileRewrite(fn: SyntaxNode, qualified: string, model: NotebookModel, cell: CellModel): { edits: TextEdit[] } | string {
  const call = fn.parent;
  const name = qualified.slice('numpy.'.length);
  const lacks = `CuPy has no ${name}`;
  if (call?.type !== 'call' || field(call, 'function')?.id !== fn.id) {
    return `numpy.${name} is not called here: ${lacks}`;
  }
  const { positional, keywords } = callArguments(call);
  const a = positional[0];
  const q = positional[1] ?? keywords.get('q');
  const axis = positional[2] ?? keywords.get('axis');
  const others = [...keywords.keys()].filter(k => k !== 'q' && k !== 'axis');
  if (!a || !q || positional.length > 3 || others.length > 0) {
    return `${lacks}; its device form here (a sort along the axis and NumPy's 'linear' interpolation) takes an array, one q and an integer axis (or none) only, not \`${clip(call.text)}\`'s arguments`;
  }
  const qe = unparen(q);
  if (qe.type !== 'integer' && qe.type !== 'float') {
    return `${lacks}; its device form here needs q written as a number: NumPy interpolates in the array's dtype only for a Python number q (weak), and an array of quantiles adds an axis (\`${clip(q.text)}\`)`;
  }
  const percent = qualified === 'numpy.nanpercentile';
  // an integer quantile makes NumPy take the value at an integer index without interpolating
  // (q = 1 of a slice holding inf is inf); the device form interpolates (inf - inf: NaN). A
  // percentile's q / 100 is a float whatever q is
  if (!percent && qe.type !== 'float') {
    return `${lacks}; its device form here interpolates, and NumPy takes the value at the index directly for an integer q (\`${clip(q.text)}\`; written as a float, q interpolates in NumPy as on the device)`;
  }
  const qValue = Number(qe.text.replace(/_/g, ''));
  const top = percent ? 100 : 1;
  if (!(qValue >= 0 && qValue <= top)) {
    return `${lacks}; NumPy raises ValueError for q outside [0, ${top}] (\`${clip(q.text)}\`), and the device form would not`;
  }
  const ax = axis ? unparen(axis) : null;
  // no axis (or axis=None): NumPy's quantile of the flattened array's valid values, which is the
  // same form along axis 0 of `a.ravel()` (an all-NaN array: NaN)
  const flat = !ax || ax.type === 'none';
  if (!flat && !(ax.type === 'integer' || (ax.type === 'unary_operator' && /^-\s*\d+$/.test(ax.text)))) {
    return `${lacks}; its device form here works along one axis given as an integer, or over the whole array (\`${clip(axis!.text)}\`: not rewritten)`;
  }
  const dtype = model.inferValue(a, cell).dtype;
  if (dtype !== 'float32' && dtype !== 'float64') {
    return `${lacks}; its device form here reproduces NumPy's for float32 and float64 arrays, and \`${clip(a.text)}\`'s dtype is ${dtype ? dtype : 'not known here'}`;
  }
  const factor = NAN_QUANTILES.get(qualified) ?? '';
  if (!flat) {
    return { edits: factor ? [insert(q.endIndex, factor)] : [] };
  }
  const simple = a.type === 'identifier' || a.type === 'attribute' || a.type === 'subscript' || a.type === 'call' || a.type === 'parenthesized_expression';
  const edits: TextEdit[] = simple ? [insert(a.endIndex, '.ravel()')] : [insert(a.startIndex, '('), insert(a.endIndex, ').ravel()')];
  if (ax) {
    edits.push(insert(q.endIndex, factor), replace(ax.startIndex, ax.endIndex, '0'));
  } else {
    // (as a keyword: `q` may be one, `np.nanpercentile(y, q=90)`)
    edits.push(insert(q.endIndex, `${factor}, axis=0`));
  }
  return { edits: edits.filter(e => e.text !== '' || e.start !== e.end) };
}

/**
 * The definition the rewritten calls use, `name(a, q, axis)`: NumPy's nan-quantile of `a` along
 * `axis` (method 'linear', one quantile q in [0, 1]), as the file's doc block derives it.
 */
export function nanQuantileDefinition(name: string, cp: string): string {
  return [
    `def ${name}(a, q, axis):`,
    `    # np.nanquantile(a, q, axis=axis) (np.nanpercentile's q / 100), NumPy's 'linear' method,`,
    `    # which CuPy lacks: NaNs sort last, so a slice's j-th valid value is its j-th sorted one`,
    `    # sorted along the last axis of a view with \`axis\` moved last: one copy of \`a\`, in rows`,
    `    # (CuPy's sort along another axis copies the array, copies it again with that axis last,`,
    `    # and copies the result back)`,
    `    s = ${cp}.sort(${cp}.moveaxis(a, axis, -1), axis=-1)`,
    `    n = (s.shape[-1] - ${cp}.count_nonzero(${cp}.isnan(s), axis=-1))[..., None]`,
    `    v = (n - 1) * q`,
    `    top = v >= n - 1`,
    `    lo = ${cp}.where(top, n - 1, ${cp}.floor(v).astype(n.dtype))`,
    `    hi = ${cp}.where(top, n - 1, lo + 1)`,
    `    # NumPy's weight: v's fraction, or v + 1 at the top (NumPy's index there is -1)`,
    `    g = v - ${cp}.where(top, -1, lo)`,
    `    # an all-NaN slice (n == 0) reads its first sorted value, NaN: its quantile is NaN`,
    `    below = ${cp}.take_along_axis(s, ${cp}.maximum(lo, 0), axis=-1)`,
    `    above = ${cp}.take_along_axis(s, ${cp}.maximum(hi, 0), axis=-1)`,
    `    d = above - below`,
    `    # the weights rounded to the array's dtype, as NumPy's are for a q given as a number`,
    `    out = ${cp}.where(g >= 0.5, above - d * (1 - g).astype(s.dtype), below + d * g.astype(s.dtype))`,
    `    return out[..., 0]`,
    ''
  ].join('\n');
}

function clip(text: string): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > 50 ? `${one.slice(0, 47)}...` : one;
}
