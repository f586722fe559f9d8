/**
 * maskIPython builds the masked text from its replacements (one per masked piece) instead of
 * rewriting an array of every character: several pieces in one cell, CRLF line ends, non-ASCII
 * text around them, and cells with `%` or `?` that are plain Python must come out exactly as
 * before (these expectations are the character-array version's output).
 */
import { maskIPython } from '../../src/analysis/ipython';

describe('maskIPython: replacements put together', () => {
  it('masks a cell magic, a shell escape, a magic assignment and help in one CRLF cell', () => {
    const source = '%%time\r\nx = 1\r\n!ls -l\r\ny = %who_ls\r\nz?\r\n';
    const r = maskIPython(source);
    expect(r.masked).toBe('       \nx = 1\r\n...   \r\ny = ...    \r\n()\r\n');
    expect(r.masked.length).toBe(source.length);
    expect(r.cellMagic).toBe('time');
    expect(r.spans).toEqual([
      { kind: 'cell-magic', start: 0, end: 7, name: 'time' },
      { kind: 'shell', start: 15, end: 21, name: '!' },
      { kind: 'magic-assignment', start: 27, end: 34, name: 'who_ls' },
      { kind: 'help', start: 36, end: 38, name: '?' }
    ]);
  });

  it('keeps the text between pieces, non-ASCII included', () => {
    const source = 'é = 1\n  !echo "é"\nt = !ls -l\nprint(é)\n';
    const r = maskIPython(source);
    expect(r.masked).toBe('é = 1\n  ...      \nt = ...   \nprint(é)\n');
    expect(r.spans).toEqual([
      { kind: 'shell', start: 8, end: 17, name: '!' },
      { kind: 'magic-assignment', start: 22, end: 28, name: '!' }
    ]);
  });

  it('leaves `%` and `?` that are Python (or in strings) alone, and masks a timed statement and help', () => {
    const source = 'a = b % c\n%timeit -n 3 f(a)\nd = {"k": "%s?"}\n??g\n';
    const r = maskIPython(source);
    expect(r.masked).toBe('a = b % c\nif 1:        f(a)\nd = {"k": "%s?"}\n...\n');
    expect(r.spans).toEqual([
      { kind: 'line-magic', start: 10, end: 23, name: 'timeit' },
      { kind: 'help', start: 45, end: 48, name: '?' }
    ]);
  });

  it('returns the source itself when nothing is masked', () => {
    const source = 'x = "100%"\ny = a % 2\n';
    const r = maskIPython(source);
    expect(r.masked).toBe(source);
    expect(r.spans).toEqual([]);
    expect(r.cellMagic).toBeUndefined();
  });
});
