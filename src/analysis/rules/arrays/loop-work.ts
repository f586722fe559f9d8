/**
 * The work of NumPy calls that loop per item rather than stream per byte, for `estimateWork`
 * (./cupy-rewrite.ts): the host's side priced per item at `MEASURED_H200`'s rates (costmodel.ts,
 * where each is documented with where it was measured), the device's side as the CuPy call runs
 * it (batched contractions and factorisations, one sort along the axis, atomic adds).
 *
 * - `np.einsum` without `optimize`: NumPy walks the whole index space of the subscripts in one
 *   loop, so "ij,njk,lk->nil" costs n*i*j*k*l points, not the size of one operand; CuPy contracts
 *   the operands pairwise (batched matrix products).
 * - `np.linalg.solve`/`inv`/`det`/`eigh`... of a stack of small matrices: one LAPACK call per
 *   matrix on the host; batched (cuBLAS getrf/getrs, cuSOLVER) on the device.
 * - fancy-index gathers (`a[idx]`, an integer array): item by item, a cache miss each where the
 *   source is larger than the host's cache.
 * - `np.linalg.qr`/`svd`/`lstsq` of one matrix: LAPACK's flops for its shape at a host rate that
 *   depends on its narrow side (BLAS2-bound when narrow); cuSOLVER's SVD at its measured rate.
 * - `np.nanpercentile`/`np.nanquantile` along an axis: a Python call per slice
 *   (`np.apply_along_axis`); the device form sorts along the axis once (./nan-quantile.ts).
 * - `np.<ufunc>.at(target, index, values)`: unbuffered, per element.
 * - `np.histogram`/`histogram2d`/`histogramdd`: a search (or a division) per sample and axis.
 * - `np.dot`/`np.matmul`/`np.inner`/`np.vdot` by their operands' ranks (a vector product is 2n
 *   flops, not a matrix's).
 * - short rows: an elementwise operation that broadcasts, or a reduction along the last axis,
 *   where that axis is short (`X[:, None, :] - C[None, :, :]` with 8 columns, `.sum(axis=2)` of
 *   it): NumPy's inner loop runs once per row and its set-up is paid per row.
 * - SciPy filters at their own measured rates per element (`scipyFilterWork`), the IIR
 *   recursions also on the device (one thread walks each signal).
 * - a `while` loop bounded by a counter (`while ... and it < max_iter:` with `it += 1`).
 */
import { MEASURED_H200 } from '../../costmodel';
import type { CellModel, NotebookModel } from '../../notebook';
import type { SyntaxNode } from '../../parser';
import { callArguments, field, kids, operatorOf, unparen, walk } from '../../syntax';
import { itemSize, type ValueInfo } from '../../values';

/** What one run of a call costs beyond `estimateWork`'s streamed passes. */
export interface LoopWork {
  /** Host seconds of the per-item loops (`WorkEstimate.hostLoopSeconds`). */
  hostSeconds: number;
  /** Device arithmetic (`WorkEstimate.flops`); on the host, BLAS runs `hostBlasFlops` of it. */
  deviceFlops: number;
  /** The part of `deviceFlops` the host runs through BLAS too (an einsum with `optimize`). */
  hostBlasFlops?: number;
  /** Kernel launches of the device form. */
  launches: number;
  /** Device seconds of work priced at its own measured rate, not `deviceFlops` (an SVD). */
  deviceSeconds?: number;
  /** Bytes the device form reads and writes, in elements of the call's operands and result. */
  elementsMoved: number;
}

/** The shape of a value when every dimension is known. */
function knownShape(v: ValueInfo): number[] | null {
  return v.kind === 'ndarray' && !v.approx && v.shape !== undefined && v.shape.every(d => typeof d === 'number') ? (v.shape as number[]) : null;
}

/** The text of a plain string literal (`"ij,jk->ik"`), or null. */
function stringLiteral(n: SyntaxNode): string | null {
  const m = /^[rRuU]?(['"])([^'"\\]*)\1$/.exec(unparen(n).text);
  return m ? m[2] : null;
}

/**
 * `np.einsum(subscripts, *operands)` of operands whose shapes are known (no ellipsis): NumPy's
 * index-space loop on the host (`optimize` given: pairwise BLAS contractions, the host's flops),
 * pairwise batched contractions on the device. Null when the subscripts or a shape are not known.
 */
export function einsumWork(call: SyntaxNode, model: NotebookModel, cell: CellModel): LoopWork | null {
  const args = callArguments(call);
  const spec = args.positional[0] ? stringLiteral(args.positional[0]) : null;
  if (spec === null || spec.includes('.')) {
    return null;
  }
  const [lhs, rhs] = spec.replace(/\s+/g, '').split('->');
  const inputs = lhs.split(',');
  const operands = args.positional.slice(1).map(a => knownShape(model.inferValue(a, cell)));
  if (inputs.length !== operands.length || operands.some(s => s === null)) {
    return null;
  }
  const size = new Map<string, number>();
  for (let k = 0; k < inputs.length; k++) {
    const shape = operands[k] as number[];
    if (inputs[k].length !== shape.length) {
      return null;
    }
    // (a dimension of 1 broadcasts against the others' length)
    [...inputs[k]].forEach((letter, d) => size.set(letter, Math.max(size.get(letter) ?? 1, shape[d])));
  }
  const letters = [...size.keys()];
  const count = (ls: Iterable<string>): number => [...new Set(ls)].reduce((p, l) => p * (size.get(l) ?? 1), 1);
  const output = rhs ?? letters.filter(l => inputs.join('').split(l).length === 2).sort().join('');
  // left to right, as CuPy contracts them: each pair over its letters, keeping those a later
  // operand or the output still needs
  let current = inputs[0];
  let pairwise = inputs.length === 1 ? count(current) : 0;
  for (let k = 1; k < inputs.length; k++) {
    const pair = current + inputs[k];
    pairwise += count(pair);
    const later = inputs.slice(k + 1).join('') + output;
    current = [...new Set(pair)].filter(l => later.includes(l)).join('');
  }
  const elements = operands.reduce((s, shape) => s + (shape as number[]).reduce((p, d) => p * d, 1), 0) + count(output);
  const optimized = args.keywords.has('optimize') && !/^(False|None)$/.test(args.keywords.get('optimize')?.text ?? '');
  return {
    hostSeconds: optimized ? 0 : count(letters) * MEASURED_H200.hostSecondsPerEinsumPoint,
    hostBlasFlops: optimized ? 2 * pairwise : 0,
    deviceFlops: 2 * pairwise,
    launches: EINSUM_LAUNCHES_PER_CONTRACTION * Math.max(1, inputs.length - 1),
    elementsMoved: elements
  };
}

/**
 * What one call of CuPy's `einsum` costs the host, in launches (13-14 µs each on the H200) per
 * pairwise contraction: it parses the subscripts, plans, and transposes, reshapes and copies its
 * operands around each batched product. Measured on resident data on the H200 (bench/host_probe.py
 * cupy_calls, 2026-12-02, bench/results/2026-12-02-h200-host-probe/host_probe_3.json; each call and
 * a synchronisation, an addition so timed 22 µs): "nij,kj->nik" and "nij,nj->ni" of (20000, 4, 4)
 * 155 and 159 µs, "ij,njk,lk->nil" 308 µs, "ni,nij,nj->n" 238 µs: ~11 launches a contraction once
 * the wait (~9 µs) is taken off. Priced at 3 before: l_kalman cell 5's 99 steps of six einsums, a
 * batched solve and an inverse came to 61 ms on the device, where it measured 0.78 s in a fresh
 * process (run 25; its loads and CUDA context included).
 */
const EINSUM_LAUNCHES_PER_CONTRACTION = 11;

/**
 * What CuPy's batched `linalg.solve` and other factorisations of a stack of small matrices cost
 * the host per call, in launches: cuSOLVER's batched factorisation and solve (getrf/getrs through
 * cuBLAS), the checks and copies around them. Measured as `EINSUM_LAUNCHES_PER_CONTRACTION` was:
 * `solve` of (20000, 2, 2) with (20000, 2, 4) right-hand sides 192 µs a call, `inv` of (20000, 2,
 * 2) 131 µs: 14 and 9 launches once the wait is taken off; the others (det, cholesky, eigh...) not
 * measured: inv's. Priced at 4 launches before.
 */
const STACKED_LINALG_LAUNCHES: Readonly<Record<string, number>> = { solve: 14 };
const STACKED_LINALG_OTHER_LAUNCHES = 9;

/** np.linalg functions that factorise each matrix of a stack (the last two axes) on its own. */
const STACKED_LINALG = /^(solve|inv|det|slogdet|cholesky|eig|eigh|eigvals|eigvalsh|svd|qr|pinv|matrix_power|matrix_rank)$/;

/** Decompositions that iterate (eigen and singular values) cost this many factorisations' m^3. */
const ITERATIVE_LINALG = /^(eig|eigh|eigvals|eigvalsh|svd|pinv|matrix_rank)$/;

/**
 * `np.linalg.<name>(a, ...)` of a stack of matrices `a` (3 or more axes, shape known): a LAPACK
 * call per matrix on the host, batched on the device. Null for one matrix or an unknown shape.
 */
export function stackedLinalgWork(name: string, a: ValueInfo): LoopWork | null {
  const shape = knownShape(a);
  if (!STACKED_LINALG.test(name) || shape === null || shape.length < 3) {
    return null;
  }
  const m = Math.max(shape[shape.length - 1], shape[shape.length - 2]);
  const matrices = shape.slice(0, -2).reduce((p, d) => p * d, 1);
  const factor = ITERATIVE_LINALG.test(name) ? 3.5 : 1;
  const cube = m * m * m;
  return {
    hostSeconds: matrices * (MEASURED_H200.hostSecondsPerStackedMatrix + factor * cube * MEASURED_H200.hostSecondsPerStackedMatrixCube),
    deviceFlops: matrices * factor * 2 * cube,
    // factorisation, solve or inverse, and the copies around them (batched cuBLAS/cuSOLVER)
    launches: STACKED_LINALG_LAUNCHES[name] ?? STACKED_LINALG_OTHER_LAUNCHES,
    elementsMoved: 2 * matrices * m * m
  };
}

/** The decompositions `MEASURED_H200.deviceDecompositionFlops` has a device rate for. */
type Decomposition = keyof typeof MEASURED_H200.deviceDecompositionFlops;

/**
 * cuSOLVER's device flops per second for decomposition `name` of a matrix of `dtype`
 * (`MEASURED_H200.deviceDecompositionFlops`): float32 and complex64 take the float32 entry,
 * anything else (float64, complex128, integers, unknown) the float64 one.
 */
export function deviceDecompositionRate(name: Decomposition, dtype: string | undefined): number {
  const rates = MEASURED_H200.deviceDecompositionFlops[name];
  return dtype === 'float32' || dtype === 'complex64' ? rates.float32 : rates.float64;
}

/**
 * `np.linalg.qr`/`svd`/`lstsq` of one matrix (2-D, shape known; for lstsq `b`'s too): LAPACK's
 * flops for its shape, M x k with k the smaller side, at the host rate `MEASURED_H200` gives for
 * that k (`hostFactorisationFlops`: narrow matrices run at the memory-bound BLAS2 rate):
 * - qr (reduced, Q formed): geqrf and orgqr, 4 M k^2 - 4/3 k^3; mode 'r' or 'raw' half that;
 * - svd: with the thin U (`full_matrices=False`), the R-SVD's 6 M k^2 + 20 k^3 (Golub and Van
 *   Loan); with all of U (the default) 4 M^2 k + 8 M k^2 + 9 k^3; no vectors 4 M k^2 - 4/3 k^3;
 * - lstsq (gelsd): a QR of the matrix, 2 M k^2, and its reflectors applied to the r right-hand
 *   sides, 4 M k r.
 * On the device, qr runs cuSOLVER's geqrf/orgqr at the library rate; svd runs cuSOLVER's gesvd
 * (`deviceDecompositionRate`), and so does lstsq (CuPy's lstsq is an SVD of the thin matrix and
 * products with the right-hand sides). Null for any other call, a stack (`stackedLinalgWork`) or a shape
 * not known.
 */
export function factorisationWork(name: string, call: SyntaxNode, model: NotebookModel, cell: CellModel): LoopWork | null {
  if (name !== 'qr' && name !== 'svd' && name !== 'lstsq' && SQUARE_FLOPS[name] === undefined) {
    return null;
  }
  const { positional, keywords } = callArguments(call);
  const matrix = positional[0] ? model.inferValue(positional[0], cell) : null;
  const a = matrix ? knownShape(matrix) : null;
  if (a === null || a.length !== 2) {
    return null;
  }
  const dtype = matrix?.dtype;
  if (SQUARE_FLOPS[name] !== undefined) {
    return squareFactorisationWork(name, a, positional[1] ? knownShape(model.inferValue(positional[1], cell)) : null, dtype);
  }
  const big = Math.max(a[0], a[1]);
  const k = Math.min(a[0], a[1]);
  const option = (key: string, at: number): string | undefined => (keywords.get(key) ?? positional[at])?.text;
  const thinSvd = 6 * big * k * k + 20 * k ** 3;
  const rate = Math.min(MEASURED_H200.hostFactorisationFlopsCap, MEASURED_H200.hostFactorisationFlops * Math.max(1, k / 32));
  const elementsMoved = 3 * big * k;
  if (name === 'qr') {
    const flops = (/^['"](r|raw)['"]$/.test(option('mode', 1) ?? '') ? 0.5 : 1) * (4 * big * k * k - (4 / 3) * k ** 3);
    return { hostSeconds: flops / rate, deviceFlops: flops, launches: 6, elementsMoved };
  }
  if (name === 'svd') {
    const flops =
      option('compute_uv', 2) === 'False' ? 4 * big * k * k - (4 / 3) * k ** 3 : option('full_matrices', 1) === 'False' ? thinSvd : 4 * big * big * k + 8 * big * k * k + 9 * k ** 3;
    return { hostSeconds: flops / rate, deviceFlops: 0, deviceSeconds: flops / deviceDecompositionRate('svd', dtype), launches: 6, elementsMoved };
  }
  const b = positional[1] ? knownShape(model.inferValue(positional[1], cell)) : null;
  if (b === null || b.length === 0 || b.length > 2) {
    return null;
  }
  const rhs = b.length === 2 ? b[1] : 1;
  return {
    hostSeconds: (2 * big * k * k + 4 * big * k * rhs) / rate,
    deviceFlops: 4 * big * k * rhs,
    deviceSeconds: thinSvd / deviceDecompositionRate('lstsq', dtype),
    launches: 10,
    elementsMoved: elementsMoved + 2 * big * rhs
  };
}

/**
 * LAPACK's flops for a decomposition of one n x n matrix (leading terms; `r` right-hand sides),
 * from Golub and Van Loan, Matrix Computations (4th ed.), and LAPACK's operation counts:
 * - cholesky (potrf): n^3 / 3;
 * - solve (getrf and getrs): 2 n^3 / 3 + 2 n^2 r; det and slogdet (getrf): 2 n^3 / 3;
 * - inv (getrf and getri): 2 n^3;
 * - eigvalsh (syevd without vectors: the reduction to tridiagonal form, sytrd; the tridiagonal
 *   eigenvalues are O(n^2)): 4 n^3 / 3;
 * - eigh (syevd: sytrd, the divide-and-conquer tridiagonal solver's products, at most ~4 n^3 / 3
 *   without deflation, and the reflectors applied to the vectors, ormtr, 2 n^3): 14 n^3 / 3;
 * - eigvals (geev without vectors: Hessenberg reduction and the QR iteration): 10 n^3;
 * - eig (geev with the right vectors): 25 n^3 (GVL's Schur decomposition count).
 */
const SQUARE_FLOPS: Readonly<Record<string, (n: number, r: number) => number>> = {
  cholesky: n => n ** 3 / 3,
  solve: (n, r) => (2 / 3) * n ** 3 + 2 * n * n * r,
  det: n => (2 / 3) * n ** 3,
  slogdet: n => (2 / 3) * n ** 3,
  inv: n => 2 * n ** 3,
  eigvalsh: n => (4 / 3) * n ** 3,
  eigh: n => (14 / 3) * n ** 3,
  eigvals: n => 10 * n ** 3,
  eig: n => 25 * n ** 3
};

/**
 * `np.linalg.<name>` (cholesky, solve, inv, det, slogdet, eig*) of one n x n matrix `a` (`b`: a
 * solve's right-hand sides): `SQUARE_FLOPS` for its shape, on the host at LAPACK's rate for a square
 * matrix (`MEASURED_H200.hostSquareFactorisationFlops`; below n = 32 x that / 2 GFLOP/s the
 * memory-bound rate `hostFactorisationFlops` scaled by n / 32, as the narrow QRs are), on the device
 * at cuSOLVER's rate for that decomposition and precision (`deviceDecompositionRate`: for now the
 * SVD's, the one cuSOLVER decomposition timed on the H200; potrf and getrf run faster, so this is
 * the device's low end until bench/linalg_probe.py measures them).
 * Null for a matrix that is not square.
 */
function squareFactorisationWork(name: string, a: readonly number[], b: readonly number[] | null, dtype: string | undefined): LoopWork | null {
  const n = a[0];
  if (a[1] !== n || n <= 0) {
    return null;
  }
  const r = name === 'solve' ? (b === null || b.length === 0 ? 1 : b.length === 1 ? 1 : b[b.length - 1]) : 0;
  const flops = SQUARE_FLOPS[name](n, r);
  const rate = Math.min(MEASURED_H200.hostSquareFactorisationFlops, MEASURED_H200.hostFactorisationFlops * Math.max(1, n / 32));
  return {
    hostSeconds: flops / rate,
    deviceFlops: 0,
    deviceSeconds: flops / deviceDecompositionRate(name as Decomposition, dtype),
    // (CuPy's inverse or solve of one matrix: a factorisation, a solve, the copies and checks
    // around them, as `deviceSmallSolveLaunches` counts them; the others a factorisation and its checks)
    launches: name === 'inv' || name === 'solve' ? MEASURED_H200.deviceSmallSolveLaunches : 4,
    elementsMoved: 2 * n * n + 2 * n * r
  };
}

/**
 * A fancy-index gather, `a[idx]`, `X[idx, 0]`, `a[:, idx]` (one index an integer array, the
 * source's size, the index's and the result's known): NumPy copies it item by item, an index
 * value at a time (`MEASURED_H200.hostGatherSeconds*`: a fixed cost per item, and per 64-byte
 * line an item spans where the source is larger than the host's cache, else per element). The
 * result, for the caller's device passes. A boolean mask (`a[m]`) is priced by `maskWork`. Null
 * for anything else (a slice, a mask over some axes only: `a[:, m]`).
 */
export function gatherWork(n: SyntaxNode, model: NotebookModel, cell: CellModel): { hostSeconds: number; result: ValueInfo; launches?: number; itemCopies?: number } | null {
  const value = field(n, 'value');
  const src = value ? model.inferValue(value, cell) : null;
  if (!src || src.kind !== 'ndarray' || src.size === undefined) {
    return null;
  }
  const parts = kids(n)
    .slice(1)
    .filter(k => k.type !== 'comment');
  const mask = parts.length === 1 ? model.inferValue(parts[0], cell) : null;
  if (mask?.kind === 'ndarray' && mask.dtype === 'bool' && mask.size !== undefined && mask.size > 0 && mask.size <= src.size) {
    return maskWork(mask.size, model.inferValue(n, cell), src);
  }
  const indices = parts.map(k => ({ node: k, value: model.inferValue(k, cell) })).filter(({ value: v }) => v.kind === 'ndarray' && /^u?int/.test(v.dtype ?? ''));
  const arrays = indices.map(k => k.value);
  const result = model.inferValue(n, cell);
  if (arrays.length !== 1 || arrays[0].size === undefined || arrays[0].size === 0 || result.kind !== 'ndarray' || result.size === undefined) {
    return null;
  }
  if (arrays[0].selection) {
    // through positions a mask selected (`dist_km[rows]` with `rows` from np.nonzero): as many
    // items as the data decide, priced at the lower bound (values.ts `selection`)
    return { hostSeconds: 0, result };
  }
  const items = arrays[0].size;
  const perItem = result.size / items;
  const rates = MEASURED_H200;
  const large = src.size * itemSize(src.dtype) > rates.hostCacheBytes;
  const ordered = orderedIndex(indices[0].node, model, cell, 0);
  if (typeof ordered === 'object' && ordered !== null) {
    // the index walks the source in order: where its innermost step spans at most a 64-byte line
    // (`np.arange(n)`, frames of consecutive samples), a streamed copy
    // (`hostGatherSecondsPerOrderedItem`); a larger step (`x[np.arange(0, N, 16)]`) or one not
    // known reads a line an item, from memory where the source is larger than the cache
    // (an index on axis k steps over the dimensions after it: a row of a 2-D source for `X[idx, 0]`)
    const axis = parts.indexOf(indices[0].node);
    const after = src.shape && axis >= 0 && axis < src.shape.length ? src.shape.slice(axis + 1) : undefined;
    const unit = after?.every(d => typeof d === 'number') ? (after as number[]).reduce((p, d) => p * d, 1) : perItem;
    const stride = ordered.step === null ? Infinity : ordered.step * unit * itemSize(src.dtype);
    if (stride <= 64 || !large) {
      return { hostSeconds: result.size * rates.hostGatherSecondsPerOrderedItem, result };
    }
    return { hostSeconds: items * Math.ceil((perItem * itemSize(result.dtype ?? src.dtype)) / 64) * rates.hostGatherSecondsPerStridedLine, result };
  }
  const perItemSeconds = large ? Math.ceil((perItem * itemSize(result.dtype ?? src.dtype)) / 64) * rates.hostGatherSecondsPerMissedLine : perItem * rates.hostGatherSecondsPerCachedElement;
  return { hostSeconds: items * (rates.hostGatherSecondsPerItem + perItemSeconds), result };
}

/**
 * A boolean-mask selection or assignment, `a[m]` or `a[m] = v` (one index, a bool array of known
 * size over the source's leading axes): NumPy walks the mask element by element
 * (`MEASURED_H200.hostMaskSecondsPerElement`); CuPy scans the mask (`_prepare_mask_indexing_single`:
 * a cumulative sum, up to 2 kernels), reads the count back to size the result
 * (`int(mask_scanned[-1])`: a wait for the device) and gathers or scatters in one more kernel: 3
 * launches and a value copied back, ~70 µs at the H200's 13-14 µs a launch; measured there 71 and
 * 80 µs more than an addition of the same 60k and 1M float64 (bench/host_probe.py,
 * bench/results/2026-12-02-h200-host-probe/host_probe_2.json: selection 86 and 100 µs, assignment
 * 87 and 100). The result, for the caller's device passes, is the selection's value where its size
 * is known, else the source's (at most as large).
 */
function maskWork(maskElements: number, selected: ValueInfo, src: ValueInfo): { hostSeconds: number; result: ValueInfo; launches: number; itemCopies: number } {
  return {
    hostSeconds: maskElements * MEASURED_H200.hostMaskSecondsPerElement,
    result: selected.kind === 'ndarray' && selected.size !== undefined ? selected : src,
    launches: 3,
    itemCopies: 1
  };
}

/** How many names `orderedIndex` follows to their assignments. */
const ORDERED_INDEX_DEPTH = 3;

/**
 * Does integer index `n` walk its source in order: built only from `np.arange` ranges, integer
 * scalars, `+`, `-`, `*` and broadcasting subscripts (`[None, :]`, `[:, None]`), as a frame index
 * (`np.arange(n_fft)[None, :] + hop * np.arange(n_frames)[:, None]`) or a strided one is? A name
 * is followed to its one plain assignment in the cell, or the last earlier cell that binds it.
 * `{ step }` when it is: the smallest step, in items, of the aranges it adds (an arange's step,
 * times a constant it is multiplied by; null where one is not known): for a frame index, the
 * step along its rows; 'scalar' for an integer scalar, null otherwise (not known).
 */
function orderedIndex(n: SyntaxNode, model: NotebookModel, cell: CellModel, depth: number): { step: number | null } | 'scalar' | null {
  const u = unparen(n);
  if (depth > ORDERED_INDEX_DEPTH) {
    return null;
  }
  if (u.type === 'call') {
    const fn = field(u, 'function');
    if (!fn || model.qualifiedName(fn) !== 'numpy.arange') {
      return null;
    }
    const { positional, keywords } = callArguments(u);
    const stepNode = keywords.get('step') ?? positional[2];
    const step = stepNode ? model.constantValue(stepNode, cell) : 1;
    return { step: step !== undefined && Number.isFinite(step) && step !== 0 ? Math.abs(step) : null };
  }
  if (u.type === 'binary_operator' && /^[-+*]$/.test(operatorOf(u))) {
    const parts = [field(u, 'left'), field(u, 'right')];
    const sides = parts.map(k => (k ? orderedIndex(k, model, cell, depth) : null));
    if (sides.some(k => k === null)) {
      return null;
    }
    const steps = sides.filter((k): k is { step: number | null } => typeof k === 'object' && k !== null);
    if (steps.length === 0) {
      return 'scalar';
    }
    if (operatorOf(u) === '*') {
      // an arange times a constant: its step scaled; times another arange, or an unknown factor: not known
      const other = sides[0] === 'scalar' ? parts[0] : parts[1];
      const c = steps.length === 1 && other ? model.constantValue(other, cell) : undefined;
      return { step: c !== undefined && steps[0].step !== null ? Math.abs(c) * steps[0].step : null };
    }
    const known = steps.map(k => k.step).filter((k): k is number => k !== null);
    return { step: known.length > 0 ? Math.min(...known) : null };
  }
  if (u.type === 'subscript') {
    const value = field(u, 'value');
    const broadcast = kids(u)
      .slice(1)
      .filter(k => k.type !== 'comment')
      .every(k => k.type === 'none' || (k.type === 'slice' && k.text === ':'));
    return value && broadcast ? orderedIndex(value, model, cell, depth) : null;
  }
  const v = model.inferValue(u, cell);
  if (v.kind === 'scalar' && /^u?int/.test(v.dtype ?? '')) {
    return 'scalar';
  }
  if (u.type === 'identifier' && v.kind === 'ndarray') {
    const writer = cell.facts?.writes.has(u.text) ? cell : model.lastWriterBefore(u.text, cell);
    const bound = writer?.facts?.assignments.filter(a => a.name === u.text && !a.augmented && a.at <= (writer === cell ? u.startIndex : Infinity)) ?? [];
    const last = bound[bound.length - 1];
    return last?.value && writer ? orderedIndex(last.value, model, writer, depth + 1) : null;
  }
  return null;
}

/**
 * `np.nanpercentile(a, q, axis=k)` / `np.nanquantile` along one axis of an array of known shape:
 * NumPy's `apply_along_axis`, a Python call per slice. Null without an integer axis (the whole
 * array is one slice: priced as a sort).
 */
export function quantileSliceWork(call: SyntaxNode, a: ValueInfo, model: NotebookModel, cell: CellModel): LoopWork | null {
  const shape = knownShape(a);
  const args = callArguments(call);
  const axisArg = args.keywords.get('axis') ?? args.positional[2];
  const axis = axisArg ? model.constantValue(axisArg, cell) : undefined;
  if (shape === null || shape.length < 2 || axis === undefined || !Number.isInteger(axis) || axis >= shape.length || axis < -shape.length) {
    return null;
  }
  const length = shape[axis < 0 ? axis + shape.length : axis];
  const elements = shape.reduce((p, d) => p * d, 1);
  const slices = length > 0 ? elements / length : 0;
  const sortOps = 4 * elements * Math.log2(Math.max(2, length));
  return {
    hostSeconds: slices * MEASURED_H200.hostSecondsPerQuantileSlice + elements * MEASURED_H200.hostSecondsPerQuantileSliceElement,
    deviceFlops: sortOps,
    launches: 3,
    elementsMoved: elements
  };
}

/**
 * `np.<ufunc>.at(target, index, values)`: NumPy updates element by element (unbuffered); the
 * device adds atomically in one kernel. Counted from the values (else the index times the
 * target's rows); null when neither is known.
 */
export function ufuncAtWork(call: SyntaxNode, model: NotebookModel, cell: CellModel): LoopWork | null {
  const [target, index, values] = callArguments(call).positional.map(a => model.inferValue(a, cell));
  const t = target ? knownShape(target) : null;
  const rowSize = t ? t.slice(1).reduce((p, d) => p * d, 1) : 1;
  const count = values?.kind === 'ndarray' && values.size !== undefined ? values.size : index?.kind === 'ndarray' && index.size !== undefined ? index.size * rowSize : undefined;
  if (count === undefined || target?.kind !== 'ndarray') {
    return null;
  }
  const scalarPath = t !== null && t.length === 1;
  return {
    hostSeconds: count * (scalarPath ? MEASURED_H200.hostSecondsPerUfuncAtScalar : MEASURED_H200.hostSecondsPerUfuncAtElement),
    deviceFlops: 0,
    launches: 1,
    elementsMoved: count
  };
}

/**
 * Flops of `np.dot`/`np.matmul`/`np.inner`/`np.vdot(a, b)` from the operands' ranks: a vector
 * with anything is 2 x the other operand's size (a dot product, a matrix-vector product), two
 * matrices 2 m k n; null where the ranks are not known (the caller's square-matrix guess).
 */
export function productFlops(a: ValueInfo, b: ValueInfo): number | null {
  const rank = (v: ValueInfo): number | undefined => (v.kind === 'ndarray' ? v.shape?.length : undefined);
  const [ra, rb] = [rank(a), rank(b)];
  if (rb === 1 && a.size !== undefined) {
    return 2 * a.size;
  }
  if (ra === 1 && b.size !== undefined) {
    return 2 * b.size;
  }
  const sa = knownShape(a);
  const sb = knownShape(b);
  if (sa?.length === 2 && sb?.length === 2) {
    return 2 * sa[0] * sa[1] * sb[1];
  }
  return null;
}

/**
 * Trips of `while <cond>:` where the condition requires a counter below a constant bound (`it <
 * max_iter`, alone or joined by `and`) and the body adds 1 to that counter (`it += 1`): the bound
 * less the counter's constant start (0 where not known). A loop that may stop earlier (a
 * convergence test joined by `and`) is priced at its bound: k-means and solvers at these sizes run
 * to it more often than not. Undefined when the condition has no such bound.
 */
export function whileTrips(loop: SyntaxNode, model: NotebookModel, cell: CellModel): number | undefined {
  const body = field(loop, 'body');
  const conjuncts: SyntaxNode[] = [];
  const split = (c: SyntaxNode): void => {
    const u = unparen(c);
    if (u.type === 'boolean_operator' && operatorOf(u) === 'and') {
      kids(u).forEach(split);
    } else {
      conjuncts.push(u);
    }
  };
  const condition = field(loop, 'condition');
  if (!condition || !body) {
    return undefined;
  }
  split(condition);
  for (const c of conjuncts) {
    const parts = c.type === 'comparison_operator' ? kids(c) : [];
    const op = c.type === 'comparison_operator' ? operatorOf(c) : '';
    if (parts.length !== 2 || parts[0].type !== 'identifier' || (op !== '<' && op !== '<=')) {
      continue;
    }
    const counter = parts[0].text;
    const bound = model.constantValue(parts[1], cell);
    let stepped = false;
    walk(body, n => {
      stepped ||= n.type === 'augmented_assignment' && field(n, 'left')?.text === counter && operatorOf(n) === '+=' && field(n, 'right')?.text === '1';
    });
    if (bound === undefined || !stepped) {
      continue;
    }
    const start = startValue(loop, counter, model, cell) ?? 0;
    return Math.max(0, Math.ceil(bound - start) + (op === '<=' ? 1 : 0));
  }
  return undefined;
}

/** The constant the counter is set to by the last plain assignment before the loop in its block. */
function startValue(loop: SyntaxNode, counter: string, model: NotebookModel, cell: CellModel): number | undefined {
  let found: number | undefined;
  for (const s of loop.parent ? kids(loop.parent) : []) {
    if (s.id === loop.id) {
      break;
    }
    const a = s.type === 'expression_statement' ? kids(s)[0] : null;
    if (a?.type === 'assignment' && field(a, 'left')?.text === counter) {
      const right = field(a, 'right');
      found = right ? model.constantValue(right, cell) : undefined;
    }
  }
  return found;
}

/** Rows at most this long pay NumPy's per-row inner-loop set-up visibly (`shortRowSeconds`). */
const SHORT_ROW = 32;

/**
 * Host seconds NumPy spends setting up its inner loop per row, beyond the streamed bytes:
 * - `broadcast`: an elementwise result `v` whose operands differ in shape, so the loop cannot be
 *   flattened and runs per row of the last axis;
 * - `reduce`: a reduction of `v` along its last axis (`axis`, the node: -1 or the last index),
 *   once per output;
 * - `norm`: `np.linalg.norm(v, axis=last)` of a strided view (`est[:, :, 2:]`): NumPy's square
 *   `x * x` of it runs per row too, then the reduction: both rates (of a contiguous array the
 *   caller asks for `reduce` alone). Timed here (NumPy 2, 2-core CPU machine of session 12):
 *   along the last axis of (100, 20000, 4)[:, :, 2:] 32 ns a row, of (2000, 1000, 4)[:, :, 2:] 38
 *   ns, of a contiguous (1e7, 2) 23 ns, against 17 ns for `.sum` of the same rows. l_kalman cell
 *   11 (such a norm over 2M rows of 2, two reductions and a frame) measured 92 and 139 ms on the
 *   H200's host (run 22), predicted 4.9 ms without it, 64 ms with it;
 * all only where that axis is at most `SHORT_ROW` long and `v` has two axes or more. 0 otherwise.
 * Where only the last axis is known (`(traj[:, lag:] - traj[:, :-lag]) ** 2` with `lag` a loop
 * variable: (5000, ?, 2)), `v` is taken as `unknownSize` elements, what the caller prices its
 * passes at (the cell's largest array; none given: 0).
 */
export function shortRowSeconds(
  kind: 'broadcast' | 'reduce' | 'norm',
  v: ValueInfo,
  axis: SyntaxNode | undefined,
  model: NotebookModel,
  cell: CellModel,
  unknownSize?: number
): number {
  const shape = v.kind === 'ndarray' && v.shape !== undefined ? v.shape : undefined;
  if (shape === undefined || shape.length < 2) {
    return 0;
  }
  const last = shape[shape.length - 1];
  if (typeof last !== 'number' || last <= 0 || last > SHORT_ROW) {
    return 0;
  }
  const known = knownShape(v);
  const size = known !== null ? known.reduce((p, d) => p * d, 1) : unknownSize;
  if (size === undefined) {
    return 0;
  }
  const rows = size / last;
  if (kind === 'broadcast') {
    return rows * MEASURED_H200.hostSecondsPerBroadcastRow;
  }
  const a = axis ? unparen(axis) : null;
  const axes = a?.type === 'tuple' ? kids(a) : a ? [a] : [];
  const alongLast = axes.some(x => {
    const k = model.constantValue(x, cell);
    return k === shape.length - 1 || k === -1;
  });
  const perRow = kind === 'norm' ? MEASURED_H200.hostSecondsPerReducedRow + MEASURED_H200.hostSecondsPerBroadcastRow : MEASURED_H200.hostSecondsPerReducedRow;
  return alongLast ? rows * perRow : 0;
}

/**
 * Host seconds NumPy's NaN-skipping reductions spend beyond the reduction itself: `nansum`,
 * `nanmax`... copy the array with its NaNs replaced (`np.isnan`, a copy, `np.copyto`), `nanmean`
 * also counts the values, `nanstd`/`nanvar` do both twice; per element of `v`, scaled from float32
 * by the element size (the copies stream it). 0 for the other reductions.
 */
export function nanReductionSeconds(name: string, v: ValueInfo): number {
  if (!name.startsWith('nan') || v.kind !== 'ndarray' || v.size === undefined) {
    return 0;
  }
  const rate = name === 'nanstd' || name === 'nanvar' ? MEASURED_H200.hostSecondsPerNanSpreadElement : name === 'nanmean' ? MEASURED_H200.hostSecondsPerNanMeanElement : MEASURED_H200.hostSecondsPerNanReducedElement;
  return v.size * rate * Math.max(1, itemSize(v.dtype) / 4);
}

/** Do two operands of an elementwise operation have different known shapes (one broadcasts)? */
export function broadcasts(a: ValueInfo, b: ValueInfo): boolean {
  const sa = a.kind === 'ndarray' ? a.shape : undefined;
  const sb = b.kind === 'ndarray' ? b.shape : undefined;
  return sa !== undefined && sb !== undefined && (sa.length !== sb.length || sa.some((d, k) => d !== sb[k]));
}

/**
 * Host seconds per element of SciPy's filters (`MEASURED_H200.hostScipyFilterSeconds`, each with
 * where it was measured): a median filter per element of its window.
 */
const SCIPY_FILTERS = /^scipy\.(ndimage|signal)\.(gaussian_filter1d|uniform_filter1d|gaussian_filter|uniform_filter|sobel|prewitt|median_filter|shift|rotate|zoom|affine_transform|map_coordinates|savgol_filter|sosfilt|sosfiltfilt|lfilter|filtfilt|welch|spectrogram|find_peaks|decimate|binary_erosion|binary_dilation|binary_opening|binary_closing|binary_fill_holes)$/;

/**
 * Taps of a `(b, a)` filter taken where neither the cell's design nor the coefficients' sizes tell
 * them: an order-4 design's 5 (the H200's host ran 5 and 9 taps at the rates below).
 */
export const DEFAULT_BA_TAPS = 5;

/**
 * `scipy.signal.lfilter`'s seconds per sample of `(b, a)` filters of `taps` coefficients
 * (max(len(b), len(a))), on the H200's host and on the device (cupyx.scipy.signal.lfilter), one
 * signal along its last axis. Measured on the H200 (run 20, bench/results/2026-12-01-h200-run20/
 * iir_probe.txt; 2M float64 samples): SciPy 12.9 ms for an order-4 low-pass (5 taps), 19.8 ms for
 * an order-8 band-pass (9 taps): 6.45 ns a sample, 0.86 ns more a tap; cupyx 1.7 and 2.7 ms: 0.85
 * ns, 0.125 ns more a tap (its chunked scan: a convolution for b, then blocks of the recursion
 * merged through their carries, bound by the recursion's arithmetic, not by the copies). Fewer
 * taps are taken at the 5-tap figure: timed here (2M float64, loaded 2-core machine) 2, 3 and 5
 * taps ran alike (13.5, 11.6, 12.0 ns; 9 taps 19.0). Before, lfilter was 20 flops an element at
 * `hostFilterFlops` (120 ns a sample): n_seismic cell 2 (an order-2 filter of 256 x 120,000
 * samples, with 30.7M normal draws and a Ricker loop) priced at 5.85 s, 0.84-1.20 s measured on the
 * H200's host (run 27).
 */
export const LFILTER_SECONDS = {
  hostPerSample: 6.45e-9,
  hostPerTap: 0.86e-9,
  devicePerSample: 0.85e-9,
  devicePerTap: 0.125e-9,
  /**
   * An FIR filter (`a` one number): SciPy convolves, timed here 12.1 ns a sample with 11 taps and
   * 41.3 ns with 101 (0.33 ns a tap) against 12.0 ns for the 5-tap IIR filter above, so, scaled to
   * the H200's host by that filter's 6.45 ns: 4.6 ns a sample and 0.18 ns a tap.
   */
  hostFirPerSample: 4.6e-9,
  hostFirPerTap: 0.18e-9,
  /**
   * Along an axis other than the last of 2-D data, SciPy's loop reads every sample a row apart:
   * timed here 6.1x and 5.9x the last axis' time (order 2, 200,000 x 64 and 2,000 x 6,400 float64).
   */
  hostStridedAxisFactor: 6,
  /**
   * `filtfilt` beyond its two lfilter passes (the odd extension, the initial states, the flips),
   * per sample: on the H200's host 17.2 ns a sample for the 5-tap filter of one signal (4.3 more
   * than two passes) and 28.8 ns for rows of (64, 200,000) (15.9 more); on the device 1.8 and 1.75
   * ns against the 0.85 of one pass: 2.1 passes.
   */
  hostFiltfiltExtra1d: 4.3e-9,
  hostFiltfiltExtraRows: 15.9e-9,
  deviceFiltfiltPasses: 2.1
} as const;

/**
 * The taps of the `(b, a)` of an lfilter/filtfilt `call`: `designOrder` + 1 where the caller
 * knows the design (rules/arrays/cupy-rewrite.ts `baDesignOrder`), else the larger of the
 * coefficients' known sizes, else `DEFAULT_BA_TAPS`; and whether `a` is one number (FIR).
 */
function baTaps(call: SyntaxNode, model: NotebookModel, cell: CellModel, designOrder: number | null): { taps: number; fir: boolean } {
  const args = callArguments(call);
  const bNode = args.keywords.get('b') ?? args.positional[0];
  const aNode = args.keywords.get('a') ?? args.positional[1];
  const a = aNode ? unparen(aNode) : null;
  const fir = a !== null && (a.type === 'integer' || a.type === 'float' || ((a.type === 'list' || a.type === 'tuple') && kids(a).length === 1));
  if (designOrder !== null) {
    return { taps: designOrder + 1, fir: false };
  }
  const size = (n: SyntaxNode | undefined | null): number | undefined => {
    if (!n) {
      return undefined;
    }
    const u = unparen(n);
    if (u.type === 'list' || u.type === 'tuple') {
      return kids(u).length;
    }
    if (u.type === 'integer' || u.type === 'float') {
      return 1;
    }
    const v = model.inferValue(n, cell);
    return v.kind === 'ndarray' && !v.approx && v.size !== undefined ? v.size : undefined;
  };
  const b = size(bNode);
  if (fir) {
    return { taps: b ?? DEFAULT_BA_TAPS, fir };
  }
  const known = [b, size(aNode)].filter((k): k is number => k !== undefined);
  return { taps: known.length > 0 ? Math.max(...known) : DEFAULT_BA_TAPS, fir };
}

/**
 * A SciPy filter's seconds on the host (its rate per element, a median filter's per element of
 * its window) and, for the IIR recursions (`sosfilt`, `sosfiltfilt`, `lfilter`, `filtfilt`), on
 * the device, where each signal's recursion runs on few threads, with the data it filters; null
 * for other functions, data of unknown size and a median filter whose window is not a known
 * `size`. `designOrder`: the polynomial order of an lfilter/filtfilt's `(b, a)` design, where the
 * caller found it in the cell.
 */
export function scipyFilterWork(
  q: string,
  call: SyntaxNode,
  model: NotebookModel,
  cell: CellModel,
  designOrder: number | null = null
): { hostSeconds: number; deviceSeconds: number; data: ValueInfo } | null {
  const m = SCIPY_FILTERS.exec(q);
  const name = m?.[2] ?? '';
  const args = callArguments(call);
  // the data: the first argument, after the sections for the IIR filters (`sosfilt(sos, x)`) and
  // the coefficients for the (b, a) ones (`lfilter(b, a, x)`)
  const dataNode = /^sos/.test(name)
    ? (args.keywords.get('x') ?? args.positional[1])
    : name === 'lfilter' || name === 'filtfilt'
      ? (args.keywords.get('x') ?? args.positional[2])
      : args.positional[0];
  const a = dataNode ? model.inferValue(dataNode, cell) : null;
  if (!m || a?.kind !== 'ndarray' || a.size === undefined) {
    return null;
  }
  const rates = MEASURED_H200.hostScipyFilterSeconds;
  let perElement: number;
  if (name === 'median_filter') {
    const size = args.keywords.get('size') ?? args.positional[1];
    const u = size ? unparen(size) : null;
    const rank = a.shape?.length;
    const sides = u?.type === 'tuple' || u?.type === 'list' ? kids(u).map(k => model.constantValue(k, cell)) : u && rank ? Array.from({ length: rank }, () => model.constantValue(u, cell)) : [];
    if (sides.length === 0 || sides.some(k => k === undefined)) {
      return null;
    }
    perElement = rates.medianPerWindowElement * (sides as number[]).reduce((p, k) => p * k, 1);
  } else if (/^(shift|rotate|zoom|affine_transform|map_coordinates)$/.test(name)) {
    // spline order 3 by default: a prefilter and 4^d taps; order 0-1 a few taps
    const order = args.keywords.get('order');
    const k = order ? model.constantValue(order, cell) : 3;
    perElement = k !== undefined && k <= 1 ? rates.interpolateLinear : rates.interpolateSpline;
  } else if (name === 'welch' || name === 'spectrogram') {
    // per point of the segments it transforms: nperseg / (nperseg - noverlap) per sample (welch's
    // default overlap is half a segment, spectrogram's an eighth); a segment length or overlap not
    // known: two
    const seg = args.keywords.get('nperseg');
    const over = args.keywords.get('noverlap');
    const p = seg ? model.constantValue(seg, cell) : 256;
    const o = over ? model.constantValue(over, cell) : p !== undefined ? Math.floor(name === 'welch' ? p / 2 : p / 8) : undefined;
    const perSample = p !== undefined && o !== undefined && p > o && o >= 0 ? p / (p - o) : 2;
    perElement = rates.welchPerPoint * perSample;
  } else if (name === 'find_peaks') {
    perElement = rates.findPeaks;
  } else if (/^binary_(erosion|dilation|opening|closing)$/.test(name)) {
    // the first iteration visits every element; later ones only the pixels that changed; an
    // opening or closing is two of them. `iterations` below 1 (until nothing changes): as
    // binary_fill_holes, which iterates so
    const it = args.keywords.get('iterations') ?? args.positional[2];
    const k = it ? model.constantValue(it, cell) : 1;
    if (k === undefined) {
      return null;
    }
    const one = k < 1 ? rates.binaryFillHoles : rates.binaryMorphology + (k - 1) * rates.binaryMorphologyLaterIteration;
    perElement = (/opening|closing/.test(name) ? 2 : 1) * one;
  } else if (name === 'binary_fill_holes') {
    perElement = rates.binaryFillHoles;
  } else if (name === 'decimate') {
    // the default IIR filter run forwards and backwards (filtfilt), per input sample; an FIR one
    // (`ftype='fir'`) is another cost: not priced here
    const ftype = args.keywords.get('ftype');
    if (ftype && !/^['"]iir['"]$/.test(ftype.text)) {
      return null;
    }
    perElement = rates.decimate;
  } else if (name === 'lfilter' || name === 'filtfilt') {
    // per sample, from the filter's taps (`LFILTER_SECONDS`); along another axis than the last of
    // 2-D data SciPy reads the samples a row apart
    const r = LFILTER_SECONDS;
    const { taps, fir } = baTaps(call, model, cell, designOrder);
    const more = Math.max(0, taps - DEFAULT_BA_TAPS);
    const axisNode = args.keywords.get('axis') ?? args.positional[3];
    const axis = axisNode ? model.constantValue(axisNode, cell) : -1;
    const rank = a.shape?.length ?? 1;
    const strided = rank >= 2 && axis !== undefined && axis !== -1 && axis !== rank - 1 ? r.hostStridedAxisFactor : 1;
    const pass = (fir ? r.hostFirPerSample + taps * r.hostFirPerTap : r.hostPerSample + more * r.hostPerTap) * strided;
    const device = r.devicePerSample + more * r.devicePerTap;
    const twice = name === 'filtfilt';
    return {
      hostSeconds: a.size * (twice ? 2 * pass + (rank >= 2 ? r.hostFiltfiltExtraRows : r.hostFiltfiltExtra1d) : pass),
      deviceSeconds: a.size * device * (twice ? r.deviceFiltfiltPasses : 1),
      data: a
    };
  } else if (name === 'gaussian_filter1d' || name === 'uniform_filter1d') {
    // one axis of the separable 2-D filter, whose figure (timed on 2-D images) is two such passes
    perElement = rates[name === 'gaussian_filter1d' ? 'gaussian_filter' : 'uniform_filter'] / 2;
  } else {
    perElement = rates[name as 'gaussian_filter' | 'uniform_filter' | 'sobel' | 'prewitt' | 'savgol_filter' | 'sosfilt' | 'sosfiltfilt'];
  }
  // (decimate's recursion runs forwards and backwards on the device too: sosfiltfilt's rate)
  const iir = name === 'sosfilt' || name === 'sosfiltfilt' || name === 'decimate';
  return {
    hostSeconds: a.size * perElement,
    deviceSeconds: iir ? a.size * (name === 'sosfilt' ? MEASURED_H200.deviceSosfiltSecondsPerSample : MEASURED_H200.deviceSosfiltfiltSecondsPerSample) : 0,
    data: a
  };
}

/**
 * `np.histogram(a, bins)` (bins a count: a division per sample; edges given: a binary search),
 * `np.histogram2d(x, y, ...)` and `np.histogramdd(sample, ...)` (a search per sample and axis,
 * then a bincount of the flattened indices); the device counts with atomic adds in one pass.
 * Null where the data's size is not known.
 */
export function histogramWork(name: string, call: SyntaxNode, model: NotebookModel, cell: CellModel): LoopWork | null {
  const args = callArguments(call);
  const a = args.positional[0] ? model.inferValue(args.positional[0], cell) : null;
  if (a?.kind !== 'ndarray' || a.size === undefined) {
    return null;
  }
  let seconds: number;
  if (name === 'histogram') {
    const bins = args.keywords.get('bins') ?? args.positional[1];
    const edges = bins !== undefined && model.inferValue(bins, cell).kind === 'ndarray';
    seconds = a.size * (edges ? MEASURED_H200.hostSecondsPerHistogramSearch : MEASURED_H200.hostSecondsPerHistogramSample);
  } else {
    // histogram2d's x (one value a sample); histogramdd's (N, D) sample: D values a sample
    seconds = a.size * MEASURED_H200.hostSecondsPerHistogramddValue * (name === 'histogram2d' ? 2 : 1);
  }
  return { hostSeconds: seconds, deviceFlops: 0, launches: 2, elementsMoved: a.size };
}
