/**
 * The notebook-wide residency plan: which cells run on the GPU, where data crosses between host
 * and device, and the whole-notebook rewrite that follows from it.
 *
 * Per-cell suggestions must leave the notebook working on their own, so each copies its inputs
 * in and its results out. Across a whole notebook that is wasteful: an array produced by one GPU
 * cell and consumed by the next should stay on the device. The plan walks the cells in order,
 * keeping the set of names that live on the device:
 *
 * - a GPU cell (one the array rules would rewrite, judged with the plan's residency) uses
 *   resident arrays as they are, moves host arrays in once by rebinding them
 *   (`x = cp.asarray(x)`), and leaves its results on the device. A host array that a later host
 *   cell reads and that no cell changes from there on (`keepOnHostFrom`: a filter's 4x4 constants
 *   a per-track host loop reads again, a data set a host loop walks) is copied in under a new
 *   name instead (`F_gpu = cp.asarray(F)`), which later GPU cells read: the name keeps its host
 *   array, so host cells read it with no copy back and no GPU cell copies it in again (found by
 *   one walk, where a host cell copied the rebound array back, and used by the next). An array another name may
 *   share never becomes resident: the cell copies it in, and writes it back into its host array
 *   if it updates it, on every run; the worth check charges those copies, the first copy in of a
 *   host array no later cell reads, and an array the plan brought back earlier moved in again,
 *   and a cell they make slower stays on the host, with the reason. A GPU cell whose device
 *   arrays only later host cells read (they copy them back) is planned again on the host when
 *   those copies make it slower. A small array such a cell makes from numbers alone that only
 *   later host code reads (`freqs = np.fft.rfftfreq(n_fft, 1 / sr)`) stays NumPy's, made on the
 *   host where its readers are (`madeForHost`), and a notebook function the cell runs on device
 *   arrays finds the host arrays it reads as globals moved in by rebinding (`F = cp.asarray(F)`,
 *   never beside a device copy: cupy-rewrite.ts `globalsReadByCalledFunctions`);
 * - a host cell that only hands resident arrays to host consumers (matplotlib, pandas, file
 *   writes, `repr`/`type`/`isinstance`) gets host copies of those arguments as NumPy code has
 *   them (`cp.asnumpy(y)`, an element or a 0-d result as a NumPy scalar `cp.asnumpy(y[0])[()]`,
 *   a sparse matrix `M.get()`: `hostCopyAround`), and the arrays stay resident; `print`, `len`,
 *   `float`, `str` and f-strings take CuPy values as they are, except where they would show a 0-d
 *   value's repr (`{s!r}`, `{s=}`, a displayed `s`);
 * - a host cell that computes with a resident array on the host (loops, NumPy code the rules
 *   refused) but only reads it gets a host copy of what it reads, and the array stays resident
 *   for later GPU cells, which find it as it was: a part indexed with host integers and slices,
 *   or the whole array used once, is copied where it is read (`np.corrcoef(cp.asnumpy(X[:, :8]))`,
 *   an element as NumPy's scalar, `x.copy()` as `cp.asnumpy(x)`); the whole array, or one read in
 *   a loop (host consumers called in a loop too), is copied once at the cell's top under a fresh
 *   name that the cell's references then read (`x_host = cp.asnumpy(x)`; `x` itself stays the
 *   device array, so a later GPU cell needs no copy back, and the host copy takes the host memory
 *   the NumPy notebook's array took); later host cells read that copy again while nothing has
 *   changed the array (one host copy per version; a view one binds to a name, `fwd = x[a:b]`, is
 *   taken from it, `fwd = x_host[a:b]`, where nothing updates the view: `viewKeepsHostCopy`), and a
 *   host consumer whose array a later host cell copies whole again gets that copy, made at its own
 *   cell's top (`copiedTwice`: g_climate's `pcolormesh(time, lat, zonal_host.T)`);
 * - a host cell that writes a resident array, updates it in place, reads it from a function or
 *   lambda it runs (which may run after a later cell changed it: a function the cell only defines
 *   reads nothing yet, and the cells calling it bring its globals back), lets something keep it that may update
 *   it (a notebook function that keeps and changes none of its arguments gets a host copy
 *   instead), shows it with its text (`{x[0]=}`), or reads a 0-d value or one NumPy gives as a Python
 *   number (`np.allclose`), brings it back at its top (`x = cp.asnumpy(x)`, `s = s.get()[()]`,
 *   `ok = ok.item()`): it leaves the device there, and the next GPU cell that uses it moves it in
 *   again, once.
 *
 * What stays resident must fit in device memory. Before a cell becomes a GPU cell, the arrays on
 * the device while it runs (the resident set, plus what the cell moves in and makes; sizes from
 * the notebook model and the kernel's reports, unknown sizes not counted; names holding one
 * array, `v = x` or a basic slice of it, count once) are checked against
 * 80% of the device's memory (`fitsOnDevice`: CuPy's memory pool keeps freed blocks cached, an
 * unfused op makes an array-sized temporary, cuBLAS/cuFFT take workspaces and the CUDA context a
 * few hundred MB, so a plan that fills the device dies with cudaErrorMemoryAllocation). Over
 * that, the largest resident arrays the cell does not use go back to the host at its top
 * (`x = cp.asnumpy(x)`, an alias of them rebound to it, `v = x`; a later GPU cell moves them in
 * again; an array views of which stay resident cannot leave apart from them); if the cell's own
 * arrays still do not fit, it stays a host cell, with the reason in its change.
 *
 * A cell that reads resident arrays is weighed against its host version as the rewrite would have
 * it, not against its NumPy code alone: kept on the host, it copies back what its host code reads
 * of them, and an array it brings back for good a later GPU cell moves in again
 * (`hostVersionCost`; host consumers' copies of resident arrays are left out, a GPU version makes
 * them too). The GPU version in turn pays the copies back of what it computes, or moves in, for
 * host code in the cell (`pd.crosstab(cp.asnumpy(lab % 3), lab)`: the host version has `lab % 3`
 * on the host; `consumerCopiesCharged`), and a GPU cell whose results only later host cells read
 * pays their copies back, judged per session too (`hostOnlyProducers`). A cell
 * under the minimum speedup on its own moves when its GPU version beats that by the minimum and
 * saves `MIN_COPY_SAVING_SECONDS` (h_spectro cell 14: 17 us of band integrals, 22 ms of copying
 * `corrected` back), the per-session rule weighs the same copies, and the whole-notebook figure
 * counts the copies the cells kept on the host make for their host code.
 *
 * Every cell the plan rewrites passes the engine's safety net (`candidateErrorLine`: the rewrite
 * must parse, IPython masked): a GPU cell whose rewrite, or a kernel definition it hoists, does not
 * is planned again on the host (`PlanChange.stays` 'invalid-rewrite', with the line); a host cell
 * whose copies of resident arrays do not parse brings each back at its top instead.
 *
 * Which cells move is decided per session (`PlanOptions.session`, 'fresh' by default): a GPU cell
 * must save `MIN_SESSION_SAVING_SECONDS` in a fresh kernel, its first uses loaded (apis/first-use.ts:
 * `import cupyx.scipy.ndimage`, a cupyx function's kernels, cuFFT's plan...). A first use is paid
 * once per process, by the first GPU cell that makes it, so cells are decided jointly, not each
 * with all of its own first uses (`joinDeferred`): after a walk, the cells the session rule alone
 * kept on the host are weighed again with the first uses the walk's GPU cells make taken as paid.
 * One that then saves its margin alone moves (the GPU cell that loads what it uses comes later: it
 * is relieved of the charge); cells that share a first use nobody pays yet, and each fail alone,
 * move as a group when each would save its margin with the shared loads free and together they
 * save the sum of their margins with them paid once, e.g. two cells of ~0.14 s on the CPU that
 * each call `ndimage.shift` (~0.12 s a session to import and load). The walk is made again with
 * those cells on the GPU; each is charged, in order, only what no earlier GPU cell loaded, so its
 * change and the whole-notebook figure (`NotebookFigures`) count each first use once, and its
 * change says whom it moved with. Passes repeat until nothing changes: a cell joins at most once
 * (a join one of whose cells, or of the GPU cells whose loads it counted on, is not a GPU cell
 * after a pass is undone and never tried again) and the cells kept on the host only grow, so the
 * passes end; cells and first uses are taken in notebook order, so the result is the same for the
 * same notebook.
 *
 * A cell whose array sizes are unknown (data read from a file: the panel sizes arrays from the
 * running kernel, for its suggestions and its whole-notebook rewrite; the CLI cannot) has no
 * figure. Judged per session, it stays on the host, with the reason (`unknownSizeStays`), unless
 * it reads arrays resident on the device: then a host version would copy them back, and it moves,
 * its change saying so. (A file an earlier cell wrote with `np.save` is not unknown: notebook.ts
 * sizes `np.load` of it as what was saved.)
 *
 * Every cell the array rules would rewrite that stays on the host says why in its change, with
 * the reason in one word (`PlanChange.stays`: under the minimum speedup, under the per-session
 * saving, copies, unknown sizes, memory), and so does every cell they refuse (with the rule's
 * reason: `refused`), which `fix` groups in one line (`hostReasonsInWords`).
 *
 * `import cupy as cp` is added once, to the first cell that imports something; the kernels the
 * GPU cells use (ElementwiseKernel objects, fused functions, RawKernels) are defined once, in the
 * same cell, right after the imports: a fused function re-created by every execution of its cell
 * would be re-traced every time (references/cupy.md#fusion).
 */
import { FIRST_USE_H200, firstCopyInCharge, firstUseCharge, kernelKey } from './apis/first-use';
import { DEFAULT_DEVICE_PROFILE, DEVICE_MEMORY_SHARE, fitsOnDevice, formatSeconds, formatSpeedup, formatSpeedupBelow, NOT_A_SPEEDUP, predict, predictResident } from './costmodel';
import { candidateErrorLine } from './candidate';
import { applyEdits, insert, replace } from './edits';
import { CellCache, CellModel, NotebookModel } from './notebook';
import { maskIPython } from './ipython';
import { getParser, PythonParser, SyntaxNode } from './parser';
import { escapingUse, memorySharers } from './rules/arrays/aliases';
import type { ArrayCellAnalysis } from './rules/arrays/cupy-rewrite';
import { analyseArrayCell, boundToPythonScalar, changedWithin, keepsNoArgument, collectHostConsumerArgs, cupyAlias, epilogueEdits, freshNotebookName, globalReferences, globalsReadByCalledFunctions, hostArgumentNeed, hostCopyAround, hostCopyLine, hostIndexAround, insideIndexArgument, isIndexBuiltinCall, inParameterDefault, readsWhole, isDeviceSafeBuiltin, isZeroD, showsRepr, prologueOffset, updatedFrom, updatedInCell, updatedInPlaceFrom } from './rules/arrays/cupy-rewrite';
import { cellFirstUses, withFirstUses } from './rules/arrays/shared';
import { field, isValueIdentifier, kids, unparen, walk } from './syntax';
import type { CellInput, DeviceProfile, Prediction, RuntimeValueInfo, TextEdit } from './types';
import { copyBytes, formatBytes, valueBytes, type ValueInfo } from './values';

export interface PlanOptions {
  parser?: PythonParser;
  runtime?: Record<string, RuntimeValueInfo>;
  device?: DeviceProfile;
  /** Cells predicted below this speedup stay on the host (default 1.5). */
  minSpeedup?: number;
  /**
   * What a cell's GPU version must pay for to be moved there: 'fresh' (default), a session that
   * starts with a fresh kernel, the cell's first uses loaded and what it saves at least
   * `MIN_SESSION_SAVING_SECONDS`; 'warm', its steady figure alone, as in a process that already
   * loaded everything (cells re-run many times in one session), a cell whose array sizes are
   * unknown moved as one that pays (with 'fresh' it stays on the host unless it reads arrays
   * resident on the device). The tests of the plan's data movement use 'warm': their notebooks are
   * kept small, and many read their data from files.
   */
  session?: 'fresh' | 'warm';
  /**
   * The array rules' rewrite of a cell (default `analyseArrayCell`), which the plan applies to its
   * GPU cells. Every cell the plan rewrites must parse (`candidateErrorLine`, the engine's safety
   * net): a GPU cell whose rewrite does not stays on the host (`PlanChange.stays` 'invalid-rewrite').
   * Tests pass a wrapper that breaks one cell's rewrite to check that.
   */
  arrayRewrite?: typeof analyseArrayCell;
}

/** One place where data moves, for the UI and the report. */
export interface Transfer {
  cellIndex: number;
  name: string;
  direction: 'to-device' | 'to-host';
  /** Why the data moves there (the host consumer or the GPU cell). */
  reason: string;
  /**
   * Set on a to-host copy of an expression over the device array (`float(x.sum())`, `x[:5]`)
   * that a host cell reads: the array itself stays resident, so it is not a copy back of it.
   */
  partial?: true;
}

/**
 * Why a cell the array rules would rewrite stays on the host, in one word (its change's summary
 * says it in full): predicted under the minimum speedup (`below-minimum`); saving under
 * `MIN_SESSION_SAVING_SECONDS` per session once its first uses are loaded (`per-session`); the
 * copies its GPU version would make cost more than it saves (`copies`); its array sizes unknown
 * (`unknown-size`); too big for the device's memory (`memory`); refused by the array rules
 * (`refused`: code the rewrite would break or CuPy lacks, a sequential recurrence, a per-element
 * loop; the summary gives the rule's reason, the one `analyze` reports); its GPU rewrite came out
 * as invalid Python (`invalid-rewrite`: a bug of the rewrite, caught by the safety net every
 * rewritten cell passes, `candidateErrorLine`).
 */
export type HostReason = 'below-minimum' | 'per-session' | 'copies' | 'unknown-size' | 'memory' | 'refused' | 'invalid-rewrite';

/** `HostReason` for people: what follows "kept on the host:" (`hostReasonsInWords`). */
const HOST_REASON_WORDS: Record<HostReason, string> = {
  'below-minimum': 'predicted under the minimum speedup',
  'per-session': 'under 50 ms saved per session once first uses are loaded',
  copies: 'copies between host and device would cost more than the GPU saves',
  'unknown-size': 'array sizes unknown and no input on the device',
  memory: "too big for the device's memory",
  refused: "refused by the array rules (each cell's line says why)",
  'invalid-rewrite': 'the GPU rewrite came out as invalid Python (not applied; please report it)'
};

/**
 * The cells a plan keeps on the host, grouped by why, in one line for people ("cells 2, 13:
 * predicted under the minimum speedup; cell 6: array sizes unknown, ..."); empty when none.
 */
export function hostReasonsInWords(changes: readonly PlanChange[]): string {
  const groups = new Map<HostReason, number[]>();
  for (const ch of changes) {
    if (ch.stays) {
      groups.set(ch.stays, [...(groups.get(ch.stays) ?? []), ch.cellIndex]);
    }
  }
  return [...groups].map(([why, cells]) => `cell${cells.length === 1 ? '' : 's'} ${cells.join(', ')}: ${HOST_REASON_WORDS[why]}`).join('; ');
}

export interface PlanChange {
  cellIndex: number;
  cellId: string;
  /** Set when the cell stays on the host although the array rules would rewrite it: why, in one word. */
  stays?: HostReason;
  /** The array rule whose rewrite the cell got, if it became a GPU cell. */
  rule?: string;
  /**
   * Set when the GPU cell's rewrite draws its random numbers on the device (cuRAND through
   * cupy.random): they, and what is computed from them, match NumPy's only statistically.
   */
  randomOnDevice?: true;
  summary: string;
}

export interface ResidencyPlan {
  /** All cells, rewritten where the plan changes them (markdown untouched). */
  cells: CellInput[];
  changes: PlanChange[];
  transfers: Transfer[];
  /** Indices of the cells that run on the GPU. */
  gpuCells: number[];
  /**
   * The kernel definitions hoisted into the import cell (`definitionsCell`), in order: what a
   * GPU cell of the rewrite needs defined before it runs.
   */
  definitions: { name: string; cellIndex: number; text: string }[];
  /** The cell that holds `definitions` (-1 when there are none). */
  definitionsCell: number;
  /** The whole-notebook figure per session (null when no cell runs on the GPU). */
  figures: NotebookFigures | null;
}

/**
 * What the whole-notebook rewrite is predicted to cost and save, over the cells it moves to the
 * GPU (the other cells run the same code on both sides). Seconds per session: the CPU's, and the
 * GPU's in a fresh kernel with CuPy's kernel cache warm (every session after the machine's first:
 * `import cupy`, cupyx imports, library set-up and kernel loads included); the machine's first
 * run adds the NVRTC compiles on top (apis/first-use.ts).
 */
export interface NotebookFigures {
  cpuSeconds: number;
  /** The GPU cells in a warm process (re-runs in the same session). */
  gpuSeconds: number;
  freshSessionSeconds: number;
  /** What the machine's first run adds to `freshSessionSeconds` (compiles). */
  firstRunExtraSeconds: number;
  /**
   * CuPy's start-up where the rewrite adds `import cupy` (0 when the notebook imports CuPy itself),
   * in the figures above: the import, the CUDA context and the first kernel's once-per-process cost
   * (apis/first-use.ts `importCupy` + `firstKernel`).
   */
  importSeconds: number;
  /** GPU cells whose sizes are unknown: no figure, not counted. */
  unpriced: number[];
  /** Is a later session predicted a speedup (at least `NOT_A_SPEEDUP`)? */
  pays: boolean;
  /** The figures, and when it does not pay why, in words. */
  summary: string;
}

/** Computes the residency plan and the whole-notebook rewrite. */
export function rewriteNotebook(cells: CellInput[], opts: PlanOptions = {}): ResidencyPlan {
  const parser = opts.parser ?? getParser();
  const cache = new CellCache(parser);
  const models: CellModel[] = cells.map(c => cache.get(c));
  const model = new NotebookModel(models, opts.runtime ?? {});
  const device = opts.device ?? DEFAULT_DEVICE_PROFILE;
  const minSpeedup = opts.minSpeedup ?? 1.5;
  // a GPU cell whose results only host cells read pays their copies back: planned again with it
  // on the host when they make it slower (each further pass keeps at least one more cell on the
  // host, so the passes end)
  const kept = new Map<number, string>();
  // cells that move to the GPU with others (`joinDeferred`): their first uses are paid once, by
  // the first of them; a group one of whose members (or of the GPU cells whose loads it counted
  // on) did not become or stay a GPU cell is undone, and its cells are never joined again (so
  // every cell joins at most once, and the passes end)
  const joined = new Map<number, Joined>();
  const noJoin = new Set<number>();
  // host arrays a GPU cell copies in under a fresh name, keeping the host name's array, because
  // host cells read them later (`keepOnHostFrom`): per cell, found by a pass and kept for the next
  // (they only grow, so the passes end)
  const keepOnHost = new Map<number, Set<string>>();
  // resident arrays a host cell hands to a host consumer that a later host cell copies whole
  // again, unchanged (`pcolormesh(..., zonal.T)`, then `zonal_host = cp.asnumpy(zonal)`): per
  // cell, copied once at the first cell's top under the host name the later one reads
  // (`copiedTwice`; found by a pass, used by the next; they only grow, so the passes end)
  const copyOnce = new Map<number, Set<string>>();
  // small arrays a GPU cell makes from numbers alone that only later host cells read, each
  // copying them back (`madeForHost`): per cell, made on the host by the next pass (they only
  // grow, so the passes end)
  const hostMade = new Map<number, Set<string>>();
  const add = (m: Map<number, Set<string>>, c: { cellIndex: number; name: string }): void => {
    m.set(c.cellIndex, new Set([...(m.get(c.cellIndex) ?? []), c.name]));
  };
  // the safety net (`candidateErrorLine`): GPU cells whose rewrite did not parse, with the line,
  // planned again on the host; host cells whose copies of resident arrays did not, planned again
  // bringing every resident array they read back at their top instead (found by a pass, used by
  // the next; each cell enters each at most once, so the passes end)
  const invalid = new Map<number, number>();
  const allBack = new Map<number, number>();
  const unsafe = { invalid, allBack, arrayRewrite: opts.arrayRewrite ?? analyseArrayCell };
  for (;;) {
    const pass = planPass(cells, models, model, parser, device, minSpeedup, kept, joined, opts.session ?? 'fresh', keepOnHost, copyOnce, hostMade, unsafe);
    const keep = pass.copiedBack.filter(c => !keepOnHost.get(c.cellIndex)?.has(c.name) && keepOnHostFrom(c.name, model.cells[c.cellIndex], model));
    if (keep.length > 0) {
      keep.forEach(c => add(keepOnHost, c));
      continue;
    }
    const made = madeForHost(pass.plan, model).filter(c => !hostMade.get(c.cellIndex)?.has(c.name));
    if (made.length > 0) {
      made.forEach(c => add(hostMade, c));
      continue;
    }
    const twice = copiedTwice(pass.plan, model).filter(c => !copyOnce.get(c.cellIndex)?.has(c.name));
    if (twice.length > 0) {
      twice.forEach(c => add(copyOnce, c));
      continue;
    }
    const more = hostOnlyProducers(pass.produced, pass.plan, model, device, minSpeedup).filter(([index]) => !kept.has(index));
    if (more.length > 0) {
      more.forEach(([index, why]) => kept.set(index, why));
      continue;
    }
    const gpu = new Set(pass.plan.gpuCells);
    // (a cell joined for first uses other GPU cells load: those must still be GPU cells too)
    const broken = [...joined].filter(([, j]) => [...j.group, ...j.makers].some(i => !gpu.has(i)));
    if (broken.length > 0) {
      for (const [index, j] of broken) {
        joined.delete(index);
        noJoin.add(index);
        j.group.forEach(i => noJoin.add(i));
      }
      continue;
    }
    const join = joinDeferred(pass.deferred, pass.paid).filter(j => j.group.every(i => !joined.has(i) && !noJoin.has(i) && !kept.has(i)));
    if (join.length === 0) {
      // (checked once the plan is otherwise final: a cell the checks before would change anyway is
      // not parsed for nothing)
      const unparsed = unparsedRewrites(cells, models, pass.plan, parser).filter(([i]) => !(gpu.has(i) ? invalid : allBack).has(i));
      if (unparsed.length === 0) {
        return pass.plan;
      }
      unparsed.forEach(([i, line]) => (gpu.has(i) ? invalid : allBack).set(i, line));
      continue;
    }
    for (const j of join) {
      j.group.forEach(i => joined.set(i, j));
    }
  }
}

/**
 * The cells of `plan` whose rewrite does not parse (`candidateErrorLine`, IPython masked) while
 * their source did, each with the line of its first error: a bug of the rewrite, which the plan
 * never hands out (`rewriteNotebook` plans such a cell again). A kernel definition the plan hoists
 * into the import cell is checked on its own, and counts against the GPU cell it came from (the
 * line is the definition's): that cell, on the host, hoists nothing.
 */
function unparsedRewrites(cells: readonly CellInput[], models: readonly CellModel[], plan: ResidencyPlan, parser: PythonParser): [number, number][] {
  const out: [number, number][] = [];
  for (const d of plan.definitions) {
    const line = candidateErrorLine(parser, d.text);
    if (line > 0 && !out.some(([i]) => i === d.cellIndex)) {
      out.push([d.cellIndex, line]);
    }
  }
  if (out.length > 0) {
    return out; // (the import cell holding them is checked once they are gone)
  }
  plan.cells.forEach((c, i) => {
    const m = models[i];
    if (c.kind !== 'code' || c.source === cells[i].source || !m.tree || m.syntaxError || m.skipped) {
      return;
    }
    const line = candidateErrorLine(parser, c.source);
    if (line > 0) {
      out.push([i, line]);
    }
  });
  return out;
}

/** At most this many bytes, an array made from numbers alone costs the CPU next to nothing (`madeForHost`). */
const HOST_MADE_MAX_BYTES = 1 << 20;

/**
 * Arrays GPU cells of `plan` make from numbers alone (`freqs = np.fft.rfftfreq(n_fft, 1 / sr)`:
 * no array read) that nothing on the device reads, neither the cell itself after binding them nor
 * a later GPU cell, while later host cells copy them back, whole or in part (`freqs_host =
 * cp.asnumpy(freqs)`, `pcolormesh(t, cp.asnumpy(lat), ...)`): made on the host, where their
 * readers are, they cross nothing. Only small ones (`HOST_MADE_MAX_BYTES`: the CPU makes them in
 * microseconds; a large one made there could cost more than copying back the part host code
 * reads), bound once at the cell's top level, and not read by a notebook
 * function (which a GPU cell may run on device arrays).
 */
function madeForHost(plan: ResidencyPlan, model: NotebookModel): { cellIndex: number; name: string }[] {
  const gpu = new Set(plan.gpuCells);
  const out: { cellIndex: number; name: string }[] = [];
  for (const t of plan.transfers) {
    if (t.direction !== 'to-host' || gpu.has(t.cellIndex)) {
      continue;
    }
    const maker = model.lastWriterBefore(t.name, model.cells[t.cellIndex]);
    const root = maker?.tree?.rootNode;
    if (!maker || !root || !gpu.has(maker.index) || out.some(o => o.cellIndex === maker.index && o.name === t.name)) {
      continue;
    }
    const bindings = maker.facts!.assignments.filter(a => a.name === t.name);
    const value = bindings.length === 1 && !bindings[0].nested && !bindings[0].augmented ? bindings[0].value : null;
    const bytes = valueBytes(model.valueAfter(t.name, maker));
    if (!value || bytes === undefined || bytes > HOST_MADE_MAX_BYTES || globalReferences(root, t.name).length !== 1 || readByFunction(t.name, model)) {
      continue;
    }
    let readsArray = false;
    walk(value, n => {
      // (a module, a function or a number is no array; what the analysis cannot tell may be one)
      readsArray ||= n.type === 'identifier' && isValueIdentifier(n) && /^(ndarray|sparse|rng|unknown)$/.test(model.inferValue(n, maker).kind);
      return !readsArray;
    });
    const deviceReader = model.cells.some(c => c.index > maker.index && gpu.has(c.index) && c.facts?.inputs.has(t.name) && model.lastWriterBefore(t.name, c)?.index === maker.index);
    if (!readsArray && !deviceReader) {
      out.push({ cellIndex: maker.index, name: t.name });
    }
  }
  return out;
}

/**
 * Host cells of `plan` that copy a resident array to the host for a host consumer (the whole or
 * a part, where it is handed over) while a later host cell copies the same version whole again
 * (a host copy under another name, `zonal_host`): the first cell can make that copy at its top
 * instead, and hand its consumer the host copy (`pcolormesh(time, lat, zonal_host.T)`), so the
 * array crosses once.
 */
function copiedTwice(plan: ResidencyPlan, model: NotebookModel): { cellIndex: number; name: string }[] {
  const gpu = new Set(plan.gpuCells);
  const version = (name: string, at: number): number | undefined => model.lastWriterBefore(name, model.cells[at])?.index;
  const out: { cellIndex: number; name: string }[] = [];
  for (const t of plan.transfers) {
    if (t.direction !== 'to-host' || gpu.has(t.cellIndex) || !t.reason.startsWith('host consumer') || out.some(o => o.cellIndex === t.cellIndex && o.name === t.name)) {
      continue;
    }
    const v = version(t.name, t.cellIndex);
    const again = plan.transfers.some(
      u => u.direction === 'to-host' && u.name === t.name && u.cellIndex > t.cellIndex && !gpu.has(u.cellIndex) && !u.partial && u.reason.includes('a host copy') && version(u.name, u.cellIndex) === v
    );
    if (v !== undefined && again) {
      out.push({ cellIndex: t.cellIndex, name: t.name });
    }
  }
  return out;
}

/**
 * A GPU cell the session rule kept on the host (`sessionLoss`) although its steady figure pays:
 * what joining it with others is weighed on (`joinDeferred`).
 */
interface Deferred {
  index: number;
  /** Seconds per session: the CPU's, and the GPU's steady figure with the cell's copies. */
  cpu: number;
  gpu: number;
  /** Seconds the host version spends on copies of resident arrays (`hostVersionCost`; 0 when it makes none). */
  copyBack: number;
  /** What the cell must save per session (`MIN_SESSION_SAVING_SECONDS`; 0 when it reads resident arrays). */
  margin: number;
  /** Its first uses (apis/first-use.ts keys), less the kernels an earlier cell defined under another name. */
  keys: string[];
}

/** Cells moved to the GPU together: the group, its saving per session together, and its first uses paid once. */
interface Joined {
  group: number[];
  saving: number;
  /** The first uses the group shares, or that GPU cells of the plan make anyway, in words. */
  shared: string;
  /** The GPU cells (outside the group) that make some of those first uses anyway. */
  makers: number[];
}

/**
 * Which deferred cells (`Deferred`: kept on the host by the session rule alone) move to the GPU
 * once their first uses are charged only once per process. `paid` holds the first uses the plan's
 * GPU cells make (each key with the first GPU cell that makes it): a deferred cell charged those
 * anyway pays nothing for them, and one that then saves its margin alone is moved. The others are
 * weighed in groups linked by the first uses they share that no GPU cell pays: each member must
 * save its own margin with those shared loads free (its work, and what it alone loads, must pay:
 * the group does not carry cells of a few milliseconds each), and the group must save the sum of
 * its members' margins with them paid once. Deterministic: cells and keys in notebook order.
 */
function joinDeferred(deferred: readonly Deferred[], paid: ReadonlyMap<string, number>): Joined[] {
  const own = (d: Deferred): string[] => d.keys.filter(k => !paid.has(k));
  const loads = (keys: readonly string[]): number => firstUseCharge({ keys: [...new Set(keys)] })?.warm ?? 0;
  const work = (d: Deferred): number => d.cpu + d.copyBack - d.gpu;
  const saving = (group: readonly Deferred[]): number => group.reduce((a, d) => a + work(d), 0) - loads(group.flatMap(own));
  const makersOf = (group: readonly Deferred[]): number[] => [...new Set(group.flatMap(d => d.keys.filter(k => paid.has(k)).map(k => paid.get(k)!)))].sort((a, b) => a - b);
  const out: Joined[] = [];
  const alone = deferred.filter(d => saving([d]) >= d.margin);
  for (const d of alone) {
    out.push({ group: [d.index], saving: saving([d]), shared: firstUsesInWords(d.keys.filter(k => paid.has(k))), makers: makersOf([d]) });
  }
  // the others that pay with the loads they share with another of them free (until no more leave:
  // one leaving can leave another's loads its own)
  let rest = deferred.filter(d => !alone.includes(d));
  const sharedWith = (d: Deferred, among: readonly Deferred[]): string[] => own(d).filter(k => among.some(e => e !== d && own(e).includes(k)));
  for (let left = true; left; ) {
    const next = rest.filter(d => work(d) - loads(own(d).filter(k => !sharedWith(d, rest).includes(k))) >= d.margin && sharedWith(d, rest).length > 0);
    left = next.length < rest.length;
    rest = next;
  }
  const grouped = new Set<Deferred>();
  for (const d of rest) {
    if (grouped.has(d)) {
      continue;
    }
    const group = [d];
    for (let grew = true; grew; ) {
      grew = false;
      const keys = new Set(group.flatMap(own));
      for (const e of rest) {
        if (!group.includes(e) && own(e).some(k => keys.has(k))) {
          group.push(e);
          grew = true;
        }
      }
    }
    group.sort((x, y) => x.index - y.index);
    group.forEach(g => grouped.add(g));
    if (saving(group) < group.reduce((a, g) => a + g.margin, 0)) {
      continue;
    }
    out.push({ group: group.map(g => g.index), saving: saving(group), shared: firstUsesInWords(group.flatMap(g => sharedWith(g, group))), makers: makersOf(group) });
  }
  return out;
}

/** First uses in words: what `firstUseCharge` names, and the cupyx.scipy submodules imported. */
function firstUsesInWords(keys: readonly string[]): string {
  const imports = [...new Set(keys.filter(k => k.startsWith('submodule:scipy.')).map(k => `cupyx.${k.slice('submodule:'.length)}`))];
  const named = firstUseCharge({ keys: [...new Set(keys)].filter(k => !k.startsWith('submodule:')) })?.what ?? '';
  return [imports.length > 0 ? `the import of ${imports.join(', ')}` : '', named].filter(Boolean).join(', ');
}

/** What a GPU cell of a plan pass leaves on the device, and its work (`hostOnlyProducers`). */
interface Produced {
  cell: CellModel;
  /**
   * Its work with the first uses the walk charged it (`withFirstUses`). Null when the sizes are
   * unknown (no prediction to weigh the copies against).
   */
  work: ArrayCellAnalysis['work'] | null;
  /** The copies the walk charged it (`planPrediction`). */
  copies: Copies;
  /**
   * What it must save per session (`sessionLoss`: `MIN_SESSION_SAVING_SECONDS`, 0 when it reads
   * resident arrays) and the seconds its host version spends copying resident arrays back; null
   * when judged by steady figures (session 'warm').
   */
  session: { margin: number; copyBack: number } | null;
  /** Host arrays it moves in for good. */
  moved: string[];
  /** Names it binds or updates that stay on the device. */
  outputs: string[];
}

/**
 * The name of a hoisted definition that `d` repeats under its own name and its own parameter
 * names (two cells computing the same chain get `frac_kernel` and `frac2_kernel`, whose inputs and
 * output are named after each cell's variables): the same text once d's name, and the names made
 * from it (`<name>_kernel` of a RawKernel's launcher), read as the other's, and each text's
 * parameters renamed by position (`canonicalParameters`). Every generated kernel, fused function
 * and launcher is called with its arguments in order (and returns its outputs), so one definition
 * serves both cells.
 */
function definitionTwin(d: { name: string; text: string }, hoisted: ResidencyPlan['definitions']): string | undefined {
  const own = new RegExp(`\\b${d.name}(?=\\b|_)`, 'g');
  return hoisted.find(e => canonicalParameters(d.text.replace(own, e.name)) === canonicalParameters(e.text))?.name;
}

/**
 * `text` with the names of its parameters (an ElementwiseKernel's or ReductionKernel's declared
 * inputs and outputs, a `def`'s parameters) replaced, as whole words, by positional names in the
 * order they first appear. Two texts that read the same this way differ only in what their
 * parameters are called. Names the generators derive from a parameter with a prefix (a RawKernel's
 * `_in_u`) are left as they are: such kernels are twins only with the same parameter names.
 */
function canonicalParameters(text: string): string {
  const names = new Set<string>();
  const declared = (list: string): void => {
    for (const decl of list.split(',')) {
      const name = /(\w+)\s*$/.exec(decl.trim())?.[1];
      if (name) {
        names.add(name);
      }
    }
  };
  for (const m of text.matchAll(/(?:ElementwiseKernel|ReductionKernel)\(\s*'([^']*)',\s*'([^']*)'/g)) {
    declared(m[1]);
    declared(m[2]);
  }
  for (const m of text.matchAll(/^def \w+\(([^)]*)\)/gm)) {
    declared(m[1].replace(/=[^,]*/g, '').replace(/[*]/g, ''));
  }
  if (names.size === 0) {
    return text;
  }
  const pattern = new RegExp(`\\b(?:${[...names].join('|')})\\b`, 'g');
  const position = new Map<string, number>();
  return text.replace(pattern, name => {
    if (!position.has(name)) {
      position.set(name, position.size);
    }
    return `__parameter${position.get(name)}__`;
  });
}

/**
 * GPU cells of a pass whose device arrays (what they made, and what they moved in) no later GPU
 * cell reads as they left them, while later host cells copy them back: a setup cell whose
 * consumers all stay on the host. Charged those copies back (one per array) and the first copies
 * in, on top of the copies the walk charged them (`Produced.copies`), each that no longer pays is
 * returned with the reason it stays on the host: its steady figure under `minSpeedup`, or, judged
 * per session, what it saves in a fresh kernel (its first uses loaded) under its margin, as the
 * walk's `sessionLoss` judges a cell (a cell drawing two 80 MB arrays on the device that a host
 * loop copies back saves ~30 ms a session: GPU101/no-recurrence).
 */
function hostOnlyProducers(produced: readonly Produced[], plan: ResidencyPlan, model: NotebookModel, device: DeviceProfile, minSpeedup: number): [number, string][] {
  const gpu = new Set(plan.gpuCells);
  const out: [number, string][] = [];
  for (const { cell, work, copies, session, moved, outputs } of produced) {
    const version = (n: string, at: CellModel): number | undefined => model.lastWriterBefore(n, at)?.index;
    const later = model.cells.filter(c => c.index > cell.index && c.facts);
    const names = [...new Set([...moved, ...outputs])];
    // the version of each name this cell leaves: what it binds itself, or the one it moved in
    const same = (n: string, c: CellModel): boolean => version(n, c) === (outputs.includes(n) ? cell.index : version(n, cell));
    const onDevice = names.some(n => later.some(c => gpu.has(c.index) && c.facts!.inputs.has(n) && same(n, c)));
    const back = names.filter(n => plan.transfers.some(t => t.direction === 'to-host' && t.name === n && t.cellIndex > cell.index && !t.partial && same(n, model.cells[t.cellIndex])));
    const bytes = (ns: string[]): number => ns.reduce((a, n) => a + (copyBytes(model.valueAfter(n, cell)) ?? 0), 0);
    if (!work || onDevice || bytes(back) === 0) {
      continue;
    }
    // (moved: every array it moves in, the returning and first copies the walk charged among them)
    const toDevice = copies.in + bytes(moved);
    const toHost = copies.out + copies.consumerOut + bytes(back);
    const p = predict({ ...work, hostToDeviceBytes: toDevice, deviceToHostBytes: toHost, sparseNonZerosFromHost: 0, kernelsDefined: 0 }, device);
    const fresh = p.freshSessionSeconds ?? p.gpuSeconds;
    const perSession = session !== null && p.speedup >= minSpeedup && fresh + session.margin > p.cpuSeconds + session.copyBack;
    if (p.speedup < minSpeedup || perSession) {
      const one = back.length === 1;
      const figures = perSession
        ? `${formatSeconds(fresh)} on the GPU in a fresh kernel${p.firstUse ? ` (loading ${p.firstUse} included)` : ''} against ${formatSeconds(p.cpuSeconds)} on the CPU: ${fresh > p.cpuSeconds + session!.copyBack ? 'no saving' : `it saves under ${formatSeconds(MIN_SESSION_SAVING_SECONDS)} per session`} (${formatSpeedup(p.speedup)} re-run in the same session)`
        : `${formatSeconds(p.gpuSeconds)} against ${formatSeconds(p.cpuSeconds)} on the CPU (${formatSpeedupBelow(p.speedup, minSpeedup)})`;
      out.push([
        cell.index,
        `stays on the host: only host cells read ${back.join(', ')} after it, so a GPU version of this cell would copy ${one ? 'it' : 'them'} back ` +
          `(${formatBytes(toDevice + toHost)}${toDevice + toHost > bytes(back) ? ' with its other copies' : ''}, ${formatSeconds(p.transferSeconds)}): ${figures}`
      ]);
    }
  }
  return out;
}

/**
 * One walk over the cells: the plan with the cells of `kept` on the host (each with the reason),
 * and what each GPU cell leaves on the device.
 */
function planPass(
  cells: CellInput[],
  models: CellModel[],
  model: NotebookModel,
  parser: PythonParser,
  device: DeviceProfile,
  minSpeedup: number,
  kept: ReadonlyMap<number, string>,
  joined: ReadonlyMap<number, Joined>,
  session: 'fresh' | 'warm',
  keepOnHost: ReadonlyMap<number, ReadonlySet<string>>,
  copyOnce: ReadonlyMap<number, ReadonlySet<string>>,
  hostMade: ReadonlyMap<number, ReadonlySet<string>>,
  unsafe: { invalid: ReadonlyMap<number, number>; allBack: ReadonlyMap<number, number>; arrayRewrite: typeof analyseArrayCell }
): { plan: ResidencyPlan; produced: Produced[]; deferred: Deferred[]; paid: Map<string, number>; copiedBack: { cellIndex: number; name: string }[] } {
  const { alias: cp, importLine } = cupyAlias(model);
  const produced: Produced[] = [];

  const resident = new Set<string>();
  // host arrays with a device copy under another name beside them (`F` -> `F_gpu`: keepOnHost)
  const deviceCopies = new Map<string, string>();
  // host arrays GPU cells moved in by rebinding, and the cell that did, in order
  const movedBy: { name: string; cellIndex: number }[] = [];
  // those of them (with that cell) a later GPU cell copies back, or a view of, for a host consumer
  const consumerCopiedBack: { name: string; cellIndex: number }[] = [];
  const out: CellInput[] = cells.map(c => ({ ...c }));
  const changes: PlanChange[] = [];
  const transfers: Transfer[] = [];
  const gpuCells: number[] = [];
  const hoisted = new Set<string>();
  const definitions: ResidencyPlan['definitions'] = [];
  // arrays the plan brought back to the host after they were resident (host code changed them,
  // room on the device, an A/B cell): moving one in again is a copy of the cell that does it,
  // charged in its prediction, so a cell whose work does not pay for it stays on the host
  // rather than sending the array back and forth
  const leftDevice = new Set<string>();
  // host copies of resident arrays host cells made (`x_host = cp.asnumpy(x)`): a later host cell
  // reads the same copy while the array is unchanged, rather than copying it again
  const hostCopies = new Map<string, HostCopy>();
  // first uses the GPU cells so far made (apis/first-use.ts): a later cell finds them loaded
  const seen = new Set<string>();
  // each of them, with the first GPU cell that made it (`joinDeferred`)
  const paid = new Map<string, number>();
  // cells the session rule alone kept on the host (`joinDeferred` weighs them together)
  const deferred: Deferred[] = [];
  // (hostCopies: the copies host cells make of device arrays for their host code, in gpu, fresh
  // and cold too: what the rewrite pays for keeping those cells on the host)
  const totals = { cpu: 0, gpu: 0, fresh: 0, cold: 0, hostCopies: 0, unpriced: [] as number[] };

  for (const cell of models) {
    if (cell.kind !== 'code' || !cell.tree || !cell.facts || cell.syntaxError || cell.skipped) {
      continue;
    }
    // (the host copies valid as the cell starts: one it brings back for good reads its copy again)
    const copiesAtStart = new Map(hostCopies);
    forgetChanged(hostCopies, cell, model);
    // (a device copy of a host array this cell changes no longer holds its values: none, as
    // keepOnHostFrom picks them, but a change makes the cell copy the array in again)
    for (const name of [...deviceCopies.keys()]) {
      if (cell.facts.writes.has(name) || updatedInCell(cell.tree.rootNode, name, cell.facts.mutates, model)) {
        deviceCopies.delete(name);
      }
    }
    // an A/B cell (`%%gpuoptimize` with its own GPU version) stays as written: a host cell here
    const analysis = cell.abCell
      ? null
      : unsafe.arrayRewrite(cell, model, {
          resident,
          hoisted,
          deviceCopies,
          keepOnHost: keepOnHost.get(cell.index),
          hostMade: hostMade.get(cell.index),
          hostCopies: new Map([...hostCopies].map(([name, c]) => [name, c.twin]))
        });
    // (a rewrite an earlier pass found not to parse: the cell is a host cell, as a refused one)
    const badLine = unsafe.invalid.get(cell.index);
    const ownCompute = analysis ? analysis.numpyCompute + analysis.scipyCompute + analysis.randomCalls + analysis.arrayOperators + analysis.arrayMethods : 0;
    // a cell whose only device work is methods on resident arrays inside host consumers or
    // prints (`print(y.mean())`) is a host boundary: those methods run on the device there too
    const methodsOnly = analysis !== null && ownCompute > 0 && ownCompute === analysis.arrayMethods;
    const boundaryKeepsAll = methodsOnly && !hostBoundary(cell, model, new Set(resident), cp).computesOnHost;
    let worth = false;
    let rule: string | undefined;
    let slow: string | null = null;
    let priced: Prediction | null = null;
    let uses: string[] = [];
    let joinedWith: string | null = null;
    let unknownMoved: string | null = null;
    let unknownStays = false;
    let tooLittle: string | null = null;
    let stays: HostReason | undefined;
    // what the cell's host version pays in copies (cells reading resident arrays), and, when that
    // moves the cell, why in words
    let hostCost: HostVersionCost | null = null;
    let keptForCopies: string | null = null;
    // (what the walk charged a GPU cell, for hostOnlyProducers; and the resident set as it starts)
    let producedWork: ArrayCellAnalysis['work'] | null = null;
    let producedCopies: Copies | null = null;
    const residentAtStart = new Set(resident);
    if (analysis && analysis.applicable && badLine !== undefined) {
      slow = `stays on the host: its GPU rewrite came out as invalid Python (line ${badLine}): not applied; please report it`;
      stays = 'invalid-rewrite';
    } else if (analysis && analysis.applicable && !analysis.refusal) {
      // the data stays on the device across the plan's cells: copies are not the cell's to pay,
      // except an array another name may share: the cell copies it in, and writes it back if it
      // updates it, on every run (it never stays resident)
      const returning = [...analysis.transfers.keys()].filter(n => !analysis.hostKept.has(n) && leftDevice.has(n));
      // a host array moved in for good is the cell's to pay when no later cell reads it: nothing
      // else on the device uses the copy (`est` built by a host loop, read once here)
      const firstIn = [...analysis.transfers.keys()].filter(n => !analysis.hostKept.has(n) && !leftDevice.has(n) && !readLater(n, cell, model));
      // its first uses no earlier GPU cell made (a kernel an earlier cell defined under another
      // name is that one: `definitionTwin`)
      const cellUses = cellFirstUses(cell, model, analysis);
      uses = cellUses.keys;
      const twinKeys = new Set(analysis.definitions.filter(d => definitionTwin(d, definitions) !== undefined).map(kernelKey));
      const loaded = new Set([...seen, ...twinKeys]);
      const work = withFirstUses(cell, model, analysis, device, loaded, cellUses);
      const { copies, prediction } = planPrediction(cell, model, { ...analysis, work }, device, returning, firstIn, n => residentAtStart.has(n));
      producedWork = work;
      producedCopies = copies;
      // a cell whose sizes are unknown has no figure: judged per session, it moves only to keep
      // resident arrays it reads on the device (`unknownSizeStays`)
      const residentRead = [...cell.facts.inputs].filter(n => resident.has(n));
      worth = analysis.sizeKnown ? prediction.speedup >= minSpeedup : session === 'warm' || residentRead.length > 0;
      // a host version of a cell reading resident arrays copies what its host code reads back (and
      // a later GPU cell may move it in again): weighed against the GPU version, with the minimum
      // speedup, as its CPU time is
      hostCost = analysis.sizeKnown && residentRead.length > 0 ? hostVersionCost(cell, model, resident, cp, hostCopies, copyOnce.get(cell.index), copiesAtStart, device) : null;
      if (!worth && analysis.sizeKnown && hostCost && savedByMoving(prediction, hostCost, minSpeedup)) {
        worth = true;
        keptForCopies =
          `predicted ${formatSpeedup(prediction.speedup)} against its NumPy code alone, but on the host it would ${hostCopiesInWords(hostCost)}: ` +
          `${formatSeconds(prediction.gpuSeconds)} on the GPU against ${formatSeconds(prediction.cpuSeconds + hostCost.seconds)} there with the copies, ${formatSpeedup(hostSpeedup(prediction, hostCost))}`;
      }
      if (!analysis.sizeKnown && session === 'fresh') {
        if (worth) {
          unknownMoved = `array sizes unknown here; moved since it reads ${residentRead.join(', ')}, resident on the device, which a host version would copy back`;
        } else {
          unknownStays = true;
        }
      }
      // (prediction, with copies charged, carries the data-resident figure too)
      if (!worth && copies.in + copies.returnIn + copies.firstIn + copies.out + copies.consumerOut > 0 && (prediction.residentSpeedup ?? 0) >= minSpeedup) {
        slow = slowWithCopies(copies, prediction, minSpeedup);
        stays = 'copies';
      } else if (!worth && analysis.sizeKnown) {
        tooLittle = tooLittleWork(prediction, minSpeedup, hostCost);
      }
      if (worth && kept.has(cell.index)) {
        worth = false;
        slow = kept.get(cell.index)!;
        stays = 'copies';
      }
      const loss = worth && analysis.sizeKnown && session === 'fresh' ? sessionLoss(cell, resident, prediction, hostCost) : null;
      const join = joined.get(cell.index);
      // every member of a joined group says so (a later member, whose loads an earlier one now
      // makes, may save its margin alone in this walk: it still moved with the group)
      if (join && worth) {
        joinedWith = joinedSummary(cell.index, join);
      } else if (loss !== null && !(boundaryKeepsAll && residentRead.length > 0)) {
        // (a host boundary whose methods run on resident arrays, on the device anyway, is no cell kept on the host)
        worth = false;
        slow = loss.why;
        stays = 'per-session';
        deferred.push({ index: cell.index, cpu: prediction.cpuSeconds, gpu: prediction.gpuSeconds, copyBack: loss.copyBack, margin: loss.margin, keys: uses.filter(k => !twinKeys.has(k)) });
      }
      priced = analysis.sizeKnown ? prediction : null;
      rule = analysis.scipyCompute > 0 || analysis.sparseOps > 0 ? 'GPU102' : analysis.chains.length > 0 || analysis.stencil ? 'GPU103' : analysis.numpyCompute === 0 && analysis.randomCalls > 0 ? 'GPU104' : 'GPU101';
    } else if (analysis && analysis.applicable && analysis.refusal) {
      // refused (code CuPy lacks or the rewrite would break): it stays as written, and says why
      // with the others kept on the host
      slow = `stays on the host: ${refusalAfterStays(analysis.refusal)}`;
      stays = 'refused';
    }
    // (said only of a cell that would otherwise move)
    if (ownCompute > 0 && !boundaryKeepsAll) {
      if (unknownStays || tooLittle) {
        slow = unknownStays ? unknownSizeStays(cell, model) : tooLittle;
        stays = unknownStays ? 'unknown-size' : 'below-minimum';
      }
    }
    // device memory: what is on the device while the cell runs must fit (with room to spare)
    let evicted: string[] = [];
    // (those of them whose device copy is freed, the host array kept: keepOnHostFrom)
    const freed: string[] = [];
    let evictLines: string[] = [];
    let tooBig: string | null = null;
    if (analysis && worth && ownCompute > 0 && !boundaryKeepsAll) {
      const room = makeRoom(cell, model, new Set([...resident, ...deviceCopies.keys()]), analysis.deviceNames, analysis.hostKept, device, cp, deviceCopies);
      evicted = room.evict;
      evictLines = room.lines;
      tooBig = room.tooBig;
    }
    if (analysis && worth && ownCompute > 0 && !boundaryKeepsAll && tooBig === null) {
      let source = analysis.candidate;
      if (evicted.length > 0) {
        // back to the host at the top of the cell, after its imports, before its copies in
        const tree = parser.parse(source);
        try {
          source = applyEdits(source, [insert(prologueOrStart(tree.rootNode, source), evictLines.join('\n') + '\n')]);
        } finally {
          tree.delete?.();
        }
        for (const name of evicted) {
          leftDevice.add(name);
          if (deviceCopies.delete(name)) {
            freed.push(name); // its device copy freed: the host array is there already
            continue;
          }
          resident.delete(name);
          transfers.push({ cellIndex: cell.index, name, direction: 'to-host', reason: `makes room on the device for cell ${cell.index}` });
        }
      }
      // a kernel an earlier cell's rewrite already defined, under another name: called by that
      // name, not defined (and compiled, ~170 ms for an ElementwiseKernel) a second time
      const twins = new Map<string, string>();
      for (const def of analysis.definitions) {
        // (one that calls another this cell repeats calls the earlier one: `np_divmod`'s two)
        const d = { name: def.name, text: [...twins].reduce((t, [name, twin]) => t.replace(new RegExp(`\\b${name}\\b`, 'g'), twin), def.text) };
        const twin = definitionTwin(d, definitions);
        if (twin !== undefined) {
          twins.set(d.name, twin);
          continue;
        }
        hoisted.add(d.name);
        definitions.push({ name: d.name, cellIndex: cell.index, text: d.text });
      }
      if (twins.size > 0) {
        const tree = parser.parse(source);
        try {
          source = applyEdits(source, [...twins].flatMap(([name, twin]) => globalReferences(tree.rootNode, name).map(r => replace(r.startIndex, r.endIndex, twin))));
        } finally {
          tree.delete?.();
        }
      }
      out[cell.index] = { ...out[cell.index], source };
      gpuCells.push(cell.index);
      // host copies it binds and leaves as the array's value (`env_s_host` for a SciPy call kept
      // on the host): later host cells read them while the array stays unchanged
      for (const [name, twin] of analysis.hostTwins) {
        hostCopies.set(name, { twin, cellIndex: cell.index });
      }
      if (priced) {
        totals.cpu += priced.cpuSeconds;
        totals.gpu += priced.gpuSeconds;
        totals.fresh += priced.freshSessionSeconds ?? priced.gpuSeconds;
        totals.cold += priced.firstRunSeconds ?? priced.gpuSeconds;
      } else {
        totals.unpriced.push(cell.index);
        // its work has no figure, but what it loads first (a cupyx filter, cuFFT) is known and
        // is not a later cell's to pay: charged to the session and first-run figures
        const charge = firstUseCharge({ keys: uses }, seen, device.kernelCompileSeconds);
        totals.fresh += charge?.warm ?? 0;
        totals.cold += charge?.cold ?? 0;
      }
      for (const k of uses) {
        seen.add(k);
        if (!paid.has(k)) {
          paid.set(k, cell.index);
        }
      }
      // a host consumer's copy of a host array an earlier GPU cell moved in by rebinding, or of a
      // view of it (`pd.DataFrame({"true_beta": betas[:, 0]})`): that cell may keep the host array
      // beside its device copy instead (keepOnHostFrom), and this one hand the consumer the host
      // array's part, copying nothing back
      for (const c of analysis.hostConsumerCopies) {
        const base = viewOf(c.node);
        const by = base !== null && residentAtStart.has(base) ? movedBy.filter(m => m.name === base && m.cellIndex < cell.index).pop() : undefined;
        if (by) {
          consumerCopiedBack.push(by);
        }
      }
      const moved = [...analysis.transfers.keys()].filter(n => !analysis.hostKept.has(n));
      const copied = [...analysis.hostKept];
      // moved under a fresh name, the host array kept (keepOnHost), or by rebinding the name
      const besideHost = moved.filter(n => analysis.transfers.get(n) !== n && keepOnHost.get(cell.index)?.has(n));
      for (const name of moved) {
        const beside = besideHost.includes(name) ? `; ${name} stays a host array for the host code that reads it later, beside its device copy ${analysis.transfers.get(name)}` : '';
        transfers.push({ cellIndex: cell.index, name, direction: 'to-device', reason: `first used on the GPU in cell ${cell.index}${beside}` });
        if (beside) {
          deviceCopies.set(name, analysis.transfers.get(name)!);
        } else {
          movedBy.push({ name, cellIndex: cell.index });
        }
      }
      for (const name of copied) {
        transfers.push({ cellIndex: cell.index, name, direction: 'to-device', reason: 'copied in by this cell: another name may share its host memory, so it stays a host array' });
      }
      for (const name of analysis.writeBack) {
        transfers.push({ cellIndex: cell.index, name, direction: 'to-host', reason: 'written back into its host array in place (another name may share its memory)' });
      }
      produced.push({
        cell,
        work: analysis.sizeKnown ? producedWork : null,
        copies: producedCopies!,
        session: session === 'fresh' ? { margin: [...cell.facts.inputs].some(n => residentAtStart.has(n)) ? 0 : MIN_SESSION_SAVING_SECONDS, copyBack: hostCost?.seconds ?? 0 } : null,
        moved,
        outputs: [...analysis.deviceNames].filter(n => !analysis.hostKept.has(n) && (cell.facts!.writes.has(n) || updatedInCell(cell.tree!.rootNode, n, cell.facts!.mutates, model)))
      });
      // a name the cell binds to a host value (an array it keeps NumPy's, a number) is no longer
      // the device array an earlier cell left: a later GPU cell copies it in again
      for (const name of cell.facts.writes) {
        if (resident.has(name) && (!analysis.deviceNames.has(name) || analysis.hostKept.has(name))) {
          resident.delete(name);
          if (cell.facts.assignments.some(a => a.name === name && !a.augmented)) {
            leftDevice.delete(name); // bound to another array, which has not been on the device
          }
        }
      }
      // an array something else may share stays a host array: each GPU cell copies it in (and
      // one with a device copy beside it stays one)
      for (const name of analysis.deviceNames) {
        if (!analysis.hostKept.has(name) && !deviceCopies.has(name)) {
          resident.add(name);
          leftDevice.delete(name);
        }
      }
      const parts = [
        evicted.length > freed.length ? `first moves ${evicted.filter(n => !freed.includes(n)).join(', ')} back to the host (room on the device)` : '',
        freed.length ? `first frees the device cop${freed.length === 1 ? 'y' : 'ies'} of ${freed.join(', ')} (room on the device; the host array${freed.length === 1 ? ' stays' : 's stay'})` : '',
        moved.length > besideHost.length ? `moves ${moved.filter(n => !besideHost.includes(n)).join(', ')} to the device once` : '',
        besideHost.length
          ? `copies ${besideHost.join(', ')} to the device once as ${besideHost.map(n => analysis.transfers.get(n)).join(', ')}, for this and later GPU cells (host code reads the host array${besideHost.length === 1 ? '' : 's'} later: no copy back)`
          : '',
        copied.length ? `copies ${copied.join(', ')} in (another name may share ${copied.length === 1 ? 'its' : 'their'} memory)` : '',
        analysis.writeBack.length ? `writes ${analysis.writeBack.join(', ')} back into ${analysis.writeBack.length === 1 ? 'its host array' : 'their host arrays'} in place` : ''
      ].filter(Boolean);
      changes.push({
        cellIndex: cell.index,
        cellId: cell.id,
        rule,
        ...(analysis.randomCalls > 0 ? { randomOnDevice: true as const } : {}),
        summary: `runs on the GPU${joinedWith ? ` ${joinedWith}` : ''}${unknownMoved ? ` (${unknownMoved})` : ''}${keptForCopies ? ` (${keptForCopies})` : ''}${parts.length ? `; ${parts.join('; ')}` : ''}`
      });
      continue;
    }
    if (cell.abCell && abCellBoundary(cell, models, model, resident, leftDevice, cp, out, changes, transfers, parser)) {
      continue;
    }
    // a host cell: convert resident arrays at this boundary
    const fallbackLine = unsafe.allBack.get(cell.index);
    const boundary = hostBoundary(cell, model, resident, cp, hostCopies, copyOnce.get(cell.index), copiesAtStart, fallbackLine !== undefined);
    boundary.back.forEach(n => leftDevice.add(n));
    // (its copies in again, where a later GPU cell moves an array back in, are that cell's: `returning`)
    const copySeconds = boundary.forced.reduce((a, f) => a + f.bytes / (device.deviceToHost ?? device.hostToDevice) + device.launchOverhead, 0);
    totals.hostCopies += copySeconds;
    totals.gpu += copySeconds;
    totals.fresh += copySeconds;
    totals.cold += copySeconds;
    for (const [name, twin] of boundary.twins) {
      if (!hostCopies.has(name)) {
        hostCopies.set(name, { twin, cellIndex: cell.index });
      }
    }
    for (const name of cell.facts.writes) {
      resident.delete(name);
      if (cell.facts.assignments.some(a => a.name === name && !a.augmented)) {
        leftDevice.delete(name); // bound to another array, which has not been on the device
      }
    }
    if (boundary.edits.length > 0) {
      out[cell.index] = { ...out[cell.index], source: applyEdits(cell.source, boundary.edits) };
      transfers.push(...boundary.transfers);
    }
    const fallback = fallbackLine !== undefined && boundary.edits.length > 0 ? `its host copies of resident arrays came out as invalid Python (line ${fallbackLine}; please report it): it brings each back at its top instead` : '';
    const summary = [slow ?? tooBig ?? '', fallback, boundary.summary].filter(Boolean).join('; ');
    const why = slow !== null ? stays : tooBig !== null ? ('memory' as const) : undefined;
    if (summary) {
      changes.push({ cellIndex: cell.index, cellId: cell.id, ...(why ? { stays: why } : {}), summary });
    }
  }

  // the cupyx submodules the rewritten cells import (`import cupyx.scipy.ndimage`, which each
  // cell's own rewrite adds for itself): imported once, with CuPy, as an expert writes a notebook
  const cupyxImports = hoistCupyxImports(cells, out);
  // the CuPy import and the kernel definitions, once, in the first cell that imports something
  let definitionsCell = -1;
  if (gpuCells.length > 0 && (importLine || definitions.length > 0 || cupyxImports.length > 0)) {
    const firstUse = definitions.length > 0 ? Math.min(gpuCells[0], definitions[0].cellIndex) : gpuCells[0];
    const importsCupy = (c: CellModel): boolean => !importLine && !!c.facts?.imports.some(i => i.qualified === 'cupy' || i.qualified.startsWith('cupy.'));
    // without our import line, the definitions go where the notebook imports CuPy (if that comes first)
    const importCell = importLine
      ? models.find(c => c.facts && c.facts.imports.length > 0 && c.index <= gpuCells[0]) ?? models.find(c => c.index === gpuCells[0])
      : models.find(c => importsCupy(c) && c.index <= firstUse) ?? models.find(c => c.index === firstUse);
    if (importCell) {
      const current = out[importCell.index].source;
      const lastImport = importCell.facts?.imports.reduce((m, i) => Math.max(m, i.end), 0) ?? 0;
      // after the line holding the last import of that cell (offsets are unchanged if the cell was not rewritten)
      let at = current === importCell.source && lastImport > 0 ? lineEnd(current, lastImport) : prologueOrStart();
      if (current !== importCell.source) {
        // the cell was rewritten: after its (new) leading imports
        const tree = parser.parse(current);
        try {
          at = prologueOrStart(tree.rootNode, current);
        } finally {
          tree.delete?.();
        }
      }
      const defs = definitions.map(d => d.text.replace(/\n+$/, ''));
      const block = [...(importLine ? [importLine] : []), ...cupyxImports, ...(defs.length > 0 ? ['', defs.join('\n\n')] : [])].join('\n');
      const rest = current.slice(at);
      const text = at > 0 && current[at - 1] !== '\n' ? `\n${block}` : `${block}\n`;
      const sep = defs.length > 0 && rest.trim().length > 0 && !rest.startsWith('\n') ? '\n' : '';
      out[importCell.index] = { ...out[importCell.index], source: current.slice(0, at) + text + sep + rest };
      if (defs.length > 0) {
        definitionsCell = importCell.index;
      }
      const modules = cupyxImports.map(i => i.slice('import '.length));
      const what = [
        importLine ? `imports CuPy${modules.length > 0 ? ` and ${modules.join(', ')}` : ''}` : modules.length > 0 ? `imports ${modules.join(', ')}` : '',
        defs.length > 0 ? `defines ${definitions.map(d => d.name).join(', ')} once` : ''
      ]
        .filter(Boolean)
        .join('; ');
      const existing = changes.find(ch => ch.cellIndex === importCell.index);
      if (existing) {
        existing.summary += `; ${what}`;
      } else {
        changes.push({ cellIndex: importCell.index, cellId: importCell.id, summary: importLine && defs.length === 0 && modules.length === 0 ? `imports CuPy (${importLine})` : what });
      }
    }
  }
  changes.sort((a, b) => a.cellIndex - b.cellIndex);
  // a fresh process's first copies in cost more (apis/first-use.ts FIRST_COPY_IN_SECONDS_PER_MIB):
  // once per session, on the copies the GPU cells make of host arrays
  const inBytes = transfers.filter(t => t.direction === 'to-device').map(t => copyBytes(model.valueBefore(t.name, models[t.cellIndex], 0)) ?? 0);
  const firstCopy = firstCopyInCharge(inBytes);
  // CuPy's start-up, once per process: the import and CUDA context, and what the first statement
  // that runs a kernel pays (apis/first-use.ts `firstKernel`)
  const figures = gpuCells.length > 0 ? notebookFigures(totals, importLine ? FIRST_USE_H200.importCupy + FIRST_USE_H200.firstKernel : 0, firstCopy) : null;
  // host cells that copy back an array a GPU cell moved in by rebinding (the whole array, a part, or
  // for a host consumer), with that cell: keepOnHostFrom says whether it could keep its host array
  const gpu = new Set(gpuCells);
  const copiedBack = transfers.flatMap(t => {
    const by = movedBy.filter(m => m.name === t.name && m.cellIndex < t.cellIndex).pop();
    return t.direction === 'to-host' && !gpu.has(t.cellIndex) && by ? [by] : [];
  }).concat(consumerCopiedBack);
  return { plan: { cells: out, changes, transfers, gpuCells, definitions, definitionsCell, figures }, produced, deferred, paid, copiedBack };
}

/**
 * Why a cell the array rules would rewrite stays on the host when the sizes of its arrays are
 * unknown (data read from a file, made by code the analysis cannot size; the panel sizes them from
 * the running kernel, for its suggestions and its whole-notebook rewrite, the CLI cannot) and it
 * reads no array resident on the device. Without sizes
 * there is no figure to weigh its work against what its GPU version pays in every session (the
 * import of its cupyx submodule, its kernels' loads, copying its inputs in), and bench runs 22 and
 * 23 measured what moving such cells unjudged did: of the 16 cells of a_microscopy, b_signal and
 * e_reduce moved so, 8-9 were slower on the GPU, together 1.6 s on the CPU against 1.7-2.1 s on the
 * GPU per session (b_signal's `find_peaks`: 1 ms against 0.68-0.78 s; e_reduce cell 5: 37 ms
 * against 0.4-0.55 s). The price: cells that did win there (e_reduce's argsort, 0.6 s against 10
 * ms) stay on the host too when their data comes from a file. One that reads resident arrays
 * moves: a host version would copy them back, and what it makes from them stays on the device
 * for the next GPU cell.
 */
function unknownSizeStays(cell: CellModel, model: NotebookModel): string {
  return (
    `stays on the host: the sizes of its arrays are not known here (${unsizedSource(cell, model)}), so there is no figure that its GPU version would pay, ` +
    'and it reads no array the GPU cells before it leave on the device (in JupyterLab, the panel sizes arrays from the running kernel and judges it)'
  );
}

/** `f(a, g(b)).h(c)` -> `f(...).h(...)`: a call chain without its arguments. */
function collapseArguments(text: string): string {
  let out = '';
  let depth = 0;
  for (const ch of text) {
    if (ch === '(' || ch === '[') {
      out += depth === 0 ? (ch === '(' ? '(...' : '[...') : '';
      depth++;
    } else if (ch === ')' || ch === ']') {
      depth--;
      out += depth === 0 ? ch : '';
    } else if (depth === 0) {
      out += ch;
    }
  }
  return out;
}

/** Calls that read a file (NumPy's, pandas', imageio's, h5py's, `open`). */
const FILE_READ = /(^|\.)(load|loadtxt|genfromtxt|fromfile|memmap|read_\w+|imread|volread|open|File)$/;

/**
 * Where the first array of unknown size `cell` reads or makes comes from, in words: the call
 * that made it and whether that call reads a file (`np.load(...)`) or is one whose result the
 * analysis does not size (`rng.poisson(lam)` before it was modelled, a helper's result).
 */
function unsizedSource(cell: CellModel, model: NotebookModel): string {
  const unsized = (v: ValueInfo): boolean => v.kind === 'unknown' || (v.kind === 'ndarray' && v.size === undefined);
  const own = (cell.facts?.assignments ?? []).filter(a => !a.deleted && !a.nested);
  const candidates: { name: string; writer: CellModel | undefined }[] = [
    ...[...(cell.facts?.inputs ?? [])].filter(n => unsized(model.valueBefore(n, cell, 0))).map(name => ({ name, writer: model.lastWriterBefore(name, cell) })),
    ...own.filter(a => unsized(model.valueBefore(a.name, cell, a.at))).map(a => ({ name: a.name, writer: cell }))
  ];
  for (const { name, writer } of candidates) {
    const bound = writer?.facts?.assignments.filter(a => a.name === name && !a.deleted && (writer !== cell || own.includes(a))) ?? [];
    const last = bound[bound.length - 1];
    const expr = last ? (last.value ?? last.unpacked?.from ?? null) : null;
    if (!writer || !expr) {
      continue;
    }
    // the first call of a chain (`rng.poisson(lam).astype(...)`: rng.poisson)
    let call: SyntaxNode | null = expr.type === 'call' ? expr : null;
    for (let inner = call ? field(field(call, 'function')!, 'object') : null; inner?.type === 'call'; inner = field(field(inner, 'function')!, 'object')) {
      call = inner;
    }
    const callee = call ? (field(call, 'function')?.text ?? '') : '';
    const collapsed = collapseArguments(expr.text);
    const shown = collapsed.length > 60 ? `${collapsed.slice(0, 57)}...` : collapsed;
    const where = writer === cell ? 'here' : `cell ${writer.index}`;
    // a file read anywhere in the expression (`np.sort(np.load(path))`) is where the size is lost
    let read: SyntaxNode | null = call && FILE_READ.test(callee) ? call : null;
    walk(expr, n => {
      if (!read && n.type === 'call' && FILE_READ.test(field(n, 'function')?.text ?? '')) {
        read = n;
      }
      return !read;
    });
    if (read) {
      return `\`${name}\` is read from a file by \`${collapseArguments((read as SyntaxNode).text)}\` (${where})`;
    }
    if (expr.type === 'subscript') {
      return `\`${name}\` holds \`${shown}\` (${where}), a selection whose size its mask or index decides`;
    }
    return `\`${name}\` holds what \`${shown}\` gives (${where}), a value whose size the analysis does not model`;
  }
  return 'data read from a file, or made by code the analysis cannot size';
}

/**
 * Seconds a GPU cell of the whole-notebook rewrite must save per session over the CPU, in a fresh
 * kernel (its first uses loaded), to be moved there. Below it a cell stays on the host: bench run
 * 20 timed the same NumPy cell 10-50 ms apart from one fresh process to the next (k_audio cell 7:
 * 55 and 82 ms; cell 13: 13 and 19 ms), and the model's error on cells of milliseconds is of the
 * same order (launch, synchronisation and allocation latencies it counts only roughly), so a
 * smaller predicted saving is not one anybody could measure, while the rewrite's cost (code that
 * reads CuPy, values that match only to rounding) is real. A cell reading arrays resident on the
 * device needs no margin: there the host version pays copying them back.
 */
export const MIN_SESSION_SAVING_SECONDS = 0.05;

/**
 * Why a cell that pays in a warm process does not pay per session, or null when it does: in a
 * fresh kernel (its first uses loaded from CuPy's kernel cache, the libraries it uses set up) it
 * saves less than `MIN_SESSION_SAVING_SECONDS` over the CPU, or, when it reads arrays resident on
 * the device, costs more than the CPU and the copies its host version would make together (what
 * its host code reads of them back, and in again for a later GPU cell: `hostVersionCost`; the
 * copies for host consumers, which a GPU version makes too, left out).
 */
function sessionLoss(cell: CellModel, resident: ReadonlySet<string>, p: Prediction, hostCost: HostVersionCost | null): { why: string; copyBack: number; margin: number } | null {
  const fresh = p.freshSessionSeconds ?? p.gpuSeconds;
  const read = [...cell.facts!.inputs].filter(n => resident.has(n));
  const copyBack = hostCost?.seconds ?? 0;
  const margin = read.length > 0 ? 0 : MIN_SESSION_SAVING_SECONDS;
  if (fresh + margin <= p.cpuSeconds + copyBack) {
    return null;
  }
  const loads = fresh - p.gpuSeconds;
  const first = p.firstRunSeconds !== undefined ? `, ${formatSeconds(p.firstRunSeconds)} on a machine's first run, which compiles them` : '';
  const against = `${formatSeconds(fresh)} on the GPU in a fresh kernel against ${formatSeconds(p.cpuSeconds)} on the CPU${hostCost ? `, where it would ${hostCopiesInWords(hostCost)}` : ''}`;
  const why =
    p.firstUse && loads >= p.cpuSeconds
      ? `its ${formatSeconds(p.cpuSeconds)} on the CPU cannot pay for loading ${p.firstUse} (~${formatSeconds(loads)} per session from CuPy's kernel cache${first}): ${against}`
      : `${against}${p.firstUse ? ` (loading ${p.firstUse} included${first})` : ''}: ${fresh > p.cpuSeconds + copyBack ? 'no saving' : `it saves under ${formatSeconds(MIN_SESSION_SAVING_SECONDS)} per session`}`;
  return { why: `stays on the host: ${why} (${formatSpeedup(p.speedup)} re-run in the same session)`, copyBack, margin };
}

/**
 * A rule's refusal (written to stand alone, as `analyze` shows it) as it reads after "stays on the
 * host: " in the plan's change: what it says of the host once, not twice ("scipy.signal.filtfilt
 * is kept on the host: cupyx's ... lose accuracy" reads "scipy.signal.filtfilt: cupyx's ...";
 * "...: keep this cell on the host" is dropped, "...: keep this cell on the host, or unpack..."
 * reads "...; to move it, unpack...").
 */
export function refusalAfterStays(refusal: string): string {
  return refusal
    .replace(/^(\S+) is kept on the host: /, '$1: ')
    .replace(/[:;] keep this cell on the host, or /g, '; to move it, ')
    .replace(/,? or keep this cell on the host(?=$|;)/g, '')
    .replace(/[:;,] keep this cell on the host(?=$|;)/g, '');
}

/** What a joined cell's change says after "runs on the GPU" (`Joined`). */
function joinedSummary(index: number, j: Joined): string {
  const others = j.group.filter(i => i !== index);
  const cells = (ns: number[]): string => `cell${ns.length === 1 ? '' : 's'} ${ns.join(', ')}`;
  const makers = j.makers.filter(i => !j.group.includes(i));
  if (others.length === 0) {
    return `with ${cells(makers)}, which ${makers.length === 1 ? 'needs' : 'need'} ${j.shared} too: loaded once, this cell saves ~${formatSeconds(j.saving)} per session (alone it would not pay for the loading)`;
  }
  const two = j.group.length === 2;
  const too = makers.length > 0 ? ` (${cells(makers)} ${makers.length === 1 ? 'needs' : 'need'} some of it too)` : '';
  return `together with ${cells(others)}: ${j.shared ? `${two ? 'both' : 'all'} need ${j.shared}, loaded once${too}, and ` : ''}together they save ~${formatSeconds(j.saving)} per session, which ${two ? 'neither' : 'none of them'} does alone`;
}

/** The whole-notebook figure from the GPU cells' totals and the `import cupy` the rewrite adds. */
function notebookFigures(totals: { cpu: number; gpu: number; fresh: number; cold: number; hostCopies: number; unpriced: number[] }, importSeconds: number, firstCopySeconds = 0): NotebookFigures {
  const fresh = totals.fresh + importSeconds + firstCopySeconds;
  const extra = totals.cold - totals.fresh;
  const priced = totals.cpu > 0 || totals.gpu - totals.hostCopies > 0;
  const pays = !priced || fresh * NOT_A_SPEEDUP <= totals.cpu;
  const unpriced = totals.unpriced.length > 0 ? `; cell${totals.unpriced.length === 1 ? '' : 's'} ${totals.unpriced.join(', ')} not counted (array sizes unknown)` : '';
  const figures = priced
    ? `the cells it moves to the GPU take ~${formatSeconds(totals.cpu)} on the CPU and ~${formatSeconds(fresh)} on the GPU per session ` +
      `(${importSeconds > 0 ? `import cupy and its first kernel ~${formatSeconds(importSeconds)}, ` : ''}first uses of libraries and kernels ~${formatSeconds(totals.fresh - totals.gpu)}` +
      // (the cells it keeps on the host pay these: named from a millisecond)
      `${totals.hostCopies >= 1e-3 ? `, copies of device arrays for the host code of cells kept on the host ~${formatSeconds(totals.hostCopies)}` : ''}` +
      // (under a millisecond counted, not named: h_spectro's few KiB)
      `${firstCopySeconds >= 1e-3 ? `, a fresh process's first copies in ~${formatSeconds(firstCopySeconds)}` : ''} included; ` +
      `${formatSeconds(totals.gpu)} re-run in the same session), ${formatSpeedup(fresh > 0 ? totals.cpu / fresh : 1)}; ` +
      `this machine's first run adds ~${formatSeconds(extra)} of kernel compiles (then kept in CuPy's kernel cache)`
    : 'array sizes unknown: no figure';
  if (pays) {
    return { cpuSeconds: totals.cpu, gpuSeconds: totals.gpu, freshSessionSeconds: fresh, firstRunExtraSeconds: extra, importSeconds, unpriced: totals.unpriced, pays, summary: `${figures}${unpriced}` };
  }
  const overhead = fresh - totals.gpu;
  const saved = totals.cpu - totals.gpu;
  const why =
    totals.gpu * NOT_A_SPEEDUP <= totals.cpu
      ? `importing CuPy and loading what its cells use (~${formatSeconds(overhead)}) ${overhead >= saved ? 'costs more than' : 'takes most of what'} the GPU saves on their work (~${formatSeconds(saved)})`
      : `its GPU cells' work itself is not predicted faster on the GPU (${formatSeconds(totals.gpu)} against ${formatSeconds(totals.cpu)} on the CPU)`;
  return {
    cpuSeconds: totals.cpu,
    gpuSeconds: totals.gpu,
    freshSessionSeconds: fresh,
    firstRunExtraSeconds: extra,
    importSeconds,
    unpriced: totals.unpriced,
    pays,
    summary: `the whole-notebook rewrite is not predicted to pay for this notebook: ${why}; ${figures}${unpriced}`
  };
}

/** What a GPU cell copies on every run: arrays another name may share (never resident). */
export interface Copies {
  /** Host-kept inputs, copied in. */
  names: string[];
  /** Those updated in place, written back into their host arrays. */
  writeBack: string[];
  in: number;
  out: number;
  /** Arrays the plan brought back to the host earlier, which this cell moves in again. */
  returning: string[];
  /** Their bytes. */
  returnIn: number;
  /** Host arrays this cell moves in for good that no later cell reads (the copy serves this cell only). */
  moved: string[];
  /** Their bytes. */
  firstIn: number;
  /**
   * What the cell copies back for host code in it (`ArrayCellAnalysis.hostConsumerCopies`) that
   * its host version would not copy: values computed in the cell, or from arrays it moves in
   * (`pd.crosstab(cp.asnumpy(lab % 3), lab)`), by their text.
   */
  consumed: string[];
  /** Their bytes. */
  consumerOut: number;
}

/**
 * The bytes a GPU cell of the plan copies in (host-kept inputs) and back (written-back ones) each
 * run, moves in again (`returning`: arrays the plan brought back to the host earlier), and moves
 * in for this cell alone (`firstIn`: host arrays no later cell reads).
 */
function copiesPerRun(
  cell: CellModel,
  model: NotebookModel,
  hostKept: ReadonlySet<string>,
  writeBack: readonly string[],
  returning: readonly string[],
  firstIn: readonly string[],
  consumed: readonly { text: string; bytes: number }[]
): Copies {
  const names = [...hostKept];
  const bytesIn = (ns: readonly string[]): number => ns.reduce((a, n) => a + (copyBytes(model.valueBefore(n, cell, 0)) ?? 0), 0);
  return {
    consumed: [...new Set(consumed.map(c => c.text))],
    consumerOut: consumed.reduce((a, c) => a + c.bytes, 0),
    names,
    writeBack: [...writeBack],
    in: bytesIn(names),
    out: writeBack.reduce((a, n) => a + (copyBytes(model.valueAfter(n, cell)) ?? 0), 0),
    returning: [...returning],
    returnIn: bytesIn(returning),
    moved: [...firstIn],
    firstIn: bytesIn(firstIn)
  };
}

/**
 * May GPU cell `cell`, which moves host array `name` in, copy it in under a fresh name instead of
 * rebinding the name (`F_gpu = cp.asarray(F)`, not `F = cp.asarray(F)`), the host array staying
 * for the host cells that read it later? The plan asks this of an array a host cell would copy
 * back (`F_host = cp.asnumpy(F)`: 4x4 constants a batched filter uses and a per-track loop reads
 * again, or a data set a host loop walks): kept on the host, it needs no copy back. Only where no
 * cell from this one on binds the name or updates its array in place, through the name or through
 * anything that may share its memory (aliases.ts, conservatively: a holder the notebook cannot see
 * counts): the host array and its device copy then hold the same values for the rest of the
 * notebook, and later GPU cells read the copy (`ResidencyContext.deviceCopies`), never copying it
 * again. The price is the host memory the array keeps, which the NumPy notebook's array took.
 */
function keepOnHostFrom(name: string, cell: CellModel, model: NotebookModel): boolean {
  // (a function some cell defines that reads the name as a global looks it up when it runs: the
  // rewrite renames the device copy in the GPU cells' own code only, so such a function, called
  // with device arrays, would mix them with the host array; the name is rebound instead)
  if (model.writers(name).some(c => c.index >= cell.index) || readByFunction(name, model)) {
    return false;
  }
  const readers = model.readers(name).filter(c => c.index >= cell.index && c.facts);
  return readers.every(c => !updatedFrom(name, memorySharers(name, c, model), cell.index, model));
}

/**
 * Does a function, lambda or class some cell defines read the module-level `name` (its body, a
 * default value: looked up when it runs or is defined, wherever it is called from)?
 */
function readByFunction(name: string, model: NotebookModel): boolean {
  return model.cells.some(
    c => c.tree && c.facts?.reads.has(name) && globalReferences(c.tree.rootNode, name).some(r => insideScope(r))
  );
}

/**
 * Does a later cell read `name` as this cell leaves it (the first later cell that reads or binds
 * it reads it)? Then a copy this cell moves in for good serves that cell too.
 */
function readLater(name: string, cell: CellModel, model: NotebookModel): boolean {
  const next = [...model.readers(name), ...model.writers(name)].filter(c => c.index > cell.index).sort((a, b) => a.index - b.index)[0];
  return next?.facts?.inputs.has(name) ?? false;
}

/**
 * The host arrays the whole-notebook rewrite would move in for `cell` alone, judged without the
 * plan's walk (for the per-cell suggestion's whole-notebook figure, `arrayPrediction`): those the
 * cell copies in for good (not `hostKept`) that no later cell reads and that are not resident
 * when it runs (`residentBefore`), the plan's `firstIn` (and `returning`: an array a host cell
 * changed is moved in again, the same copy).
 */
export function firstCopiesIn(cell: CellModel, model: NotebookModel, analysis: Pick<ArrayCellAnalysis, 'transfers' | 'hostKept'>): string[] {
  return [...analysis.transfers.keys()].filter(n => !analysis.hostKept.has(n) && !readLater(n, cell, model) && !residentBefore(n, cell, model));
}

/**
 * Is `name` on the device when `cell` runs in the whole-notebook rewrite, as the plan's walk
 * leaves it: an earlier cell the array rules rewrite holds it on the device (made there or moved
 * in), and no host cell since binds or updates it (which brings it back). A rewritten cell the
 * plan keeps on the host for its own figures is taken as a GPU cell here.
 */
function residentBefore(name: string, cell: CellModel, model: NotebookModel): boolean {
  const earlier = [...new Set([...model.readers(name), ...model.writers(name)])].filter(c => c.index < cell.index).sort((a, b) => a.index - b.index);
  let resident = false;
  for (const c of earlier) {
    const analysis = c.abCell ? null : analyseArrayCell(c, model);
    if (analysis && analysis.applicable && !analysis.refusal && analysis.deviceNames.has(name) && !analysis.hostKept.has(name)) {
      resident = true;
    } else if (c.facts?.writes.has(name) || c.facts?.mutates.has(name)) {
      resident = false;
    }
  }
  return resident;
}

/**
 * A GPU cell's prediction inside the whole-notebook rewrite: its data on the device, except the
 * arrays another name may share, which it copies in (and writes back) on every run, those the
 * plan brought back to the host earlier, which it moves in again, host arrays it moves in
 * that no later cell reads (`firstIn`: the first copy in is this cell's alone to pay), and the
 * copies back for host code in the cell of values its host version has on the host already
 * (`consumerCopiesCharged`: what it computes, `pd.crosstab(cp.asnumpy(lab % 3), lab)`).
 * `residentAtStart`: is a name on the device, as the plan's walk leaves it, when the cell starts?
 */
export function planPrediction(
  cell: CellModel,
  model: NotebookModel,
  analysis: Pick<ArrayCellAnalysis, 'work' | 'hostKept' | 'writeBack' | 'hostConsumerCopies'>,
  device: DeviceProfile,
  returning: readonly string[] = [],
  firstIn: readonly string[] = [],
  residentAtStart: (name: string) => boolean = name => residentBefore(name, cell, model)
): { copies: Copies; prediction: Prediction } {
  const consumed = consumerCopiesCharged(cell, model, analysis.hostConsumerCopies, residentAtStart);
  const copies = copiesPerRun(cell, model, analysis.hostKept, analysis.writeBack, returning, firstIn, consumed);
  const toDevice = copies.in + copies.returnIn + copies.firstIn;
  const toHost = copies.out + copies.consumerOut;
  const prediction =
    toDevice + toHost > 0
      ? predict({ ...analysis.work, hostToDeviceBytes: toDevice, deviceToHostBytes: toHost, sparseNonZerosFromHost: 0, kernelsDefined: 0 }, device)
      : predictResident(analysis.work, device);
  return { copies, prediction };
}

/**
 * The copies back for host code in a GPU cell (`ArrayCellAnalysis.hostConsumerCopies`) that the
 * cell's host version would not make: each reading a value the cell computes or an array it moves
 * in, so on the host it would be a host value already (`pd.crosstab(cp.asnumpy(lab % 3), lab)`,
 * `lab` a host array: the host version computes `lab % 3` on the host, and copies nothing). A copy
 * of arrays resident when the cell starts that the cell leaves as they are (`plt.plot(cp.asnumpy(y))`,
 * `y` made by an earlier GPU cell) is made by either version (hostBoundary's), and is not charged.
 */
function consumerCopiesCharged(
  cell: CellModel,
  model: NotebookModel,
  copies: readonly { text: string; reads: readonly string[]; bytes: number }[],
  residentAtStart: (name: string) => boolean
): { text: string; bytes: number }[] {
  const root = cell.tree?.rootNode;
  const facts = cell.facts;
  if (!root || !facts) {
    return [];
  }
  const known = new Map<string, boolean>();
  const unchangedResident = (n: string): boolean => {
    if (!known.has(n)) {
      known.set(n, residentAtStart(n) && !facts.writes.has(n) && !updatedInCell(root, n, facts.mutates, model));
    }
    return known.get(n)!;
  };
  return copies.filter(c => c.reads.length === 0 || !c.reads.every(unchangedResident));
}

/**
 * Why a cell whose GPU version is predicted below `minSpeedup` even with its data on the device
 * stays on the host: too little work for a launch to pay, or work the GPU does not do much faster
 * (said only of a cell that would otherwise move: `ownCompute`).
 */
function tooLittleWork(p: Prediction, minSpeedup: number, hostCost: HostVersionCost | null = null): string {
  // with copies charged, the figure with the data on the device (which is below the minimum too)
  const speedup = Math.max(p.speedup, p.residentSpeedup ?? 0);
  const gpu = speedup > 0 ? p.cpuSeconds / speedup : p.gpuSeconds;
  // (its copies back, which the host version pays, counted too: still under the minimum)
  const withCopies = hostCost ? hostSpeedup(p, hostCost) : 0;
  const copies = hostCost
    ? `; on the host it would also ${hostCopiesInWords(hostCost)}: ${formatSeconds(p.cpuSeconds + hostCost.seconds)} against ${formatSeconds(p.gpuSeconds)} on the GPU${p.transferSeconds > 0 ? ' with its own copies' : ''}, ${formatSpeedupBelow(withCopies, minSpeedup)}`
    : '';
  const under =
    hostCost && withCopies >= minSpeedup
      ? `, a saving under the ${formatSeconds(MIN_COPY_SAVING_SECONDS)} a run that moving a cell for its copies must make`
      : `, under the ${formatSpeedup(minSpeedup)} a GPU cell must reach`;
  // (most of the GPU figure host draws, which stay NumPy's: said, with why, as moving them would
  // change the cell's numbers; p_finance cell 13, ~600 ms of its ~675 ms drawing Zs from a seeded rng)
  const draws =
    (p.hostDrawSeconds ?? 0) >= 0.5 * gpu
      ? `; ~${formatSeconds(p.hostDrawSeconds!)} of its GPU figure is drawing random numbers on the host: they come from a NumPy Generator made in another cell, seeded or drawn from later, whose draws stay NumPy's so that they and everything computed from them match the original's (cuRAND's would match only statistically)`
      : '';
  return `stays on the host: predicted ${formatSpeedupBelow(speedup, minSpeedup)} on the GPU (${formatSeconds(p.cpuSeconds)} on the CPU, ~${formatSeconds(gpu)} there)${copies}${under}${draws}`;
}

/**
 * Least seconds per run a cell under the minimum speedup must save, its host version's copies
 * counted (`HostVersionCost`), to be moved to the GPU for them: below it the copies are a few
 * launches of small arrays (a cell setting entries of 2x2 constants through views, whose copies
 * back and in again take ~80 us), under the model's error on such figures (launch,
 * synchronisation and allocation latencies it counts only roughly), while the rewrite of host code
 * written for NumPy is a real risk; well above it (h_spectro cell 14: 66 MB of `corrected` back,
 * ~22 ms, for 17 us of band integrals) the GPU version is plainly cheaper.
 */
const MIN_COPY_SAVING_SECONDS = 1e-3;

/** Does the GPU version beat the host version with its copies by `minSpeedup`, saving at least `MIN_COPY_SAVING_SECONDS`? */
function savedByMoving(p: Prediction, hostCost: HostVersionCost, minSpeedup: number): boolean {
  const host = p.cpuSeconds + hostCost.seconds;
  return host >= minSpeedup * p.gpuSeconds && host - p.gpuSeconds >= MIN_COPY_SAVING_SECONDS;
}

/** The GPU version's speedup over the cell's host version with the copies it pays (`HostVersionCost`). */
function hostSpeedup(p: Prediction, hostCost: HostVersionCost): number {
  return p.gpuSeconds > 0 ? (p.cpuSeconds + hostCost.seconds) / p.gpuSeconds : Infinity;
}

/** Why a cell that would pay with its data resident does not with the copies it makes. */
function slowWithCopies(copies: Copies, p: Prediction, minSpeedup: number): string {
  const list = (names: string[]): string => names.join(', ');
  const figures = `(${formatBytes(copies.in + copies.returnIn + copies.firstIn + copies.out + copies.consumerOut)}, ${formatSeconds(p.transferSeconds)})`;
  // each clause says what is copied; the total goes with the last one
  const why: string[] = [];
  if (copies.names.length > 0) {
    const one = copies.names.length === 1;
    const moved = copies.writeBack.length > 0 ? `copying ${list(copies.names)} in and writing ${list(copies.writeBack)} back` : `copying ${list(copies.names)} in`;
    why.push(`another name may share the memory of ${list(copies.names)}, so ${one ? 'it stays a host array' : 'they stay host arrays'} and a GPU version of this cell would pay ${moved}%F on every run`);
  }
  if (copies.returning.length > 0) {
    const one = copies.returning.length === 1;
    why.push(`${list(copies.returning)} ${one ? 'was' : 'were'} brought back to the host by an earlier cell, and a GPU version of this cell would move ${one ? 'it' : 'them'} to the device again%F`);
  }
  if (copies.moved.length > 0) {
    const one = copies.moved.length === 1;
    why.push(`${list(copies.moved)} ${one ? 'is a host array' : 'are host arrays'} no later cell reads, so a GPU version of this cell would copy ${one ? 'it' : 'them'} in for its own work%F`);
  }
  if (copies.consumed.length > 0) {
    const one = copies.consumed.length === 1;
    why.push(`host code in this cell reads ${list(copies.consumed.map(t => `\`${t}\``))}, which a GPU version would compute on the device and copy back (the host version has ${one ? 'it' : 'them'} on the host)%F`);
  }
  const text = why.map((w, k) => w.replace('%F', k === why.length - 1 ? ` ${figures}` : '')).join('; ');
  return `stays on the host: ${text}: ${formatSeconds(p.gpuSeconds)} against ${formatSeconds(p.cpuSeconds)} on the CPU (${formatSpeedupBelow(p.speedup, minSpeedup)})`;
}

/**
 * The distinct arrays behind `names` on the device while `cell` runs: names that hold the same
 * memory (`v = x`, a basic slice or `.T` of it; confirmed by aliases.ts's memorySharers for
 * sharing made before the cell) are one array, counted once at its largest member's size (a view
 * adds no bytes). Names that cannot be proven to share stay apart: a name the cell rebinds to a new
 * array, one it copies in under a fresh device name (`hostKept`: each gets its own device copy),
 * a fancy index or a method that may copy.
 */
function distinctArrays(
  cell: CellModel,
  model: NotebookModel,
  names: ReadonlySet<string>,
  hostKept: ReadonlySet<string>,
  bytesOf: (name: string) => number
): { names: string[]; bytes: number; root: string; same: boolean }[] {
  const facts = cell.facts!;
  /** Names bound to another name itself (`v = x`, not a view): the same array object. */
  const same = new Map<string, string>();
  const parent = new Map<string, string>([...names].map(n => [n, n]));
  const find = (n: string): string => {
    let r = n;
    while (parent.get(r) !== r) {
      r = parent.get(r)!;
    }
    return r;
  };
  const union = (a: string, b: string): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) {
      parent.set(rb, ra);
    }
  };
  // `x = ...` (not `x += ...`) in the cell binds a new array: its memory before and after differ
  const rebound = (n: string): boolean => (facts.writes.has(n) && !facts.assignments.some(a => a.name === n && a.augmented)) || facts.assignments.some(a => a.name === n && !a.augmented);
  const candidate = (n: string): boolean => names.has(n) && !hostKept.has(n);
  for (const holder of names) {
    if (!candidate(holder)) {
      continue;
    }
    const mine = facts.assignments.filter(a => a.name === holder);
    if (!rebound(holder)) {
      // shared before the cell: the holder's reaching binding made it a view of another name
      const writer = model.writers(holder).filter(c => c.index < cell.index).sort((a, b) => b.index - a.index)[0];
      const own = (writer?.facts?.assignments ?? []).filter(a => a.name === holder);
      const last = own[own.length - 1];
      const base = last && !last.augmented && !last.nested && !last.deleted ? viewOf(last.value) : null;
      if (base && base !== holder && candidate(base) && !rebound(base) && memorySharers(holder, cell, model).some(s => s.name === base)) {
        union(base, holder);
        if (last.value && unparen(last.value).type === 'identifier') {
          same.set(holder, base);
        }
      }
      continue;
    }
    // made in the cell by its one binding there, a view of a name the cell does not rebind
    if (mine.length !== 1 || mine[0].augmented || mine[0].nested || mine[0].deleted) {
      continue;
    }
    const base = viewOf(mine[0].value);
    // the base's own bindings in the cell, if any, all before this one: the holder gets its last array
    const settled = (b: string): boolean => !rebound(b) || facts.assignments.filter(a => a.name === b).every(a => !a.nested && !a.deleted && a.at <= mine[0].statement.startIndex);
    if (base && base !== holder && candidate(base) && settled(base)) {
      union(base, holder);
      if (mine[0].value && unparen(mine[0].value).type === 'identifier') {
        same.set(holder, base);
      }
    }
  }
  const groups = new Map<string, string[]>();
  for (const n of names) {
    const r = find(n);
    groups.set(r, [...(groups.get(r) ?? []), n]);
  }
  return [...groups.entries()].map(([root, g]) => ({
    names: [root, ...g.filter(n => n !== root).sort()],
    bytes: Math.max(...g.map(bytesOf)),
    root,
    // every other name is bound to the root (or to one bound to it) itself: one object
    same: g.every(n => n === root || same.has(n))
  }));
}

/** The name an expression is, or is a view of without a copy: `x`, `x[1:-1, 0]`, `x.T`, `(x)`. */
function viewOf(value: SyntaxNode | null): string | null {
  let v = value;
  while (v) {
    if (v.type === 'identifier') {
      return v.text;
    }
    if (v.type === 'parenthesized_expression' && v.namedChildCount === 1) {
      v = v.namedChild(0);
    } else if (v.type === 'attribute' && field(v, 'attribute')?.text === 'T') {
      v = field(v, 'object');
    } else if (v.type === 'subscript') {
      // basic indexing only: slices, integer literals, `...` (fancy indexing copies)
      const base = field(v, 'value');
      const index = kids(v).filter(k => k.id !== base?.id && k.type !== 'comment');
      if (index.length === 0 || !index.every(k => basicIndex(k))) {
        return null;
      }
      v = base;
    } else {
      return null;
    }
  }
  return null;
}

/**
 * A basic index (NumPy and CuPy give a view for it, no copy): integers, slices of them, `...`,
 * `None`, tuples of those; `integer` says which names hold Python ints (none, unless given).
 */
function basicIndex(k: SyntaxNode, integer: (name: SyntaxNode) => boolean = () => false): boolean {
  switch (k.type) {
    case 'ellipsis':
    case 'none':
      return true;
    case 'slice':
      return kids(k).every(b => integerExpression(b, integer));
    case 'tuple':
    case 'expression_list':
      return kids(k).every(b => basicIndex(b, integer));
    default:
      return integerExpression(k, integer);
  }
}

/** Integer arithmetic (`+ - * // %`) on integer literals and names `integer` accepts. */
function integerExpression(k: SyntaxNode, integer: (name: SyntaxNode) => boolean): boolean {
  switch (k.type) {
    case 'integer':
      return true;
    case 'identifier':
      return integer(k);
    case 'unary_operator': {
      const a = field(k, 'argument');
      return !!a && integerExpression(a, integer);
    }
    case 'binary_operator': {
      const [l, r] = [field(k, 'left'), field(k, 'right')];
      return ['+', '-', '*', '//', '%'].includes(field(k, 'operator')?.type ?? '') && !!l && !!r && integerExpression(l, integer) && integerExpression(r, integer);
    }
    case 'parenthesized_expression':
      return k.namedChildCount === 1 && integerExpression(k.namedChild(0)!, integer);
    default:
      return false;
  }
}

/**
 * What must leave the device before `cell` runs there: the largest resident arrays the cell does
 * not use, until what stays plus the cell's own arrays fits in `DEVICE_MEMORY_SHARE` of the device's
 * memory; `tooBig`, the reason the cell stays on the host, when its own arrays alone do not fit.
 * Memory is counted per distinct array (`distinctArrays`: aliases and views once); an array goes
 * back with every resident name holding it. Sizes unknown to the model are not counted.
 */
function makeRoom(
  cell: CellModel,
  model: NotebookModel,
  resident: ReadonlySet<string>,
  cellNames: ReadonlySet<string>,
  hostKept: ReadonlySet<string>,
  device: DeviceProfile,
  cp: string,
  deviceCopies: ReadonlyMap<string, string> = new Map()
): { evict: string[]; lines: string[]; tooBig: string | null } {
  const bytesOf = (name: string): number => Math.max(valueBytes(model.valueBefore(name, cell, 0)) ?? 0, valueBytes(model.valueAfter(name, cell)) ?? 0);
  const arrays = distinctArrays(cell, model, new Set([...cellNames, ...resident]), hostKept, bytesOf);
  const ownArrays = arrays.filter(a => a.names.some(n => cellNames.has(n)));
  const own = ownArrays.reduce((a, o) => a + o.bytes, 0);
  const others = arrays.filter(a => !ownArrays.includes(a));
  let total = own + others.reduce((a, o) => a + o.bytes, 0);
  if (fitsOnDevice(total, device)) {
    return { evict: [], lines: [], tooBig: null };
  }
  // an array several names hold goes back only if they are one object (`v = x`): the first
  // name's copy, rebound to the others; views of it cannot follow (they would become copies)
  // nor one a function some cell defines reads as a global (`def f(a): return a * x`): a later
  // call would find it gone (its device copy freed) or on the host beside device arguments
  const views = others.filter(o => o.names.length > 1 && !o.same);
  const readByFunctions = others.filter(o => !views.includes(o) && o.names.some(n => readByFunction(n, model)));
  const pinned = [...views, ...readByFunctions];
  const pinnedBytes = pinned.reduce((a, o) => a + o.bytes, 0);
  if (!fitsOnDevice(own + pinnedBytes, device)) {
    const shared = views.map(o => o.names.join(', ')).join('; ');
    const read = readByFunctions.map(o => o.names.join(', ')).join(', ');
    const bytesOfAll = (os: typeof others): string => formatBytes(os.reduce((a, o) => a + o.bytes, 0));
    const held = [
      ...(views.length > 0 ? [`the resident ${shared} (${bytesOfAll(views)}, views of one array, which cannot go back to the host apart)`] : []),
      ...(readByFunctions.length > 0 ? [`the resident ${read} (${bytesOfAll(readByFunctions)}, read by a notebook function as a global, which stays on the device)`] : [])
    ];
    const what = pinned.length === 0 || !fitsOnDevice(own, device)
      ? `its arrays (${formatBytes(own)})`
      : `its arrays (${formatBytes(own)}) and ${held.join(' and ')}`;
    return {
      evict: [],
      lines: [],
      tooBig: `stays on the host: ${what} do not fit in ${Math.round(DEVICE_MEMORY_SHARE * 100)}% of the device's ${formatBytes(device.memoryBytes)} (room kept for CuPy's memory pool, temporaries and library workspaces)`
    };
  }
  const evict: string[] = [];
  const lines: string[] = [];
  for (const o of others.filter(a => !pinned.includes(a)).sort((a, b) => b.bytes - a.bytes || a.names[0].localeCompare(b.names[0]))) {
    if (fitsOnDevice(total, device)) {
      break;
    }
    evict.push(...o.names);
    // a host array with a device copy beside it (keepOnHostFrom) frees the copy: nothing to copy back
    const copy = deviceCopies.get(o.root);
    lines.push(
      copy !== undefined ? `del ${copy}  # makes room on the device (${o.root} is on the host too)` : `${o.root} = ${cp}.asnumpy(${o.root})  # makes room on the device`,
      ...o.names.filter(n => n !== o.root).map(n => `${n} = ${o.root}  # the same array`)
    );
    total -= o.bytes;
  }
  return { evict, lines, tooBig: null };
}

/** How a host cell meets device-resident arrays. */
function hostBoundary(
  cell: CellModel,
  model: NotebookModel,
  resident: Set<string>,
  cp: string,
  hostCopies: ReadonlyMap<string, HostCopy> = new Map(),
  copyOnce: ReadonlySet<string> = new Set(),
  copiesAtStart: ReadonlyMap<string, HostCopy> = hostCopies,
  bringAllBack = false
): { edits: TextEdit[]; transfers: Transfer[]; summary: string; computesOnHost: boolean; back: string[]; twins: Map<string, string>; forced: ForcedCopy[] } {
  const edits: TextEdit[] = [];
  const moved: Transfer[] = [];
  const root = cell.tree!.rootNode;
  const facts = cell.facts!;
  // (a resident array a notebook function defined in another cell reads as a global, called here
  // on the host, `w = f(v)` with `def f(a): return a * x`, comes back for good at the top: the
  // function would mix the device array with host values)
  // (also one the cell reads itself, where only a consumer that takes it as it is sees it:
  // `print(f(v), x)`)
  const calledReads = globalsReadByCalledFunctions(root, cell, model).filter(n => resident.has(n));
  // (a function the cell defines and does not run, nor hand to anything, reads its globals when a
  // later cell calls it, which then brings them back: `def f(a): return a * x` alone needs no copy)
  // (its default arguments' values are read here, where it is defined: `lambda x, F=F: x @ F`
  // keeps the array F holds now, which must be the host array a host cell's function computes
  // with: cupy-rewrite.ts defaultCaptures keeps the cells calling it on the host)
  const idle = idleFunctions(root);
  const runsHere = (r: SyntaxNode): boolean => !idle.some(d => isInside(r, d) && !inParameterDefault(r, functionOf(d)));
  const used = [...new Set([...facts.inputs, ...calledReads])].filter(n => resident.has(n) && (calledReads.includes(n) || globalReferences(root, n).some(runsHere)));
  /** Names read on the host through a copy under another name (`x_host`), and that name. */
  const twins = new Map<string, string>();
  if (used.length === 0) {
    return { edits, transfers: moved, summary: '', computesOnHost: false, back: [], twins, forced: [] };
  }
  /** Host copies made only for host consumers (a GPU version of the cell hands them copies too). */
  const forConsumers = new Set<string>();
  // what each host consumer receives (hostArgumentNeed): a copy, or the value as it is; an
  // argument that would carry device arrays into host code (a lambda reading `x`) is left out
  // here, so the names it reads come back to the host instead
  // (one that computes with host arrays as well, `vpick[(t0s / dt).astype(int)]`,
  // `np.interp(t0s, t, vpick)`, is host code too: NumPy's indexing takes no CuPy index, and a
  // NumPy function of CuPy and NumPy arrays is a TypeError; the resident names it reads come to
  // the host as copies, `t0s_host`, and the expression stays as written)
  const classified = collectHostConsumerArgs(root, model, cell, new Set(used))
    .map(arg => ({ arg, v: model.inferValue(arg, cell) }))
    .map(a => ({ ...a, need: readsHostArray(a.arg, resident, model, cell) ? ('host' as const) : hostArgumentNeed(a.arg, a.v, model, cell) }));
  const hostArgs = classified.filter(a => a.need !== 'host');
  const insideHostCode = (r: SyntaxNode): boolean => classified.some(a => a.need === 'host' && isInside(r, a.arg));
  const wrapped: string[] = [];
  const back: string[] = [];
  /** Parts of resident arrays read on the host, each copied where it is read (`cp.asnumpy(X[:, :8])`). */
  const parts: { name: string; expr: SyntaxNode }[] = [];
  /** Whether host code computes with a resident array (not only shows it or hands it to a consumer). */
  let computesOnHost = false;
  for (const name of used) {
    const refs = globalReferences(root, name).filter(runsHere);
    // a use that lets another name keep the array (`lst.append(y)`, `pd.DataFrame(y)`, `v = y`)
    // would keep a host copy, told apart from the device array once either is updated in place:
    // the array comes back to the host instead (aliases.ts)
    // (a call to a function of the notebook that keeps none of its arguments only reads the
    // array: a host copy handed to it does what the array did, and the array stays resident)
    const escapes = refs.flatMap(r => {
      const e = escapingUse(r, model);
      return e === null || (e.kind === 'call' && keepsNoArgument(r, e.holders[0], model)) ? [] : [e];
    });
    const holders = [name, ...escapes.flatMap(e => (e.named ? e.holders : []))];
    // (bringAllBack: the cell's rewrite with copies where it reads did not parse, rewriteNotebook)
    const kept =
      bringAllBack ||
      calledReads.includes(name) ||
      (escapes.length > 0 &&
        (escapes.some(e => !e.named) || updatedInPlaceFrom(holders, cell.index, model)));
    // what NumPy gives as a Python number (np.allclose's bool) comes back as one at the first host
    // cell that reads it: a 0-d device array would compute as a strong scalar (NEP 50) later on
    const pythonScalar = boundToPythonScalar(name, 0, cell, model);
    // (a host consumer's argument taken as it is, `list(range(k[3]))`, holds no host read but in
    // range's own arguments, which take Python integers: insideIndexArgument)
    const hostReads = refs.filter(r => insideHostCode(r) || !((hostArgs.some(a => isInside(r, a.arg)) && !insideIndexArgument(r, model)) || deviceUse(r, model, cell).safe));
    // a host copy of this version of the array that an earlier host cell made (`x_host`) is read
    // again rather than copied anew
    const earlier = hostCopies.get(name)?.twin;
    const unchanged = !facts.writes.has(name) && !updatedInCell(root, name, facts.mutates, model) && refs.every(r => !insideScope(r) && !inSelfDocumentingField(r));
    if (!kept && !pythonScalar && hostReads.length === 0) {
      // only handed to host consumers: each gets a copy where it is handed over, except in a
      // loop (`curve_fit(f, wn[sl], T[i, sl])` 450 times: one copy per call, each waiting for
      // the GPU), where the whole array is copied once at the top and the loop indexes that, and
      // where a later host cell copies it whole again (`copyOnce`: that cell reads this copy)
      // (and where two or more consumers read it and one of them takes all of it, `np.save(f, R)`
      // beside `plt.hist(R.ravel())`: one copy of the whole array serves them all)
      const consumed = hostArgs.filter(a => a.need === 'copy' && globalReferences(a.arg, name).length > 0);
      const sharedWhole = consumed.length >= 2 && consumed.some(a => readsWhole(a.arg, name));
      if (consumed.length > 0 && unchanged && !isZeroD(model.valueBefore(name, cell, 0)) && (earlier !== undefined || copyOnce.has(name) || sharedWhole || consumed.some(a => inLoop(a.arg)))) {
        twins.set(name, earlier ?? freshNotebookName(`${name}_host`, model));
        forConsumers.add(name);
      }
      continue;
    }
    // host code that only reads the array gets a host copy of what it reads, and the device array
    // stays for later GPU cells (the same values: nothing here changes it); one that writes it,
    // updates it in place, or reads it from a function or lambda (which may run after a later
    // cell changed it) brings it back for good, and so does a 0-d value (NumPy's scalar from here
    // on, as small as a copy of it) and one an f-string shows with its text (`{x[0]=}`: a copy's
    // text would show)
    const readOnly = !kept && !pythonScalar && !isZeroD(model.valueBefore(name, cell, 0)) && unchanged;
    if (!readOnly) {
      back.push(name);
      computesOnHost = true;
      continue;
    }
    // a part read once (`X[:, :8]`, `x[i]`, `x.copy()`: `cp.asnumpy(x)` is that new array) is
    // copied where it is read; the whole array, or one read in a loop, is copied once, at the
    // top, under a host name later host cells read again while the array stays unchanged
    const shown = hostReads.map(r => deviceUse(r, model, cell).shown);
    const reads = hostReads.map((r, k) => shown[k] ?? copyCall(r) ?? hostReadExpression(r, resident, model, cell));
    computesOnHost ||= shown.some(e => e === null);
    const whole = reads.filter((e, k) => e?.id === hostReads[k].id).length;
    if (earlier === undefined && whole === 0 && reads.every(e => e !== null && !inLoop(e))) {
      parts.push(...reads.map(expr => ({ name, expr: expr! })));
    } else {
      twins.set(name, earlier ?? freshNotebookName(`${name}_host`, model));
    }
  }
  // one an earlier host cell copied (`lab_host = cp.asnumpy(lab)`), unchanged since, takes that
  // copy as its host value (`lab = lab_host`): nothing crosses again. The copy is read as a twin
  // no more after this cell (the name is a host array from here on), so the two names sharing one
  // array is what the original notebook has too.
  const backFromCopy = new Map<string, HostCopy>();
  for (const name of back) {
    resident.delete(name);
    const c = copiesAtStart.get(name);
    if (c) {
      backFromCopy.set(name, c);
    } else {
      moved.push({ cellIndex: cell.index, name, direction: 'to-host', reason: 'computed with on the host in this cell' });
    }
  }
  const top: string[] = [];
  if (back.length > 0) {
    // each as the GPU cell that last bound it left it (a 0-d result as NumPy's scalar or Python number)
    top.push(...back.map(n => (backFromCopy.has(n) ? `${n} = ${backFromCopy.get(n)!.twin}` : hostCopyLine(n, model.lastWriterBefore(n, cell) ?? cell, model, cp))));
  }
  const reused = [...twins].filter(([name]) => hostCopies.has(name));
  for (const [name, twin] of twins) {
    // the same copy under the host name (`x_host = cp.asnumpy(x)`), which every reference here
    // reads; made once per version of the array (an earlier host cell's is read again)
    edits.push(...globalReferences(root, name).map(r => replace(r.startIndex, r.endIndex, twin)));
    if (!hostCopies.has(name)) {
      top.push(twin + hostCopyLine(name, model.lastWriterBefore(name, cell) ?? cell, model, cp).slice(name.length));
      moved.push({ cellIndex: cell.index, name, direction: 'to-host', reason: `computed with on the host in this cell: a host copy, ${twin}; the device array stays` });
    }
  }
  if (top.length > 0) {
    edits.push(insert(prologueOrStart(root, cell.source), top.join('\n') + '\n'));
  }
  for (const { name, expr } of parts) {
    edits.push(...(expr.type === 'call' && copyCall(field(field(expr, 'function')!, 'object')!)?.id === expr.id ? [replace(expr.startIndex, expr.endIndex, `${cp}.asnumpy(${name})`)] : hostCopyOf(expr, model, cell, cp)));
    moved.push({ cellIndex: cell.index, name, direction: 'to-host', reason: `read on the host: a copy of ${expr.text}`, partial: true });
  }
  const stillResident = new Set(used.filter(n => !back.includes(n) && !twins.has(n)));
  for (const { arg, v, need } of hostArgs) {
    const names = used.filter(n => stillResident.has(n) && globalReferences(arg, n).length > 0);
    if (names.length === 0 || need !== 'copy') {
      continue;
    }
    edits.push(...hostCopyAround(arg, v, cp, model, cell));
    wrapped.push(...names);
    for (const n of names) {
      moved.push({ cellIndex: cell.index, name: n, direction: 'to-host', reason: `host consumer: ${arg.parent?.parent?.type === 'call' ? field(arg.parent.parent, 'function')?.text ?? 'call' : 'call'}` });
    }
  }
  const summary: string[] = [];
  if (wrapped.length > 0) {
    summary.push(`host copies of ${[...new Set(wrapped)].join(', ')} for host consumers`);
  }
  if (parts.length > 0) {
    const names = [...new Set(parts.map(p => p.name))];
    summary.push(`copies ${[...new Set(parts.map(p => p.expr.text))].join(', ')} to the host where read (${names.join(', ')} stay${names.length === 1 ? 's' : ''} on the device)`);
  }
  const made = [...twins].filter(([n]) => !hostCopies.has(n));
  if (made.length > 0) {
    summary.push(`copies ${made.map(([n, t]) => `${n} to the host as ${t}`).join(', ')} for host code (the device array${made.length === 1 ? ' stays' : 's stay'})`);
  }
  if (reused.length > 0) {
    summary.push(`reads ${reused.map(([n, t]) => `${t} (the host copy of ${n} cell ${hostCopies.get(n)!.cellIndex} made)`).join(', ')}: no copy again`);
  }
  const copiedBack = back.filter(n => !backFromCopy.has(n));
  if (copiedBack.length > 0) {
    summary.push(`brings ${copiedBack.join(', ')} back to the host (used in host code)`);
  }
  if (backFromCopy.size > 0) {
    summary.push(`takes ${[...backFromCopy].map(([n, c]) => `${n} back as ${c.twin} (the host copy cell ${c.cellIndex} made)`).join(', ')} for host code: no copy again`);
  }
  const whole = (n: string): number => copyBytes(model.valueBefore(n, cell, 0)) ?? 0;
  const forced: ForcedCopy[] = [
    // (one taken back as an earlier host cell's copy crosses nothing here)
    ...back.filter(name => !backFromCopy.has(name)).map(name => ({ name, bytes: whole(name), back: true })),
    ...made.filter(([n]) => !forConsumers.has(n)).map(([name]) => ({ name, bytes: whole(name), back: false })),
    ...parts.map(({ name, expr }) => ({ name, bytes: copyBytes(model.inferValue(expr, cell)) ?? 0, back: false }))
  ];
  return { edits, transfers: moved, summary: summary.join('; '), computesOnHost, back, twins, forced };
}

/**
 * A copy to the host that a host cell makes for its own host code (`hostBoundary`), not for a host
 * consumer (a GPU version of the cell would hand the consumer a copy too): what keeping the cell
 * on the host costs in copies, beside its CPU time (`hostVersionCost`). `back`: the array leaves
 * the device (`x = cp.asnumpy(x)`), so a later GPU cell copies it in again.
 */
interface ForcedCopy {
  name: string;
  bytes: number;
  back: boolean;
}

/** What keeping a cell on the host costs in copies (`hostVersionCost`). */
interface HostVersionCost {
  /** Seconds per session: the copies to the host and those in again (`back` + `againSeconds`). */
  seconds: number;
  /** The copies to the host: names, bytes (0: sizes unknown), seconds. */
  names: string[];
  bytes: number;
  backSeconds: number;
  /** Arrays it brings back for good that the next cell reading them would move in again: names, bytes, seconds. */
  again: string[];
  againBytes: number;
  againSeconds: number;
}

/**
 * What `cell` kept on the host costs beside its CPU time where it reads arrays resident on the
 * device: the copies to the host its host code needs (`hostBoundary`'s `ForcedCopy`: not those for
 * host consumers, which a GPU version makes as well), and, for an array it brings back for good,
 * the copy in again that the next cell reading that version makes when the array rules rewrite it
 * (a GPU cell there moves it in again: `returning`). Null when it copies nothing. The plan weighs
 * this against the cell's GPU version (h_spectro cell 14: 17 us of band integrals on the CPU, but
 * 66 MB of `corrected` copied back for them), and the whole-notebook figure counts the copies of
 * the cells it keeps on the host.
 */
function hostVersionCost(
  cell: CellModel,
  model: NotebookModel,
  resident: ReadonlySet<string>,
  cp: string,
  hostCopies: ReadonlyMap<string, HostCopy>,
  copyOnce: ReadonlySet<string> | undefined,
  copiesAtStart: ReadonlyMap<string, HostCopy>,
  device: DeviceProfile
): HostVersionCost | null {
  const { forced } = hostBoundary(cell, model, new Set(resident), cp, hostCopies, copyOnce, copiesAtStart);
  if (forced.length === 0) {
    return null;
  }
  const again = forced.filter(f => f.back && movedInAgain(f.name, cell, model));
  const bytes = forced.reduce((a, f) => a + f.bytes, 0);
  const againBytes = again.reduce((a, f) => a + f.bytes, 0);
  const backSeconds = bytes / (device.deviceToHost ?? device.hostToDevice) + forced.length * device.launchOverhead;
  const againSeconds = again.length > 0 ? againBytes / device.hostToDevice + again.length * device.launchOverhead : 0;
  return { seconds: backSeconds + againSeconds, names: [...new Set(forced.map(f => f.name))], bytes, backSeconds, again: again.map(f => f.name), againBytes, againSeconds };
}

/**
 * Does the next cell after `cell` that reads or binds `name` read it, and would the array rules
 * rewrite that cell (so that, `name` brought back to the host by `cell`, it moves it in again)?
 */
function movedInAgain(name: string, cell: CellModel, model: NotebookModel): boolean {
  const next = [...model.readers(name), ...model.writers(name)].filter(c => c.index > cell.index).sort((a, b) => a.index - b.index)[0];
  if (!next?.facts?.inputs.has(name) || next.abCell) {
    return false;
  }
  const analysis = analyseArrayCell(next, model);
  return !!analysis && analysis.applicable && !analysis.refusal;
}

/**
 * A `HostVersionCost` in words, after "would": "copy corrected back (65.5 MB, 21.9 ms)", "copy x back
 * (32.0 MB, 10.7 ms) and then to the device again for a later GPU cell (32.0 MB, 1.2 ms)".
 */
function hostCopiesInWords(h: HostVersionCost): string {
  const figure = (bytes: number, seconds: number): string => `(${bytes > 0 ? `${formatBytes(bytes)}, ` : ''}${formatSeconds(seconds)})`;
  const same = h.again.length === h.names.length;
  const again = h.again.length > 0 ? ` and ${same ? '' : `${h.again.join(', ')} `}then to the device again for a later GPU cell ${figure(h.againBytes, h.againSeconds)}` : '';
  return `copy ${h.names.join(', ')} back ${figure(h.bytes, h.backSeconds)}${again}`;
}

/**
 * Forgets the host copies of arrays `cell` may change or rebind (a write, an in-place update of it
 * or of a name sharing its memory, a use that lets something keep it, a function reading it): from
 * there on the copy may no longer be the array's value. A view bound to a name at the cell's top
 * level (`fwd = x[a:b]`, `for row in x:`) keeps the copy (`viewKeepsHostCopy`): the host cell
 * takes the view from it (`fwd = x_host[a:b]`) rather than copying the array again.
 */
function forgetChanged(hostCopies: Map<string, HostCopy>, cell: CellModel, model: NotebookModel): void {
  const root = cell.tree!.rootNode;
  for (const name of [...hostCopies.keys()]) {
    if (changedWithin(root, cell, model, name, 0, Infinity, r => viewKeepsHostCopy(r, cell, model))) {
      hostCopies.delete(name);
    }
  }
}

/**
 * Does `ref` of a resident array only bind a view of it to plain names (`fwd = x[a:b]`, `v = x.T`,
 * `for row in x:`), outside any function, where none of those names is ever updated in place from
 * this cell on, nor read by a function some cell defines? Then the array's host copy still holds
 * its values after the cell: the names see the same values through the copy (a host cell reads
 * them from it, `fwd = x_host[a:b]`, as hostBoundary hands the reference the copy), and nothing
 * changes them. A change the cell makes through the view is still caught by `changedWithin` (its
 * in-place updates of names aliasing the array), and a later cell's through `memorySharers`. A
 * holder some cell updates in place brings the array back for good instead (hostBoundary's
 * `kept`), and a container, attribute or call that keeps the array (which the notebook may change
 * out of sight) still drops the copy.
 */
function viewKeepsHostCopy(ref: SyntaxNode, cell: CellModel, model: NotebookModel): boolean {
  if (insideScope(ref)) {
    return false;
  }
  const e = escapingUse(ref, model);
  if (e === null || !e.named || !(e.kinds ?? [e.kind]).every(k => k === 'alias')) {
    return false;
  }
  return !updatedInPlaceFrom(e.holders, cell.index, model) && !e.holders.some(h => readByFunction(h, model));
}

/** A host copy of a resident array a host cell made (`x_host = cp.asnumpy(x)`), read again while the array stays unchanged. */
interface HostCopy {
  twin: string;
  cellIndex: number;
}

/** `ref.copy()` with no arguments (a new C-ordered array of the same values), else null. */
function copyCall(ref: SyntaxNode): SyntaxNode | null {
  const attr = ref.parent;
  const call = attr?.parent;
  if (attr?.type !== 'attribute' || field(attr, 'object')?.id !== ref.id || field(attr, 'attribute')?.text !== 'copy' || call?.type !== 'call' || field(call, 'function')?.id !== attr.id) {
    return null;
  }
  return kids(field(call, 'arguments') ?? call).filter(k => k.type !== 'comment').length === 0 ? call : null;
}
/**
 * The module-level `def`s of a cell (undecorated), and lambdas bound to a name at its top level
 * (`prop = lambda x: x @ F`), whose name nothing else in the cell reads: their bodies run only
 * when a later cell calls them.
 */
function idleFunctions(root: SyntaxNode): SyntaxNode[] {
  return kids(root).filter(d => {
    const bound = d.type === 'expression_statement' && kids(d)[0]?.type === 'assignment' ? kids(d)[0] : null;
    const lambda = bound && field(bound, 'left')?.type === 'identifier' && unparen(field(bound, 'right') ?? bound).type === 'lambda';
    const name = d.type === 'function_definition' ? field(d, 'name')?.text : lambda ? field(bound!, 'left')!.text : undefined;
    return name !== undefined && globalReferences(root, name).every(r => isInside(r, d));
  });
}

/** The function a statement of `idleFunctions` defines: the `def`, or the lambda bound. */
function functionOf(statement: SyntaxNode): SyntaxNode {
  if (statement.type === 'function_definition') {
    return statement;
  }
  const bound = kids(statement)[0];
  return unparen(field(bound, 'right') ?? bound);
}

/** Is `ref` in an f-string field that shows its own text (`{x[0]=}`, `{x=:.3f}`)? */
function inSelfDocumentingField(ref: SyntaxNode): boolean {
  for (let p = ref.parent; p; p = p.parent) {
    if (p.type === 'interpolation') {
      const expr = kids(p)[0];
      return !!expr && /^\s*=/.test(p.text.slice(expr.endIndex - p.startIndex));
    }
  }
  return false;
}

/** Is `node` inside a function, lambda or class body (code that may run after later cells)? */
function insideScope(node: SyntaxNode): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'lambda' || p.type === 'class_definition') {
      return true;
    }
  }
  return false;
}

/**
 * Does `node` run more than once per run of its cell: in a loop or a comprehension, except in
 * the iterable a `for` or a comprehension's first `for` reads once (`for v in x[:3]:`)?
 */
function inLoop(node: SyntaxNode): boolean {
  let n = node;
  for (let p = n.parent; p; n = p, p = p.parent) {
    const once = (p.type === 'for_statement' || p.type === 'for_in_clause') && field(p, 'right')?.id === n.id;
    if (once && p.type === 'for_in_clause' && p.parent && kids(p.parent).find(k => k.type === 'for_in_clause')?.id !== p.id) {
      return true; // a later `for` of a comprehension runs once per item of the first
    }
    if (once) {
      continue;
    }
    if (p.type === 'for_statement' || p.type === 'while_statement' || /_comprehension$|^generator_expression$/.test(p.type)) {
      return true;
    }
  }
  return false;
}

/**
 * Does host consumer argument `arg` read an array that is on the host in this host cell (a name
 * that is not resident, bound to a NumPy array here or earlier)? A copy of the whole argument,
 * `cp.asnumpy(vpick[idx])`, would first compute it with device and host arrays together.
 */
function readsHostArray(arg: SyntaxNode, resident: ReadonlySet<string>, model: NotebookModel, cell: CellModel): boolean {
  let hit = false;
  walk(arg, k => {
    if (hit) {
      return false;
    }
    if (k.type === 'identifier' && isValueIdentifier(k) && !resident.has(k.text)) {
      const v = model.inferValue(k, cell);
      hit = (v.kind === 'ndarray' || v.kind === 'sparse') && v.device !== 'gpu' && v.shape?.length !== 0;
    }
    return true;
  });
  return hit;
}

/**
 * What host code reads of the resident array `ref` names: the array's part it indexes with host
 * integers and slices (`X[:, :8]`, `x[i]`, `a[-1][0]`: CuPy takes the same basic index, and only
 * that part need cross), else the array itself. Null for a part of a value the model does not
 * know as an array (a sparse matrix: cupyx indexes it into another matrix).
 */
function hostReadExpression(ref: SyntaxNode, resident: ReadonlySet<string>, model: NotebookModel, cell: CellModel): SyntaxNode | null {
  let e = ref;
  while (e.parent?.type === 'subscript' && field(e.parent, 'value')?.id === e.id) {
    const base = e;
    const index = kids(e.parent).filter(k => k.id !== base.id && k.type !== 'comment');
    if (index.length === 0 || !index.every(k => basicIndex(k, name => pythonInt(name, resident, model, cell)))) {
      break;
    }
    e = e.parent;
  }
  return e.id !== ref.id && model.valueBefore(ref.text, cell, ref.startIndex).kind !== 'ndarray' ? null : e;
}

/** Does `name` hold a Python int there (not a NumPy or device value, which index as arrays do)? */
function pythonInt(name: SyntaxNode, resident: ReadonlySet<string>, model: NotebookModel, cell: CellModel): boolean {
  const v = model.valueBefore(name.text, cell, name.startIndex);
  return !resident.has(name.text) && v.kind === 'scalar' && (v.library === undefined || v.library === 'int') && /^u?int/.test(v.dtype ?? 'int');
}

/**
 * Edits that copy host-read expression `expr` (`hostReadExpression`, or a 0-d value a field
 * shows, `deviceUse`) where it stands, as NumPy has it (hostCopyAround): an element as a NumPy
 * scalar of its dtype (`cp.asnumpy(x[i])[()]`); an integer range takes as `int(x[i])`
 * (hostIndexAround).
 */
function hostCopyOf(expr: SyntaxNode, model: NotebookModel, cell: CellModel, cp: string): TextEdit[] {
  const v = model.inferValue(expr, cell);
  const call = expr.parent?.type === 'argument_list' ? expr.parent.parent : null;
  if (isZeroD(v) && call?.type === 'call' && isIndexBuiltinCall(call, model)) {
    return hostIndexAround(expr, v, cp, model, cell); // range(int(k[5])), as the GPU cells' rewrite has it
  }
  return hostCopyAround(expr, mayBeElement(expr, v) ? { ...v, shape: [] } : v, cp, model, cell);
}

/**
 * Is `v`, what the model infers for `expr`, maybe 0-d: 0-d, or an integer index (no slice, `...`
 * or `None`) into an array whose dimensions the model does not know? Such a value is copied as an
 * element, `cp.asnumpy(x[i])[()]`: the `[()]` is a no-op if it turns out to have dimensions.
 */
function mayBeElement(expr: SyntaxNode, v: ValueInfo): boolean {
  if (isZeroD(v)) {
    return true;
  }
  if (expr.type !== 'subscript' || v.kind !== 'ndarray' || v.shape !== undefined) {
    return false;
  }
  const base = field(expr, 'value');
  const index = kids(expr).filter(k => k.id !== base?.id && k.type !== 'comment');
  return !index.some(k => /^(slice|ellipsis|none)$/.test(k.type) || kids(k).some(c => /^(slice|ellipsis|none)$/.test(c.type)));
}

/**
 * An A/B cell (`%%gpuoptimize` with its own `# %% gpu` version) that reads resident arrays: its
 * baseline is host code and the magic times it, so the arrays come back to the host *before*
 * the cell, at the end of the last earlier cell that runs Python (a copy at the cell's top would
 * be timed as part of the baseline, and the GPU version's `cp.asarray(x)` would find `x` on the
 * device already: both in the GPU's favour). Cells in between that cannot take the lines (a
 * `%%bash` cell, a syntax error, another A/B cell) read no resident array: any that did would
 * have brought it back already. The A/B cell itself stays as written. False (nothing done) when
 * no earlier cell can take the lines: the A/B cell is then an ordinary host boundary.
 */
function abCellBoundary(
  cell: CellModel,
  models: CellModel[],
  model: NotebookModel,
  resident: Set<string>,
  leftDevice: Set<string>,
  cp: string,
  out: CellInput[],
  changes: PlanChange[],
  transfers: Transfer[],
  parser: PythonParser
): boolean {
  const used = [...cell.facts!.inputs].filter(n => resident.has(n));
  const before = models
    .slice(0, cell.index)
    .reverse()
    .find(c => c.kind === 'code' && c.tree && !c.syntaxError && !c.skipped && !c.abCell);
  if (!before) {
    return false;
  }
  for (const name of cell.facts!.writes) {
    resident.delete(name);
  }
  if (used.length === 0) {
    return true;
  }
  const lines = used.map(n => hostCopyLine(n, model.lastWriterBefore(n, cell) ?? before, model, cp));
  const current = out[before.index].source;
  // the lines go where a rewrite's bring-back goes (epilogueEdits): before a shown value that
  // reads none of the arrays they bring back (it stays last), else after it, the value bound
  // first and shown last; at the end when the cell shows nothing (its trailing newline kept)
  const tree = parser.parse(maskIPython(current).masked);
  let source: string;
  try {
    const readsNone = (shown: SyntaxNode): boolean => !used.some(n => globalReferences(shown, n).length > 0);
    source = applyEdits(current, epilogueEdits(tree.rootNode, current, lines.join('\n'), model, base => freshNotebookName(base, model), readsNone));
  } finally {
    tree.delete?.();
  }
  out[before.index] = { ...out[before.index], source };
  for (const name of used) {
    resident.delete(name);
    leftDevice.add(name);
    transfers.push({ cellIndex: before.index, name, direction: 'to-host', reason: `read by the A/B cell ${cell.index} (%%gpuoptimize): brought back before it, not inside its timed baseline` });
  }
  const summary = `brings ${used.join(', ')} back to the host for the A/B cell ${cell.index} (outside its timed baseline)`;
  const existing = changes.find(ch => ch.cellIndex === before.index);
  if (existing) {
    existing.summary += `; ${summary}`;
  } else {
    changes.push({ cellIndex: before.index, cellId: before.id, summary });
  }
  return true;
}

/**
 * How host code takes a use of resident `ref`: the value it hands on, climbing attribute reads,
 * method calls (CuPy arrays have NumPy's methods) and indexing, is `safe` where CuPy values
 * satisfy the use as they are (print/len/float/format, `.shape`); `shown` is that value where it
 * is a 0-d value an f-string field (`{s!r}`, `{x[0]=}`) or the cell's display would show with
 * CuPy's repr (`array(1.5)`, where NumPy shows `np.float64(1.5)`): it needs a host copy.
 */
function deviceUse(ref: SyntaxNode, model: NotebookModel, cell: CellModel): { safe: boolean; shown: SyntaxNode | null } {
  let n = ref;
  let p = n.parent;
  while (
    p &&
    (((p.type === 'attribute' || p.type === 'subscript' || p.type === 'parenthesized_expression') && p.namedChild(0)?.id === n.id) ||
      (p.type === 'call' && field(p, 'function')?.id === n.id && n.type === 'attribute'))
  ) {
    if (p.type === 'attribute' && /^(shape|ndim|size|dtype|nbytes)$/.test(field(p, 'attribute')?.text ?? '')) {
      return { safe: true, shown: null };
    }
    // (NumPy's methods CuPy's arrays lack: `S.setfield(v, S.dtype)` needs the host array)
    if (p.type === 'attribute' && /^(setfield|getfield|itemset)$/.test(field(p, 'attribute')?.text ?? '')) {
      return { safe: false, shown: null };
    }
    n = p;
    p = n.parent;
  }
  // the value shown: the name's as bound there, or what the model infers for its element or result
  const zeroD = (): boolean => (n.id === ref.id ? isZeroD(model.valueBefore(ref.text, cell, ref.startIndex)) : mayBeElement(n, model.inferValue(n, cell)));
  if (p?.type === 'interpolation') {
    // `{s}`, `{s:.3f}` format a CuPy value as NumPy's; `{s!r}`, `{s=}` show its repr
    return showsRepr(p) && zeroD() ? { safe: false, shown: n } : { safe: true, shown: null };
  }
  if (p?.type === 'argument_list') {
    const call = p.parent;
    const fn = call ? field(call, 'function') : null;
    return { safe: !!fn && fn.type === 'identifier' && isDeviceSafeBuiltin(fn.text), shown: null };
  }
  if (p?.type === 'expression_statement' && kids(p).length === 1) {
    // displayed value: an array shows as NumPy's does, a 0-d value does not
    return zeroD() ? { safe: false, shown: n } : { safe: true, shown: null };
  }
  return { safe: false, shown: null };
}

function isInside(node: SyntaxNode, outer: SyntaxNode): boolean {
  return node.startIndex >= outer.startIndex && node.endIndex <= outer.endIndex;
}

function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
}

/** After the leading imports of a parsed cell; the very start of a rewritten one. */
/** A line importing a cupyx module, as the cells' rewrites add them (`import cupyx.scipy.ndimage`). */
const CUPYX_IMPORT = /^import cupyx(\.[A-Za-z_]\w*)*$/;

/**
 * Takes out of the rewritten cells (`out`) the cupyx imports their rewrites added (lines not in
 * the cell as written, `cells`), and returns them once each, in the order they first appear: the
 * whole-notebook rewrite imports them once, with CuPy, rather than in each cell that uses the
 * module. An import the notebook itself wrote stays where it is.
 */
function hoistCupyxImports(cells: readonly CellInput[], out: CellInput[]): string[] {
  const found: string[] = [];
  out.forEach((cell, i) => {
    if (cell.source === cells[i].source) {
      return;
    }
    const own = new Set(cells[i].source.split('\n'));
    const lines = cell.source.split('\n');
    const kept = lines.filter(line => !(CUPYX_IMPORT.test(line) && !own.has(line)));
    if (kept.length === lines.length) {
      return;
    }
    for (const line of lines) {
      if (CUPYX_IMPORT.test(line) && !own.has(line) && !found.includes(line)) {
        found.push(line);
      }
    }
    out[i] = { ...cell, source: kept.join('\n') };
  });
  return found;
}

function prologueOrStart(root?: SyntaxNode, source?: string): number {
  return root && source !== undefined ? prologueOffset(root, source) : 0;
}
