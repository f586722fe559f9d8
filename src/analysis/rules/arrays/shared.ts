/** Turning an array analysis into a rule outcome: the cost model's verdict and the text. */
import { firstUseCharge, firstUses, type FirstUses } from '../../apis/first-use';
import { formatSeconds, formatSpeedup, formatSpeedupBelow, NOT_A_SPEEDUP, predict, type WorkEstimate } from '../../costmodel';
import type { CellModel, NotebookModel } from '../../notebook';
import { firstCopiesIn, planPrediction } from '../../plan';
import type { DeviceProfile, Prediction } from '../../types';
import { describeArray } from '../../values';
import type { RuleContext, RuleOutcome } from '../types';
import type { ValueKind } from '../../values';
import type { ArrayCellAnalysis } from './cupy-rewrite';

export const CUPY_REFERENCE = 'references/cupy.md';

/** The prediction for an analysis; with unknown sizes, a neutral figure that says so. */
export function arrayPrediction(ctx: RuleContext, a: ArrayCellAnalysis): Prediction {
  if (!a.sizeKnown) {
    return {
      speedup: 1,
      cpuSeconds: 0,
      gpuSeconds: 0,
      transferSeconds: 0,
      reason: 'array sizes unknown: run the cells (or let the panel inspect the kernel) for a prediction'
    };
  }
  // the single-cell rewrite makes every first use of the cell itself (apis/first-use.ts)
  const work = withFirstUses(ctx.cell, ctx.model, a, ctx.options.device);
  const single = predict(work, ctx.options.device);
  // the whole-notebook rewrite's own copies: an array another name may share stays a host array
  // there too (its cell copies it in, and writes it back, on every run), and a host array no
  // earlier GPU cell left on the device and no later cell reads is moved in for this cell alone
  // (plan.ts charges it: the cell stays on the host when that does not pay); only where the
  // figure matters (the single-cell one is under the minimum), as it analyses earlier cells
  const firstIn = single.speedup < ctx.options.minSpeedup ? firstCopiesIn(ctx.cell, ctx.model, a) : [];
  if (a.hostKept.size === 0 && firstIn.length === 0) {
    return single;
  }
  const { copies, prediction: plan } = planPrediction(ctx.cell, ctx.model, { ...a, work }, ctx.options.device, [], firstIn);
  const list = (names: readonly string[]): string => names.map(n => `\`${n}\``).join(', ');
  const why = [
    copies.names.length > 0 ? `copies ${list(copies.names)} too, on every run (another name may share ${copies.names.length === 1 ? 'its' : 'their'} memory)` : '',
    copies.moved.length > 0
      ? `copies ${list(copies.moved)} in too, for this cell alone (${copies.moved.length === 1 ? 'a host array' : 'host arrays'} there too, read by no later cell)`
      : '',
    // (what the cell computes for its host code: a host version has it on the host, no copy)
    copies.consumed.length > 0 ? `copies ${list(copies.consumed)} back for host code in the cell` : ''
  ].filter(Boolean);
  return predict(work, ctx.options.device, { speedup: plan.speedup, why: `the whole-notebook rewrite ${why.join(', and ')}` });
}

/**
 * The analysis' work with its first uses priced (`WorkEstimate.firstUse`): all of the cell's, or
 * those `seen` (made by earlier cells of the same process) does not hold. `uses`: the cell's first
 * uses when the caller has them already (cellFirstUses walks the cell's tree).
 */
export function withFirstUses(
  cell: CellModel,
  model: NotebookModel,
  a: ArrayCellAnalysis,
  device: DeviceProfile | undefined,
  seen?: ReadonlySet<string>,
  uses: FirstUses = cellFirstUses(cell, model, a)
): WorkEstimate {
  const charge = firstUseCharge(uses, seen, device?.kernelCompileSeconds);
  if (!charge) {
    return a.work;
  }
  // copied, then the key set: a spread adding a key its source lacks is ~10x slower in V8 (Node 20)
  const work = { ...a.work };
  work.firstUse = charge;
  return work;
}

/** The first uses of the cell's rewrite (apis/first-use.ts `firstUses`). */
export function cellFirstUses(cell: CellModel, model: NotebookModel, a: ArrayCellAnalysis): FirstUses {
  return cell.tree ? firstUses(cell.tree.rootNode, a, n => model.inferValue(n, cell).kind === 'ndarray') : { keys: [] };
}

/**
 * The common outcome of the GPU1xx rules: refuse what breaks or does not pay, else propose the
 * candidate with its explanation.
 */
export function arrayOutcome(
  ctx: RuleContext,
  a: ArrayCellAnalysis,
  text: { what: string; why: string; anchor: string; extraNotes?: string[]; confidence?: number }
): RuleOutcome {
  if (a.refusal) {
    return { kind: 'refuse', reason: a.refusal };
  }
  const prediction = arrayPrediction(ctx, a);
  const resident = prediction.residentSpeedup ?? prediction.speedup;
  // a rewrite that pays only with the data kept on the device is still suggested (the
  // whole-notebook rewrite keeps it there), with less confidence and the reason
  if (a.sizeKnown && prediction.speedup < ctx.options.minSpeedup && resident < ctx.options.minSpeedup) {
    return {
      kind: 'refuse',
      reason: `${prediction.reason}; predicted ${formatSpeedupBelow(prediction.speedup, ctx.options.minSpeedup)} (CPU ${formatSeconds(prediction.cpuSeconds)}, GPU ${formatSeconds(prediction.gpuSeconds)})`
    };
  }
  let confidence = text.confidence ?? 0.8;
  if (!a.sizeKnown) {
    confidence -= 0.35;
  }
  if (a.notes.length > 2) {
    confidence -= 0.05;
  }
  const single = a.sizeKnown ? singleCellCaveat(prediction, ctx.options.minSpeedup) : null;
  if (single) {
    confidence -= single.penalty;
  }
  const moved = [...a.transfers].map(([host, dev]) => (host === dev ? `\`${host}\`` : `\`${host}${a.slicedInputs.get(host) ?? ''}\` → \`${dev}\``));
  const lines = [
    `**${text.what}**`,
    '',
    text.why,
    '',
    a.largest ? `- Largest array: ${describeArray(a.largest)}.` : '- Array sizes are not known yet.',
    ...(moved.length > 0
      ? [`- Copied to the device once, at the top of the cell: ${moved.join(', ')}.`]
      : a.madeOnHost?.length
        ? []
        : ['- Nothing is copied to the device: the data is created there, or is there already.']),
    ...(a.madeOnHost ?? []).map(c => `- Made by NumPy on the host and copied to the device where it is made (its values are NumPy's; see the notes): \`${c.length > 60 ? `${c.slice(0, 57)}...` : c}\`.`),
    a.bringBack.length > 0
      ? `- Copied back to the host at the end (later cells read them): ${a.bringBack.map(n => `\`${n}\``).join(', ')}.`
      : '- Nothing is copied back: no later cell needs the results on the host.',
    ...(a.leftOnDevice.length > 0
      ? [`- Left on the device, as CuPy arrays: ${a.leftOnDevice.map(n => `\`${n}\``).join(', ')}. Host code added later (plotting, pandas, file writes) needs a host copy (\`${a.leftOnDevice[0]}.get()\`).`]
      : []),
    `- Prediction: ${prediction.reason}${a.sizeKnown ? ` (CPU ${formatSeconds(prediction.cpuSeconds)}, GPU ${formatSeconds(prediction.gpuSeconds)} of which copies ${formatSeconds(prediction.transferSeconds)})` : ''}.`,
    ...(a.canonicalized ?? []).map(
      m =>
        `- \`${m}.sum_duplicates()\` follows its construction: it sorts the indices and merges duplicate entries (SciPy allows them) once, there; cupyx would otherwise do that inside every product with a non-canonical matrix (H200, 20M non-zeros: 28 ms per product instead of 0.22 ms; bench/RESULTS.md). If the SciPy matrix had duplicates, \`${m}.nnz\`, \`.data\` and \`.indices\` change; nothing after it reads them (the line is left out when something does).`
    ),
    ...(single ? [`- ${single.text}`] : []),
    '',
    `See [${text.anchor}](${CUPY_REFERENCE}#${text.anchor}) and [keeping data on the device](${CUPY_REFERENCE}#residency).`
  ];
  return {
    kind: 'suggest',
    confidence: Math.max(0.05, Math.min(1, confidence)),
    prediction,
    edits: a.edits,
    candidate: a.candidate,
    imports: a.imports,
    explanation: lines.join('\n'),
    notes: [...a.notes, ...(text.extraNotes ?? [])],
    reference: `${CUPY_REFERENCE}#${text.anchor}`
  };
}

/**
 * When the single-cell figure is no speedup, or below the user's minimum while the
 * device-resident one pays, or a fresh session (first uses loaded) or the machine's first run
 * (first uses compiled) loses: a line for the explanation and how much confidence it costs.
 */
export function singleCellCaveat(p: Prediction, minSpeedup: number): { text: string; penalty: number } | null {
  const resident = p.residentSpeedup ?? p.speedup;
  if (p.speedup < NOT_A_SPEEDUP && resident < NOT_A_SPEEDUP) {
    // kept only because the user's minimum is itself under 1.2x: no figure here is a speedup
    return {
      text: `This is not a speedup: predicted ${formatSpeedup(p.speedup)} as a single cell (copies included) and ${formatSpeedup(resident)} with the data kept on the device across cells; it is shown only because the minimum speedup is set to ${formatSpeedup(minSpeedup)}.`,
      penalty: 0.3
    };
  }
  if (p.speedup < NOT_A_SPEEDUP) {
    return {
      text: `As a single cell this is not a speedup (predicted ${formatSpeedup(p.speedup)}, copies included); it is suggested because with the data kept on the device across cells it is predicted ${formatSpeedup(resident)}: prefer the whole-notebook rewrite.`,
      penalty: 0.3
    };
  }
  if (p.speedup < minSpeedup) {
    return {
      text: `As a single cell predicted ${formatSpeedup(p.speedup)}, below the ${formatSpeedup(minSpeedup)} minimum; with the data kept on the device across cells ${formatSpeedup(resident)}.`,
      penalty: 0.15
    };
  }
  const ratio = (gpu: number | undefined): number => (gpu !== undefined && gpu > 0 ? p.cpuSeconds / gpu : p.speedup);
  const fresh = ratio(p.freshSessionSeconds);
  const first = ratio(p.firstRunSeconds);
  const what = p.firstUse ?? 'its kernels';
  if (fresh < NOT_A_SPEEDUP) {
    return {
      text: `In a fresh kernel (every new session) it is predicted ${formatSpeedup(fresh)}: loading ${what} from CuPy's kernel cache costs more than the cell saves (${formatSpeedup(first)} on a machine's first run, which compiles them); only re-runs in the same session are ${formatSpeedup(p.speedup)}.`,
      penalty: 0.2
    };
  }
  if (first < NOT_A_SPEEDUP) {
    return {
      text: `Its first run on a machine compiles ${what} and is predicted ${formatSpeedup(first)} (no speedup); it pays from the second session on (${formatSpeedup(fresh)} in a fresh kernel, the kernels loaded from CuPy's cache; re-runs ${formatSpeedup(p.speedup)}).`,
      penalty: 0.1
    };
  }
  return null;
}

/** Libraries whose names can start array work in a cell (directly or through what they return). */
const ARRAY_LIBRARIES = new Set(['numpy', 'scipy', 'cupy', 'cupyx', 'pandas', 'sklearn']);
/** Values that are arrays, or whose methods return one (`df.to_numpy()`, `model.predict(X)`). */
const ARRAY_VALUE_KINDS: ReadonlySet<ValueKind> = new Set<ValueKind>(['ndarray', 'rng', 'sparse', 'dataframe', 'series', 'estimator']);
const PREFILTER_KEY = 'arrays/prefilter';

/**
 * The GPU1xx rules' prefilter: false only when nothing in the cell can be array work, that is
 * no identifier resolves to NumPy/SciPy/CuPy/pandas/scikit-learn (star imports included) and no
 * name holds an array, generator, sparse matrix, frame or estimator where it is read, nor after
 * the cell binds it. Then the array analysis finds no work, no refusal and nothing per element.
 */
export function mayHaveArrayWork(ctx: RuleContext): boolean {
  const cached = ctx.shared.get(PREFILTER_KEY);
  if (cached !== undefined) {
    return cached as boolean;
  }
  const result = scanForArrays(ctx);
  ctx.shared.set(PREFILTER_KEY, result);
  return result;
}

function scanForArrays(ctx: RuleContext): boolean {
  const { cell, model } = ctx;
  const facts = cell.facts;
  if (!facts || !cell.tree) {
    return false;
  }
  for (const id of facts.valueIds) {
    const q = model.qualifiedName(id);
    if (q !== null) {
      const dot = q.indexOf('.');
      if (ARRAY_LIBRARIES.has(dot < 0 ? q : q.slice(0, dot))) {
        return true;
      }
    }
    if (ARRAY_VALUE_KINDS.has(model.inferValue(id, cell).kind)) {
      return true;
    }
  }
  for (const a of facts.assignments) {
    if (ARRAY_VALUE_KINDS.has(model.valueBefore(a.name, cell, a.at).kind)) {
      return true;
    }
  }
  return false;
}
