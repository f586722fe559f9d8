/**
 * What CuPy costs the first time a process uses something, beside the work itself: loading
 * CuPy, a cupyx.scipy submodule, a CUDA library's handle or plan, and every kernel a cell runs.
 *
 * CuPy compiles each kernel with NVRTC the first time a machine runs it (each built-in ufunc or
 * reduction per dtype signature, each cupyx.scipy function's kernels, each kernel the rewrite
 * generates) and keeps the binary in its on-disk kernel cache (~/.cupy/kernel_cache); every later
 * process loads it from there (a module load per kernel), and pays the imports and library set-up
 * again. So a rewrite has three figures (costmodel.ts `Prediction`): the steady one the A/B
 * harness measures inside a warm process (`speedup`), a fresh kernel with the cache warm (every
 * session after the first: `freshSessionSeconds`), and the machine's first run, cold cache
 * (`firstRunSeconds`). Bench run 20 (bench/RESULTS.md; whole notebooks on the H200) measured what
 * ignoring them does: cells NumPy runs in milliseconds took 0.6 s warm and 3-10 s cold.
 *
 * `FIRST_USE_H200` is the one table of these costs; `firstUses` finds which of them a cell makes
 * and `firstUseCharge` prices those not already made by an earlier cell (the whole-notebook plan
 * charges each to the first cell that makes it).
 */
import type { LibraryRef } from '../rules/arrays/cupy-rewrite';
import { isDivmodDefinition } from '../rules/arrays/float-remainder';
import { field, unparen, walkTypes } from '../syntax';
import type { SyntaxNode } from '../parser';

/** Seconds of one first use: with an empty kernel cache (compiles) and with it filled (loads). */
export interface ColdWarm {
  cold: number;
  warm: number;
}

/** `{ cold, warm }` in seconds, from the probe's milliseconds. */
const ms = (cold: number, warm: number): ColdWarm => ({ cold: cold / 1000, warm: warm / 1000 });

/**
 * First-use costs on the H200 test machine, measured by bench/first_use_probe.py on 2026-12-02
 * (CuPy 14.2.0, CUDA runtime 13.2, Python 3.12.3; bench/results/2026-12-02-h200-run21/, its
 * `table.txt` and `probe.json`). Each case ran in three fresh processes: one with an empty
 * kernel cache (`cold`) and two with it filled (`warm`), on small inputs (a 512x512 float32 image,
 * 65,536 float64 values), so that a first call's time less the same call's steady time is the
 * compile (cold) or the load (warm) alone. Figures in milliseconds below are those differences.
 */
export const FIRST_USE_H200 = {
  /**
   * Per process, once per notebook: `import cupy` beyond NumPy's own (0.20 s: numpy 0.34 s,
   * numpy+cupy 0.54 s) and the CUDA context at the first array (0.31 s: `cupy.zeros(1)` and a
   * synchronise, 0.85 s against 0.54). Run 27's line probe (bench/line_probe.py, call 4) timed the
   * `import cupy` line of four rewrites, which it synchronises (so the context is made there), at
   * 382-563 ms. The first kernel launch, 32 ms in run 21's probe, is `firstKernel`'s now.
   */
  importCupy: 0.51,
  /**
   * Per process, once per notebook: what the first statement that runs a CuPy kernel pays beyond
   * its own work and the first uses it makes (its kernels' loads, library handles), with CuPy's
   * kernel cache warm: the first launch, 32 ms in run 21's probe (bench/first_use_probe.py). The
   * whole notebooks bound it there: the first GPU cell of c_heat (runs 22, 23, 25: `cp.asarray`,
   * 200 steps of two RawKernels and sums, the process's first kernels) took 64-89 ms in all, its
   * steady work ~6 ms and its loads ~40 ms priced; k_audio's (runs 23-26) 64-92 ms, g_register's
   * 107-167 ms, a_microscopy's 127-191 ms, f_nbody's 90 ms, each with its work and loads.
   * Session 16 had taken 0.37 s here from bench/line_probe.py (run 27, call 4): the first compute
   * statement of m_pic (`(xp / dxg).astype(np.int64) % ng`, 374 ms, 0.1 ms re-run), d_stats
   * (`cp.linalg.lstsq`, 707 ms), l_kalman and i_kmeans (their loops, 0.4-0.55 s over their
   * steady time) paid 0.25-0.56 s beyond their priced loads; the probe's own note says the other
   * notebooks' first cells came within 0.1 s. Charged to every process, it made c_heat "not
   * predicted to pay" (0.93 s per session against 1.1 s of CPU time, 1.18x) where the H200 measured
   * its moved cells at 0.34-0.57 s per session, import included, against 1.25-1.51 s (run 25's
   * table: 1.69x with the import cell's own NumPy and pandas imports; the notebook 1.2-1.5x), and
   * p_finance (1.14x; measured 1.3x, run 27). What those five cells pay is theirs (a library's
   * first use or a load the model does not price yet), not every process's: not charged here.
   */
  firstKernel: 0.032,
  /**
   * Importing a cupyx.scipy submodule where a notebook's rewrite imports it: in a process that
   * has imported the SciPy module it replaces, imported CuPy and made and reduced a first array
   * (bench/submodule_probe.py, run 25, 2026-12-02, median of fresh processes with the kernel
   * cache filled): ndimage 66 ms, signal 72, fft 38, interpolate 38, linalg 26, special 24,
   * stats 15, sparse 10. Each was measured alone, so each figure holds what the submodules share
   * (cupyx.scipy itself): charged in full for each submodule, a few ms over for the second and
   * later ones. Run 21's probe imported each into a bare process (no SciPy, no CUDA context:
   * 0.37-0.72 s), which session 12 charged at a third from cells of runs 22-23 (the first cell using ndimage or signal: 0.035-0.18 s in all, its
   * work and kernel loads included); the direct figures are lower still.
   */
  submodules: {
    'scipy.ndimage': 0.066,
    'scipy.special': 0.024,
    'scipy.linalg': 0.026,
    'scipy.fft': 0.038,
    'scipy.interpolate': 0.038,
    'scipy.sparse': 0.01,
    'scipy.sparse.linalg': 0.01,
    'scipy.stats': 0.015,
    'scipy.signal': 0.072
  } as Record<string, number>,
  /** A submodule not measured: the median of those measured. */
  submoduleImport: 0.031,
  /**
   * CUDA libraries' first use in a process (handle, plan, generator) and their kernels' compile:
   * cuBLAS (matmul float32: 88 ms cold, 112 ms warm, handle creation either way), cuSOLVER
   * (linalg.solve 233 / 21 ms), cuFFT (fft.fft's plan 226 / 9 ms), cuRAND (cp.random.rand 237 /
   * 7 ms; default_rng 4-5 ms), cuSPARSE (csr @ vector: 5.85 s / 26 ms), CUB's full reductions
   * (the first `x.sum()` over a whole array: 33 / 35 ms).
   */
  library: {
    cublas: ms(112, 112),
    cusolver: ms(233, 21),
    cufft: ms(226, 9),
    curand: ms(237, 7),
    cusparse: ms(5849, 26),
    cub: ms(35, 35)
  } as Record<CudaLibrary, ColdWarm>,
  /**
   * A CuPy built-in kernel (a ufunc or reduction, one dtype signature): elementwise ops and
   * reductions 83-150 ms to compile (`std` 364 ms; the machine's first ever 349 ms), 0.6-1.0 ms
   * to load.
   */
  builtinKernel: ms(120, 1),
  /** Built-ins measured apart, by NumPy's name (function or method): CUB- or jitify-based. */
  builtinKernels: {
    median: ms(3226, 19),
    nanmedian: ms(3226, 19),
    bincount: ms(3479, 19),
    histogram: ms(1033, 7),
    unique: ms(712, 7),
    percentile: ms(222, 2),
    quantile: ms(222, 2),
    std: ms(364, 2),
    var: ms(364, 2),
    sort: ms(42, 42),
    argsort: ms(42, 42),
    count_nonzero: ms(4187, 54),
    einsum: ms(240, 8)
  } as Record<string, ColdWarm>,
  /**
   * A cupyx.scipy function not measured: the median of the ndimage and signal functions measured
   * (`cupyxFunctions`).
   */
  cupyxFunction: ms(1500, 4),
  /** cupyx.scipy functions measured (keys: SciPy's qualified name). */
  cupyxFunctions: {
    'scipy.ndimage.gaussian_filter': ms(2977, 8),
    'scipy.ndimage.gaussian_filter1d': ms(1143, 3),
    'scipy.ndimage.uniform_filter': ms(3135, 8),
    'scipy.ndimage.uniform_filter1d': ms(1702, 4),
    'scipy.ndimage.median_filter': ms(1523, 4),
    'scipy.ndimage.maximum_filter': ms(2500, 7),
    'scipy.ndimage.minimum_filter': ms(2817, 7),
    'scipy.ndimage.convolve': ms(1567, 4),
    'scipy.ndimage.label': ms(759, 4),
    'scipy.ndimage.sum_labels': ms(105, 1),
    'scipy.ndimage.sum': ms(105, 1),
    'scipy.ndimage.mean': ms(214, 1),
    'scipy.ndimage.center_of_mass': ms(570, 3),
    'scipy.ndimage.binary_erosion': ms(1676, 4),
    'scipy.ndimage.binary_dilation': ms(1561, 4),
    'scipy.ndimage.binary_opening': ms(124, 1),
    'scipy.ndimage.binary_closing': ms(124, 1),
    'scipy.ndimage.binary_fill_holes': ms(730, 4),
    'scipy.ndimage.distance_transform_edt': ms(750, 2),
    'scipy.ndimage.zoom': ms(672, 2),
    'scipy.ndimage.rotate': ms(487, 2),
    'scipy.ndimage.shift': ms(238, 1),
    'scipy.ndimage.map_coordinates': ms(140, 1),
    'scipy.signal.sosfilt': ms(4620, 4),
    'scipy.signal.sosfiltfilt': ms(1821, 9),
    'scipy.signal.fftconvolve': ms(412, 5),
    'scipy.signal.convolve2d': ms(1780, 3),
    'scipy.signal.welch': ms(1455, 6),
    'scipy.signal.periodogram': ms(249, 1),
    'scipy.signal.spectrogram': ms(291, 1),
    'scipy.signal.stft': ms(526, 3),
    'scipy.signal.hilbert': ms(418, 2),
    'scipy.signal.find_peaks': ms(1637, 4),
    'scipy.signal.savgol_filter': ms(4497, 25),
    'scipy.signal.medfilt': ms(1953, 4),
    'scipy.signal.detrend': ms(313, 16),
    'scipy.signal.resample_poly': ms(2576, 9),
    'scipy.signal.decimate': ms(6886, 32),
    'scipy.special.logsumexp': ms(564, 2)
  } as Record<string, ColdWarm>,
  /** A scipy.special function: one ufunc (erf, gammaln, ndtr, ndtri, expit, j0: 150-363 ms, 0.6-1.2 ms). */
  specialFunction: ms(200, 1),
  /**
   * Kernels the rewrite generates, by kind: ElementwiseKernel 170 ms to compile and 19 ms to load
   * (a fused function, not measured: `cp.fuse` of a lambda failed to compile in the probe, so
   * taken as an ElementwiseKernel), ReductionKernel 4.75 s and 15 ms, RawKernel 49 ms and 0.5 ms.
   */
  generatedKernels: {
    elementwise: ms(170, 19),
    reduction: ms(4754, 15),
    raw: ms(49, 0.5)
  } as Record<GeneratedKind, ColdWarm>
};

/** The kind of a kernel the rewrite generates, from its definition's text. */
export type GeneratedKind = 'elementwise' | 'reduction' | 'raw';

function generatedKind(text: string): GeneratedKind {
  return /\bReductionKernel\(/.test(text) ? 'reduction' : /\bRawKernel\(/.test(text) ? 'raw' : 'elementwise';
}

/**
 * cupyx.scipy functions that run another's kernels (the probe's later case then compiled little:
 * sosfiltfilt after sosfilt, binary_opening after erosion and dilation, sobel, laplace and
 * correlate after convolve, grey_erosion after minimum_filter): a first use of each.
 */
const CUPYX_RUNS: Record<string, readonly string[]> = {
  'scipy.signal.sosfiltfilt': ['scipy.signal.sosfilt'],
  'scipy.ndimage.binary_opening': ['scipy.ndimage.binary_erosion', 'scipy.ndimage.binary_dilation'],
  'scipy.ndimage.binary_closing': ['scipy.ndimage.binary_erosion', 'scipy.ndimage.binary_dilation'],
  'scipy.ndimage.sobel': ['scipy.ndimage.convolve'],
  'scipy.ndimage.prewitt': ['scipy.ndimage.convolve'],
  'scipy.ndimage.laplace': ['scipy.ndimage.convolve'],
  'scipy.ndimage.correlate': ['scipy.ndimage.convolve'],
  'scipy.ndimage.grey_erosion': ['scipy.ndimage.minimum_filter'],
  'scipy.ndimage.grey_dilation': ['scipy.ndimage.maximum_filter']
};

/** Those whose own compile is nothing beyond the kernels they share (`CUPYX_RUNS`). */
const SHARED_ONLY = new Set(['scipy.ndimage.sobel', 'scipy.ndimage.prewitt', 'scipy.ndimage.laplace', 'scipy.ndimage.correlate', 'scipy.ndimage.grey_erosion', 'scipy.ndimage.grey_dilation']);

/** The first-use keys of a call of cupyx.scipy function `qualified` (SciPy's name). */
export function cupyxUseKeys(qualified: string): string[] {
  return [qualified, ...(CUPYX_RUNS[qualified] ?? [])].map(q => `cupyx:${q}`);
}

/** NumPy reductions CuPy runs with CUB over a whole array (`library:cub` the first time). */
const REDUCTION_NAMES = new Set(['sum', 'mean', 'max', 'min', 'prod', 'any', 'all', 'argmax', 'argmin', 'std', 'var', 'nansum', 'nanmean', 'nanmax', 'nanmin', 'average', 'amax', 'amin', 'linalg.norm', 'ptp']);

/** CUDA libraries CuPy sets up on first use. */
export type CudaLibrary = 'cublas' | 'cusolver' | 'cufft' | 'curand' | 'cusparse' | 'cub';

/**
 * The first uses a cell makes, each named by a key that says what it is: `submodule:` a
 * cupyx.scipy submodule, `library:` a CUDA library, `cupyx:` a cupyx.scipy function (SciPy's
 * qualified name), `builtin:` a CuPy built-in kernel, `kernel:` a kernel the cell defines.
 */
export interface FirstUses {
  keys: string[];
}

/** What `firstUses` reads of the array analysis. */
export interface FirstUseSource {
  refs: readonly Pick<LibraryRef, 'node' | 'qualified' | 'action'>[];
  randomCalls: number;
  definitions: readonly { name: string; text: string }[];
  arrayOperators: number;
  arrayMethods: number;
  sparseOps: number;
  /** The cell's largest array: its dtype and rank stand for those of its kernels. */
  largest?: { dtype?: string; shape?: readonly (number | null)[] };
}

/** NumPy functions that run cuBLAS (matrix products). */
const BLAS = /^numpy\.(dot|matmul|inner|tensordot|einsum|vdot|linalg\.(multi_dot|matrix_power))$/;
/** NumPy/SciPy functions that run cuSOLVER (factorisations, solves, eigensolvers). */
const SOLVER = /^(numpy|scipy)\.linalg\.(solve|inv|pinv|cholesky|qr|svd|eig|eigh|eigvals|eigvalsh|lstsq|det|slogdet|matrix_rank|lu|lu_factor|lu_solve|solve_triangular)$/;
const FFT = /^(numpy|scipy)\.fft\./;
/** Array creation that runs no kernel worth counting (a memset or a copy). */
const NO_KERNEL = /^numpy\.(zeros|ones|empty|zeros_like|ones_like|empty_like|array|asarray|ascontiguousarray|float16|float32|float64|int8|int16|int32|int64|uint8|bool_|complex64|complex128|dtype|newaxis|pi|e|inf|nan)$/;

/**
 * The first uses of a cell's rewrite, found from what the analysis resolved.
 * - cupyx.scipy functions: its references the rewrite runs with CuPy whose name starts `scipy.`
 *   (`scipy.ndimage.gaussian_filter` -> `cupyx.scipy.ndimage.gaussian_filter`), each with its
 *   submodule's import;
 * - CUDA libraries: FFTs (cuFFT), linear-algebra solves (cuSOLVER, which also sets up cuBLAS),
 *   matrix products (`@`, `np.dot`, ...: cuBLAS), random draws (cuRAND), sparse products
 *   (cuSPARSE);
 * - built-in kernels, APPROXIMATELY: each distinct NumPy function the rewrite runs with CuPy
 *   (creation by memset or copy aside), each distinct operator symbol applied to arrays and each
 *   distinct array method name, one kernel each, for the dtype and rank of the cell's largest
 *   array (CuPy compiles a kernel per dtype signature and rank: `+` on float32 images and on
 *   float64 vectors are two). Some functions run several kernels (a norm squares, sums and takes
 *   a root), so this under-counts a cell mixing dtypes and ranks, and over-counts an operator a
 *   fused kernel absorbed;
 * - kernels the cell defines: its definitions, by name.
 */
export function firstUses(root: SyntaxNode, a: FirstUseSource, isArray: (n: SyntaxNode) => boolean): FirstUses {
  const keys = new Set<string>();
  const library = (l: CudaLibrary): void => void keys.add(`library:${l}`);
  const signature = `${a.largest?.dtype ?? '?'}:${a.largest?.shape?.length ?? '?'}`;
  const builtin = (name: string): void => void keys.add(`builtin:${name}@${signature}`);
  for (const r of a.refs) {
    const call = r.node.parent;
    if (r.action !== 'cupy' || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id) {
      continue;
    }
    const q = r.qualified;
    if (FFT.test(q)) {
      library('cufft');
    } else if (SOLVER.test(q)) {
      library('cusolver');
      library('cublas');
    } else if (BLAS.test(q)) {
      library('cublas');
    }
    if (q.startsWith('scipy.')) {
      // the import of its cupyx.scipy submodule, the part all of them share first
      keys.add('submodule:cupyx.scipy');
      keys.add(`submodule:${q.slice(0, q.lastIndexOf('.'))}`);
      if (!FFT.test(q) && !SOLVER.test(q)) {
        cupyxUseKeys(q).forEach(k => keys.add(k));
      }
    } else if (q.startsWith('numpy.') && !q.startsWith('numpy.random.') && !NO_KERNEL.test(q)) {
      const name = q.slice('numpy.'.length);
      builtin(name);
      if (REDUCTION_NAMES.has(name)) {
        library('cub');
      }
    }
  }
  if (a.randomCalls > 0) {
    library('curand');
  }
  if (a.sparseOps > 0) {
    library('cusparse');
  }
  if (a.arrayOperators > 0 || a.arrayMethods > 0) {
    // distinct operators and methods on arrays, at most as many as the analysis counted
    const operators = new Set<string>();
    const methods = new Set<string>();
    walkTypes(root, ['binary_operator', 'augmented_assignment', 'call'], n => {
      if (n.type === 'call') {
        const fn = field(n, 'function');
        const obj = fn?.type === 'attribute' ? field(fn, 'object') : null;
        if (obj && methods.size < a.arrayMethods && isArray(obj)) {
          const method = field(fn!, 'attribute')?.text ?? '';
          // a sum of a comparison counts booleans: CuPy's CUB-based count (4.2 s to compile)
          methods.add(method === 'sum' && unparen(obj).type === 'comparison_operator' ? 'count_nonzero' : method);
        }
        return true;
      }
      const op = field(n, 'operator')?.type ?? '';
      if (op && operators.size < a.arrayOperators && isArray(n.type === 'binary_operator' ? n : field(n, 'left') ?? n)) {
        operators.add(op.replace(/=$/, ''));
      }
      return true;
    });
    if (operators.has('@')) {
      library('cublas');
      operators.delete('@');
    }
    operators.forEach(builtin);
    methods.forEach(m => builtin(`.${m}`));
    if ([...methods].some(m => REDUCTION_NAMES.has(m))) {
      library('cub');
    }
  }
  // (`np_divmod` only calls two other definitions: no kernel of its own)
  for (const d of a.definitions.filter(d => !isDivmodDefinition(d.text))) {
    keys.add(kernelKey(d));
  }
  return { keys: [...keys] };
}

/** The price of first uses, cold and warm, and what they are in words. */
export interface FirstUseCharge {
  cold: number;
  warm: number;
  /** "2 built-in kernels, cupyx.scipy.ndimage.gaussian_filter, cuFFT". */
  what: string;
}

const LIBRARY_NAMES: Record<CudaLibrary, string> = { cublas: 'cuBLAS', cusolver: 'cuSOLVER', cufft: 'a cuFFT plan', curand: 'cuRAND', cusparse: 'cuSPARSE', cub: "CUB's reductions" };

/** The first-use key of a kernel the rewrite defines: its kind and name. */
export function kernelKey(d: { name: string; text: string }): string {
  return `kernel:${generatedKind(d.text)}:${d.name}`;
}

/** The cost of one first use by its key (`FirstUses.keys`). */
export function firstUseCost(key: string, table = FIRST_USE_H200): ColdWarm {
  const [kind, name] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
  switch (kind) {
    case 'submodule': {
      // cupyx.scipy itself: inside each submodule's figure (measured alone)
      if (name === 'cupyx.scipy') {
        return { cold: 0, warm: 0 };
      }
      const own = table.submodules[name] ?? table.submoduleImport;
      return { cold: own, warm: own };
    }
    case 'library':
      return table.library[name as CudaLibrary];
    case 'cupyx':
      if (SHARED_ONLY.has(name)) {
        return { cold: 0, warm: 0 };
      }
      // scipy.special's functions are ufuncs
      return table.cupyxFunctions[name] ?? (name.startsWith('scipy.special.') ? table.specialFunction : table.cupyxFunction);
    case 'kernel':
      return table.generatedKernels[name.slice(0, name.indexOf(':')) as GeneratedKind];
    default: {
      // (a built-in kernel's cost by its key, kept for the default table: the names are CuPy's
      // kernels, a bounded set; two regular-expression replaces per key per suggestion otherwise)
      const known = table === FIRST_USE_H200 ? BUILTIN_COSTS.get(key) : undefined;
      if (known !== undefined) {
        return known;
      }
      const cost = table.builtinKernels[name.replace(/^\./, '').replace(/@.*$/, '')] ?? table.builtinKernel;
      if (table === FIRST_USE_H200) {
        BUILTIN_COSTS.set(key, cost);
      }
      return cost;
    }
  }
}

/** `firstUseCost` of built-in kernels' keys with the default table, by key. */
const BUILTIN_COSTS = new Map<string, ColdWarm>();

/**
 * The charge of `uses` that `seen` does not hold (made by an earlier cell of the same process);
 * null when nothing is left. `kernelCompileSeconds`: the device profile's cold compile of an
 * ElementwiseKernel, when it has one.
 */
export function firstUseCharge(uses: FirstUses, seen: ReadonlySet<string> = new Set(), kernelCompileSeconds?: number): FirstUseCharge | null {
  const left = uses.keys.filter(k => !seen.has(k));
  if (left.length === 0) {
    return null;
  }
  let cold = 0;
  let warm = 0;
  // (two counters, not an object keyed by the kind: a keyed store per key)
  let builtins = 0;
  let generated = 0;
  const named: string[] = [];
  for (const key of left) {
    const cost = firstUseCost(key);
    const kind = key.slice(0, key.indexOf(':'));
    const name = key.slice(kind.length + 1);
    // (the profile's compile time is an ElementwiseKernel's)
    cold += kind === 'kernel' && name.startsWith('elementwise:') && kernelCompileSeconds !== undefined ? kernelCompileSeconds : cost.cold;
    warm += cost.warm;
    if (kind === 'builtin') {
      builtins += 1;
    } else if (kind === 'kernel') {
      generated += 1;
    } else if (kind === 'cupyx') {
      named.push(`cupyx.${name}`);
    } else if (kind === 'library') {
      named.push(LIBRARY_NAMES[name as CudaLibrary]);
    }
  }
  const kernels = (n: number, what: string): string => (n === 0 ? '' : `${n} ${what}${n === 1 ? '' : 's'}`);
  const what = [kernels(builtins, 'built-in kernel'), kernels(generated, 'generated kernel'), ...named].filter(Boolean).join(', ');
  return { cold, warm, what };
}

/**
 * Seconds per MiB a fresh process's first host->device copies cost beyond the same copies later
 * in it. Measured on the H200 by bench/host_probe.py `first_device_use` (2026-12-02, call 4,
 * bench/results/2026-12-02-h200-host-probe/host_probe_4.json, three fresh processes with their
 * CUDA context made): `cp.asarray` of 32 MiB took 19-23 ms first and 5.6-6.5 ms for the next
 * array of that size; then 256 MiB took 133-153 ms first and 28-32 ms next: ~0.43 ms a MiB more
 * the first time (14-16 ms over 32 MiB, 102-122 ms over 256 MiB), paid again in full by the first
 * copy of the larger size after the smaller one had paid its own.
 */
export const FIRST_COPY_IN_SECONDS_PER_MIB = 0.43e-3;

/**
 * What a session pays once for its first copies in (`FIRST_COPY_IN_SECONDS_PER_MIB`), from the
 * bytes of each host->device copy it makes: charged on the largest, which the probe shows paying
 * it in full (a lower bound: the probe's smaller first copy paid its own too, and sizes between
 * were not measured).
 */
export function firstCopyInCharge(copies: readonly number[]): number {
  const largest = copies.reduce((a, b) => Math.max(a, b), 0);
  return (largest / (1 << 20)) * FIRST_COPY_IN_SECONDS_PER_MIB;
}
