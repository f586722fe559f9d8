import { maskIPython } from '../../src/analysis/ipython';
import { parser } from './helpers';

describe('IPython masking', () => {
  const cases: [string, string][] = [
    ['line magic', '%matplotlib inline\nx = 1\n'],
    ['shell escape', '!pip install cupy\nx = 1\n'],
    ['assigned shell', 'files = !ls *.csv\nprint(files)\n'],
    ['assigned magic', 't = %timeit -o f(x)\n'],
    ['help', 'np.fft?\nnp.fft.fft??\n?np.sin\n'],
    ['indented magic', 'for i in range(3):\n    %time f(i)\n'],
    ['time prefix', '%time y = np.sin(x)\n'],
    ['timeit with options', '%timeit -n 10 -r 3 y = np.sin(x)\n'],
    ['python-body cell magic', '%%time\ny = np.sin(x)\nz = y + 1\n'],
    ['continued magic', '!echo a \\\n  b\nx = 1\n']
  ];

  it.each(cases)('%s: same length, line structure kept, valid Python', async (_name, src) => {
    const { masked } = maskIPython(src);
    expect(masked.length).toBe(src.length);
    expect(masked.split('\n').length).toBe(src.split('\n').length);
    const p = await parser();
    expect(p.parse(masked).rootNode.hasError).toBe(false);
  });

  it('keeps the statement of %time so its offsets map back', () => {
    const src = '%time y = np.sin(x)\n';
    const { masked } = maskIPython(src);
    const at = masked.indexOf('y = np.sin(x)');
    expect(at).toBe(src.indexOf('y = np.sin(x)'));
  });

  it('keeps the body of a Python-body cell magic at the same offsets', () => {
    const src = '%%timeit\ny = np.sin(x)\n';
    const { masked, cellMagic, foreignCellMagic } = maskIPython(src);
    expect(cellMagic).toBe('timeit');
    expect(foreignCellMagic).toBeUndefined();
    expect(masked.slice(9)).toBe(src.slice(9));
    expect(masked.slice(0, 8).trim()).toBe('');
  });

  it('treats non-Python cell magics as foreign', () => {
    const r = maskIPython('%%bash\nls -la\n');
    expect(r.foreignCellMagic).toBe('bash');
    expect(r.masked.trim()).toBe('');
  });

  it('leaves % and ? inside strings and brackets alone', () => {
    const src = 's = """\n%not a magic\nwhat?\n"""\nv = f(a,\n      b)\nprint("%d" % 3)\n';
    const r = maskIPython(src);
    expect(r.masked).toBe(src);
    expect(r.spans).toEqual([]);
  });

  it('binds the name of x = !cmd to a no-op so the name stays defined', async () => {
    const src = 'files = !ls\n';
    const { masked, spans } = maskIPython(src);
    expect(masked.startsWith('files = ')).toBe(true);
    expect(spans[0].kind).toBe('magic-assignment');
    const p = await parser();
    expect(p.parse(masked).rootNode.hasError).toBe(false);
  });
});
