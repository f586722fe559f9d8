/**
 * `scipy.stats.norm.<method>(x, loc, scale)` on device arrays: cupyx has no `scipy.stats.norm`,
 * but SciPy's own normal distribution is a thin layer over `scipy.special` (SciPy 1.17,
 * scipy/stats/_continuous_distns.py: `_norm_cdf(x) = sc.ndtr(x)`, `_norm_sf(x) = _norm_cdf(-x)`,
 * `_norm_logcdf(x) = sc.log_ndtr(x)`, `_norm_ppf(q) = sc.ndtri(q)`, `_norm_isf(q) = -sc.ndtri(q)`,
 * `_norm_pdf(x) = np.exp(-x**2/2.0) / np.sqrt(2*np.pi)`), and cupyx.scipy.special has those
 * functions (CuPy 14.2, cupyx/scipy/special/_stats_distributions.py: `ndtr` is CUDA's `normcdf`,
 * `ndtri` its `normcdfinv` (-inf at 0, inf at 1, nan outside [0, 1], as SciPy's ppf gives),
 * `log_ndtr` SciPy's erfc/erfcx formula). So the Black-Scholes `S * norm.cdf(d1) - ...` runs as
 * one cupyx ufunc per call, written as SciPy's `rv_continuous` methods compute
 * (scipy/stats/_distn_infrastructure.py): `z = (x - loc) / scale` in float64 (`x`, `loc` and
 * `scale` go through `np.asarray`, so a float32 or integer `x` meets a 0-d int64 or float64 array
 * and is promoted: SciPy returns float64 for every input; cupyx's ufuncs have float32 loops,
 * hence the cast), then the standard function of `z`; the pdf is divided by `scale`, the
 * quantiles are `ndtri(q) * scale + loc`. ppf and isf evaluate `ndtri` in `q`'s own dtype and
 * only then scale it: rewritten for float64 `q` only (CUDA's float32 `normcdfinvf` is not
 * SciPy's float32 loop). Every other distribution and method (`norm.rvs`, `norm.fit`,
 * `t.cdf`...) has no cupyx counterpart and keeps its refusal.
 */
import { replace } from '../../edits';
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, unparen } from '../../syntax';
import type { TextEdit } from '../../types';

/** `np.sqrt(2*np.pi)` as SciPy's `_norm_pdf_C` holds it (correctly rounded; repr of the float64). */
const SQRT_2PI = '2.5066282746310002';

/** What a `norm.<method>` call becomes: the text before its first argument, and after it. */
export interface NormRewrite {
  /** Replaces the callee (`norm.cdf`): the new expression up to the argument `x`. */
  callee: string;
  /** The qualified name of the function the rewrite calls (for its import). */
  qualified: string;
  /** The other edits: the `(` before `x`, and everything after `x` to the call's end. */
  edits: TextEdit[];
  /** A note for the suggestion (scale not known to be positive), if any. */
  note?: string;
}

/** The methods rewritten, by name: whether each is a quantile (its argument a probability). */
const METHODS: ReadonlyMap<string, 'value' | 'quantile'> = new Map([
  ['cdf', 'value'],
  ['sf', 'value'],
  ['logcdf', 'value'],
  ['pdf', 'value'],
  ['ppf', 'quantile'],
  ['isf', 'quantile']
]);

/** Is this qualified name a `scipy.stats.norm` method the rewrite handles? */
export function isNormMethod(qualified: string): boolean {
  const m = /^scipy\.stats\.norm\.(\w+)$/.exec(qualified);
  return !!m && METHODS.has(m[1]);
}

/** A literal number, or an expression the analysis types as a host scalar (no array in it). */
function hostScalar(n: SyntaxNode, model: NotebookModel, cell: CellModel): boolean {
  const e = unparen(n);
  if (e.type === 'integer' || e.type === 'float' || (e.type === 'unary_operator' && /^[-+]\s*[\d.]/.test(e.text))) {
    return true;
  }
  const v = model.inferValue(e, cell);
  // a NumPy float32 scalar would keep SciPy's (x - loc) in float32; a Python number or a float64 does not
  return v.kind === 'scalar' && (v.library !== 'numpy' || v.dtype === 'float64');
}

/** `n`'s text, parenthesised unless it is an atom (a name, a call, an attribute, a subscript, a number). */
function atom(n: SyntaxNode): string {
  return /^(identifier|call|attribute|subscript|integer|float|parenthesized_expression)$/.test(n.type) ? n.text : `(${n.text})`;
}

/**
 * The rewrite of `call` (`norm.<method>(x[, loc[, scale]])`, callee `fn`), or why there is none
 * (a string), or null when the call takes host scalars only (SciPy's, on the host, as NumPy's
 * ufuncs of numbers stay). The argument `x` keeps its own edits: only the text around it changes.
 */
export function normRewrite(fn: SyntaxNode, call: SyntaxNode, qualified: string, model: NotebookModel, cell: CellModel, cp: string): NormRewrite | string | null {
  const method = qualified.slice('scipy.stats.norm.'.length);
  const kind = METHODS.get(method)!;
  const args = field(call, 'arguments');
  const { positional, keywords } = callArguments(call);
  const x = positional[0];
  const extra = [...keywords.keys()].filter(k => k !== 'loc' && k !== 'scale');
  const splat = !!args && args.namedChildren.some(a => a.type === 'list_splat' || a.type === 'dictionary_splat');
  if (!x || !args || extra.length > 0 || positional.length > 3 || splat) {
    return `\`${call.text.split('(')[0]}\` with ${extra.length > 0 ? `\`${extra[0]}=\`` : 'these arguments'}: rewritten only as norm.${method}(x, loc, scale) (cupyx.scipy.special)`;
  }
  const loc = positional[1] ?? keywords.get('loc');
  const scale = positional[2] ?? keywords.get('scale');
  const v = model.inferValue(x, cell);
  if (v.kind === 'scalar' && (!loc || hostScalar(loc, model, cell)) && (!scale || hostScalar(scale, model, cell))) {
    return null;
  }
  if (v.kind !== 'ndarray') {
    return `\`${call.text.split('(')[0]}(${x.text})\`: the analysis cannot tell that \`${x.text}\` is an array; scipy.stats.norm becomes cupyx.scipy.special only on arrays`;
  }
  if ((loc && !hostScalar(loc, model, cell)) || (scale && !hostScalar(scale, model, cell))) {
    return `\`${call.text.split('(')[0]}\` with an array \`loc\` or \`scale\`: rewritten only with numbers there (SciPy broadcasts and checks them element by element)`;
  }
  if (kind === 'quantile' && v.dtype !== 'float64') {
    return `\`norm.${method}\` of ${v.dtype ?? 'an untyped'} probabilities: SciPy evaluates ndtri in their own dtype, CUDA's float32 inverse is another approximation; rewritten for float64 only`;
  }
  // x in float64 (SciPy's dtype), then (x - loc) / scale: `open` goes before x, `close` after it
  const cast = v.dtype === 'float64' ? '' : `.astype(${cp}.float64, copy=False)`;
  const simple = /^(identifier|call|attribute|subscript|parenthesized_expression)$/.test(x.type);
  let open = cast && !simple ? '(' : '';
  let close = cast && !simple ? `)${cast}` : cast;
  if (loc && kind === 'value') {
    open = `(${open}`;
    close = `${close} - ${atom(loc)})`;
  }
  if (scale && kind === 'value') {
    open = `(${open}`;
    close = `${close} / ${atom(scale)})`;
  }
  const special = 'cupyx.scipy.special';
  let callee: string;
  let target: string;
  if (method === 'cdf' || method === 'logcdf' || method === 'sf') {
    const name = method === 'logcdf' ? 'log_ndtr' : 'ndtr';
    target = `scipy.special.${name}`;
    // sf: ndtr(-z), z grouped unless it is one atom (`-x`, `-x.astype(...)`, `-((x - loc) / scale)`)
    const group = method === 'sf' && open === '' && !simple;
    callee = `${special}.${name}(${method === 'sf' ? '-' : ''}${group ? '(' : ''}${open}`;
    close = `${close}${group ? ')' : ''})`;
  } else if (method === 'pdf') {
    // SciPy's -x**2 is NumPy's square (x*x), as cp.square; then / 2.0, / sqrt(2 pi), / scale
    target = 'numpy.exp';
    callee = `(${cp}.exp(-${cp}.square(${open}`;
    close = `${close}) / 2.0) / ${SQRT_2PI}${scale ? ` / ${atom(scale)}` : ''})`;
  } else {
    // ppf / isf: ndtri(q) (negated for isf), times scale, plus loc; q is float64 here, unscaled
    target = 'scipy.special.ndtri';
    const tail = `${scale ? ` * ${atom(scale)}` : ''}${loc ? ` + ${atom(loc)}` : ''}`;
    const wrap = tail !== '' || method === 'isf';
    callee = `${wrap ? '(' : ''}${method === 'isf' ? '-' : ''}${special}.ndtri(`;
    close = `)${tail}${wrap ? ')' : ''}`;
  }
  const scaleNote =
    scale && !(/^(integer|float)$/.test(unparen(scale).type) && Number(unparen(scale).text) > 0)
      ? `\`${call.text.split('(')[0]}(..., scale=${scale.text})\` became cupyx.scipy.special arithmetic with \`${scale.text}\` as the scale: SciPy gives nan for a scale <= 0, the rewrite does not check it`
      : undefined;
  return {
    callee,
    qualified: target,
    // `(` and the space up to x go; after x, SciPy's other arguments give way to the arithmetic
    edits: [replace(fn.endIndex, x.startIndex, ''), replace(x.endIndex, call.endIndex, close)],
    note: scaleNote
  };
}
