/**
 * Masks IPython syntax so tree-sitter sees plain Python, keeping every offset.
 *
 * Each piece of IPython syntax is replaced by text of exactly the same length (spaces or a
 * Python no-op), so a range found in the masked source is the same range in the cell the user
 * sees, and edits computed on the masked text apply to the original unchanged.
 *
 * Handled: cell magics (`%%time` ... first line only, as IPython does), line magics (`%matplotlib
 * inline`), shell escapes (`!ls`), assignments from them (`files = !ls`, `t = %timeit -o f()`),
 * help (`obj?`, `obj??`, `?obj`). `%time stmt` / `%timeit stmt` / `%prun stmt` keep `stmt`
 * analysable: the prefix becomes `if 1:` padded with spaces.
 *
 * Lines are read as IPython's input transformers read them: a Python line ending in `\`
 * continues Python (the next line is never IPython syntax); an escape line (`!cmd`, `%magic`,
 * `x = !cmd`) ending in `\` joins the next line into the command, and its text (quotes,
 * brackets, `#`) is the command's, not Python. IPython joins an escape line only on `\` + LF;
 * here CRLF counts as LF throughout (as Python's tokenizer does), so a CRLF cell masks like the
 * same cell with LF line ends.
 */

/** Cell magics whose body is Python (the cell stays analysable). */
export const PYTHON_BODY_CELL_MAGICS: ReadonlySet<string> = new Set([
  'time',
  'timeit',
  'prun',
  'capture',
  'gpuoptimize',
  'gpu_timeit',
  'debug'
]);

/** Line magics whose argument is a Python statement we can still analyse. */
const STATEMENT_LINE_MAGICS: ReadonlySet<string> = new Set(['time', 'timeit', 'prun', 'gpu_timeit']);

export type MaskedKind = 'cell-magic' | 'line-magic' | 'shell' | 'help' | 'magic-assignment';

export interface MaskedSpan {
  kind: MaskedKind;
  start: number;
  end: number;
  /** The magic's name (`time`, `matplotlib`), or `!` for shell escapes, `?` for help. */
  name: string;
}

export interface MaskResult {
  /** Same length as the input; plain Python where the cell is Python. */
  masked: string;
  spans: MaskedSpan[];
  /**
   * Set when a cell magic makes the whole cell non-Python (`%%bash`, `%%writefile`): the
   * magic's name. The masked text is then all spaces and the cell should not be analysed.
   */
  foreignCellMagic?: string;
  /** The cell magic on the first line, if any (Python-body or not). */
  cellMagic?: string;
}

/** Characters without which a source holds no IPython syntax (`%`, `!`, `?`). */
const IPYTHON_CHARS = /[%!?]/;

/** A Python no-op expression of exactly `length` characters (`...`, `()`, `0`, padded). */
function noOp(length: number): string {
  if (length >= 3) {
    return '...' + ' '.repeat(length - 3);
  }
  if (length === 2) {
    return '()';
  }
  return length === 1 ? '0' : '';
}

/** Replaces all non-newline characters of `text` by spaces (keeps line structure). */
function blank(text: string): string {
  return text.replace(/[^\n\r]/g, ' ');
}

interface LogicalLine {
  /** Offset of the first character of the first physical line. */
  start: number;
  /** Offset just past the last character before the final newline. */
  end: number;
}

/**
 * The start of a line IPython reads as an escape: `%magic`, `!cmd`, `?obj`, or an assignment
 * from one (`x = !cmd`, `a, b = %magic`), after the indentation: the forms `maskIPython` masks.
 */
const ESCAPE_LINE = /[ \t]*(?:%[A-Za-z_]|!|\?+[\w.]|[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*[!%])/y;

/**
 * The end of the escape line starting at `start` (just past its last character before the
 * newline), with its continuations: like IPython (`find_end_of_continued_line`), a physical line
 * whose last character is a backslash joins the next one into the command, whatever the text
 * (quotes, brackets and `#` are the command's). A CRLF line end counts as a newline here, as it
 * does for Python (IPython itself only joins `\` + LF: see the module comment).
 */
function escapeLineEnd(source: string, start: number): { end: number; next: number } {
  let at = start;
  for (;;) {
    const newline = source.indexOf('\n', at);
    const lineEnd = newline < 0 ? source.length : newline;
    const end = lineEnd > at && source.charCodeAt(lineEnd - 1) === CR ? lineEnd - 1 : lineEnd;
    if (newline < 0 || end === at || source.charCodeAt(end - 1) !== BACKSLASH) {
      return { end, next: newline < 0 ? source.length + 1 : newline + 1 };
    }
    at = newline + 1;
  }
}

/**
 * Splits `source` into the physical lines that start a logical line outside strings and
 * brackets, joined with their continuations (backslash, open brackets, triple-quoted strings).
 * Lines inside a triple-quoted string or an open bracket, or after a backslash, are not
 * candidates for IPython syntax (IPython does the same). An escape line (`!cmd`, `%magic`,
 * `x = !cmd`) is the command's text, not Python: its quotes and brackets open nothing, and it
 * ends at the first line end not preceded by a backslash (IPython turns each escape line into
 * a call before it reads the next).
 */
function logicalLines(source: string): LogicalLine[] {
  const lines: LogicalLine[] = [];
  let i = 0;
  const n = source.length;
  let depth = 0;
  let quote: string | null = null; // ' " ''' """
  // the physical line being read, and whether it starts a logical line (else it continues one)
  let lineStart = 0;
  let startsLogical = true;
  /** Ends the physical line at `end` (its last character, before the newline). */
  const endLine = (end: number): void => {
    if (startsLogical) {
      lines.push({ start: lineStart, end });
    } else if (lines.length > 0) {
      lines[lines.length - 1].end = end; // a continuation of the previous logical line
    }
  };
  while (i <= n) {
    if (i === lineStart && startsLogical) {
      ESCAPE_LINE.lastIndex = i;
      if (ESCAPE_LINE.test(source)) {
        const { end, next } = escapeLineEnd(source, i);
        lines.push({ start: i, end });
        i = lineStart = next;
        continue;
      }
    }
    const ch = i < n ? source[i] : '\n';
    if (quote) {
      if (ch === '\\') {
        // an escaped character; a backslash before CRLF continues the string over both
        i += source[i + 1] === '\r' && source[i + 2] === '\n' ? 3 : 2;
        continue;
      }
      if (source.startsWith(quote, i)) {
        i += quote.length;
        quote = null;
        continue;
      }
      if (ch === '\n' && quote.length === 1) {
        quote = null; // unterminated single-quoted string: the line ends it
      } else {
        i += 1;
        continue;
      }
    }
    if (ch === '#') {
      // a comment runs to the line end (a backslash in it continues nothing)
      while (i < n && source[i] !== '\n') {
        i += 1;
      }
      continue;
    }
    if (ch === '"' || ch === "'") {
      const triple = source.startsWith(ch.repeat(3), i);
      quote = triple ? ch.repeat(3) : ch;
      i += quote.length;
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') {
      depth += 1;
    } else if (ch === ')' || ch === ']' || ch === '}') {
      depth = Math.max(0, depth - 1);
    } else if (ch === '\\' && (source[i + 1] === '\n' || (source[i + 1] === '\r' && source[i + 2] === '\n'))) {
      // an explicit continuation: this physical line ends, the next one continues it
      const newline = source[i + 1] === '\n' ? i + 1 : i + 2;
      endLine(i + 1);
      startsLogical = false;
      i = lineStart = newline + 1;
      continue;
    } else if (ch === '\n') {
      endLine(i > lineStart && source[i - 1] === '\r' ? i - 1 : i);
      startsLogical = depth === 0;
      lineStart = i + 1;
    }
    i += 1;
  }
  return lines.filter(l => l.start <= n);
}

/** Masks IPython syntax in one cell's source (see the module comment). */
export function maskIPython(source: string): MaskResult {
  if (!IPYTHON_CHARS.test(source)) {
    // every piece of IPython syntax holds one of these characters: nothing to mask
    return { masked: source, spans: [], cellMagic: undefined };
  }
  const spans: MaskedSpan[] = [];
  // the masked text, as replacements of `source` (each of its range's length), in increasing
  // order and not overlapping: put together once at the end (the source itself when none)
  const patchStarts: number[] = [];
  const patchTexts: string[] = [];
  const put = (start: number, text: string): void => {
    patchStarts.push(start);
    patchTexts.push(text);
  };

  /** A no-op on the first physical line of [start, end), spaces after, newlines kept. */
  const maskRange = (start: number, end: number): void => {
    const newline = source.indexOf('\n', start);
    const firstEnd = newline < 0 || newline >= end ? end : newline;
    const headEnd = firstEnd > start && source[firstEnd - 1] === '\r' ? firstEnd - 1 : firstEnd;
    put(start, noOp(headEnd - start) + blank(source.slice(headEnd, end)));
  };

  let bodyStart = 0;
  let cellMagic: string | undefined;
  const cellMatch = /^[ \t]*%%([A-Za-z_][\w.]*)/.exec(source);
  if (cellMatch) {
    cellMagic = cellMatch[1];
    const firstLineEnd = source.indexOf('\n');
    const headerEnd = firstLineEnd < 0 ? source.length : firstLineEnd;
    if (!PYTHON_BODY_CELL_MAGICS.has(cellMagic)) {
      return {
        masked: blank(source),
        spans: [{ kind: 'cell-magic', start: 0, end: source.length, name: cellMagic }],
        foreignCellMagic: cellMagic,
        cellMagic
      };
    }
    put(0, ' '.repeat(headerEnd));
    spans.push({ kind: 'cell-magic', start: 0, end: headerEnd, name: cellMagic });
    bodyStart = headerEnd + 1;
  }

  const body = source.slice(bodyStart);
  for (const line of logicalLines(body)) {
    const start = line.start + bodyStart;
    const end = line.end + bodyStart;
    let stmtStart = start;
    while (stmtStart < end && (source.charCodeAt(stmtStart) === SPACE || source.charCodeAt(stmtStart) === TAB)) {
      stmtStart++;
    }
    // every form below holds `%`, `!` or `?`: a line without one is plain Python
    if (stmtStart === end || !hasIPythonChar(source, stmtStart, end)) {
      continue;
    }
    const stmt = source.slice(stmtStart, end);

    // `%time x = f()`: keep the statement, replace the prefix by `if 1:` plus spaces.
    const timed = /^%(time|timeit|prun|gpu_timeit)((?:\s+-[A-Za-z](?:\s+[\w.]+)?)*)\s+(?=\S)/.exec(stmt);
    if (timed && STATEMENT_LINE_MAGICS.has(timed[1]) && timed[0].length >= 6) {
      put(stmtStart, 'if 1:' + ' '.repeat(timed[0].length - 5));
      spans.push({ kind: 'line-magic', start: stmtStart, end: stmtStart + timed[0].length, name: timed[1] });
      continue;
    }
    // `%magic ...`, `!cmd`
    const lineMagic = /^%([A-Za-z_][\w.]*)/.exec(stmt);
    if (lineMagic || stmt.startsWith('!')) {
      maskRange(stmtStart, end);
      spans.push({
        kind: lineMagic ? 'line-magic' : 'shell',
        start: stmtStart,
        end,
        name: lineMagic ? lineMagic[1] : '!'
      });
      continue;
    }
    // `x = !cmd`, `x = %magic args`
    const assigned = /^([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)([!%])/.exec(stmt);
    if (assigned) {
      const rhsStart = stmtStart + assigned[1].length;
      maskRange(rhsStart, end);
      const m = /^%([A-Za-z_][\w.]*)/.exec(stmt.slice(assigned[1].length));
      spans.push({ kind: 'magic-assignment', start: rhsStart, end, name: m ? m[1] : '!' });
      continue;
    }
    // help: `?obj`, `obj?`, `obj??`
    if (/^\?+[\w.]/.test(stmt) || /^[A-Za-z_][\w.]*(\(\))?\?{1,2}\s*$/.test(stmt)) {
      maskRange(stmtStart, end);
      spans.push({ kind: 'help', start: stmtStart, end, name: '?' });
    }
  }
  if (patchStarts.length === 0) {
    return { masked: source, spans, cellMagic };
  }
  let masked = '';
  let at = 0;
  for (let k = 0; k < patchStarts.length; k++) {
    masked += source.slice(at, patchStarts[k]) + patchTexts[k];
    at = patchStarts[k] + patchTexts[k].length;
  }
  return { masked: masked + source.slice(at), spans, cellMagic };
}

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const BACKSLASH = 0x5c;

/** Whether `source[start, end)` holds `%`, `!` or `?`. */
function hasIPythonChar(source: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const c = source.charCodeAt(k);
    if (c === 0x25 || c === 0x21 || c === 0x3f) {
      return true;
    }
  }
  return false;
}
