/**
 * GPU103 fuse-elementwise: chain of elementwise operations on large arrays -> one fused kernel.
 *
 * ## What it does
 * Flags a cell whose NumPy code evaluates a chain of three or more elementwise operations
 * (`sqrt(x*x + z*z) * exp(-x)`, optionally reduced whole: `np.sum/count_nonzero/mean/max/min/
 * any/all(chain)` or `(chain).sum()`, anywhere in an expression) on arrays large enough for the
 * GPU, and proposes the CuPy rewrite with each chain turned into one kernel. Everything else in
 * the cell is rewritten as GPU101 does.
 *
 * ## Why
 * Elementwise code is memory-bound. Written op by op, every operator is one kernel that reads
 * its inputs from device memory and writes a full-size temporary: a chain of k operations makes
 * about k passes. Fused, the chain reads each input once and writes once. Measured on the H200:
 * `sqrt(x*x + z*z) * exp(-x)` on 100M float32 ran at ~360 GB/s op by op and ~2,400 GB/s fused
 * (about 7x). The fused kernel is compiled on its first call (the A/B run reports that first
 * run separately).
 *
 * ## Example
 * ```python
 * r = np.sqrt(x * x + z * z) * np.exp(-x)
 * ```
 * ## Use instead
 * ```python
 * r_kernel = cp.ElementwiseKernel(
 *     'float32 x, float32 z', 'float32 r',
 *     'r = sqrtf(x * x + z * z) * expf(-x)',
 *     'r_kernel', options=('--fmad=false',))  # no FMA contraction: rounded as NumPy rounds
 *
 * r = r_kernel(x_gpu, z_gpu)
 * ```
 * A typed `cp.ElementwiseKernel` when the chain's dtypes are known floats and every operation has
 * a C form with NumPy's meaning (its compiled kernel is memoized by source across objects, so a
 * re-run cell does not re-trace; compiled with --fmad=false, since NVRTC's default contracts
 * `a * b + c` into one FMA, 1 ulp from NumPy's two roundings); `@cp.fuse()` otherwise (the
 * notebook plan defines it once, in the import cell: CuPy traces once per `Fusion` object). A
 * fused function never computes an operation of scalars only (`dt * steps`, `-dt`,
 * `np.sqrt(dt)`): CuPy's fusion takes every scalar as weak and would pick float16 or int8 for
 * it, so the cell computes it and passes it in as one argument. For the same reason no chain in
 * which a Python scalar meets an array of a lower kind (`uint8 * 0.5`, `(x > 0) * 2`: float64
 * and int64 in NumPy, float16 and int8 in the fusion) becomes a `@cp.fuse()` function: it stays
 * op by op, where CuPy's ufuncs promote as NumPy does. A float32 kernel names the
 * single-precision functions (`sqrtf`, `expf`) and float literals (`0.5f`), so nothing in it
 * computes in double; a numbers-only piece (`0.1 * 0.1 * x` is `(0.1 * 0.1) * x`) is folded as
 * Python computes it, in double, and written as the one float32 NumPy casts it to. A piece of
 * scalars that reads names (`dt * 0.3` of `dt * 0.3 * u`, `alpha * dt / dx ** 2`) is one kernel
 * argument, computed by the cell as written (Python's double arithmetic) and cast once to the
 * arrays' dtype, as NumPy (NEP 50) casts a Python number; a NumPy float64 scalar is not weak
 * (`float32 array * np.float64(0.1)` is float64), so it gets no float32 kernel, and a scalar the
 * analysis cannot tell from a NumPy one (no value inferred, no kernel report) gets no typed
 * kernel, and the note says so (fusion.ts `scalarPiece`); `np.float32(0.2)` written in the chain
 * is a NumPy float32 (float32 with float32 arrays: typed). A NumPy scalar of a number
 * (`np.float32(0.5)`, `np.float64(-1e-3)`, `np.int32(3)` with float64 arrays) is written into the
 * typed kernel as the C literal of the value NumPy gives it (`0.5f`: float32 rounded from the
 * double Python reads, as NumPy rounds it; fusion.ts `numpyScalarLiteral`), not passed as an
 * argument. A complex scalar (`dt * 1j`,
 * `complex(...)`, an imaginary literal) makes NumPy compute complex64/complex128: never a typed
 * float kernel, a `@cp.fuse()` function with a note saying why. Slices (`u[1:-1, 1:-1]`) and other
 * non-elementwise pieces are evaluated outside and passed in. The exact slice-stencil pattern
 * (`out = np.zeros_like(u); out[1:-1, 1:-1] = u[:-2, 1:-1] + ...`) becomes one `cp.RawKernel`
 * writing the whole output in one coalesced pass, each thread walking 8 rows of one column with
 * the vertical neighbours in registers (rules/arrays/stencil.ts; H200: 78% of the copy ceiling
 * for 8192^2 float32 where one thread per element reached 50%). The same update in place,
 * repeated by a loop (`for step in range(k): u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + ...)`, a
 * Jacobi sweep), launches that kernel once per step between two buffers swapped each step (the
 * border copied through), instead of a temporary and a slice copy per step; the user's array
 * ends with the last step's values (copied back once after an odd step count). Periodic stencils
 * written with np.roll (`lap = np.roll(v, 1, 0) + np.roll(v, -1, 0) + ... - 4 * v; v = v + a * lap`,
 * or `v += ...`, `v[:] = ...`; shifts ±1 and ±2 along a named axis) become the same kind of kernel
 * reading each neighbour where np.roll does, across the opposite edge: once, or once per step of a
 * loop, instead of a rolled copy per roll and a pass per operator (stencil.ts rollLoopStencil).
 *
 * A whole array updated in place by a chain (`x *= np.exp(-x * x) + np.sin(x) * np.cos(x)`, and
 * `+=`, `-=`, `/=`, `**=`) becomes one typed kernel that reads `x` with the chain's inputs and
 * writes `x * (chain)` into `x` itself (`x_kernel(x_gpu, x_gpu)`), where NumPy computes the chain
 * into a temporary and then makes a second pass over `x`; a ufunc's `out=u`
 * (`np.multiply(np.sin(a), np.cos(a), out=u)`) becomes one kernel writing `u` (`u_kernel(a, u)`).
 * Rounded as NumPy rounds: the chain's value in its dtype, then the update (--fmad=false: no
 * contraction across the two). Only where `u` has the chain's float dtype (else CuPy's ufunc with
 * `out=` stays), and `x` has it too or, where the chain does not read `x`, the other float dtype
 * (NumPy computes the update in float64 and casts it into `x` same_kind; C widens the float
 * operand and the store rounds), and where no other input may share its memory: an
 * ElementwiseKernel, unlike CuPy's ufuncs, does not copy an input that overlaps its output, so
 * every other array read must be a plain name the cell does not bind, sharing no memory with it
 * that the analysis sees (`x.T` keeps the two-step form `x *= x_kernel(x.T)`), and an element of
 * `x` the chain reads is copied first (`x_kernel(x, x[0].copy(), x)`: NumPy reads it before it
 * writes). A `@cp.fuse()` chain keeps the two-step form.
 *
 * `np.round(x)`, `np.around(x)` and `x.round()` with no or zero decimals are C's `rint` in a typed
 * kernel (NumPy rounds half to even, as rint does; other decimals stay outside the chain: NumPy
 * scales, rounds and scales back). `np.where(c, a, b)` is the C ternary `(c ? a : b)` where `c` is
 * a comparison, `&`/`|`/`^`/`~` of booleans or a bool mask, and at least one branch reads an
 * array of the kernel's dtype (NumPy's promotion of the branches is then that dtype; two Python
 * numbers make a float64 or int64 array, which no typed kernel and no `@cp.fuse()` function
 * reproduces: CuPy's fusion would pick float16); C evaluates only the branch it selects, so
 * NumPy's warnings from the other one (`1 / 0` where the mask is False) are not raised, the
 * values are the same. A mask statement (`m = (r2 < 6.25) & (r2 > 1e-12)`) joins a group below
 * as a `bool` local of the kernel, or a `bool` output where something reads it after.
 *
 * Consecutive top-level statements whose typed chains share a float dtype and a known shape, each
 * reading an earlier one's result by name, become one kernel (fusion.ts groupChains):
 * ```python
 * y = np.sqrt(x * x + z * z)
 * w = np.exp(-y) * 2
 * ```
 * becomes `w = w_kernel(x_gpu, z_gpu)` with `'const double y = sqrt(x * x + z * z); w = exp(-y)
 * * 2.0'` where nothing reads `y` after the two statements (a C local of the arrays' type: the
 * value NumPy stores; the name is not bound), and `y, w = y_w_kernel(x_gpu, z_gpu)` where
 * something does: a later statement, the displayed value, a later cell, a function the notebook
 * defines. Members need no three operations of their own, the group does. A ufunc's `out=u` may
 * open it (`u` written in place; the other outputs allocated with `cp.empty`, since the kernel
 * takes all its outputs or none). Anything subtle keeps the statements apart: control flow, host
 * code between, shapes that differ or are unknown, mixed dtypes, a target read before it is bound
 * (`x = x * 2 + 1`) or through a view (`y[0]`), in-place updates, inputs sharing memory with `u`,
 * and values all known to be small (a histogram's 50 bins: launches of microseconds, where a
 * kernel costs its compile), as for a single chain.
 *
 * A full reduction over a chain never writes the chain's array (rules/arrays/reduction-kernel.ts):
 * ```python
 * pi_estimate = 4.0 * np.count_nonzero(px * px + py * py <= 1.0) / N
 * ```
 * becomes a typed kernel reading `px` and `py` once (a `cp.RawKernel` with a grid-stride loop and
 * one partial per block, behind a launcher function; a `cp.ReductionKernel` for the float sum of
 * one whole array, which CuPy runs through CUB, compiled without the kernel's options, so it
 * passes none) with NumPy's result dtype (int64 for counts,
 * float32 for float32 sums accumulated in double: within about one float32 ulp of NumPy's
 * pairwise sum). H200, 20M points: 84 us against 454 us op by op. Not `cp.fuse` with the
 * reduction inside, nor a ReductionKernel of several inputs: CuPy launches those as ONE block
 * (17.4 ms). With unknown dtypes the elementwise part is a `@cp.fuse()` function and CuPy reduces
 * its result (`cp.sum(f(x, y))`, two passes). Neither where the cell reduces once over a view
 * that is not C-contiguous (`np.mean((est[:, :, :2] - truth[:, :, :2]) ** 2)`): a generated
 * kernel's launcher would copy it whole first, for one launch, so the chain stays CuPy's calls,
 * which read views where they lie (GPU101's rewrite); a loop that repeats the reduction, or whole
 * arrays and contiguous parts, get the kernel (fusion.ts reductionKernelPays). Refusals are GPU101's (object dtypes, missing
 * functions, recurrences, small arrays). The title counts the kernels the rewrite defines ("one
 * fused CuPy kernel", "3 fused CuPy kernels").
 */
import type { Rule, RuleOutcome } from '../types';
import { arrayAnalysis } from './cupy-rewrite';
import { arrayOutcome, CUPY_REFERENCE, mayHaveArrayWork } from './shared';

export const fuseElementwise: Rule = {
  id: 'GPU103',
  title: 'Elementwise chain on large arrays -> one fused CuPy kernel',
  family: 'arrays',
  library: 'cupy',
  reference: `${CUPY_REFERENCE}#fusion`,
  prefilter: mayHaveArrayWork,
  check(ctx): RuleOutcome | null {
    const a = arrayAnalysis(ctx);
    if (!a || !a.applicable || (a.chains.length === 0 && !a.stencil) || (a.scipyCompute > 0 || a.sparseOps > 0)) {
      return null;
    }
    // the stencil's own chain is part of its kernel: the forms below count the other chains
    const stencil = a.stencil;
    // a group's members are counted as its one kernel
    const grouped = new Set(a.groups.flatMap(g => g.chains));
    const chains = a.chains.filter(c => !grouped.has(c) && (!stencil || c.node.startIndex < stencil.start || c.node.endIndex > stencil.end));
    const kernels = chains.filter(c => c.kernel).length;
    const reductions = chains.filter(c => c.reduce).length;
    const fused = chains.length - kernels - reductions;
    const ops = a.chains.reduce((n, c) => n + c.ops, 0);
    const forms: string[] = [];
    // the in-place update repeated by a loop (a Jacobi sweep), or out = zeros_like + slice assignment
    const sweep = stencil?.loop;
    if (a.stencil) {
      // other arrays the step reads: kernel inputs beside the two buffers, uploaded once
      const names = a.stencil.reads.map(n => `\`${n}\``).join(', ');
      const reads = a.stencil.reads.length > 0 ? `, reading ${names} at the same indices, as ${a.stencil.reads.length === 1 ? 'a read-only kernel input' : 'read-only kernel inputs'}` : '';
      const layout = 'with coalesced loads (threads run along the contiguous last axis; in 2-D each thread computes 8 rows of its column, the vertical neighbours kept in registers)';
      // the np.roll forms: neighbours wrap around, no border; `v = ...` rotates new buffers
      const periodic = a.stencil.periodic;
      const rolls = `${a.stencil.taps} reads of one array, its np.roll neighbours included`;
      const wraps = 'each neighbour read where np.roll reads it (wrapping around at the edges)';
      const instead = 'instead of a rolled copy per roll and a pass per operator';
      forms.push(
        periodic && sweep
          ? `the loop's periodic stencil (${rolls}) becomes one CUDA kernel launch per step (\`${a.stencil.name}\`) that writes a whole second buffer, ${wraps}, ${layout}; ${periodic.inPlace ? "the array's own memory and a spare buffer swap roles each step, and the array ends with the last step's values, in place" : 'the steps rotate through two new buffers, and the name ends bound to the last one'}, ${instead} each step`
          : periodic
          ? `the periodic stencil (${rolls}) becomes one CUDA kernel (\`${a.stencil.name}\`) that writes the whole result in one pass, ${wraps}, ${layout}, ${instead}${periodic.inPlace ? "; the result is copied into the array's own memory, as the in-place update writes it" : ''}`
          : sweep
          ? `the loop's in-place slice stencil (${a.stencil.taps} shifted views of one array${reads}) becomes one CUDA kernel launch per step (\`${a.stencil.name}\`) that writes a whole second buffer, border copied, ${layout}; the two buffers swap roles each step, instead of a temporary and a slice copy per step, and the array ends with the last step's values, in place`
          : `the slice stencil (${a.stencil.taps} shifted views of one array) becomes one CUDA kernel (\`${a.stencil.name}\`) that writes the whole output in one pass, border included, ${layout} instead of a zero fill, a temporary and a slice copy`
      );
    }
    if (kernels > 0) {
      forms.push(`${kernels === 1 ? 'the chain becomes' : `${kernels} chains become`} a typed \`cp.ElementwiseKernel\` (compiled once per process and cached by its source, so re-running the cell costs no re-trace)`);
    }
    // `x *= chain`, `np.multiply(..., out=u)`: the kernel writes the array NumPy writes
    const written = chains.flatMap(c => (c.kernel && c.writes ? [`\`${c.writes.array.text}\``] : []));
    if (written.length > 0) {
      const who = kernels === 1 ? 'the kernel writes its result' : written.length === 1 ? 'one of them writes its result' : `${written.length} of them write their results`;
      forms.push(`${who} straight into ${written.join(', ')} (each element read once and written once: no temporary, no second pass)`);
    }
    for (const g of a.groups) {
      const code = (names: string[]): string => names.map(n => `\`${n}\``).join(', ');
      const outputs = g.outputs.map(o => o.name);
      const locals = g.locals.length > 0 ? `; ${code(g.locals)} ${g.locals.length === 1 ? 'stays' : 'stay'} in registers (read by the next statements only, never written to memory)` : '';
      const written = g.outputs.filter(o => o.written).map(o => o.name);
      const inPlace = written.length > 0 ? ` (${code(written)} in place)` : '';
      // a name the group binds again (`R = f(x)` then `R = g(R)`): its earlier values are registers
      const targets = g.chains.map(c => c.target ?? '');
      const rebound = [...new Set(targets.filter((n, k) => targets.indexOf(n) !== k))];
      const rebinding =
        rebound.length > 0 ? ` (${code(rebound)} bound again: ${rebound.length === 1 ? 'its earlier value stays in a register' : 'their earlier values stay in registers'}, never written to memory)` : '';
      forms.push(
        `the ${g.statements.length} consecutive statements computing ${code([...new Set(targets)])}${rebinding} become one typed \`cp.ElementwiseKernel\` that reads ${code(g.arrays)} once and writes ${code(outputs)}${inPlace}${locals}, where one kernel per statement would write each result and read it back`
      );
    }
    if (reductions > 0) {
      forms.push(
        `${reductions === 1 ? 'the reduction over a chain becomes' : `${reductions} reductions over chains become`} one typed kernel that folds each element as it reads it (the chain's array is never written), with NumPy's result dtype`
      );
    }
    if (fused > 0) {
      forms.push(`${fused === 1 ? 'a chain becomes' : `${fused} chains become`} a \`@cp.fuse()\` function (the whole-notebook rewrite defines it once, in the import cell: CuPy traces it once per function object)`);
    }
    // a group's locals are never bound: not left on the device either; nor is the temporary a
    // periodic stencil inlines (`lap`)
    const temporary = a.stencil?.periodic?.temporary;
    const locals = new Set([...a.groups.flatMap(g => g.locals), ...(temporary ? [temporary] : [])]);
    const outcome = arrayOutcome(ctx, locals.size > 0 ? { ...a, leftOnDevice: a.leftOnDevice.filter(n => !locals.has(n)) } : a, {
      what: a.stencil?.periodic
        ? sweep
          ? 'This cell repeats a periodic stencil update written with np.roll: as one kernel per step it reads the grid once and writes the next one once.'
          : 'This cell computes a periodic stencil written with np.roll: as one kernel it reads the grid once and writes the result once.'
        : sweep
        ? 'This cell repeats an in-place stencil update with shifted slices: as one kernel per step it reads the grid once and writes the next one once.'
        : a.stencil
        ? 'This cell computes a stencil with shifted slices: as one kernel it reads the grid once and writes the result once.'
        : a.groups.length > 0
        ? `This cell runs ${ops} elementwise operations: fused, they are ${chains.length + a.groups.length === 1 ? 'one GPU kernel' : `${chains.length + a.groups.length} GPU kernels`} instead of ${ops}.`
        : `This cell runs ${a.chains.length === 1 ? 'a chain' : `${a.chains.length} chains`} of ${ops} elementwise operations: fused, each chain is one GPU kernel instead of ${ops}.`,
      why: `Elementwise code is memory-bound: op by op, every operator reads and writes a full array. Here ${forms.join('; ')}.`,
      anchor: 'fusion',
      extraNotes: [
        a.stencil
          ? 'The kernel is compiled on its first call (NVRTC, then cached by CuPy in memory and on disk); the A/B run reports that first run separately. It is compiled with --fmad=false to keep NumPy\'s rounding.'
          : 'The kernel is compiled on its first call (then cached by CuPy in memory and on disk); the A/B run reports that first run separately.',
        // a scalar that keeps a chain from its typed kernel (a NumPy float64 one, one of unknown kind)
        ...chains.flatMap(c => (c.untyped ? [c.untyped] : [])),
        // CuPy 14's fusion builds its ElementwiseKernel without options (fusion.pyx get_fusion)
        ...(fused > 0
          ? ['`cp.fuse` takes no compile options: its kernel is compiled with NVRTC\'s defaults, which may contract `a * b + c` into one fused multiply-add (1 ulp from NumPy\'s separately rounded product and sum).']
          : []),
        // a float32 sum or mean accumulated in double (reduction-kernel.ts): more accurate than
        // NumPy's float32 pairwise sum, so not always the same last digit (second notebook review)
        ...(chains.some(c => c.reduce && c.reduce.dtype === 'float32' && (c.reduce.reduction === 'sum' || c.reduce.reduction === 'mean'))
          ? ['A float32 sum or mean is accumulated in double and rounded once to float32: within about one float32 ulp of NumPy\'s pairwise float32 sum, so its last printed digit may differ (the A/B check compares within float32 tolerance).']
          : []),
        ...(reductions > 0
          ? [
              'Counts and extrema equal NumPy\'s exactly only when the element uses `+ - * /`, `sqrt` and comparisons (correctly rounded on both sides; the kernel is compiled with --fmad=false): CUDA\'s `exp`, `log`, `pow` and trig differ from NumPy\'s by an ulp or so, which can move a value across a comparison. The launcher raises TypeError if its arrays arrive with another dtype than the one the analysis inferred, and copies an array it reads at the result\'s own index (its shape inferred to be the result\'s) to that shape if it arrives with another that broadcasts to it (NumPy\'s result, one copy).'
            ]
          : [])
      ],
      confidence: 0.75
    });
    // the title counts the kernels the rewrite defines: one per chain, group and stencil
    const emitted = chains.length + a.groups.length + (stencil ? 1 : 0);
    return outcome.kind === 'suggest' && emitted > 1 ? { ...outcome, title: `Elementwise chains on large arrays -> ${emitted} fused CuPy kernels` } : outcome;
  }
};
