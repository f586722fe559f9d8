/**
 * What `cupyx.scipy` really provides, by SciPy name (checked against CuPy's comparison table
 * and the cupy 14.2.0 namespace on the H200 test machine with test/fixtures/cupy-api/check_names.py:
 * every name below exists in both scipy 1.18.1 and cupyx.scipy). Names missing here are "cupyx lacks it".
 */

const list = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter(Boolean));

export const CUPYX_SCIPY: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['fft', list(`fft ifft fft2 ifft2 fftn ifftn rfft irfft rfft2 irfft2 rfftn irfftn hfft ihfft
    fftfreq rfftfreq fftshift ifftshift dct idct dctn idctn dst idst dstn idstn next_fast_len`)],
  ['ndimage', list(`convolve convolve1d correlate correlate1d gaussian_filter gaussian_filter1d
    gaussian_gradient_magnitude gaussian_laplace generic_filter generic_filter1d laplace
    maximum_filter maximum_filter1d median_filter minimum_filter minimum_filter1d percentile_filter
    prewitt rank_filter sobel uniform_filter uniform_filter1d fourier_gaussian fourier_shift
    fourier_uniform fourier_ellipsoid affine_transform map_coordinates rotate shift zoom
    spline_filter spline_filter1d center_of_mass extrema histogram label labeled_comprehension
    maximum maximum_position mean median minimum minimum_position standard_deviation sum sum_labels
    variance binary_closing binary_dilation binary_erosion binary_fill_holes binary_hit_or_miss
    binary_opening binary_propagation black_tophat generate_binary_structure grey_closing
    grey_dilation grey_erosion grey_opening iterate_structure morphological_gradient
    morphological_laplace white_tophat distance_transform_edt value_indices`)],
  ['signal', list(`convolve correlate fftconvolve oaconvolve convolve2d correlate2d choose_conv_method
    wiener order_filter medfilt medfilt2d lfilter lfiltic lfilter_zi filtfilt sosfilt sosfiltfilt
    sosfilt_zi savgol_filter savgol_coeffs hilbert hilbert2 detrend resample resample_poly upfirdn
    decimate periodogram welch csd coherence spectrogram stft istft lombscargle firwin firwin2
    butter cheby1 cheby2 ellip  iirfilter freqz sosfreqz zpk2sos tf2sos find_peaks peak_prominences
    peak_widths argrelmax argrelmin argrelextrema get_window unique_roots`)],
  // cupyx/scipy/signal/windows/__init__.py (CuPy 14): SciPy's windows but dpss, lanczos, taylor,
  // kaiser_bessel_derived
  ['signal.windows', list(`general_cosine boxcar triang parzen bohman blackman nuttall blackmanharris
    flattop bartlett hann tukey barthann general_hamming hamming kaiser gaussian general_gaussian
    chebwin cosine exponential`)],
  ['special', list(`erf erfc erfcx erfinv erfcinv gamma gammaln loggamma digamma polygamma beta betaln
    betainc betaincinv gammainc gammaincc gammaincinv gammainccinv j0 j1  y0 y1 yn i0 i0e i1 i1e k0 k0e k1 k1e
         expit logit log_expit log_ndtr ndtr ndtri softmax log_softmax logsumexp xlogy xlog1py
    entr rel_entr kl_div huber pseudo_huber sinc zeta zetac expn exp1 expi ellipk ellipkm1 ellipj
     lpmv binom    poch boxcox boxcox1p inv_boxcox inv_boxcox1p 
    sici shichi cbrt exp10 exp2 expm1 log1p cosdg sindg tandg cotdg radian round bdtr bdtrc bdtri
    chdtr chdtrc chdtri fdtr fdtrc fdtri gdtr gdtrc nbdtr nbdtrc nbdtri pdtr pdtrc pdtri`)],
  ['linalg', list(`lu lu_factor lu_solve solve_triangular   block_diag circulant
    companion convolution_matrix dft fiedler hadamard hankel helmert hilbert  leslie toeplitz
       expm khatri_rao `)],
  ['stats', list(`entropy trim_mean zscore zmap boxcox_llf`)],
  ['spatial', list(`distance_matrix Delaunay KDTree`)],
  ['spatial.distance', list(`cdist pdist  minkowski euclidean sqeuclidean cityblock
    chebyshev canberra  correlation cosine hamming jensenshannon`)],
  ['interpolate', list(`interp1d PchipInterpolator pchip_interpolate Akima1DInterpolator
    CubicHermiteSpline CubicSpline BSpline make_interp_spline   UnivariateSpline
    BarycentricInterpolator barycentric_interpolate KroghInterpolator krogh_interpolate
    RBFInterpolator RegularGridInterpolator interpn PPoly BPoly NdPPoly`)],
  ['sparse', list(`csr_matrix csc_matrix coo_matrix dia_matrix spmatrix issparse isspmatrix
    isspmatrix_csr isspmatrix_csc isspmatrix_coo isspmatrix_dia eye identity diags spdiags
    random rand kron kronsum hstack vstack bmat tril triu find csr_array csc_array coo_array`)],
  ['sparse.linalg', list(`cg gmres minres cgs lsqr lsmr spsolve spsolve_triangular splu spilu
    factorized eigsh svds norm LinearOperator aslinearoperator`)],
  ['sparse.csgraph', list(`connected_components`)]
]);

/**
 * cupyx names that exist but run only with an optional RAPIDS library, by path prefix: why each
 * is kept on the host. `cupyx.scipy.spatial.distance` (and `spatial.distance_matrix`, built on
 * its minkowski) raises RuntimeError without cuVS >= 24.12 or pylibraft < 24.12 (neither is on
 * the H200 test machine), and with pylibraft computes in float32 (SciPy: float64).
 */
export const CUPYX_NEEDS_RAPIDS: ReadonlyMap<string, string> = new Map([
  ['spatial.distance', 'needs cuVS (RAPIDS) or an old pylibraft on the GPU machine (RuntimeError without them) and computes in float32 with pylibraft'],
  ['spatial.distance_matrix', 'is built on cupyx.scipy.spatial.distance, which needs cuVS (RAPIDS) or an old pylibraft (RuntimeError without them)']
]);

/**
 * cupyx names that exist and run but give wrong results, by SciPy path: why each stays SciPy's on
 * the host. cupyx.scipy.signal's (b, a) transfer-function recursions lose accuracy as the order
 * grows; measured on the H200 (2026-12-01, CuPy 14.2.0 against SciPy 1.18.1, 2M float64 samples
 * at fs = 10 kHz; bench/results/2026-12-01-h200-run20/iir_probe.txt): with
 * `butter(4, [30, 2000], btype="bandpass", fs=fs)` (8th-order polynomials) lfilter was off by
 * 3.05 times the signal's peak and filtfilt by 2.20 (rms 1.53 and 1.24 against SciPy's 0.796 and
 * 0.790), while an order-4 low-pass agreed to 4e-13 and sosfilt/sosfiltfilt (band-pass too) to
 * 1e-11. The order of `b, a` is seldom known where they are made, so a (b, a) recursion is kept
 * unless the cell itself makes `b, a` with one IIR design of a literal order whose polynomials are
 * of order 4 at most (`b, a = signal.butter(2, 0.2)`: cupy-rewrite.ts lowOrderBa): lfilter,
 * filtfilt, and lfiltic / lfilter_zi, the initial states made for them (no work worth a GPU: a
 * few coefficients).
 */
const BA_RECURSION =
  "cupyx.scipy.signal's (b, a) recursions lose accuracy at high order: on the H200 an 8th-order band-pass gave rms 1.53 against SciPy's 0.80 (an order-4 low-pass matched), " +
  'and this (b, a) is not made in the cell by one design of a literal order of 4 or less (a band design doubles it); ' +
  "the sos form (signal.butter(..., output='sos') with sosfilt/sosfiltfilt) runs on the GPU and matches";
export const CUPYX_INACCURATE: ReadonlyMap<string, string> = new Map([
  ['signal.lfilter', BA_RECURSION],
  ['signal.filtfilt', BA_RECURSION],
  ['signal.lfiltic', BA_RECURSION],
  ['signal.lfilter_zi', BA_RECURSION]
]);

/**
 * SciPy functions that convert their signal to float64 before working (`x = np.asarray(x,
 * dtype=np.float64)` in scipy/signal/_peak_finding.py `_arg_x_as_expected`) where cupyx keeps
 * the input's dtype: a float32 signal gives SciPy float64 peak heights and prominences, cupyx
 * float32 ones. The rewrite converts the signal as SciPy does (`cp.asarray(x, dtype=cp.float64)`,
 * no copy when it is float64 already), by SciPy path: the signal's keyword.
 */
export const SCIPY_FLOAT64_SIGNAL: ReadonlyMap<string, string> = new Map([
  ['signal.find_peaks', 'x'],
  ['signal.peak_prominences', 'x'],
  ['signal.peak_widths', 'x']
]);

/**
 * Arguments with which a cupyx.scipy function exists but runs a Python loop over the data on the
 * host, reading device values one at a time (a device-to-host sync each), by SciPy path. Such a
 * call is slower on the GPU by orders of magnitude, so it is never moved: in a cell with other
 * work for the device it stays SciPy's on the host, handed a host copy of its device arguments
 * (`find_peaks(cp.asnumpy(env), distance=50)`: the signal, once, a copy the cell's own copy back
 * of it reuses: cupy-rewrite.ts sharedHostCallCopies), its results host values
 * (rules/arrays/cupy-rewrite.ts libraryUses); a cell with no other work stays on the host
 * (rules/arrays/api-limits.ts unsupportedArgumentRefusals). `why` says why, for both.
 */
export const CUPYX_HOST_LOOP_ARGUMENTS: ReadonlyMap<string, readonly { keyword: string; position: number; why: string }[]> = new Map([
  [
    'signal.find_peaks',
    [
      {
        keyword: 'distance',
        position: 3,
        why:
          "cupyx's find_peaks applies `distance` in a Python loop over the peaks that reads device values " +
          'one at a time (several host syncs per peak, cupyx/scipy/signal/_peak_finding.py ' +
          '_select_by_peak_distance): 0.89 s for 1,930 peaks on an H200 against 0.7 ms in SciPy'
      }
    ]
  ]
]);

/**
 * SciPy functions cupyx lacks that a cell with other device work can keep on the host at little
 * cost, by SciPy path, with why: one pass over their input, whose results are small host values
 * (Python objects) the cell reads only as host code. Such a call stays SciPy's on the host, handed
 * a host copy of its device arguments, as a call of CUPYX_HOST_LOOP_ARGUMENTS is (cupy-rewrite.ts
 * libraryUses, api-limits.ts hostLoopArgument); a cell with no other device work stays on the host.
 */
export const CUPYX_MISSING_HOST_CALLS: ReadonlyMap<string, string> = new Map([
  [
    'ndimage.find_objects',
    'cupyx.scipy.ndimage has no find_objects (CuPy 14.2); SciPy finds the bounding boxes in one pass over the labels and returns Python slices'
  ]
]);

/** Why `scipy.<path>`'s cupyx counterpart is not used as it is (CUPYX_NEEDS_RAPIDS), if it is not. */
export function cupyxNeedsRapids(path: string): string | undefined {
  for (const [prefix, why] of CUPYX_NEEDS_RAPIDS) {
    if (path === prefix || path.startsWith(`${prefix}.`)) {
      return why;
    }
  }
  return undefined;
}

/**
 * Is `scipy.<path>` available as `cupyx.scipy.<path>`? `path` is e.g. `ndimage.gaussian_filter`
 * or `sparse.linalg.cg`.
 */
export function cupyxHasScipyPath(path: string): boolean {
  const parts = path.split('.');
  for (let k = parts.length - 1; k >= 1; k--) {
    const module = parts.slice(0, k).join('.');
    const rest = parts.slice(k);
    const names = CUPYX_SCIPY.get(module);
    if (names && rest.length === 1) {
      return names.has(rest[0]);
    }
  }
  return false;
}

/** The scipy submodule a path belongs to (`ndimage`, `sparse.linalg`), if cupyx mirrors it. */
export function cupyxModuleOf(path: string): string | null {
  const parts = path.split('.');
  for (let k = parts.length - 1; k >= 1; k--) {
    const module = parts.slice(0, k).join('.');
    if (CUPYX_SCIPY.has(module)) {
      return module;
    }
  }
  return CUPYX_SCIPY.has(path) ? path : null;
}
