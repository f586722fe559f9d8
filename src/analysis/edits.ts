/** Text edits: applying them, and building them. Pure functions, no parser needed. */
import type { TextEdit } from './types';

/**
 * Applies non-overlapping edits to `source`. Edits are applied in offset order; inserts at the
 * same offset keep the order they were given in, and come before a replacement starting there.
 * Throws on overlapping edits or offsets outside the source (a bug, never silently wrong text).
 */
export function applyEdits(source: string, edits: readonly TextEdit[]): string {
  // Array.prototype.sort is stable: equal keys keep the order the edits were given in
  const ordered = edits.slice().sort((a, b) => a.start - b.start || a.end - a.start - (b.end - b.start));
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

export const insert = (at: number, text: string): TextEdit => ({ start: at, end: at, text });
export const replace = (start: number, end: number, text: string): TextEdit => ({ start, end, text });
