/**
 * A small unified line diff (longest common subsequence) for the CLI's text report.
 * Cells are short, so the quadratic table is cheap; very long cells fall back to a
 * whole-block replacement rather than a slow diff.
 */

export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

const MAX_CELLS = 4_000_000;

export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length * b.length > MAX_CELLS) {
    return [
      ...a.map(text => ({ op: '-' as const, text })),
      ...b.map(text => ({ op: '+' as const, text }))
    ];
  }
  // lcs[i][j] = length of the LCS of a[i:] and b[j:]
  const lcs: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: a[i] });
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      out.push({ op: '-', text: a[i++] });
    } else {
      out.push({ op: '+', text: b[j++] });
    }
  }
  while (i < a.length) {
    out.push({ op: '-', text: a[i++] });
  }
  while (j < b.length) {
    out.push({ op: '+', text: b[j++] });
  }
  return out;
}

/** The changed lines with `context` unchanged lines around each change; `...` between hunks. */
export function unifiedDiff(before: string, after: string, context = 1): string[] {
  const lines = diffLines(before, after);
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, k) => {
    if (l.op !== ' ') {
      for (let d = -context; d <= context; d++) {
        if (k + d >= 0 && k + d < lines.length) {
          keep[k + d] = true;
        }
      }
    }
  });
  const out: string[] = [];
  let skipped = false;
  lines.forEach((l, k) => {
    if (keep[k]) {
      if (skipped && out.length > 0) {
        out.push('...');
      }
      skipped = false;
      out.push(`${l.op} ${l.text}`);
    } else {
      skipped = true;
    }
  });
  return out;
}
