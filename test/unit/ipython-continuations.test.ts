/**
 * Backslash continuations and escape lines in maskIPython, as IPython's input transformers read
 * them (checked against IPython 9.18's TransformerManager.transform_cell, one case at a time):
 *
 * - a Python line ending in `\` continues Python: the next physical line is part of that
 *   statement (never IPython syntax), and the line after it starts afresh;
 * - an escape line (`!cmd`, `%magic`, `x = !cmd`, `x = %magic`) ending in `\` joins the next
 *   line into the command (`find_end_of_continued_line`), whatever that line holds; the line
 *   after the last continuation is Python again;
 * - an escape line is the command's text: its quotes, brackets and `#` open nothing (IPython
 *   turns each escape line into a call before it reads the next).
 *
 * CRLF: Python's tokenizer reads `\` + CRLF as a continuation; IPython joins escape lines only
 * on `\` + LF (with CRLF it runs `!ls \` alone and fails on the next line as Python). The masker
 * reads CRLF as LF everywhere, so a CRLF cell masks as the same cell with LF line ends.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { maskIPython } from '../../src/analysis/ipython';
import type { PythonParser } from '../../src/analysis/parser';
import { parser } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

/**
 * A case: its name, the cell, the masked text, [kind, start, end] of each span, and `true`
 * where the cell is a syntax error in IPython too (the masked text does not parse). The comment
 * above a case is what IPython makes of the cell.
 */
type Case = [name: string, source: string, masked: string, spans: [string, number, number][], invalid?: true];

const CASES: Case[] = [
  // IPython: x = 1 + \<LF>  2<LF>get_ipython().system('ls')
  ['a shell escape after a continued Python line', 'x = 1 + \\\n  2\n!ls\n', 'x = 1 + \\\n  2\n...\n', [['shell', 14, 17]]],
  // IPython: t = get_ipython().getoutput('ls    -l')<LF>print(t)
  ['a continued shell assignment, then Python', 't = !ls \\\n  -l\nprint(t)\n', 't = ...  \n    \nprint(t)\n', [['magic-assignment', 4, 14]]],
  // IPython: get_ipython().system('ls  -l  -a')<LF>z=1
  ['a shell escape continued over three lines', '!ls \\\n-l \\\n-a\nz=1\n', '...  \n    \n  \nz=1\n', [['shell', 0, 13]]],
  // IPython: t = get_ipython().run_line_magic('who_ls', '   int')<LF>print(t)
  ['a continued magic assignment, then Python', 't = %who_ls \\\n  int\nprint(t)\n', 't = ...      \n     \nprint(t)\n', [['magic-assignment', 4, 19]]],
  // IPython: for f in x:<LF>    get_ipython().system('ls        -l')<LF>    y = 2
  ['an indented continued shell escape in a loop body', 'for f in x:\n    !ls \\\n      -l\n    y = 2\n', 'for f in x:\n    ...  \n        \n    y = 2\n', [['shell', 16, 30]]],
  // IPython: get_ipython().run_line_magic('time', 'x = 1 +    2')<LF>y = 3
  ['a continued %time statement stays analysable', '%time x = 1 + \\\n  2\ny = 3\n', 'if 1: x = 1 + \\\n  2\ny = 3\n', [['line-magic', 0, 6]]],
  // IPython: get_ipython().system('echo hi # c  print(1)')
  ["a `#` in a shell command is the command's (its backslash continues)", '!echo hi # c \\\nprint(1)\n', '...           \n        \n', [['shell', 0, 23]]],
  // IPython: x = 1 # c \<LF>get_ipython().system('ls')
  ['a backslash in a Python comment continues nothing', 'x = 1 # c \\\n!ls\n', 'x = 1 # c \\\n...\n', [['shell', 12, 15]]],
  // IPython: get_ipython().system('ls \\')<LF>print(1)
  ['a backslash followed by a space continues nothing', '!ls \\ \nprint(1)\n', '...   \nprint(1)\n', [['shell', 0, 6]]],
  // IPython: get_ipython().system('ls  ')<LF>get_ipython().system('pwd')
  ['a continuation onto an empty line, then another escape', '!ls \\\n\n!pwd\n', '...  \n\n... \n', [['shell', 0, 6], ['shell', 7, 11]]],
  ['a continued shell escape at the end of the cell', 'x = 1\n!ls \\', 'x = 1\n...  ', [['shell', 6, 11]]],
  // IPython: x = 1 + \<LF>!ls (a syntax error: the line continues Python)
  ['an escape on the line a Python backslash continues is not one', 'x = 1 + \\\n!ls\n', 'x = 1 + \\\n!ls\n', [], true],
  // IPython: s = 'a\<LF>b'<LF>get_ipython().system('ls')
  ['a backslash continuing a string, then an escape', "s = 'a\\\nb'\n!ls\n", "s = 'a\\\nb'\n...\n", [['shell', 11, 14]]],
  // IPython: get_ipython().system('echo (')<LF>get_ipython().system('ls')
  ['a bracket in a shell command opens nothing', '!echo (\n!ls\nx = 1\n', '...    \n...\nx = 1\n', [['shell', 0, 7], ['shell', 8, 11]]],
  // IPython: get_ipython().system('echo """')<LF>get_ipython().system('ls')<LF>x = 1
  ['a triple quote in a shell command opens no string', '!echo """\n!ls\nx = 1\n', '...      \n...\nx = 1\n', [['shell', 0, 9], ['shell', 10, 13]]],
  ['a quote in a shell assignment opens no string', "t = !echo it's\nu = !ls\n", 't = ...       \nu = ...\n', [['magic-assignment', 4, 14], ['magic-assignment', 19, 22]]],
  // IPython leaves both alone: they are inside a bracket / a triple-quoted string
  ['escapes inside brackets and strings stay', "x = (1,\n!ls)\na = '''\n!ls\n'''\n!pwd\n", "x = (1,\n!ls)\na = '''\n!ls\n'''\n... \n", [['shell', 29, 33]], true],
  ['a Python-body cell magic, a continued Python line, then an escape', '%%time\nx = 1 + \\\n  2\n!ls\n', '      \nx = 1 + \\\n  2\n...\n', [['cell-magic', 0, 6], ['shell', 21, 24]]]
];

function spansOf(source: string): [string, number, number][] {
  return maskIPython(source).spans.map(s => [s.kind, s.start, s.end]);
}

describe('maskIPython: backslash continuations and escape lines', () => {
  it.each(CASES)('%s', (_name, source, masked, spans) => {
    const r = maskIPython(source);
    expect(r.masked).toBe(masked);
    expect(r.masked.length).toBe(source.length);
    expect(spansOf(source)).toEqual(spans);
  });

  it.each(CASES)('%s: with CRLF line ends', (_name, lf, masked, spans) => {
    const source = lf.replace(/\n/g, '\r\n');
    const r = maskIPython(source);
    // the same masking, each LF now CRLF (a masked line's CR stays a CR; a cell magic's header
    // blanks up to its LF: its CR is a space)
    let expected = masked.replace(/\n/g, '\r\n');
    if (r.cellMagic !== undefined) {
      expected = expected.replace(/^( *)\r\n/, '$1 \n');
    }
    expect(r.masked).toBe(expected);
    expect(r.masked.length).toBe(source.length);
    // every offset moves by the number of line ends before it
    const shift = (at: number): number => at + (lf.slice(0, at).match(/\n/g) ?? []).length;
    const spanShift = (kind: string, start: number, end: number): [string, number, number] =>
      kind === 'cell-magic' ? [kind, start, end + 1] : [kind, shift(start), shift(end)];
    expect(spansOf(source)).toEqual(spans.map(([k, s, e]) => spanShift(k, s, e)));
  });

  it.each(CASES.filter(([, , , , invalid]) => !invalid))('%s: the masked text parses as Python', (_name, lf) => {
    for (const source of [lf, lf.replace(/\n/g, '\r\n')]) {
      expect(p.parse(maskIPython(source).masked).rootNode.hasError).toBe(false);
    }
  });

  it('the statement after a continued Python line keeps its offsets', () => {
    const source = 'y = f(a) + \\\n    g(b)\n!nvidia-smi\nz = y * 2\n';
    const r = maskIPython(source);
    expect(r.masked.slice(0, source.indexOf('!'))).toBe(source.slice(0, source.indexOf('!')));
    expect(r.masked.indexOf('z = y * 2')).toBe(source.indexOf('z = y * 2'));
    expect(r.spans).toEqual([{ kind: 'shell', start: source.indexOf('!'), end: source.indexOf('!') + 11, name: '!' }]);
  });
});

/**
 * The physical lines (0-based) maskIPython treats as IPython escapes: those a span touches, a
 * span ending at the start of an empty continuation line included; a `%time stmt` keeps its
 * statement, so its span is only the prefix: the statement's backslash continuations are its too.
 */
function maskedLines(source: string): number[] {
  const r = maskIPython(source);
  const physical = source.split('\n').map(l => l.replace(/\r$/, ''));
  const count = source.endsWith('\n') ? physical.length - 1 : physical.length;
  const starts = [0];
  for (let k = 0; k < source.length; k++) {
    if (source[k] === '\n') {
      starts.push(k + 1);
    }
  }
  const lineOf = (at: number): number => {
    let l = 0;
    while (l + 1 < starts.length && starts[l + 1] <= at) {
      l++;
    }
    return l;
  };
  const out = new Set<number>();
  for (const s of r.spans) {
    if (s.kind === 'cell-magic') {
      continue;
    }
    let last = lineOf(s.end);
    if (r.masked.startsWith('if 1:', s.start)) {
      while (last + 1 < count && physical[last].endsWith('\\')) {
        last++;
      }
    }
    for (let l = lineOf(s.start); l <= Math.min(last, count - 1); l++) {
      out.add(l);
    }
  }
  return [...out].sort((a, b) => a - b);
}

describe("maskIPython: the escape lines of IPython's own transformers", () => {
  // generated by test/fixtures/ipython/generate_escape_lines.py (random valid cells, with the
  // lines IPython turns into calls)
  const fixture = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'ipython', 'escape-lines.json'), 'utf8')) as {
    ipython: string;
    cells: { source: string; escapeLines: number[] }[];
  };

  it(`masks the lines IPython ${fixture.ipython} replaces, and no others (${fixture.cells.length} cells)`, () => {
    const wrong = fixture.cells.filter(c => maskedLines(c.source).join() !== c.escapeLines.join());
    expect(wrong).toEqual([]);
  });

  it('masks each cell with CRLF line ends as with LF', () => {
    const wrong = fixture.cells.filter(c => {
      const crlf = c.source.replace(/\n/g, '\r\n');
      const r = maskIPython(crlf);
      return r.masked.length !== crlf.length || r.masked.replace(/\r\n/g, '\n') !== maskIPython(c.source).masked || maskedLines(crlf).join() !== c.escapeLines.join();
    });
    expect(wrong.map(c => c.source)).toEqual([]);
  });

  it('masks them into text that parses as Python', () => {
    // `%time y = f(x) + \\` joins the next line into its statement, which IPython hands the
    // magic as a string (the cell compiles, the magic fails): the kept statement is no Python
    const timedContinued = (c: { source: string }) => c.source.includes('%time y = f(x) + \\');
    const wrong = fixture.cells.filter(c => !timedContinued(c) && p.parse(maskIPython(c.source).masked).rootNode.hasError);
    expect(fixture.cells.filter(c => !timedContinued(c)).length).toBeGreaterThan(200);
    expect(wrong.map(c => c.source)).toEqual([]);
  });
});
