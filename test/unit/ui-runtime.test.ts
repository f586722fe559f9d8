/** The UI's handling of inspect replies: the runtime map and the card's size note. */
import { kernelSizeNote, runtimeFromInspect, sameRuntime } from '../../src/ui/runtime';

const X = { type: 'numpy.ndarray', shape: [30_000_000], dtype: 'float32', bytes: 120_000_000, device: 'host' as const };

describe('runtimeFromInspect', () => {
  test('keeps well-formed reports of the names asked, drops nulls and malformed entries', () => {
    const values = {
      x: X,
      gone: null,
      bad: { type: 42 },
      odd: { type: 'numpy.ndarray', shape: [-1, 'a'], bytes: 'many', device: 'tpu', dtype: 3 },
      extra: X
    } as never;
    expect(runtimeFromInspect(['x', 'gone', 'bad', 'odd', 'missing'], values)).toEqual({
      x: X,
      odd: { type: 'numpy.ndarray' }
    });
  });

  test('does not read inherited properties', () => {
    expect(runtimeFromInspect(['constructor', 'toString'], {})).toEqual({});
  });

  test('keeps a report on a Python name that is a JavaScript object member (__proto__, constructor)', () => {
    const values = JSON.parse('{"__proto__": {"type": "numpy.ndarray", "shape": [4]}, "constructor": {"type": "int"}}') as never;
    const out = runtimeFromInspect(['__proto__', 'constructor'], values);
    expect(Object.keys(out).sort()).toEqual(['__proto__', 'constructor']);
    expect(out['__proto__']).toEqual({ type: 'numpy.ndarray', shape: [4] });
    expect(sameRuntime(out, runtimeFromInspect(['constructor'], values))).toBe(false);
    expect(sameRuntime(runtimeFromInspect(['constructor'], values), {})).toBe(false);
  });
});

describe('sameRuntime', () => {
  test('compares reports field by field', () => {
    expect(sameRuntime({ x: X }, { x: { ...X } })).toBe(true);
    expect(sameRuntime({ x: X }, { x: { ...X, shape: [10] } })).toBe(false);
    expect(sameRuntime({ x: X }, {})).toBe(false);
    expect(sameRuntime({}, {})).toBe(true);
    // an inherited member of the other map is not a report
    expect(sameRuntime({ constructor: { type: 'int' } } as never, { toString: { type: 'int' } } as never)).toBe(false);
  });
});

describe('kernelSizeNote', () => {
  test('names the kernel-sized arrays the cell reads, largest first', () => {
    const runtime = { x: X, w: { ...X, bytes: 8_000_000 }, unrelated: X, n: { type: 'int' } };
    expect(kernelSizeNote({ original: 'y = np.sqrt(x*x+1.0)*np.exp(-x) + w' }, runtime)).toBe(
      'size from the kernel: x 114 MiB, w 7.63 MiB'
    );
  });

  test('null when the cell reads nothing the kernel sized; attributes are not names', () => {
    expect(kernelSizeNote({ original: 'y = np.x + 1' }, { x: X })).toBeNull();
    expect(kernelSizeNote({ original: 'y = x + 1' }, {})).toBeNull();
  });
});
