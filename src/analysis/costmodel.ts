/**
 * Predicted CPU and GPU time of a cell's array work.
 *
 * A roofline-style estimate: each elementwise pass streams its bytes through memory; library
 * kernels (matmul, FFT, sort, filters, sparse products) run at the rate measured for their class;
 * every kernel launch costs a fixed overhead; host<->device copies run at the measured pageable
 * rates. Every rate is a field of the `DeviceProfile` the prediction is made for; the default
 * profile's are measurements on the H200 test machine and its 16-core host (`MEASURED_H200`, with
 * its source), and `deviceProfileFromReport` builds a profile from what the kernel reports of its
 * own device (scaling what its doctor measured, keeping the H200's figures for the rest).
 * `test/unit/costmodel-calibration.test.ts` checks the model against every bench workload and the
 * rule fixtures that lost as single cells.
 *
 * Two predictions of the same work:
 * - `predict`: the cell run on its own, as the rewrite of that one cell (the suggestion's
 *   figure): the cell's own host->device copies of its inputs and its device->host copies for
 *   host consumers are charged;
 * - `predictResident`: the cell inside the whole-notebook rewrite (`plan.ts`): data already on
 *   the device, kernels defined once in the import cell; no copies.
 * Both give the steady figure (`speedup`: a warm process, what the A/B harness measures) and,
 * from the cell's first uses (`WorkEstimate.firstUse`, priced by apis/first-use.ts: libraries set
 * up, built-in and cupyx kernels loaded or compiled), the GPU seconds in a fresh kernel with
 * CuPy's kernel cache warm (`freshSessionSeconds`: every session after the first) and on the
 * machine's first run (`firstRunSeconds`: NVRTC compiles).
 * A single-cell prediction under `NOT_A_SPEEDUP` is not a speedup: its reason says so and why.
 * The prediction is a hypothesis for ranking and refusing; the A/B run is the evidence.
 */
import { FIRST_USE_H200, type FirstUseCharge } from './apis/first-use';
import type { DeviceProfile, H200Figure, Prediction } from './types';
import { formatBytes } from './values';

/**
 * cuSOLVER's SVD through CuPy on the H200, device flops per second (`MEASURED_H200.deviceSvdFlops`,
 * where it was measured): the one decomposition timed there, and for now the rate of the others
 * (`MEASURED_H200.deviceDecompositionFlops`).
 */
const CUSOLVER_SVD_FLOPS = 0.6e12;

/**
 * What the H200 test machine measured (bench/results/2026-11-30-h200-run2: `results.json`,
 * `doctor.txt`, `verify_fixtures.txt`; summarised in bench/RESULTS.md). Per-class host rates are
 * the CPU baselines of the bench workloads divided by the work the rules count for them.
 */
export const MEASURED_H200 = {
  /** D2D copy of 1 GiB, bytes read + written per second (RESULTS.md ceilings, run 2). */
  deviceBandwidth: 4.128e12,
  /** Pageable host->device, 256 MiB (run 2 ceilings). */
  hostToDevice: 7.0e9,
  /** Device->host into a new pageable NumPy array, 256 MiB (run 2 ceilings). */
  deviceToHost: 3.0e9,
  /** One tiny CuPy kernel launched from Python (doctor.txt, run 2). */
  launchOverhead: 13e-6,
  /** NumPy's streaming bandwidth on the host (doctor.txt, run 2: 13.2 GB/s). */
  hostBandwidth: 13.2e9,
  /** float32 matmul 8192^3: 2 n^3 / 0.984 s CPU (matmul workload); float64 runs at half. */
  hostMatmulFlops: 1.1e12,
  /** np.fft.fft2 of 8192^2 complex64: 5 n log2 n / 4.99 s (fft2 workload; pocketfft, one core). */
  hostFftFlops: 1.75e9,
  /** np.sort of 50M float32: 4 n log2 n / 0.504 s (sorting workload). */
  hostSortOpsPerSecond: 1.0e10,
  /**
   * scipy.ndimage gaussian_filter + median_filter of 4096^2 float32: 2 calls x 20 flops per
   * element (what the rules count for a SciPy filter) / 4.02 s (ndimage_filter workload).
   */
  hostFilterFlops: 1.67e8,
  /**
   * SciPy CSR matrix-vector product, host seconds per non-zero: 5.0 ns with random columns
   * (sparse_matvec_csr, 100 ms for 20M), 2.2 ns banded (GPU102/flag-sparse-matvec, 13.3 ms for
   * 6M); the model takes their geometric mean.
   */
  hostSparseSecondsPerNonZero: 3.3e-9,
  /**
   * cuRAND through cupy.random.Generator, seconds per value: uniform float64 ~17.5 ps (monte_carlo
   * at 0.1 scale: 1.26 ms for 2 x 20M draws and the chain over them, ~0.5 ms of it the chain);
   * normal ~45 ps (GPU101/flag-random-created-on-device: 3.2 ms for 64M normals and two
   * reductions).
   */
  deviceSecondsPerUniformDraw: 17.5e-12,
  deviceSecondsPerNormalDraw: 45e-12,
  /**
   * Connected components and measurements over them, 4096^2 (bench/results/2026-12-01-h200-run14,
   * probe_label.txt; 4,790 components): SciPy's label 166 ms, its sum over the labels 277 ms
   * (mean 252 ms); cupyx's label 1.7 ms, its sum or mean (int32 or float input) 40.6 ms. That
   * kernel scans the labels to measure for each element (an atomic add where one matches), so
   * its cost grows with their count: the figure holds for thousands of labels, and is low for
   * tens of thousands.
   */
  hostLabelSecondsPerElement: 9.9e-9,
  hostMeasureSecondsPerElement: 16e-9,
  deviceLabelSecondsPerElement: 0.1e-9,
  deviceMeasureSecondsPerElement: 2.4e-9,
  /**
   * Component sizes as `cp.bincount(labels.ravel(), minlength=n + 1)` (integer atomics, one
   * pass): 0.29 ms for the same 16.7M labels (0.33 ms with 1,063 labels; run 16, probe.txt).
   */
  deviceCountSecondsPerElement: 17.5e-12,
  /**
   * NumPy's loops that run per item, not per byte, priced per item on the host (the rules add
   * them up in `WorkEstimate.hostLoopSeconds`). Timed with NumPy 2 on the 2-core CPU machine of
   * session 11 (2026-12-02) and taken as they are for the H200's host: that host ran the cells
   * below in about the time these rates give (single-threaded work, no faster there).
   * - `np.einsum` without `optimize` walks its whole index space (every subscript letter's range
   *   multiplied: "ij,njk,lk->nil" is n*i*j*k*l points) in one nditer loop: 2.7 ns per point for
   *   F P F^T over 20,000 stacked 4x4 (5.1M points, 14 ms), 6.5 ns for "nij,jk,nkl->nil", 4.2
   *   for H P H^T, 2.2-10 ns for the small ones; 4 ns taken. l_kalman cell 5 (99 steps of five
   *   einsums, a batched solve and inv) then comes to ~5.4 s against 5.4 s (run 22) and 7.5 s (run
   *   20) measured on the H200's host.
   */
  hostSecondsPerEinsumPoint: 4e-9,
  /**
   * NumPy's own cost per call, whatever the data (Python's call, argument parsing, the ufunc's or
   * gufunc's dispatch, the result's allocation): what a Python loop of calls on tiny arrays pays.
   * Measured on the H200's host by bench/host_probe.py --parts tiny_calls (run 27,
   * bench/results/2026-12-02-h200-run27/host_probe_1.json, `numpy_us`; l_kalman cell 9's loop
   * body): 4x4 + 4x4 0.49 µs, np.eye(4) 1.1, a row assignment 0.32 (0.5 taken,
   * `hostSecondsPerCall`, for every operator, ufunc, method and call not below); 4x4 @ 4x4 1.62,
   * 4x4 @ 4-vector 1.59, F @ P @ F.T 3.28 for its two (1.6, `...MatmulCall`); np.linalg.inv of a
   * 2x2 6.3 (`...LinalgCall`, for np.linalg/scipy.linalg on one matrix). Reductions called as
   * NumPy functions run Python wrappers first: np.sum and np.mean of a 4-vector 3.3 and 4.9 µs,
   * timed with timeit on the CPU machine of session 15 (NumPy 2.4.6; its add 0.59 µs against the
   * H200 host's 0.49), 3.5 taken (`...ReductionCall`). l_kalman cell 9 (200 tracks of a 100-step
   * Kalman filter and smoother in 4x4 matrices, ~580k calls) ran 0.79 s on the H200's host (run
   * 25), priced at 2.3 ms before (its arrays' bytes only).
   */
  hostSecondsPerCall: 0.5e-6,
  hostSecondsPerMatmulCall: 1.6e-6,
  hostSecondsPerLinalgCall: 6.3e-6,
  hostSecondsPerReductionCall: 3.5e-6,
  /**
   * What CuPy's `a @ b` and its inverse or solve of one small matrix cost the host, in launches
   * (`launchOverhead` each), measured on resident data on the H200 with a synchronisation after
   * each call (bench/host_probe.py cupy_calls and tiny_calls): `x @ F.T` of (20000, 4) by (4, 4)
   * 37.5 µs against 22.3 for an addition (run 26, host_probe_3.json) and 25.9 against 16.6 (run
   * 27), 4x4 @ 4x4 18.2 against 15.6 for a 4x4 addition (run 27): 1.2-1.7 additions, 1.5 taken
   * (one launch before); `cp.linalg.inv` of one 2x2 117 µs, 7.5 additions (getrf, getrs and the
   * copies and checks around them: two launches before).
   */
  deviceMatmulLaunches: 1.5,
  deviceSmallSolveLaunches: 7.5,
  /**
   * Stacked small matrices (`np.linalg.solve`/`inv`/`det`... of (n, m, m)): LAPACK once per
   * matrix through a gufunc, ~0.25 µs each plus ~6 ns per m^3 (inv of 20,000 2x2 0.28 µs each,
   * 4x4 0.65 µs; solve of 2x2 with 2x4 right-hand sides 0.36 µs; det of 4x4 0.14 µs); the
   * eigen and singular value decompositions ~3.5 times that per m^3 (eigh of 4x4 1.7 µs).
   */
  hostSecondsPerStackedMatrix: 0.25e-6,
  hostSecondsPerStackedMatrixCube: 6e-9,
  /**
   * `np.nanpercentile`/`np.nanquantile` (and `nanmedian` of long axes) along an axis run
   * `np.apply_along_axis`: a Python call per slice that drops the NaNs and partitions the rest,
   * ~45 µs per slice plus ~35 ns per element here ((240, 20000) float32: 49 µs per slice;
   * (1000, 5000): 73 µs; (60, 20000): 50 µs). g_climate cell 12 (259,200 slices of 240) measured
   * 11.8 and 12.6 s on the H200's host, 47 µs a slice: 40 µs and 30 ns taken there.
   */
  hostSecondsPerQuantileSlice: 40e-6,
  hostSecondsPerQuantileSliceElement: 30e-9,
  /**
   * `np.add.at(sums, lab, X)` (unbuffered ufunc.at): 127 ns per index into rows of 8 float32
   * (16 ns per element); a scalar per index into a 1-D target takes NumPy 2's fast path, 1.5 ns.
   */
  hostSecondsPerUfuncAtElement: 16e-9,
  hostSecondsPerUfuncAtScalar: 1.5e-9,
  /**
   * NumPy's inner loop set up once per row where the last axis is short, beyond the streamed pass
   * the model prices for the same elements. Measured on the H200's host by bench/host_probe.py
   * kmeans_pieces (run 27, bench/results/2026-12-02-h200-run27/host_probe_1.json, `kmeans_ms`;
   * i_kmeans cell 5's distance step at n, k, d = 200,000, 12, 8 float32, 19.2M elements in 2.4M
   * rows of 8): the broadcast subtraction `X[:, None, :] - C[None, :, :]` 55.3 ms (2.9 ns an
   * element), `.sum(axis=2)` of the squares 52.6 ms (2.7 ns an element). The model prices a flat
   * pass over those elements at 17.5 ms (subtraction) and 5.8 ms (sum), so a row costs (55.3 -
   * 17.5) / 2.4M = 15.8 ns more and an output (52.6 - 5.8) / 2.4M = 19.5 ns more: with them the
   * model gives the measured 2.9 and 2.7 ns an element. (Session 11's figures, timed on a 2-core
   * machine against NumPy's flat rate there, were 13 and 16 ns.) i_kmeans cell 5 measured 12.8-20
   * s for its 50 iterations on the H200's host (runs 20-25).
   */
  hostSecondsPerBroadcastRow: 15.8e-9,
  hostSecondsPerReducedRow: 19.5e-9,
  /**
   * What NumPy's NaN-skipping reductions cost beyond the plain one, per float32 element of
   * (240, 180, 360) with 1% NaNs (here; g_climate's cells on the H200's host): `nansum` 1.6 ns
   * against 0.3 for `mean` (a copy with the NaNs replaced: 1.3 ns more), `nanmean` 2.6 ns (2.3
   * more: the count too), `nanstd` 5.4 ns (5 more). g_climate cell 10 (one nan-free sum and a
   * where over 62M) and cell 7 (nansum, nanmean over 62M float32) measured 0.46 and 1.1-1.4 s.
   */
  hostSecondsPerNanReducedElement: 1.3e-9,
  hostSecondsPerNanMeanElement: 2.3e-9,
  hostSecondsPerNanSpreadElement: 5e-9,
  /**
   * SciPy's filters, host seconds per element of the data (a median filter's per element of its
   * window). Timed on the CPU machine of session 11 on 2048^2 float32 (gaussian sigma 1.2-3 20-31
   * ns, median 3x3 123 ns, 5x5 379 ns, (1, 5) 41 ns, i.e. 14-16 ns per window element; uniform
   * 51 15 ns, sobel 16 ns, shift order 1 16 ns, order 3 90 ns; savgol_filter(11, 3) 7.6 ns on
   * float64; sosfilt and sosfiltfilt of an order-6 filter 7.8 and 23.5 ns a sample on 2M float64)
   * and scaled to the H200's host by what it measured: the ndimage_filter workload (gaussian sigma
   * 3 + median 3x3 of 4096^2 float32, 4.02 s: these rates give ~3.6 s), a_microscopy cell 3
   * (gaussian, median 3x3, uniform 51: 3.42 s), g_register cell 9 (order-1 shifts, 0.14 s), the
   * sosfiltfilt probe (45.8 ms for 2M samples, iir_probe.txt, as here). Before, every SciPy call
   * was 20 flops an element at `hostFilterFlops`, 120 ns: ~4x too much for gaussian_filter and
   * shift, 15x for savgol_filter.
   */
  hostScipyFilterSeconds: {
    gaussian_filter: 35e-9,
    uniform_filter: 20e-9,
    sobel: 20e-9,
    prewitt: 20e-9,
    medianPerWindowElement: 20e-9,
    interpolateLinear: 20e-9,
    interpolateSpline: 120e-9,
    savgol_filter: 10e-9,
    sosfilt: 8e-9,
    sosfiltfilt: 23e-9,
    /**
     * `scipy.signal.welch`, per point of the segments it transforms (a sample is in two with the
     * default half overlap): detrend, window, rfft, |X|^2, mean. Timed here (session 12, 30 x
     * 220500 float32, axis=1): 25 ns a point with nperseg 256, 23 ns with 2048 (the rfft alone
     * 10-11 ns); k_audio cell 15 (the same shape, nperseg 2048: 13.2M points) measured 0.25 s on
     * the H200's host (run 22), 19 ns. Before: 20 flops an element at `hostFilterFlops`, 0.82 s.
     * `scipy.signal.spectrogram` the same per point: timed here (2M float64) 26 ns with nperseg
     * 1024 and noverlap 512, 14 ns with 256 and 128; b_signal cell 7 (2M samples, 1024/512, and
     * 10 log10 of the result) 82 ms on the H200's host (run 22), 0.26 s predicted before.
     */
    welchPerPoint: 20e-9,
    /**
     * `scipy.signal.find_peaks`, per sample (a linear scan for local maxima, then its conditions
     * on the peaks): timed here 3.7 ns (200k smoothed samples, height and distance) and 5.8 ns (2M
     * noise); b_signal cell 12 (200k samples) 0.95 ms on the H200's host (run 22), 4.8 ns: 24.7 ms
     * predicted before (20 flops an element at `hostFilterFlops`).
     */
    findPeaks: 5e-9,
    /**
     * `scipy.signal.decimate` with its default IIR filter (an order-8 Chebyshev run forwards and
     * backwards), per input sample: timed here 1.2x sosfiltfilt's (2M float64: 49 against 40 ns),
     * so 28 ns; b_signal cell 13 (decimate of 2M by 10, a 20000 x 2000 np.correlate) measured 55
     * ms on the H200's host (run 22), 0.25 s predicted before (20 flops an element).
     */
    decimate: 28e-9,
    /**
     * scipy.ndimage's binary morphology on a bool image, per element: an erosion or dilation's
     * first iteration ~10 ns, each later one ~1.6 ns (it visits the pixels that changed), an
     * opening or closing two of them; `binary_fill_holes` (a dilation iterated until nothing
     * changes) ~25 ns. Timed here (1024^2 and 2048^2 smooth-noise masks: erosion 9-11 ns,
     * dilation 10, opening 20 ns with 1 iteration and 23.5 with 2, fill_holes 22-27 ns).
     * a_microscopy cell 8 (an opening of 2 iterations, fill_holes, 1024^2) measured 82 ms on the
     * H200's host (run 22); 255 ms predicted before (20 flops an element per call).
     */
    binaryMorphology: 10e-9,
    binaryMorphologyLaterIteration: 1.6e-9,
    binaryFillHoles: 25e-9
  },
  /**
   * cupyx.scipy.signal's IIR recursions, device seconds per sample: warm, `sosfiltfilt` of 2M
   * float64 samples took 7.3 ms and `sosfilt` 1.4 ms on the H200 (run 20, iir_probe.txt): each
   * signal runs in order on few threads, far from the copy bandwidth the passes assume (the model
   * predicted 63.8x for sosfiltfilt against the ~6x measured).
   */
  /**
   * NumPy's histograms, per sample on 4M float64 here: `np.histogram` with a bin count 20-26 ns
   * (a division), with an array of edges 71 ns (a binary search); `np.histogram2d` 252 ns (two
   * searches, `ravel_multi_index`, a bincount), taken as 125 ns per value of `histogramdd`'s
   * samples. m_pic cell 7 (a histogram2d and a histogram of 4M) measured 0.95-1.13 s on the H200's
   * host, these rates give 1.1 s.
   */
  hostSecondsPerHistogramSample: 25e-9,
  hostSecondsPerHistogramSearch: 70e-9,
  hostSecondsPerHistogramddValue: 125e-9,
  /**
   * Fancy-index gathers (`a[idx]`, `X[idx, 0]`, `C[lab]` with an integer array `idx`): NumPy copies
   * item by item, ~4 ns an index value, plus for a source larger than the host's last-level cache
   * (taken as 32 MiB) ~30 ns for each 64-byte line an item spans (a cache miss), else ~1.5 ns an
   * element. Timed here (NumPy 2, the 2-core CPU machine of session 12; these figures in
   * parentheses): 4M random indices into 10M float64 (80 MB) 35 ns each (34; np.take 24; sorted
   * indices 4 ns), into 100k float64 7 ns (5.5); X[idx, 0] of (200000, 32) float64 42 ns (34); rows
   * of it 210 ns (124); rows of a (12, 8) float32 19 ns (16). On the H200's host (run 22): m_pic
   * cell 5 (20 steps of E[j0], E[j1] over 4M particles, bincounts, FFTs) 5.08-5.19 s, predicted
   * 4.04 s before and 5.0 s with these; k_audio cell 3 (emph[idx], 26M overlapping frame indices
   * into 6.6M float32) 0.17 s, predicted 0.12 s before and 0.28 s with these (local indices run
   * nearer the sorted 4 ns). Before, a gather cost nothing on the host.
   */
  hostGatherSecondsPerItem: 4e-9,
  /**
   * A gather whose index walks the source in order, built from aranges (`np.arange(n_fft)[None, :]
   * + hop * np.arange(n_frames)[:, None]`: overlapping frames): NumPy's copy then streams, each
   * item ~1.5 ns (timed here, session 13: 26.5M such indices into 6.6M float32, 39 ms, against 435
   * ms for as many random ones). k_audio cell 3 (that gather, the index built, a window applied)
   * measured 0.17-0.21 s on the H200's host (runs 22-24); 0.28 s predicted at the random rates,
   * 0.18 s with this.
   */
  hostGatherSecondsPerOrderedItem: 1.5e-9,
  /**
   * Boolean-mask selection and assignment (`a[m]`, `a[m] = v`; `it[m] += 1` counted once), per
   * element of the mask: NumPy tests each element and copies the selected ones, a branch each.
   * Measured on the H200's host (bench/host_probe.py, 2026-12-02,
   * bench/results/2026-12-02-h200-host-probe, 60k to 16M elements): with masks as cells make them
   * (a threshold of a smooth field: long runs of one value, the branch predicted; host_probe_2.json)
   * selection 0.2-2.8 ns an element of float64 (0.3-4.7 of complex128) and assignment 0.2-1.8, with
   * a tenth to nine tenths of the mask true: ~1 ns, about their median, taken. A mask of
   * independent draws (`rng.random(n) < p`) mispredicts: 2.5-5 ns with a tenth or nine tenths true,
   * 6-9 ns with half (host_probe.json), not told apart here. Before, a mask cost nothing on the
   * host beyond the passes over what it selected.
   */
  hostMaskSecondsPerElement: 1e-9,
  /**
   * A gather through an arange of a step wider than a 64-byte line (`x[np.arange(0, N, 16)]` of
   * float64): each item reads its own line from memory, in order (the prefetcher follows, so less
   * than a random miss). Timed here (session 13, NumPy 2, 2-core CPU machine): 40M float64 by
   * step 16, 64 and 16 (1M float64) 11, 11 and 8 ns an item; step 8 (a 64-byte stride) 6 ns and
   * float32 by 16 3.3 ns, step 1 2.1 ns (the streamed rate above); random indices 19 ns.
   */
  hostGatherSecondsPerStridedLine: 10e-9,
  hostGatherSecondsPerMissedLine: 30e-9,
  hostGatherSecondsPerCachedElement: 1.5e-9,
  hostCacheBytes: 32 * 1024 * 1024,
  /**
   * LAPACK factorisations of one matrix (`np.linalg.qr`, `svd`, `lstsq`; loop-work.ts
   * `factorisationWork` counts their flops from the shape), host flops per second: 2 GFLOP/s while
   * the smaller side k is at most 32 (a Householder panel is then the whole matrix: BLAS2, bound
   * by memory), k/32 times that above (blocked LAPACK moves the work into BLAS3), at most the
   * float64 matmul rate. From the H200's host, runs 22 and 23 (orig): d_stats cell 5 (qr of
   * 200000x32, 8.2e8 flops: 0.54-0.65 s with its small solve, 1.3-1.5 GFLOP/s), cell 4 (lstsq of
   * the same, 4.3e8 flops: 0.19 s with X.T @ X, 2.2), cell 8 (svd of 20000x32, 1.2e8 flops: 30 ms,
   * 4), h_spectro cell 16 (svd of 4000x2048, 2.7e11 flops: 2.43-2.46 s, 110 against 128 here),
   * cell 6 (20 lstsq of a 2048x6 Vandermonde against 4000 right-hand sides, 2e8 flops each:
   * 2.85-2.90 s with its products and minimum, ~1.6). Before, each was 2 (sqrt of its size)^3
   * flops at the matmul rate: 10-25x too fast.
   */
  hostFactorisationFlops: 2e9,
  hostFactorisationFlopsCap: 0.55e12,
  /**
   * LAPACK's decompositions of a square matrix on the H200's host (`np.linalg.solve`, `inv`,
   * `det`, `cholesky`, `eigh`, `eigvalsh`, `eig`; loop-work.ts `squareFactorisationWork` counts
   * their flops), host flops per second: j_pde cell 3 (a dense solve of 1498 x 1498, getrf and
   * getrs, 2.24e9 flops, with three np.diag of it and a sin: 72-77 ms on the H200's host, runs
   * 22-23 orig; the rest of the cell priced at 12 ms): the solve ~62 ms, 36 GFLOP/s. p_finance
   * cell 10 (eigvalsh and cholesky of 2000 x 2000, 1.33e10 flops, with a 504 x 2000 Gram matrix:
   * 0.31-0.40 s, run 27 calls 3 and 6; the rest priced at 53 ms) ran at 39-51 GFLOP/s, the same
   * rate. Before, each was 2 (sqrt of its size)^3 flops at the float64 matmul rate (0.55e12):
   * p_finance cell 10 at 0.10 s.
   */
  hostSquareFactorisationFlops: 36e9,
  /**
   * cuSOLVER's SVD through CuPy (`cp.linalg.svd`, also inside `cp.linalg.lstsq`), device flops per
   * second: h_spectro cell 16 (svd of 4000x2048, 2.7e11 flops) took 0.60 and 0.61 s on the H200
   * in a fresh process (runs 22 and 23, warm kernel cache), ~0.15 s of it the model's first-use
   * loads: ~0.6 TFLOP/s, far under the library rate of the products.
   */
  deviceSvdFlops: CUSOLVER_SVD_FLOPS,
  /**
   * cuSOLVER's decompositions of one matrix through CuPy, device flops per second by NumPy's name
   * and the matrix's precision (rules/arrays/loop-work.ts `factorisationWork` counts their flops):
   * one table, each entry to take its own figure once measured (bench/linalg_probe.py times potrf,
   * getrf + getrs, syevd with and without vectors, and gesvd for reference, at n = 4096 and 8192,
   * float64 and float32, on the device and the host). Only the SVD has been timed on the H200
   * (`deviceSvdFlops`, float64), so every entry is its rate until then: cuSOLVER's potrf, getrf and
   * syevd run faster than its gesvd, so it is their low end. (qr runs at the library rate,
   * `deviceFlops`, as before.)
   */
  deviceDecompositionFlops: {
    cholesky: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS },
    solve: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS },
    det: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS },
    slogdet: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS },
    inv: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS },
    eigvalsh: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS },
    eigh: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS },
    eigvals: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS },
    eig: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS },
    svd: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS },
    lstsq: { float64: CUSOLVER_SVD_FLOPS, float32: CUSOLVER_SVD_FLOPS }
  },
  deviceSosfiltSecondsPerSample: 0.7e-9,
  deviceSosfiltfiltSecondsPerSample: 3.65e-9,
  /**
   * cupyx CSR SpMV on a canonical matrix: 0.254 ms for 20M non-zeros (bench/RESULTS.md, run 3,
   * `bench/gpu_diagnostics.py`).
   */
  deviceSparseSecondsPerNonZero: 12.7e-12,
  /**
   * A matrix converted from SciPy in the cell is not flagged canonical, and cupyx's product
   * sorts and merges it first (`sum_duplicates`): 28.3 ms for 20M non-zeros (run 3; run 2's
   * resident row, 27.8 ms, paid the same). GPU102/flag-sparse-matvec's 19.6 ms leave ~1.0 ns
   * per non-zero after its copies.
   */
  deviceSparseCanonicaliseSecondsPerNonZero: 1.39e-9,
  /**
   * First run of a kernel the cell defines (ElementwiseKernel, RawKernel, fused function):
   * stencil_slices' one-pass RawKernel, first run 203 ms - median 30.6 ms (run 2). CuPy caches
   * the compiled kernel on disk, so later sessions pay much less. The first-use probe of
   * 2026-12-02 measured an ElementwiseKernel's compile at the same 170 ms (apis/first-use.ts,
   * which prices every first use, this one included).
   */
  kernelCompileSeconds: 0.17,
  /**
   * The doctor's own calibration on the H200, bench run 6 (bench/results/2026-12-01-h200-run6,
   * `all.txt`), at the sizes it copies since 5b1b5ee: a 480 MiB device copy (max(8 x L2, 256 MiB))
   * at 3.82 TB/s, a 480 MiB pageable host->device copy at 7.68 GB/s, 13.9 µs per launch, NumPy's
   * 512 MiB copy at 22.3 GB/s. `deviceProfileFromReport` scales a kernel's device and copy figures
   * by the ratio to these: both doctors ran the same measurement. (Run 2's doctor copied 64 MiB:
   * 3.63 TB/s, 7.37 GB/s, 13 µs, 13.2 GB/s.) Launch cost and host bandwidth are scaled the same
   * way: the model's `hostBandwidth` (13.2 GB/s) is fitted to the CPU baselines, and the same
   * host's 512 MiB copy reads 22.3 GB/s, so only the ratio carries over to another host.
   */
  doctorCalibration: {
    deviceBandwidth: 3.82e12,
    hostToDevice: 7.68e9,
    launchOverhead: 13.9e-6,
    hostBandwidth: 22.3e9
  }
} as const;

/**
 * Figures measured on the H200 test machine, 2026-11-30 (run 2), and its 16-core host
 * (`MEASURED_H200`; bench/RESULTS.md): the profile used when the kernel's device is not known.
 */
export const DEFAULT_DEVICE_PROFILE: DeviceProfile = {
  name: 'NVIDIA H200 (measured 2026-11-30)',
  deviceBandwidth: MEASURED_H200.deviceBandwidth,
  hostToDevice: MEASURED_H200.hostToDevice,
  deviceToHost: MEASURED_H200.deviceToHost,
  hostBandwidth: MEASURED_H200.hostBandwidth,
  launchOverhead: MEASURED_H200.launchOverhead,
  memoryBytes: 139 * 2 ** 30,
  // resident fft2 (8.7 GFLOP counted) in 1.55 ms and matmul (1.1 TFLOP) in 21.7 ms: library
  // kernels run at ~5-50 TFLOP/s; 40 TFLOP/s is their upper end
  deviceFlops: 4.0e13,
  hostFlops: MEASURED_H200.hostMatmulFlops,
  hostTranscendentalSeconds: 3e-9,
  hostFftFlops: MEASURED_H200.hostFftFlops,
  hostSortOpsPerSecond: MEASURED_H200.hostSortOpsPerSecond,
  hostFilterFlops: MEASURED_H200.hostFilterFlops,
  hostSparseSecondsPerNonZero: MEASURED_H200.hostSparseSecondsPerNonZero,
  deviceSparseSecondsPerNonZero: MEASURED_H200.deviceSparseSecondsPerNonZero,
  deviceSparseCanonicaliseSecondsPerNonZero: MEASURED_H200.deviceSparseCanonicaliseSecondsPerNonZero,
  deviceSecondsPerUniformDraw: MEASURED_H200.deviceSecondsPerUniformDraw,
  deviceSecondsPerNormalDraw: MEASURED_H200.deviceSecondsPerNormalDraw,
  hostLabelSecondsPerElement: MEASURED_H200.hostLabelSecondsPerElement,
  hostMeasureSecondsPerElement: MEASURED_H200.hostMeasureSecondsPerElement,
  deviceLabelSecondsPerElement: MEASURED_H200.deviceLabelSecondsPerElement,
  deviceMeasureSecondsPerElement: MEASURED_H200.deviceMeasureSecondsPerElement,
  deviceCountSecondsPerElement: MEASURED_H200.deviceCountSecondsPerElement,
  kernelCompileSeconds: MEASURED_H200.kernelCompileSeconds
};

/**
 * What the kernel reports of its device: the protocol's `Environment` (hello and doctor replies,
 * `%gpuoptimize doctor --json`) has this shape. Bandwidths in bytes per second (copies count
 * bytes read plus written, except host_to_device: bytes moved).
 */
export interface DeviceReport {
  gpus: readonly { name: string; memory_bytes: number }[];
  calibration?: {
    host_bandwidth?: number | null;
    device_bandwidth?: number | null;
    host_to_device?: number | null;
    launch_overhead_s?: number | null;
  } | null;
}

/**
 * The profile of the kernel's device, from its report; null when the report names no GPU (the
 * defaults stand). The GPU (the first listed, the one CuPy uses by default) gives the name and the
 * memory. Its doctor's calibration, when it ran, is the same measurement the doctor made on the
 * H200 (`MEASURED_H200.doctorCalibration`), so the H200 figure is scaled by the ratio of the two:
 * - device bandwidth, and with it the sparse product (a memory-bound kernel), by the device copies;
 * - host->device by the pageable copies, and device->host with it (not measured by the doctor:
 *   both directions are pageable copies over the same link);
 * - host bandwidth and launch overhead by the doctor's host copy and launch figures: the model's
 *   H200 host figure (13.2 GB/s) is fitted to what NumPy's passes stream there, and the doctor's
 *   plain 512 MiB copy reads 22.3 GB/s on the same host, so a measured figure taken as it is would
 *   make every host 1.7x faster at NumPy than the H200's host is.
 * Everything else (library-kernel FLOP/s, the host's per-class rates, cuRAND, kernel compile)
 * stays the H200's: nothing the kernel reports scales it honestly. Library FLOP/s above all: a
 * GPU whose float64 runs at a small fraction of its float32 rate runs a float64 matmul or FFT
 * many times slower than the H200, so a prediction that used them says so (`h200Figures`).
 * The reference is the doctor's figure on the H200 at the copy sizes it uses now (run 6; see
 * `MEASURED_H200.doctorCalibration`).
 */
export function deviceProfileFromReport(
  report: DeviceReport | null | undefined,
  base: DeviceProfile = DEFAULT_DEVICE_PROFILE
): DeviceProfile | null {
  const gpu = report?.gpus[0];
  if (!report || !gpu) {
    return null;
  }
  const measured = (x: number | null | undefined): number | null => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : null);
  const reference = MEASURED_H200.doctorCalibration;
  const reported: NonNullable<DeviceProfile['reported']>[number][] = [];
  const profile: DeviceProfile = { ...base, name: gpu.name };
  const memory = measured(gpu.memory_bytes);
  if (memory !== null) {
    profile.memoryBytes = memory;
    reported.push('memoryBytes');
  }
  const cal = report.calibration ?? {};
  const device = measured(cal.device_bandwidth);
  if (device !== null) {
    const ratio = device / reference.deviceBandwidth;
    profile.deviceBandwidth = base.deviceBandwidth * ratio;
    profile.deviceSparseSecondsPerNonZero =
      (base.deviceSparseSecondsPerNonZero ?? MEASURED_H200.deviceSparseSecondsPerNonZero) / ratio;
    reported.push('deviceBandwidth');
  }
  const h2d = measured(cal.host_to_device);
  if (h2d !== null) {
    const ratio = h2d / reference.hostToDevice;
    profile.hostToDevice = base.hostToDevice * ratio;
    profile.deviceToHost = (base.deviceToHost ?? base.hostToDevice) * ratio;
    reported.push('hostToDevice');
  }
  const host = measured(cal.host_bandwidth);
  if (host !== null) {
    profile.hostBandwidth = base.hostBandwidth * (host / reference.hostBandwidth);
    reported.push('hostBandwidth');
  }
  const launch = measured(cal.launch_overhead_s);
  if (launch !== null) {
    profile.launchOverhead = base.launchOverhead * (launch / reference.launchOverhead);
    reported.push('launchOverhead');
  }
  profile.reported = reported;
  return profile;
}

/** The profile fields each reported figure sets in `deviceProfileFromReport`. */
const FIELDS_OF_REPORTED: Record<NonNullable<DeviceProfile['reported']>[number], readonly (keyof DeviceProfile)[]> = {
  memoryBytes: ['memoryBytes'],
  deviceBandwidth: ['deviceBandwidth', 'deviceSparseSecondsPerNonZero'],
  hostToDevice: ['hostToDevice', 'deviceToHost'],
  hostBandwidth: ['hostBandwidth'],
  launchOverhead: ['launchOverhead']
};

/**
 * `newer` (from the kernel's latest report) with the figures `older` measured that `newer` lacks,
 * when both are the same GPU (name and memory); `newer` itself otherwise. The doctor measures the
 * device only when CuPy is imported in the kernel, so a report after a kernel restart may carry
 * the host's figure and nulls for the device's: those nulls do not undo what was measured.
 */
export function keepMeasuredFigures(newer: DeviceProfile, older: DeviceProfile | null): DeviceProfile {
  if (older === null || older.name !== newer.name || older.memoryBytes !== newer.memoryBytes) {
    return newer;
  }
  const had = new Set(newer.reported ?? []);
  const kept = (older.reported ?? []).filter(r => !had.has(r));
  if (kept.length === 0) {
    return newer;
  }
  const merged: DeviceProfile = { ...newer };
  for (const r of kept) {
    for (const field of FIELDS_OF_REPORTED[r]) {
      (merged as unknown as Record<string, unknown>)[field] = older[field];
    }
  }
  const reported = new Set([...had, ...kept]);
  merged.reported = (Object.keys(FIELDS_OF_REPORTED) as (keyof typeof FIELDS_OF_REPORTED)[]).filter(r => reported.has(r));
  return merged;
}

/**
 * The figures of a profile that are the H200 test machine's: not measured on the device (not in
 * `reported`) and equal to the defaults. Library FLOP rates are the H200's unless the profile
 * sets its own (no report does).
 */
export function h200Figures(device: DeviceProfile): H200Figure[] {
  const reported = device.reported ?? [];
  const same = (r: 'deviceBandwidth' | 'hostToDevice' | 'launchOverhead') => !reported.includes(r) && device[r] === DEFAULT_DEVICE_PROFILE[r];
  const figures: H200Figure[] = [];
  if (same('deviceBandwidth')) {
    figures.push('deviceBandwidth');
  }
  if (same('hostToDevice')) {
    figures.push('copyRates');
  }
  if (same('launchOverhead')) {
    figures.push('launchOverhead');
  }
  if (device.deviceFlops === undefined || device.deviceFlops === DEFAULT_DEVICE_PROFILE.deviceFlops) {
    figures.push('libraryFlops');
  }
  return figures;
}

/** Were the profile's device bandwidth, copy rate or launch cost measured on its device? */
export function measuredOnDevice(device: DeviceProfile): boolean {
  const reported = device.reported ?? [];
  return reported.includes('deviceBandwidth') || reported.includes('hostToDevice') || reported.includes('launchOverhead');
}

/**
 * What a prediction says of the device it was made for (absent: the H200 defaults), with the
 * H200 figures that pricing `work` used (copy rates only when it copies, FLOP rates only when
 * library kernels do arithmetic...).
 */
function predictedFor(device: DeviceProfile, work: WorkEstimate): Pick<Prediction, 'device'> {
  if (device === DEFAULT_DEVICE_PROFILE) {
    return {};
  }
  const copies = work.hostToDeviceBytes > 0 || work.deviceToHostBytes > 0;
  const used: Record<H200Figure, boolean> = {
    deviceBandwidth: work.elements * work.itemBytes * work.passes > 0 || (work.sparseNonZeros ?? 0) > 0,
    copyRates: copies,
    launchOverhead: work.launches > 0 || copies,
    libraryFlops: work.flops > 0
  };
  const figures = h200Figures(device).filter(f => used[f]);
  return { device: { name: device.name, measured: measuredOnDevice(device), ...(figures.length > 0 ? { h200Figures: figures } : {}) } };
}

/** The work a cell does, counted by the rules from its syntax and the notebook model. */
export interface WorkEstimate {
  /** Elements of the largest array involved. */
  elements: number;
  /** Bytes per element of that array. */
  itemBytes: number;
  /**
   * Memory passes over the data: an elementwise op reads its inputs and writes its output
   * (~3 array-sized streams); a reduction reads one.
   */
  passes: number;
  /** Element operations that are transcendental (exp, sin, sqrt, power...). */
  transcendentalOps: number;
  /**
   * Host seconds of NumPy's random draws beyond writing them (the write is in `passes`), per
   * element of the largest array (`elements`), at the rate measured per draw whatever the dtype
   * (rules/arrays/cupy-rewrite.ts `hostDrawSeconds`). The device's draws are `uniformDraws` and
   * `normalDraws`.
   */
  drawSeconds?: number;
  /** Arithmetic done by library kernels (2 n^3 for a matmul, 5 n log2 n for an FFT...). */
  flops: number;
  /** Kernel launches on the device (one per op, unfused). */
  launches: number;
  /** Bytes copied host -> device and device -> host. */
  hostToDeviceBytes: number;
  deviceToHostBytes: number;
  /**
   * Passes the CPU makes, when they differ from the device's: NumPy runs a chain op by op even
   * when the GPU rewrite fuses it into one kernel (default: `passes`).
   */
  hostPasses?: number;
  /**
   * Multiplier for the CPU's streaming cost when NumPy runs the op single-threaded or makes
   * temporaries; 1 by default.
   */
  hostPassFactor?: number;
  /**
   * Parts of `flops` that the host runs at a slower, measured rate than BLAS: FFTs (pocketfft,
   * one core), sorts (comparisons counted as 4 n log2 n) and SciPy filters. The device runs
   * them, like all of `flops`, at `deviceFlops`.
   */
  fftFlops?: number;
  /**
   * The part of `fftFlops` made of 1-D transforms short enough that each stays in a core's cache
   * (`SHORT_FFT_POINTS`: batches of frames, rows of an image); the host runs those
   * `SHORT_FFT_HOST_SPEEDUP` times faster than `hostFftFlops`, which was measured on a 2-D
   * transform of 8192^2 (its column pass strided through main memory).
   */
  shortFftFlops?: number;
  sortOps?: number;
  filterFlops?: number;
  /** Elements of images `scipy.ndimage.label` labels, and of measurements over labels. */
  labelElements?: number;
  measureElements?: number;
  /**
   * Elements of component-size measurements the rewrite runs as a bincount: SciPy's sum on the
   * host, the bincount's rate on the device.
   */
  countElements?: number;
  /**
   * Host seconds of NumPy loops the rules price per item (`MEASURED_H200`'s per-item rates:
   * einsum's index space, stacked small matrices, per-slice quantiles, ufunc.at), on top of the
   * streamed passes. The device's side of that work is in `flops`, `passes` and `launches`.
   */
  hostLoopSeconds?: number;
  /**
   * The part of `flops` the host does not run through BLAS: arithmetic of the work
   * `hostLoopSeconds` prices (an einsum's contractions, stacked small matrices) or of sorts the
   * host runs per slice. The device runs it, like all of `flops`, at `deviceFlops`.
   */
  loopFlops?: number;
  /** Device seconds of work priced per item (`MEASURED_H200`'s IIR recursions), resident or not. */
  deviceLoopSeconds?: number;
  /** Non-zeros that sparse matrix products stream (per product, times how often it runs). */
  sparseNonZeros?: number;
  /** Non-zeros of SciPy matrices the cell converts to the device (sorted again on the device). */
  sparseNonZerosFromHost?: number;
  /**
   * The part of `passes` that one-pass stencil `RawKernel`s make (one reads its input once and
   * writes its output once: 2/3 of a pass per run); the device streams it at
   * `STENCIL_BANDWIDTH_EFFICIENCY`, the rest of `passes` at `KERNEL_BANDWIDTH_EFFICIENCY`.
   * Default 0; counted at most up to `passes`.
   */
  stencilPasses?: number;
  /** Kernels the cell itself defines (compiled at its first run, not in the resident form). */
  kernelsDefined?: number;
  /**
   * What the cell uses for the first time in its process, priced (apis/first-use.ts): the
   * libraries it sets up, the cupyx.scipy functions and built-in kernels it runs, the kernels it
   * defines (compiled with an empty kernel cache, `cold`; loaded from it, `warm`). When set, it
   * includes the kernels of `kernelsDefined`, which are not charged again; absent, only those are
   * (at the profile's compile time, and the table's load time).
   */
  firstUse?: FirstUseCharge;
  /**
   * Random values the cell draws, uniform and otherwise (normal, gamma...): cuRAND generates
   * them well below the copy bandwidth, so the device charges them per value.
   */
  uniformDraws?: number;
  normalDraws?: number;
  /**
   * The part of the work the rewrite leaves on the host, included in `passes` and
   * `drawSeconds` (the CPU runs it either way): draws from a NumPy Generator made in
   * another cell, copied to the device (`cp.asarray(rng.random(n))`). The GPU version pays it at
   * the host's rates, and the copy of its `bytes` on every run (resident or not). `seconds`: host
   * time of library calls the rewrite keeps on the host among device work (SciPy's find_peaks with
   * `distance`, handed a host copy of its signal), included in `hostLoopSeconds`; the GPU version
   * pays it too.
   */
  hostKept?: { passes: number; transcendentalOps: number; bytes: number; seconds?: number; drawSeconds?: number };
  /**
   * Values the rewrite copies back to the host one at a time where they are made (a 0-d device
   * result stored in a list that is shown or read later: `[cp.asnumpy(x[k].std())[()] for k in
   * range(1000)]`), counted as often as they run. Each waits for the device and pays a copy's
   * fixed latency (`ITEM_COPY_LAUNCHES`), resident or not (the whole-notebook rewrite shows the
   * same items); their bytes are not counted (a number each; an array stored item by item is
   * charged its latency only, as its size inferred through a mask is seldom known).
   */
  itemCopies?: number;
  /**
   * The bytes of those of `itemCopies` whose size is known: a host consumer's argument copied
   * in a loop (`plt.plot(cp.asnumpy(y[i]))` each time round), counted as often as it runs and
   * charged at the copy rate, resident or not.
   */
  itemCopyBytes?: number;
}

/**
 * What one value copied back on its own costs, in launch overheads: the wait for the device (a
 * synchronisation, about one launch's round trip) and the copy's own fixed latency (allocation,
 * the transfer call: about a launch, as every copy is charged in `estimate`).
 */
export const ITEM_COPY_LAUNCHES = 2;

/**
 * Share of the copy bandwidth an elementwise kernel reaches: the fused chain (elementwise_chain's
 * typed ElementwiseKernel, 1.2 GB) ran at 60% of the H200's copy ceiling in bench run 5 (489 µs)
 * and 59% in run 6 (bench/RESULTS.md).
 */
export const KERNEL_BANDWIDTH_EFFICIENCY = 0.6;

/**
 * Share of the copy bandwidth a one-pass stencil `RawKernel` reaches (GPU103's slice stencil, 8
 * rows per thread; `WorkEstimate.stencilPasses`): stencil_slices (8192^2 float32, 0.54 GB read
 * once and written once) ran at 72% of the H200's copy ceiling in the bench's cell in run 5
 * (183 µs, launch included) and 74% in run 6 (176 µs); the diagnostics read 79% and 76% for the
 * engine's cell, 84% and 83% for the kernel launched back to back (bench/RESULTS.md). The bench
 * cell's lower figure, as the chain's is.
 */
export const STENCIL_BANDWIDTH_EFFICIENCY = 0.72;

/**
 * Longest 1-D transform (points) whose working set stays in a core's cache on the host: 131,072
 * complex128 values are 2 MiB, a core's L2 on the H200's host and on the CPU machine here (both
 * Intel Xeon model 207, 2 MiB of L2 a core). Timed here (NumPy 2 pocketfft, the 2-core CPU machine
 * of session 13, 2^24 values in rows of L points): rfft of float64 rows 5.5-7.4 GFLOP/s (2.5 N
 * log2 L flops) for L = 1,024 to 65,536, fft of complex128 rows 5.8-6.9; at L = 262,144 they fall
 * (6.0, 4.5) and at 2M points they run at 2.0-3.0, the rate of a 2-D transform here (fft2 of
 * 4096^2 complex64 2.5 GFLOP/s, its column pass 1.9). Session 17 timed the lengths between (fft of
 * complex128 rows, 2^22 values, best of 7 on a loaded machine): 65,536 points 3.0 GFLOP/s, 120,000
 * 2.7, 131,072 2.8, 262,144 3.2, 524,288 1.7, 2M 1.5; and the H200's host ran n_seismic cell 8's
 * scipy.signal.hilbert of 256 rows of 120,000 float64 (two transforms, 5.2 GFLOP) with the rest of
 * the cell in 1.48-2.34 s (run 27): at the 2-D rate the transforms alone would take 3.0 s, at the
 * rate of short ones 1.5 s. It was 65,536 (1 MiB, taken for a core's L2).
 */
export const SHORT_FFT_POINTS = 131072;

/**
 * How much faster the host runs those short transforms than `hostFftFlops` (the 2-D 8192^2 one):
 * here rows ran 1.6-3.5x the 2-D rate (float32 rows 4.1-5.0 GFLOP/s, float64 5.5-7.4, against
 * 2.0-2.5 for fft2 of 2048^2 and 4096^2); on the H200's host, k_audio cell 5 (rfft of 25,836
 * frames of 1024 float32, 6.6e8 flops, and |X|^2 / n) took 0.24-0.30 s in runs 22-24, where
 * `hostFftFlops` alone gives 0.38 s for the transform: ~2x. The lower end of what was measured.
 */
export const SHORT_FFT_HOST_SPEEDUP = 2;

/**
 * How much faster NumPy streams its passes over small arrays than the `hostBandwidth` fitted to
 * the bench workloads' large arrays, by the size of the cell's largest array (at most `upTo`
 * bytes). Measured on the H200's host by bench/host_probe.py (2026-12-02,
 * bench/results/2026-12-02-h200-host-probe/host_probe.json; Intel Xeon, 16 cores, 2 MiB of L2 a
 * core; NumPy 2.5.2): passes that make a new array (`a + b`, `a * 2.0`, `a.copy()`, `np.roll`
 * along either axis, a sum of two interior 2-D slices), float64 and float32, ran at a median of
 * 32.3 GB/s on arrays of 256 KiB and 1 MiB, 23.4 GB/s on 2 and 4 MiB, 16.1 and 21.3 GB/s on 8 and
 * 16 MiB, 13.7 GB/s on 32 MiB (the model's 13.2) and 6.6-8.4 GB/s from 64 MiB up (every new array
 * mapped and its pages faulted in). The factors are the ratios to the 32 MiB figure, taken up to
 * 4 MiB only: above, the probe's figures scatter, and whole cells over 8 and 16 MiB arrays
 * (j_advect's 1024^2 float64 sweeps, i_denoise's 2048^2 float32 iterations) measured at or under
 * the 13.2 GB/s the model gives them in runs 22-25. Nor is the slower rate of large arrays taken:
 * `hostBandwidth` stays what the workloads it was fitted to give. c_heat cells 4 and 7 (200 steps
 * over 512^2 float64, 2 MiB) measured 0.61-0.78 and 0.64-0.73 s on that host (runs 22-25),
 * predicted 0.82 and 1.05 s at 13.2 GB/s: the whole-notebook figure said 3.2x where 2.3x was
 * measured (its import cell's own work left out on both sides).
 */
export const HOST_CACHED_STREAM_SPEEDUP: readonly { upTo: number; speedup: number }[] = [
  { upTo: 1 << 20, speedup: 32.3 / 13.7 },
  { upTo: 4 << 20, speedup: 23.4 / 13.7 }
];

/** `HOST_CACHED_STREAM_SPEEDUP`'s factor for passes over arrays of `bytes` (1 above its sizes). */
export function hostStreamSpeedup(bytes: number): number {
  return HOST_CACHED_STREAM_SPEEDUP.find(t => bytes <= t.upTo)?.speedup ?? 1;
}

/** Bytes streamed per elementwise pass, in units of the array size (2 reads + 1 write). */
export const STREAMS_PER_PASS = 3;

/** A predicted single-cell speedup below this is no speedup: it is not presented as one. */
export const NOT_A_SPEEDUP = 1.2;

/**
 * What the whole-notebook rewrite gives a cell when it cannot keep the cell's data resident (an
 * array another name may share is copied in and back on every run: plan.ts `planPrediction`):
 * its speedup, and why, in words.
 */
export interface WholeNotebookFigure {
  speedup: number;
  why: string;
}

/**
 * The cell rewritten on its own: its copies charged (see the module comment). `wholeNotebook`:
 * the plan's own figure, when it differs from the data-resident one.
 */
export function predict(
  work: WorkEstimate,
  device: DeviceProfile = DEFAULT_DEVICE_PROFILE,
  wholeNotebook?: WholeNotebookFigure
): Prediction {
  // (the resident figure's reason is not read: not written)
  const resident = estimate(residentWork(work), device, false);
  const cell = estimate(work, device);
  const speedup = cell.gpuSeconds > 0 ? cell.cpuSeconds / cell.gpuSeconds : 1;
  const residentSpeedup = resident.gpuSeconds > 0 ? resident.cpuSeconds / resident.gpuSeconds : 1;
  const first = firstUseOf(work, device);
  const firstRunSeconds = cell.gpuSeconds + (first?.cold ?? 0);
  const freshSessionSeconds = cell.gpuSeconds + (first?.warm ?? 0);

  let reason = cell.reason;
  if (speedup < NOT_A_SPEEDUP && fitsOnDevice(cell.bytes, device) && residentSpeedup >= NOT_A_SPEEDUP && cell.transferSeconds > 0) {
    reason =
      `${formatBytes(cell.bytes)}: not a speedup as a single cell (${formatSpeedup(speedup)}): copying ${copied(work)} ` +
      `takes ${formatSeconds(cell.transferSeconds)}` +
      `${(work.sparseNonZerosFromHost ?? 0) > 0 ? ' (and the converted matrix is sorted again on the device)' : ''}, ` +
      `the whole cell ${formatSeconds(cell.gpuSeconds)} against ${formatSeconds(cell.cpuSeconds)} on the CPU; ` +
      (wholeNotebook
        ? `${wholeNotebook.why}: ${formatSpeedup(wholeNotebook.speedup)} there`
        : `it pays only with the data kept on the device across cells (whole-notebook rewrite: ${formatSpeedup(residentSpeedup)})`);
  } else if (first && speedup >= NOT_A_SPEEDUP) {
    reason = `${reason}${firstUseClause(cell.cpuSeconds, cell.gpuSeconds, first)}`;
  }
  return {
    speedup,
    cpuSeconds: cell.cpuSeconds,
    gpuSeconds: cell.gpuSeconds,
    transferSeconds: cell.transferSeconds,
    reason,
    firstRunSeconds,
    freshSessionSeconds,
    ...(first ? { firstUse: first.what } : {}),
    ...(cell.hostDrawSeconds > 0 ? { hostDrawSeconds: cell.hostDrawSeconds } : {}),
    residentSpeedup: wholeNotebook?.speedup ?? residentSpeedup,
    ...predictedFor(device, work)
  };
}

/**
 * The cell's first uses (`WorkEstimate.firstUse`), or, without them, the compile and load of the
 * kernels it defines; null when there are none.
 */
function firstUseOf(work: WorkEstimate, device: DeviceProfile): FirstUseCharge | null {
  if (work.firstUse) {
    return work.firstUse;
  }
  const n = work.kernelsDefined ?? 0;
  if (n === 0) {
    return null;
  }
  return {
    cold: n * (device.kernelCompileSeconds ?? MEASURED_H200.kernelCompileSeconds),
    warm: n * FIRST_USE_H200.generatedKernels.elementwise.warm,
    what: plural(n, 'generated kernel', 'generated kernels')
  };
}

/**
 * What first uses do to a cell that is a speedup in a warm process, in words (empty when they
 * change nothing that matters): not a speedup even in a later session, where its CPU time cannot
 * pay for loading what it uses; or not on the machine's first run (the compiles), paying from the
 * second session on.
 */
function firstUseClause(cpuSeconds: number, gpuSeconds: number, first: FirstUseCharge): string {
  const fresh = gpuSeconds + first.warm;
  const cold = gpuSeconds + first.cold;
  if (cpuSeconds / fresh < NOT_A_SPEEDUP) {
    return `; in a fresh kernel its ${formatSeconds(cpuSeconds)} on the CPU cannot pay for loading ${first.what} (~${formatSeconds(first.warm)}, from CuPy's kernel cache): ${formatSpeedup(cpuSeconds / fresh)} there, ${formatSpeedup(cpuSeconds / cold)} on a machine's first run (compiles, ~${formatSeconds(first.cold)})`;
  }
  if (cpuSeconds / cold < NOT_A_SPEEDUP) {
    return `; its first run on a machine also compiles ${first.what} (~${formatSeconds(first.cold)}): ${formatSpeedup(cpuSeconds / cold)} that time; it pays from the second session on (${formatSpeedup(cpuSeconds / fresh)} in a fresh kernel, the kernels loaded from CuPy's cache)`;
  }
  return '';
}

/** What a single cell copies, in words: its inputs to the device, its results back, or both. */
function copied(work: WorkEstimate): string {
  if (work.hostToDeviceBytes > 0 && work.deviceToHostBytes > 0) {
    return 'its inputs to the device and its results back';
  }
  return work.hostToDeviceBytes > 0 ? 'its inputs to the device' : 'its results back to the host';
}

/**
 * The cell inside the whole-notebook rewrite: data on the device, kernels defined once (the plan
 * gives `work.firstUse` the first uses no earlier GPU cell made; the kernels the cell defines
 * are not charged otherwise).
 */
export function predictResident(work: WorkEstimate, device: DeviceProfile = DEFAULT_DEVICE_PROFILE): Prediction {
  const resident = estimate(residentWork(work), device);
  const speedup = resident.gpuSeconds > 0 ? resident.cpuSeconds / resident.gpuSeconds : 1;
  const first = work.firstUse ?? null;
  return {
    speedup,
    cpuSeconds: resident.cpuSeconds,
    gpuSeconds: resident.gpuSeconds,
    transferSeconds: 0,
    reason: first && speedup >= NOT_A_SPEEDUP ? `${resident.reason}${firstUseClause(resident.cpuSeconds, resident.gpuSeconds, first)}` : resident.reason,
    firstRunSeconds: resident.gpuSeconds + (first?.cold ?? 0),
    freshSessionSeconds: resident.gpuSeconds + (first?.warm ?? 0),
    ...(first ? { firstUse: first.what } : {}),
    ...(resident.hostDrawSeconds > 0 ? { hostDrawSeconds: resident.hostDrawSeconds } : {}),
    residentSpeedup: speedup,
    ...predictedFor(device, residentWork(work))
  };
}

/** The work with its data already on the device: no copies, matrices built there (canonical). */
function residentWork(work: WorkEstimate): WorkEstimate {
  // copied, then the keys set: a spread adding a key its source lacks is ~10x slower in V8 (Node 20)
  const resident = { ...work };
  resident.hostToDeviceBytes = 0;
  resident.deviceToHostBytes = 0;
  resident.sparseNonZerosFromHost = 0;
  return resident;
}

interface Estimate {
  bytes: number;
  cpuSeconds: number;
  gpuSeconds: number;
  transferSeconds: number;
  /** Seconds of `gpuSeconds` that random draws kept on the host take (`Prediction.hostDrawSeconds`). */
  hostDrawSeconds: number;
  /** Empty when the estimate was asked for without it. */
  reason: string;
}

/** The figures of the work on `device`, and (unless `withReason` is false) the one-line reason. */
function estimate(work: WorkEstimate, device: DeviceProfile, withReason = true): Estimate {
  const bytes = work.elements * work.itemBytes;
  const kept = work.hostKept ?? { passes: 0, transcendentalOps: 0, bytes: 0 };
  const streamed = bytes * STREAMS_PER_PASS * Math.max(0, work.passes - kept.passes);
  const stencilStreamed = bytes * STREAMS_PER_PASS * Math.min(work.passes, Math.max(0, work.stencilPasses ?? 0));
  // BLAS's figure is for float32; float64 runs at half the rate
  const hostFlops = (device.hostFlops ?? MEASURED_H200.hostMatmulFlops) / (work.itemBytes >= 8 ? 2 : 1);
  const deviceFlops = device.deviceFlops ?? DEFAULT_DEVICE_PROFILE.deviceFlops ?? 4e13;
  const transcendental = device.hostTranscendentalSeconds ?? 3e-9;
  const d2h = device.deviceToHost ?? device.hostToDevice;
  const rates = libraryRates(device);

  // NumPy's SIMD transcendentals cost about half as much per float32 element as per float64
  const perElement = transcendental * Math.max(0.5, Math.min(2, work.itemBytes / 8));
  const hostStreamed = bytes * STREAMS_PER_PASS * (work.hostPasses ?? work.passes);
  const fft = work.fftFlops ?? 0;
  const shortFft = Math.min(fft, work.shortFftFlops ?? 0);
  const sort = work.sortOps ?? 0;
  const filter = work.filterFlops ?? 0;
  const blas = Math.max(0, work.flops - fft - sort - filter - (work.loopFlops ?? 0));
  const nonZeros = work.sparseNonZeros ?? 0;
  // NumPy streams small arrays faster (HOST_CACHED_STREAM_SPEEDUP)
  const hostRate = device.hostBandwidth * hostStreamSpeedup(bytes);
  const cpuSeconds =
    (hostStreamed / hostRate) * (work.hostPassFactor ?? 1) +
    work.transcendentalOps * work.elements * perElement +
    (work.drawSeconds ?? 0) * work.elements +
    blas / hostFlops +
    (fft - shortFft) / rates.hostFftFlops +
    shortFft / (rates.hostFftFlops * SHORT_FFT_HOST_SPEEDUP) +
    sort / rates.hostSortOpsPerSecond +
    filter / rates.hostFilterFlops +
    nonZeros * rates.hostSparseSecondsPerNonZero +
    (work.hostLoopSeconds ?? 0) +
    (work.labelElements ?? 0) * rates.hostLabelSecondsPerElement +
    ((work.measureElements ?? 0) + (work.countElements ?? 0)) * rates.hostMeasureSecondsPerElement;
  // each copy also pays a fixed latency (allocation, synchronisation) of about a launch
  const h2d = work.hostToDeviceBytes + kept.bytes;
  const copies = (h2d > 0 ? 1 : 0) + (work.deviceToHostBytes > 0 ? 1 : 0);
  const itemCopySeconds = (work.itemCopies ?? 0) * ITEM_COPY_LAUNCHES * device.launchOverhead + (work.itemCopyBytes ?? 0) / d2h;
  const transferSeconds = h2d / device.hostToDevice + work.deviceToHostBytes / d2h + copies * device.launchOverhead + itemCopySeconds;
  // what stays on the host costs the GPU version what it costs the CPU
  const drawSeconds = (bytes * STREAMS_PER_PASS * kept.passes) / hostRate + kept.transcendentalOps * work.elements * perElement + (kept.drawSeconds ?? 0) * work.elements;
  const hostKeptSeconds = drawSeconds + (kept.seconds ?? 0);
  const hostDrawSeconds = (kept.drawSeconds ?? 0) > 0 ? drawSeconds : 0;
  const launchSeconds = work.launches * device.launchOverhead;
  const computeSeconds =
    launchSeconds +
    (streamed - stencilStreamed) / (device.deviceBandwidth * KERNEL_BANDWIDTH_EFFICIENCY) +
    stencilStreamed / (device.deviceBandwidth * STENCIL_BANDWIDTH_EFFICIENCY) +
    work.flops / deviceFlops +
    nonZeros * rates.deviceSparseSecondsPerNonZero +
    (work.sparseNonZerosFromHost ?? 0) * rates.deviceSparseCanonicaliseSecondsPerNonZero +
    (work.uniformDraws ?? 0) * rates.deviceSecondsPerUniformDraw +
    (work.normalDraws ?? 0) * rates.deviceSecondsPerNormalDraw +
    (work.labelElements ?? 0) * rates.deviceLabelSecondsPerElement +
    (work.measureElements ?? 0) * rates.deviceMeasureSecondsPerElement +
    (work.countElements ?? 0) * rates.deviceCountSecondsPerElement +
    (work.deviceLoopSeconds ?? 0);
  const gpuSeconds = computeSeconds + transferSeconds + hostKeptSeconds;
  if (!withReason) {
    return { bytes, cpuSeconds, gpuSeconds, transferSeconds, hostDrawSeconds, reason: '' };
  }
  const speedup = gpuSeconds > 0 ? cpuSeconds / gpuSeconds : 1;

  let reason: string;
  const size = formatBytes(bytes);
  if (!fitsOnDevice(bytes, device)) {
    reason = `${size} does not fit in ${formatBytes(device.memoryBytes)} of device memory with room for temporaries`;
  } else if (drawSeconds > computeSeconds && drawSeconds >= transferSeconds) {
    reason = `${size}: random draws from a NumPy Generator made in another cell stay on the host (${formatSeconds(hostKeptSeconds)}) and are copied over; make that generator with CuPy to draw on the device`;
  } else if (itemCopySeconds > computeSeconds && itemCopySeconds >= transferSeconds / 2 && speedup < NOT_A_SPEEDUP) {
    reason = `${size}: ${plural(Math.round(work.itemCopies ?? 0), 'value', 'values')} copied back to the host one at a time, each waiting for the device (${formatSeconds(itemCopySeconds)})`;
  } else if (launchSeconds > computeSeconds * 0.5 && speedup < 2 && (bytes < 1 << 20 || launchSeconds >= transferSeconds)) {
    // (data of megabytes is not "too small": there the work per launch is what is small, and
    // where copying the megabytes costs more than the launches, the copies are the reason)
    const launches = plural(Math.round(work.launches), 'kernel launch', 'kernel launches');
    const one = Math.round(work.launches) === 1;
    reason = bytes < 1 << 20 ? `${size}: too small to pay for ${launches}` : `${size}: ${launches} ${one ? 'costs more than the work it does' : 'cost more than the work they do'} on the device`;
  } else if (transferSeconds > computeSeconds && transferSeconds > 0) {
    // (no device compute at all, the copies are the whole of it: "0 s" would read as a lost figure)
    const against = computeSeconds > 0 ? `dominate device compute (${formatSeconds(computeSeconds)})` : 'are all its device work';
    reason = `${size}: host<->device copies (${formatSeconds(transferSeconds)}) ${against}; keep the data on the device across cells`;
  } else if (nonZeros > 0 && nonZeros * rates.deviceSparseSecondsPerNonZero > computeSeconds / 2) {
    reason = `${size}: sparse product over ~${formatCount(nonZeros / 1e6)}M non-zeros`;
  } else if (work.flops > 0 && work.flops / hostFlops > streamed / device.hostBandwidth) {
    reason = `${size}: arithmetic-bound library kernels, ${formatFlops(work.flops)}`;
  } else {
    reason = `${size}: memory-bound, ${plural(work.passes, 'pass', 'passes')} over the data`;
  }
  return { bytes, cpuSeconds, gpuSeconds, transferSeconds, hostDrawSeconds, reason };
}

/** The profile's per-class rates of library calls, the H200's where it has none. */
function libraryRates(device: DeviceProfile) {
  return {
    hostFftFlops: device.hostFftFlops ?? MEASURED_H200.hostFftFlops,
    hostSortOpsPerSecond: device.hostSortOpsPerSecond ?? MEASURED_H200.hostSortOpsPerSecond,
    hostFilterFlops: device.hostFilterFlops ?? MEASURED_H200.hostFilterFlops,
    hostSparseSecondsPerNonZero: device.hostSparseSecondsPerNonZero ?? MEASURED_H200.hostSparseSecondsPerNonZero,
    deviceSparseSecondsPerNonZero: device.deviceSparseSecondsPerNonZero ?? MEASURED_H200.deviceSparseSecondsPerNonZero,
    deviceSparseCanonicaliseSecondsPerNonZero:
      device.deviceSparseCanonicaliseSecondsPerNonZero ?? MEASURED_H200.deviceSparseCanonicaliseSecondsPerNonZero,
    deviceSecondsPerUniformDraw: device.deviceSecondsPerUniformDraw ?? MEASURED_H200.deviceSecondsPerUniformDraw,
    deviceSecondsPerNormalDraw: device.deviceSecondsPerNormalDraw ?? MEASURED_H200.deviceSecondsPerNormalDraw,
    hostLabelSecondsPerElement: device.hostLabelSecondsPerElement ?? MEASURED_H200.hostLabelSecondsPerElement,
    hostMeasureSecondsPerElement: device.hostMeasureSecondsPerElement ?? MEASURED_H200.hostMeasureSecondsPerElement,
    deviceLabelSecondsPerElement: device.deviceLabelSecondsPerElement ?? MEASURED_H200.deviceLabelSecondsPerElement,
    deviceMeasureSecondsPerElement: device.deviceMeasureSecondsPerElement ?? MEASURED_H200.deviceMeasureSecondsPerElement,
    deviceCountSecondsPerElement: device.deviceCountSecondsPerElement ?? MEASURED_H200.deviceCountSecondsPerElement
  };
}

/** Share of device memory a working set may fill (room kept for CuPy's memory pool, temporaries and library workspaces). */
export const DEVICE_MEMORY_SHARE = 0.8;

/** Does the working set fit on the device (with room for temporaries)? */
export function fitsOnDevice(bytes: number, device: DeviceProfile = DEFAULT_DEVICE_PROFILE): boolean {
  return bytes <= device.memoryBytes * DEVICE_MEMORY_SHARE;
}

/**
 * Seconds in the unit a person reads best: "820 ns", "12.4 µs", "3.1 ms", "2.05 s", "3 min 5 s"
 * (three significant digits); "—" when unknown. The one formatter of durations: the reasons the
 * rules write, the CLI's text and the panel (src/ui/format.ts re-exports it) all use it.
 */
export function formatSeconds(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) {
    return '—';
  }
  // Pick the unit from the value as it will be shown (rounded to three digits), so
  // 9.996e-4 s reads "1 ms", not "1000 µs"; the sign is put back in front.
  const sign = seconds < 0 ? '-' : '';
  const abs = Number(Math.abs(seconds).toPrecision(3));
  if (abs === 0) {
    return '0 s';
  }
  if (abs < 1e-6) {
    return `${sign}${threeDigits(abs * 1e9)} ns`;
  }
  if (abs < 1e-3) {
    return `${sign}${threeDigits(abs * 1e6)} µs`;
  }
  if (abs < 1) {
    return `${sign}${threeDigits(abs * 1e3)} ms`;
  }
  if (abs < 120) {
    return `${sign}${threeDigits(abs)} s`;
  }
  const total = Math.round(Math.abs(seconds));
  const minutes = Math.floor(total / 60);
  return `${sign}${minutes} min ${total - minutes * 60} s`;
}

/** Three significant digits, no trailing zeros: 12.34 -> "12.3", 0.001234 -> "0.00123". */
export function threeDigits(x: number): string {
  if (x === 0) {
    return '0';
  }
  return String(Number(x.toPrecision(3)));
}

function formatFlops(f: number): string {
  if (f >= 1e12) {
    return `${(f / 1e12).toFixed(1)} TFLOP`;
  }
  if (f >= 1e9) {
    return `${(f / 1e9).toFixed(1)} GFLOP`;
  }
  return `${(f / 1e6).toFixed(1)} MFLOP`;
}

/** A count for people: at most one decimal below 10, none above (4.333 -> "4.3", 12.6 -> "13"). */
export function formatCount(x: number): string {
  if (!Number.isFinite(x)) {
    return String(x);
  }
  const r = Math.abs(x) >= 10 ? Math.round(x) : Math.round(x * 10) / 10;
  return groupThousands(r);
}

/**
 * `x.toLocaleString('en-US', { maximumFractionDigits: 1 })`, by hand for what the rules format
 * (integers, and numbers already rounded to tenths below 10): that call costs microseconds, and
 * every array cell formats several counts. Anything else goes to `toLocaleString` itself.
 */
export function groupThousands(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e15) {
    if (Object.is(x, -0)) {
      return '-0';
    }
    let digits = String(Math.abs(x));
    let grouped = '';
    while (digits.length > 3) {
      grouped = `,${digits.slice(-3)}${grouped}`;
      digits = digits.slice(0, -3);
    }
    return `${x < 0 ? '-' : ''}${digits}${grouped}`;
  }
  if (Math.abs(x) < 1000 && Math.round(x * 10) / 10 === x) {
    const t = x.toFixed(1);
    return t.endsWith('.0') ? t.slice(0, -2) : t;
  }
  return x.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

/** "1 pass", "4.3 passes". */
export function plural(x: number, one: string, many: string): string {
  const text = formatCount(x);
  return `${text} ${text === '1' ? one : many}`;
}

/**
 * A speedup that fell short of the `cut` it is refused under, as formatSpeedup writes it unless
 * that rounds it up to the cut (1.497 would read "1.50x" against a 1.5x minimum): then with three
 * decimals, cut short, so it never reads as meeting the cut-off ("1.497x").
 */
export function formatSpeedupBelow(x: number, cut: number): string {
  const shown = formatSpeedup(x);
  return x < cut && Number(shown.slice(0, -1).replace(/,/g, '')) >= cut ? `${(Math.floor(x * 1000) / 1000).toFixed(3)}x` : shown;
}

/**
 * A speedup for people: "0.42x", "3.10x", "12.3x", "978x", "1,235x". The one speedup formatter:
 * the rules' text uses the ASCII "x" (the CLI prints it to any terminal); the panel passes "×"
 * (src/ui/format.ts).
 */
export function formatSpeedup(x: number, times: 'x' | '×' = 'x'): string {
  if (!Number.isFinite(x)) {
    return `${x}${times}`;
  }
  return x >= 100 ? `${groupThousands(Math.round(x))}${times}` : x >= 10 ? `${x.toFixed(1)}${times}` : `${x.toFixed(2)}${times}`;
}
