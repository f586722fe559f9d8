/**
 * Which names to ask the kernel about (`inspect`): the module-level names that code cells read
 * whose value the engine could not size from the cells' text (an array from `np.load`, from a
 * function, from another notebook...), in cells where a size decides a rule (the cell uses
 * NumPy/SciPy or reads an array). With the kernel's answer passed as `runtime` to
 * `NotebookAnalyzer.update`, the cost model predicts from real sizes.
 *
 * Reads only NotebookModel's public API.
 */
import type { NotebookModel } from './notebook';
import type { ValueInfo } from './values';

/** At most this many names per inspect request (the reply stays small and quick). */
export const MAX_INSPECT_NAMES = 64;

/** Libraries whose use makes a cell's operand sizes matter to the array rules. */
const ARRAY_LIBRARIES = new Set(['numpy', 'scipy']);

/** Python builtins a cell reads that are never the user's data. */
const BUILTINS = new Set(
  (
    'abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex ' +
    'delattr dict dir divmod enumerate eval exec filter float format frozenset getattr globals ' +
    'hasattr hash help hex id input int isinstance issubclass iter len list locals map max ' +
    'memoryview min next object oct open ord pow print property range repr reversed round set ' +
    'setattr slice sorted staticmethod str sum super tuple type vars zip __import__ __name__ ' +
    '__file__ __builtins__ True False None Ellipsis NotImplemented Exception ValueError TypeError ' +
    'KeyError IndexError RuntimeError StopIteration get_ipython display exit quit In Out _ __ ___'
  ).split(' ')
);

const SIZED_KINDS = new Set<ValueInfo['kind']>(['ndarray', 'sparse', 'dataframe', 'series']);

/** True when the engine's figure for `v` is missing or came from the kernel (to refresh). */
function needsKernel(v: ValueInfo): boolean {
  if (v.origin === 'runtime') {
    return true;
  }
  if (v.kind === 'unknown') {
    return true;
  }
  return SIZED_KINDS.has(v.kind) && v.size === undefined;
}

/**
 * Module-level names, in notebook order of first read, that array-using code cells read before
 * binding them and whose size the engine does not know from literals (or knows only from an
 * earlier kernel report, which may be stale). Capped at `limit`.
 */
export function namesToInspect(model: NotebookModel, limit = MAX_INSPECT_NAMES): string[] {
  const cells = model.cells;
  const imported = new Set(model.aliases.keys());
  const defined = new Set<string>();
  for (const cell of cells) {
    cell.facts?.defines.forEach(n => defined.add(n));
  }
  const starNumpy = [...model.starImports].some(m => ARRAY_LIBRARIES.has(m.split('.')[0]));
  const out: string[] = [];
  const seen = new Set<string>();
  for (const cell of cells) {
    const facts = cell.facts;
    if (cell.kind !== 'code' || !facts || cell.skipped || out.length >= limit) {
      continue;
    }
    const candidates: { name: string; value: ValueInfo }[] = [];
    let usesArrays = starNumpy;
    for (const name of facts.reads) {
      const qualified = model.aliases.get(name);
      if (qualified !== undefined) {
        usesArrays = usesArrays || ARRAY_LIBRARIES.has(qualified.split('.')[0]);
      }
    }
    for (const name of facts.inputs) {
      if (imported.has(name) || defined.has(name) || BUILTINS.has(name) || name.startsWith('__')) {
        continue;
      }
      const value = model.valueBefore(name, cell, 0);
      if (value.kind === 'ndarray' || value.kind === 'sparse') {
        usesArrays = true;
      }
      if (!seen.has(name) && needsKernel(value)) {
        candidates.push({ name, value });
      }
    }
    if (!usesArrays) {
      continue;
    }
    for (const { name } of candidates) {
      if (out.length >= limit) {
        break;
      }
      if (!seen.has(name)) {
        seen.add(name);
        out.push(name);
      }
    }
  }
  return out;
}
