/**
 * Types shared by the analysis engine, the UI and the CLI.
 *
 * This module has no JupyterLab imports: it runs in the browser and in Node.
 */

/** The libraries a suggestion can target (the CLI contract's `library` field). */
export type Library =
  | 'cupy'
  | 'numba-cuda'
  | 'warp'
  | 'cudf'
  | 'cuml'
  | 'nx-cugraph'
  | 'cuvs'
  | 'cucim'
  | 'kvikio'
  | 'pylibraft'
  | 'dask-cuda'
  | 'cuxfilter'
  | 'cuspatial';

/** Rule families, named after DESIGN.md's table. */
export type RuleFamily =
  | 'arrays'
  | 'kernels'
  | 'simulation'
  | 'dataframes'
  | 'ml'
  | 'graphs'
  | 'vectors'
  | 'images-io'
  | 'scale';

/** One cell as the engine sees it. */
export interface CellInput {
  /** Stable id of the cell (nbformat 4.5 cell id, or a generated one). */
  id: string;
  /** Position among all cells of the notebook, markdown included. */
  index: number;
  kind: 'code' | 'markdown' | 'raw';
  source: string;
}

/** A text edit in a cell's source; offsets are UTF-16 code units (JS string indices). */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** What the kernel told us about a name (from the `inspect` protocol call). */
export interface RuntimeValueInfo {
  type: string;
  shape?: number[];
  dtype?: string;
  bytes?: number;
  device?: 'host' | 'gpu';
}

/** Figures of the device the cost model predicts for. */
export interface DeviceProfile {
  name: string;
  /** Device memory bandwidth (bytes/s, read + written), measured by a D2D copy. */
  deviceBandwidth: number;
  /** Host-to-device copy rate (bytes/s) from pageable memory. */
  hostToDevice: number;
  /** Host memory bandwidth seen by NumPy (bytes/s). */
  hostBandwidth: number;
  /** Cost of launching one kernel (seconds). */
  launchOverhead: number;
  /** Device memory (bytes). */
  memoryBytes: number;
  /** Device-to-host copy rate (bytes/s) into pageable memory; defaults to `hostToDevice`. */
  deviceToHost?: number;
  /** Sustained device arithmetic (FLOP/s) for library kernels (cuBLAS, cuFFT). */
  deviceFlops?: number;
  /** Sustained host arithmetic (FLOP/s) for multithreaded BLAS/LAPACK. */
  hostFlops?: number;
  /** Host seconds per element for a transcendental ufunc (exp, sin...) in NumPy. */
  hostTranscendentalSeconds?: number;
  /*
   * Per-class rates of library calls. Absent: the H200 test machine's (`MEASURED_H200` in
   * costmodel.ts, measured 2026-11-30; bench/RESULTS.md), which DEFAULT_DEVICE_PROFILE holds.
   */
  /** Host FLOP/s of FFTs (NumPy's pocketfft runs on one core). */
  hostFftFlops?: number;
  /** Host comparisons per second of a sort (counted as 4 n log2 n). */
  hostSortOpsPerSecond?: number;
  /** Host FLOP/s of SciPy's image filters (20 flops counted per element and call). */
  hostFilterFlops?: number;
  /** Host seconds per non-zero of a SciPy sparse matrix product. */
  hostSparseSecondsPerNonZero?: number;
  /** Device seconds per non-zero of a canonical cupyx sparse matrix product. */
  deviceSparseSecondsPerNonZero?: number;
  /** Device seconds per non-zero to sort and merge a matrix converted from SciPy (not canonical). */
  deviceSparseCanonicaliseSecondsPerNonZero?: number;
  /**
   * Seconds per element of `scipy.ndimage.label` and of a measurement over labels (`sum`,
   * `mean`... with `labels` and `index`), on the host (SciPy) and on the device (cupyx).
   */
  hostLabelSecondsPerElement?: number;
  hostMeasureSecondsPerElement?: number;
  deviceLabelSecondsPerElement?: number;
  deviceMeasureSecondsPerElement?: number;
  /** Device seconds per label counted by `cp.bincount` (component sizes, rewritten from a sum over labels). */
  deviceCountSecondsPerElement?: number;
  /** Device seconds per value drawn by cuRAND: uniform, and normal (or other) distributions. */
  deviceSecondsPerUniformDraw?: number;
  deviceSecondsPerNormalDraw?: number;
  /** Seconds to compile one kernel a cell defines (ElementwiseKernel, RawKernel, fused function). */
  kernelCompileSeconds?: number;
  /**
   * The figures that came from the kernel's report of its own device (`deviceProfileFromReport`):
   * its GPU's memory and what its doctor's calibration measured. Absent for a profile not built
   * from a report, such as DEFAULT_DEVICE_PROFILE.
   */
  reported?: readonly ('memoryBytes' | 'deviceBandwidth' | 'hostToDevice' | 'hostBandwidth' | 'launchOverhead')[];
}

export interface Prediction {
  /** Predicted speedup, end to end (transfers included). */
  speedup: number;
  /** Predicted CPU and GPU seconds. */
  cpuSeconds: number;
  gpuSeconds: number;
  /** Seconds of that GPU time spent on host<->device copies. */
  transferSeconds: number;
  /** Why the prediction is what it is, in one line (e.g. "1.2 MB: too small to pay for launches"). */
  reason: string;
  /**
   * GPU seconds of the cell's first run on a machine, CuPy's kernel cache empty: `gpuSeconds`
   * plus its first uses compiled (the kernels it defines, the built-in and cupyx kernels it runs)
   * and the libraries it sets up (apis/first-use.ts).
   */
  firstRunSeconds?: number;
  /**
   * GPU seconds in a fresh kernel with the kernel cache warm (every later session): `gpuSeconds`
   * plus its first uses loaded from the cache and the libraries set up.
   */
  freshSessionSeconds?: number;
  /** Those first uses, in words ("3 built-in kernels, cuFFT"), when there are any. */
  firstUse?: string;
  /**
   * Seconds of `gpuSeconds` spent drawing random numbers on the host, as the CPU does: draws
   * from a NumPy Generator made in another cell, whose stream stays NumPy's (a seeded one, or
   * one a later cell draws from: rules/arrays/cupy-rewrite.ts `movableHostGenerator`), copied
   * to the device. Absent when the cell keeps no draw on the host.
   */
  hostDrawSeconds?: number;
  /** The same work inside the whole-notebook rewrite: data already on the device, no copies. */
  residentSpeedup?: number;
  /**
   * The device the figures are for, when the analyser was given a profile other than
   * DEFAULT_DEVICE_PROFILE (the kernel's, from `deviceProfileFromReport`): its name, and whether
   * its device bandwidth, copy rate or launch cost were measured there (else those are the H200's).
   * Absent: every figure is the H200 test machine's.
   * `h200Figures`: the figures this prediction used that are the H200's, not the device's own
   * (absent: none); library FLOP rates always are (the doctor does not measure arithmetic).
   */
  device?: { name: string; measured: boolean; h200Figures?: readonly H200Figure[] };
}

/** Figures of a device profile that may be the H200 test machine's instead of the device's. */
export type H200Figure = 'deviceBandwidth' | 'copyRates' | 'launchOverhead' | 'libraryFlops';

/** A proposed rewrite of one cell. */
export interface Suggestion {
  /** Stable rule code, e.g. "GPU101". */
  rule: string;
  library: Library;
  title: string;
  /** 0..1: how sure the engine is that the candidate is correct and worthwhile. */
  confidence: number;
  /** Predicted end-to-end speedup (the CLI's `predicted_speedup`). */
  predicted_speedup: number;
  prediction: Prediction;
  cellId: string;
  cellIndex: number;
  /** The cell source the suggestion was computed from (Apply refuses if it changed). */
  original: string;
  /** Edits against `original`. */
  edits: TextEdit[];
  /** The full rewritten cell source. */
  candidate: string;
  /** Imports the candidate needs, to be added once at the notebook's import cell. */
  imports: string[];
  /** Markdown explanation shown by Explain; cites `reference`. */
  explanation: string;
  /** references/<file>.md#<anchor> */
  reference: string;
  /** Notes the user must read (e.g. "random streams differ: compared by statistics"). */
  notes: string[];
  /** Accelerator modes must be loaded before the library is imported. */
  needsKernelRestart?: boolean;
}

/** A reason the engine declined to suggest something it recognised. */
export interface Refusal {
  rule: string;
  cellId: string;
  cellIndex: number;
  reason: string;
}

export interface AnalysisResult {
  suggestions: Suggestion[];
  refusals: Refusal[];
  /** Per-cell problems (syntax errors, non-Python cells, huge cells). */
  diagnostics: { cellId: string; cellIndex: number; message: string }[];
}
