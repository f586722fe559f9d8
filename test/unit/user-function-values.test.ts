/**
 * What a call of a notebook-defined function holds (NotebookModel.inferValue): its return
 * expression inferred with the parameters bound to the call's arguments. Each expectation is
 * what NumPy 2 gives for the same call (type, shape, dtype).
 */
import type { NotebookModel } from '../../src/analysis/notebook';
import type { PythonParser } from '../../src/analysis/parser';
import type { RuntimeValueInfo } from '../../src/analysis/types';
import type { ValueInfo } from '../../src/analysis/values';
import { cellsOf, parser, notebookModel } from './helpers';

let p: PythonParser;
beforeAll(async () => {
  p = await parser();
});

const SETUP = [
  'import numpy as np',
  'img = np.zeros((512, 256), dtype=np.float32)',
  'ref = np.ones((512, 256), dtype=np.float32)',
  'v = np.arange(100)',
  'scale = 2.0'
].join('\n');

/** The value `r` is bound to by the last of `cells` (after SETUP). */
function valueOf(cells: string[], runtime: Record<string, RuntimeValueInfo> = {}): ValueInfo {
  const m: NotebookModel = notebookModel(p, cellsOf(SETUP, ...cells), runtime);
  return m.valueAfter('r', m.cells[m.cells.length - 1]);
}

const PSNR = 'def psnr(a, b):\n    mse = np.mean((a - b) ** 2)\n    return 10 * np.log10(b.max() ** 2 / mse)';

describe('calls of notebook functions', () => {
  // a full reduction of a float32 image: a 0-d float32 value (NumPy's scalar, CuPy's 0-d array)
  const ZERO_D = { kind: 'ndarray', shape: [], dtype: 'float32', library: 'numpy' };

  it('give the return expression with the arguments bound (a 0-d value from a float32 image)', () => {
    expect(valueOf([PSNR, 'r = psnr(img, ref)'])).toMatchObject(ZERO_D);
    // the same function in the calling cell, and with keyword arguments
    expect(valueOf([`${PSNR}\nr = psnr(b=ref, a=img)`])).toMatchObject(ZERO_D);
  });

  it('bind each call to its own arguments', () => {
    const src = 'def smooth(u, k=3):\n    return u[k:-k] * 0.5';
    expect(valueOf([src, 'r = smooth(img)'])).toMatchObject({ kind: 'ndarray', shape: [506, 256], dtype: 'float32' });
    expect(valueOf([src, 'r = smooth(v, 10)'])).toMatchObject({ kind: 'ndarray', shape: [80], dtype: 'float64' });
    expect(valueOf([src, 'r = smooth(v, k=1)'])).toMatchObject({ kind: 'ndarray', shape: [98], dtype: 'float64' });
  });

  it('follow lambdas, nested calls, and globals as the call sees them', () => {
    expect(valueOf(['norm = lambda x: x / np.linalg.norm(x)', 'r = norm(img)'])).toMatchObject({ kind: 'ndarray', shape: [512, 256], dtype: 'float32' });
    // a lambda called where it is written
    expect(valueOf(['r = (lambda a, b: a % b)(img, 2.5)'])).toMatchObject({ kind: 'ndarray', shape: [512, 256], dtype: 'float32' });
    expect(valueOf(['r = (lambda n: n // 7)(v)'])).toMatchObject({ kind: 'ndarray', shape: [100], dtype: 'int64' });
    expect(valueOf(['def inner(x):\n    return x.astype(np.float32)\ndef outer(y):\n    return inner(y) * 2', 'r = outer(v)'])).toMatchObject({
      kind: 'ndarray',
      shape: [100],
      dtype: 'float32'
    });
    expect(valueOf(['def scaled(x):\n    return x * factor', 'factor = np.float32(3)\nr = scaled(img)'])).toMatchObject({ kind: 'ndarray', dtype: 'float32' });
  });

  it('follow augmented assignments of locals: an array keeps what it is, a number is rebound', () => {
    // bench/notebooks/g_register.py's xcorr: R /= ... divides the complex array in place
    const xcorr = 'def xcorr(a):\n    R = np.fft.fft2(a * ref) * np.conj(np.fft.fft2(ref))\n    R /= np.abs(R) + 1e-12\n    return np.real(np.fft.ifft2(R))';
    expect(valueOf([xcorr, 'r = xcorr(img)'])).toMatchObject({ kind: 'ndarray', shape: [512, 256], dtype: 'float32' });
    // a parameter updated in place (NumPy casts back into its dtype: v stays int64)
    expect(valueOf(['def bump(x):\n    x += 1\n    return x', 'r = bump(v)'])).toMatchObject({ kind: 'ndarray', shape: [100], dtype: 'int64' });
    // numbers are rebound: n *= 2 is 6, and float / gives a float
    expect(valueOf(['def grid(k):\n    n = 3\n    n *= k\n    return np.zeros(n)', 'r = grid(2)'])).toMatchObject({ kind: 'ndarray', shape: [6] });
    expect(valueOf(['def half(k):\n    k /= 2\n    return k', 'r = half(3)'])).toMatchObject({ kind: 'scalar', dtype: 'float64', value: 1.5 });
    // a list extended, a number made an array by the update: unknown
    expect(valueOf(['def grow(k):\n    xs = [1]\n    xs += [k]\n    return xs', 'r = grow(2)']).kind).toBe('unknown');
    expect(valueOf(['def spread(k):\n    k += v\n    return k', 'r = spread(2)']).kind).toBe('unknown');
    // inside a branch: unknown, as any name the branch rebinds
    expect(valueOf(['def maybe(a):\n    R = a * 2\n    if a.ndim > 1:\n        R /= 2\n    return R', 'r = maybe(img)']).kind).toBe('unknown');
  });

  it('join several returns: the same value, or unknown', () => {
    const agree = 'def f(x, flip):\n    if flip:\n        return x[::-1] * 2\n    else:\n        return x * 2';
    expect(valueOf([agree, 'r = f(v, True)'])).toMatchObject({ kind: 'ndarray', shape: [100], dtype: 'int64' });
    const differ = 'def f(x, flip):\n    if flip:\n        return x[::2]\n    return x';
    expect(valueOf([differ, 'r = f(v, True)']).kind).toBe('unknown');
  });

  it('stay unknown where the return cannot be typed or the body cannot end in it', () => {
    const cases = [
      // the return is untypeable (an unknown call)
      'def f(x):\n    return load(x)',
      // recursion (direct and mutual)
      'def f(x):\n    return f(x[1:])',
      'def f(x):\n    return g(x)\ndef g(x):\n    return f(x) * 2',
      // None at the end of the body, a bare return, a generator, a decorated function
      'def f(x):\n    if x.size:\n        return x * 2',
      'def f(x):\n    return',
      'def f(x):\n    yield x * 2',
      '@cache\ndef f(x):\n    return x * 2',
      // a local a loop rebinds
      'def f(x):\n    y = x * 2\n    for k in range(3):\n        y = y[1:]\n    return y',
      // arguments that do not fit the parameters (a TypeError)
      'def f(x, y):\n    return x * 2'
    ];
    for (const def of cases) {
      expect([def, valueOf([def, 'r = f(v)']).kind]).toEqual([def, 'unknown']);
    }
  });

  it('use the definition where the kernel reports the name as a function', () => {
    const runtime = { psnr: { type: 'function' } };
    expect(valueOf([PSNR, 'r = psnr(img, ref)'], runtime)).toMatchObject(ZERO_D);
  });
});
