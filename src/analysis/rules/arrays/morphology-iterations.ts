/**
 * Repeated binary morphology on the device. cupyx.scipy.ndimage's binary_erosion, binary_dilation,
 * binary_opening and binary_closing repeat the operation (`iterations` other than 1, or < 1: until
 * nothing changes) only by their `brute_force` method: with SciPy's default, brute_force=False,
 * and a structuring element whose centre is set (every default one), cupyx 14.2.0 raises
 * `NotImplementedError: only brute_force iteration has been implemented`
 * (cupyx/scipy/ndimage/_morphology.py, _binary_erosion). In SciPy brute_force only picks the
 * algorithm (which pixels each pass re-examines), never the result, so the rewrite passes
 * brute_force=True wherever `iterations` is not the literal 1. binary_propagation and
 * binary_fill_holes already call cupyx's dilation with brute_force=True. iterate_structure takes
 * no brute_force and calls binary_dilation with SciPy's default: repeated, it raises
 * (iterateStructureRefusals).
 */
import { insert, replace } from '../../edits';
import type { CellModel, NotebookModel } from '../../notebook';
import { callArguments, field } from '../../syntax';
import type { TextEdit } from '../../types';
import type { LibraryRef } from './cupy-rewrite';

/** The functions, each with the positions of `iterations` and `brute_force` in its signature (cupyx 14.2.0, as SciPy's). */
const ITERATED: ReadonlyMap<string, { iterations: number; bruteForce: number }> = new Map(
  ['binary_erosion', 'binary_dilation', 'binary_opening', 'binary_closing'].map(name => [name, { iterations: 2, bruteForce: 7 }])
);

/**
 * Edits giving the cell's cupyx binary morphology calls that repeat brute_force=True (replacing
 * an explicit other value), and the note saying why; none for a call with `*args` or `**kwargs`
 * (what they hold is not known here).
 */
export function morphologyIterationEdits(refs: readonly LibraryRef[], source: string): { edits: TextEdit[]; note: string | null } {
  const edits: TextEdit[] = [];
  let first: string | null = null;
  for (const r of refs) {
    const m = r.action === 'cupy' ? /^scipy\.ndimage\.(?:morphology\.)?(\w+)$/.exec(r.qualified) : null;
    const at = m ? ITERATED.get(m[1]) : undefined;
    const call = r.node.parent;
    const args = call?.type === 'call' && field(call, 'function')?.id === r.node.id ? field(call, 'arguments') : null;
    if (!at || !args || args.type !== 'argument_list') {
      continue;
    }
    const { positional, keywords } = callArguments(call!);
    if (positional.some(p => p.type === 'list_splat' || p.type === 'dictionary_splat')) {
      continue;
    }
    const iterations = keywords.get('iterations') ?? positional[at.iterations];
    if (!iterations || iterations.text === '1') {
      continue;
    }
    const given = keywords.get('brute_force') ?? positional[at.bruteForce];
    if (given?.text === 'True') {
      continue;
    }
    if (given) {
      edits.push(replace(given.startIndex, given.endIndex, 'True'));
    } else {
      const inner = source.slice(args.startIndex, args.endIndex - 1).trimEnd();
      edits.push(insert(args.startIndex + inner.length, `${inner.endsWith(',') ? ' ' : ', '}brute_force=True`));
    }
    first ??= call!.text;
  }
  const note = first
    ? `\`${first}\` repeats the operation: cupyx implements repeated binary morphology only with brute_force=True (with SciPy's default it raises NotImplementedError), so the call passes it; in SciPy brute_force picks the algorithm, not the result.`
    : null;
  return { edits, note };
}

/**
 * Why the cell's cupyx `iterate_structure` calls would raise. cupyx 14.2.0's iterate_structure
 * (cupyx/scipy/ndimage/_morphology.py) returns a copy for iterations < 2 and otherwise dilates
 * with `binary_dilation(out, structure, iterations=iterations - 1)`, brute_force left False: one
 * dilation (iterations 2) runs, two or more raise NotImplementedError wherever the structure's
 * centre is set (every generate_binary_structure element). So a call whose `iterations` is not a
 * number below 3 is refused; its result is a small structuring element, which SciPy computes on
 * the host in a cell of its own (the rewrite then copies it to the device with the data).
 */
export function iterateStructureRefusals(refs: readonly LibraryRef[], model: NotebookModel, cell: CellModel): string[] {
  const out: string[] = [];
  for (const r of refs) {
    const call = r.node.parent;
    if (r.action !== 'cupy' || !/^scipy\.ndimage\.(?:morphology\.)?iterate_structure$/.test(r.qualified) || call?.type !== 'call' || field(call, 'function')?.id !== r.node.id) {
      continue;
    }
    const { positional, keywords } = callArguments(call);
    const iterations = keywords.get('iterations') ?? positional[1];
    const k = iterations && !positional.some(p => p.type === 'list_splat' || p.type === 'dictionary_splat') ? model.constantValue(iterations, cell) : undefined;
    if (k === undefined || k >= 3) {
      out.push(
        `\`${call.text}\`: cupyx's iterate_structure dilates the structure iterations - 1 times without brute_force, which cupyx implements only once (NotImplementedError for iterations >= 3${k === undefined ? ', and this count is not known' : ''}); make the structuring element with SciPy in a cell of its own (it is small: the rewrite copies it to the device)`
      );
    }
  }
  return out;
}
