/** Text edits: applying them, and building them. Pure functions, no parser needed. */
import type { TextEdit } from './types';

/**
 * Applies non-overlapping edits to `source`. Edits are applied in offset order; inserts at the
 * same offset keep the order they were given in, and come before a replacement starting there.
 * Throws on overlapping edits or offsets outside the source (a bug, never silently wrong text).
 */
export function applyEdits(source: string, edits: readonly TextEdit[]): string {
  // a stable sort: equal keys keep the order the edits were given in. Lists are short (a few
  // edits a cell): an insertion sort of a copy (stable: an edit moves only past greater ones);
  // Array.prototype.sort (stable too) for long ones
  const ordered = edits.length > 32 ? edits.slice().sort(editOrder) : insertionSorted(edits);
  let out = '';
  let pos = 0;
  for (const e of ordered) {
    if (e.start < pos || e.end < e.start || e.end > source.length) {
      throw new Error(`overlapping or out-of-range edit at ${e.start}..${e.end}`);
    }
    out += source.slice(pos, e.start) + e.text;
    pos = e.end;
  }
  return out + source.slice(pos);
}

/** By start; at the same start, inserts (and shorter replacements) first. */
function editOrder(a: TextEdit, b: TextEdit): number {
  return a.start - b.start || a.end - a.start - (b.end - b.start);
}

function insertionSorted(edits: readonly TextEdit[]): readonly TextEdit[] {
  if (edits.length < 2) {
    return edits;
  }
  const out = edits.slice();
  for (let k = 1; k < out.length; k++) {
    const e = out[k];
    let j = k - 1;
    while (j >= 0 && editOrder(out[j], e) > 0) {
      out[j + 1] = out[j];
      j--;
    }
    out[j + 1] = e;
  }
  return out;
}

export const insert = (at: number, text: string): TextEdit => ({ start: at, end: at, text });
export const replace = (start: number, end: number, text: string): TextEdit => ({ start, end, text });
