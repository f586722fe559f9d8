/**
 * What CuPy really provides, by NumPy name.
 *
 * Checked against CuPy's "Comparison Table" (docs.cupy.dev/en/stable/reference/comparison.html,
 * CuPy 13/14) and the cupy-cuda13x 14.2.0 namespace on the H200 test machine (2026-11-30, with
 * test/fixtures/cupy-api/check_names.py: every name below exists in numpy 2.5.2 and cupy). A name missing
 * here is treated as "CuPy lacks it" and the rule refuses (or keeps the call on the host where
 * the call is I/O): an unknown function never silently becomes a `cp.` call. Two that CuPy lacks
 * get a device form written from CuPy's own calls instead: `nanpercentile` and `nanquantile`
 * along an axis (rules/arrays/nan-quantile.ts).
 */

const list = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter(Boolean));

/** numpy.<name> functions with a cupy.<name> of the same signature (common arguments). */
export const CUPY_NUMPY_FUNCTIONS: ReadonlySet<string> = list(`
  empty empty_like eye identity ones ones_like zeros zeros_like full full_like
  array asarray asanyarray ascontiguousarray asfortranarray copy fromfunction fromiter
  arange linspace logspace meshgrid mgrid ogrid diag diagflat tri tril triu vander
  copyto shape reshape ravel moveaxis rollaxis swapaxes transpose atleast_1d atleast_2d atleast_3d
  broadcast broadcast_arrays broadcast_to expand_dims squeeze concatenate stack vstack hstack
  dstack column_stack split array_split dsplit hsplit vsplit tile repeat append resize unique
  trim_zeros flip fliplr flipud roll rot90 pad
  bitwise_and bitwise_or bitwise_xor bitwise_not invert left_shift right_shift packbits unpackbits
  take take_along_axis choose compress diagonal select place put putmask fill_diagonal nonzero
  where argwhere flatnonzero indices ix_ ravel_multi_index unravel_index tril_indices triu_indices
  diag_indices tril_indices_from triu_indices_from diag_indices_from
  all any isfinite isinf isnan isneginf isposinf isreal isrealobj iscomplex iscomplexobj isscalar
  logical_and logical_or logical_not logical_xor allclose isclose array_equal array_equiv
  greater greater_equal less less_equal equal not_equal isin intersect1d setdiff1d setxor1d union1d
  sin cos tan arcsin arccos arctan hypot arctan2 degrees radians unwrap deg2rad rad2deg
  sinh cosh tanh arcsinh arccosh arctanh around round rint fix floor ceil trunc
  prod sum nanprod nansum cumprod cumsum nancumprod nancumsum diff gradient cross
  exp expm1 exp2 log log10 log2 log1p logaddexp logaddexp2 i0 sinc signbit copysign frexp ldexp
  nextafter add reciprocal positive negative multiply divide power subtract true_divide floor_divide
  float_power fmod mod modf remainder divmod angle real imag conj conjugate convolve clip sqrt cbrt
  square absolute abs fabs sign heaviside maximum minimum fmax fmin nan_to_num interp gcd lcm
  sort lexsort argsort sort_complex partition argpartition argmax nanargmax argmin nanargmin
  searchsorted extract count_nonzero
  amin amax min max nanmin nanmax ptp percentile quantile median average mean std var nanmedian
  nanmean nanstd nanvar corrcoef correlate cov histogram histogram2d histogramdd bincount digitize
  dot vdot inner outer matmul tensordot einsum kron trace
  polyval polyfit poly1d roots polyadd polysub polymul
  bartlett blackman hamming hanning kaiser
  may_share_memory shares_memory ndim size result_type can_cast common_type min_scalar_type
  promote_types dtype finfo iinfo piecewise
`);

/**
 * NumPy functions CuPy has under another name, numpy.<key> as cupy.<value> with the same
 * signature: NumPy 2's `trapezoid` is CuPy's `trapz(y, x=None, dx=1.0, axis=-1)` (CuPy's
 * reference lists `trapz` only; its `x` must be a device array, as the rewrite's inputs are).
 */
export const CUPY_RENAMED: ReadonlyMap<string, string> = new Map([['trapezoid', 'trapz']]);

/**
 * numpy.r_ / numpy.c_ (index-expression concatenation): CuPy's take arrays and scalars only; a
 * slice (`np.r_[0:10, x]`) or a string directive (`np.r_['0,2', a, b]`) raises
 * NotImplementedError there (cupy/_indexing/generate.py), so such uses stay NumPy's.
 */
export const CUPY_CONCATENATORS: ReadonlySet<string> = list(`r_ c_`);

/**
 * Arguments of numpy.<name> that cupy.<name> does not take, by keyword and NumPy's position:
 * the rewrite refuses a call passing one (other than None; rules/arrays/api-limits.ts). CuPy
 * 14.2, cupy/_binary/packing.py: `packbits(a, axis=None, bitorder='big')` and
 * `unpackbits(a, axis=None, bitorder='big')` pack or unpack the flattened array only and raise
 * NotImplementedError('axis option is not supported yet') for any `axis`; `unpackbits` has no
 * `count` (NumPy's third parameter).
 */
export const CUPY_UNSUPPORTED_ARGUMENTS: ReadonlyMap<string, readonly { keyword: string; position: number; why: string }[]> = new Map([
  ['packbits', [{ keyword: 'axis', position: 1, why: "CuPy's packbits packs the flattened array only (axis: NotImplementedError, cupy/_binary/packing.py)" }]],
  [
    'unpackbits',
    [
      { keyword: 'axis', position: 1, why: "CuPy's unpackbits unpacks the flattened array only (axis: NotImplementedError, cupy/_binary/packing.py)" },
      { keyword: 'count', position: 2, why: "CuPy's unpackbits has no count parameter (cupy/_binary/packing.py)" }
    ]
  ]
]);

/** numpy.linalg.<name> available as cupy.linalg.<name>. */
export const CUPY_LINALG_FUNCTIONS: ReadonlySet<string> = list(`
  cholesky qr svd eigh eigvalsh norm det matrix_rank slogdet solve tensorsolve lstsq inv pinv
  tensorinv matrix_power
`);

/** numpy.fft.<name> available as cupy.fft.<name> (cuFFT). */
export const CUPY_FFT_FUNCTIONS: ReadonlySet<string> = list(`
  fft ifft fft2 ifft2 fftn ifftn rfft irfft rfft2 irfft2 rfftn irfftn hfft ihfft
  fftfreq rfftfreq fftshift ifftshift
`);

/**
 * numpy.lib.stride_tricks.<name> available as cupy.lib.stride_tricks.<name>: views with the same
 * strides arithmetic (`sliding_window_view(x, n)` frames a signal without a copy; CuPy does not
 * take `writeable=True`, NumPy's default is False).
 */
export const CUPY_STRIDE_TRICKS: ReadonlySet<string> = list(`sliding_window_view as_strided`);

/** numpy.random.<name> available as cupy.random.<name> (cuRAND; different streams). */
export const CUPY_RANDOM_FUNCTIONS: ReadonlySet<string> = list(`
  rand randn randint random_integers random_sample random ranf sample choice shuffle permutation
  seed beta binomial chisquare dirichlet exponential f gamma geometric gumbel hypergeometric
  laplace logistic lognormal logseries multinomial multivariate_normal negative_binomial
  noncentral_chisquare noncentral_f normal pareto poisson power rayleigh standard_cauchy
  standard_exponential standard_gamma standard_normal standard_t triangular uniform vonmises
  wald weibull zipf default_rng RandomState Generator
`);

/** Methods of numpy.random.Generator that cupy.random.Generator provides. */
export const CUPY_GENERATOR_METHODS: ReadonlySet<string> = list(`
  random standard_normal uniform integers exponential gamma beta binomial poisson
  standard_exponential standard_gamma chisquare geometric
`);

/**
 * NumPy names that are types, constants or dtypes: CuPy accepts NumPy's own objects
 * (`np.float32` is a valid CuPy dtype), so the rewrite leaves them as they are.
 */
export const NUMPY_PASSTHROUGH_NAMES: ReadonlySet<string> = list(`
  float16 float32 float64 float_ double single half longdouble complex64 complex128 complex_
  cdouble csingle int8 int16 int32 int64 intp uint8 uint16 uint32 uint64 uintp bool_ bool
  integer floating complexfloating number generic signedinteger unsignedinteger inexact
  pi e inf nan newaxis euler_gamma PINF NINF NAN NaN Inf ndarray errstate seterr
`);

/** NumPy functions that read or write files: they stay NumPy, on the host. */
export const NUMPY_HOST_IO_PRODUCERS: ReadonlySet<string> = list(`
  load loadtxt genfromtxt fromfile frombuffer fromstring memmap
`);
export const NUMPY_HOST_IO_CONSUMERS: ReadonlySet<string> = list(`
  save savez savez_compressed savetxt
`);

/**
 * NumPy functions the GPU rewrite refuses, with the reason shown to the user. These are the
 * look-alikes that a blind `np.` -> `cp.` substitution would break or make slower.
 */
export const NUMPY_REFUSED: ReadonlyMap<string, string> = new Map([
  ['vectorize', "per-element Python loop/function (np.vectorize runs a Python function once per element): needs a kernel (Numba CUDA @cuda.jit or @vectorize(target='cuda')), not CuPy array calls; kernel rules (GPU2xx) are a later family"],
  ['frompyfunc', "per-element Python loop/function (np.frompyfunc wraps a Python function per element and returns object arrays, which CuPy cannot hold): needs a kernel (Numba CUDA @cuda.jit or @vectorize(target='cuda')), not CuPy array calls; kernel rules (GPU2xx) are a later family"],
  ['fromiter', "per-element Python loop/function (np.fromiter consumes a Python iterable element by element): needs a kernel (Numba CUDA @cuda.jit or @vectorize(target='cuda')), not CuPy array calls; kernel rules (GPU2xx) are a later family"],
  ['matrix', 'np.matrix has no CuPy equivalent; use 2-D arrays and @'],
  ['asmatrix', 'np.matrix has no CuPy equivalent; use 2-D arrays and @'],
  ['bmat', 'np.matrix has no CuPy equivalent; use 2-D arrays and @'],
  ['apply_along_axis', "per-element Python loop/function (np.apply_along_axis calls a Python function once per slice; on the GPU each call would be separate launches): needs a kernel (Numba CUDA @cuda.jit or @vectorize(target='cuda')), not CuPy array calls; kernel rules (GPU2xx) are a later family"],
  ['apply_over_axes', 'np.apply_over_axes calls Python once per axis'],
  ['nditer', 'np.nditer is element-by-element Python iteration'],
  ['ndenumerate', 'np.ndenumerate is element-by-element Python iteration'],
  ['ndindex', 'np.ndindex drives element-by-element Python iteration'],
  ['char', 'np.char string arrays have no CuPy equivalent (CuPy has no string dtypes)'],
  ['strings', 'np.strings functions work on string arrays, which CuPy cannot hold'],
  ['rec', 'record arrays (structured dtypes) are not supported by CuPy'],
  ['ma', 'masked arrays (np.ma) have no CuPy equivalent'],
  ['datetime64', 'datetime64 arrays are not supported by CuPy'],
  ['timedelta64', 'timedelta64 arrays are not supported by CuPy'],
  ['busday_count', 'business-day functions have no CuPy equivalent'],
  ['busday_offset', 'business-day functions have no CuPy equivalent'],
  ['object_', 'object arrays cannot live on the GPU'],
  ['str_', 'string arrays cannot live on the GPU'],
  ['bytes_', 'byte-string arrays cannot live on the GPU'],
  ['void', 'structured (void) dtypes are not supported by CuPy']
]);

/** Elementwise NumPy ufuncs: one memory pass each, the candidates for fusion. */
export const ELEMENTWISE_UFUNCS: ReadonlySet<string> = list(`
  sin cos tan arcsin arccos arctan hypot arctan2 degrees radians deg2rad rad2deg
  sinh cosh tanh arcsinh arccosh arctanh rint fix floor ceil trunc
  exp expm1 exp2 log log10 log2 log1p logaddexp logaddexp2 sinc signbit copysign
  add reciprocal positive negative multiply divide power subtract true_divide floor_divide
  float_power fmod mod remainder sqrt cbrt square absolute abs fabs sign heaviside maximum minimum
  fmax fmin where clip isfinite isinf isnan logical_and logical_or logical_not logical_xor
  greater greater_equal less less_equal equal not_equal real imag conj conjugate angle
`);

/** Transcendental ufuncs (the CPU pays a few ns per element for them). */
export const TRANSCENDENTAL_UFUNCS: ReadonlySet<string> = list(`
  sin cos tan arcsin arccos arctan hypot arctan2 sinh cosh tanh arcsinh arccosh arctanh
  exp expm1 exp2 log log10 log2 log1p logaddexp logaddexp2 sinc power float_power sqrt cbrt
`);

/** Full reductions fusion recognises over a chain (typed kernels: rules/arrays/reduction-kernel.ts). */
export const FUSABLE_REDUCTIONS: ReadonlySet<string> = list(`sum prod amax amin max min mean count_nonzero any all`);

/** Full reductions / statistics (one pass, output much smaller than input). */
export const REDUCTIONS: ReadonlySet<string> = list(`
  sum prod mean std var max min amax amin argmax argmin nansum nanmean nanstd nanvar nanmax nanmin
  all any count_nonzero median average ptp percentile quantile cumsum cumprod
`);

/** Is `numpy.<path>` something CuPy provides as `cupy.<path>`? */
export function cupyHasNumpyPath(path: string): boolean {
  const parts = path.split('.');
  if (parts.length === 1) {
    return CUPY_NUMPY_FUNCTIONS.has(parts[0]);
  }
  if (parts.length === 2) {
    const [sub, name] = parts;
    if (sub === 'linalg') {
      return CUPY_LINALG_FUNCTIONS.has(name);
    }
    if (sub === 'fft') {
      return CUPY_FFT_FUNCTIONS.has(name);
    }
    if (sub === 'random') {
      return CUPY_RANDOM_FUNCTIONS.has(name);
    }
    if (name === 'at') {
      return UFUNCS_WITH_AT.has(sub);
    }
  }
  if (parts.length === 3 && parts[0] === 'lib' && parts[1] === 'stride_tricks') {
    return CUPY_STRIDE_TRICKS.has(parts[2]);
  }
  return false;
}

/**
 * Ufuncs whose `.at` CuPy implements (`cupy.add.at(a, idx, b)`: unbuffered, repeated indices
 * accumulate, through atomics in `ndarray._scatter_op`, CuPy >= 12; NumPy's `np.add.at` on CuPy
 * arrays dispatches to it since 12.1).
 */
const UFUNCS_WITH_AT: ReadonlySet<string> = new Set(['add', 'subtract', 'maximum', 'minimum']);

/**
 * NumPy ufuncs by number of inputs (`np.add.nin == 2`, NumPy 2.4): a positional argument at
 * index nin and after is an output (`np.add(u, 1.0, u)`, `np.sqrt(u, u)` update `u` in place).
 */
export const NUMPY_UFUNC_NIN: ReadonlyMap<string, number> = new Map([
  ...[...list(`
    abs absolute acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh
    bitwise_count bitwise_invert bitwise_not cbrt ceil conj conjugate cos cosh deg2rad degrees
    exp exp2 expm1 fabs floor invert isfinite isinf isnan isnat log log10 log1p log2 logical_not
    negative positive rad2deg radians reciprocal rint sign signbit sin sinh spacing sqrt square
    tan tanh trunc frexp modf
  `)].map(n => [n, 1] as [string, number]),
  ...[...list(`
    add arctan2 atan2 bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor
    copysign divide equal float_power floor_divide fmax fmin fmod gcd greater greater_equal
    heaviside hypot lcm ldexp left_shift less less_equal logaddexp logaddexp2 logical_and
    logical_or logical_xor matmul matvec maximum minimum mod multiply nextafter not_equal pow
    power remainder right_shift subtract true_divide vecdot vecmat divmod
  `)].map(n => [n, 2] as [string, number])
]);
